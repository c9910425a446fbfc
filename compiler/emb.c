/* compiler stage: emission of the CPU backward (see emb.h). */
#include "emb.h"
#include "emit.h"
#include "sbx.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { char *p; size_t len, cap; } emb_sb;

static void add(emb_sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(emb_sb *b, const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (b->len + (size_t)n + 1 > b->cap) {
    b->cap = (b->len + (size_t)n + 1) * 2;
    b->p = realloc(b->p, b->cap);
  }
  vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap2);
  va_end(ap2);
  b->len += (size_t)n;
}

static void cfloat(emb_sb *b, double v) {
  char t[64];
  snprintf(t, sizeof t, "%.9g", v);
  if (!strpbrk(t, ".eEn")) strcat(t, ".0");
  add(b, "%sf", t);
}

/* A scalar expression as C, inputs read as in[i][t_] (same form as the forward's). */
static void cexpr(emb_sb *b, const layer_spec *s, const ex_node *n) {
  switch (n->op) {
  case EX_NUM: cfloat(b, n->num); return;
  case EX_SYM:
    if (n->sym == SYM_CONST) cfloat(b, s->cst[n->index].value);
    else add(b, "in[%d][t_]", n->index);
    return;
  case EX_CALL:
    add(b, "__builtin_%sf(", n->name);
    cexpr(b, s, n->args[0]);
    add(b, ")");
    return;
  case EX_NEG: add(b, "(-"); cexpr(b, s, n->a); add(b, ")"); return;
  default: {
    static const char ops[] = {[EX_ADD] = '+', [EX_SUB] = '-', [EX_MUL] = '*', [EX_DIV] = '/'};
    add(b, "(");
    cexpr(b, s, n->a);
    add(b, " %c ", ops[n->op]);
    cexpr(b, s, n->b);
    add(b, ")");
  }
  }
}

static char *cstr(const layer_spec *s, const ex_node *n) {
  emb_sb b = {0};
  cexpr(&b, s, n);
  return b.p;
}

/* d n / d in[j] as C; NULL when identically zero. */
static char *deriv(const layer_spec *s, const ex_node *n, int j) {
  emb_sb b = {0};
  switch (n->op) {
  case EX_NUM: return NULL;
  case EX_SYM:
    if (n->sym == SYM_INPUT && n->index == j) { add(&b, "1.0f"); return b.p; }
    return NULL;
  case EX_CALL: {
    char *da = deriv(s, n->args[0], j);
    if (!da) return NULL;
    char *a = cstr(s, n->args[0]);
    if (!strcmp(n->name, "exp")) add(&b, "(__builtin_expf(%s) * %s)", a, da);
    else if (!strcmp(n->name, "log")) add(&b, "(%s / %s)", da, a);
    else add(&b, "(%s / (2.0f * __builtin_sqrtf(%s)))", da, a);
    free(a);
    free(da);
    return b.p;
  }
  case EX_NEG: {
    char *da = deriv(s, n->a, j);
    if (!da) return NULL;
    add(&b, "(-%s)", da);
    free(da);
    return b.p;
  }
  case EX_ADD:
  case EX_SUB: {
    char *da = deriv(s, n->a, j), *db = deriv(s, n->b, j);
    if (!da && !db) return NULL;
    if (da && db) add(&b, "(%s %c %s)", da, n->op == EX_ADD ? '+' : '-', db);
    else if (da) add(&b, "%s", da);
    else add(&b, "(%s%s)", n->op == EX_ADD ? "" : "-", db);
    free(da);
    free(db);
    return b.p;
  }
  case EX_MUL:
  case EX_DIV: {
    char *da = deriv(s, n->a, j), *db = deriv(s, n->b, j);
    if (!da && !db) return NULL;
    char *a = cstr(s, n->a), *bb = cstr(s, n->b);
    if (n->op == EX_MUL) {
      add(&b, "(");
      if (da) add(&b, "%s * %s", da, bb);
      if (da && db) add(&b, " + ");
      if (db) add(&b, "%s * %s", a, db);
      add(&b, ")");
    } else {
      add(&b, "(");
      if (da) add(&b, "%s / %s", da, bb);
      if (db) add(&b, " - %s * %s / (%s * %s)", a, db, bb, bb);
      add(&b, ")");
    }
    free(a); free(bb); free(da); free(db);
    return b.p;
  }
  default: return NULL; /* transposes of scalars do not occur in scalar coefficients */
  }
}

