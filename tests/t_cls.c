/* compiler stage: tests for the structural classifier — every recognized
 * transition, write and readout form, the solve, each rejection with its
 * position and message, and independence from the names used. */
#include <check.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cls.h"
#include "sbx.h"

static sbx *LUA;
static arena A;
static diag D;
static srcfile *F;
static cls_family FAM;

static void setup(void) {
  LUA = sbx_new(64u << 20, 50000000L);
  memset(&A, 0, sizeof A);
  memset(&D, 0, sizeof D);
  memset(&FAM, 0, sizeof FAM);
  F = NULL;
}

static void teardown(void) {
  src_free(F);
  F = NULL;
  arena_free(&A);
  sbx_free(LUA);
}

static layer_spec *load(const char *text) {
  src_free(F);
  F = src_from_string("c.yaml", text);
  memset(&D, 0, sizeof D);
  layer_spec *s = spec_load(F, &A, LUA, &D);
  ck_assert_msg(s != NULL, "spec does not load: %d:%d: %s", D.line, D.col, D.msg);
  return s;
}

static const layer_spec *classify(const char *text) {
  const layer_spec *s = load(text);
  int rc = cls_classify(s, &A, &FAM, &D);
  ck_assert_msg(rc == 0, "not classified: %d:%d: %s", D.line, D.col, D.msg);
  ck_assert_int_eq(D.set, 0);
  ck_assert_ptr_eq(FAM.spec, s);
  return s;
}

static const layer_spec *classify_file(const char *name, cls_family *out) {
  char path[1024];
  snprintf(path, sizeof path, "%s/dsl/families/%s", SSMC_SOURCE_DIR, name);
  src_free(F);
  memset(&D, 0, sizeof D);
  F = src_read(path, &D);
  ck_assert_ptr_nonnull(F);
  const layer_spec *s = spec_load(F, &A, LUA, &D);
  ck_assert_msg(s != NULL, "%s: %s", name, D.msg);
  ck_assert_msg(cls_classify(s, &A, out, &D) == 0, "%s: %d:%d: %s", name, D.line, D.col, D.msg);
  return s;
}

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

/* The spec loads, then classification fails at `at` with a message holding
 * every one of the NULL-terminated phrases. */
static void rejects(const char *text, const char *at, ...) {
  const layer_spec *s = load(text);
  ck_assert_msg(cls_classify(s, &A, &FAM, &D) != 0, "classified, expected a rejection");
  ck_assert_int_eq(D.set, 1);
  ck_assert_str_eq(D.file, "c.yaml");
  va_list ap;
  va_start(ap, at);
  for (const char *has; (has = va_arg(ap, const char *));)
    ck_assert_msg(strstr(D.msg, has) != NULL, "message '%s' lacks '%s'", D.msg, has);
  va_end(ap);
  int line, col;
  locate(text, at, &line, &col);
  ck_assert_msg(D.line == line && D.col == col, "'%s' reported at %d:%d, expected %d:%d ('%s')", D.msg, D.line,
                D.col, line, col, at);
}

static int in_ix(const layer_spec *s, const char *name) {
  for (int i = 0; i < s->n_in; i++)
    if (!strcmp(s->in[i].name, name)) return i;
  ck_abort_msg("no input %s", name);
  return -1;
}

static int st_ix(const layer_spec *s, const char *name) {
  for (int i = 0; i < s->n_st; i++)
    if (!strcmp(s->st[i].name, name)) return i;
  ck_abort_msg("no state %s", name);
  return -1;
}

/* A scalar coefficient: numeric c times the factors listed in `fs`
 * (space-separated canonical texts, any order, "/x" for a divisor). */
static int coef_is(const ex_term *t, double c, const char *fs) {
  if (fabs(t->c - c) > 1e-12 * fmax(1, fabs(c))) return 0;
  char want[256];
  snprintf(want, sizeof want, "%s", fs);
  int used[EX_MAX_FACTORS] = {0}, n = 0;
  for (char *tok = strtok(want, " "); tok; tok = strtok(NULL, " ")) {
    int inv = tok[0] == '/';
    int found = 0;
    for (int i = 0; i < t->nf && !found; i++) {
      char buf[128];
      ex_print(t->f[i], buf, sizeof buf);
      if (!used[i] && t->finv[i] == inv && !strcmp(buf, tok + inv)) used[i] = found = 1;
    }
    if (!found) return 0;
    n++;
  }
  return n == t->nf;
}

#define ck_coef(t, c, fs) ck_assert_msg(coef_is(&(t), c, fs), "coefficient is not %g * {%s}", (double)(c), fs)

