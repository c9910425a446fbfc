/* compiler stage: emission of the CPU backward (see emb.h). */
#include "emb.h"
#include "emit.h"
#include "sbx.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* n as C (the shared printer of emit.c), malloc'd. */
static char *cstr(const layer_spec *s, const ex_node *n) {
  emit_buf b = {0};
  emit_c_scalar(&b, s, n);
  return b.p;
}

/* d n / d in[j] as C; NULL when identically zero. */
static char *deriv(const layer_spec *s, const ex_node *n, int j) {
  emit_buf b = {0};
  switch (n->op) {
  case EX_NUM: return NULL;
  case EX_SYM:
    if (n->sym == SYM_INPUT && n->index == j) { emit_add(&b, "1.0f"); return b.p; }
    return NULL;
  case EX_CALL: {
    char *da = deriv(s, n->args[0], j);
    if (!da) return NULL;
    char *a = cstr(s, n->args[0]);
    if (!strcmp(n->name, "exp")) emit_add(&b, "(__builtin_expf(%s) * %s)", a, da);
    else if (!strcmp(n->name, "log")) emit_add(&b, "(%s / %s)", da, a);
    else emit_add(&b, "(%s / (2.0f * __builtin_sqrtf(%s)))", da, a);
    free(a);
    free(da);
    return b.p;
  }
  case EX_NEG: {
    char *da = deriv(s, n->a, j);
    if (!da) return NULL;
    emit_add(&b, "(-%s)", da);
    free(da);
    return b.p;
  }
  case EX_ADD:
  case EX_SUB: {
    char *da = deriv(s, n->a, j), *db = deriv(s, n->b, j);
    if (!da && !db) return NULL;
    if (da && db) emit_add(&b, "(%s %c %s)", da, n->op == EX_ADD ? '+' : '-', db);
    else if (da) emit_add(&b, "%s", da);
    else emit_add(&b, "(%s%s)", n->op == EX_ADD ? "" : "-", db);
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
      emit_add(&b, "(");
      if (da) emit_add(&b, "%s * %s", da, bb);
      if (da && db) emit_add(&b, " + ");
      if (db) emit_add(&b, "%s * %s", a, db);
      emit_add(&b, ")");
    } else {
      emit_add(&b, "(");
      if (da) emit_add(&b, "%s / %s", da, bb);
      if (db) emit_add(&b, " - %s * %s / (%s * %s)", a, db, bb, bb);
      emit_add(&b, ")");
    }
    free(a); free(bb); free(da); free(db);
    return b.p;
  }
  default: return NULL; /* transposes of scalars do not occur in scalar coefficients */
  }
}

/* d/d in[j] of c * prod f_i^(+-1): sum over i of the product with f_i replaced by its derivative. */
static char *deriv_term(const layer_spec *s, const ex_term *t, int j) {
  emit_buf b = {0};
  int any = 0;
  for (int i = 0; i < t->nf; i++) {
    char *df = deriv(s, t->f[i], j);
    if (!df) continue;
    char *fi = cstr(s, t->f[i]);
    if (any) emit_add(&b, " + ");
    emit_add(&b, "(");
    emit_c_float(&b, t->c);
    for (int k = 0; k < t->nf; k++) {
      if (k == i) continue;
      char *fk = cstr(s, t->f[k]);
      emit_add(&b, " %s %s", t->finv[k] ? "/" : "*", fk);
      free(fk);
    }
    if (t->finv[i]) emit_add(&b, " * (-%s) / (%s * %s))", df, fi, fi);
    else emit_add(&b, " * %s)", df);
    any = 1;
    free(fi);
    free(df);
  }
  if (!any) { free(b.p); return NULL; }
  emit_buf w = {0}; /* a sum: parenthesized, it is used as a factor */
  emit_add(&w, "(%s)", b.p);
  free(b.p);
  return w.p;
}

static int is_scalar_input(const layer_spec *s, int j) { return s->in[j].dim == DIM_1; }

/* {{idx = j, d = "..."}, ...} over the scalar inputs the term depends on. */
static void lua_dterm(emit_buf *b, const layer_spec *s, const ex_term *t) {
  emit_add(b, "{");
  for (int j = 0; j < s->n_in; j++) {
    if (!is_scalar_input(s, j)) continue;
    char *d = deriv_term(s, t, j);
    if (!d) continue;
    emit_add(b, "{idx = %d, d = ", j);
    emit_lua_str(b, d);
    emit_add(b, "}, ");
    free(d);
  }
  emit_add(b, "}");
}

