/* runtime stage: ssmc's own model file (model.yaml, runtime/mdl_own.c).
 * The Nemotron-H fixture is written in our format, as a user converting a
 * checkpoint would: its HF safetensors stay as they are (named through
 * `weight_names`), and the two tensors whose layout differs from ours (the
 * Mamba-2 input projection, rows z,x,B,C,dt -> q=C,k=B,v=x,z,a=dt, and the
 * conv1d, (ch, 1, w) with channels x,B,C -> (ch, w) with C,B,x) go to a second
 * safetensors file. The model must reproduce HF's logits and greedy tokens
 * (tests/fixtures/nemotron_h/expected.safetensors) like the HF-folder load
 * does; and broken model files must be exit-2 errors naming file and key. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "be.h"
#include "mx.h"

#define FX SSMC_SOURCE_DIR "/tests/fixtures/nemotron_h"

/* Nemotron-H fixture dims (scripts/make_fixtures.py): d=64, mamba heads 4 x 128, groups 2 x state 128 */
enum { D = 64, MH = 4, DI = 4 * 128, GS = 2 * 128, CONV = DI + 2 * GS, NIN = DI + CONV + MH, CW = 4 };
static const int SSM_LAYERS[] = {0, 2, 5};

static const char *YAML =
    "# the Nemotron-H fixture in ssmc's own model format (t_model_own.c)\n"
    "d_model: 64\n"
    "vocab: 500\n"
    "norm_eps: 1.0e-5\n"
    "tie_embeddings: false    # HF saved an lm_head.weight of its own, and ran it\n"
    "tokenizer: tokenizer.json\n"
    "weights: [hf.safetensors, ssm.safetensors]\n"
    "n_layers: 6\n"
    "layers: [ssm, mlp, ssm, attention, mlp, ssm]\n"
    "ffn: none\n"
    "attention: {heads: 4, kv_heads: 2, head_dim: 32, rotary_dim: 0}\n"
    "ssm:\n"
    "  spec: mamba2\n"
    "  qk_heads: 2\n"
    "  v_heads: 4\n"
    "  key_dim: 128\n"
    "  value_dim: 128\n"
    "  conv: 4\n"
    "  conv_v: true\n"
    "  q_scale: 11.3137085\n"
    "  dt_scales_v: true\n"
    "  dt_min: 0.001\n"
    "  out_norm: gate_norm\n"
    "  out_norm_group: 256\n"
    "  out_norm_per_head: false\n"
    "  out_norm_eps: 1.0e-5\n"
    "mlp: {act: relu2, inter: 128}\n"
    "weight_names:\n"
    "  \"embed.weight\": \"backbone.embeddings.weight\"\n"
    "  \"final_norm.weight\": \"backbone.norm_f.weight\"\n"
    "  \"layers.{i}.norm1.weight\": \"backbone.layers.{i}.norm.weight\"\n"
    "  \"layers.{i}.attn.q.weight\": \"backbone.layers.{i}.mixer.q_proj.weight\"\n"
    "  \"layers.{i}.attn.k.weight\": \"backbone.layers.{i}.mixer.k_proj.weight\"\n"
    "  \"layers.{i}.attn.v.weight\": \"backbone.layers.{i}.mixer.v_proj.weight\"\n"
    "  \"layers.{i}.attn.o.weight\": \"backbone.layers.{i}.mixer.o_proj.weight\"\n"
    "  \"layers.{i}.mlp.up.weight\": \"backbone.layers.{i}.mixer.up_proj.weight\"\n"
    "  \"layers.{i}.mlp.down.weight\": \"backbone.layers.{i}.mixer.down_proj.weight\"\n"
    "  \"layers.{i}.ssm.A_log\": \"backbone.layers.{i}.mixer.A_log\"\n"
    "  \"layers.{i}.ssm.dt_bias\": \"backbone.layers.{i}.mixer.dt_bias\"\n"
    "  \"layers.{i}.ssm.D\": \"backbone.layers.{i}.mixer.D\"\n"
    "  \"layers.{i}.ssm.norm.weight\": \"backbone.layers.{i}.mixer.norm.weight\"\n"
    "  \"layers.{i}.ssm.out.weight\": \"backbone.layers.{i}.mixer.out_proj.weight\"\n";

typedef struct { char name[96]; int rows, cols; float *data; } ot; /* rows 0: 1-D of cols */

