/* compiler stage: emission (see emit.h). */
#include "emit.h"
#include "cost.h"
#include "emb.h"
#include "cuc.h"
#include "sbx.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- buffers */

void emit_add(emit_buf *b, const char *fmt, ...) {
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

/* ---------------------------------------------------------------- templates */

typedef struct { const char *name; const char *data; size_t len; } ssmc_embedded_file;
extern const ssmc_embedded_file ssmc_embedded_files[];

static const char *tpl_dir;
static struct { char name[64]; char *text; } tpl_loaded[8]; /* read once per name */

void emit_set_template_dir(const char *dir) { tpl_dir = dir; }

const char *emit_template(const char *name, diag *d) {
  if (tpl_dir) {
    int i = 0;
    for (; i < 8 && tpl_loaded[i].text; i++)
      if (!strcmp(tpl_loaded[i].name, name)) return tpl_loaded[i].text;
    if (i == 8) { diag_at(d, NULL, 0, 0, "internal: too many templates"); return NULL; }
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", tpl_dir, name);
    srcfile *f = src_read(path, d);
    if (!f) return NULL;
    snprintf(tpl_loaded[i].name, sizeof tpl_loaded[i].name, "%s", name);
    tpl_loaded[i].text = f->text;
    f->text = NULL;
    src_free(f);
    return tpl_loaded[i].text;
  }
  for (const ssmc_embedded_file *e = ssmc_embedded_files; e->name; e++)
    if (!strcmp(e->name, name)) return e->data;
  diag_at(d, NULL, 0, 0, "internal: template '%s' is not embedded", name);
  return NULL;
}

/* ---------------------------------------------------------------- C expressions */

void emit_c_float(emit_buf *b, double v) {
  char t[64];
  snprintf(t, sizeof t, "%.9g", v);
  if (!strpbrk(t, ".eEn")) strcat(t, ".0");
  emit_add(b, "%sf", t);
}

void emit_c_scalar(emit_buf *b, const layer_spec *s, const ex_node *n) {
  switch (n->op) {
  case EX_NUM: emit_c_float(b, n->num); return;
  case EX_SYM:
    if (n->sym == SYM_CONST) emit_c_float(b, s->cst[n->index].value);
    else emit_add(b, "in[%d][t_]", n->index);
    return;
  case EX_CALL:
    emit_add(b, "__builtin_%sf(", n->name);
    emit_c_scalar(b, s, n->args[0]);
    emit_add(b, ")");
    return;
  case EX_NEG: emit_add(b, "(-"); emit_c_scalar(b, s, n->a); emit_add(b, ")"); return;
  default: {
    static const char ops[] = {[EX_ADD] = '+', [EX_SUB] = '-', [EX_MUL] = '*', [EX_DIV] = '/'};
    emit_add(b, "(");
    emit_c_scalar(b, s, n->a);
    emit_add(b, " %c ", ops[n->op]);
    emit_c_scalar(b, s, n->b);
    emit_add(b, ")");
  }
  }
}

void emit_c_coef(emit_buf *b, const layer_spec *s, const ex_term *t) {
  emit_c_float(b, t->c);
  for (int i = 0; i < t->nf; i++) {
    emit_add(b, t->finv[i] ? " / " : " * ");
    emit_c_scalar(b, s, t->f[i]);
  }
}

void emit_lua_str(emit_buf *b, const char *s) {
  emit_add(b, "\"");
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') emit_add(b, "\\%c", *s);
    else if (*s == '\n') emit_add(b, "\\n");
    else emit_add(b, "%c", *s);
  }
  emit_add(b, "\"");
}

void emit_c_logdecay(emit_buf *b, const layer_spec *s, const cls_state *st) {
  for (int i = 0; i < st->n_logdecay; i++) {
    if (i) emit_add(b, " + ");
    emit_c_scalar(b, s, st->logdecay[i]);
  }
  if (st->logc != 0 || !st->n_logdecay) {
    if (st->n_logdecay) emit_add(b, " + ");
    emit_c_float(b, st->logc);
  }
}

void emit_lua_coef(emit_buf *b, const layer_spec *s, const ex_term *t) {
  emit_buf c = {0};
  emit_c_coef(&c, s, t);
  emit_lua_str(b, c.p);
  free(c.p);
}

void emit_lua_logdecay(emit_buf *b, const layer_spec *s, const cls_state *st) {
  if (st->decay != DECAY_SCALAR) { emit_add(b, "nil"); return; }
  emit_buf c = {0};
  emit_c_logdecay(&c, s, st);
  emit_lua_str(b, c.p);
  free(c.p);
}

/* ---------------------------------------------------------------- names */

void emit_kernel_name(const cls_family *f, int dtype, int bk, int bv, char *buf, size_t n) {
  const layer_spec *s = f->spec;
  snprintf(buf, n, "ssmc_%s_%.8s_k%dv%d_c%d_bk%dbv%d_%s", s->family, s->hash, s->K, s->V, s->chunk, bk, bv,
           dtype ? "bf16" : "f32");
}

static int dim_len(const layer_spec *s, ex_dim d) { return d == DIM_K ? s->K : d == DIM_V ? s->V : 1; }

/* cmax: the largest chunk the CUDA module may take (its chunk search starts there; the spec's chunk unless the
 * backward's blocks did not fit at it: emit_cuda_kernel) */
