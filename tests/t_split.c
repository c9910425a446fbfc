/* tests: a forward with fewer (sequence, head) items than threads splits each
 * item's value columns across threads (ssmc_fwd_args.v_parts); the result is
 * the same, bit for bit, as the unsplit forward: outputs and final states,
 * in the chunk form and in the recurrent form. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "build.h"
#include "chk.h"
#include "gen.h"
#include "rt_exec.h"

static const char *const families[] = {"mamba2", "gated_deltanet", "deltanet", "gla", "kda"};

START_TEST(split_equals_whole) {
  char path[1024];
  snprintf(path, sizeof path, "%s/dsl/families/%s.yaml", SSMC_SOURCE_DIR, families[_i]);
  gen_set g;
  gen_init(&g);
  diag d = {0};
  if (gen_add(&g, path, &d)) { diag_print(&d, stderr); ck_abort_msg("cannot load %s", families[_i]); }
  const cls_family *f = &g.u[0]->fam;
  for (int i = 0; i < g.u[0]->nk; i++) {
    build_kernel bk;
    ck_assert_int_eq(build_get(&g.u[0]->k[i], f, 0, NULL, &bk, &d), 0);
    const ssmc_kernel *k = bk.k;
    ck_assert_int_eq(rt_fwd_v_parts(k, 1, 1), 1);
    ck_assert_int_eq(rt_fwd_v_parts(k, 1, 2), 2); /* one sequence, one head, two threads */
    static const char *const forms[] = {"-1", "1000000"}; /* chunkwise, recurrent */
    for (int fm = 0; fm < 2; fm++) {
      setenv("SSMC_REC_BELOW", forms[fm], 1);
      chk_shape sh = {"one", 1, {300}, 1, 1, 1};    /* a partial last chunk, an initial state */
      chk_batch *b = chk_batch_new(f, k, &sh, 21);
      int64_t ny, ns;
      chk_run_fwd(b, k, 2, 0); /* split first: the batch's buffers start zeroed, so a column it missed shows */
      const double *y = chk_batch_out(b, &ny);
      double *y1 = malloc(sizeof(double) * (size_t)ny);
      memcpy(y1, y, sizeof(double) * (size_t)ny);
      const float *s = chk_batch_state(b, 0, &ns);
      float *s1 = malloc(sizeof(float) * (size_t)ns);
      memcpy(s1, s, sizeof(float) * (size_t)ns);
      chk_run_fwd(b, k, 1, 0);
      y = chk_batch_out(b, &ny);
      s = chk_batch_state(b, 0, &ns);
      ck_assert_msg(!memcmp(y1, y, sizeof(double) * (size_t)ny), "%s: split outputs differ", k->name);
      ck_assert_msg(!memcmp(s1, s, sizeof(float) * (size_t)ns), "%s: split final state differs", k->name);
      free(y1);
      free(s1);
      chk_batch_free(b);
      unsetenv("SSMC_REC_BELOW");
    }
    build_release(&bk);
  }
  gen_free(&g);
}
END_TEST

Suite *split_suite(void) {
  Suite *s = suite_create("split");
  TCase *tc = tcase_create("v_parts");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, split_equals_whole, 0, (int)(sizeof families / sizeof *families));
  suite_add_tcase(s, tc);
  return s;
}
