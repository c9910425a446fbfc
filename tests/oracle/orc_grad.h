/* oracle stage: fp64 gradients of a spec by reverse-mode differentiation of
 * the literal interpreter (orc_interp.c's semantics, re-evaluated here with a
 * tape). Every update and readout expression is evaluated node by node as
 * written; the adjoint of each node is propagated to its operands (matrix
 * product, scaling, transpose, diag, fro, exp, log, sqrt, + − /). A solve
 * readout (M x = b, λ substituted in M) is differentiated either
 *   - as the EXACT solve: g = M⁻ᵀ dx, dM = −g xᵀ, db = g (Cholesky), or
 *   - as the r-step CHEBYSHEV function itself: reverse mode through every
 *     iteration, including L = ‖M − λI‖_F + λ and μ = λ (their dependence on
 *     H and on λ's expression), or
 *   - IMPLICITLY at the Chebyshev x: g = CH_r(Mᵀ, dx), dM = −g xᵀ, db = g
 *     (λ's dependence flows through M, where λ is substituted).
 * The singular case (L + μ = 0, i.e. ‖H‖_F = 0 and λ = 0) is x = b: db = dx.
 *
 * Memory: states are checkpointed every ORC_GRAD_SEG tokens and recomputed
 * segment by segment in the reverse sweep (no T-sized state history).
 * It shares nothing with the emitter and never looks at a classification. */
#ifndef SSMC_ORC_GRAD_H
#define SSMC_ORC_GRAD_H
#include "orc_ref.h"
#include "spec.h"

#define ORC_GRAD_SEG 64

typedef struct {
  int iters;                    /* solver iterations; <= 0: the spec's */
  orc_solve how;                /* which solve function is differentiated */
  const double *dy;             /* (T, V) gradient of the output */
  const double *const *dstate;  /* per state: gradient of the final state, same layout as the
                                   state (transposed, (cols, rows) full), or NULL (zero) */
  double **din;                 /* out, per input: (T, D_i); NULL entries skipped */
  double **dstate0;             /* out, per state: gradient of the initial state; NULL entries skipped */
  int implicit;                 /* with how == ORC_SOLVE_CHEBYSHEV: differentiate the solve implicitly at the
                                   Chebyshev x instead: g = CH_r(M', dx) (same L, mu, r), db = g, dM = -g x'
                                   (the kernels' formula, evaluated in fp64) */
} orc_grad_io;

/* One sequence of one head. in[i] (T, D_i); state0[i] the initial states in
 * orc_interp's layout (not modified). Returns 0, or -1 if an exact solve met
 * a matrix that is not positive definite (its gradients are NaN then). */
int orc_grad(const layer_spec *s, int T, const double *const *in, const double *const *state0, orc_grad_io *g);

/* The scalar loss the gradients belong to: Σ dy·y + Σ dstate·S_T, with y from
 * the same solve function (for finite-difference tests). */
double orc_grad_loss(const layer_spec *s, int T, const double *const *in, const double *const *state0,
                     const orc_grad_io *g);

#endif
