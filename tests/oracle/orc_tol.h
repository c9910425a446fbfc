/* oracle stage: THE tolerance table. Every comparison of a kernel with the
 * fp64 oracle takes its bound from here; never loosen one without a reason
 * written next to it (DESIGN.md §3). Errors are relative L2 errors
 * ||got - want||_2 / ||want||_2 on the same (bf16-rounded) inputs. */
#ifndef SSMC_ORC_TOL_H
#define SSMC_ORC_TOL_H

typedef enum {
  ORC_TOL_OUTPUT,       /* layer output y */
  ORC_TOL_STATE,        /* final states */
  ORC_TOL_GRAD,         /* gradients (backward kernels) */
  ORC_TOL_SOLVE_CHEB,   /* GKA x vs the fp64 Chebyshev with the same r */
  ORC_TOL_GRAD_FLOOR,   /* RMS floor of a gradient's norm in its relative error (not a bound) */
  ORC_TOL_SOLVE_CONVERGED, /* fp64 Chebyshev x vs the exact solve below which gradients vs exact are judged */
  ORC_TOL_DECAY_GRAD_FLOOR, /* a log decay's gradient: its RMS floor relative to the RMS of its k.dk terms */
  ORC_TOL_COUNT
} orc_tol_kind;

typedef struct { orc_tol_kind kind; const char *what; double bound; const char *reason; } orc_tol;

const orc_tol *orc_tol_get(orc_tol_kind k);
double orc_tol_bound(orc_tol_kind k);

#endif
