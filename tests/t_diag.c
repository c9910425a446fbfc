/* tests: the diagnostic type renders file:line:col, the line and a caret. */
#include <check.h>
#include <string.h>
#include "diag.h"

START_TEST(renders_caret) {
  srcfile *f = src_from_string("x.yaml", "a: 1\nfamily: [oops\n");
  diag d = {0};
  diag_at(&d, f, 2, 9, "expected ']'");
  diag_note(&d, "a note");
  char buf[512];
  diag_format(&d, buf, sizeof buf);
  ck_assert_str_eq(buf, "x.yaml:2:9: error: expected ']'\n  family: [oops\n          ^\nnote: a note\n");
  src_free(f);
}
END_TEST

START_TEST(first_error_wins) {
  diag d = {0};
  diag_at(&d, NULL, 1, 1, "first");
  diag_at(&d, NULL, 2, 2, "second");
  ck_assert_str_eq(d.msg, "first");
}
END_TEST

START_TEST(nearest_key) {
  const char *keys[] = {"family", "dims", "inputs", "state", "readout", "chunk", "tiles"};
  ck_assert_str_eq(diag_nearest("readuot", keys, 7), "readout");
  ck_assert_str_eq(diag_nearest("stat", keys, 7), "state");
  ck_assert_ptr_null(diag_nearest("banana", keys, 7));
}
END_TEST

START_TEST(missing_file) {
  diag d = {0};
  ck_assert_ptr_null(src_read("/nonexistent/spec.yaml", &d));
  ck_assert(d.set);
  ck_assert(strstr(d.msg, "cannot open") != NULL);
}
END_TEST

Suite *diag_suite(void) {
  Suite *s = suite_create("diag");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, renders_caret);
  tcase_add_test(tc, first_error_wins);
  tcase_add_test(tc, nearest_key);
  tcase_add_test(tc, missing_file);
  suite_add_tcase(s, tc);
  return s;
}
