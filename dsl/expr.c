/* dsl stage: expression language — lexer, parser, shape checker, expansion
 * (see expr.h). */
#include "expr.h"
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- lexer */

typedef enum { TK_END, TK_NUM, TK_NAME, TK_PUNCT } tk_kind;

typedef struct {
  const char *s;       /* text */
  size_t i;            /* cursor */
  int line, col;       /* position of cursor */
  int col0;            /* column of the first character on continuation lines */
  const srcfile *f;
  arena *a;
  diag *d;
  /* current token */
  tk_kind k;
  char punct;
  double num;
  const char *name;
  int tline, tcol;
} lexer;

static void lx_advance_char(lexer *L) {
  if (L->s[L->i] == '\n') { L->line++; L->col = L->col0; }
  else L->col++;
  L->i++;
}

static int lx_next(lexer *L) {
  while (L->s[L->i] && isspace((unsigned char)L->s[L->i])) lx_advance_char(L);
  L->tline = L->line;
  L->tcol = L->col;
  char c = L->s[L->i];
  if (!c) { L->k = TK_END; return 0; }
  if (isdigit((unsigned char)c) || (c == '.' && isdigit((unsigned char)L->s[L->i + 1]))) {
    char *end;
    L->num = strtod(L->s + L->i, &end);
    size_t n = (size_t)(end - (L->s + L->i));
    for (size_t j = 0; j < n; j++) lx_advance_char(L);
    L->k = TK_NUM;
    return 0;
  }
  if (isalpha((unsigned char)c) || c == '_') {
    size_t st = L->i;
    while (isalnum((unsigned char)L->s[L->i]) || L->s[L->i] == '_') lx_advance_char(L);
    L->name = arena_strndup(L->a, L->s + st, L->i - st);
    L->k = TK_NAME;
    return 0;
  }
  if (strchr("+-*/()',=", c)) {
    L->punct = c;
    L->k = TK_PUNCT;
    lx_advance_char(L);
    return 0;
  }
  return diag_at(L->d, L->f, L->tline, L->tcol, "unexpected character '%c' in expression", c);
}

static int is_punct(const lexer *L, char c) { return L->k == TK_PUNCT && L->punct == c; }

static ex_node *mk(lexer *L, ex_op op, int line, int col) {
  ex_node *n = arena_alloc(L->a, sizeof *n);
  n->op = op;
  n->line = line;
  n->col = col;
  return n;
}

/* ---------------------------------------------------------------- parser */

static ex_node *p_expr(lexer *L);

static const char *const ex_funcs[] = {"exp", "log", "sqrt", "diag", "fro"};
enum { N_FUNCS = 5 };

static int is_func(const char *s) {
  for (int i = 0; i < N_FUNCS; i++)
    if (!strcmp(s, ex_funcs[i])) return 1;
  return 0;
}

static ex_node *p_primary(lexer *L) {
  int line = L->tline, col = L->tcol;
  if (L->k == TK_NUM) {
    ex_node *n = mk(L, EX_NUM, line, col);
    n->num = L->num;
    return lx_next(L) ? NULL : n;
  }
  if (L->k == TK_NAME) {
    const char *name = L->name;
    if (lx_next(L)) return NULL;
    if (is_func(name) && is_punct(L, '(')) {
      ex_node *n = mk(L, EX_CALL, line, col);
      n->name = name;
      ex_node *args[4];
      int na = 0;
      if (lx_next(L)) return NULL;
      for (;;) {
        ex_node *e = p_expr(L);
        if (!e) return NULL;
        if (na == 4) { diag_at(L->d, L->f, e->line, e->col, "too many arguments to %s()", name); return NULL; }
        args[na++] = e;
        if (is_punct(L, ',')) { if (lx_next(L)) return NULL; continue; }
        break;
      }
      if (!is_punct(L, ')')) {
        diag_at(L->d, L->f, L->tline, L->tcol, "expected ')' to close the call of %s()", name);
        return NULL;
      }
      n->args = arena_alloc(L->a, sizeof(ex_node *) * (size_t)na);
      memcpy(n->args, args, sizeof(ex_node *) * (size_t)na);
      n->nargs = na;
      return lx_next(L) ? NULL : n;
    }
    ex_node *n = mk(L, EX_SYM, line, col);
    n->name = name;
    return n;
  }
  if (is_punct(L, '(')) {
    if (lx_next(L)) return NULL;
    ex_node *e = p_expr(L);
    if (!e) return NULL;
    if (!is_punct(L, ')')) {
      diag_at(L->d, L->f, L->tline, L->tcol, "expected ')'");
      diag_note(L->d, "the '(' is at line %d, column %d", line, col);
      return NULL;
    }
    return lx_next(L) ? NULL : e;
  }
  if (L->k == TK_END)
    diag_at(L->d, L->f, L->tline, L->tcol, "expression ends too early");
  else
    diag_at(L->d, L->f, L->tline, L->tcol, "expected a name, a number or '(' here");
  return NULL;
}

