/* oracle stage: the literal fp64 interpreter of a spec's equations.
 * It evaluates every update and readout expression as written, token by
 * token, with dense fp64 matrices (S * (I - b k k') really forms the K x K
 * matrix). It covers any spec the language accepts, and shares no code with
 * the emitter: it reads the parsed expressions, never the classification. */
#ifndef SSMC_ORC_INTERP_H
#define SSMC_ORC_INTERP_H
#include "spec.h"

typedef struct {
  int iters;          /* solver iterations; <= 0: the spec's */
  double *y;          /* (T, V) the output, solve by fp64 Chebyshev with r iterations */
  double *y_exact;    /* (T, V) or NULL: the output with the exact solve */
  double *x;          /* (T, n) or NULL: the solve's Chebyshev result */
  double *x_exact;    /* (T, n) or NULL: the exact solve */
} orc_out;

/* One sequence of one head. in[i]: (T, D_i) token-major. state[i]: in/out,
 * stored as the transpose of the state's matrix, (cols, rows) row-major:
 * a [V,K] state as (K, V) like the kernels, a [K,K] state as (K, K) full.
 * Returns 0, or -1 if a solve met a matrix that is not positive definite. */
int orc_interp(const layer_spec *s, int T, const double *const *in, double *const *state, orc_out *o);

#endif
