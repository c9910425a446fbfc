/* oracle stage: hand-written fp64 reference recurrences (see orc_ref.h).
 * Literal, token by token, O(K·V) per token for the state updates; the GKA
 * solve is O(r·K²) (Chebyshev) or O(K³) (exact Cholesky) per token. */
#include "orc_ref.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- small utilities ---- */

static void *orc_xcalloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size);
  if (!p) {
    fprintf(stderr, "orc_ref: out of memory\n");
    abort();
  }
  return p;
}

/* e^{g_t}, or 1 when there is no decay input. */
static double decay_at(const double *g, int t) { return g ? exp(g[t]) : 1.0; }

/* β_t, or 1 when there is no beta input. */
static double beta_at(const double *beta, int t) { return beta ? beta[t] : 1.0; }

/* y = scale·S q with S stored as Z = Sᵀ (K,V): y_j = scale·Σ_i Z[i][j] q_i. */
static void readout(int K, int V, double scale, const double *Z, const double *q, double *y) {
  for (int j = 0; j < V; j++) {
    double acc = 0.0;
    for (int i = 0; i < K; i++) acc += Z[(size_t)i * V + j] * q[i];
    y[j] = scale * acc;
  }
}

/* Z ← c·Z for a (K,V) array. */
static void scale_state(int K, int V, double c, double *Z) {
  for (size_t i = 0; i < (size_t)K * V; i++) Z[i] *= c;
}

/* Z ← Z + c·k vᵀ (i.e. S ← S + c·v kᵀ in the transposed layout). */
static void add_outer(int K, int V, double c, const double *k, const double *v, double *Z) {
  for (int i = 0; i < K; i++)
    for (int j = 0; j < V; j++) Z[(size_t)i * V + j] += c * k[i] * v[j];
}

/* y = A x for an n×n row-major A. */
static void matvec(int n, const double *A, const double *x, double *y) {
  for (int i = 0; i < n; i++) {
    double acc = 0.0;
    for (int j = 0; j < n; j++) acc += A[(size_t)i * n + j] * x[j];
    y[i] = acc;
  }
}

/* ---- Mamba-2 / scalar decay ---- */

void orc_ref_scalar_decay(int T, int K, int V, double scale, const double *q, const double *k,
                          const double *v, const double *g, const double *beta, double *Z,
                          double *y) {
  for (int t = 0; t < T; t++) {
    const double *qt = q + (size_t)t * K, *kt = k + (size_t)t * K, *vt = v + (size_t)t * V;
    scale_state(K, V, decay_at(g, t), Z);             /* S ← e^{g_t} S        */
    add_outer(K, V, beta_at(beta, t), kt, vt, Z);     /* S ← S + β_t v_t k_tᵀ */
    readout(K, V, scale, Z, qt, y + (size_t)t * V);   /* y_t = scale·S_t q_t  */
  }
}

/* ---- Gated DeltaNet ---- */

void orc_ref_gdn(int T, int K, int V, double scale, const double *q, const double *k,
                 const double *v, const double *g, const double *beta, double *Z, double *y) {
  double *u = orc_xcalloc((size_t)V, sizeof *u);
  for (int t = 0; t < T; t++) {
    const double *qt = q + (size_t)t * K, *kt = k + (size_t)t * K, *vt = v + (size_t)t * V;
    double b = beta_at(beta, t);
    scale_state(K, V, decay_at(g, t), Z);             /* S ← e^{g_t} S */
    for (int j = 0; j < V; j++) {                     /* u = S k_t     */
      double acc = 0.0;
      for (int i = 0; i < K; i++) acc += Z[(size_t)i * V + j] * kt[i];
      u[j] = acc;
    }
    for (int i = 0; i < K; i++)                       /* S ← S − β u kᵀ + β v kᵀ */
      for (int j = 0; j < V; j++)
        Z[(size_t)i * V + j] += -b * u[j] * kt[i] + b * vt[j] * kt[i];
    readout(K, V, scale, Z, qt, y + (size_t)t * V);
  }
  free(u);
}

/* ---- dense helpers ---- */

double orc_frobenius(int n, const double *A) {
  double acc = 0.0;
  for (size_t i = 0; i < (size_t)n * n; i++) acc += A[i] * A[i];
  return sqrt(acc);
}

/* Lower-triangular Cholesky factor of A into Lc (n×n, upper part zero).
 * Returns -1 when a pivot is not positive (A not SPD). Reads A's lower part. */
static int cholesky_factor(int n, const double *A, double *Lc) {
  for (int j = 0; j < n; j++) {
    double d = A[(size_t)j * n + j];
    for (int p = 0; p < j; p++) d -= Lc[(size_t)j * n + p] * Lc[(size_t)j * n + p];
    if (!(d > 0.0)) return -1;
    double ljj = sqrt(d);
    Lc[(size_t)j * n + j] = ljj;
    for (int i = j + 1; i < n; i++) {
      double s = A[(size_t)i * n + j];
      for (int p = 0; p < j; p++) s -= Lc[(size_t)i * n + p] * Lc[(size_t)j * n + p];
      Lc[(size_t)i * n + j] = s / ljj;
    }
  }
  return 0;
}