static char *build_context(const cls_family *f, int dtype, int bk, int bv, const char *name, int cmax) {
  const layer_spec *s = f->spec;
  emit_buf b = {0};
  emit_add(&b, "{\n  name = \"%s\", family = \"%s\", hash = \"%s\", version = \"%s\",\n  summary = ", name, s->family,
         s->hash, SSMC_VERSION);
  emit_lua_str(&b, f->summary);
  emit_add(&b, ",\n  K = %d, V = %d, C = %d, CMAX = %d, BK = %d, BV = %d, dtype = \"%s\", rec_below = %d,\n  inputs = {\n", s->K,
         s->V, s->chunk, cmax, bk, bv, dtype ? "bf16" : "f32", cost_rec_below(f));
  for (int i = 0; i < s->n_in; i++) {
    const spec_input *in = &s->in[i];
    /* the same rule as ssmc_input_is_gate / ssmc_input_qk_heads in the ABI header */
    int gate = in->dim == DIM_1 || in->domain == DOM_LOG_DECAY || in->domain == DOM_UNIT;
    int qk = in->dim == DIM_K && !gate;
    emit_add(&b, "    {idx = %d, name = \"%s\", D = %d, dimsym = %d, heads = \"%s\", gate = %s, domain = %d},\n", i,
           in->name, dim_len(s, in->dim), (int)in->dim, qk ? "qk" : "v", gate ? "true" : "false", (int)in->domain);
  }
  const cls_state *m = &f->main;
  static const char *const decay[] = {"none", "scalar", "diag"};
  emit_add(&b, "  },\n  main = {state = %d, decay = \"%s\", logdecay = ", m->state, decay[m->decay]);
  emit_lua_logdecay(&b, s, m);
  emit_add(&b, ", diag_in = %d, delta = %s, erase = ", m->diag_in, m->delta ? "true" : "false");
  if (m->delta) emit_lua_coef(&b, s, &m->erase);
  else emit_add(&b, "nil");
  emit_add(&b, ", write = ");
  emit_lua_coef(&b, s, &m->write);
  emit_add(&b, ", key = %d, val = %d},\n  q = {\n", m->key_in, m->val_in);
  for (int i = 0; i < f->n_q; i++) {
    emit_add(&b, "    {coef = ");
    emit_lua_coef(&b, s, &f->q[i].coef);
    if (f->q[i].src_in >= 0) emit_add(&b, ", src = \"%d\"},\n", f->q[i].src_in);
    else emit_add(&b, ", src = \"X\"},\n");
  }
  emit_add(&b, "  },\n");
  if (f->has_solve) {
    emit_add(&b, "  solve = {state = %d, logdecay = ", f->aux.state);
    emit_lua_logdecay(&b, s, &f->aux);
    emit_add(&b, ", write = ");
    emit_lua_coef(&b, s, &f->aux.write);
    emit_add(&b, ", key = %d, lam_a = %.17g, lam_b = %.17g, iters = %d, rhs = %d, xname = \"%s\"},\n", f->aux.key_in,
           f->lam_a, f->lam_b, f->iters, f->rhs_in, s->rd[f->solve_rd].name);
  }
  emit_add(&b, "  states = {\n");
  for (int i = 0; i < s->n_st; i++) {
    const spec_state *st = &s->st[i];
    long size = st->symmetric ? (long)s->K * (s->K + 1) / 2 : (long)dim_len(s, st->rows) * dim_len(s, st->cols);
    emit_add(&b, "    {name = \"%s\", size = %ld, sym = %s},\n", st->name, size, st->symmetric ? "true" : "false");
  }
  emit_add(&b, "  },\n}\n");
  return b.p;
}

/* The backward (emb.c, cpu_bwd.c.tpl) goes into the same C file, after the forward. */
static int emit_append_backward(const cls_family *f, int dtype, int bk, int bv, sbx *lua, emit_kernel *out, diag *d) {
  char *b = NULL;
  size_t n = 0;
  if (emb_cpu_backward(f, dtype, bk, bv, out->name, lua, &b, &n, d)) return 1;
  out->source = realloc(out->source, out->len + n + 1);
  memcpy(out->source + out->len, b, n + 1);
  out->len += n;
  free(b);
  return 0;
}

/* The CPU kernels' blocking: chunk, K and the value tile are multiples of 16; the error points at
 * the one that is not (bv: the tiles, or V when there are none). */
static int cpu_dims_unsupported(const layer_spec *s, int bv, diag *d) {
  int line = 1, col = 1;
  const char *what = NULL;
  int val = 0;
  if (s->chunk % 16) { what = "chunk"; val = s->chunk; line = s->chunk_line; col = s->chunk_col; }
  else if (s->K % 16) { what = "K"; val = s->K; line = s->k_line; col = s->k_col; }
  else if (bv % 16) {
    what = "the value tile bv";
    val = bv;
    line = s->tiles_line ? s->tiles_line : s->v_line; /* no tiles: bv follows V */
    col = s->tiles_line ? s->tiles_col : s->v_col;
  }
  if (!what) return 0;
  if (!line) line = col = 1;
  return diag_at(d, s->file, line, col,
                 "the CPU kernels need chunk, K and the value tile bv to be multiples of 16; %s is %d "
                 "(chunk=%d, K=%d, bv=%d)", what, val, s->chunk, s->K, bv);
}

int emit_cpu_kernel(const cls_family *f, int dtype, int bk, int bv, const char *spec_path, sbx *lua,
                    emit_kernel *out, diag *d) {
  const layer_spec *s = f->spec;
  (void)spec_path;
  if (cpu_dims_unsupported(s, bv, d)) return 1;
  memset(out, 0, sizeof *out);
  out->dtype = dtype;
  emit_kernel_name(f, dtype, bk, bv, out->name, sizeof out->name);
  snprintf(out->path, sizeof out->path, "%s/%s.c", s->family, out->name);
  const char *tpl = emit_template("cpu_kernel.c.tpl", d);
  if (!tpl) return 1;
  char *ctx = build_context(f, dtype, bk, bv, out->name, s->chunk);
  char msg[512];
  int line = 0;
  int rc = sbx_render(lua, "cpu_kernel.c.tpl", tpl, ctx, &out->source, &out->len, msg, sizeof msg, &line);
  free(ctx);
  if (rc) return diag_at(d, NULL, 0, 0, "template cpu_kernel.c.tpl:%d: %s", line, msg);
  return emit_append_backward(f, dtype, bk, bv, lua, out, d);
}

static const char *const grid_names[] = {"items", "items_vtiles", "items_dtiles", "chunks",
                                          "chunks_vtiles", "chunks_ktiles", "items_bvtiles", "items_elems",
                                          "items_ftiles", "items_ntiles", "items_stiles"};

/* One stage of a launch line: its entry <kernel>_<stage> (named in k->cu_entries by the caller) and grid kind. */
static int parse_stage(emit_kernel *k, const char *stage, const char *grid, ssmc_cuda_stage *st) {
  (void)k; (void)stage;
  for (int g = 0; g < (int)(sizeof grid_names / sizeof *grid_names); g++)
    if (!strcmp(grid, grid_names[g])) { st->grid = g; return 0; }
  return -1;
}

/* A stage's form after its fields: " when=wide", " when=sm90" (the sm_90a form of the stage before it),
 * " when=grouped" (run only with grouped value heads), or
 * " when=narrow" (the module's first narrow stage also
 * states the module's narrow tile: " nbv=B below_pct=P"; a backward one (bwd) may too, the backward's own pick,
 * bwd_narrow_below_pct); l moves past them. -1: a narrow stage without the module's narrow tile, or a narrow grid on
 * a stage that is not narrow (a narrow stage may take any grid: without an erase the backward's narrow forms are
 * bprep_n and the elementwise bscan_n). */