static ex_node *p_postfix(lexer *L) {
  ex_node *e = p_primary(L);
  while (e && is_punct(L, '\'')) {
    ex_node *t = mk(L, EX_T, e->line, e->col);
    t->a = e;
    e = t;
    if (lx_next(L)) return NULL;
  }
  return e;
}

static ex_node *p_unary(lexer *L) {
  if (is_punct(L, '-')) {
    int line = L->tline, col = L->tcol;
    if (lx_next(L)) return NULL;
    ex_node *e = p_unary(L);
    if (!e) return NULL;
    ex_node *n = mk(L, EX_NEG, line, col);
    n->a = e;
    return n;
  }
  return p_postfix(L);
}

static int starts_primary(const lexer *L) {
  return L->k == TK_NUM || L->k == TK_NAME || is_punct(L, '(');
}

static ex_node *p_term(lexer *L) {
  ex_node *e = p_unary(L);
  while (e) {
    ex_op op;
    if (is_punct(L, '*')) op = EX_MUL;
    else if (is_punct(L, '/')) op = EX_DIV;
    else if (starts_primary(L)) op = EX_MUL; /* juxtaposition */
    else break;
    int explicit_op = is_punct(L, '*') || is_punct(L, '/');
    if (explicit_op && lx_next(L)) return NULL;
    ex_node *r = p_unary(L);
    if (!r) return NULL;
    ex_node *n = mk(L, op, e->line, e->col);
    n->a = e;
    n->b = r;
    e = n;
  }
  return e;
}

static ex_node *p_expr(lexer *L) {
  ex_node *e = p_term(L);
  while (e && (is_punct(L, '+') || is_punct(L, '-'))) {
    ex_op op = L->punct == '+' ? EX_ADD : EX_SUB;
    if (lx_next(L)) return NULL;
    ex_node *r = p_term(L);
    if (!r) return NULL;
    ex_node *n = mk(L, op, e->line, e->col);
    n->a = e;
    n->b = r;
    e = n;
  }
  return e;
}

static void lx_init(lexer *L, const char *text, const srcfile *f, int line, int col, arena *a, diag *d) {
  memset(L, 0, sizeof *L);
  L->s = text;
  L->line = line;
  L->col = col;
  L->col0 = col;
  L->f = f;
  L->a = a;
  L->d = d;
}

ex_node *ex_parse(const char *text, const srcfile *f, int line, int col, arena *a, diag *d) {
  lexer L;
  lx_init(&L, text, f, line, col, a, d);
  if (lx_next(&L)) return NULL;
  if (L.k == TK_END) { diag_at(d, f, line, col, "empty expression"); return NULL; }
  ex_node *e = p_expr(&L);
  if (!e) return NULL;
  if (L.k != TK_END) {
    diag_at(d, f, L.tline, L.tcol, "unexpected %s after the end of the expression",
            L.k == TK_PUNCT && L.punct == '=' ? "'='" : "text");
    return NULL;
  }
  return e;
}