int orc_cholesky_solve(int n, const double *A, const double *b, double *x) {
  double *Lc = orc_xcalloc((size_t)n * n, sizeof *Lc);
  double *z = orc_xcalloc((size_t)n, sizeof *z);
  int rc = cholesky_factor(n, A, Lc);
  if (rc == 0) {
    for (int i = 0; i < n; i++) {                     /* L z = b  */
      double s = b[i];
      for (int p = 0; p < i; p++) s -= Lc[(size_t)i * n + p] * z[p];
      z[i] = s / Lc[(size_t)i * n + i];
    }
    for (int i = n - 1; i >= 0; i--) {                /* Lᵀ x = z */
      double s = z[i];
      for (int p = i + 1; p < n; p++) s -= Lc[(size_t)p * n + i] * x[p];
      x[i] = s / Lc[(size_t)i * n + i];
    }
  }
  free(z);
  free(Lc);
  return rc;
}

void orc_chebyshev(int n, const double *A, const double *b, double L, double mu, int iters,
                   double *x) {
  if (!(L + mu > 0.0)) {
    memcpy(x, b, (size_t)n * sizeof *x);
    return;
  }
  double *prev = orc_xcalloc((size_t)n, sizeof *prev); /* ξ_{i−2}, starts as ξ_{−1} = 0 */
  double *cur = orc_xcalloc((size_t)n, sizeof *cur);   /* ξ_{i−1} */
  double *res = orc_xcalloc((size_t)n, sizeof *res);   /* A ξ_{i−1} − b */
  double step = 2.0 / (L + mu);
  double rho = (L - mu) / (L + mu);
  double omega = 2.0;                                  /* ω_0 = 2 (002 App. B.1, Lemma 3) */
  for (int j = 0; j < n; j++) cur[j] = step * b[j];    /* ξ_0 = 2b/(L+μ) */
  for (int i = 1; i <= iters; i++) {
    omega = 4.0 / (4.0 - rho * rho * omega);
    matvec(n, A, cur, res);
    for (int j = 0; j < n; j++) res[j] -= b[j];
    for (int j = 0; j < n; j++) {
      double next = cur[j] - step * omega * res[j] + (omega - 1.0) * (cur[j] - prev[j]);
      prev[j] = cur[j];
      cur[j] = next;
    }
  }
  memcpy(x, cur, (size_t)n * sizeof *x);
  free(res);
  free(cur);
  free(prev);
}

double orc_rel_l2(const double *got, const double *want, size_t n) {
  double num = 0.0, den = 0.0;
  for (size_t i = 0; i < n; i++) {
    double d = got[i] - want[i];
    num += d * d;
    den += want[i] * want[i];
  }
  return den == 0.0 ? sqrt(num) : sqrt(num) / sqrt(den);
}

double orc_max_abs(const double *got, const double *want, size_t n) {
  double m = 0.0;
  for (size_t i = 0; i < n; i++) {
    double d = fabs(got[i] - want[i]);
    if (isnan(d)) return NAN;
    if (d > m) m = d;
  }
  return m;
}

/* ---- Gated KalmaNet ---- */

void orc_gka_solve(int n, const double *H, double ridge_a, double ridge_b, int iters,
                   orc_solve how, const double *q, double *x) {
  double hn = orc_frobenius(n, H);
  double lambda = ridge_a * hn + ridge_b;
  if (hn == 0.0 && lambda == 0.0) {                   /* singular: x = q by definition */
    memcpy(x, q, (size_t)n * sizeof *x);
    return;
  }
  double *A = orc_xcalloc((size_t)n * n, sizeof *A);  /* A = H + λI */
  memcpy(A, H, (size_t)n * n * sizeof *A);
  for (int i = 0; i < n; i++) A[(size_t)i * n + i] += lambda;
  if (how == ORC_SOLVE_EXACT) {
    if (orc_cholesky_solve(n, A, q, x) != 0)
      for (int i = 0; i < n; i++) x[i] = NAN;
  } else {
    orc_chebyshev(n, A, q, hn + lambda, lambda, iters, x);
  }
  free(A);
}

void orc_ref_gka(int T, int K, int V, double scale, double ridge_a, double ridge_b, int iters,
                 orc_solve how, const double *q, const double *k, const double *v, const double *g,
                 const double *beta, const double *alpha, double *Hm, double *Z, double *x,
                 double *y) {
  double *xt = orc_xcalloc((size_t)K, sizeof *xt);
  double *qtil = orc_xcalloc((size_t)K, sizeof *qtil);
  for (int t = 0; t < T; t++) {
    const double *qt = q + (size_t)t * K, *kt = k + (size_t)t * K, *vt = v + (size_t)t * V;
    double gate = decay_at(g, t), b = beta_at(beta, t);
    for (int i = 0; i < K; i++)                       /* H ← e^g H + β k kᵀ */
      for (int j = 0; j < K; j++)
        Hm[(size_t)i * K + j] = gate * Hm[(size_t)i * K + j] + b * kt[i] * kt[j];
    scale_state(K, V, gate, Z);                       /* U ← e^g U + β v kᵀ */
    add_outer(K, V, b, kt, vt, Z);
    orc_gka_solve(K, Hm, ridge_a, ridge_b, iters, how, qt, xt);
    for (int i = 0; i < K; i++)                       /* q̃ = q + α (x − q), or x */
      qtil[i] = alpha ? qt[i] + alpha[t] * (xt[i] - qt[i]) : xt[i];
    if (x) memcpy(x + (size_t)t * K, xt, (size_t)K * sizeof *xt);
    readout(K, V, scale, Z, qtil, y + (size_t)t * V); /* y = scale·U q̃ */
  }
  free(qtil);
  free(xt);
}