static int parse_when(emit_kernel *k, const char **l, ssmc_cuda_stage *st, int bwd) {
  int m = 0, nbv = 0, pct = 0;
  if (!strncmp(*l, " when=wide", 10)) st->when = SSMC_STAGE_WIDE, *l += 10;
  else if (!strncmp(*l, " when=narrow", 12)) st->when = SSMC_STAGE_NARROW, *l += 12;
  else if (!strncmp(*l, " when=sm90", 10)) st->when = SSMC_STAGE_SM90, *l += 10;
  else if (!strncmp(*l, " when=grouped", 13)) st->when = SSMC_STAGE_GROUPED, *l += 13;
  if (sscanf(*l, " nbv=%d below_pct=%d%n", &nbv, &pct, &m) == 2) {
    *l += m;
    if (pct < 1 || (k->cuda.narrow_bv && nbv != k->cuda.narrow_bv)) return -1; /* one narrow tile a module */
    k->cuda.narrow_bv = nbv;
    *(bwd && k->cuda.narrow_below_pct ? &k->cuda.bwd_narrow_below_pct : &k->cuda.narrow_below_pct) = pct;
  }
  if (st->when == SSMC_STAGE_NARROW && (k->cuda.narrow_bv < 1 || k->cuda.narrow_below_pct < 1)) return -1;
  return st->grid == SSMC_GRID_ITEMS_NTILES && st->when != SSMC_STAGE_NARROW ? -1 : 0;
}

/* Whether st, an sm_90a form, follows no stage of its grid in the list (n stages) so far: a template's mistake. */
static int sm90_misplaced(const ssmc_cuda_stage *list, int n, const ssmc_cuda_stage *st) {
  return st->when == SSMC_STAGE_SM90 && (!n || list[n - 1].when == SSMC_STAGE_SM90 || list[n - 1].grid != st->grid);
}

/* Another form of stage st (same grid, block and shared memory): entry NAME_<stage>_<suffix> in k->cu_entries[slot]
 * into *out; -1 where the name does not fit. */
static int other_form(emit_kernel *k, const ssmc_cuda_stage *st, int slot, const char *suffix, ssmc_cuda_stage *out) {
  char *e = k->cu_entries[slot];
  if (snprintf(e, sizeof k->cu_entries[0], "%s_%s", st->entry, suffix) >= (int)sizeof k->cu_entries[0]) return -1;
  *out = (ssmc_cuda_stage){e, st->grid, st->threads, st->smem, st->when};
  return 0;
}

/* The module's last line states its stages (the template lays out their shared memory):
 *   // ssmc-launch bv=B dbv=D chunk=C ws_tok=W ws_chunk=W NAME grid=G threads=N smem=S; ...; decode grid=G threads=N smem=S;
 *      decode_large grid=G threads=N smem=S from_pct=P   (or: decode_large none);
 *      fused grid=G threads=N smem=S fbv=B pre=F from_pct=P [post=Q] [keep]   (or: fused none; or seq or solve in
 *      its place: the entry NAME_seq or NAME_solve in the fused slot; the slot is the stage with fbv=);
 *      fused90 grid=G threads=N smem=S fbv=B pre=F from_pct=P post=Q [keep]   (or: fused90 none): the fused slot
 *      of sm_90 devices (its pre must be the fused slot's); keep: the slot's keep form NAME_<stage>_keep as well
 *      (the first forward stage may say keep too: its keep form, prep_keep; and
 *      then fused: its form before the fused slot, NAME_<stage>_fused, prep_fused; or fused_keep: that form and its
 *      keep form NAME_<stage>_fused_keep, prep_fused_keep, run before fused90's keep form); fused90 may end in
 *      split=P seg_threads=N seg_smem=S [seg_grid=G] [scan_grid=G scan_threads=N scan_smem=S] [split_form]: its split
 *      forward (ssmc_kernel.h), the segment pass NAME_fused90_seg (its grid fused90's or G, its block N threads and S
 *      bytes of shared memory) and the forward's stage `scan`, or with scan_grid its own scan NAME_fused90_scan; with
 *      split_form the split forward runs NAME_fused90_split in fused90's place; split_form_keep: and a kept one
 *      NAME_fused90_split_keep */
