/* dsl stage: tests for spec loading — the six built-in families, dims,
 * inputs, states, readouts, constants (plain and !lua), tiles, the hash, and
 * every rejected input with the exact position of the offending token. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sbx.h"
#include "spec.h"

static sbx *LUA;
static arena A;
static diag D;
static srcfile *F;

static void setup(void) {
  LUA = sbx_new(64u << 20, 50000000L);
  ck_assert_ptr_nonnull(LUA);
  memset(&A, 0, sizeof A);
  memset(&D, 0, sizeof D);
  F = NULL;
}

static void teardown(void) {
  src_free(F);
  F = NULL;
  arena_free(&A);
  sbx_free(LUA);
  LUA = NULL;
}

static layer_spec *load(const char *text) {
  src_free(F);
  F = src_from_string("t.yaml", text);
  memset(&D, 0, sizeof D);
  return spec_load(F, &A, LUA, &D);
}

static layer_spec *ok(const char *text) {
  layer_spec *s = load(text);
  ck_assert_msg(s != NULL, "unexpected error %d:%d: %s", D.line, D.col, D.msg);
  ck_assert_int_eq(D.set, 0);
  return s;
}

static layer_spec *load_file(const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/dsl/families/%s", SSMC_SOURCE_DIR, name);
  src_free(F);
  memset(&D, 0, sizeof D);
  F = src_read(path, &D);
  ck_assert_msg(F != NULL, "cannot read %s: %s", path, D.msg);
  layer_spec *s = spec_load(F, &A, LUA, &D);
  ck_assert_msg(s != NULL, "%s:%d:%d: %s", name, D.line, D.col, D.msg);
  return s;
}

/* 1-based line and column of the first character of `needle` in text; the
 * needle must occur exactly once. */
static void locate(const char *text, const char *needle, int *line, int *col) {
  const char *p = strstr(text, needle);
  ck_assert_msg(p != NULL, "test bug: '%s' not in the spec", needle);
  ck_assert_msg(strstr(p + 1, needle) == NULL, "test bug: '%s' occurs twice", needle);
  int l = 1, c = 1;
  for (const char *q = text; q < p; q++) {
    if (*q == '\n') { l++; c = 1; }
    else c++;
  }
  *line = l;
  *col = c;
}

/* Must fail at line:col with msg containing `has`. */
static void fails_lc(const char *text, int line, int col, const char *has) {
  ck_assert_ptr_null(load(text));
  ck_assert_int_eq(D.set, 1);
  ck_assert_msg(strstr(D.msg, has) != NULL, "message '%s' lacks '%s'", D.msg, has);
  ck_assert_msg(D.line == line && D.col == col, "'%s' reported at %d:%d, expected %d:%d", D.msg, D.line, D.col,
                line, col);
  ck_assert_str_eq(D.file, "t.yaml");
}

/* Must fail at the first character of `at` (plus off columns), msg containing `has`. */
static void fails_at_off(const char *text, const char *at, int off, const char *has) {
  int line, col;
  locate(text, at, &line, &col);
  fails_lc(text, line, col + off, has);
}
#define fails_at(text, at, has) fails_at_off(text, at, 0, has)

static void note_has(const char *has) {
  ck_assert_msg(strstr(D.note, has) != NULL, "note '%s' lacks '%s'", D.note, has);
}

#define HEAD "family: t\ndims: {K: 128, V: 128}\n"
#define INPUTS "inputs:\n  q: [K]\n  k: [K]\n  v: [V]\n  g: scalar_log_decay\n  beta: unit\n"
#define STATE(u) "state:\n  S: {shape: [V, K], update: \"" u "\"}\n"
#define Y(e) "readout:\n  y: \"" e "\"\n"
#define GOOD_STATE STATE("exp(g) * S + v k'")
#define GOOD HEAD INPUTS GOOD_STATE Y("scale * S q")

static int find_in(const layer_spec *s, const char *name) {
  for (int i = 0; i < s->n_in; i++)
    if (!strcmp(s->in[i].name, name)) return i;
  return -1;
}

/* ---- positive ----------------------------------------------------------- */

typedef struct { const char *file, *family; int n_in, n_st, n_rd, chunk, n_tiles; } fam_expect;

static const fam_expect FAMS[] = {
    {"deltanet.yaml", "deltanet", 4, 1, 1, 64, 1},
    {"gated_deltanet.yaml", "gated_deltanet", 5, 1, 1, 64, 9},
    {"gated_kalmanet.yaml", "gated_kalmanet", 6, 2, 2, 64, 6},
    {"gla.yaml", "gla", 4, 1, 1, 64, 1},
    {"kda.yaml", "kda", 5, 1, 1, 64, 1},
    {"mamba2.yaml", "mamba2", 4, 1, 1, 64, 9},
};