int ex_parse_equation(const char *text, const srcfile *f, int line, int col, arena *a,
                      ex_node **lhs, ex_node **rhs, diag *d) {
  lexer L;
  lx_init(&L, text, f, line, col, a, d);
  if (lx_next(&L)) return 1;
  if (!(*lhs = p_expr(&L))) return 1;
  if (!is_punct(&L, '='))
    return diag_at(d, f, L.tline, L.tcol, "expected '=' in the solve equation (form: (M) x = b)");
  if (lx_next(&L)) return 1;
  if (!(*rhs = p_expr(&L))) return 1;
  if (L.k != TK_END) return diag_at(d, f, L.tline, L.tcol, "unexpected text after the equation");
  return 0;
}

/* ---------------------------------------------------------------- shapes */

const char *ex_dim_name(ex_dim d) {
  switch (d) {
  case DIM_1: return "1";
  case DIM_K: return "K";
  case DIM_V: return "V";
  default: return "?";
  }
}

static void shape_str(ex_dim r, ex_dim c, char *buf, size_t len) {
  if (r == DIM_1 && c == DIM_1) snprintf(buf, len, "scalar");
  else if (c == DIM_1) snprintf(buf, len, "[%s]", ex_dim_name(r));
  else if (r == DIM_1) snprintf(buf, len, "[%s]'", ex_dim_name(c));
  else snprintf(buf, len, "[%s,%s]", ex_dim_name(r), ex_dim_name(c));
}

void ex_shape_str(const ex_node *n, char *buf, size_t len) { shape_str(n->rows, n->cols, buf, len); }

int ex_is_scalar(const ex_node *n) { return n->rows == DIM_1 && n->cols == DIM_1; }

/* The identity's size, once known, is written back into every I below n. */
static void resolve_ident(ex_node *n, ex_dim d) {
  if (!n) return;
  if (n->rows != DIM_ANY) return;
  n->rows = n->cols = d;
  resolve_ident(n->a, d);
  resolve_ident(n->b, d);
}

static int is_unresolved(const ex_node *n) { return n->rows == DIM_ANY; }

static int check(ex_node *n, const ex_env *env, const srcfile *f, diag *d);

static int mismatch(diag *d, const srcfile *f, const ex_node *at, const char *what,
                    const ex_node *x, const ex_node *y) {
  char sx[32], sy[32];
  ex_shape_str(x, sx, sizeof sx);
  ex_shape_str(y, sy, sizeof sy);
  return diag_at(d, f, at->line, at->col, "shape mismatch: cannot %s %s and %s", what, sx, sy);
}

static int check_call(ex_node *n, const ex_env *env, const srcfile *f, diag *d) {
  if (n->nargs != 1) return diag_at(d, f, n->line, n->col, "%s() takes one argument", n->name);
  ex_node *x = n->args[0];
  if (check(x, env, f, d)) return 1;
  if (is_unresolved(x)) return diag_at(d, f, x->line, x->col, "%s() of the identity is not supported", n->name);
  if (!strcmp(n->name, "diag")) {
    if (x->cols != DIM_1 || x->rows == DIM_1)
      return diag_at(d, f, x->line, x->col, "diag() takes a column vector");
    n->rows = n->cols = x->rows;
  } else if (!strcmp(n->name, "fro")) {
    if (x->rows == DIM_1 || x->cols == DIM_1)
      return diag_at(d, f, x->line, x->col, "fro() takes a matrix (the Frobenius norm)");
    n->rows = n->cols = DIM_1;
  } else { /* elementwise */
    if (x->rows != DIM_1 && x->cols != DIM_1)
      return diag_at(d, f, n->line, n->col, "%s() applies to scalars and vectors, not matrices", n->name);
    n->rows = x->rows;
    n->cols = x->cols;
  }
  return 0;
}