/* a safetensors file of fp32 tensors */
static void write_st(const char *path, const ot *t, int n) {
  char hdr[8192];
  size_t off = 0;
  int len = snprintf(hdr, sizeof hdr, "{");
  for (int i = 0; i < n; i++) {
    size_t sz = sizeof(float) * (size_t)(t[i].rows ? t[i].rows : 1) * t[i].cols;
    char shape[32];
    if (t[i].rows) snprintf(shape, sizeof shape, "%d,%d", t[i].rows, t[i].cols);
    else snprintf(shape, sizeof shape, "%d", t[i].cols);
    len += snprintf(hdr + len, sizeof hdr - len, "%s\"%s\":{\"dtype\":\"F32\",\"shape\":[%s],\"data_offsets\":[%zu,%zu]}",
                    i ? "," : "", t[i].name, shape, off, off + sz);
    off += sz;
  }
  len += snprintf(hdr + len, sizeof hdr - len, "}");
  while (len % 8) hdr[len++] = ' ';
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  uint64_t hl = (uint64_t)len;
  fwrite(&hl, 8, 1, f);
  fwrite(hdr, 1, (size_t)len, f);
  for (int i = 0; i < n; i++) fwrite(t[i].data, sizeof(float), (size_t)(t[i].rows ? t[i].rows : 1) * t[i].cols, f);
  fclose(f);
}

static const float *hf_get(st_set *s, const char *name, int64_t numel) {
  const st_tensor *t = st_get(s, name);
  ck_assert_msg(t && t->dtype == ST_F32 && st_numel(t) == numel, "fixture tensor %s", name);
  return t->data;
}

/* rows [src, src + n) of w (cols wide) to row dst of out */
static void rows(float *out, int dst, const float *w, int src, int n, int cols) {
  memcpy(out + (size_t)dst * cols, w + (size_t)src * cols, sizeof(float) * (size_t)n * cols);
}

/* Writes the own-format model into dir (created). */
static void own_make(const char *dir) {
  char p[1024];
  snprintf(p, sizeof p, "mkdir -p %s && ln -sf %s/model.safetensors %s/hf.safetensors && cp %s/tokenizer.json %s/",
           dir, FX, dir, FX, dir);
  ck_assert_int_eq(system(p), 0);
  snprintf(p, sizeof p, "%s/model.yaml", dir);
  FILE *f = fopen(p, "w");
  ck_assert_ptr_nonnull(f);
  fputs(YAML, f);
  fclose(f);
  st_set *hf;
  rt_diag d = {0};
  const char *src = FX "/model.safetensors";
  ck_assert_msg(st_open_files(&hf, &src, 1, &d) == 0, "%s", d.msg);
  ot t[9];
  int n = 0;
  for (int li = 0; li < 3; li++) {
    int L = SSM_LAYERS[li];
    char nm[128];
    snprintf(nm, sizeof nm, "backbone.layers.%d.mixer.in_proj.weight", L);
    const float *w = hf_get(hf, nm, (int64_t)NIN * D);
    float *in = malloc(sizeof(float) * NIN * D);
    /* HF rows: z (DI), x (DI), B (GS), C (GS), dt (MH) */
    rows(in, 0, w, 2 * DI + GS, GS, D);       /* q = C */
    rows(in, GS, w, 2 * DI, GS, D);           /* k = B */
    rows(in, 2 * GS, w, DI, DI, D);           /* v = x */
    rows(in, 2 * GS + DI, w, 0, DI, D);       /* z */
    rows(in, 2 * GS + 2 * DI, w, 2 * DI + 2 * GS, MH, D); /* a = dt */
    t[n] = (ot){"", NIN, D, in};
    snprintf(t[n++].name, sizeof t[0].name, "layers.%d.ssm.in.weight", L);
    snprintf(nm, sizeof nm, "backbone.layers.%d.mixer.conv1d.weight", L);
    w = hf_get(hf, nm, (int64_t)CONV * CW);
    float *cw = malloc(sizeof(float) * CONV * CW);
    rows(cw, 0, w, DI + GS, GS, CW), rows(cw, GS, w, DI, GS, CW), rows(cw, 2 * GS, w, 0, DI, CW);
    t[n] = (ot){"", CONV, CW, cw};
    snprintf(t[n++].name, sizeof t[0].name, "layers.%d.ssm.conv.weight", L);
    snprintf(nm, sizeof nm, "backbone.layers.%d.mixer.conv1d.bias", L);
    w = hf_get(hf, nm, CONV);
    float *cb = malloc(sizeof(float) * CONV);
    rows(cb, 0, w, DI + GS, GS, 1), rows(cb, GS, w, DI, GS, 1), rows(cb, 2 * GS, w, 0, DI, 1);
    t[n] = (ot){"", 0, CONV, cb};
    snprintf(t[n++].name, sizeof t[0].name, "layers.%d.ssm.conv.bias", L);
  }
  snprintf(p, sizeof p, "%s/ssm.safetensors", dir);
  write_st(p, t, n);
  for (int i = 0; i < n; i++) free(t[i].data);
  st_close(hf);
}

