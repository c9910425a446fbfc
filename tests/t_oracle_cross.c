/* tests: the literal spec interpreter agrees with the hand-written fp64
 * recurrences on the built-in Mamba-2, Gated DeltaNet and Gated KalmaNet specs
 * (exact and Chebyshev solves), from random initial states. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "orc_interp.h"
#include "orc_rand.h"
#include "orc_ref.h"
#include "sbx.h"

typedef struct { srcfile *f; arena a; sbx *lua; layer_spec *s; } loaded;

static void load(loaded *L, const char *family) {
  char path[1024];
  snprintf(path, sizeof path, "%s/dsl/families/%s.yaml", SSMC_SOURCE_DIR, family);
  diag d = {0};
  memset(L, 0, sizeof *L);
  L->f = src_read(path, &d);
  ck_assert_ptr_nonnull(L->f);
  L->lua = sbx_new(64u << 20, 50000000L);
  L->s = spec_load(L->f, &L->a, L->lua, &d);
  ck_assert_msg(L->s != NULL, "%s", d.msg);
}

static void unload(loaded *L) { sbx_free(L->lua); arena_free(&L->a); src_free(L->f); }

static int find(const layer_spec *s, const char *name) {
  for (int i = 0; i < s->n_in; i++)
    if (!strcmp(s->in[i].name, name)) return i;
  ck_abort_msg("no input %s", name);
  return -1;
}

/* Random inputs for every spec input: in[i] is (T, D_i). */
static double **inputs(const layer_spec *s, int T, orc_rng *r) {
  double **in = calloc(SPEC_MAX_IO, sizeof *in);
  for (int i = 0; i < s->n_in; i++) {
    int D = s->in[i].dim == DIM_K ? s->K : s->in[i].dim == DIM_V ? s->V : 1;
    in[i] = malloc(sizeof(double) * (size_t)(T * D));
    orc_sample_tokens(r, (int)s->in[i].domain, T, D, in[i]);
  }
  return in;
}

static void free_inputs(double **in) { for (int i = 0; i < SPEC_MAX_IO; i++) free(in[i]); free(in); }

START_TEST(mamba2_and_gdn) {
  const char *fams[] = {"mamba2", "gated_deltanet"};
  for (int fi = 0; fi < 2; fi++) {
    loaded L;
    load(&L, fams[fi]);
    const layer_spec *s = L.s;
    int T = 40, K = s->K, V = s->V;
    orc_rng r;
    orc_rng_seed(&r, 11 + fi);
    double **in = inputs(s, T, &r);
    double *z1 = malloc(sizeof(double) * K * V), *z2 = malloc(sizeof(double) * K * V);
    for (int j = 0; j < K * V; j++) z1[j] = z2[j] = 0.1 * orc_normal(&r);
    double *y1 = malloc(sizeof(double) * T * V), *y2 = malloc(sizeof(double) * T * V);
    orc_out o = {0, y1, NULL, NULL, NULL};
    double *st[] = {z1};
    ck_assert_int_eq(orc_interp(s, T, (const double *const *)in, st, &o), 0);
    double scale = 0;
    ck_assert(spec_const_value(s, "scale", &scale));
    if (fi == 0)
      orc_ref_scalar_decay(T, K, V, scale, in[find(s, "q")], in[find(s, "k")], in[find(s, "v")], in[find(s, "g")],
                           NULL, z2, y2);
    else
      orc_ref_gdn(T, K, V, scale, in[find(s, "q")], in[find(s, "k")], in[find(s, "v")], in[find(s, "g")],
                  in[find(s, "beta")], z2, y2);
    ck_assert_double_lt(orc_rel_l2(y1, y2, (size_t)T * V), 1e-12);
    ck_assert_double_lt(orc_rel_l2(z1, z2, (size_t)K * V), 1e-12);
    free(z1); free(z2); free(y1); free(y2);
    free_inputs(in);
    unload(&L);
  }
}
END_TEST

START_TEST(gka_exact_and_chebyshev) {
  loaded L;
  load(&L, "gated_kalmanet");
  const layer_spec *s = L.s;
  int T = 24, K = s->K, V = s->V;
  orc_rng r;
  orc_rng_seed(&r, 5);
  double **in = inputs(s, T, &r);
  double scale = 0;
  ck_assert(spec_const_value(s, "scale", &scale));
  for (int how = 0; how < 2; how++) {
    double *h1 = calloc((size_t)K * K, sizeof(double)), *h2 = calloc((size_t)K * K, sizeof(double));
    double *u1 = calloc((size_t)K * V, sizeof(double)), *u2 = calloc((size_t)K * V, sizeof(double));
    double *y1 = malloc(sizeof(double) * T * V), *ye = malloc(sizeof(double) * T * V), *y2 = malloc(sizeof(double) * T * V);
    double *x1 = malloc(sizeof(double) * T * K), *xe = malloc(sizeof(double) * T * K), *x2 = malloc(sizeof(double) * T * K);
    orc_out o = {0, y1, ye, x1, xe};
    double *st[] = {h1, u1};
    ck_assert_int_eq(orc_interp(s, T, (const double *const *)in, st, &o), 0);
    orc_ref_gka(T, K, V, scale, 0.02, 0.0, 30, how ? ORC_SOLVE_EXACT : ORC_SOLVE_CHEBYSHEV, in[find(s, "q")],
                in[find(s, "k")], in[find(s, "v")], in[find(s, "g")], in[find(s, "beta")], in[find(s, "alpha")], h2,
                u2, x2, y2);
    ck_assert_double_lt(orc_rel_l2(how ? xe : x1, x2, (size_t)T * K), 1e-10);
    ck_assert_double_lt(orc_rel_l2(how ? ye : y1, y2, (size_t)T * V), 1e-10);
    ck_assert_double_lt(orc_rel_l2(h1, h2, (size_t)K * K), 1e-12);
    ck_assert_double_lt(orc_rel_l2(u1, u2, (size_t)K * V), 1e-12);
    free(h1); free(h2); free(u1); free(u2); free(y1); free(ye); free(y2); free(x1); free(xe); free(x2);
  }
  free_inputs(in);
  unload(&L);
}
END_TEST

Suite *oracle_cross_suite(void) {
  Suite *s = suite_create("oracle_cross");
  TCase *tc = tcase_create("interpreter_vs_reference");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, mamba2_and_gdn);
  tcase_add_test(tc, gka_exact_and_chebyshev);
  suite_add_tcase(s, tc);
  return s;
}