START_TEST(builtin_family_loads) {
  const fam_expect *e = &FAMS[_i];
  layer_spec *s = load_file(e->file);
  ck_assert_str_eq(s->family, e->family);
  ck_assert_int_eq(s->K, 128);
  ck_assert_int_eq(s->V, 128);
  ck_assert_int_eq(s->n_in, e->n_in);
  ck_assert_int_eq(s->n_st, e->n_st);
  ck_assert_int_eq(s->n_rd, e->n_rd);
  ck_assert_int_eq(s->chunk, e->chunk);
  ck_assert_int_eq(s->n_tiles, e->n_tiles);
  ck_assert_int_eq(s->bk, 64);
  ck_assert_int_eq(s->bv, 64);
  ck_assert_int_eq(s->dtypes, 3);
  ck_assert_int_eq(s->out_rd, s->n_rd - 1);
  ck_assert_str_eq(s->rd[s->out_rd].name, "y");
  ck_assert_int_eq(s->rd[s->out_rd].kind, RD_EXPR);
  ck_assert_int_eq(s->rd[s->out_rd].rows, DIM_V);
  ck_assert_int_eq(strlen(s->hash), 16);
  double sc;
  ck_assert(spec_const_value(s, "scale", &sc));
  ck_assert_double_eq_tol(sc, 1.0 / sqrt(128.0), 1e-15);
  /* every state update was shape-checked to its state's shape */
  for (int i = 0; i < s->n_st; i++) {
    ck_assert_ptr_nonnull(s->st[i].update);
    ck_assert_int_eq(s->st[i].update->rows, s->st[i].rows);
    ck_assert_int_eq(s->st[i].update->cols, s->st[i].cols);
    ck_assert_int_eq(s->st[i].cols, DIM_K);
  }
  /* q, k are [K] and v is [V] in every family */
  int q = find_in(s, "q"), k = find_in(s, "k"), v = find_in(s, "v");
  ck_assert(q >= 0 && k >= 0 && v >= 0);
  ck_assert_int_eq(s->in[q].dim, DIM_K);
  ck_assert_int_eq(s->in[k].dim, DIM_K);
  ck_assert_int_eq(s->in[v].dim, DIM_V);
  ck_assert_int_eq(s->in[v].domain, DOM_NORMAL);
}
END_TEST

START_TEST(mamba2_details) {
  layer_spec *s = load_file("mamba2.yaml");
  ck_assert_str_eq(s->in[0].name, "q");
  ck_assert_int_eq(s->in[0].line, 7);
  ck_assert_int_eq(s->in[0].col, 3);
  ck_assert_str_eq(s->in[3].name, "g");
  ck_assert_int_eq(s->in[3].dim, DIM_1);
  ck_assert_int_eq(s->in[3].domain, DOM_LOG_DECAY);
  ck_assert_str_eq(s->st[0].name, "S");
  ck_assert_int_eq(s->st[0].rows, DIM_V);
  ck_assert_int_eq(s->st[0].cols, DIM_K);
  ck_assert_int_eq(s->st[0].symmetric, 0);
  ck_assert_int_eq(s->st[0].line, 12);
  ck_assert_int_eq(s->st[0].col, 3);
  /* the update expression starts right after the opening quote */
  ck_assert_int_eq(s->st[0].update->line, 12);
  ck_assert_int_eq(s->st[0].update->col, 43);
  /* tiles in search order: bk outer, bv inner */
  ck_assert_int_eq(s->tile_bk[0], 32);
  ck_assert_int_eq(s->tile_bv[0], 32);
  ck_assert_int_eq(s->tile_bk[1], 32);
  ck_assert_int_eq(s->tile_bv[1], 64);
  ck_assert_int_eq(s->tile_bk[8], 128);
  ck_assert_int_eq(s->tile_bv[8], 128);
}
END_TEST

START_TEST(domains_of_builtins) {
  layer_spec *s = load_file("gated_deltanet.yaml");
  ck_assert_int_eq(s->in[find_in(s, "q")].domain, DOM_UNIT_SPHERE);
  ck_assert_int_eq(s->in[find_in(s, "k")].domain, DOM_UNIT_SPHERE);
  ck_assert_int_eq(s->in[find_in(s, "g")].domain, DOM_LOG_DECAY);
  ck_assert_int_eq(s->in[find_in(s, "g")].dim, DIM_1);
  ck_assert_int_eq(s->in[find_in(s, "beta")].domain, DOM_UNIT);
  ck_assert_int_eq(s->in[find_in(s, "beta")].dim, DIM_1);
  s = load_file("gla.yaml");
  ck_assert_int_eq(s->in[find_in(s, "gk")].domain, DOM_LOG_DECAY);
  ck_assert_int_eq(s->in[find_in(s, "gk")].dim, DIM_K);
  ck_assert_int_eq(s->in[find_in(s, "q")].domain, DOM_NORMAL);
}
END_TEST