static double rel_err(const float *a, const float *b, int n) {
  double num = 0, den = 0;
  for (int i = 0; i < n; i++) { num += ((double)a[i] - b[i]) * ((double)a[i] - b[i]); den += (double)b[i] * b[i]; }
  return sqrt(num / (den > 0 ? den : 1));
}

static int argmax(const float *x, int n) {
  int b = 0;
  for (int i = 1; i < n; i++) if (x[i] > x[b]) b = i;
  return b;
}

START_TEST(own_matches_hf) {
  char dir[] = "/tmp/ssmc_own_XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  own_make(dir);
  mdl_model m;
  rt_diag d = {0};
  mdl_opts o = {0};
  ck_assert_msg(mdl_load(dir, &o, &m, &d) == 0, "%s", d.msg);
  ck_assert_str_eq(m.arch, "ssmc");
  ck_assert_int_eq(m.n_layers, 6);
  ck_assert(!m.tied && m.layers[0].mixer == MDL_SSM && m.layers[1].mixer == MDL_MLP && m.layers[3].mixer == MDL_ATTN);
  st_set *ex;
  const char *ep = FX "/expected.safetensors";
  ck_assert_msg(st_open_files(&ex, &ep, 1, &d) == 0, "%s", d.msg);
  const st_tensor *pt = st_get(ex, "prompt_ids"), *gt = st_get(ex, "greedy_ids");
  const float *want = st_get(ex, "logits")->data;
  const int *prompt = pt->data, *greedy = gt->data;
  int T = (int)pt->shape[0], G = (int)gt->shape[0], V = m.vocab, slot = 0;
  be *b = be_cpu_create(2);
  mx_opts mo = {1, 256, 64, 2, 0};
  mx_sess *s;
  ck_assert_msg(mx_create(&m, be_cpu_ops(), b, &mo, &s, &d) == 0, "%s", d.msg);
  float *lg = malloc(sizeof(float) * (size_t)T * V);
  mx_reset(s, 0);
  ck_assert(mx_feed(s, 1, &slot, &prompt, &T, lg, 1, &d) == 0);
  double worst = 0;
  for (int t = 0; t < T; t++) {
    double e = rel_err(lg + (size_t)t * V, want + (size_t)t * V, V);
    worst = e > worst ? e : worst;
  }
  fprintf(stderr, "own-format nemotron_h: prefill rel %.3g vs HF\n", worst);
  ck_assert_msg(worst <= 1e-4, "own format: prefill logits rel. error %.3g > 1e-4", worst);
  int next = argmax(lg + (size_t)(T - 1) * V, V), one = 1;
  for (int i = 0; i < G; i++) {
    ck_assert_msg(next == greedy[i], "own format: greedy token %d: %d, HF %d", i, next, greedy[i]);
    const int *tp = &next;
    ck_assert(mx_feed(s, 1, &slot, &tp, &one, lg, 0, &d) == 0);
    next = argmax(lg, V);
  }
  free(lg);
  mx_destroy(s);
  be_cpu_destroy(b);
  st_close(ex);
  mdl_free(&m);
  char rm[64];
  snprintf(rm, sizeof rm, "rm -rf %s", dir);
  ck_assert_int_eq(system(rm), 0);
}
END_TEST