static int check_sym(ex_node *n, const ex_env *env, const srcfile *f, diag *d) {
  if (!strcmp(n->name, "I")) {
    n->sym = SYM_IDENT;
    n->rows = n->cols = DIM_ANY;
    return 0;
  }
  for (int i = 0; i < env->n; i++)
    if (!strcmp(env->b[i].name, n->name)) {
      n->sym = env->b[i].kind;
      n->index = env->b[i].index;
      n->rows = env->b[i].rows;
      n->cols = env->b[i].cols;
      return 0;
    }
  const char *cands[64];
  int nc = 0;
  for (int i = 0; i < env->n && nc < 60; i++) cands[nc++] = env->b[i].name;
  for (int i = 0; i < N_FUNCS; i++) cands[nc++] = ex_funcs[i];
  diag_at(d, f, n->line, n->col, "unknown name '%s'", n->name);
  const char *near = diag_nearest(n->name, cands, nc);
  if (near) diag_note(d, "did you mean '%s'?", near);
  return 1;
}

static int check_mul(ex_node *n, const srcfile *f, diag *d) {
  ex_node *x = n->a, *y = n->b;
  if (is_unresolved(x) && is_unresolved(y))
    return diag_at(d, f, n->line, n->col, "cannot infer the size of I in a product of identities");
  if (ex_is_scalar(x)) { n->rows = y->rows; n->cols = y->cols; return 0; }
  if (ex_is_scalar(y)) { n->rows = x->rows; n->cols = x->cols; return 0; }
  if (is_unresolved(x)) { resolve_ident(x, y->rows); }
  if (is_unresolved(y)) { resolve_ident(y, x->cols); }
  if (x->cols != y->rows) return mismatch(d, f, n, "multiply", x, y);
  n->rows = x->rows;
  n->cols = y->cols;
  return 0;
}

static int check(ex_node *n, const ex_env *env, const srcfile *f, diag *d) {
  switch (n->op) {
  case EX_NUM: n->rows = n->cols = DIM_1; return 0;
  case EX_SYM: return check_sym(n, env, f, d);
  case EX_CALL: return check_call(n, env, f, d);
  case EX_NEG:
    if (check(n->a, env, f, d)) return 1;
    n->rows = n->a->rows;
    n->cols = n->a->cols;
    return 0;
  case EX_T:
    if (check(n->a, env, f, d)) return 1;
    n->rows = n->a->cols;
    n->cols = n->a->rows;
    return 0;
  case EX_ADD:
  case EX_SUB: {
    if (check(n->a, env, f, d) || check(n->b, env, f, d)) return 1;
    ex_node *x = n->a, *y = n->b;
    if (is_unresolved(x) && is_unresolved(y)) { n->rows = n->cols = DIM_ANY; return 0; }
    if (is_unresolved(x) || is_unresolved(y)) {
      ex_node *id = is_unresolved(x) ? x : y, *o = is_unresolved(x) ? y : x;
      if (o->rows != o->cols || o->rows == DIM_1) {
        char so[32];
        ex_shape_str(o, so, sizeof so);
        return diag_at(d, f, id->line, id->col, "the identity I cannot be added to %s (not a square matrix)", so);
      }
      resolve_ident(id, o->rows);
    }
    if (x->rows != y->rows || x->cols != y->cols)
      return mismatch(d, f, n, n->op == EX_ADD ? "add" : "subtract", x, y);
    n->rows = x->rows;
    n->cols = x->cols;
    return 0;
  }
  case EX_MUL:
    if (check(n->a, env, f, d) || check(n->b, env, f, d)) return 1;
    return check_mul(n, f, d);
  case EX_DIV:
    if (check(n->a, env, f, d) || check(n->b, env, f, d)) return 1;
    if (!ex_is_scalar(n->b)) return diag_at(d, f, n->b->line, n->b->col, "can only divide by a scalar");
    n->rows = n->a->rows;
    n->cols = n->a->cols;
    return 0;
  }
  return 0;
}

