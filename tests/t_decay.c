/* tests: per-key decays far from the test domain's. The per-key chunk form
 * takes a diagonal sub-block through a reference point only when every key's
 * decay over the block stays within e^{+-60} of it, else pair by pair; with
 * the log-decays scaled up (x1, x4, x16) both ways are taken, and the chunkwise
 * forward (forced: SSMC_REC_BELOW=-1) still equals the decode stepped token by
 * token (an independent evaluation: one exp per token) on outputs and final
 * states. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "build.h"
#include "chk.h"
#include "gen.h"
#include "orc_ref.h"

static const char *const families[] = {"gla", "kda"};

START_TEST(strong_decays) {
  char path[1024];
  snprintf(path, sizeof path, "%s/dsl/families/%s.yaml", SSMC_SOURCE_DIR, families[_i]);
  gen_set g;
  gen_init(&g);
  diag d = {0};
  if (gen_add(&g, path, &d)) { diag_print(&d, stderr); ck_abort_msg("cannot load %s", families[_i]); }
  const cls_family *f = &g.u[0]->fam;
  build_kernel bk;
  ck_assert_int_eq(build_get(&g.u[0]->k[0], f, 0, NULL, &bk, &d), 0); /* the f32 kernel */
  const ssmc_kernel *k = bk.k;
  ck_assert_int_eq(k->dtype, SSMC_F32);
  int gi = -1;
  for (int i = 0; i < k->n_inputs; i++)
    if (k->input_domain[i] == SSMC_IN_LOG_DECAY && k->input_dim[i] == 1) gi = i;
  ck_assert_int_ge(gi, 0);
  const double scales[] = {1, 4, 16};
  for (int c = 0; c < 3; c++) {
    chk_shape sh = {"varlen", 2, {200, 77}, 1, 2, 1};
    chk_batch *b = chk_batch_new(f, k, &sh, 31);
    chk_batch_scale_input(b, gi, scales[c]);
    int64_t n, m;
    setenv("SSMC_REC_BELOW", "-1", 1); /* the chunk form (the cost model may pick the recurrent one) */
    chk_run_fwd(b, k, 2, 0);
    unsetenv("SSMC_REC_BELOW");
    const double *y0 = chk_batch_out(b, &n);
    double *y = malloc(sizeof(double) * (size_t)n);
    memcpy(y, y0, sizeof(double) * (size_t)n);
    const float *s0 = chk_batch_state(b, 0, &m);
    float *st = malloc(sizeof(float) * (size_t)m);
    memcpy(st, s0, sizeof(float) * (size_t)m);
    chk_run_decode(b, k, 2, 0);
    const double *y1 = chk_batch_out(b, &n);
    double ey = orc_rel_l2(y1, y, (size_t)n);
    ck_assert_msg(ey < 1e-4, "%s, log-decays x%g: forward vs decode outputs %.3e", k->name, scales[c], ey);
    const float *st2 = chk_batch_state(b, 0, &m);
    double num = 0, den = 0;
    for (int64_t j = 0; j < m; j++) { num += (st2[j] - st[j]) * (st2[j] - st[j]); den += st[j] * st[j]; }
    ck_assert_msg(sqrt(num / (den > 0 ? den : 1)) < 1e-4, "%s, log-decays x%g: final states differ", k->name, scales[c]);
    free(y);
    free(st);
    chk_batch_free(b);
  }
  build_release(&bk);
  gen_free(&g);
}
END_TEST

Suite *decay_suite(void) {
  Suite *s = suite_create("decay");
  TCase *tc = tcase_create("strong");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, strong_decays, 0, (int)(sizeof families / sizeof *families));
  suite_add_tcase(s, tc);
  return s;
}