/* breaks the own-format model with a shell command; `ssmc model show` must exit 2 with both strings on stderr */
static void expect_bad(const char *breakit, const char *a, const char *b2) {
  char dir[] = "/tmp/ssmc_ownbad_XXXXXX", sh[2048], err[4096];
  ck_assert_ptr_nonnull(mkdtemp(dir));
  own_make(dir);
  snprintf(sh, sizeof sh, "cd %s && %s", dir, breakit);
  ck_assert_int_eq(system(sh), 0);
  snprintf(sh, sizeof sh, "%s model show %s > %s/out.txt 2> %s/err.txt", SSMC_BINARY, dir, dir, dir);
  int st = system(sh);
  snprintf(sh, sizeof sh, "%s/err.txt", dir);
  FILE *f = fopen(sh, "r");
  size_t got = f ? fread(err, 1, sizeof err - 1, f) : 0;
  err[got] = 0;
  if (f) fclose(f);
  snprintf(sh, sizeof sh, "rm -rf %s", dir);
  ck_assert_int_eq(system(sh), 0);
  int rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  ck_assert_msg(rc == 2, "exit %d for [%s]: %s", rc, breakit, err);
  /* the file, or for a tensor found in none of the weight files, the model folder */
  ck_assert_msg(strstr(err, "model.yaml") || strstr(err, ".safetensors") || strstr(err, dir), "[%s]: no file named: %s",
                breakit, err);
  ck_assert_msg(strstr(err, a) && (!b2 || strstr(err, b2)), "[%s]: message lacks '%s'/'%s': %s", breakit, a, b2 ? b2 : "", err);
}

START_TEST(own_shows) {
  /* the unbroken model loads (so the failures below are the breakage, not the setup) */
  char dir[] = "/tmp/ssmc_ownok_XXXXXX", sh[1024];
  ck_assert_ptr_nonnull(mkdtemp(dir));
  own_make(dir);
  snprintf(sh, sizeof sh, "%s model show %s > /dev/null && rm -rf %s", SSMC_BINARY, dir, dir);
  ck_assert_int_eq(system(sh), 0);
}
END_TEST
START_TEST(own_missing_key) {
  expect_bad("sed -i '/^vocab:/d' model.yaml", "model.yaml", "missing key 'vocab'");
}
END_TEST
START_TEST(own_pattern_length) {
  expect_bad("sed -i 's/^layers: \\[ssm, mlp, /layers: [mlp, /' model.yaml", "model.yaml",
             "the layer pattern has 5 entries but n_layers is 6");
}
END_TEST
START_TEST(own_unknown_kind) {
  expect_bad("sed -i 's/^layers: \\[ssm, mlp, ssm, attention/layers: [ssm, mlp, ssm, mamba3/' model.yaml", "model.yaml",
             "layers[3]: unknown layer kind 'mamba3'");
}
END_TEST
START_TEST(own_unknown_key) {
  expect_bad("sed -i 's/^d_model:/d_modle:/' model.yaml", "model.yaml", "unknown key 'd_modle'");
}
END_TEST
START_TEST(own_unknown_section_key) {
  expect_bad("sed -i 's/  qk_heads: 2/  qk_head: 2/' model.yaml", "model.yaml", "ssm: unknown key 'qk_head'");
}
END_TEST
START_TEST(own_bad_option) {
  expect_bad("sed -i 's/out_norm: gate_norm/out_norm: gate_nrom/' model.yaml", "model.yaml", "ssm.out_norm: 'gate_nrom'");
}
END_TEST
START_TEST(own_missing_tensor) {
  expect_bad("sed -i 's/mixer.o_proj.weight/mixer.out.weight/' model.yaml", "missing tensor 'backbone.layers.3.mixer.out.weight'",
             NULL);
}
END_TEST
START_TEST(own_misshaped_tensor) {
  expect_bad("sed -i 's/inter: 128/inter: 96/' model.yaml", "'backbone.layers.1.mixer.up_proj.weight'",
             "expected shape [96, 64], found [128, 64]");
}
END_TEST
START_TEST(own_malformed_yaml) {
  expect_bad("sed -i 's/^attention: {heads: 4,/attention: {heads: [4,/' model.yaml", "model.yaml", "malformed YAML");
}
END_TEST

Suite *model_own_suite(void) {
  Suite *s = suite_create("model_own");
  TCase *tc = tcase_create("own");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, own_matches_hf);
  tcase_add_test(tc, own_shows);
  tcase_add_test(tc, own_missing_key);
  tcase_add_test(tc, own_pattern_length);
  tcase_add_test(tc, own_unknown_kind);
  tcase_add_test(tc, own_unknown_key);
  tcase_add_test(tc, own_unknown_section_key);
  tcase_add_test(tc, own_bad_option);
  tcase_add_test(tc, own_missing_tensor);
  tcase_add_test(tc, own_misshaped_tensor);
  tcase_add_test(tc, own_malformed_yaml);
  suite_add_tcase(s, tc);
  return s;
}