/* The query terms, in any order: each (src, c, factors) matched once. */
typedef struct { int src; double c; const char *fs; } qexp;

static void ck_queries(const qexp *e, int n) {
  ck_assert_int_eq(FAM.n_q, n);
  int used[8] = {0};
  for (int i = 0; i < n; i++) {
    int found = 0;
    for (int j = 0; j < FAM.n_q && !found; j++)
      if (!used[j] && FAM.q[j].src_in == e[i].src && coef_is(&FAM.q[j].coef, e[i].c, e[i].fs)) used[j] = found = 1;
    ck_assert_msg(found, "no query term %g * {%s} * src %d", e[i].c, e[i].fs, e[i].src);
  }
}

#define HEAD "family: t\ndims: {K: 64, V: 32}\n"
#define INPUTS                                                                                                  \
  "inputs:\n  q: [K]\n  k: [K]\n  v: [V]\n  g: scalar_log_decay\n  gk: key_log_decay\n  beta: unit\n"        \
  "  alpha: unit\n"
#define STATE(u) "state:\n  S: {shape: [V, K], update: \"" u "\"}\n"
#define Y(e) "readout:\n  y: \"" e "\"\n"
#define SPEC(u) HEAD INPUTS STATE(u) Y("scale * S q")

/* the inputs' indices in INPUTS */
enum { IQ = 0, IK = 1, IV = 2, IG = 3, IGK = 4, IBETA = 5, IALPHA = 6 };

static void ck_plain_query(void) {
  qexp e[] = {{IQ, 1, "scale"}};
  ck_queries(e, 1);
  ck_assert_int_eq(FAM.has_solve, 0);
}

/* ---- recognized forms ---------------------------------------------------- */

START_TEST(identity) {
  classify(SPEC("S + v k'"));
  ck_assert_int_eq(FAM.main.state, 0);
  ck_assert_int_eq(FAM.main.decay, DECAY_NONE);
  ck_assert_int_eq(FAM.main.delta, 0);
  ck_assert_int_eq(FAM.main.n_logdecay, 0);
  ck_assert_double_eq(FAM.main.logc, 0);
  ck_assert_int_eq(FAM.main.diag_in, -1);
  ck_assert_int_eq(FAM.main.key_in, IK);
  ck_assert_int_eq(FAM.main.val_in, IV);
  ck_coef(FAM.main.write, 1, "");
  ck_plain_query();
  ck_assert_msg(strstr(FAM.summary, "identity") != NULL, "%s", FAM.summary);
}
END_TEST

START_TEST(scalar_decay) {
  classify(SPEC("exp(g) * S + v k'"));
  ck_assert_int_eq(FAM.main.decay, DECAY_SCALAR);
  ck_assert_int_eq(FAM.main.delta, 0);
  ck_assert_int_eq(FAM.main.n_logdecay, 1);
  ck_assert_int_eq(FAM.main.logdecay[0]->op, EX_SYM);
  ck_assert_str_eq(FAM.main.logdecay[0]->name, "g");
  ck_assert_double_eq(FAM.main.logc, 0);
  ck_assert_int_eq(FAM.main.diag_in, -1);
  ck_assert_int_eq(FAM.main.key_in, IK);
  ck_assert_int_eq(FAM.main.val_in, IV);
  ck_coef(FAM.main.write, 1, "");
  ck_plain_query();
  /* the decay may also be written on the right */
  classify(SPEC("S * exp(g) + v k'"));
  ck_assert_int_eq(FAM.main.decay, DECAY_SCALAR);
  ck_assert_int_eq(FAM.main.n_logdecay, 1);
}
END_TEST

START_TEST(per_key_decay) {
  classify(SPEC("S * diag(exp(gk)) + v k'"));
  ck_assert_int_eq(FAM.main.decay, DECAY_DIAG);
  ck_assert_int_eq(FAM.main.diag_in, IGK);
  ck_assert_int_eq(FAM.main.delta, 0);
  ck_assert_int_eq(FAM.main.n_logdecay, 0);
  ck_assert_int_eq(FAM.main.key_in, IK);
  ck_assert_int_eq(FAM.main.val_in, IV);
  ck_coef(FAM.main.write, 1, "");
  ck_plain_query();
  ck_assert_msg(strstr(FAM.summary, "per-key decay") != NULL, "%s", FAM.summary);
}
END_TEST

