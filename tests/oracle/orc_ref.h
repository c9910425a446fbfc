/* oracle stage: hand-written fp64 reference recurrences for the three
 * families (DESIGN.md §3), the dense solvers they use, and error measures.
 * These cross-check the spec interpreter; they are literal on purpose.
 *
 * Conventions, per sequence and head:
 *   - state S is V×K but is STORED TRANSPOSED as Z = Sᵀ, a (K, V) row-major
 *     array (Z[i*V + j] = S[j][i]), like flash-linear-attention's [K, V];
 *   - inputs are token-major: q, k (T, K); v (T, V); g, beta, alpha (T);
 *     outputs y (T, V), x (T, K);
 *   - g is a natural-log decay (g ≤ 0 in practice); g == NULL means no decay
 *     (e^g = 1). beta == NULL means β = 1 everywhere. alpha == NULL (GKA)
 *     means q̃ = x.
 *   - states are in/out: pass the initial state, get the final state back.
 *
 * Mamba-2 / scalar decay:  S_t = e^{g_t} S_{t−1} + β_t v_t k_tᵀ,
 *                          y_t = scale·S_t q_t.
 * Gated DeltaNet:          S_t = e^{g_t} S_{t−1}(I − β_t k_t k_tᵀ) + β_t v_t k_tᵀ,
 *                          y_t = scale·S_t q_t.
 * Gated KalmaNet:          H_t = e^{g_t} H_{t−1} + β_t k_t k_tᵀ   (K×K, full storage)
 *                          U_t = e^{g_t} U_{t−1} + β_t v_t k_tᵀ   (stored (K,V) as Uᵀ)
 *                          λ_t = a‖H_t‖_F + b
 *                          x_t solves (H_t + λ_t I) x = q_t, exactly (Cholesky)
 *                              or by r Chebyshev iterations with
 *                              L = ‖H_t‖_F + λ_t, μ = λ_t, ω_0 = 2
 *                          q̃_t = q_t + α_t (x_t − q_t),  y_t = scale·U_t q̃_t.
 *
 * GKA edge cases (defined here, tested in t_oracle_ref.c):
 *   - ‖H_t‖_F = 0 and b = 0: the system is singular (0·x = q); we DEFINE
 *     x_t = q_t (so q̃_t = q_t whatever α is). With ‖H_t‖_F = 0 and b > 0 the
 *     system is b·x = q and both solvers give x = q/b.
 *   - ‖H_t‖_F > 0 and λ_t = 0 (a = b = 0): ORC_SOLVE_EXACT gives x = NaN
 *     wherever H_t is not positive definite (Cholesky fails), so any
 *     comparison against it fails loudly; Chebyshev runs with μ = 0.
 */
#ifndef SSMC_ORC_REF_H
#define SSMC_ORC_REF_H

#include <stddef.h>

/* Mamba-2 / scalar decay. g (T) or NULL: no decay; beta (T) or NULL: 1. */
void orc_ref_scalar_decay(int T, int K, int V, double scale, const double *q, const double *k,
                          const double *v, const double *g, const double *beta,
                          double *Z /* (K,V) in/out */, double *y /* (T,V) */);

/* Gated DeltaNet. g (T) or NULL: no decay; beta (T) or NULL: 1. */
void orc_ref_gdn(int T, int K, int V, double scale, const double *q, const double *k,
                 const double *v, const double *g, const double *beta,
                 double *Z /* (K,V) in/out */, double *y /* (T,V) */);

typedef enum { ORC_SOLVE_EXACT, ORC_SOLVE_CHEBYSHEV } orc_solve;

/* Gated KalmaNet. iters = r (used by ORC_SOLVE_CHEBYSHEV only).
 * g or NULL: no decay; beta or NULL: 1; alpha or NULL: q̃ = x.
 * Hm (K,K) symmetric, full storage, in/out; Z = Uᵀ (K,V) in/out;
 * x (T,K) out, may be NULL; y (T,V) out. */
void orc_ref_gka(int T, int K, int V, double scale, double ridge_a, double ridge_b, int iters,
                 orc_solve how, const double *q, const double *k, const double *v, const double *g,
                 const double *beta, const double *alpha, double *Hm, double *Z, double *x,
                 double *y);

/* One GKA solve for one token: x for (H + λI) x = q with λ = a‖H‖_F + b,
 * including the singular convention above. H (n,n) full storage. */
void orc_gka_solve(int n, const double *H, double ridge_a, double ridge_b, int iters,
                   orc_solve how, const double *q, double *x);

/* ---- dense helpers (row-major n×n) ---- */

/* Solves A x = b for symmetric positive definite A by Cholesky A = L Lᵀ.
 * Returns 0 on success, -1 if A is not (numerically) SPD; x untouched then. */
int orc_cholesky_solve(int n, const double *A, const double *b, double *x);

/* r = iters Chebyshev iterations (002 Algorithm 1 with ω_0 = 2) for A x = b,
 * eigenvalues of A assumed in [mu, L], L ≥ mu ≥ 0, L > 0. A includes λI.
 * iters = 0 returns ξ_0 = 2b/(L+mu). If L + mu ≤ 0 (no usable bounds) x = b. */
void orc_chebyshev(int n, const double *A, const double *b, double L, double mu, int iters,
                   double *x);

/* ‖A‖_F of an n×n matrix. */
double orc_frobenius(int n, const double *A);

/* ||got − want||_2 / ||want||_2; if ||want|| == 0 returns ||got − want||_2.
 * NaN anywhere gives NaN (so `err <= tol` is false). */
double orc_rel_l2(const double *got, const double *want, size_t n);

/* max_i |got_i − want_i| (NaN if any difference is NaN). */
double orc_max_abs(const double *got, const double *want, size_t n);

#endif