START_TEST(kalmanet_solve_readout) {
  layer_spec *s = load_file("gated_kalmanet.yaml");
  ck_assert_str_eq(s->st[0].name, "H");
  ck_assert_int_eq(s->st[0].rows, DIM_K);
  ck_assert_int_eq(s->st[0].symmetric, 1);
  ck_assert_str_eq(s->st[1].name, "U");
  ck_assert_int_eq(s->st[1].rows, DIM_V);
  ck_assert_int_eq(s->st[1].symmetric, 0);
  const spec_readout *x = &s->rd[0];
  ck_assert_str_eq(x->name, "x");
  ck_assert_int_eq(x->kind, RD_SOLVE);
  ck_assert_int_eq(x->method, SOLVE_CHEBYSHEV);
  ck_assert_int_eq(x->iters, 30);
  ck_assert_int_eq(x->rows, DIM_K);
  ck_assert_ptr_nonnull(x->lambda);
  ck_assert_ptr_nonnull(x->matrix);
  ck_assert_ptr_nonnull(x->rhs);
  ck_assert_int_eq(x->matrix->rows, DIM_K);
  ck_assert_int_eq(x->matrix->cols, DIM_K);
  ck_assert_int_eq(x->rhs->op, EX_SYM);
  ck_assert_str_eq(x->rhs->name, "q");
  /* lambda was substituted into the matrix */
  char buf[256];
  ex_print(x->matrix, buf, sizeof buf);
  ck_assert_msg(strstr(buf, "fro(H)") != NULL && strstr(buf, "lambda") == NULL, "matrix: %s", buf);
  ck_assert_int_eq(s->tile_bk[s->n_tiles - 1], 64);
  ck_assert_int_eq(s->tile_bv[s->n_tiles - 1], 128);
}
END_TEST

START_TEST(default_scale) {
  layer_spec *s = ok(GOOD);
  double sc = 0;
  ck_assert(spec_const_value(s, "scale", &sc));
  ck_assert_double_eq_tol(sc, 1.0 / sqrt(128.0), 1e-15);
  s = ok("family: t\ndims: {K: 64, V: 32}\n" INPUTS GOOD_STATE Y("scale * S q"));
  ck_assert(spec_const_value(s, "scale", &sc));
  ck_assert_double_eq_tol(sc, 0.125, 1e-15);
  ck_assert_int_eq(s->K, 64);
  ck_assert_int_eq(s->V, 32);
  /* no tiles given and dims below 64: the tile shrinks to the dims */
  ck_assert_int_eq(s->n_tiles, 1);
  ck_assert_int_eq(s->bk, 64);
  ck_assert_int_eq(s->bv, 32);
  /* a user scale replaces the default */
  s = ok(GOOD "constants: {scale: 0.5}\n");
  ck_assert(spec_const_value(s, "scale", &sc));
  ck_assert_double_eq(sc, 0.5);
  int n = 0;
  for (int i = 0; i < s->n_const; i++) n += !strcmp(s->cst[i].name, "scale");
  ck_assert_int_eq(n, 1);
}
END_TEST

START_TEST(lua_constants) {
  layer_spec *s = ok(GOOD "chunk: 32\n"
                          "constants:\n"
                          "  scale: !lua \"K^-0.5 * 2\"\n"
                          "  half: !lua \"K // 2\"\n"
                          "  next: !lua \"half + chunk + V / 4\"\n"
                          "  blk: !lua |\n"
                          "    local t = 0\n"
                          "    for i = 1, 4 do t = t + i end\n"
                          "    return t\n"
                          "  plain: -2.5e-1\n");
  double v;
  ck_assert(spec_const_value(s, "scale", &v));
  ck_assert_double_eq_tol(v, 2.0 / sqrt(128.0), 1e-15);
  ck_assert(spec_const_value(s, "half", &v));
  ck_assert_double_eq(v, 64);
  ck_assert(spec_const_value(s, "next", &v));
  ck_assert_double_eq(v, 64 + 32 + 32);
  ck_assert(spec_const_value(s, "blk", &v));
  ck_assert_double_eq(v, 10);
  ck_assert(spec_const_value(s, "plain", &v));
  ck_assert_double_eq(v, -0.25);
  ck_assert(!spec_const_value(s, "nothere", &v));
  ck_assert_int_eq(s->chunk, 32);
  /* constants are usable in expressions */
  s = ok(HEAD INPUTS "constants: {c: !lua \"0.5 + 0.25\"}\n" STATE("exp(g) * S + c * v k'") Y("scale * S q"));
  ck_assert(spec_const_value(s, "c", &v));
  ck_assert_double_eq(v, 0.75);
}
END_TEST

