/* tests: every built-in kernel against the fp64 oracle on the edge shapes
 * (T=1, a partial chunk, several sequences of different lengths with initial
 * states and grouped heads, T=4096); decode equals the chunkwise forward;
 * a split forward equals one forward; GKA's ||H||_F = 0 case. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "build.h"
#include "chk.h"
#include "gen.h"
#include "orc_ref.h"

typedef struct { gen_set g; build_kernel bk[2]; int nk; } fixture;

static void load(fixture *fx, const char *family) {
  char path[1024];
  snprintf(path, sizeof path, "%s/dsl/families/%s.yaml", SSMC_SOURCE_DIR, family);
  gen_init(&fx->g);
  diag d = {0};
  if (gen_add(&fx->g, path, &d)) { diag_print(&d, stderr); ck_abort_msg("cannot load %s", family); }
  fx->nk = fx->g.u[0]->nk;
  for (int i = 0; i < fx->nk; i++) {
    ck_assert_int_eq(build_get(&fx->g.u[0]->k[i], &fx->g.u[0]->fam, 0, NULL, &fx->bk[i], &d), 0);
    ck_assert_msg(fx->bk[i].builtin, "%s: the built-in kernel is stale (run ssmc gen)", family);
  }
}

static void unload(fixture *fx) {
  for (int i = 0; i < fx->nk; i++) build_release(&fx->bk[i]);
  gen_free(&fx->g);
}

static void against_oracle(const char *family) {
  fixture fx;
  load(&fx, family);
  chk_opts o = {7, 1, 2, 0, NULL, 1}; /* backward rows on every shape but T = 4096 (ssmc check has them) */
  for (int i = 0; i < fx.nk; i++) {
    chk_result r;
    FILE *sink = fopen("/dev/null", "w");
    int failed = chk_kernel(&fx.g.u[0]->fam, fx.bk[i].k, &o, sink, &r);
    fclose(sink);
    if (failed) chk_kernel(&fx.g.u[0]->fam, fx.bk[i].k, &o, stderr, &r);
    ck_assert_msg(failed == 0, "%s: %d comparisons failed", fx.bk[i].k->name, failed);
    ck_assert_int_ge(r.rows, 14); /* 4 forward + 3 decode shapes, output and each state */
  }
  unload(&fx);
}

START_TEST(oracle_mamba2) { against_oracle("mamba2"); }
END_TEST
START_TEST(oracle_gated_deltanet) { against_oracle("gated_deltanet"); }
END_TEST
START_TEST(oracle_gated_kalmanet) { against_oracle("gated_kalmanet"); }
END_TEST
START_TEST(oracle_deltanet) { against_oracle("deltanet"); }
END_TEST
START_TEST(oracle_gla) { against_oracle("gla"); }
END_TEST
START_TEST(oracle_kda) { against_oracle("kda"); }
END_TEST

static const char *const families[] = {"mamba2", "gated_deltanet", "gated_kalmanet", "deltanet", "gla", "kda"};

static double rel(const double *a, const double *b, int64_t n) { return orc_rel_l2(a, b, (size_t)n); }

/* Decode run token by token equals the chunkwise forward (f32 kernels). */
START_TEST(decode_equals_forward) {
  fixture fx;
  load(&fx, families[_i]);
  const ssmc_kernel *k = fx.bk[0].k;
  ck_assert_int_eq(k->dtype, SSMC_F32);
  chk_shape sh = {"varlen", 3, {150, 1, 64}, 1, 2, 1};
  chk_batch *b = chk_batch_new(&fx.g.u[0]->fam, k, &sh, 99);
  int64_t n, m;
  chk_run_fwd(b, k, 2, 0);
  const double *y0 = chk_batch_out(b, &n);
  double *y = malloc(sizeof(double) * (size_t)n);
  memcpy(y, y0, sizeof(double) * (size_t)n);
  const float *s0 = chk_batch_state(b, 0, &m);
  float *st = malloc(sizeof(float) * (size_t)m);
  memcpy(st, s0, sizeof(float) * (size_t)m);
  chk_run_decode(b, k, 2, 0);
  const double *y1 = chk_batch_out(b, &n);
  ck_assert_double_lt(rel(y1, y, n), 1e-4);
  const float *st2 = chk_batch_state(b, 0, &m);
  double num = 0, den = 0;
  for (int64_t j = 0; j < m; j++) { num += (st2[j] - st[j]) * (st2[j] - st[j]); den += st[j] * st[j]; }
  ck_assert_double_lt(sqrt(num / den), 1e-4);
  free(y);
  free(st);
  chk_batch_free(b);
  unload(&fx);
}
END_TEST

