/* tests: the ISA variants of the built-in CPU kernels. Each built-in kernel is
 * compiled for x86-64-v3 (AVX2) and x86-64-v4 (AVX-512) and picked at run time
 * (runtime/rt_isa.c). Forced to each level in turn, every kernel passes the
 * oracle on the edge shapes, and the two levels agree with each other on the
 * forward and the decode (outputs and final states) to within rounding. On a
 * CPU without AVX-512 only the v3 half runs. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "build.h"
#include "chk.h"
#include "gen.h"
#include "orc_ref.h"
#include "orc_tol.h"
#include "rt_isa.h"

static const char *const families[] = {"mamba2", "gated_deltanet", "gated_kalmanet", "deltanet", "gla", "kda"};

typedef struct { double *y, *s; int64_t ny, ns; } isa_run;

static void run_at(int level, const cls_family *f, const ssmc_kernel *k, int decode, isa_run *r) {
  ssmc_cpu_isa_force(level);
  ck_assert_int_eq(ssmc_cpu_isa(), level);
  chk_shape sh = {"varlen", 3, {150, 1, 64}, 2, 4, 1};
  chk_batch *b = chk_batch_new(f, k, &sh, 5);
  if (decode) chk_run_decode(b, k, 2, 0);
  else chk_run_fwd(b, k, 2, 0);
  const double *y = chk_batch_out(b, &r->ny);
  const float *s = chk_batch_state(b, 0, &r->ns);
  r->y = malloc(sizeof(double) * (size_t)r->ny);
  r->s = malloc(sizeof(double) * (size_t)r->ns);
  memcpy(r->y, y, sizeof(double) * (size_t)r->ny);
  for (int64_t i = 0; i < r->ns; i++) r->s[i] = s[i];
  chk_batch_free(b);
  ssmc_cpu_isa_force(0);
}

START_TEST(isa_variants) {
  char path[1024];
  snprintf(path, sizeof path, "%s/dsl/families/%s.yaml", SSMC_SOURCE_DIR, families[_i]);
  gen_set g;
  gen_init(&g);
  diag d = {0};
  if (gen_add(&g, path, &d)) { diag_print(&d, stderr); ck_abort_msg("cannot load %s", families[_i]); }
  const cls_family *f = &g.u[0]->fam;
  int top = ssmc_cpu_isa_max();
  for (int i = 0; i < g.u[0]->nk; i++) {
    build_kernel bk;
    ck_assert_int_eq(build_get(&g.u[0]->k[i], f, 0, NULL, &bk, &d), 0);
    ck_assert_msg(bk.builtin, "%s: the built-in kernel is stale (run ssmc gen)", families[_i]);
    const ssmc_kernel *k = bk.k;
    for (int level = 3; level <= top; level++) { /* each variant against the oracle */
      ssmc_cpu_isa_force(level);
      chk_opts o = {11, 0, 2, 0, NULL, 2}; /* the backward has one ISA variant: its rows are checked elsewhere */
      chk_result r;
      FILE *sink = fopen("/dev/null", "w");
      int failed = chk_kernel(f, k, &o, sink, &r);
      fclose(sink);
      ssmc_cpu_isa_force(0);
      ck_assert_msg(failed == 0, "%s at x86-64-v%d: %d comparisons failed", k->name, level, failed);
      ck_assert_int_ge(r.rows, 10);
    }
    if (top >= 4) /* the two variants agree: f32 to rounding; bf16 outputs to one bf16 rounding */
      for (int dec = 0; dec < 2; dec++) {
        isa_run a, b;
        run_at(3, f, k, dec, &a);
        run_at(4, f, k, dec, &b);
        ck_assert_int_eq(a.ny, b.ny);
        ck_assert_int_eq(a.ns, b.ns);
        double ey = orc_rel_l2(b.y, a.y, (size_t)a.ny), es = orc_rel_l2(b.s, a.s, (size_t)a.ns);
        double by = k->dtype == SSMC_BF16 ? orc_tol_bound(ORC_TOL_OUTPUT) : 1e-5;
        ck_assert_msg(ey <= by, "%s %s: v3 vs v4 outputs differ by %.3e (bound %.1e)", k->name,
                      dec ? "decode" : "fwd", ey, by);
        ck_assert_msg(es <= 1e-5, "%s %s: v3 vs v4 final states differ by %.3e", k->name, dec ? "decode" : "fwd", es);
        free(a.y); free(a.s); free(b.y); free(b.s);
      }
    build_release(&bk);
  }
  gen_free(&g);
}
END_TEST

/* Forcing a level is seen by ssmc_cpu_isa(); 0 returns to the detected level. */
START_TEST(isa_force) {
  int top = ssmc_cpu_isa_max();
  ck_assert(top == 3 || top == 4);
  ssmc_cpu_isa_force(3);
  ck_assert_int_eq(ssmc_cpu_isa(), 3);
  ck_assert_int_eq(ssmc_cpu_isa_max(), top);
  ssmc_cpu_isa_force(0);
  ck_assert_int_eq(ssmc_cpu_isa(), top);
}
END_TEST

Suite *isa_suite(void) {
  Suite *s = suite_create("isa");
  TCase *tc = tcase_create("variants");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, isa_force);
  tcase_add_loop_test(tc, isa_variants, 0, (int)(sizeof families / sizeof *families));
  suite_add_tcase(s, tc);
  return s;
}
