/* dsl stage: tests for the YAML loader — node positions (block, flow, quoted,
 * block scalars), explicit tags, and every rejected input with its position. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "yml.h"

static srcfile *F;
static arena A;
static diag D;

static void setup(void) {
  F = NULL;
  memset(&A, 0, sizeof A);
  memset(&D, 0, sizeof D);
}

static void teardown(void) {
  src_free(F);
  arena_free(&A);
}

static yml_node *parse(const char *text) {
  src_free(F);
  F = src_from_string("t.yaml", text);
  memset(&D, 0, sizeof D);
  return yml_parse(F, &A, &D);
}

/* Parses text that must load. */
static yml_node *ok(const char *text) {
  yml_node *r = parse(text);
  ck_assert_msg(r != NULL, "unexpected error: %s", D.msg);
  ck_assert_int_eq(D.set, 0);
  return r;
}

/* Parses text that must fail at line:col with msg containing `has`. */
static void fails(const char *text, int line, int col, const char *has) {
  ck_assert_ptr_null(parse(text));
  ck_assert_int_eq(D.set, 1);
  ck_assert_msg(strstr(D.msg, has) != NULL, "message '%s' lacks '%s'", D.msg, has);
  ck_assert_int_eq(D.line, line);
  ck_assert_int_eq(D.col, col);
}

#define ck_pos(n, l, c) do { ck_assert_int_eq((n)->line, l); ck_assert_int_eq((n)->col, c); } while (0)
#define ck_vpos(n, l, c) do { ck_assert_int_eq((n)->vline, l); ck_assert_int_eq((n)->vcol, c); } while (0)

/* ---- positions ---------------------------------------------------------- */

START_TEST(block_map_positions) {
  yml_node *r = ok("a:\n"
                   "  b: 1\n"
                   "  cc:\n"
                   "    d: x y\n"
                   "e: 2\n");
  ck_assert_int_eq(r->kind, YML_MAP);
  ck_pos(r, 1, 1);
  ck_assert_int_eq(r->n, 2);
  ck_pos(r->keys[0], 1, 1);
  ck_assert_str_eq(r->keys[0]->value, "a");
  yml_node *a = yml_get(r, "a");
  ck_assert_int_eq(a->kind, YML_MAP);
  ck_pos(a, 2, 3);
  ck_pos(a->keys[0], 2, 3);
  ck_pos(yml_get(a, "b"), 2, 6);
  ck_vpos(yml_get(a, "b"), 2, 6);
  ck_pos(a->keys[1], 3, 3);
  yml_node *d = yml_get(yml_get(a, "cc"), "d");
  ck_assert_str_eq(d->value, "x y");
  ck_assert_int_eq(d->style, 0);
  ck_pos(d, 4, 8);
  ck_pos(r->keys[1], 5, 1);
  ck_pos(yml_get(r, "e"), 5, 4);
  ck_assert_ptr_null(r->keys[1]->tag);
}
END_TEST

START_TEST(flow_positions) {
  yml_node *r = ok("x: 1\n"
                   "d: {e: 1, f: [1, 22]}\n"
                   "xs: [a, 'b c', \"d\"]\n");
  yml_node *d = yml_get(r, "d");
  ck_assert_int_eq(d->kind, YML_MAP);
  ck_pos(d, 2, 4);
  ck_pos(d->keys[0], 2, 5);
  ck_pos(d->vals[0], 2, 8);
  ck_pos(d->keys[1], 2, 11);
  yml_node *f = yml_get(d, "f");
  ck_assert_int_eq(f->kind, YML_SEQ);
  ck_assert_int_eq(f->n, 2);
  ck_pos(f, 2, 14);
  ck_pos(f->items[0], 2, 15);
  ck_pos(f->items[1], 2, 18);
  ck_assert_str_eq(f->items[1]->value, "22");

  yml_node *xs = yml_get(r, "xs");
  ck_assert_int_eq(xs->n, 3);
  ck_pos(xs->items[0], 3, 6);
  ck_vpos(xs->items[0], 3, 6);
  ck_assert_int_eq(xs->items[1]->style, 1);
  ck_assert_str_eq(xs->items[1]->value, "b c");
  ck_pos(xs->items[1], 3, 9);
  ck_vpos(xs->items[1], 3, 10);
  ck_assert_int_eq(xs->items[2]->style, 2);
  ck_pos(xs->items[2], 3, 16);
  ck_vpos(xs->items[2], 3, 17);
}
END_TEST

