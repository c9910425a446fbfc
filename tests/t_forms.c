/* tests: the two forms of the CPU forward. A sequence runs token by token
 * (the recurrent form) or chunkwise, as the cost model (compiler/cost.c)
 * says; forced each way (SSMC_REC_BELOW, read by rt_run_fwd), every family's
 * kernels give the same outputs and final states, on a batch with a partial
 * chunk, a single token and initial states. The default form is checked
 * against the oracle by the kernels suite, so both are. The cost model's
 * crossings are the ones the manifest records. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "build.h"
#include "chk.h"
#include "cost.h"
#include "gen.h"
#include "orc_ref.h"
#include "orc_tol.h"

static const char *const families[] = {"mamba2", "gated_deltanet", "deltanet", "gla", "kda"};

static void run_form(chk_batch *b, const ssmc_kernel *k, const char *rec_below, double **y, int64_t *ny,
                     double **s, int64_t *ns) {
  setenv("SSMC_REC_BELOW", rec_below, 1);
  chk_run_fwd(b, k, 2, 0);
  unsetenv("SSMC_REC_BELOW");
  const double *yy = chk_batch_out(b, ny);
  const float *ss = chk_batch_state(b, 0, ns);
  *y = malloc(sizeof(double) * (size_t)*ny);
  *s = malloc(sizeof(double) * (size_t)*ns);
  memcpy(*y, yy, sizeof(double) * (size_t)*ny);
  for (int64_t i = 0; i < *ns; i++) (*s)[i] = ss[i];
}

START_TEST(forms_agree) {
  char path[1024];
  snprintf(path, sizeof path, "%s/dsl/families/%s.yaml", SSMC_SOURCE_DIR, families[_i]);
  gen_set g;
  gen_init(&g);
  diag d = {0};
  if (gen_add(&g, path, &d)) { diag_print(&d, stderr); ck_abort_msg("cannot load %s", families[_i]); }
  const cls_family *f = &g.u[0]->fam;
  ck_assert_int_gt(cost_rec_below(f), 1); /* a single token always runs recurrent */
  for (int i = 0; i < g.u[0]->nk; i++) {
    build_kernel bk;
    ck_assert_int_eq(build_get(&g.u[0]->k[i], f, 0, NULL, &bk, &d), 0);
    const ssmc_kernel *k = bk.k;
    chk_shape sh = {"varlen", 3, {150, 1, 70}, 1, 2, 1};
    chk_batch *b = chk_batch_new(f, k, &sh, 17);
    double *y1, *s1, *y2, *s2;
    int64_t ny1, ns1, ny2, ns2;
    run_form(b, k, "1000000", &y1, &ny1, &s1, &ns1); /* every sequence token by token */
    run_form(b, k, "-1", &y2, &ny2, &s2, &ns2);      /* every sequence chunkwise */
    ck_assert_int_eq(ny1, ny2);
    double ey = orc_rel_l2(y2, y1, (size_t)ny1), es = orc_rel_l2(s2, s1, (size_t)ns1);
    double by = k->dtype == SSMC_BF16 ? orc_tol_bound(ORC_TOL_OUTPUT) : 1e-5;
    ck_assert_msg(ey <= by, "%s: recurrent vs chunkwise outputs %.3e", k->name, ey);
    ck_assert_msg(es <= 1e-5, "%s: recurrent vs chunkwise final states %.3e", k->name, es);
    free(y1); free(s1); free(y2); free(s2);
    chk_batch_free(b);
    build_release(&bk);
  }
  gen_free(&g);
}
END_TEST

/* The crossings, as recorded in generated/manifest.txt. */
START_TEST(cost_model) {
  static const struct { const char *fam; int lo, hi; } want[] = {
    {"mamba2", 2, 63}, {"gated_deltanet", 2, 63}, {"deltanet", 2, 63}, {"gla", 1 << 30, 1 << 30},
    {"kda", 1 << 30, 1 << 30}, {"gated_kalmanet", 0, 0}};
  for (int i = 0; i < 6; i++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/dsl/families/%s.yaml", SSMC_SOURCE_DIR, want[i].fam);
    gen_set g;
    gen_init(&g);
    diag d = {0};
    ck_assert_int_eq(gen_add(&g, path, &d), 0);
    int rb = cost_rec_below(&g.u[0]->fam);
    ck_assert_msg(rb >= want[i].lo && rb <= want[i].hi, "%s: rec_below %d", want[i].fam, rb);
    gen_free(&g);
  }
}
END_TEST

Suite *forms_suite(void) {
  Suite *s = suite_create("forms");
  TCase *tc = tcase_create("forms");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, forms_agree, 0, (int)(sizeof families / sizeof *families));
  tcase_add_test(tc, cost_model);
  suite_add_tcase(s, tc);
  return s;
}