static int parse_launch(emit_kernel *k, diag *d) {
  const char *l = strstr(k->cu_source, "// ssmc-launch ");
  memset(&k->cuda, 0, sizeof k->cuda);
  long long ws = 0, wc = 0;
  int used = 0;
  if (!l || sscanf(l, "// ssmc-launch bv=%d dbv=%d chunk=%d ws_tok=%lld ws_chunk=%lld %n", &k->cuda.bv,
                   &k->cuda.decode_bv, &k->cuda.chunk, &ws, &wc, &used) != 5)
    return diag_at(d, NULL, 0, 0, "internal: template cuda_kernel.cu.tpl wrote no launch line");
  k->cuda.ws_tok_floats = ws;
  k->cuda.ws_chunk_floats = wc;
  l += used;
  for (int i = 0; *l && *l != '\n'; i++) {
    char stage[32], grid[32];
    ssmc_cuda_stage st = {0};
    int n = 0;
    const char *none[] = {"decode_large none", "fused none", "fused90 none"}; /* one decode stage only; no fused one */
    int skip = 0;
    for (int j = 0; j < 3 && !skip; j++)
      if (!strncmp(l, none[j], strlen(none[j]))) skip = (int)strlen(none[j]);
    if (skip) {
      l += skip;
      while (*l == ';' || *l == ' ') l++;
      continue;
    }
    if (i >= EMIT_KEEP_ENTRY0 ||
        sscanf(l, "%31s grid=%31s threads=%d smem=%d%n", stage, grid, &st.threads, &st.smem, &n) != 4)
      return diag_at(d, NULL, 0, 0, "internal: bad launch line in %s", k->cu_path);
    l += n;
    int m = 0;
    if (!strcmp(stage, "decode_large") && (sscanf(l, " from_pct=%d%n", &k->cuda.decode_large_from_pct, &m) != 1 ||
                                           k->cuda.decode_large_from_pct < 1))
      return diag_at(d, NULL, 0, 0, "internal: decode_large without from_pct in %s", k->cu_path);
    const int alt = !strncmp(l, " fbv=", 5); /* the forward's other variant (fused, seq, a solve's solve) */
    const int sm90 = alt && !strcmp(stage, "fused90");
    int32_t *bv = sm90 ? &k->cuda.fused_sm90_bv : &k->cuda.fused_bv, *pct = sm90 ? &k->cuda.fused_sm90_from_pct : &k->cuda.fused_from_pct;
    int32_t *post = sm90 ? &k->cuda.fused_sm90_post : &k->cuda.fused_post, pre = 0;
    if (alt && (sscanf(l, " fbv=%d pre=%d from_pct=%d%n", bv, &pre, pct, &m) != 3 || *bv < 1 || pre < 0 || *pct < 0 ||
                (sm90 && k->cuda.fused.entry && pre != k->cuda.fused_pre)))
      return diag_at(d, NULL, 0, 0, "internal: %s without fbv, pre and from_pct in %s", stage, k->cu_path);
    if (alt && (!sm90 || !k->cuda.fused.entry)) k->cuda.fused_pre = pre;
    l += m;
    m = 0;
    if (alt && sscanf(l, " post=%d%n", post, &m) == 1 && *post < 0)
      return diag_at(d, NULL, 0, 0, "internal: %s with a negative post in %s", stage, k->cu_path);
    l += m;
    const int keep = (alt || i == 0) && !strncmp(l, " keep", 5); /* and its keep form, the entry NAME_<stage>_keep */
    if (keep) l += 5;
    /* fused90's split forward: split=P seg_threads=N seg_smem=S [seg_grid=G] [scan_grid=G scan_threads=N scan_smem=S] */
    int split = 0, seg_threads = 0, seg_smem = 0, scan_threads = 0, scan_smem = 0, split_form = 0;
    char seg_grid[24] = "", scan_grid[24] = "";
    if (sm90 && sscanf(l, " split=%d seg_threads=%d seg_smem=%d%n", &k->cuda.split_pct, &seg_threads, &seg_smem, &m) == 3) {
      if (k->cuda.split_pct < 1 || *post || seg_threads < 32 || seg_threads % 32 || seg_smem < 0)
        return diag_at(d, NULL, 0, 0, "internal: bad split= in %s", k->cu_path);
      split = 1;
      l += m;
      m = 0;
      if (sscanf(l, " seg_grid=%23[a-z_]%n", seg_grid, &m) == 1) l += m;
      m = 0;
      if (sscanf(l, " scan_grid=%23[a-z_] scan_threads=%d scan_smem=%d%n", scan_grid, &scan_threads, &scan_smem, &m) == 3) {
        if (scan_threads < 32 || scan_threads % 32 || scan_smem < 0)
          return diag_at(d, NULL, 0, 0, "internal: bad scan_threads= in %s", k->cu_path);
        l += m;
      }
      if ((split_form = !strncmp(l, " split_form", 11))) l += 11;
      if (split_form && !strncmp(l, "_keep", 5)) split_form = 2, l += 5;
    }
    const int lean = i == 0 && !strncmp(l, " fused", 6); /* its form before the fused slot, NAME_<stage>_fused */
    if (lean) l += 6;
    const int lean_keep = lean && !strncmp(l, "_keep", 5); /* and that form's keep form, NAME_<stage>_fused_keep */
    if (lean_keep) l += 5;
    char *semi = strchr(grid, ';');
    if (semi) *semi = 0;
    if (parse_stage(k, stage, grid, &st) || parse_when(k, &l, &st, 0))
      return diag_at(d, NULL, 0, 0, "internal: bad grid or form in %s", k->cu_path);
    snprintf(k->cu_entries[i], sizeof k->cu_entries[i], "%s_%s", k->name, stage);
    st.entry = k->cu_entries[i];
    if (!strcmp(stage, "decode")) k->cuda.decode = st;
    else if (!strcmp(stage, "decode_large")) k->cuda.decode_large = st;
    else if (sm90) k->cuda.fused_sm90 = st;
    else if (alt) k->cuda.fused = st;
    else if (sm90_misplaced(k->cuda.fwd, k->cuda.n_fwd, &st))
      return diag_at(d, NULL, 0, 0, "internal: %s's sm_90a form follows no stage of its grid in %s", stage, k->cu_path);
    else if (k->cuda.n_fwd < SSMC_MAX_STAGES) k->cuda.fwd[k->cuda.n_fwd++] = st;
    else return diag_at(d, NULL, 0, 0, "internal: too many forward stages in %s", k->cu_path);
    ssmc_cuda_stage *kept = !alt ? &k->cuda.prep_keep : sm90 ? &k->cuda.fused_sm90_keep : &k->cuda.fused_keep;
    if ((keep && other_form(k, &st, EMIT_KEEP_ENTRY0 + (alt ? sm90 : 2), "keep", kept)) ||
        (lean && other_form(k, &st, EMIT_KEEP_ENTRY0 + 3, "fused", &k->cuda.prep_fused)) ||
        (lean_keep && other_form(k, &st, EMIT_KEEP_ENTRY0 + 7, "fused_keep", &k->cuda.prep_fused_keep)))
      return diag_at(d, NULL, 0, 0, "internal: entry name too long in %s", k->cu_path);
    if (split) {
      if (*scan_grid) { /* its own scan */
        if (other_form(k, &st, EMIT_KEEP_ENTRY0 + 5, "scan", &k->cuda.split_scan) ||
            parse_stage(k, "scan", scan_grid, &k->cuda.split_scan))
          return diag_at(d, NULL, 0, 0, "internal: bad scan_grid= in %s", k->cu_path);
        k->cuda.split_scan.threads = scan_threads;
        k->cuda.split_scan.smem = scan_smem;
      } else
        for (int j = 0; j < k->cuda.n_fwd; j++)
          if (!strcmp(k->cuda.fwd[j].entry + strlen(k->name), "_scan")) k->cuda.split_scan = k->cuda.fwd[j];
      if (!k->cuda.split_scan.entry || (!*scan_grid && k->cuda.split_scan.grid != SSMC_GRID_ITEMS_ELEMS) ||
          other_form(k, &st, EMIT_KEEP_ENTRY0 + 4, "seg", &k->cuda.split_seg) ||
          (*seg_grid && parse_stage(k, "seg", seg_grid, &k->cuda.split_seg)))
        return diag_at(d, NULL, 0, 0, "internal: a split forward without its scan in %s", k->cu_path);
      k->cuda.split_seg.threads = seg_threads;
      k->cuda.split_seg.smem = seg_smem;
      if ((split_form && other_form(k, &st, EMIT_KEEP_ENTRY0 + 6, "split", &k->cuda.split_fused)) ||
          (split_form == 2 && other_form(k, &st, EMIT_KEEP_ENTRY0 + 8, "split_keep", &k->cuda.split_keep)))
        return diag_at(d, NULL, 0, 0, "internal: entry name too long in %s", k->cu_path);
    }
    while (*l == ';' || *l == ' ') l++;
  }
  if (k->cuda.fused.entry && k->cuda.fused_pre + k->cuda.fused_post > k->cuda.n_fwd)
    return diag_at(d, NULL, 0, 0, "internal: the fused slot keeps more stages than the forward has in %s", k->cu_path);
  k->cuda.source = k->cu_source;
  return 0;
}