START_TEST(delta_rule_no_decay) {
  classify(SPEC("S * (I - beta * k k') + beta * v k'"));
  ck_assert_int_eq(FAM.main.decay, DECAY_NONE);
  ck_assert_int_eq(FAM.main.delta, 1);
  ck_coef(FAM.main.erase, 1, "beta");
  ck_coef(FAM.main.write, 1, "beta");
  ck_assert_int_eq(FAM.main.key_in, IK);
  ck_assert_int_eq(FAM.main.val_in, IV);
  ck_plain_query();
  ck_assert_msg(strstr(FAM.summary, "rank-1 erase") != NULL, "%s", FAM.summary);
  /* the built-in file */
  cls_family f;
  const layer_spec *s = classify_file("deltanet.yaml", &f);
  ck_assert_int_eq(f.main.decay, DECAY_NONE);
  ck_assert_int_eq(f.main.delta, 1);
  ck_assert_int_eq(f.main.key_in, in_ix(s, "k"));
  ck_coef(f.main.erase, 1, "beta");
  /* a constant erase strength and unit write */
  classify(SPEC("S * (I - 0.5 * k k') + v k'"));
  ck_assert_int_eq(FAM.main.delta, 1);
  ck_coef(FAM.main.erase, 0.5, "");
  ck_coef(FAM.main.write, 1, "");
}
END_TEST

START_TEST(gated_deltanet_form) {
  classify(SPEC("S * (exp(g) * (I - beta * k k')) + beta * v k'"));
  ck_assert_int_eq(FAM.main.decay, DECAY_SCALAR);
  ck_assert_int_eq(FAM.main.n_logdecay, 1);
  ck_assert_str_eq(FAM.main.logdecay[0]->name, "g");
  ck_assert_int_eq(FAM.main.delta, 1);
  ck_coef(FAM.main.erase, 1, "beta");
  ck_coef(FAM.main.write, 1, "beta");
  ck_assert_int_eq(FAM.main.key_in, IK);
  ck_assert_int_eq(FAM.main.val_in, IV);
  ck_plain_query();
  /* the decay written first, outside */
  classify(SPEC("exp(g) * S * (I - beta * k k') + beta * v k'"));
  ck_assert_int_eq(FAM.main.decay, DECAY_SCALAR);
  ck_assert_int_eq(FAM.main.delta, 1);
  ck_coef(FAM.main.erase, 1, "beta");
  cls_family f;
  classify_file("gated_deltanet.yaml", &f);
  ck_assert_int_eq(f.main.decay, DECAY_SCALAR);
  ck_assert_int_eq(f.main.delta, 1);
  ck_assert_int_eq(f.has_solve, 0);
}
END_TEST

START_TEST(kda_form) {
  classify(SPEC("S * diag(exp(gk)) * (I - beta * k k') + beta * v k'"));
  ck_assert_int_eq(FAM.main.decay, DECAY_DIAG);
  ck_assert_int_eq(FAM.main.diag_in, IGK);
  ck_assert_int_eq(FAM.main.delta, 1);
  ck_coef(FAM.main.erase, 1, "beta");
  ck_coef(FAM.main.write, 1, "beta");
  ck_assert_int_eq(FAM.main.key_in, IK);
  ck_plain_query();
  cls_family f;
  const layer_spec *s = classify_file("kda.yaml", &f);
  ck_assert_int_eq(f.main.decay, DECAY_DIAG);
  ck_assert_int_eq(f.main.diag_in, in_ix(s, "gk"));
  ck_assert_int_eq(f.main.delta, 1);
  s = classify_file("gla.yaml", &f);
  ck_assert_int_eq(f.main.decay, DECAY_DIAG);
  ck_assert_int_eq(f.main.delta, 0);
  s = classify_file("mamba2.yaml", &f);
  ck_assert_int_eq(f.main.decay, DECAY_SCALAR);
  ck_assert_int_eq(f.main.delta, 0);
  ck_coef(f.main.write, 1, "");
}
END_TEST

#define GKA_INPUTS                                                                                             \
  "inputs:\n  q: [K]\n  k: [K]\n  v: [V]\n  g: scalar_log_decay\n  beta: unit\n  alpha: unit\n"
#define GKA_STATES(sym)                                                                                        \
  "state:\n"                                                                                                   \
  "  H: {shape: [K, K]" sym ", update: \"exp(g) * H + beta * k k'\"}\n"                                        \
  "  U: {shape: [V, K], update: \"exp(g) * U + beta * v k'\"}\n"
#define GKA(solve, y) HEAD GKA_INPUTS GKA_STATES(", symmetric: true") "readout:\n" solve "  y: \"" y "\"\n"
#define GKA_SOLVE "  x: {solve: \"(H + lambda * I) x = q\", iters: 12, lambda: \"0.02 * fro(H)\"}\n"