/* d/d in[j] of c * prod f_i^(+-1): sum over i of the product with f_i replaced by its derivative. */
static char *deriv_term(const layer_spec *s, const ex_term *t, int j) {
  emb_sb b = {0};
  int any = 0;
  for (int i = 0; i < t->nf; i++) {
    char *df = deriv(s, t->f[i], j);
    if (!df) continue;
    char *fi = cstr(s, t->f[i]);
    if (any) add(&b, " + ");
    add(&b, "(");
    cfloat(&b, t->c);
    for (int k = 0; k < t->nf; k++) {
      if (k == i) continue;
      char *fk = cstr(s, t->f[k]);
      add(&b, " %s %s", t->finv[k] ? "/" : "*", fk);
      free(fk);
    }
    if (t->finv[i]) add(&b, " * (-%s) / (%s * %s))", df, fi, fi);
    else add(&b, " * %s)", df);
    any = 1;
    free(fi);
    free(df);
  }
  if (!any) { free(b.p); return NULL; }
  emb_sb w = {0}; /* a sum: parenthesized, it is used as a factor */
  add(&w, "(%s)", b.p);
  free(b.p);
  return w.p;
}

static void luastr(emb_sb *b, const char *s) {
  add(b, "\"");
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') add(b, "\\%c", *s);
    else if (*s == '\n') add(b, "\\n");
    else add(b, "%c", *s);
  }
  add(b, "\"");
}

static void lua_coef(emb_sb *b, const layer_spec *s, const ex_term *t) {
  emb_sb c = {0};
  cfloat(&c, t->c);
  for (int i = 0; i < t->nf; i++) {
    add(&c, t->finv[i] ? " / " : " * ");
    cexpr(&c, s, t->f[i]);
  }
  luastr(b, c.p);
  free(c.p);
}

static int is_scalar_input(const layer_spec *s, int j) { return s->in[j].dim == DIM_1; }

/* {{idx = j, d = "..."}, ...} over the scalar inputs the term depends on. */
static void lua_dterm(emb_sb *b, const layer_spec *s, const ex_term *t) {
  add(b, "{");
  for (int j = 0; j < s->n_in; j++) {
    if (!is_scalar_input(s, j)) continue;
    char *d = deriv_term(s, t, j);
    if (!d) continue;
    add(b, "{idx = %d, d = ", j);
    luastr(b, d);
    add(b, "}, ");
    free(d);
  }
  add(b, "}");
}

/* Log decay: logc + sum of scalar expressions; its value and its derivatives. */
static void lua_logdecay(emb_sb *b, const layer_spec *s, const cls_state *st) {
  if (st->decay != DECAY_SCALAR) { add(b, "logdecay = nil, dlog = {}"); return; }
  emb_sb c = {0};
  for (int i = 0; i < st->n_logdecay; i++) {
    if (i) add(&c, " + ");
    cexpr(&c, s, st->logdecay[i]);
  }
  if (st->logc != 0 || !st->n_logdecay) {
    if (st->n_logdecay) add(&c, " + ");
    cfloat(&c, st->logc);
  }
  add(b, "logdecay = ");
  luastr(b, c.p);
  free(c.p);
  add(b, ", dlog = {");
  for (int j = 0; j < s->n_in; j++) {
    if (!is_scalar_input(s, j)) continue;
    emb_sb d = {0};
    for (int i = 0; i < st->n_logdecay; i++) {
      char *di = deriv(s, st->logdecay[i], j);
      if (!di) continue;
      add(&d, "%s%s", d.len ? " + " : "", di);
      free(di);
    }
    if (d.len) {
      emb_sb w = {0}; /* a sum: parenthesized, it is used as a factor */
      add(&w, "(%s)", d.p);
      add(b, "{idx = %d, d = ", j);
      luastr(b, w.p);
      free(w.p);
      add(b, "}, ");
    }
    free(d.p);
  }
  add(b, "}");
}

static int dlen(const layer_spec *s, ex_dim d) { return d == DIM_K ? s->K : d == DIM_V ? s->V : 1; }