START_TEST(tiles_valid_filter_and_default) {
  layer_spec *s = ok(GOOD "tiles:\n"
                          "  bk: [32, 64, 128]\n"
                          "  bv: [32, 64, 128]\n"
                          "  valid: !lua \"bk * bv <= 4096 and bk >= 32\"\n"
                          "  default: {bk: 64, bv: 64}\n");
  static const int want[][2] = {{32, 32}, {32, 64}, {32, 128}, {64, 32}, {64, 64}, {128, 32}};
  ck_assert_int_eq(s->n_tiles, 6);
  for (int i = 0; i < 6; i++) {
    ck_assert_int_eq(s->tile_bk[i], want[i][0]);
    ck_assert_int_eq(s->tile_bv[i], want[i][1]);
  }
  ck_assert_int_eq(s->bk, 64);
  ck_assert_int_eq(s->bv, 64);
  /* without a default the first valid tile is chosen */
  s = ok(GOOD "tiles: {bk: [128, 64], bv: [64, 32], valid: !lua \"bk ~= bv\"}\n");
  ck_assert_int_eq(s->n_tiles, 3);
  ck_assert_int_eq(s->bk, 128);
  ck_assert_int_eq(s->bv, 64);
  /* tiles must divide the dims */
  s = ok("family: t\ndims: {K: 96, V: 64}\n" INPUTS GOOD_STATE Y("scale * S q")
         "tiles: {bk: [32, 64], bv: [32, 48, 64]}\n");
  ck_assert_int_eq(s->n_tiles, 2);
  ck_assert_int_eq(s->tile_bk[0], 32);
  ck_assert_int_eq(s->tile_bv[0], 32);
  ck_assert_int_eq(s->tile_bk[1], 32);
  ck_assert_int_eq(s->tile_bv[1], 64);
  /* tiles.valid sees the constants */
  s = ok(GOOD "constants: {maxb: 32}\ntiles: {bk: [32, 64], bv: [32, 64], valid: !lua \"bv <= maxb\"}\n");
  ck_assert_int_eq(s->n_tiles, 2);
  ck_assert_int_eq(s->tile_bv[0], 32);
  ck_assert_int_eq(s->tile_bv[1], 32);
}
END_TEST

static int is_hex16(const char *h) {
  if (strlen(h) != 16) return 0;
  for (int i = 0; i < 16; i++)
    if (!((h[i] >= '0' && h[i] <= '9') || (h[i] >= 'a' && h[i] <= 'f'))) return 0;
  return 1;
}

START_TEST(hash_stable_and_sensitive) {
  char h1[17], h2[17];
  layer_spec *s = ok(GOOD);
  ck_assert_msg(is_hex16(s->hash), "hash '%s'", s->hash);
  strcpy(h1, s->hash);
  /* a second load, in a fresh arena and file */
  arena_free(&A);
  memset(&A, 0, sizeof A);
  s = ok(GOOD);
  ck_assert_str_eq(s->hash, h1);
  /* the hash is over the math: spacing, comments, description do not count */
  s = ok("# a comment\nfamily: t\ndescription: other words\ndims: {K: 128, V: 128}\n" INPUTS
         STATE("exp( g )*S+v  k'") Y("scale*S q"));
  ck_assert_str_eq(s->hash, h1);
  /* an update change changes it */
  s = ok(HEAD INPUTS STATE("exp(g) * S + beta * v k'") Y("scale * S q"));
  ck_assert(is_hex16(s->hash));
  strcpy(h2, s->hash);
  ck_assert_str_ne(h2, h1);
  /* so do a readout, a dim, a domain and a constant */
  s = ok(HEAD INPUTS GOOD_STATE Y("2 * scale * S q"));
  ck_assert_str_ne(s->hash, h1);
  s = ok("family: t\ndims: {K: 64, V: 128}\n" INPUTS GOOD_STATE Y("scale * S q"));
  ck_assert_str_ne(s->hash, h1);
  s = ok(HEAD "inputs:\n  q: {shape: [K], domain: unit_sphere}\n  k: [K]\n  v: [V]\n  g: scalar_log_decay\n"
              "  beta: unit\n" GOOD_STATE Y("scale * S q"));
  ck_assert_str_ne(s->hash, h1);
  s = ok(GOOD "constants: {scale: 0.5}\n");
  ck_assert_str_ne(s->hash, h1);
}
END_TEST

/* The identity covers the whole spec: two readouts that differ only past
 * 1023 characters of a long expression (600 zero terms, then the constant
 * that matters) must hash differently, and the canonical text keeps it all. */