int ex_check(ex_node *n, const ex_env *env, const srcfile *f, diag *d) {
  if (check(n, env, f, d)) return 1;
  if (is_unresolved(n)) return diag_at(d, f, n->line, n->col, "cannot infer the size of I here");
  return 0;
}

/* ---------------------------------------------------------------- queries */

int ex_equal(const ex_node *x, const ex_node *y) {
  if (x == y) return 1;
  if (!x || !y || x->op != y->op) return 0;
  switch (x->op) {
  case EX_NUM: return x->num == y->num;
  case EX_SYM: return !strcmp(x->name, y->name);
  case EX_CALL:
    if (strcmp(x->name, y->name) || x->nargs != y->nargs) return 0;
    for (int i = 0; i < x->nargs; i++)
      if (!ex_equal(x->args[i], y->args[i])) return 0;
    return 1;
  default: return ex_equal(x->a, y->a) && ex_equal(x->b, y->b);
  }
}

int ex_contains_kind(const ex_node *n, ex_symkind kind) {
  if (!n) return 0;
  if (n->op == EX_SYM) return n->sym == kind;
  if (n->op == EX_CALL) {
    for (int i = 0; i < n->nargs; i++)
      if (ex_contains_kind(n->args[i], kind)) return 1;
    return 0;
  }
  return ex_contains_kind(n->a, kind) || ex_contains_kind(n->b, kind);
}

typedef struct { char *p; size_t left, need; } sbuf;

static void put(sbuf *b, const char *s) {
  size_t n = strlen(s);
  b->need += n;
  if (n >= b->left) n = b->left ? b->left - 1 : 0;
  if (n) memcpy(b->p, s, n);
  b->p += n;
  b->left -= n;
  if (b->left) *b->p = 0;
}

static int prec(const ex_node *n) {
  switch (n->op) {
  case EX_ADD: case EX_SUB: return 1;
  case EX_MUL: case EX_DIV: return 2;
  case EX_NEG: return 3;
  default: return 4;
  }
}

static void print_node(const ex_node *n, sbuf *b, int parent_prec) {
  int p = prec(n);
  int paren = p < parent_prec;
  if (paren) put(b, "(");
  char tmp[64];
  switch (n->op) {
  case EX_NUM: snprintf(tmp, sizeof tmp, "%.17g", n->num); put(b, tmp); break;
  case EX_SYM: put(b, n->name); break;
  case EX_CALL:
    put(b, n->name);
    put(b, "(");
    for (int i = 0; i < n->nargs; i++) { if (i) put(b, ", "); print_node(n->args[i], b, 0); }
    put(b, ")");
    break;
  case EX_NEG: put(b, "-"); print_node(n->a, b, 3); break;
  case EX_T: print_node(n->a, b, 5); put(b, "'"); break;
  case EX_ADD: case EX_SUB:
    print_node(n->a, b, 1);
    put(b, n->op == EX_ADD ? " + " : " - ");
    print_node(n->b, b, 2);
    break;
  case EX_MUL: case EX_DIV:
    print_node(n->a, b, 2);
    put(b, n->op == EX_MUL ? " * " : " / ");
    print_node(n->b, b, 3);
    break;
  }
  if (paren) put(b, ")");
}

size_t ex_print(const ex_node *n, char *buf, size_t len) {
  sbuf b = {buf, len, 0};
  if (len) buf[0] = 0;
  print_node(n, &b, 0);
  return b.need;
}

/* ---------------------------------------------------------------- expansion */

typedef struct { arena *a; const srcfile *f; diag *d; } ectx;

static int too_complex(ectx *c, const ex_node *n) {
  return diag_at(c->d, c->f, n->line, n->col,
                 "expression too complex to expand (more than %d terms in a product)", EX_MAX_CHAIN);
}

/* A scalar subtree with no vector/matrix symbol inside is one opaque factor. */
static int is_opaque_scalar(const ex_node *n) {
  if (!ex_is_scalar(n)) return 0;
  if (n->op == EX_SYM) return 1;
  if (n->op == EX_CALL) return 1; /* exp(g), fro(H), ... are opaque factors */
  if (n->op == EX_NUM) return 1;
  return (n->a ? is_opaque_scalar(n->a) : 1) && (n->b ? is_opaque_scalar(n->b) : 1);
}