START_TEST(block_seq_positions) {
  yml_node *r = ok("items:\n"
                   "  - one\n"
                   "  - {k: v}\n"
                   "top:\n"
                   "- z\n");
  yml_node *it = yml_get(r, "items");
  ck_assert_int_eq(it->kind, YML_SEQ);
  ck_pos(it, 2, 3);
  ck_pos(it->items[0], 2, 5);
  ck_pos(it->items[1], 3, 5);
  ck_pos(yml_get(it->items[1], "k"), 3, 9);
  yml_node *top = yml_get(r, "top");
  ck_pos(top, 5, 1);
  ck_pos(top->items[0], 5, 3);
}
END_TEST

START_TEST(quoted_positions) {
  yml_node *r = ok("s: 'it''s'\n"
                   "d: \"a\\tb\"\n"
                   "\"q k\": 1\n");
  yml_node *s = yml_get(r, "s");
  ck_assert_str_eq(s->value, "it's");
  ck_assert_int_eq(s->style, 1);
  ck_pos(s, 1, 4);
  ck_vpos(s, 1, 5);
  yml_node *d = yml_get(r, "d");
  ck_assert_str_eq(d->value, "a\tb");
  ck_assert_int_eq(d->style, 2);
  ck_vpos(d, 2, 5);
  ck_pos(r->keys[2], 3, 1);
  ck_vpos(r->keys[2], 3, 2);
  ck_assert_str_eq(r->keys[2]->value, "q k");
}
END_TEST

START_TEST(block_scalar_positions) {
  yml_node *r = ok("g: |\n"
                   "  lit\n"
                   "  two\n"
                   "h: >\n"
                   "    folded\n"
                   "    text\n"
                   "i: |2\n"
                   "    indented\n"
                   "j: |\n"
                   "\n"
                   "  after blank\n"
                   "k: 1\n");
  yml_node *g = yml_get(r, "g");
  ck_assert_int_eq(g->style, 3);
  ck_assert_str_eq(g->value, "lit\ntwo\n");
  ck_pos(g, 1, 4);
  ck_vpos(g, 2, 3);
  yml_node *h = yml_get(r, "h");
  ck_assert_int_eq(h->style, 4);
  ck_assert_str_eq(h->value, "folded text\n");
  ck_vpos(h, 5, 5);
  yml_node *i = yml_get(r, "i");
  ck_assert_str_eq(i->value, "  indented\n");
  ck_vpos(i, 8, 3);   /* explicit indent 2: the value starts with two spaces */
  yml_node *j = yml_get(r, "j");
  ck_assert_str_eq(j->value, "\nafter blank\n");
  ck_vpos(j, 11, 3);
  ck_pos(yml_get(r, "k"), 12, 4);
}
END_TEST

START_TEST(empty_value_position) {
  yml_node *r = ok("a:\nb: 1\n");
  yml_node *a = yml_get(r, "a");
  ck_assert_int_eq(a->kind, YML_SCALAR);
  ck_assert_str_eq(a->value, "");
  ck_assert_int_eq(a->style, 0);
  ck_pos(a, 1, 3);     /* right after the ':' of its key */
  ck_vpos(a, 1, 3);
}
END_TEST

START_TEST(columns_count_characters) {
  yml_node *r = ok("\xc3\xa9t\xc3\xa9: \"\xc3\xbc\"\nx: 1\r\ny: \"z\"\r\n");
  yml_node *v = yml_get(r, "\xc3\xa9t\xc3\xa9");
  ck_pos(v, 1, 6);
  ck_vpos(v, 1, 7);
  ck_pos(yml_get(r, "y"), 3, 4);   /* CRLF line ends */
  ck_vpos(yml_get(r, "y"), 3, 5);
}
END_TEST

/* ---- tags --------------------------------------------------------------- */