static void ck_gka(const layer_spec *s) {
  int H = st_ix(s, "H"), U = st_ix(s, "U"), q = in_ix(s, "q"), k = in_ix(s, "k"), v = in_ix(s, "v");
  ck_assert_int_eq(FAM.has_solve, 1);
  ck_assert_str_eq(s->rd[FAM.solve_rd].name, "x");
  ck_assert_double_eq_tol(FAM.lam_a, 0.02, 1e-15);
  ck_assert_double_eq(FAM.lam_b, 0);
  ck_assert_int_eq(FAM.rhs_in, q);
  ck_assert_int_eq(FAM.aux.state, H);
  ck_assert(s->st[FAM.aux.state].symmetric);
  ck_assert_int_eq(FAM.aux.decay, DECAY_SCALAR);
  ck_assert_int_eq(FAM.aux.delta, 0);
  ck_assert_int_eq(FAM.aux.key_in, k);
  ck_assert_int_eq(FAM.aux.val_in, -1);
  ck_coef(FAM.aux.write, 1, "beta");
  ck_assert_int_eq(FAM.main.state, U);
  ck_assert_int_eq(FAM.main.decay, DECAY_SCALAR);
  ck_assert_int_eq(FAM.main.delta, 0);
  ck_assert_int_eq(FAM.main.val_in, v);
  ck_assert_int_eq(FAM.main.key_in, k);
  ck_coef(FAM.main.write, 1, "beta");
  /* y = scale U (q + alpha (x - q)) */
  qexp e[] = {{q, 1, "scale"}, {-1, 1, "scale alpha"}, {q, -1, "scale alpha"}};
  ck_queries(e, 3);
  ck_assert_msg(strstr(FAM.summary, "solve") != NULL, "%s", FAM.summary);
}

START_TEST(gka_form) {
  cls_family f;
  const layer_spec *s = classify_file("gated_kalmanet.yaml", &f);
  FAM = f;
  ck_gka(s);
  ck_assert_int_eq(FAM.iters, 30);
  s = classify(GKA(GKA_SOLVE, "scale * U (q + alpha * (x - q))"));
  ck_gka(s);
  ck_assert_int_eq(FAM.iters, 12);
}
END_TEST

/* lambda = a * fro(H) + b, written in the lambda key as documented (cls.h).
 * The expander keeps a scalar sum as one opaque factor, so this form was
 * rejected with "lambda must be a * fro(H) + b" although it is exactly that. */
START_TEST(gka_lambda_with_offset) {
  classify(GKA("  x: {solve: \"(H + lambda * I) x = q\", lambda: \"0.02 * fro(H) + 0.001\"}\n", "scale * U x"));
  ck_assert_double_eq_tol(FAM.lam_a, 0.02, 1e-15);
  ck_assert_double_eq_tol(FAM.lam_b, 0.001, 1e-15);
}
END_TEST

START_TEST(gka_lambda_forms) {
  /* the offset written as its own term of the matrix */
  classify(GKA("  x: {solve: \"(H + lambda * I + 0.001 * I) x = q\", lambda: \"0.02 * fro(H)\"}\n", "scale * U x"));
  ck_assert_double_eq_tol(FAM.lam_a, 0.02, 1e-15);
  ck_assert_double_eq_tol(FAM.lam_b, 0.001, 1e-15);
  classify(GKA("  x: {solve: \"(H + 0.5 * I) x = q\"}\n", "scale * U x"));
  ck_assert_double_eq(FAM.lam_a, 0);
  ck_assert_double_eq(FAM.lam_b, 0.5);
  ck_assert_int_eq(FAM.iters, 30);
  qexp e[] = {{-1, 1, "scale"}};
  ck_queries(e, 1);
  classify(GKA("  x: {solve: \"(H + lambda * I) x = q\", lambda: \"fro(H) / 50\"}\n", "scale * U x"));
  ck_assert_double_eq_tol(FAM.lam_a, 0.02, 1e-15);
}
END_TEST

START_TEST(beta_scaled_write) {
  classify(SPEC("exp(g) * S + beta * v k'"));
  ck_assert_int_eq(FAM.main.decay, DECAY_SCALAR);
  ck_assert_int_eq(FAM.main.delta, 0);
  ck_coef(FAM.main.write, 1, "beta");
  classify(HEAD INPUTS "constants: {c: 0.25}\n" STATE("exp(g) * S + 2 * c * beta * v k' / alpha") Y("scale * S q"));
  ck_coef(FAM.main.write, 2, "c beta /alpha");
}
END_TEST

