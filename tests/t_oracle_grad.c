/* tests: the gradient oracle (orc_grad) agrees with central finite
 * differences in fp64 of the literal interpreter's loss Σ dy·y + Σ dS·S_T, for
 * every built-in family and the example spec (one random direction per input
 * and per initial state, and single coordinates of the scalar gates); GKA for
 * both the exact solve and the r-step Chebyshev function. Edge inputs
 * (log-decay 0 and −20, β = 1 with repeated keys, ‖H‖_F = 0) give finite
 * gradients. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "orc_grad.h"
#include "orc_interp.h"
#include "orc_rand.h"
#include "sbx.h"

typedef struct { srcfile *f; arena a; sbx *lua; layer_spec *s; } loaded;

static void load(loaded *L, const char *rel) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", SSMC_SOURCE_DIR, rel);
  diag d = {0};
  memset(L, 0, sizeof *L);
  L->f = src_read(path, &d);
  ck_assert_ptr_nonnull(L->f);
  L->lua = sbx_new(64u << 20, 50000000L);
  L->s = spec_load(L->f, &L->a, L->lua, &d);
  ck_assert_msg(L->s != NULL, "%s", d.msg);
}

static void unload(loaded *L) { sbx_free(L->lua); arena_free(&L->a); src_free(L->f); }

static int dl(const layer_spec *s, ex_dim d) { return d == DIM_K ? s->K : d == DIM_V ? s->V : 1; }

typedef struct {
  const layer_spec *s;
  int T, iters;
  double *in[SPEC_MAX_IO], *st[SPEC_MAX_IO], *dy, *dst[SPEC_MAX_IO];
  double *din[SPEC_MAX_IO], *dst0[SPEC_MAX_IO];
  size_t nin[SPEC_MAX_IO], nst[SPEC_MAX_IO];
} prob;

/* Random inputs, initial states (a symmetric one positive semidefinite), dy and dS_T. */
static void prob_new(prob *P, const layer_spec *s, int T, uint64_t seed) {
  memset(P, 0, sizeof *P);
  P->s = s;
  P->T = T;
  orc_rng r;
  orc_rng_seed(&r, seed);
  for (int i = 0; i < s->n_in; i++) {
    int D = dl(s, s->in[i].dim);
    P->nin[i] = (size_t)T * D;
    P->in[i] = malloc(sizeof(double) * P->nin[i]);
    P->din[i] = malloc(sizeof(double) * P->nin[i]);
    orc_sample_tokens(&r, (int)s->in[i].domain, T, D, P->in[i]);
  }
  for (int i = 0; i < s->n_st; i++) {
    int R = dl(s, s->st[i].rows), C = dl(s, s->st[i].cols);
    P->nst[i] = (size_t)R * C;
    P->st[i] = calloc(P->nst[i], sizeof(double));
    P->dst[i] = calloc(P->nst[i], sizeof(double));
    P->dst0[i] = calloc(P->nst[i], sizeof(double));
    if (s->st[i].symmetric) {
      double *u = malloc(sizeof(double) * (size_t)R);
      for (int j = 0; j < 4; j++) {
        orc_sample(&r, DOM_UNIT_SPHERE, R, u);
        for (int a = 0; a < R; a++)
          for (int b = 0; b < R; b++) P->st[i][a * R + b] += 0.5 * u[a] * u[b];
      }
      for (int a = 0; a < R; a++)
        for (int b = 0; b <= a; b++) P->dst[i][a * R + b] = P->dst[i][b * R + a] = 0.1 * orc_normal(&r);
      free(u);
    } else {
      for (size_t j = 0; j < P->nst[i]; j++) { P->st[i][j] = 0.1 * orc_normal(&r); P->dst[i][j] = 0.1 * orc_normal(&r); }
    }
  }
  P->dy = malloc(sizeof(double) * (size_t)T * s->V);
  for (int j = 0; j < T * s->V; j++) P->dy[j] = orc_normal(&r);
}

static void prob_free(prob *P) {
  for (int i = 0; i < P->s->n_in; i++) { free(P->in[i]); free(P->din[i]); }
  for (int i = 0; i < P->s->n_st; i++) { free(P->st[i]); free(P->dst[i]); free(P->dst0[i]); }
  free(P->dy);
}

static orc_grad_io io_of(prob *P, orc_solve how) {
  orc_grad_io g = {P->iters, how, P->dy, (const double *const *)P->dst, P->din, P->dst0, 0};
  return g;
}

static double loss(prob *P, orc_solve how) {
  orc_grad_io g = io_of(P, how);
  return orc_grad_loss(P->s, P->T, (const double *const *)P->in, (const double *const *)P->st, &g);
}