START_TEST(tags) {
  yml_node *r = ok("scale: !lua \"K^-0.5\"\n"
                   "plain: K\n"
                   "f: !!float 1\n"
                   "l: !lua [1, 2]\n"
                   "b: !lua |\n"
                   "  return 1\n");
  yml_node *s = yml_get(r, "scale");
  ck_assert_str_eq(s->tag, "!lua");
  ck_assert_str_eq(s->value, "K^-0.5");
  ck_assert_int_eq(s->style, 2);
  ck_pos(s, 1, 8);        /* the tag */
  ck_vpos(s, 1, 14);      /* after the quote */
  ck_assert_ptr_null(yml_get(r, "plain")->tag);
  ck_assert_str_eq(yml_get(r, "f")->tag, "!!float");
  yml_node *l = yml_get(r, "l");
  ck_assert_int_eq(l->kind, YML_SEQ);
  ck_assert_str_eq(l->tag, "!lua");
  ck_assert_ptr_null(l->items[0]->tag);
  yml_node *b = yml_get(r, "b");
  ck_assert_str_eq(b->tag, "!lua");
  ck_assert_str_eq(b->value, "return 1\n");
  ck_vpos(b, 6, 3);
}
END_TEST

/* ---- lookups ------------------------------------------------------------ */

START_TEST(get_and_kind_names) {
  yml_node *r = ok("a: [1]\nb: x\n");
  ck_assert_ptr_nonnull(yml_get(r, "a"));
  ck_assert_ptr_null(yml_get(r, "c"));
  ck_assert_ptr_null(yml_get(yml_get(r, "b"), "x"));
  ck_assert_ptr_null(yml_get(yml_get(r, "a"), "1"));
  ck_assert_ptr_null(yml_get(NULL, "a"));
  ck_assert_str_eq(yml_kind_name(YML_SCALAR), "a scalar");
  ck_assert_str_eq(yml_kind_name(YML_SEQ), "a list");
  ck_assert_str_eq(yml_kind_name(YML_MAP), "a mapping");
}
END_TEST

/* ---- errors ------------------------------------------------------------- */

START_TEST(duplicate_keys) {
  fails("a: 1\nb:\n  c: 1\n  d: 2\n  c: 3\n", 5, 3, "duplicate key 'c'");
  ck_assert(strstr(D.note, "first defined at line 3") != NULL);
  fails("x: 1\ny: {p: 1, \"p\": 2}\n", 2, 11, "duplicate key 'p'");
  ck_assert(strstr(D.note, "first defined at line 2, column 5") != NULL);
  char buf[512];
  fails("k: 1\nk: 2\n", 2, 1, "duplicate key");
  diag_format(&D, buf, sizeof buf);
  ck_assert_str_eq(buf, "t.yaml:2:1: error: duplicate key 'k'\n  k: 2\n  ^\n"
                        "note: first defined at line 1, column 1\n");
}
END_TEST

typedef struct { const char *text; int line, col; const char *has, *note; } bad_case;

START_TEST(malformed) {
  static const bad_case cases[] = {
    {"a: 1\nb\nc: 2\n", 3, 1, "could not find expected ':'", "simple key starting at line 2"},
    {"a:\n  b: 1\n c: 2\n", 3, 2, "did not find expected key", "block mapping"},
    {"a: 1\n  b: 2\n", 2, 4, "mapping values are not allowed", NULL},
    {"a:\n\tb: 1\n", 2, 1, "tab", NULL},
    {"a: \"abc\n", 2, 1, "never closed", "quoted scalar starting at line 1, column 4"},
    {"a: 'abc\nb: 1\n", 3, 1, "end of stream", "line 1, column 4"},
    {"a: [1, 2\nb: 3\n", 2, 2, "did not find expected ',' or ']'",
     "flow sequence starting at line 1, column 4"},
    {"a: {x: 1\n", 2, 1, "did not find expected ',' or '}'", "flow mapping"},
    {"a: \xff\n", 1, 4, "UTF-8", NULL},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const bad_case *k = &cases[i];
    ck_assert_ptr_null(parse(k->text));
    ck_assert_msg(D.set, "case %zu accepted", i);
    ck_assert_msg(strncmp(D.msg, "YAML syntax: ", 13) == 0, "case %zu: %s", i, D.msg);
    ck_assert_msg(strstr(D.msg, k->has), "case %zu: '%s' lacks '%s'", i, D.msg, k->has);
    ck_assert_msg(D.line == k->line && D.col == k->col, "case %zu at %d:%d, want %d:%d", i,
                  D.line, D.col, k->line, k->col);
    if (k->note)
      ck_assert_msg(strstr(D.note, k->note), "case %zu note '%s' lacks '%s'", i, D.note, k->note);
  }
}
END_TEST

