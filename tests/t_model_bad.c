/* runtime stage: bad model folders are clear errors that name the file (and
 * key or tensor), exit status 2, before any compute. Each case copies a
 * fixture into a fresh folder, breaks one thing, and runs the ssmc binary. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int run_case(const char *fixture, const char *breakit, const char *cmd, char *err, size_t n) {
  char dir[] = "/tmp/ssmc_bad_XXXXXX", sh[4096];
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(sh, sizeof sh, "cp %s/tests/fixtures/%s/* %s/ && cd %s && %s", SSMC_SOURCE_DIR, fixture, dir, dir, breakit);
  ck_assert_int_eq(system(sh), 0);
  snprintf(sh, sizeof sh, "%s %s %s > %s/out.txt 2> %s/err.txt", SSMC_BINARY, cmd, dir, dir, dir);
  int st = system(sh);
  snprintf(sh, sizeof sh, "%s/err.txt", dir);
  FILE *f = fopen(sh, "r");
  size_t got = f ? fread(err, 1, n - 1, f) : 0;
  err[got] = 0;
  if (f) fclose(f);
  snprintf(sh, sizeof sh, "rm -rf %s", dir);
  ck_assert_int_eq(system(sh), 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void expect(const char *fixture, const char *breakit, const char *cmd, const char *a, const char *b) {
  char err[4096];
  int rc = run_case(fixture, breakit, cmd, err, sizeof err);
  ck_assert_msg(rc == 2, "exit %d for [%s]: %s", rc, breakit, err);
  ck_assert_msg(strstr(err, a) && (!b || strstr(err, b)), "[%s]: message lacks '%s'/'%s': %s", breakit, a, b ? b : "", err);
}

START_TEST(pattern_length) {
  expect("qwen3_next", "sed -i 's/\"num_hidden_layers\": 4/\"num_hidden_layers\": 5/' config.json", "model show",
         "config.json", "num_hidden_layers is 5");
}
END_TEST
START_TEST(unknown_arch) {
  expect("qwen3_next", "sed -i 's/\"model_type\": \"qwen3_next\"/\"model_type\": \"mamba_x\"/' config.json", "model show",
         "config.json", "'mamba_x' is not a supported architecture");
}
END_TEST
START_TEST(unknown_kind) {
  expect("qwen3_next", "sed -i '0,/\"full_attention\"/s//\"cross_attention\"/' config.json", "model show", "config.json",
         "unknown layer kind 'cross_attention'");
}
END_TEST
START_TEST(missing_tensor) {
  expect("qwen3_next", "sed -i 's/\"mlp_only_layers\": \\[/\"mlp_only_layers\": [0, /' config.json", "model show",
         "missing tensor 'model.layers.0.mlp.down_proj.weight'", "expected shape [64, 96]");
}
END_TEST
START_TEST(misshaped_tensor) {
  expect("qwen3_next", "sed -i 's/\"linear_num_value_heads\": 2/\"linear_num_value_heads\": 4/' config.json", "model show",
         "model.safetensors", "'model.layers.0.linear_attn.in_proj_qkvz.weight': expected shape [1280, 64], found [768, 64]");
}
END_TEST
START_TEST(bad_dtype) {
  expect("nemotron_h", "perl -pi -e 's/\"dtype\":\"F32\"/\"dtype\":\"I32\"/g if $. == 1' model.safetensors", "model show",
         "model.safetensors", "dtype I32 is not one we read");
}
END_TEST
START_TEST(truncated_weights) {
  expect("nemotron_h", "head -c 100000 model.safetensors > x && mv x model.safetensors", "model show", "model.safetensors",
         "truncated safetensors file");
}
END_TEST
START_TEST(malformed_config) {
  expect("nemotron_h", "head -c 200 config.json > x && mv x config.json", "model show", "config.json", "malformed JSON");
}
END_TEST
START_TEST(malformed_tokenizer) {
  expect("nemotron_h", "head -c 300 tokenizer.json > x && mv x tokenizer.json", "run --prompt hi", "tokenizer.json",
         "malformed JSON");
}
END_TEST

Suite *model_bad_suite(void) {
  Suite *s = suite_create("model_bad");
  TCase *tc = tcase_create("errors");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, pattern_length);
  tcase_add_test(tc, unknown_arch);
  tcase_add_test(tc, unknown_kind);
  tcase_add_test(tc, missing_tensor);
  tcase_add_test(tc, misshaped_tensor);
  tcase_add_test(tc, bad_dtype);
  tcase_add_test(tc, truncated_weights);
  tcase_add_test(tc, malformed_config);
  tcase_add_test(tc, malformed_tokenizer);
  suite_add_tcase(s, tc);
  return s;
}