static ex_sum sum_new(ectx *c, int n) {
  ex_sum s = {n, n ? arena_alloc(c->a, sizeof(ex_term) * (size_t)n) : NULL};
  return s;
}

static const ex_node *transpose_atom(ectx *c, const ex_node *atom) {
  if (atom->op == EX_T) return atom->a;
  if (atom->op == EX_CALL) return atom; /* diag(.) is symmetric */
  ex_node *t = arena_alloc(c->a, sizeof *t);
  t->op = EX_T;
  t->a = (ex_node *)atom;
  t->line = atom->line;
  t->col = atom->col;
  t->rows = atom->cols;
  t->cols = atom->rows;
  return t;
}

static int expand(ectx *c, const ex_node *n, ex_sum *out);

static int expand_mul(ectx *c, const ex_node *n, ex_sum *out) {
  ex_sum x, y;
  if (expand(c, n->a, &x) || expand(c, n->b, &y)) return 1;
  *out = sum_new(c, x.n * y.n);
  for (int i = 0; i < x.n; i++)
    for (int j = 0; j < y.n; j++) {
      ex_term *t = &out->t[i * y.n + j];
      const ex_term *p = &x.t[i], *q = &y.t[j];
      if (p->nf + q->nf > EX_MAX_FACTORS || p->na + q->na > EX_MAX_CHAIN) return too_complex(c, n);
      *t = *p;
      t->c = p->c * q->c;
      for (int k = 0; k < q->nf; k++) { t->f[t->nf] = q->f[k]; t->finv[t->nf++] = q->finv[k]; }
      for (int k = 0; k < q->na; k++) t->atom[t->na++] = q->atom[k];
    }
  return 0;
}

static int expand(ectx *c, const ex_node *n, ex_sum *out) {
  if (n->op == EX_NUM) {
    *out = sum_new(c, 1);
    out->t[0].c = n->num;
    return 0;
  }
  if (n->op == EX_SYM && n->sym == SYM_IDENT) { /* identity: the empty chain */
    *out = sum_new(c, 1);
    out->t[0].c = 1;
    return 0;
  }
  /* scalar sums and products are distributed too; only leaves stay opaque */
  int compound = n->op == EX_MUL || n->op == EX_DIV || n->op == EX_ADD || n->op == EX_SUB || n->op == EX_NEG;
  if (!compound && is_opaque_scalar(n)) {
    *out = sum_new(c, 1);
    out->t[0].c = 1;
    out->t[0].nf = 1;
    out->t[0].f[0] = n;
    return 0;
  }
  switch (n->op) {
  case EX_SYM:
  case EX_CALL: /* non-scalar symbol or diag(...) */
    if (n->op == EX_CALL && strcmp(n->name, "diag"))
      return diag_at(c->d, c->f, n->line, n->col,
                     "an elementwise %s() of a vector can only appear inside diag(...)", n->name);
    *out = sum_new(c, 1);
    out->t[0].c = 1;
    out->t[0].na = 1;
    out->t[0].atom[0] = n;
    return 0;
  case EX_ADD:
  case EX_SUB: {
    ex_sum x, y;
    if (expand(c, n->a, &x) || expand(c, n->b, &y)) return 1;
    *out = sum_new(c, x.n + y.n);
    memcpy(out->t, x.t, sizeof(ex_term) * (size_t)x.n);
    memcpy(out->t + x.n, y.t, sizeof(ex_term) * (size_t)y.n);
    if (n->op == EX_SUB)
      for (int i = 0; i < y.n; i++) out->t[x.n + i].c = -out->t[x.n + i].c;
    return 0;
  }
  case EX_NEG:
    if (expand(c, n->a, out)) return 1;
    for (int i = 0; i < out->n; i++) out->t[i].c = -out->t[i].c;
    return 0;
  case EX_MUL: return expand_mul(c, n, out);
  case EX_DIV: {
    if (expand(c, n->a, out)) return 1;
    for (int i = 0; i < out->n; i++) {
      ex_term *t = &out->t[i];
      if (n->b->op == EX_NUM) { t->c /= n->b->num; continue; }
      if (t->nf == EX_MAX_FACTORS) return too_complex(c, n);
      t->f[t->nf] = n->b;
      t->finv[t->nf++] = 1;
    }
    return 0;
  }
  case EX_T: {
    if (expand(c, n->a, out)) return 1;
    for (int i = 0; i < out->n; i++) {
      ex_term *t = &out->t[i];
      const ex_node *rev[EX_MAX_CHAIN];
      for (int k = 0; k < t->na; k++) rev[k] = transpose_atom(c, t->atom[t->na - 1 - k]);
      memcpy(t->atom, rev, sizeof(rev[0]) * (size_t)t->na);
    }
    return 0;
  }
  case EX_NUM: break;
  }
  return 0;
}

