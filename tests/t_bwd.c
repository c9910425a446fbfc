/* tests: the CPU backward kernels beyond the oracle rows of t_kernels.c —
 * the backward reads the forward's saved x or recomputes it (same result),
 * it does not depend on the thread count, it writes every gradient element,
 * and user specs compiled in-process (examples/my_ssm.yaml and tests/fixtures/specs/bwd_*.yaml:
 * structures the built-ins do not have) have one too, equal to the oracle's gradients. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "build.h"
#include "chk.h"
#include "chk_bwd.h"
#include "gen.h"
#include "orc_ref.h"

typedef struct { gen_set g; build_kernel bk[2]; int nk; } fixture;

static void load(fixture *fx, const char *rel, int jit) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", SSMC_SOURCE_DIR, rel);
  gen_init(&fx->g);
  diag d = {0};
  if (gen_add(&fx->g, path, &d)) { diag_print(&d, stderr); ck_abort_msg("cannot load %s", rel); }
  fx->nk = fx->g.u[0]->nk;
  for (int i = 0; i < fx->nk; i++) ck_assert_int_eq(build_get(&fx->g.u[0]->k[i], &fx->g.u[0]->fam, jit, NULL, &fx->bk[i], &d), 0);
}

static void unload(fixture *fx) {
  for (int i = 0; i < fx->nk; i++) build_release(&fx->bk[i]);
  gen_free(&fx->g);
}

typedef struct { float *din[SPEC_MAX_IO], *ds0[SPEC_MAX_IO]; int64_t nin[SPEC_MAX_IO], nst[SPEC_MAX_IO]; } grads;

static void grads_new(grads *G, chk_batch *b, const ssmc_kernel *k) {
  const chk_shape *sh = chk_batch_shape(b);
  memset(G, 0, sizeof *G);
  for (int i = 0; i < k->n_inputs; i++) {
    G->nin[i] = chk_batch_tokens(b) * (ssmc_input_qk_heads(k, i) ? sh->h_qk : sh->h_v) * ssmc_input_len(k, i);
    G->din[i] = malloc(sizeof(float) * (size_t)G->nin[i]);
    for (int64_t j = 0; j < G->nin[i]; j++) G->din[i][j] = NAN;
  }
  for (int i = 0; i < k->n_states; i++) {
    G->nst[i] = (int64_t)sh->n * sh->h_v * k->state_size[i];
    G->ds0[i] = malloc(sizeof(float) * (size_t)G->nst[i]);
    for (int64_t j = 0; j < G->nst[i]; j++) G->ds0[i][j] = NAN;
  }
}

static void grads_free(grads *G) {
  for (int i = 0; i < SPEC_MAX_IO; i++) { free(G->din[i]); free(G->ds0[i]); }
}

static double grads_diff(const grads *A, const grads *B, const ssmc_kernel *k) {
  double worst = 0;
  for (int i = 0; i < k->n_inputs; i++) {
    double num = 0, den = 0;
    for (int64_t j = 0; j < A->nin[i]; j++) {
      ck_assert_msg(isfinite(A->din[i][j]) && isfinite(B->din[i][j]), "d%s[%ld] not written", k->input_names[i], (long)j);
      num += (A->din[i][j] - B->din[i][j]) * (double)(A->din[i][j] - B->din[i][j]);
      den += (double)B->din[i][j] * B->din[i][j];
    }
    if (sqrt(num / (den + 1e-30)) > worst) worst = sqrt(num / (den + 1e-30));
  }
  for (int i = 0; i < k->n_states; i++)
    for (int64_t j = 0; j < A->nst[i]; j++) ck_assert(isfinite(A->ds0[i][j]) && isfinite(B->ds0[i][j]));
  return worst;
}

static void run(chk_batch *b, const ssmc_kernel *k, int threads, const float *aux, grads *G, uint64_t seed) {
  const chk_shape *sh = chk_batch_shape(b);
  int64_t ny = chk_batch_tokens(b) * sh->h_v * k->V;
  float *dy = malloc(sizeof(float) * (size_t)ny), *dso[SPEC_MAX_IO] = {0};
  uint64_t s = seed;
  for (int64_t j = 0; j < ny; j++) { s = s * 6364136223846793005ULL + 1442695040888963407ULL; dy[j] = (float)((s >> 40) & 0xffff) / 65536.0f - 0.5f; }
  for (int i = 0; i < k->n_states; i++) dso[i] = NULL; /* zero gradient of the final states */
  char err[256];
  ck_assert_int_eq(chkb_run(b, k, threads, 0, dy, dso, aux, G->din, G->ds0, NULL, err, sizeof err), 0);
  free(dy);
}