/* The backward's launch line (cuda_bwd.cu.tpl), after the forward's:
 *   // ssmc-launch-bwd fwd=F [saved=S] bk=B bv=V ws_tok=W ws_chunk=W ws_seq=W ws_qk=W NAME grid=G threads=N smem=S; ...
 * or `// ssmc-launch-bwd none`. */
static int parse_launch_bwd(emit_kernel *k, diag *d) {
  const char *l = strstr(k->cu_source, "// ssmc-launch-bwd ");
  if (l && !strncmp(l, "// ssmc-launch-bwd none", 23)) return 0;
  long long wt = 0, wc = 0, wsq = 0, wq = 0;
  int used = 0;
  int head = 0, saved = 0;
  if (!l || sscanf(l, "// ssmc-launch-bwd fwd=%d %n", &k->cuda.bwd_fwd, &head) != 1)
    return diag_at(d, NULL, 0, 0, "internal: template cuda_bwd.cu.tpl wrote no launch line");
  l += head;
  if (sscanf(l, "saved=%d %n", &k->cuda.bwd_saved, &saved) == 1) l += saved; /* optional: an A/B run's older templates */
  if (!strncmp(l, "lead ", 5)) k->cuda.saved_lead = 1, l += 5;
  if (sscanf(l, "bk=%d bv=%d ws_tok=%lld ws_chunk=%lld ws_seq=%lld ws_qk=%lld %n", &k->cuda.bk, &k->cuda.bwd_bv, &wt, &wc,
             &wsq, &wq, &used) != 6)
    return diag_at(d, NULL, 0, 0, "internal: template cuda_bwd.cu.tpl wrote no launch line");
  k->cuda.bwd_ws_tok_floats = wt;
  k->cuda.bwd_ws_chunk_floats = wc;
  k->cuda.bwd_ws_seq_floats = wsq;
  k->cuda.bwd_ws_qk_floats = wq;
  l += used;
  while (*l && *l != '\n') {
    char stage[32], grid[32];
    ssmc_cuda_stage st = {0};
    int n = 0, i = k->cuda.n_bwd;
    if (i >= SSMC_MAX_BWD_STAGES ||
        sscanf(l, "%31s grid=%31s threads=%d smem=%d%n", stage, grid, &st.threads, &st.smem, &n) != 4)
      return diag_at(d, NULL, 0, 0, "internal: bad backward launch line in %s", k->cu_path);
    char *semi = strchr(grid, ';');
    if (semi) *semi = 0;
    l += n;
    if (parse_stage(k, stage, grid, &st) || parse_when(k, &l, &st, 1) || sm90_misplaced(k->cuda.bwd, k->cuda.n_bwd, &st))
      return diag_at(d, NULL, 0, 0, "internal: bad grid or form in %s", k->cu_path);
    st.entry = k->cu_entries[EMIT_BWD_ENTRY0 + i];
    char entry[sizeof k->cu_entries[0]];
    snprintf(entry, sizeof entry, "%s_%s", k->name, stage);
    memcpy(k->cu_entries[EMIT_BWD_ENTRY0 + i], entry, sizeof entry);
    k->cuda.bwd[k->cuda.n_bwd++] = st;
    while (*l == ';' || *l == ' ') l++;
  }
  return 0;
}

/* The CUDA module (forward, then the backward's stages) with the chunk search of cuda_kernel.cu.tpl from cmax down */
static int emit_cuda_module(const cls_family *f, int dtype, int bk, int bv, int cmax, sbx *lua, emit_kernel *out, diag *d) {
  const char *tpl = emit_template("cuda_kernel.cu.tpl", d);
  if (!tpl) return 1;
  free(out->cu_source);
  out->cu_source = NULL;
  out->cu_len = 0;
  memset(&out->cuda, 0, sizeof out->cuda);
  memset(out->cu_entries, 0, sizeof out->cu_entries);
  snprintf(out->cu_path, sizeof out->cu_path, "%s/%s.cu", f->spec->family, out->name);
  char *ctx = build_context(f, dtype, bk, bv, out->name, cmax);
  char msg[512];
  int line = 0;
  int rc = sbx_render(lua, "cuda_kernel.cu.tpl", tpl, ctx, &out->cu_source, &out->cu_len, msg, sizeof msg, &line);
  free(ctx);
  if (rc) return diag_at(d, NULL, 0, 0, "template cuda_kernel.cu.tpl:%d: %s", line, msg);
  if (parse_launch(out, d)) return 1;
  /* the backward's stages (emb.c, cuda_bwd.cu.tpl) go into the same module, after the forward's */
  char *b = NULL;
  size_t n = 0;
  if (emb_cuda_backward(f, dtype, bk, bv, out->name, &out->cuda, lua, &b, &n, d)) return 1;
  out->cu_source = realloc(out->cu_source, out->cu_len + n + 1);
  memcpy(out->cu_source + out->cu_len, b, n + 1);
  out->cu_len += n;
  free(b);
  out->cuda.source = out->cu_source;
  return parse_launch_bwd(out, d);
}

/* The forward's chunk search counts the forward's blocks only; where a backward stage's block cannot fit a block's
 * shared memory (CUC_SMEM_MAX) at the chunk it found (GKA at K = 64, chunk 128: bgrad 214 KB), the module is made
 * again from half that chunk, while the chunk stays a multiple of 16: the chunk is a blocking of the same
 * recurrence (cuda_kernel.cu.tpl). A module where no chunk fits stays as found (`ssmc compile` names the stage). */
int emit_cuda_kernel(const cls_family *f, int dtype, int bk, int bv, sbx *lua, emit_kernel *out, diag *d) {
  for (int cmax = f->spec->chunk;;) {
    if (emit_cuda_module(f, dtype, bk, bv, cmax, lua, out, d)) return 1;
    int over = 0;
    for (int i = 0; i < out->cuda.n_bwd; i++) over |= out->cuda.bwd[i].smem > CUC_SMEM_MAX;
    const int half = out->cuda.chunk / 2;
    if (!over || half < 16 || half % 16 || out->cuda.chunk > cmax) return 0; /* (a template that ignores CMAX) */
    cmax = half;
  }
}