static int same_chain(const ex_term *x, const ex_term *y) {
  if (x->na != y->na) return 0;
  for (int i = 0; i < x->na; i++)
    if (!ex_equal(x->atom[i], y->atom[i])) return 0;
  return 1;
}

/* Like terms (same chain, same factors) are merged; zero terms dropped. */
static void merge_terms(ex_sum *s) {
  int n = 0;
  for (int i = 0; i < s->n; i++) {
    int j = 0;
    while (j < n && !(same_chain(&s->t[j], &s->t[i]) && ex_factors_equal(&s->t[j], &s->t[i]))) j++;
    if (j < n) s->t[j].c += s->t[i].c;
    else s->t[n++] = s->t[i];
  }
  int m = 0;
  for (int i = 0; i < n; i++)
    if (s->t[i].c != 0) s->t[m++] = s->t[i];
  s->n = m;
}

int ex_expand(const ex_node *n, arena *a, const srcfile *f, ex_sum *out, diag *d) {
  ectx c = {a, f, d};
  if (expand(&c, n, out)) return 1;
  merge_terms(out);
  return 0;
}

const ex_node *ex_atom_sym(const ex_node *atom, int *transposed) {
  *transposed = atom->op == EX_T;
  return atom->op == EX_T ? atom->a : atom;
}

int ex_factors_divide(const ex_term *num, const ex_term *den, ex_term *quot) {
  int used[EX_MAX_FACTORS] = {0};
  for (int i = 0; i < den->nf; i++) {
    int found = 0;
    for (int j = 0; j < num->nf && !found; j++)
      if (!used[j] && den->finv[i] == num->finv[j] && ex_equal(den->f[i], num->f[j])) used[j] = found = 1;
    if (!found) return 1;
  }
  if (quot) {
    memset(quot, 0, sizeof *quot);
    for (int j = 0; j < num->nf; j++)
      if (!used[j]) { quot->f[quot->nf] = num->f[j]; quot->finv[quot->nf++] = num->finv[j]; }
    quot->c = num->c / den->c;
  }
  return 0;
}

int ex_factors_equal(const ex_term *x, const ex_term *y) {
  return x->nf == y->nf && ex_factors_divide(x, y, NULL) == 0;
}

/* ---------------------------------------------------------------- collection */

static ex_node *scalar_node(arena *a, ex_op op, const ex_node *x, const ex_node *y, const ex_node *at) {
  ex_node *n = arena_alloc(a, sizeof *n);
  n->op = op;
  n->a = (ex_node *)x;
  n->b = (ex_node *)y;
  n->line = at->line;
  n->col = at->col;
  n->rows = n->cols = DIM_1;
  return n;
}

static ex_node *num_node(arena *a, double v, const ex_node *at) {
  ex_node *n = scalar_node(a, EX_NUM, NULL, NULL, at);
  n->num = v;
  return n;
}