START_TEST(hash_covers_long_expressions) {
  char *y1 = malloc(8192), *y2 = malloc(8192), *doc = malloc(16384), h1[17];
  size_t n = 0;
  n += (size_t)sprintf(y1 + n, "(");
  for (int i = 0; i < 600; i++) n += (size_t)sprintf(y1 + n, "0 + ");
  strcpy(y2, y1);
  strcat(y1, "0.5) * S q");
  strcat(y2, "0.25) * S q");
  snprintf(doc, 16384, HEAD INPUTS GOOD_STATE "readout:\n  y: \"%s\"\n", y1);
  layer_spec *s = ok(doc);
  strcpy(h1, s->hash);
  ck_assert_msg(strstr(s->canon, "0.5"), "canon cut: ...%s",
                s->canon + strlen(s->canon) - 40);
  ck_assert_uint_gt(strlen(s->canon), 2400);
  snprintf(doc, 16384, HEAD INPUTS GOOD_STATE "readout:\n  y: \"%s\"\n", y2);
  s = ok(doc);
  ck_assert_str_ne(s->hash, h1);
  free(y1); free(y2); free(doc);
}
END_TEST

START_TEST(sandbox_survives_errors) {
  /* a memory bomb, then a runaway loop, then a good spec on the same sandbox */
  ck_assert_ptr_null(load(GOOD "constants: {c: !lua \"string.rep('x', 1e9)\"}\n"));
  ck_assert_ptr_null(load(GOOD "constants: {c: !lua \"(function() while true do end end)()\"}\n"));
  layer_spec *s = ok(GOOD "constants: {c: !lua \"K * 2\"}\n");
  double v;
  ck_assert(spec_const_value(s, "c", &v));
  ck_assert_double_eq(v, 256);
}
END_TEST

/* SPEC_MAX_CONST constants, none named scale: the default scale must not
 * overflow the table (it used to write past cst[] and crash). Either the
 * spec loads with every constant and the default scale, or it is refused
 * with a clean diagnostic. */
START_TEST(max_constants_plus_default_scale) {
  char text[4096];
  int n = snprintf(text, sizeof text, "%s", GOOD "tiles: {bk: [32, 64], bv: [32, 64]}\nconstants:\n");
  for (int i = 0; i < SPEC_MAX_CONST; i++) n += snprintf(text + n, sizeof text - (size_t)n, "  c%d: %d\n", i, i);
  layer_spec *s = load(text);
  if (s) {
    double v;
    ck_assert(spec_const_value(s, "scale", &v));
    ck_assert_double_eq_tol(v, 1.0 / sqrt(128.0), 1e-15);
    ck_assert(spec_const_value(s, "c15", &v));
    ck_assert_double_eq(v, 15);
    ck_assert_int_eq(s->n_tiles, 4);
    ck_assert_int_eq(s->bk, 32);
    ck_assert_int_eq(s->bv, 32);
  } else {
    ck_assert_int_eq(D.set, 1);
    ck_assert_msg(strstr(D.msg, "constant") != NULL, "message: %s", D.msg);
  }
}
END_TEST

/* ---- negative ----------------------------------------------------------- */

START_TEST(malformed_yaml) {
  fails_lc("family: t\n  dims: {K: 128}\n", 2, 7, "YAML syntax");
  ck_assert(strstr(D.msg, "mapping values are not allowed") != NULL);
  /* an unclosed flow mapping: reported at the next token */
  fails_lc("family: t\ndims: {K: 128, V: 128\ninputs:\n  q: [K]\n", 3, 7, "YAML syntax");
  note_has("flow mapping");
}
END_TEST

START_TEST(duplicate_key) {
  const char *t = GOOD "chunk: 64\nchunk: 32\n";
  fails_at(t, "chunk: 32", "duplicate key 'chunk'");
  int line, col;
  locate(t, "chunk: 64", &line, &col);
  char note[64];
  snprintf(note, sizeof note, "line %d, column 1", line);
  note_has(note);
  const char *t2 = HEAD INPUTS "state:\n  S: {shape: [V, K], shape: [K, K], update: \"S\"}\n" Y("S q");
  fails_at(t2, "shape: [K, K]", "duplicate key 'shape'");
}
END_TEST

START_TEST(unknown_top_level_key) {
  const char *t = HEAD INPUTS GOOD_STATE "readuot:\n  y: \"scale * S q\"\n";
  fails_at(t, "readuot", "unknown key 'readuot'");
  note_has("did you mean 'readout'?");
  /* nothing near: the note lists the known keys */
  fails_at(GOOD "banana: 1\n", "banana", "unknown key 'banana'");
  note_has("known keys:");
  note_has("readout");
}
END_TEST

START_TEST(unknown_key_in_state) {
  const char *t = HEAD INPUTS "state:\n  S: {shape: [V, K], updte: \"exp(g) * S + v k'\"}\n" Y("scale * S q");
  fails_at(t, "updte", "unknown key 'updte' in a state");
  note_has("did you mean 'update'?");
  const char *t2 = HEAD INPUTS "state:\n  S: {shape: [V, K], update: \"S + v k'\", symetric: true}\n" Y("S q");
  fails_at(t2, "symetric", "unknown key 'symetric'");
  note_has("did you mean 'symmetric'?");
}
END_TEST