/* Log decay: logc + sum of scalar expressions; its value and its derivatives. */
static void lua_logdecay(emit_buf *b, const layer_spec *s, const cls_state *st) {
  if (st->decay != DECAY_SCALAR) { emit_add(b, "logdecay = nil, dlog = {}"); return; }
  emit_add(b, "logdecay = ");
  emit_lua_logdecay(b, s, st);
  emit_add(b, ", dlog = {");
  for (int j = 0; j < s->n_in; j++) {
    if (!is_scalar_input(s, j)) continue;
    emit_buf d = {0};
    for (int i = 0; i < st->n_logdecay; i++) {
      char *di = deriv(s, st->logdecay[i], j);
      if (!di) continue;
      emit_add(&d, "%s%s", d.len ? " + " : "", di);
      free(di);
    }
    if (d.len) {
      emit_buf w = {0}; /* a sum: parenthesized, it is used as a factor */
      emit_add(&w, "(%s)", d.p);
      emit_add(b, "{idx = %d, d = ", j);
      emit_lua_str(b, w.p);
      free(w.p);
      emit_add(b, "}, ");
    }
    free(d.p);
  }
  emit_add(b, "}");
}

static int dlen(const layer_spec *s, ex_dim d) { return d == DIM_K ? s->K : d == DIM_V ? s->V : 1; }

/* The template's table P; cu: the CUDA module's forward (CC, CBV: its chunk and value tile; FPREP, FSTATE: the
 * threads and shared memory of its prep and state stages, FSTATE_N of the state's narrow form; KEEP: its
 * forward variants can keep their prep and state results for the backward (rt_cuda_fwd_save); FST: every stage's
 * threads and shared memory by its name: the scan the backward runs again, a solve's stages and layout), NULL for
 * the CPU. */
static char *context(const cls_family *f, int dtype, int bk, int bv, const char *name, const ssmc_cuda_kernel *cu) {
  const int cu_chunk = cu ? cu->chunk : 0, cu_bv = cu ? cu->bv : 0;
  const layer_spec *s = f->spec;
  emit_buf b = {0};
  emit_add(&b, "{\n  name = \"%s\", family = \"%s\", hash = \"%s\",\n  summary = ", name, s->family, s->hash);
  emit_lua_str(&b, f->summary);
  emit_add(&b, ",\n  K = %d, V = %d, C = %d, BK = %d, BV = %d, CC = %d, CBV = %d, dtype = \"%s\",\n  inputs = {\n", s->K,
           s->V, s->chunk, bk, bv, cu_chunk, cu_bv, dtype ? "bf16" : "f32");
  for (int i = 0; i < s->n_in; i++) {
    const spec_input *in = &s->in[i];
    int gate = in->dim == DIM_1 || in->domain == DOM_LOG_DECAY || in->domain == DOM_UNIT;
    int qk = in->dim == DIM_K && !gate;
    emit_add(&b, "    {idx = %d, name = \"%s\", D = %d, heads = \"%s\", gate = %s},\n", i, in->name, dlen(s, in->dim),
        qk ? "qk" : "v", gate ? "true" : "false");
  }
  const cls_state *m = &f->main;
  static const char *const decay[] = {"none", "scalar", "diag"};
  emit_add(&b, "  },\n  main = {state = %d, decay = \"%s\", ", m->state, decay[m->decay]);
  lua_logdecay(&b, s, m);
  emit_add(&b, ", diag_in = %d, delta = %s, erase = ", m->diag_in, m->delta ? "true" : "false");
  if (m->delta) {
    emit_lua_coef(&b, s, &m->erase);
    emit_add(&b, ", derase = ");
    lua_dterm(&b, s, &m->erase);
  } else {
    emit_add(&b, "nil, derase = {}");
  }
  emit_add(&b, ", write = ");
  emit_lua_coef(&b, s, &m->write);
  emit_add(&b, ", dwrite = ");
  lua_dterm(&b, s, &m->write);
  emit_add(&b, ", key = %d, val = %d},\n  q = {\n", m->key_in, m->val_in);
  for (int i = 0; i < f->n_q; i++) {
    emit_add(&b, "    {coef = ");
    emit_lua_coef(&b, s, &f->q[i].coef);
    emit_add(&b, ", dcoef = ");
    lua_dterm(&b, s, &f->q[i].coef);
    if (f->q[i].src_in >= 0) emit_add(&b, ", src = \"%d\"},\n", f->q[i].src_in);
    else emit_add(&b, ", src = \"X\"},\n");
  }
  emit_add(&b, "  },\n");
  /* the forward's prep and state bodies, which the backward runs again (the forward module states their blocks) */
  const char *bodies = cu && cu->source ? strstr(cu->source, "// ssmc-bodies ") : NULL;
  int pt, ps, st, ss, nt, ns, nbv, used = 0;
  if (bodies && sscanf(bodies, "// ssmc-bodies prep threads=%d smem=%d state threads=%d smem=%d%n", &pt, &ps, &st, &ss,
                       &used) == 4) {
    emit_add(&b, "  FPREP = {threads = %d, smem = %d}, FSTATE = {threads = %d, smem = %d},\n", pt, ps, st, ss);
    /* and the state pass's narrow form where it has one (FSTATE_N: its threads, shared memory, value tile) */
    if (sscanf(bodies + used, " state_n threads=%d smem=%d nbv=%d", &nt, &ns, &nbv) == 3)
      emit_add(&b, "  FSTATE_N = {threads = %d, smem = %d, nbv = %d},\n", nt, ns, nbv);
    /* and whether every forward variant can leave the prep and state results in a backward's workspace */
    const char *eol = strchr(bodies, '\n'), *keep = strstr(bodies, " keep");
    if (keep && (!eol || keep < eol)) emit_add(&b, "  KEEP = true,\n");
  }
  if (cu && name) { /* every forward stage's block by its name (a solve's hdelta[90], hscan, psolve90: the backward's too) */
    const size_t nl = strlen(name) + 1;
    emit_add(&b, "  FST = {");
    for (int i = 0; i < cu->n_fwd; i++)
      if (cu->fwd[i].entry && strlen(cu->fwd[i].entry) > nl)
        emit_add(&b, "%s = {threads = %d, smem = %d}, ", cu->fwd[i].entry + nl, cu->fwd[i].threads, cu->fwd[i].smem);
    emit_add(&b, "},\n");
  }
  if (f->has_solve) {
    emit_add(&b, "  solve = {state = %d, ", f->aux.state);
    lua_logdecay(&b, s, &f->aux);
    emit_add(&b, ", write = ");
    emit_lua_coef(&b, s, &f->aux.write);
    emit_add(&b, ", dwrite = ");
    lua_dterm(&b, s, &f->aux.write);
    emit_add(&b, ", key = %d, lam_a = %.17g, lam_b = %.17g, iters = %d, rhs = %d},\n", f->aux.key_in, f->lam_a, f->lam_b,
        f->iters, f->rhs_in);
  }
  emit_add(&b, "}\n");
  return b.p;
}