/* The factors of every term of g[0..n) that all of them share (as a multiset). */
static void common_factors(const ex_term *const *g, int n, ex_term *common) {
  memset(common, 0, sizeof *common);
  common->c = 1;
  int used[EX_MAX_CHAIN * 2][EX_MAX_FACTORS];
  memset(used, 0, sizeof used);
  for (int i = 0; i < g[0]->nf; i++) {
    int pick[EX_MAX_CHAIN * 2], all = 1;
    for (int m = 1; m < n && all; m++) {
      pick[m] = -1;
      for (int j = 0; j < g[m]->nf && pick[m] < 0; j++)
        if (!used[m][j] && g[m]->finv[j] == g[0]->finv[i] && ex_equal(g[m]->f[j], g[0]->f[i])) pick[m] = j;
      all = pick[m] >= 0;
    }
    if (!all) continue;
    used[0][i] = 1;
    for (int m = 1; m < n; m++) used[m][pick[m]] = 1;
    common->f[common->nf] = g[0]->f[i];
    common->finv[common->nf++] = g[0]->finv[i];
  }
}

/* c * prod of t's factors that are not in common, as one node. */
static const ex_node *rest_node(arena *a, const ex_term *t, double c, const ex_term *common, const ex_node *at) {
  ex_term rest;
  ex_factors_divide(t, common, &rest);
  const ex_node *n = c == 1 && rest.nf && !rest.finv[0] ? NULL : num_node(a, c, at);
  for (int i = 0; i < rest.nf; i++) {
    if (!n) n = rest.f[i];
    else n = scalar_node(a, rest.finv[i] ? EX_DIV : EX_MUL, n, rest.f[i], at);
  }
  return n;
}

/* The source position of a group: its first atom or factor. */
static const ex_node *group_at(const ex_term *const *g, int n) {
  if (g[0]->na) return g[0]->atom[0];
  for (int m = 0; m < n; m++)
    if (g[m]->nf) return g[m]->f[0];
  return NULL;
}

/* Returns 1 (out untouched) when the combined term would have too many factors. */
static int collect_group(ex_term *out, const ex_term *const *g, int n, arena *a) {
  ex_term common;
  common_factors(g, n, &common);
  const ex_node *at = group_at(g, n);
  if (!at || common.nf == EX_MAX_FACTORS) return 1;
  const ex_node *sum = NULL;
  for (int m = 0; m < n; m++) {
    int sub = sum && g[m]->c < 0; /* a - b rather than a + -1 b */
    const ex_node *r = rest_node(a, g[m], sub ? -g[m]->c : g[m]->c, &common, at);
    sum = sum ? scalar_node(a, sub ? EX_SUB : EX_ADD, sum, r, at) : r;
  }
  *out = *g[0];
  memcpy(out->f, common.f, sizeof common.f);
  memcpy(out->finv, common.finv, sizeof common.finv);
  out->nf = common.nf;
  out->c = 1;
  out->f[out->nf] = sum;
  out->finv[out->nf++] = 0;
  return 0;
}

void ex_collect(ex_sum *s, arena *a) {
  int n = 0;
  ex_term *t = arena_alloc(a, sizeof(ex_term) * (size_t)(s->n ? s->n : 1)); /* never more terms than before */
  char *done = arena_alloc(a, (size_t)(s->n ? s->n : 1));
  for (int i = 0; i < s->n; i++) {
    if (done[i]) continue;
    const ex_term *g[EX_MAX_CHAIN * 2];
    int ng = 0;
    for (int j = i; j < s->n; j++)
      if (!done[j] && same_chain(&s->t[i], &s->t[j]) && ng < EX_MAX_CHAIN * 2) { g[ng++] = &s->t[j]; done[j] = 1; }
    if (ng > 1 && !collect_group(&t[n], g, ng, a)) { n++; continue; }
    for (int m = 0; m < ng; m++) t[n++] = *g[m];
  }
  s->t = t;
  s->n = n;
}