START_TEST(gka_saved_x_or_recomputed) {
  fixture fx;
  load(&fx, "dsl/families/gated_kalmanet.yaml", 0);
  const ssmc_kernel *k = fx.bk[0].k;
  chk_shape sh = {"varlen", 3, {70, 1, 130}, 1, 2, 1};
  chk_batch *b = chk_batch_new(&fx.g.u[0]->fam, k, &sh, 5);
  chk_run_fwd(b, k, 2, 0);
  grads A, B;
  grads_new(&A, b, k);
  grads_new(&B, b, k);
  run(b, k, 2, chk_batch_x(b), &A, 1);
  run(b, k, 2, NULL, &B, 1);
  ck_assert_double_lt(grads_diff(&A, &B, k), 1e-4);
  grads_free(&A);
  grads_free(&B);
  chk_batch_free(b);
  unload(&fx);
}
END_TEST

START_TEST(threads_do_not_matter) {
  const char *fams[] = {"dsl/families/kda.yaml", "dsl/families/gated_deltanet.yaml"};
  for (int fi = 0; fi < 2; fi++) {
    fixture fx;
    load(&fx, fams[fi], 0);
    const ssmc_kernel *k = fx.bk[1].k; /* bf16 */
    chk_shape sh = {"varlen", 3, {37, 133, 1}, 2, 4, 1};
    chk_batch *b = chk_batch_new(&fx.g.u[0]->fam, k, &sh, 8);
    grads A, B;
    grads_new(&A, b, k);
    grads_new(&B, b, k);
    run(b, k, 1, NULL, &A, 3);
    run(b, k, 2, NULL, &B, 3);
    ck_assert_double_eq(grads_diff(&A, &B, k), 0.0); /* items are independent: bit-identical */
    grads_free(&A);
    grads_free(&B);
    chk_batch_free(b);
    unload(&fx);
  }
}
END_TEST

/* Gradient rows are streamed past the caches when the arrays are 64-byte aligned, stored plainly otherwise:
 * the same values either way (G[0] aligned, G[1] one float off). */
START_TEST(aligned_or_not) {
  fixture fx;
  load(&fx, "dsl/families/gated_deltanet.yaml", 0);
  const ssmc_kernel *k = fx.bk[0].k; /* f32 */
  chk_shape sh = {"varlen", 3, {37, 133, 1}, 2, 4, 1};
  chk_batch *b = chk_batch_new(&fx.g.u[0]->fam, k, &sh, 8);
  grads G[2];
  float *keep[2][SPEC_MAX_IO];
  for (int g = 0; g < 2; g++) {
    grads_new(&G[g], b, k);
    for (int i = 0; i < k->n_inputs; i++) {
      keep[g][i] = G[g].din[i];
      float *p = aligned_alloc(64, ((size_t)(G[g].nin[i] + 16) * sizeof(float) + 63) & ~(size_t)63);
      G[g].din[i] = p + g;
      memcpy(G[g].din[i], keep[g][i], sizeof(float) * (size_t)G[g].nin[i]);
    }
    run(b, k, 2, NULL, &G[g], 5);
  }
  ck_assert_double_eq(grads_diff(&G[0], &G[1], k), 0.0);
  for (int g = 0; g < 2; g++) {
    for (int i = 0; i < k->n_inputs; i++) {
      free(G[g].din[i] - g);
      G[g].din[i] = keep[g][i];
    }
    grads_free(&G[g]);
  }
  chk_batch_free(b);
  unload(&fx);
}
END_TEST

static const char *const user_specs[] = {"examples/my_ssm.yaml", "tests/fixtures/specs/bwd_exotic.yaml",
                                         "tests/fixtures/specs/bwd_kv_query.yaml",
                                         "tests/fixtures/specs/bwd_diag_delta.yaml",
                                         "tests/fixtures/specs/bwd_solve_key.yaml",
                                         "tests/fixtures/specs/bwd_sum_coef.yaml",
                                         "tests/fixtures/specs/bwd_solve_short.yaml",
                                         "tests/fixtures/specs/bwd_sqrt_write.yaml",
                                         "tests/fixtures/specs/bwd_delta_unscaled.yaml"};