/* Terms of one chain whose coefficients differ are one term whose
 * coefficient is their sum: (1 - beta) * v k' is one write, also in an erase. */
START_TEST(sum_coefficients) {
  char buf[128];
  classify(SPEC("exp(g) * S + (1 - beta) * v k'"));
  ck_assert_int_eq(FAM.main.delta, 0);
  ck_assert_int_eq(FAM.main.write.nf, 1);
  ex_print(FAM.main.write.f[0], buf, sizeof buf);
  ck_assert_str_eq(buf, "1 - beta");
  /* common factors stay factors; the erase divides by the decay */
  classify(SPEC("S * (exp(g) * (I - (1 - beta) * k k')) + beta * v k' / 2 + alpha * v k'"));
  ck_assert_int_eq(FAM.main.decay, DECAY_SCALAR);
  ck_assert_int_eq(FAM.main.delta, 1);
  ck_assert_int_eq(FAM.main.erase.nf, 1);
  ck_assert_double_eq_tol(FAM.main.erase.c, -1, 1e-15);
  ex_print(FAM.main.erase.f[0], buf, sizeof buf);
  ck_assert_str_eq(buf, "-1 + beta");
  ex_print(FAM.main.write.f[0], buf, sizeof buf);
  ck_assert_str_eq(buf, "0.5 * beta + alpha");
}
END_TEST

START_TEST(constant_decay) {
  classify(SPEC("0.9 * S + v k'"));
  ck_assert_int_eq(FAM.main.decay, DECAY_SCALAR);
  ck_assert_int_eq(FAM.main.n_logdecay, 0);
  ck_assert_double_eq_tol(FAM.main.logc, log(0.9), 1e-15);
  ck_coef(FAM.main.write, 1, "");
  /* constant times a gate */
  classify(SPEC("0.5 * exp(g) * S + v k'"));
  ck_assert_int_eq(FAM.main.decay, DECAY_SCALAR);
  ck_assert_int_eq(FAM.main.n_logdecay, 1);
  ck_assert_double_eq_tol(FAM.main.logc, log(0.5), 1e-15);
  /* a division by a number is a constant too */
  classify(SPEC("S / 2 + v k'"));
  ck_assert_int_eq(FAM.main.decay, DECAY_SCALAR);
  ck_assert_double_eq_tol(FAM.main.logc, log(0.5), 1e-15);
}
END_TEST

START_TEST(local_readout) {
  /* a local query vector read through the state */
  const layer_spec *s = classify(HEAD INPUTS STATE("exp(g) * S + v k'")
                                 "readout:\n  qt: \"q + alpha * k\"\n  y: \"scale * S qt\"\n");
  ck_assert_int_eq(s->n_rd, 2);
  qexp e[] = {{IQ, 1, "scale"}, {IK, 1, "alpha scale"}};
  ck_queries(e, 2);
  ck_assert_int_eq(FAM.main.decay, DECAY_SCALAR);
  /* nested locals */
  classify(HEAD INPUTS STATE("exp(g) * S + v k'")
           "readout:\n  a1: \"2 * q\"\n  a2: \"a1 - beta * k\"\n  y: \"scale * S a2\"\n");
  qexp e2[] = {{IQ, 2, "scale"}, {IK, -1, "beta scale"}};
  ck_queries(e2, 2);
  /* the GKA alpha connection through a local */
  s = classify(GKA(GKA_SOLVE "  qt: \"q + alpha * (x - q)\"\n", "scale * U qt"));
  ck_gka(s);
}
END_TEST

/* ---- rejections ---------------------------------------------------------- */

START_TEST(rejects_erase_before_decay) {
  const char *t = SPEC("S * (I - beta * k k') * diag(exp(gk)) + beta * v k'");
  rejects(t, "S * (I - beta", "must come after the decay", "supported transitions", NULL);
}
END_TEST

START_TEST(rejects_erase_two_keys) {
  const char *t = SPEC("S * (I - beta * k q') + beta * v k'");
  rejects(t, "k q'", "the rank-1 erase must be along one key input", NULL);
  t = SPEC("S * (I - beta * q k') + beta * v k'");
  rejects(t, "q k'", "the rank-1 erase must be along one key input", NULL);
}
END_TEST

START_TEST(rejects_write_key_differs_from_erase) {
  const char *t = SPEC("S * (I - beta * k k') + beta * v q'");
  rejects(t, "v q'", "the write must use the same key as the erase", NULL);
}
END_TEST

