/* runtime stage: `ssmc model show` lists under each layer the tensors that
 * layer reads, by their names in the weight files, with shape and dtype
 * (runtime/mdl_ld.c: mdl_show). Checked on the HF fixtures: each layer's
 * block holds its own tensors and no other layer's. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *show(const char *fixture) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "%s model show %s/tests/fixtures/%s", SSMC_BINARY, SSMC_SOURCE_DIR, fixture);
  FILE *p = popen(cmd, "r");
  ck_assert_ptr_nonnull(p);
  size_t cap = 1 << 16, n = 0;
  char *out = malloc(cap);
  for (size_t r; (r = fread(out + n, 1, cap - n - 1, p)) > 0;) {
    n += r;
    if (n + 1 == cap) out = realloc(out, cap *= 2);
  }
  out[n] = 0;
  ck_assert_int_eq(pclose(p), 0);
  return out;
}

/* the block of layer i: from its "%3d  " line to the next layer line (or the end) */
static char *block(const char *out, int i) {
  char head[16];
  snprintf(head, sizeof head, "\n%3d  ", i);
  const char *b = strstr(out, head);
  ck_assert_msg(b != NULL, "no line for layer %d", i);
  snprintf(head, sizeof head, "\n%3d  ", i + 1);
  const char *e = strstr(b + 1, head);
  size_t n = e ? (size_t)(e - b) : strlen(b);
  char *s = malloc(n + 1);
  memcpy(s, b, n);
  s[n] = 0;
  return s;
}

static void has(const char *blk, const char *name, const char *shape) {
  const char *p = strstr(blk, name);
  ck_assert_msg(p != NULL, "'%s' not listed in:\n%s", name, blk);
  const char *eol = strchr(p, '\n');
  ck_assert_msg(strstr(p, shape) && (!eol || strstr(p, shape) < eol), "'%s' without shape %s in:\n%s", name, shape, blk);
}

START_TEST(show_nemotron_weights) {
  char *out = show("nemotron_h");
  ck_assert_ptr_nonnull(strstr(out, "backbone.embeddings.weight"));
  ck_assert_msg(strstr(out, "backbone.embeddings.weight") < strstr(out, "\n  0  "), "model-level weights first");
  char *b0 = block(out, 0), *b1 = block(out, 1), *b3 = block(out, 3);
  has(b0, "backbone.layers.0.mixer.in_proj.weight", "[1540, 64]");
  has(b0, "backbone.layers.0.mixer.conv1d.weight", "[1024, 1, 4]");
  has(b0, "backbone.layers.0.mixer.D", "[4]");
  has(b1, "backbone.layers.1.mixer.up_proj.weight", "[128, 64]");
  has(b3, "backbone.layers.3.mixer.q_proj.weight", "[128, 64]");
  has(b3, "backbone.layers.3.mixer.o_proj.weight", "[64, 128]");
  ck_assert_msg(!strstr(b0, "layers.1.") && !strstr(b1, "layers.0.") && !strstr(b3, "layers.2."), "a layer lists another's tensors");
  ck_assert_ptr_nonnull(strstr(b0, "F32"));
  free(b0), free(b1), free(b3), free(out);
}
END_TEST

START_TEST(show_qwen3_next_weights) {
  char *out = show("qwen3_next");
  char *b0 = block(out, 0), *b2 = block(out, 2);
  has(b0, "model.layers.0.linear_attn.in_proj_qkvz.weight", "[768, 64]");
  has(b0, "model.layers.0.mlp.experts.3.up_proj.weight", "[32, 64]");
  has(b0, "model.layers.0.mlp.shared_expert_gate.weight", "[1, 64]");
  has(b2, "model.layers.2.self_attn.q_norm.weight", "[32]");
  ck_assert_msg(!strstr(b2, "linear_attn"), "the attention layer lists SSM tensors");
  free(b0), free(b2), free(out);
}
END_TEST

Suite *model_show_suite(void) {
  Suite *s = suite_create("model_show");
  TCase *tc = tcase_create("show");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, show_nemotron_weights);
  tcase_add_test(tc, show_qwen3_next_weights);
  suite_add_tcase(s, tc);
  return s;
}