START_TEST(wrong_types) {
  const char *t = HEAD INPUTS "state:\n  S: [V, K]\n" Y("scale * S q");
  fails_at(t, "[V, K]", "a state must be a mapping, not a list");
  fails_at(GOOD "chunk: \"abc\"\n", "\"abc\"", "chunk must be an integer, not 'abc'");
  fails_at(GOOD "chunk: abc\n", "abc", "chunk must be an integer");
  fails_at(GOOD "chunk: 48\n", "48", "chunk must be a power of two (got 48)");
  fails_at(GOOD "chunk: 512\n", "512", "chunk must be between 1 and 256");
  fails_at(GOOD "chunk: [64]\n", "[64]", "chunk must be a scalar, not a list");
  fails_at("family: t\ndims: {K: 128, V: many}\n" INPUTS GOOD_STATE Y("scale * S q"), "many",
           "V must be an integer, not 'many'");
  fails_at(HEAD INPUTS "state:\n  S: {shape: [V, K], symmetric: yes, update: \"S + v k'\"}\n" Y("S q"), "yes",
           "symmetric must be true or false");
  fails_at(HEAD INPUTS "state:\n  S: {shape: [V, K], update: [S]}\n" Y("S q"), "[S]",
           "update must be an expression string");
}
END_TEST

START_TEST(unknown_dim) {
  const char *t = HEAD INPUTS "state:\n  S: {shape: [K, W], update: \"S\"}\n" Y("scale * S q");
  fails_at(t, "W]", "unknown dim 'W'");
  fails_at(HEAD "inputs:\n  q: [Q]\n" GOOD_STATE Y("S q"), "Q]", "unknown dim 'Q'");
  /* a state must be [V, K] or [K, K] */
  fails_at(HEAD INPUTS "state:\n  S: {shape: [K, V], update: \"S\"}\n" Y("S q"), "[K, V]",
           "state shapes are [V, K] or [K, K]");
}
END_TEST

START_TEST(inconsistent_shapes) {
  /* S * q is [V], the state is [V,K]: reported at the start of the update */
  const char *t = HEAD INPUTS STATE("S * q") Y("scale * S q");
  fails_at(t, "S * q", "the update of 'S' has shape [V] but the state is [V,K]");
  /* S * v: [V,K] times [V] */
  t = HEAD INPUTS STATE("exp(g) * S + S * v k'") Y("scale * S q");
  fails_at(t, "S * v", "shape mismatch: cannot multiply [V,K] and [V]");
  /* S + k */
  t = HEAD INPUTS STATE("S + k") Y("scale * S q");
  fails_at(t, "S + k", "shape mismatch: cannot add [V,K] and [K]");
  /* I added to a vector: pointed at the I */
  t = HEAD INPUTS GOOD_STATE Y("scale * S (q + I)");
  fails_at(t, "I)", "the identity I cannot be added to [K]");
  /* a readout that is not a vector */
  t = HEAD INPUTS GOOD_STATE Y("scale * S");
  fails_at(t, "scale * S\"", "readout 'y' must be a vector, not [V,K]");
  /* y that is not [V] */
  t = HEAD INPUTS GOOD_STATE "readout:\n  y: \"q\"\n";
  fails_at(t, "y: \"q\"", "y must be a [V] expression");
}
END_TEST

START_TEST(unknown_name_suggestion) {
  const char *t = HEAD INPUTS STATE("S * (I - bta * k k') + beta * v k'") Y("scale * S q");
  fails_at(t, "bta", "unknown name 'bta'");
  note_has("did you mean 'beta'?");
  t = HEAD INPUTS GOOD_STATE Y("scael * S q");
  fails_at(t, "scael", "unknown name 'scael'");
  note_has("did you mean 'scale'?");
}
END_TEST

START_TEST(expression_syntax_error) {
  /* the error is at the end of the expression, where ')' was expected */
  const char *t = HEAD INPUTS STATE("S * (I - k k'") Y("scale * S q");
  fails_at_off(t, "k k'", 4, "expected ')'");
  int line, col;
  locate(t, "(I - k", &line, &col);
  char note[64];
  snprintf(note, sizeof note, "the '(' is at line %d, column %d", line, col);
  note_has(note);
  t = HEAD INPUTS STATE("exp(g) * S + + v k'") Y("scale * S q");
  fails_at_off(t, "+ + v", 2, "expected a name, a number or '(' here");
  t = HEAD INPUTS STATE("exp(g) * S $ v k'") Y("scale * S q");
  fails_at(t, "$", "unexpected character '$'");
}
END_TEST