START_TEST(caret_under_column) {
  char buf[512];
  fails("a: 1\n  b: 2\n", 2, 4, "mapping values");
  diag_format(&D, buf, sizeof buf);
  ck_assert_str_eq(buf, "t.yaml:2:4: error: YAML syntax: mapping values are not allowed "
                        "in this context\n    b: 2\n     ^\n");
  fails("family: mamba\ndims: [1, 2\nx: 1\n", 3, 2, "expected ',' or ']'");
  diag_format(&D, buf, sizeof buf);
  ck_assert(strstr(buf, "\n  x: 1\n   ^\nnote: while parsing a flow sequence starting at "
                        "line 2, column 7\n") != NULL);
}
END_TEST

START_TEST(empty_file) {
  fails("", 0, 0, "empty spec");
  ck_assert_str_eq(D.file, "t.yaml");
  fails("# only a comment\n\n", 0, 0, "empty spec");
  fails("---\n", 0, 0, "empty spec");
  char buf[256];
  diag_format(&D, buf, sizeof buf);
  ck_assert_str_eq(buf, "t.yaml: error: empty spec\n");
}
END_TEST

START_TEST(two_documents) {
  fails("a: 1\n---\nb: 2\n", 2, 1, "more than one document");
  fails("---\na: 1\n...\n---\nb: 2\n", 4, 1, "more than one document");
  fails("a: 1\n---\n", 2, 1, "more than one document");
  ck_assert_ptr_nonnull(ok("---\na: 1\n...\n"));
}
END_TEST

START_TEST(anchors_and_aliases) {
  fails("a: &x 1\nb: *x\n", 1, 4, "anchors and aliases are not supported in specs");
  ck_assert(strstr(D.note, "&x") != NULL);
  fails("a: 1\nb: *nope\n", 2, 4, "anchors and aliases are not supported in specs");
  ck_assert(strstr(D.note, "*nope") != NULL);
  fails("base: &b {x: 1}\n", 1, 7, "anchors and aliases");
  /* a syntax error earlier in the file still wins */
  fails("a:\n  b: 1\n c: 2\nd: &x 1\n", 3, 2, "YAML syntax");
}
END_TEST

START_TEST(top_level_not_mapping) {
  fails("- 1\n- 2\n", 1, 1, "a spec must be a mapping at the top level");
  ck_assert(strstr(D.msg, "a list") != NULL);
  fails("\n  hello\n", 2, 3, "a spec must be a mapping at the top level");
  ck_assert(strstr(D.msg, "a scalar") != NULL);
}
END_TEST

START_TEST(non_scalar_key) {
  fails("[a, b]: 1\n", 1, 1, "a mapping key must be a scalar, not a list");
  fails("x:\n  ? {k: v}\n  : 1\n", 2, 5, "a mapping key must be a scalar, not a mapping");
}
END_TEST

START_TEST(too_deep) {
  char text[1024] = "a: ";
  for (int i = 0; i < 300; i++) strcat(text, "[");
  for (int i = 0; i < 300; i++) strcat(text, "]");
  strcat(text, "\n");
  ck_assert_ptr_null(parse(text));
  ck_assert(strstr(D.msg, "too deep") != NULL);
  ck_assert_int_eq(D.line, 1);
}
END_TEST

Suite *yml_suite(void) {
  Suite *s = suite_create("yml");
  TCase *pos = tcase_create("positions");
  tcase_add_checked_fixture(pos, setup, teardown);
  tcase_add_test(pos, block_map_positions);
  tcase_add_test(pos, flow_positions);
  tcase_add_test(pos, block_seq_positions);
  tcase_add_test(pos, quoted_positions);
  tcase_add_test(pos, block_scalar_positions);
  tcase_add_test(pos, empty_value_position);
  tcase_add_test(pos, columns_count_characters);
  tcase_add_test(pos, tags);
  tcase_add_test(pos, get_and_kind_names);
  suite_add_tcase(s, pos);
  TCase *err = tcase_create("errors");
  tcase_add_checked_fixture(err, setup, teardown);
  tcase_add_test(err, duplicate_keys);
  tcase_add_test(err, malformed);
  tcase_add_test(err, caret_under_column);
  tcase_add_test(err, empty_file);
  tcase_add_test(err, two_documents);
  tcase_add_test(err, anchors_and_aliases);
  tcase_add_test(err, top_level_not_mapping);
  tcase_add_test(err, non_scalar_key);
  tcase_add_test(err, too_deep);
  suite_add_tcase(s, err);
  return s;
}