/* Central difference along dir of the buffer x (n values) vs <grad, dir>. */
static void fd_check(prob *P, orc_solve how, double *x, const double *grad, size_t n, const double *dir,
                     const char *what) {
  double eps = 1e-4, ad = 0, dn = 0;
  double *x0 = malloc(sizeof(double) * n);
  memcpy(x0, x, sizeof(double) * n);
  for (size_t j = 0; j < n; j++) dn += dir[j] * dir[j];
  dn = sqrt(dn); /* a unit direction: the step is eps whatever n is */
  for (size_t j = 0; j < n; j++) ad += grad[j] * dir[j] / dn;
  for (size_t j = 0; j < n; j++) x[j] = x0[j] + eps * dir[j] / dn;
  double lp = loss(P, how);
  for (size_t j = 0; j < n; j++) x[j] = x0[j] - eps * dir[j] / dn;
  double lm = loss(P, how);
  memcpy(x, x0, sizeof(double) * n);
  free(x0);
  double fd = (lp - lm) / (2 * eps);
  double err = fabs(fd - ad), ref = fabs(ad) + fabs(fd) + 1e-2;
  ck_assert_msg(isfinite(ad) && err <= 1e-5 * ref, "%s: %s ad %.12g fd %.12g (how %d)", P->s->family, what, ad, fd,
                (int)how);
}

static void check_spec(const char *rel, int T, uint64_t seed) {
  loaded L;
  load(&L, rel);
  const layer_spec *s = L.s;
  int has_solve = 0;
  for (int i = 0; i < s->n_rd; i++) has_solve |= s->rd[i].kind == RD_SOLVE;
  /* the solve: exact, Chebyshev with the spec's r, and with r = 3 (far from
   * converged, so the dependence on L, mu and the iterates really shows) */
  for (int how = 0; how < (has_solve ? 3 : 1); how++) {
    orc_solve hw = how == 1 ? ORC_SOLVE_EXACT : ORC_SOLVE_CHEBYSHEV;
    prob P;
    prob_new(&P, s, T, seed + (uint64_t)how);
    P.iters = how == 2 ? 3 : 0;
    orc_grad_io g = io_of(&P, hw);
    ck_assert_int_eq(orc_grad(s, T, (const double *const *)P.in, (const double *const *)P.st, &g), 0);
    orc_rng r;
    orc_rng_seed(&r, seed * 31 + 7);
    for (int i = 0; i < s->n_in; i++) {
      double *dir = malloc(sizeof(double) * P.nin[i]);
      for (size_t j = 0; j < P.nin[i]; j++) dir[j] = orc_normal(&r);
      fd_check(&P, hw, P.in[i], P.din[i], P.nin[i], dir, s->in[i].name);
      if (s->in[i].dim == DIM_1) /* every token of a scalar gate alone */
        for (int t = 0; t < T; t++) {
          if (t >= 8 && t != T - 1) continue;
          memset(dir, 0, sizeof(double) * P.nin[i]);
          dir[t] = 1;
          fd_check(&P, hw, P.in[i], P.din[i], P.nin[i], dir, s->in[i].name);
        }
      free(dir);
    }
    for (int i = 0; i < s->n_st; i++) {
      int R = dl(s, s->st[i].rows);
      double *dir = malloc(sizeof(double) * P.nst[i]);
      for (size_t j = 0; j < P.nst[i]; j++) dir[j] = orc_normal(&r);
      if (s->st[i].symmetric) /* only symmetric perturbations keep H symmetric */
        for (int a = 0; a < R; a++)
          for (int b = 0; b < a; b++) dir[b * R + a] = dir[a * R + b];
      fd_check(&P, hw, P.st[i], P.dst0[i], P.nst[i], dir, s->st[i].name);
      free(dir);
    }
    prob_free(&P);
  }
  unload(&L);
}

START_TEST(fd_mamba2) { check_spec("dsl/families/mamba2.yaml", 7, 101); }
END_TEST
START_TEST(fd_gated_deltanet) { check_spec("dsl/families/gated_deltanet.yaml", 7, 102); }
END_TEST
START_TEST(fd_deltanet) { check_spec("dsl/families/deltanet.yaml", 6, 103); }
END_TEST
START_TEST(fd_gla) { check_spec("dsl/families/gla.yaml", 6, 104); }
END_TEST
START_TEST(fd_kda) { check_spec("dsl/families/kda.yaml", 6, 105); }
END_TEST
START_TEST(fd_gated_kalmanet) { check_spec("dsl/families/gated_kalmanet.yaml", 6, 106); }
END_TEST
START_TEST(fd_my_ssm) { check_spec("examples/my_ssm.yaml", 7, 107); }
END_TEST
START_TEST(fd_bwd_exotic) { check_spec("tests/fixtures/specs/bwd_exotic.yaml", 9, 109); }
END_TEST

/* Segment boundaries of the checkpointed reverse sweep: T > ORC_GRAD_SEG gives
 * the same gradients as the FD on a short problem would; here: the gradient of
 * the first token's input through 70 tokens. */
START_TEST(fd_long_mamba2) { check_spec("dsl/families/mamba2.yaml", ORC_GRAD_SEG + 6, 108); }
END_TEST

/* The implicit gradient at the Chebyshev x tends to the exact solve's gradient
 * as r grows (and is a different function from the r-step Chebyshev's at small r). */