static char *context(const cls_family *f, int dtype, int bk, int bv, const char *name) {
  const layer_spec *s = f->spec;
  emb_sb b = {0};
  add(&b, "{\n  name = \"%s\", family = \"%s\", hash = \"%s\",\n  summary = ", name, s->family, s->hash);
  luastr(&b, f->summary);
  add(&b, ",\n  K = %d, V = %d, C = %d, BK = %d, BV = %d, dtype = \"%s\",\n  inputs = {\n", s->K, s->V, s->chunk, bk,
      bv, dtype ? "bf16" : "f32");
  for (int i = 0; i < s->n_in; i++) {
    const spec_input *in = &s->in[i];
    int gate = in->dim == DIM_1 || in->domain == DOM_LOG_DECAY || in->domain == DOM_UNIT;
    int qk = in->dim == DIM_K && !gate;
    add(&b, "    {idx = %d, name = \"%s\", D = %d, heads = \"%s\", gate = %s},\n", i, in->name, dlen(s, in->dim),
        qk ? "qk" : "v", gate ? "true" : "false");
  }
  const cls_state *m = &f->main;
  static const char *const decay[] = {"none", "scalar", "diag"};
  add(&b, "  },\n  main = {state = %d, decay = \"%s\", ", m->state, decay[m->decay]);
  lua_logdecay(&b, s, m);
  add(&b, ", diag_in = %d, delta = %s, erase = ", m->diag_in, m->delta ? "true" : "false");
  if (m->delta) {
    lua_coef(&b, s, &m->erase);
    add(&b, ", derase = ");
    lua_dterm(&b, s, &m->erase);
  } else {
    add(&b, "nil, derase = {}");
  }
  add(&b, ", write = ");
  lua_coef(&b, s, &m->write);
  add(&b, ", dwrite = ");
  lua_dterm(&b, s, &m->write);
  add(&b, ", key = %d, val = %d},\n  q = {\n", m->key_in, m->val_in);
  for (int i = 0; i < f->n_q; i++) {
    add(&b, "    {coef = ");
    lua_coef(&b, s, &f->q[i].coef);
    add(&b, ", dcoef = ");
    lua_dterm(&b, s, &f->q[i].coef);
    if (f->q[i].src_in >= 0) add(&b, ", src = \"%d\"},\n", f->q[i].src_in);
    else add(&b, ", src = \"X\"},\n");
  }
  add(&b, "  },\n");
  if (f->has_solve) {
    add(&b, "  solve = {state = %d, ", f->aux.state);
    lua_logdecay(&b, s, &f->aux);
    add(&b, ", write = ");
    lua_coef(&b, s, &f->aux.write);
    add(&b, ", dwrite = ");
    lua_dterm(&b, s, &f->aux.write);
    add(&b, ", key = %d, lam_a = %.17g, lam_b = %.17g, iters = %d, rhs = %d},\n", f->aux.key_in, f->lam_a, f->lam_b,
        f->iters, f->rhs_in);
  }
  add(&b, "}\n");
  return b.p;
}

int emb_cpu_backward(const cls_family *f, int dtype, int bk, int bv, const char *name, sbx *lua, char **src,
                     size_t *len, diag *d) {
  const char *tpl = emit_template("cpu_bwd.c.tpl", d);
  if (!tpl) return 1;
  char *ctx = context(f, dtype, bk, bv, name);
  char msg[512];
  int line = 0;
  int rc = sbx_render(lua, "cpu_bwd.c.tpl", tpl, ctx, src, len, msg, sizeof msg, &line);
  free(ctx);
  if (rc) return diag_at(d, NULL, 0, 0, "template cpu_bwd.c.tpl:%d: %s", line, msg);
  return 0;
}

void emb_manifest_lines(const cls_family *f, const char *name, char *buf, size_t n) {
  snprintf(buf, n,
           "  entry %s_bwd (chunkwise backward: gradients of every input and initial state; items (sequence, q/k head))\n"
           "  backward_workspace %s_bwd_ws(longest sequence) floats per thread: chunk-start states of one sequence,"
           " per-token states of one chunk (recomputed, never stored globally)\n"
           "  backward_saved %s\n",
           name, name,
           f->has_solve ? "optional: the forward's aux x (T,h_v,K) f32 (aux_in; recomputed by the same Chebyshev when NULL)"
                        : "nothing");
}