/* Forward on [0,T1) then [T1,T) passing the state equals forward on [0,T). */
START_TEST(split_equals_whole) {
  fixture fx;
  load(&fx, families[_i]);
  const ssmc_kernel *k = fx.bk[0].k;
  chk_shape sh = {"one", 1, {200}, 2, 2, 1};
  chk_batch *b = chk_batch_new(&fx.g.u[0]->fam, k, &sh, 5);
  int64_t n;
  chk_run_fwd(b, k, 2, 0);
  const double *y0 = chk_batch_out(b, &n);
  double *y = malloc(sizeof(double) * (size_t)n);
  memcpy(y, y0, sizeof(double) * (size_t)n);
  int64_t cuts[] = {1, 64, 77};
  for (int c = 0; c < 3; c++) {
    chk_run_fwd_split(b, k, cuts[c], 2, 0);
    const double *y1 = chk_batch_out(b, &n);
    ck_assert_msg(rel(y1, y, n) < 1e-4, "cut at %lld", (long long)cuts[c]);
  }
  free(y);
  chk_batch_free(b);
  unload(&fx);
}
END_TEST

/* GKA with beta = 0 everywhere and no initial state: ||H||_F = 0, lambda = 0,
 * x is defined as q, and y = 0 (nothing was written). */
START_TEST(gka_zero_norm) {
  fixture fx;
  load(&fx, "gated_kalmanet");
  const layer_spec *s = fx.g.u[0]->spec;
  const ssmc_kernel *k = fx.bk[0].k;
  int bi = -1, qi = -1;
  for (int i = 0; i < s->n_in; i++) {
    if (!strcmp(s->in[i].name, "beta")) bi = i;
    if (!strcmp(s->in[i].name, "q")) qi = i;
  }
  ck_assert(bi >= 0 && qi >= 0);
  chk_shape sh = {"zero", 1, {70}, 1, 1, 0};
  chk_batch *b = chk_batch_new(&fx.g.u[0]->fam, k, &sh, 3);
  memset(chk_batch_input(b, bi), 0, sizeof(double) * 70);
  chk_batch_sync_input(b, bi);
  for (int mode = 0; mode < 2; mode++) {
    if (mode == 0) chk_run_fwd(b, k, 1, 0);
    else chk_run_decode(b, k, 1, 0);
    int64_t n = 0;
    const double *y = chk_batch_out(b, &n);
    for (int64_t j = 0; j < n; j++) ck_assert_msg(y[j] == 0.0, "y[%lld] = %g", (long long)j, y[j]);
    const float *x = chk_batch_x(b);
    const double *q = chk_batch_input(b, qi);
    for (int64_t j = 0; j < 70 * k->K; j++) {
      ck_assert(isfinite(x[j]));
      ck_assert_double_eq_tol(x[j], q[j], 1e-6);
    }
  }
  chk_batch_free(b);
  unload(&fx);
}
END_TEST

Suite *kernels_suite(void) {
  Suite *s = suite_create("kernels");
  TCase *tc = tcase_create("oracle");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, oracle_mamba2);
  tcase_add_test(tc, oracle_gated_deltanet);
  tcase_add_test(tc, oracle_gated_kalmanet);
  tcase_add_test(tc, oracle_deltanet);
  tcase_add_test(tc, oracle_gla);
  tcase_add_test(tc, oracle_kda);
  suite_add_tcase(s, tc);
  TCase *eq = tcase_create("equivalences");
  tcase_set_timeout(eq, 300);
  tcase_add_loop_test(eq, decode_equals_forward, 0, 6);
  tcase_add_loop_test(eq, split_equals_whole, 0, 6);
  tcase_add_test(eq, gka_zero_norm);
  suite_add_tcase(s, eq);
  return s;
}