static void c_string_literal(emit_buf *b, const char *s, size_t n) {
  emit_add(b, "\"");
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '\n') emit_add(b, "\\n\"\n\"");
    else if (c == '"' || c == '\\') emit_add(b, "\\%c", c);
    else if (c < 32 || c > 126) emit_add(b, "\\%03o", c);
    else emit_add(b, "%c", c);
  }
  emit_add(b, "\"");
}

static void desc_stage(emit_buf *b, const ssmc_cuda_stage *st) {
  static const char *const kinds[] = {"SSMC_GRID_ITEMS",         "SSMC_GRID_ITEMS_VTILES",  "SSMC_GRID_ITEMS_DTILES",
                                      "SSMC_GRID_CHUNKS",        "SSMC_GRID_CHUNKS_VTILES", "SSMC_GRID_CHUNKS_KTILES",
                                      "SSMC_GRID_ITEMS_BVTILES", "SSMC_GRID_ITEMS_ELEMS",   "SSMC_GRID_ITEMS_FTILES",
                                      "SSMC_GRID_ITEMS_NTILES",  "SSMC_GRID_ITEMS_STILES"};
  static const char *const whens[] = {"", ", SSMC_STAGE_WIDE", ", SSMC_STAGE_NARROW", ", SSMC_STAGE_SM90",
                                      ", SSMC_STAGE_GROUPED"};
  if (!st->entry) emit_add(b, "{0, SSMC_GRID_ITEMS, 0, 0}"); /* none */
  else emit_add(b, "{\"%s\", %s, %d, %d%s}", st->entry, kinds[st->grid], st->threads, st->smem, whens[st->when]);
}

/* a manifest line's note on a stage's form (SSMC_STAGE_*) */
static const char *form(const emit_kernel *k, const ssmc_cuda_stage *st) {
  static char buf[96];
  if (st->when == SSMC_STAGE_WIDE) return " (wide form)";
  if (st->when == SSMC_STAGE_SM90) return " (sm_90a form: in place of the stage above on sm_90)";
  if (st->when == SSMC_STAGE_GROUPED) return " (only with grouped value heads, h_v > h_qk)";
  if (st->when != SSMC_STAGE_NARROW) return "";
  const int bwd = st >= k->cuda.bwd && st < k->cuda.bwd + k->cuda.n_bwd && k->cuda.bwd_narrow_below_pct;
  snprintf(buf, sizeof buf, " (narrow form: in place of the wide one below N*h_v*V/%d < %d%% of the SMs)", k->cuda.bv,
           bwd ? k->cuda.bwd_narrow_below_pct : k->cuda.narrow_below_pct);
  return buf;
}

char *emit_cuda_desc(const emit_kernel *k, const char *source_symbol) {
  emit_buf b = {0};
  if (source_symbol) emit_add(&b, "extern const char %s[];\n", source_symbol);
  emit_add(&b, "const ssmc_cuda_kernel %s_cuda = {\n  .source = ", k->name);
  if (source_symbol) emit_add(&b, "%s", source_symbol);
  else c_string_literal(&b, k->cu_source, k->cu_len);
  emit_add(&b, ",\n  .n_fwd = %d,\n  .fwd = {", k->cuda.n_fwd);
  for (int i = 0; i < k->cuda.n_fwd; i++) {
    if (i) emit_add(&b, ", ");
    desc_stage(&b, &k->cuda.fwd[i]);
  }
  emit_add(&b, "},\n  .decode = ");
  desc_stage(&b, &k->cuda.decode);
  emit_add(&b, ",\n  .ws_tok_floats = %lld,\n  .bv = %d,\n  .decode_bv = %d,\n  .ws_chunk_floats = %lld,\n  .chunk = %d,\n",
         (long long)k->cuda.ws_tok_floats, k->cuda.bv, k->cuda.decode_bv, (long long)k->cuda.ws_chunk_floats,
         k->cuda.chunk);
  emit_add(&b, "  .decode_large = ");
  desc_stage(&b, &k->cuda.decode_large);
  emit_add(&b, ",\n  .decode_large_from_pct = %d,\n  .fused = ", k->cuda.decode_large_from_pct);
  desc_stage(&b, &k->cuda.fused);
  emit_add(&b, ",\n  .fused_bv = %d,\n  .fused_pre = %d,\n  .fused_from_pct = %d,\n  .fused_post = %d,\n", k->cuda.fused_bv,
           k->cuda.fused_pre, k->cuda.fused_from_pct, k->cuda.fused_post);
  emit_add(&b, "  .fused_sm90 = ");
  desc_stage(&b, &k->cuda.fused_sm90);
  emit_add(&b, ",\n  .fused_sm90_bv = %d,\n  .fused_sm90_from_pct = %d,\n  .fused_sm90_post = %d,\n", k->cuda.fused_sm90_bv,
           k->cuda.fused_sm90_from_pct, k->cuda.fused_sm90_post);
  if (k->cuda.narrow_bv)
    emit_add(&b, "  .narrow_bv = %d,\n  .narrow_below_pct = %d,\n", k->cuda.narrow_bv, k->cuda.narrow_below_pct);
  if (k->cuda.bwd_narrow_below_pct) emit_add(&b, "  .bwd_narrow_below_pct = %d,\n", k->cuda.bwd_narrow_below_pct);
  emit_add(&b, "  .n_bwd = %d,\n  .bwd_fwd = %d,\n  .bwd = {", k->cuda.n_bwd, k->cuda.bwd_fwd);
  for (int i = 0; i < k->cuda.n_bwd; i++) {
    if (i) emit_add(&b, ", ");
    desc_stage(&b, &k->cuda.bwd[i]);
  }
  emit_add(&b, "},\n  .bk = %d,\n  .bwd_bv = %d,\n  .bwd_ws_tok_floats = %lld,\n  .bwd_ws_chunk_floats = %lld,\n"
             "  .bwd_ws_seq_floats = %lld,\n  .bwd_ws_qk_floats = %lld,\n",
         k->cuda.bk, k->cuda.bwd_bv, (long long)k->cuda.bwd_ws_tok_floats, (long long)k->cuda.bwd_ws_chunk_floats,
         (long long)k->cuda.bwd_ws_seq_floats, (long long)k->cuda.bwd_ws_qk_floats);
  if (k->cuda.bwd_saved) emit_add(&b, "  .bwd_saved = %d,\n", k->cuda.bwd_saved);
  /* the other forms of stages (appended fields, in their order): where the module has them */
#define EMIT_FORM(f) {#f, &k->cuda.f},
  const struct { const char *field; const ssmc_cuda_stage *st; } forms[] = {SSMC_CUDA_FORMS(EMIT_FORM)};
#undef EMIT_FORM
  for (size_t i = 0; i < sizeof forms / sizeof *forms; i++)
    if (forms[i].st->entry) {
      emit_add(&b, "  .%s = ", forms[i].field);
      desc_stage(&b, forms[i].st);
      emit_add(&b, ",\n");
    }
  if (k->cuda.split_pct) emit_add(&b, "  .split_pct = %d,\n", k->cuda.split_pct);
  if (k->cuda.saved_lead) emit_add(&b, "  .saved_lead = 1,\n");
  emit_add(&b, "};\n");
  return b.p;
}