START_TEST(rejects_decay_not_exp) {
  const char *t = SPEC("beta * S + v k'");
  rejects(t, "beta * S", "a decay must be written exp(<log decay>)", NULL);
  t = SPEC("S / exp(g) + v k'");
  rejects(t, "exp(g) +", "a decay must be written exp(<log decay>)", NULL);
  t = SPEC("S * diag(gk) + v k'");
  rejects(t, "diag(gk)", "a per-key decay must be diag(exp(gk))", "supported transitions", NULL);
}
END_TEST

START_TEST(rejects_two_writes) {
  const char *t = SPEC("exp(g) * S + v k' + beta * v q'");
  rejects(t, "exp(g) * S", "needs exactly one write term", "found 2", NULL);
}
END_TEST

START_TEST(rejects_no_write) {
  const char *t = SPEC("exp(g) * S");
  rejects(t, "exp(g) * S", "needs exactly one write term", "found 0", NULL);
}
END_TEST

START_TEST(rejects_bad_write) {
  const char *t = SPEC("exp(g) * S + v k' diag(exp(gk))");
  rejects(t, "v k' diag", "unsupported write: expected c * v k'", NULL);
  t = SPEC("exp(g) * S + v q'");
  /* any [K] input may be the key */
  classify(t);
  ck_assert_int_eq(FAM.main.key_in, IQ);
}
END_TEST

START_TEST(rejects_state_twice) {
  const char *t = SPEC("S S' S + v k'");
  rejects(t, "S' S", "may use 'S' only once per term", NULL);
  t = SPEC("exp(g) * S + v k' S' S");
  rejects(t, "S' S", "may use 'S' only once per term", NULL);
}
END_TEST

START_TEST(rejects_state_never_read) {
  const char *t = HEAD INPUTS
      "state:\n"
      "  S: {shape: [V, K], update: \"exp(g) * S + v k'\"}\n"
      "  T: {shape: [V, K], update: \"exp(g) * T + v k'\"}\n" Y("scale * S q");
  rejects(t, "T: {", "state 'T' is never read", NULL);
  /* a state that does not carry itself */
  rejects(SPEC("v k'"), "v k'\"", "does not use 'S'", NULL);
}
END_TEST

START_TEST(rejects_kk_state_not_symmetric) {
  const char *t = HEAD GKA_INPUTS GKA_STATES("") "readout:\n" GKA_SOLVE "  y: \"scale * U (q + alpha * (x - q))\"\n";
  const layer_spec *s = load(t);
  ck_assert_int_ne(cls_classify(s, &A, &FAM, &D), 0);
  ck_assert_msg(strstr(D.msg, "symmetric") != NULL, "message: %s", D.msg);
  /* it points at the solve matrix or at the state's declaration */
  int l1, c1, l2, c2;
  locate(t, "H + lambda", &l1, &c1);
  locate(t, "H: {", &l2, &c2);
  ck_assert_msg((D.line == l1 && D.col == c1) || (D.line == l2 && D.col == c2), "at %d:%d: %s", D.line, D.col,
                D.msg);
  /* a symmetric state must be written k k' */
  t = HEAD GKA_INPUTS
      "state:\n"
      "  H: {shape: [K, K], symmetric: true, update: \"exp(g) * H + beta * k q'\"}\n"
      "  U: {shape: [V, K], update: \"exp(g) * U + beta * v k'\"}\n"
      "readout:\n" GKA_SOLVE "  y: \"scale * U x\"\n";
  rejects(t, "k q'", "unsupported write", "k k'", NULL);
}
END_TEST

START_TEST(rejects_bad_lambda) {
  rejects(GKA("  x: {solve: \"(H + lambda * I) x = q\", lambda: \"alpha * fro(H)\"}\n", "scale * U x"),
          "alpha * fro(H)", "lambda must be a * fro(H) + b", NULL);
  rejects(GKA("  x: {solve: \"(H + lambda * I) x = q\", lambda: \"0.02 * fro(U)\"}\n", "scale * U x"),
          "0.02 * fro(U)", "lambda must be a * fro(H) + b", NULL);
  rejects(GKA("  x: {solve: \"(H + lambda * I) x = q\", lambda: \"0 * fro(H)\"}\n", "scale * U x"),
          "0 * fro(H)", "lambda must be positive", NULL);
  /* the right-hand side must be an input */
  rejects(GKA("  x: {solve: \"(H + 0.1 * I) x = 2 * q\"}\n", "scale * U x"), "2 * q",
          "the right-hand side of the solve must be a [K] input", NULL);
  /* any [K] input may be the right-hand side */
  classify(GKA("  x: {solve: \"(H + 0.1 * I) x = k\"}\n", "scale * U x"));
  ck_assert_int_eq(FAM.rhs_in, 1);
}
END_TEST