START_TEST(lua_error_points_into_yaml) {
  const char *t = GOOD "constants:\n  c: !lua \"1 + nil\"\n";
  fails_at(t, "1 + nil", "Lua: ");
  ck_assert_msg(strstr(D.msg, "arithmetic") != NULL, "%s", D.msg);
  /* an error on the second line of a block scalar: that YAML line */
  t = GOOD "constants:\n  c: !lua |\n    local x = 1\n    return x + nil\n";
  ck_assert_ptr_null(load(t));
  int line, col;
  locate(t, "return x + nil", &line, &col);
  ck_assert_int_eq(D.line, line);
  ck_assert(strstr(D.msg, "Lua: ") != NULL);
  /* a syntax error */
  t = GOOD "constants:\n  c: !lua \"1 +\"\n";
  fails_at(t, "1 +\"", "Lua: ");
  /* a boolean is not a constant */
  t = GOOD "constants:\n  c: !lua \"K > 1\"\n";
  fails_at(t, "!lua \"K > 1\"", "constant 'c' must be a number, not a boolean");
  /* a plain non-number suggests !lua */
  t = GOOD "constants:\n  c: K^-0.5\n";
  fails_at(t, "K^-0.5", "constant 'c' must be a number, not 'K^-0.5'");
  note_has("!lua");
}
END_TEST

START_TEST(lua_runaway) {
  const char *t = GOOD "constants:\n  c: !lua \"(function() while true do end end)()\"\n";
  fails_at(t, "(function()", "instruction budget exceeded");
  /* pcall cannot swallow the budget */
  t = GOOD "constants:\n  c: !lua \"(function() while true do pcall(function() while true do end end) end end)()\"\n";
  fails_at(t, "(function() while true do pcall", "instruction budget exceeded");
}
END_TEST

START_TEST(lua_memory_bomb) {
  const char *t = GOOD "constants:\n  c: !lua \"(function() local t = {} for i = 1, 1e9 do t[i] = i end return 1 end)()\"\n";
  fails_at(t, "(function()", "memory limit exceeded");
  t = GOOD "constants:\n  c: !lua \"#string.rep('x', 1e9)\"\n";
  fails_at(t, "#string", "memory limit exceeded");
}
END_TEST

START_TEST(lua_forbidden_library) {
  const char *t = GOOD "constants:\n  c: !lua \"io.open('x')\"\n";
  fails_at(t, "io.open", "'io' is not available in the sandbox");
  t = GOOD "constants:\n  c: !lua \"os.exit(1)\"\n";
  fails_at(t, "os.exit", "'os' is not available in the sandbox");
  t = GOOD "constants:\n  c: !lua \"require('x')\"\n";
  fails_at(t, "require", "Lua: ");
  t = GOOD "constants:\n  c: !lua \"load('return 1')()\"\n";
  fails_at(t, "load(", "Lua: ");
}
END_TEST

START_TEST(y_missing) {
  const char *t = HEAD INPUTS GOOD_STATE "readout:\n  z: \"scale * S q\"\n";
  fails_at(t, "z: ", "readout must define y");
  /* y must come last */
  t = HEAD INPUTS GOOD_STATE "readout:\n  y: \"scale * S q\"\n  z: \"S q\"\n";
  fails_at_off(t, "  y: ", 2, "y must be the last readout");
  /* no readout at all */
  fails_lc(HEAD INPUTS GOOD_STATE, 1, 1, "the spec needs 'readout'");
}
END_TEST

/* no tiles given: the largest of 64, 32, 16, 8 that divides the dim (the dim itself below 64) */
START_TEST(tiles_default_divides_dims) {
  layer_spec *s = ok("family: t\ndims: {K: 96, V: 80}\n" INPUTS GOOD_STATE Y("scale * S q"));
  ck_assert_int_eq(s->n_tiles, 1);
  ck_assert_int_eq(s->bk, 32);
  ck_assert_int_eq(s->bv, 16);
  s = ok("family: t\ndims: {K: 192, V: 48}\n" INPUTS GOOD_STATE Y("scale * S q") "tiles: {bv: [16, 48]}\n");
  ck_assert_int_eq(s->bk, 64);
  ck_assert_int_eq(s->n_tiles, 2);
  /* nothing of 64 .. 8 divides K = 100: the error names the dims */
  fails_lc("family: t\ndims: {K: 100, V: 64}\n" INPUTS GOOD_STATE Y("scale * S q"), 1, 1, "no tile (bk, bv) is valid");
  ck_assert(strstr(D.msg, "K=100") != NULL);
}
END_TEST

START_TEST(tiles_none_valid) {
  const char *t = GOOD "tiles: {bk: [32, 64], bv: [32], valid: !lua \"bk > 1000\"}\n";
  fails_at(t, "{bk: [32, 64]", "no tile (bk, bv) is valid");
  /* nothing divides the dims */
  t = "family: t\ndims: {K: 96, V: 128}\n" INPUTS GOOD_STATE Y("scale * S q") "tiles:\n  bk: [64, 128]\n";
  fails_at(t, "bk: [64", "no tile (bk, bv) is valid");
  ck_assert(strstr(D.msg, "K=96") != NULL);
  /* the default is not among the valid tiles */
  t = GOOD "tiles: {bk: [32, 64], bv: [32], default: {bk: 64, bv: 64}}\n";
  fails_at(t, "{bk: 64, bv: 64}", "the default tile (64, 64) is not valid");
  /* valid must answer true or false */
  t = GOOD "tiles: {bk: [32], bv: [32], valid: !lua \"bk\"}\n";
  fails_at(t, "!lua \"bk\"", "tiles.valid must return true or false");
}
END_TEST