void emit_kernel_hash(const emit_kernel *k, char out[17]) {
  uint64_t h = spec_fnv1a(k->source, k->len, 0xcbf29ce484222325ULL);
  if (k->cu_source) h = spec_fnv1a(k->cu_source, k->cu_len, h);
  snprintf(out, 17, "%016llx", (unsigned long long)h);
}

void emit_kernel_free(emit_kernel *k) {
  free(k->source);
  free(k->cu_source);
  k->source = k->cu_source = NULL;
}

/* ---------------------------------------------------------------- manifest and table */

char *emit_manifest(const cls_family *const *fams, const emit_kernel *const *ks, int n) {
  emit_buf b = {0};
  emit_add(&b, "# ssmc kernel manifest. Generated by ssmc %s: DO NOT EDIT.\n"
             "# One block per kernel: identity, shapes, entry points and constraints.\n"
             "# ABI: runtime/ssmc_kernel.h (version %d). Work items are (sequence, value head) pairs.\n",
         SSMC_VERSION, 1);
  for (int i = 0; i < n; i++) {
    const cls_family *f = fams[i];
    const layer_spec *s = f->spec;
    const emit_kernel *k = ks[i];
    emit_add(&b, "\nkernel %s\n  family %s\n  spec_hash %s\n  source %s\n  structure %s\n", k->name, s->family,
           s->hash, k->path, f->summary);
    emit_add(&b, "  dims K=%d V=%d\n  chunk %d\n  tiles bk=%d bv=%d\n  dtype %s (vector inputs, output); gates f32\n",
           s->K, s->V, s->chunk, s->bk, s->bv, k->dtype ? "bf16" : "f32");
    for (int j = 0; j < s->n_in; j++)
      emit_add(&b, "  input %d %s dim=%s domain=%s\n", j, s->in[j].name, ex_dim_name(s->in[j].dim),
             spec_domain_name(s->in[j].domain));
    for (int j = 0; j < s->n_st; j++)
      emit_add(&b, "  state %d %s [%s,%s]%s\n", j, s->st[j].name, ex_dim_name(s->st[j].rows),
             ex_dim_name(s->st[j].cols), s->st[j].symmetric ? " symmetric, packed lower triangle" : " stored (K,V)");
    if (f->has_solve) emit_add(&b, "  aux 0 %s (T,h_v,K) f32\n  iters default %d (runtime argument)\n",
                             s->rd[f->solve_rd].name, f->iters);
    int rb = cost_rec_below(f);
    if (rb >= 1 << 30) emit_add(&b, "  cpu_fwd recurrent at every length (cost model, compiler/cost.c)\n");
    else if (rb > 0) emit_add(&b, "  cpu_fwd recurrent below T=%d, chunkwise from there (cost model, compiler/cost.c)\n", rb);
    else emit_add(&b, "  cpu_fwd chunkwise at every length\n");
    emit_add(&b, "  entry %s_fwd (chunkwise forward, cu_seqlens, state in/out)\n"
               "  entry %s_decode (one token per sequence, state slots updated in place)\n",
           k->name, k->name);
    char bl[1024];
    emb_manifest_lines(f, k->name, bl, sizeof bl);
    emit_add(&b, "%s", bl);
    emit_add(&b, "  cuda %s (NVRTC, sm_80 / sm_90a), chunk %d, value tile %d\n", k->cu_path, k->cuda.chunk, k->cuda.bv);
    for (int j = 0; j <= k->cuda.n_fwd; j++) {
      const ssmc_cuda_stage *st = j < k->cuda.n_fwd ? &k->cuda.fwd[j] : &k->cuda.decode;
      char grid[48] = "(N*h_v)";
      if (st->grid == SSMC_GRID_CHUNKS) snprintf(grid, sizeof grid, "(chunks, h_v)");
      else if (st->grid == SSMC_GRID_CHUNKS_VTILES) snprintf(grid, sizeof grid, "(chunks, h_v, V/%d)", k->cuda.bv);
      else if (st->grid == SSMC_GRID_ITEMS_ELEMS) snprintf(grid, sizeof grid, "(N*h_v, K*V/%d)", 4 * st->threads);
      else if (st->grid != SSMC_GRID_ITEMS)
        snprintf(grid, sizeof grid, "(N*h_v, V/%d)", st->grid == SSMC_GRID_ITEMS_VTILES   ? k->cuda.bv
                                                     : st->grid == SSMC_GRID_ITEMS_NTILES ? k->cuda.narrow_bv
                                                                                          : k->cuda.decode_bv);
      emit_add(&b, "  cuda_stage %s grid=%s threads=%d smem=%d%s\n", st->entry, grid, st->threads, st->smem, form(k, st));
      if (j == 0 && k->cuda.prep_fused.entry)
        emit_add(&b, "  cuda_stage %s (the same, without the rows only a state pass reads: before the fused slot)\n",
                 k->cuda.prep_fused.entry);
      if (j == 0 && k->cuda.prep_fused_keep.entry)
        emit_add(&b, "  cuda_stage %s (its keep form: before fused90's keep form, on sm_90)\n", k->cuda.prep_fused_keep.entry);
    }
    if (k->cuda.decode_large.entry)
      emit_add(&b, "  cuda_stage %s grid=(N*h_v) threads=%d smem=%d (in place of decode from N*h_v >= %d%% of the SMs on)\n",
               k->cuda.decode_large.entry, k->cuda.decode_large.threads, k->cuda.decode_large.smem,
               k->cuda.decode_large_from_pct);
    else
      emit_add(&b, "  cuda_stage decode_large none\n");
    if (k->cuda.fused.entry) {
      emit_add(&b, "  cuda_stage %s grid=(N*h_v, V/%d) threads=%d smem=%d (after the first %d stage(s), then the last %d: ",
               k->cuda.fused.entry, k->cuda.fused_bv, k->cuda.fused.threads, k->cuda.fused.smem, k->cuda.fused_pre,
               k->cuda.fused_post);
      if (k->cuda.fused_from_pct) emit_add(&b, "in place of the stages above from N*h_v*V/%d >= %d%% of the SMs on)\n",
                                           k->cuda.fused_bv, k->cuda.fused_from_pct);
      else emit_add(&b, "run only when asked for)\n");
    } else
      emit_add(&b, "  cuda_stage fused none\n");
    if (k->cuda.fused_sm90.entry)
      emit_add(&b, "  cuda_stage %s grid=(N*h_v, V/%d) threads=%d smem=%d (sm_90: the fused slot, from N*h_v*V/%d >= %d%% "
               "of the SMs on)\n", k->cuda.fused_sm90.entry, k->cuda.fused_sm90_bv, k->cuda.fused_sm90.threads,
               k->cuda.fused_sm90.smem, k->cuda.fused_sm90_bv, k->cuda.fused_sm90_from_pct);
    if (k->cuda.split_seg.entry) {
      /* the stage that runs the segments, and its keep form (a kept forward's, ssmc_cuda_split_keeps) */
      const ssmc_cuda_stage *run = k->cuda.split_fused.entry ? &k->cuda.split_fused : &k->cuda.fused_sm90,
                            *kept = k->cuda.split_fused.entry ? &k->cuda.split_keep : &k->cuda.fused_sm90_keep;
      emit_add(&b, "  cuda_stage %s grid=%s (sm_90: the split forward for few long sequences: each segment's state%s, then"
               " %s over the segments, then %s (kept for the backward: %s%s) from each segment's start state; segments"
               " fill %d%% of the SMs)\n",
               k->cuda.split_seg.entry, grid_names[k->cuda.split_seg.grid],
               k->cuda.split_seg.grid == SSMC_GRID_ITEMS_STILES ? " and transition" : "", k->cuda.split_scan.entry,
               run->entry, kept->entry ? kept->entry : "none",
               kept->entry && k->cuda.split_fused.entry ? ", after the first stages' keep forms" : "", k->cuda.split_pct);
    }
    for (int j = 0; j < k->cuda.n_bwd; j++) {
      const ssmc_cuda_stage *st = &k->cuda.bwd[j];
      emit_add(&b, "  cuda_bwd_stage %s grid=%s threads=%d smem=%d%s\n", st->entry, grid_names[st->grid], st->threads,
               st->smem, form(k, st));
    }
    if (k->cuda.n_bwd)
      emit_add(&b, "  cuda_bwd runs the forward's first %d stages first; workspace after the forward's: %lld floats per"
                 " token and value head, %lld per chunk, %lld per sequence, %lld per token with grouped heads\n",
             k->cuda.bwd_fwd, (long long)k->cuda.bwd_ws_tok_floats, (long long)k->cuda.bwd_ws_chunk_floats,
             (long long)k->cuda.bwd_ws_seq_floats, (long long)k->cuda.bwd_ws_qk_floats);
    else emit_add(&b, "  cuda_bwd none (a solve readout: CPU backward only)\n");
    if (k->cuda.saved_lead)
      emit_add(&b, "  cuda_bwd_saved the forward keeps for the backward (rt_cuda_fwd_save, then fwd_saved): it runs the"
                 " backward's first %d stages (H's chain and x into the backward's workspace, %lld floats per token and"
                 " value head in the forward's part, %lld per chunk in the backward's) and then the chunk stages after the"
                 " solve; the backward then skips those %d stages\n",
               k->cuda.bwd_saved, (long long)k->cuda.ws_tok_floats, (long long)k->cuda.bwd_ws_chunk_floats, k->cuda.bwd_saved);
    else if (k->cuda.bwd_saved)
      emit_add(&b, "  cuda_bwd_saved the forward keeps for the backward (rt_cuda_fwd_save, then fwd_saved): its workspace, %lld"
                 " floats per token and value head and %lld per chunk, and the final states; the backward then skips its"
                 " first %d stages; the fused slot's keep forms: %s%s%s; the first stage's: %s\n",
               (long long)k->cuda.ws_tok_floats, (long long)k->cuda.ws_chunk_floats, k->cuda.bwd_saved,
               k->cuda.fused_keep.entry ? k->cuda.fused_keep.entry : "none",
               k->cuda.fused_sm90_keep.entry ? ", " : "", k->cuda.fused_sm90_keep.entry ? k->cuda.fused_sm90_keep.entry : "",
               k->cuda.prep_keep.entry ? k->cuda.prep_keep.entry : "none (it leaves them anyway)");
    if (k->cuda.ws_tok_floats || k->cuda.ws_chunk_floats)
      emit_add(&b, "  cuda_workspace %lld floats per token and value head, %lld per chunk and value head\n",
             (long long)k->cuda.ws_tok_floats, (long long)k->cuda.ws_chunk_floats);
    emit_add(&b, "  constraints h_v %% h_qk == 0; states fp32\n");
  }
  return b.p;
}