START_TEST(rejects_vector_in_coefficient) {
  rejects(SPEC("exp(g) * S + sqrt(q' q) * v k'"), "q' q",
          "a coefficient may only use numbers, constants and scalar inputs", "'q'", NULL);
  rejects(SPEC("exp(k' q) * S + v k'"), "k' q", "a coefficient may only use", "'k'", NULL);
  rejects(SPEC("exp(g) * S + fro(S) * v k'"), "fro(S)", "a coefficient may only use", "'fro'", NULL);
  rejects(HEAD INPUTS STATE("exp(g) * S + v k'") Y("exp(q' k) * S q"), "q' k", "a coefficient may only use",
          NULL);
}
END_TEST

START_TEST(rejects_readouts) {
  rejects(HEAD INPUTS STATE("exp(g) * S + v k'") Y("scale * S q + v"), "v\"\n", "y must be a sum of c * S w terms",
          NULL);
  rejects(HEAD INPUTS
          "state:\n"
          "  S: {shape: [V, K], update: \"exp(g) * S + v k'\"}\n"
          "  T: {shape: [V, K], update: \"exp(g) * T + v k'\"}\n" Y("S q + T k"),
          "T k", "y must read a single state", NULL);
  /* the solve's x computed and never used */
  rejects(GKA(GKA_SOLVE, "scale * U q"), "x: {", "the solve's result is never used by y", NULL);
  /* two solves */
  rejects(GKA(GKA_SOLVE "  x2: {solve: \"(H + 0.1 * I) x2 = k\"}\n", "scale * U (x + x2)"), "H + 0.1",
          "at most one solve", NULL);
}
END_TEST

/* ---- names never matter -------------------------------------------------- */

static void ck_same_structure(const cls_family *a, const cls_family *b) {
  const cls_state *x = &a->main, *y = &b->main;
  ck_assert_int_eq(x->state, y->state);
  ck_assert_int_eq(x->decay, y->decay);
  ck_assert_int_eq(x->n_logdecay, y->n_logdecay);
  for (int i = 0; i < x->n_logdecay; i++) {
    ck_assert_int_eq(x->logdecay[i]->op, y->logdecay[i]->op);
    ck_assert_int_eq(x->logdecay[i]->index, y->logdecay[i]->index);
  }
  ck_assert_double_eq(x->logc, y->logc);
  ck_assert_int_eq(x->diag_in, y->diag_in);
  ck_assert_int_eq(x->delta, y->delta);
  ck_assert_double_eq(x->erase.c, y->erase.c);
  ck_assert_int_eq(x->erase.nf, y->erase.nf);
  for (int i = 0; i < x->erase.nf; i++) ck_assert_int_eq(x->erase.f[i]->index, y->erase.f[i]->index);
  ck_assert_double_eq(x->write.c, y->write.c);
  ck_assert_int_eq(x->write.nf, y->write.nf);
  for (int i = 0; i < x->write.nf; i++) ck_assert_int_eq(x->write.f[i]->index, y->write.f[i]->index);
  ck_assert_int_eq(x->key_in, y->key_in);
  ck_assert_int_eq(x->val_in, y->val_in);
  ck_assert_int_eq(a->n_q, b->n_q);
  for (int i = 0; i < a->n_q; i++) {
    ck_assert_int_eq(a->q[i].src_in, b->q[i].src_in);
    ck_assert_double_eq(a->q[i].coef.c, b->q[i].coef.c);
    ck_assert_int_eq(a->q[i].coef.nf, b->q[i].coef.nf);
  }
  ck_assert_int_eq(a->has_solve, b->has_solve);
  ck_assert_double_eq(a->lam_a, b->lam_a);
  ck_assert_double_eq(a->lam_b, b->lam_b);
  ck_assert_int_eq(a->rhs_in, b->rhs_in);
  ck_assert_int_eq(a->iters, b->iters);
}