START_TEST(solve_method) {
  const char *t = HEAD INPUTS
      "state:\n"
      "  H: {shape: [K, K], symmetric: true, update: \"exp(g) * H + beta * k k'\"}\n"
      "  U: {shape: [V, K], update: \"exp(g) * U + beta * v k'\"}\n"
      "readout:\n"
      "  x: {solve: \"(H + lambda * I) x = q\", method: cg, lambda: \"0.02 * fro(H)\"}\n"
      "  y: \"scale * U x\"\n";
  fails_at(t, "cg,", "unsupported solve method 'cg' (supported: chebyshev)");
  /* the unknown must be last on the left */
  t = HEAD INPUTS
      "state:\n"
      "  H: {shape: [K, K], symmetric: true, update: \"exp(g) * H + beta * k k'\"}\n"
      "  U: {shape: [V, K], update: \"exp(g) * U + beta * v k'\"}\n"
      "readout:\n"
      "  x: {solve: \"x (H + lambda * I) = q\", lambda: \"0.02 * fro(H)\"}\n"
      "  y: \"scale * U x\"\n";
  fails_at(t, "x (H", "the solve must read '(M) x = b'");
}
END_TEST

START_TEST(input_errors) {
  fails_at(HEAD "inputs:\n  q: [K]\n  g: scalar_log_decy\n" GOOD_STATE Y("S q"), "scalar_log_decy",
           "unknown input type 'scalar_log_decy'");
  note_has("did you mean 'scalar_log_decay'?");
  fails_at(HEAD "inputs:\n  q: {shape: [K], domain: sphere}\n" GOOD_STATE Y("S q"), "sphere",
           "unknown domain 'sphere'");
  fails_at(HEAD "inputs:\n  exp: [K]\n" GOOD_STATE Y("S q"), "exp:", "'exp' is reserved");
  fails_at(HEAD "inputs:\n  q: [K]\n  q2: [K]\n  v: [V]\n  g: scalar_log_decay\n"
                "state:\n  q: {shape: [V, K], update: \"q\"}\n" Y("S q"),
           "q: {shape", "the name 'q' is already used");
  fails_at(HEAD "inputs:\n  b: {shape: [K], domain: unit}\n" GOOD_STATE Y("S q"), "b: {",
           "the unit domain is for scalars");
}
END_TEST

Suite *spec_suite(void) {
  Suite *s = suite_create("spec");
  TCase *pos = tcase_create("load");
  tcase_add_checked_fixture(pos, setup, teardown);
  tcase_set_timeout(pos, 60);
  tcase_add_loop_test(pos, builtin_family_loads, 0, (int)(sizeof FAMS / sizeof *FAMS));
  tcase_add_test(pos, mamba2_details);
  tcase_add_test(pos, domains_of_builtins);
  tcase_add_test(pos, kalmanet_solve_readout);
  tcase_add_test(pos, default_scale);
  tcase_add_test(pos, lua_constants);
  tcase_add_test(pos, tiles_valid_filter_and_default);
  tcase_add_test(pos, hash_stable_and_sensitive);
  tcase_add_test(pos, hash_covers_long_expressions);
  tcase_add_test(pos, sandbox_survives_errors);
  tcase_add_test(pos, max_constants_plus_default_scale);
  suite_add_tcase(s, pos);

  TCase *neg = tcase_create("reject");
  tcase_add_checked_fixture(neg, setup, teardown);
  tcase_set_timeout(neg, 60);
  tcase_add_test(neg, malformed_yaml);
  tcase_add_test(neg, duplicate_key);
  tcase_add_test(neg, unknown_top_level_key);
  tcase_add_test(neg, unknown_key_in_state);
  tcase_add_test(neg, wrong_types);
  tcase_add_test(neg, unknown_dim);
  tcase_add_test(neg, inconsistent_shapes);
  tcase_add_test(neg, unknown_name_suggestion);
  tcase_add_test(neg, expression_syntax_error);
  tcase_add_test(neg, lua_error_points_into_yaml);
  tcase_add_test(neg, lua_runaway);
  tcase_add_test(neg, lua_memory_bomb);
  tcase_add_test(neg, lua_forbidden_library);
  tcase_add_test(neg, y_missing);
  tcase_add_test(neg, tiles_none_valid);
  tcase_add_test(neg, tiles_default_divides_dims);
  tcase_add_test(neg, solve_method);
  tcase_add_test(neg, input_errors);
  suite_add_tcase(s, neg);
  return s;
}