char *emit_table(const emit_kernel *const *ks, int n) {
  emit_buf b = {0};
  emit_add(&b, "/* Generated by ssmc %s. DO NOT EDIT.\n * The table of built-in kernels, compiled into the ssmc library. */\n"
             "#include \"ssmc_kernel.h\"\n\n",
         SSMC_VERSION);
  for (int i = 0; i < n; i++) emit_add(&b, "extern const ssmc_kernel %s;\n", ks[i]->name);
  emit_add(&b, "\nconst ssmc_kernel *const ssmc_builtin_kernels[] = {\n");
  for (int i = 0; i < n; i++) emit_add(&b, "  &%s,\n", ks[i]->name);
  emit_add(&b, "  0,\n};\n\n/* The CUDA module of each kernel: its source is the embedded generated .cu file. */\n");
  for (int i = 0; i < n; i++) {
    char sym[200];
    snprintf(sym, sizeof sym, "ssmc_cu_%s", ks[i]->name);
    char *desc = emit_cuda_desc(ks[i], sym);
    emit_add(&b, "%s", desc);
    free(desc);
  }
  emit_add(&b, "\n/* FNV-1a of each kernel's C and CUDA source: a stale build is never mistaken for the current one. */\n"
             "const char *const ssmc_builtin_source_hashes[] = {\n");
  for (int i = 0; i < n; i++) {
    char h[17];
    emit_kernel_hash(ks[i], h);
    emit_add(&b, "  \"%s\",\n", h);
  }
  emit_add(&b, "  0,\n};\n");
  return b.p;
}
