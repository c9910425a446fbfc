/* runtime stage: the BPE tokenizer against HF tokenizers on a fixed
 * multilingual text (tests/fixtures/tokenizer: tokenizer.json trained by HF
 * tokenizers, and the ids and decoded text it gave). */
#include <check.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "tok_bpe.h"

START_TEST(matches_hf_tokenizers) {
  char p[512], e[512];
  snprintf(p, sizeof p, "%s/tests/fixtures/tokenizer/tokenizer.json", SSMC_SOURCE_DIR);
  snprintf(e, sizeof e, "%s/tests/fixtures/tokenizer/expected.json", SSMC_SOURCE_DIR);
  tok_bpe *t;
  rt_diag d = {0};
  ck_assert_msg(tok_load(p, &t, &d) == 0, "%s", d.msg);
  json_t *ex = json_load_file(e, 0, NULL);
  ck_assert_ptr_nonnull(ex);
  const char *text = json_string_value(json_object_get(ex, "text"));
  json_t *ids = json_object_get(ex, "ids");
  int n = (int)json_array_size(ids), got[4096];
  int m = tok_encode(t, text, got, 4096);
  ck_assert_int_eq(m, n);
  for (int i = 0; i < n; i++) ck_assert_int_eq(got[i], (int)json_integer_value(json_array_get(ids, (size_t)i)));
  char *dec = calloc(1, 65536);
  int o = 0;
  for (int i = 0; i < m; i++) o += tok_decode_one(t, got[i], dec + o, 65536 - o);
  ck_assert_str_eq(dec, json_string_value(json_object_get(ex, "decoded")));
  free(dec);
  json_decref(ex);
  tok_free(t);
}
END_TEST

Suite *tok_suite(void) {
  Suite *s = suite_create("tok");
  TCase *tc = tcase_create("hf");
  tcase_add_test(tc, matches_hf_tokenizers);
  suite_add_tcase(s, tc);
  return s;
}