/* Compiled in-process; bwd_exotic's coefficients use exp, log, sqrt, quotients and two scalar inputs;
 * bwd_kv_query: K != V, a two-term query; bwd_diag_delta: per-key decays with an erase at small dims;
 * bwd_solve_key: a solve state with its own key and gate, lambda with a constant part;
 * bwd_sum_coef: erase, write and query coefficients that are sums ((1 - a) k k');
 * bwd_solve_short: r = 10, where the gradients vs the exact solve are reported, not judged;
 * bwd_sqrt_write: a gradient that is infinite at the edges batch's beta = 0 (compared elsewhere);
 * bwd_delta_unscaled: an erase read without 1/sqrt(K), whose edges dg is judged on its terms' scale. */
START_TEST(jit_user_spec_backward) {
  fixture fx;
  load(&fx, user_specs[_i], 1);
  chk_opts o = {11, 0, 2, 0, NULL, 0};
  for (int i = 0; i < fx.nk; i++) {
    ck_assert_ptr_nonnull(fx.bk[i].k->bwd);
    chk_result r;
    FILE *sink = fopen("/dev/null", "w");
    int failed = chk_kernel(&fx.g.u[0]->fam, fx.bk[i].k, &o, sink, &r);
    fclose(sink);
    if (failed) chk_kernel(&fx.g.u[0]->fam, fx.bk[i].k, &o, stderr, &r);
    ck_assert_int_eq(failed, 0);
    /* 3 shapes x (fwd, decode) x (y, S) + edges finite + 4 shapes x (inputs + 1 state) backward rows */
    ck_assert_int_ge(r.rows, 12 + 1 + 4 * (fx.g.u[0]->spec->n_in + 1));
  }
  unload(&fx);
}
END_TEST

/* A backend whose every run fails (a module that cannot be loaded: a stage over the device's shared memory)
 * gives error rows that say why, and no comparison rows of numbers it never wrote. */
static int fail_fwd(void *ctx, const ssmc_kernel *k, const ssmc_fwd_args *a, int64_t t, char *err, size_t n) {
  (void)ctx; (void)k; (void)a; (void)t;
  snprintf(err, n, "stage X needs 370944 bytes of shared memory");
  return -1;
}
static int fail_decode(void *ctx, const ssmc_kernel *k, const ssmc_decode_args *a, int slots, char *err, size_t n) {
  (void)a; (void)slots;
  return fail_fwd(ctx, k, NULL, 0, err, n);
}
static int fail_bwd(void *ctx, const ssmc_kernel *k, const ssmc_bwd_args *a, int64_t t, void *y, char *err, size_t n) {
  (void)a; (void)y;
  return fail_fwd(ctx, k, NULL, t, err, n);
}
START_TEST(failing_backend_rows_are_errors) {
  fixture fx;
  load(&fx, "tests/fixtures/specs/bwd_kv_query.yaml", 1);
  const chk_backend be = {.name = "failing", .fwd = fail_fwd, .decode = fail_decode, .bwd = fail_bwd};
  chk_opts o = {11, 0, 1, 0, &be, 0};
  char *buf = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&buf, &len);
  chk_result r;
  const int failed = chk_kernel(&fx.g.u[0]->fam, fx.bk[0].k, &o, out, &r);
  fclose(out);
  /* each of the 4 shapes (3 + edges): the forward's error row and the backward's */
  ck_assert_int_ge(failed, 8);
  ck_assert_int_eq(failed, r.rows);
  ck_assert_msg(strstr(buf, "error: stage X needs 370944 bytes of shared memory") != NULL, "%s", buf);
  ck_assert_msg(strstr(buf, "error: the bwd could not run: stage X needs 370944 bytes") != NULL, "%s", buf);
  ck_assert_msg(strstr(buf, "FAIL") == NULL && strstr(buf, "PASS") == NULL, "%s", buf);
  free(buf);
  unload(&fx);
}
END_TEST

Suite *bwd_suite(void) {
  Suite *s = suite_create("bwd");
  TCase *tc = tcase_create("cpu_backward");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, gka_saved_x_or_recomputed);
  tcase_add_test(tc, threads_do_not_matter);
  tcase_add_test(tc, aligned_or_not);
  tcase_add_loop_test(tc, jit_user_spec_backward, 0, (int)(sizeof user_specs / sizeof user_specs[0]));
  tcase_add_test(tc, failing_backend_rows_are_errors);
  suite_add_tcase(s, tc);
  return s;
}