static int render(const char *tname, char *ctx, sbx *lua, char **src, size_t *len, diag *d) {
  const char *tpl = emit_template(tname, d);
  if (!tpl) { free(ctx); return 1; }
  char msg[512];
  int line = 0;
  int rc = sbx_render(lua, tname, tpl, ctx, src, len, msg, sizeof msg, &line);
  free(ctx);
  if (rc) return diag_at(d, NULL, 0, 0, "template %s:%d: %s", tname, line, msg);
  return 0;
}

int emb_cpu_backward(const cls_family *f, int dtype, int bk, int bv, const char *name, sbx *lua, char **src,
                     size_t *len, diag *d) {
  return render("cpu_bwd.c.tpl", context(f, dtype, bk, bv, name, NULL), lua, src, len, d);
}

int emb_cuda_backward(const cls_family *f, int dtype, int bk, int bv, const char *name, const ssmc_cuda_kernel *cu,
                      sbx *lua, char **src, size_t *len, diag *d) {
  return render("cuda_bwd.cu.tpl", context(f, dtype, bk, bv, name, cu), lua, src, len, d);
}

void emb_manifest_lines(const cls_family *f, const char *name, char *buf, size_t n) {
  snprintf(buf, n,
           "  entry %s_bwd (chunkwise backward: gradients of every input and initial state; items (sequence, q/k head))\n"
           "  backward_workspace %s_bwd_ws(longest sequence) floats per thread: the state at every chunk start of one"
           " sequence%s, one chunk's buffers (recomputed, nothing per token stored)\n"
           "  backward_saved %s\n",
           name, name, f->main.delta ? " with the chunk's pseudo-values and (I + Akk)^-1" : "",
           f->has_solve ? "optional: the forward's aux x (T,h_v,K) f32 (aux_in; recomputed by the same Chebyshev when NULL)"
                        : "nothing");
}