START_TEST(names_do_not_matter) {
  cls_family ref;
  classify_file("gated_deltanet.yaml", &ref);
  ck_assert_int_eq(ref.main.decay, DECAY_SCALAR);
  ck_assert_int_eq(ref.main.delta, 1);
  /* every input and the state renamed */
  classify("family: whatever\n"
           "dims: {K: 128, V: 128}\n"
           "inputs:\n"
           "  a1: {shape: [K], domain: unit_sphere}\n"
           "  b2: {shape: [K], domain: unit_sphere}\n"
           "  c3: [V]\n"
           "  d4: scalar_log_decay\n"
           "  e5: unit\n"
           "state:\n"
           "  M: {shape: [V, K], update: \"M * (exp(d4) * (I - e5 * b2 b2')) + e5 * c3 b2'\"}\n"
           "readout:\n"
           "  y: \"scale * M a1\"\n");
  ck_same_structure(&ref, &FAM);
  /* names swapped between roles: the state is called q, the query S, the
   * key v, the value k; and the family is called mamba2 */
  classify("family: mamba2\n"
           "dims: {K: 128, V: 128}\n"
           "inputs:\n"
           "  S: {shape: [K], domain: unit_sphere}\n"
           "  v: {shape: [K], domain: unit_sphere}\n"
           "  k: [V]\n"
           "  beta: scalar_log_decay\n"
           "  g: unit\n"
           "state:\n"
           "  q: {shape: [V, K], update: \"q * (exp(beta) * (I - g * v v')) + g * k v'\"}\n"
           "readout:\n"
           "  y: \"scale * q S\"\n");
  ck_same_structure(&ref, &FAM);
  /* the GKA with every name changed */
  cls_family gka;
  classify_file("gated_kalmanet.yaml", &gka);
  classify("family: z\n"
           "dims: {K: 128, V: 128}\n"
           "inputs:\n"
           "  i0: {shape: [K], domain: unit_sphere}\n"
           "  i1: {shape: [K], domain: unit_sphere}\n"
           "  i2: [V]\n"
           "  i3: scalar_log_decay\n"
           "  i4: unit\n"
           "  i5: unit\n"
           "state:\n"
           "  P: {shape: [K, K], symmetric: true, update: \"exp(i3) * P + i4 * i1 i1'\"}\n"
           "  Q: {shape: [V, K], update: \"exp(i3) * Q + i4 * i2 i1'\"}\n"
           "readout:\n"
           "  sol: {solve: \"(P + lambda * I) sol = i0\", method: chebyshev, iters: 30, lambda: \"0.02 * fro(P)\"}\n"
           "  y: \"scale * Q (i0 + i5 * (sol - i0))\"\n");
  ck_same_structure(&gka, &FAM);
  ck_assert_int_eq(FAM.aux.state, gka.aux.state);
  ck_assert_int_eq(FAM.aux.key_in, gka.aux.key_in);
  ck_assert_int_eq(FAM.aux.decay, gka.aux.decay);
  ck_assert_int_eq(FAM.solve_rd, gka.solve_rd);
}
END_TEST

Suite *cls_suite(void) {
  Suite *s = suite_create("cls");
  TCase *tc = tcase_create("recognize");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, identity);
  tcase_add_test(tc, scalar_decay);
  tcase_add_test(tc, per_key_decay);
  tcase_add_test(tc, delta_rule_no_decay);
  tcase_add_test(tc, gated_deltanet_form);
  tcase_add_test(tc, kda_form);
  tcase_add_test(tc, gka_form);
  tcase_add_test(tc, gka_lambda_forms);
  tcase_add_test(tc, gka_lambda_with_offset);
  tcase_add_test(tc, beta_scaled_write);
  tcase_add_test(tc, sum_coefficients);
  tcase_add_test(tc, constant_decay);
  tcase_add_test(tc, local_readout);
  tcase_add_test(tc, names_do_not_matter);
  suite_add_tcase(s, tc);

  TCase *rj = tcase_create("reject");
  tcase_add_checked_fixture(rj, setup, teardown);
  tcase_set_timeout(rj, 60);
  tcase_add_test(rj, rejects_erase_before_decay);
  tcase_add_test(rj, rejects_erase_two_keys);
  tcase_add_test(rj, rejects_write_key_differs_from_erase);
  tcase_add_test(rj, rejects_decay_not_exp);
  tcase_add_test(rj, rejects_two_writes);
  tcase_add_test(rj, rejects_no_write);
  tcase_add_test(rj, rejects_bad_write);
  tcase_add_test(rj, rejects_state_twice);
  tcase_add_test(rj, rejects_state_never_read);
  tcase_add_test(rj, rejects_kk_state_not_symmetric);
  tcase_add_test(rj, rejects_bad_lambda);
  tcase_add_test(rj, rejects_vector_in_coefficient);
  tcase_add_test(rj, rejects_readouts);
  suite_add_tcase(s, rj);
  return s;
}