START_TEST(implicit_tends_to_exact) {
  loaded L;
  load(&L, "dsl/families/gated_kalmanet.yaml");
  const layer_spec *s = L.s;
  prob P, Q, R3;
  prob_new(&P, s, 5, 300);
  prob_new(&Q, s, 5, 300);
  prob_new(&R3, s, 5, 300);
  P.iters = 120;
  orc_grad_io gi = io_of(&P, ORC_SOLVE_CHEBYSHEV), ge = io_of(&Q, ORC_SOLVE_EXACT);
  gi.implicit = 1;
  ck_assert_int_eq(orc_grad(s, 5, (const double *const *)P.in, (const double *const *)P.st, &gi), 0);
  ck_assert_int_eq(orc_grad(s, 5, (const double *const *)Q.in, (const double *const *)Q.st, &ge), 0);
  for (int i = 0; i < s->n_in; i++)
    ck_assert_msg(orc_rel_l2(P.din[i], Q.din[i], P.nin[i]) < 1e-8, "d%s", s->in[i].name);
  for (int i = 0; i < s->n_st; i++) ck_assert(orc_rel_l2(P.dst0[i], Q.dst0[i], P.nst[i]) < 1e-8);
  R3.iters = 3; /* r = 3: implicit and the Chebyshev function's own gradient differ */
  orc_grad_io g3 = io_of(&R3, ORC_SOLVE_CHEBYSHEV);
  ck_assert_int_eq(orc_grad(s, 5, (const double *const *)R3.in, (const double *const *)R3.st, &g3), 0);
  P.iters = 3;
  gi = io_of(&P, ORC_SOLVE_CHEBYSHEV);
  gi.implicit = 1;
  ck_assert_int_eq(orc_grad(s, 5, (const double *const *)P.in, (const double *const *)P.st, &gi), 0);
  int k = -1;
  for (int i = 0; i < s->n_in; i++)
    if (!strcmp(s->in[i].name, "k")) k = i;
  ck_assert_double_gt(orc_rel_l2(P.din[k], R3.din[k], P.nin[k]), 1e-3);
  prob_free(&P);
  prob_free(&Q);
  prob_free(&R3);
  unload(&L);
}
END_TEST

/* Edge inputs: finite gradients everywhere. */
START_TEST(edges_finite) {
  const char *fams[] = {"dsl/families/gated_deltanet.yaml", "dsl/families/kda.yaml",
                        "dsl/families/gated_kalmanet.yaml"};
  for (int fi = 0; fi < 3; fi++) {
    loaded L;
    load(&L, fams[fi]);
    const layer_spec *s = L.s;
    int T = 6;
    prob P;
    prob_new(&P, s, T, 200 + fi);
    for (int i = 0; i < s->n_in; i++) {
      int D = dl(s, s->in[i].dim);
      for (int t = 0; t < T; t++)
        for (int d = 0; d < D; d++) {
          double *x = &P.in[i][t * D + d];
          if (s->in[i].domain == DOM_LOG_DECAY) *x = t < 3 ? 0.0 : -20.0;  /* log-decay exactly 0, near -20 */
          else if (s->in[i].domain == DOM_UNIT) *x = t < 2 && fi == 2 ? 0.0 : 1.0; /* beta = 1 (GKA: 0 first) */
        }
      if (!strcmp(s->in[i].name, "k"))
        for (int t = 1; t < T; t++) memcpy(&P.in[i][t * D], &P.in[i][0], sizeof(double) * (size_t)D); /* repeated keys */
    }
    for (int i = 0; i < s->n_st; i++) memset(P.st[i], 0, sizeof(double) * P.nst[i]); /* ||H||_F = 0 at t = 0, 1 */
    for (int how = 0; how < 2; how++) {
      orc_grad_io g = io_of(&P, how ? ORC_SOLVE_EXACT : ORC_SOLVE_CHEBYSHEV);
      ck_assert_int_eq(orc_grad(s, T, (const double *const *)P.in, (const double *const *)P.st, &g), 0);
      for (int i = 0; i < s->n_in; i++)
        for (size_t j = 0; j < P.nin[i]; j++) ck_assert_msg(isfinite(P.din[i][j]), "%s d%s", s->family, s->in[i].name);
      for (int i = 0; i < s->n_st; i++)
        for (size_t j = 0; j < P.nst[i]; j++) ck_assert(isfinite(P.dst0[i][j]));
    }
    prob_free(&P);
    unload(&L);
  }
}
END_TEST

Suite *oracle_grad_suite(void) {
  Suite *s = suite_create("oracle_grad");
  TCase *tc = tcase_create("finite_differences");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, fd_mamba2);
  tcase_add_test(tc, fd_gated_deltanet);
  tcase_add_test(tc, fd_deltanet);
  tcase_add_test(tc, fd_gla);
  tcase_add_test(tc, fd_kda);
  tcase_add_test(tc, fd_gated_kalmanet);
  tcase_add_test(tc, fd_my_ssm);
  tcase_add_test(tc, fd_bwd_exotic);
  tcase_add_test(tc, fd_long_mamba2);
  tcase_add_test(tc, implicit_tends_to_exact);
  tcase_add_test(tc, edges_finite);
  suite_add_tcase(s, tc);
  return s;
}
