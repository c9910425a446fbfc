/* runtime stage: the model executor (see mx.h). It walks the layers and
 * calls the backend's operation table for all arithmetic; it allocates
 * only in mx_create. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "mx.h"

/* parts of a step, for mx_profile */
enum { PF_EMBED, PF_NORM, PF_ATT_PROJ, PF_ATT_PREP, PF_ATT_CORE, PF_ATT_OUT, PF_SSM_IN, PF_SSM_PREP, PF_SSM_KERN,
       PF_SSM_POST, PF_SSM_OUT, PF_MLP, PF_MOE_ROUTE, PF_MOE_EXPERTS, PF_MOE_SHARED, PF_LM_HEAD, PF_N };
static const char *const PF_NAMES[PF_N] = {"embed", "norms", "attn q/k/v proj", "attn qk-norm, rope, cache",
  "attn core", "attn gate, out proj", "ssm in proj", "ssm conv, gates", "ssm kernel", "ssm out norm", "ssm out proj",
  "mlp", "moe routing", "moe experts (+ shared)", "moe combine", "final norm, lm head"};

typedef struct {
  float *kc, *vc;             /* attention: (slots, max_ctx, n_kv, hd) */
  float *st[SSMC_MAX_IO];     /* ssm: kernel states (slots, h_v, S) */
  float *tail;                /* ssm: (slots, conv_w - 1, conv_ch) */
} mx_lstate;

struct mx_sess {
  const mdl_model *m;
  const be_ops *ops;
  be *b;
  mx_opts o;
  mx_lstate *ls;
  int *pos;                   /* (slots) */
  /* activations, (max_chunk, width) each */
  float *lg;                  /* (max_batch, vocab) last-token logits of a step */
  float *x, *h, *P, *A, *B, *Y, *q, *k, *v, *g, *beta, *alpha, *xs, *gst[SSMC_MAX_IO];
  int32_t *tslot, *tpos, *tstart, *sel;
  int64_t *cu;
  int32_t *kslots;
  /* MoE routing */
  int32_t *eidx;  float *ew;  int32_t *elist; float *ewl; int32_t *ecnt, *eoff;
  float *moe;                 /* (max_chunk, moe_width) */
  double prof[PF_N], t_mark;  /* mx_profile */
};

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}
/* the time since the last mark goes to part `pf` */
static void mark(mx_sess *s, int pf) {
  if (!s->o.profile) return;
  double t = now_s();
  s->prof[pf] += t - s->t_mark;
  s->t_mark = t;
}

void mx_profile(mx_sess *s, FILE *out) {
  double tot = 0;
  for (int i = 0; i < PF_N; i++) tot += s->prof[i];
  fprintf(out, "%-28s %10s %7s\n", "part", "seconds", "share");
  for (int i = 0; i < PF_N; i++)
    if (s->prof[i] > 0) fprintf(out, "%-28s %10.4f %6.1f%%\n", PF_NAMES[i], s->prof[i], 100 * s->prof[i] / (tot > 0 ? tot : 1));
  fprintf(out, "%-28s %10.4f\n", "total", tot);
  memset(s->prof, 0, sizeof s->prof);
}

static int64_t imax(int64_t a, int64_t b) { return a > b ? a : b; }

static int64_t ffn_width(const mdl_mlp *p, int kind) { return kind == MDL_MLP ? 3 * (int64_t)p->inter : 0; }

/* floats of MoE scratch per token (see run_moe) */
static int64_t moe_width(const mdl_moe *e, int d) {
  int64_t inter = e->experts[0].inter, sh = e->has_shared ? e->shared.inter : 0;
  return e->n_exp + (int64_t)e->top_k * (2 * d + 3 * inter) + 3 * sh + d + 1; /* see run_moe's layout */
}

void mx_destroy(mx_sess *s) {
  if (!s) return;
  const be_ops *o = s->ops;
  for (int i = 0; s->ls && i < s->m->n_layers; i++) {
    o->free(s->b, s->ls[i].kc);
    o->free(s->b, s->ls[i].vc);
    o->free(s->b, s->ls[i].tail);
    for (int j = 0; j < SSMC_MAX_IO; j++) o->free(s->b, s->ls[i].st[j]);
  }
  float *bufs[] = {s->lg, s->x, s->h, s->P, s->A, s->B, s->Y, s->q, s->k, s->v, s->g, s->beta, s->alpha, s->xs};
  for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) o->free(s->b, bufs[i]);
  for (int j = 0; j < SSMC_MAX_IO; j++) o->free(s->b, s->gst[j]);
  free(s->ls); free(s->pos); free(s->tslot); free(s->tpos); free(s->tstart); free(s->sel); free(s->cu);
  free(s->kslots); free(s->eidx); free(s->ew); free(s->elist); free(s->ewl); free(s->ecnt); free(s->eoff);
  o->free(s->b, s->moe);
  free(s);
}

int mx_create(const mdl_model *m, const be_ops *ops, be *b, const mx_opts *o, mx_sess **out, rt_diag *d) {
  mx_sess *s = calloc(1, sizeof *s);
  *out = NULL;
  if (!s) return rt_err(d, NULL, "out of memory");
  s->m = m, s->ops = ops, s->b = b, s->o = *o;
  int T = o->max_chunk, N = o->max_batch, d0 = m->d_model;
  if (T < N) T = s->o.max_chunk = N;
  s->ls = calloc((size_t)m->n_layers, sizeof *s->ls);
  s->pos = calloc((size_t)N, sizeof *s->pos);
  int64_t wP = d0, wA = d0, wq = 1, wv = 1, wg = 1, wM = 0, nE = 1, wst[SSMC_MAX_IO] = {0};
  int fail = !s->ls || !s->pos;
  for (int i = 0; i < m->n_layers && !fail; i++) {
    const mdl_layer *L = &m->layers[i];
    mx_lstate *st = &s->ls[i];
    if (L->mixer == MDL_ATTN) {
      const mdl_attn *a = &L->attn;
      size_t kv = (size_t)N * o->max_ctx * a->n_kv * a->head_dim * sizeof(float);
      st->kc = ops->alloc(b, kv);
      st->vc = ops->alloc(b, kv);
      fail |= !st->kc || !st->vc || ops->reserve(b, &(be_need){.attn = a});
      wP = imax(wP, a->wq.rows + 2LL * a->n_kv * a->head_dim);
      wA = imax(wA, (int64_t)a->n_heads * a->head_dim * 2);
    } else if (L->mixer == MDL_SSM) {
      const mdl_ssm *x = &L->ssm;
      const ssmc_kernel *k = x->kern;
      for (int j = 0; j < k->n_states; j++) {
        st->st[j] = ops->alloc(b, sizeof(float) * (size_t)N * x->h_v * k->state_size[j]);
        fail |= !st->st[j];
        wst[j] = imax(wst[j], (int64_t)x->h_v * k->state_size[j]);
      }
      if (x->conv_w > 1) {
        st->tail = ops->alloc(b, sizeof(float) * (size_t)N * (x->conv_w - 1) * x->conv_ch);
        fail |= !st->tail;
      }
      wP = imax(wP, x->n_in);
      wq = imax(wq, x->n_q);
      wv = imax(wv, (int64_t)x->h_v * x->dv);
      wg = imax(wg, x->h_v);
      wA = imax(wA, (int64_t)x->h_v * x->dv);
      if (ops->reserve(b, &(be_need){.kern = k})) fail = 1;
    }
    wP = imax(wP, ffn_width(&L->mlp1, L->mixer));
    wP = imax(wP, ffn_width(&L->mlp2, L->ffn));
    const mdl_moe *moes[2] = {L->mixer == MDL_MOE ? &L->moe1 : NULL, L->ffn == MDL_MOE ? &L->moe2 : NULL};
    for (int j = 0; j < 2; j++)
      if (moes[j]) wM = imax(wM, moe_width(moes[j], d0)), nE = imax(nE, moes[j]->n_exp);
  }
  size_t f = sizeof(float);
  if (!fail) {
    s->lg = ops->alloc(b, f * N * m->vocab);
    if (wM) fail |= !(s->moe = ops->alloc(b, f * T * wM));
    s->x = ops->alloc(b, f * T * d0), s->h = ops->alloc(b, f * T * d0), s->Y = ops->alloc(b, f * T * d0);
    s->P = ops->alloc(b, f * T * wP), s->A = ops->alloc(b, f * T * wA), s->B = ops->alloc(b, f * T * imax(wA, d0));
    s->q = ops->alloc(b, f * T * wq), s->k = ops->alloc(b, f * T * wq), s->v = ops->alloc(b, f * T * wv);
    s->xs = ops->alloc(b, f * T * wv);
    s->g = ops->alloc(b, f * T * wg), s->beta = ops->alloc(b, f * T * wg), s->alpha = ops->alloc(b, f * T * wg);
    for (int j = 0; j < SSMC_MAX_IO; j++)
      if (wst[j]) fail |= !(s->gst[j] = ops->alloc(b, f * N * wst[j]));
    fail |= !s->lg || !s->x || !s->h || !s->Y || !s->P || !s->A || !s->B || !s->q || !s->k || !s->v || !s->xs || !s->g ||
            !s->beta || !s->alpha;
    s->tslot = calloc((size_t)T, 4), s->tpos = calloc((size_t)T, 4), s->tstart = calloc((size_t)T, 4);
    s->sel = calloc((size_t)T, 4), s->cu = calloc((size_t)N + 1, 8), s->kslots = calloc((size_t)N, 4);
    s->eidx = calloc((size_t)T * 64, 4), s->ew = calloc((size_t)T * 64, 4);
    s->elist = calloc((size_t)T * 64, 4), s->ewl = calloc((size_t)T * 64, 4);
    s->ecnt = calloc((size_t)nE, 4), s->eoff = calloc((size_t)nE, 4);
    fail |= !s->tslot || !s->tpos || !s->tstart || !s->sel || !s->cu || !s->kslots || !s->eidx || !s->ew || !s->elist ||
            !s->ewl || !s->ecnt || !s->eoff;
  }
  if (fail) { mx_destroy(s); return rt_err(d, m->dir, "out of memory planning the model (batch %d, context %d)", N, o->max_ctx); }
  *out = s;
  return 0;
}

void mx_reset(mx_sess *s, int slot) {
  const mdl_model *m = s->m;
  s->pos[slot] = 0;
  for (int i = 0; i < m->n_layers; i++) {
    const mdl_layer *L = &m->layers[i];
    if (L->mixer != MDL_SSM) continue;
    const mdl_ssm *x = &L->ssm;
    for (int j = 0; j < x->kern->n_states; j++) {
      size_t n = (size_t)x->h_v * x->kern->state_size[j];
      s->ops->zero(s->b, s->ls[i].st[j] + (size_t)slot * n, n * sizeof(float));
    }
    if (s->ls[i].tail) {
      size_t n = (size_t)(x->conv_w - 1) * x->conv_ch;
      s->ops->zero(s->b, s->ls[i].tail + (size_t)slot * n, n * sizeof(float));
    }
  }
}

int mx_pos(const mx_sess *s, int slot) { return s->pos[slot]; }

/* ---- layers ---------------------------------------------------------------- */
static void run_mlp(mx_sess *s, const mdl_mlp *p, int T, const float *in, float *out, int accumulate) {
  be_ffn f = {T, in, p, out, accumulate, s->P};
  s->ops->ffn_n(s->b, 1, &f);
}

/* out (T, d) += MoE(in). Routing is computed on the host (softmax, top-k);
 * the routed tokens are gathered expert by expert, and the up projections of
 * all experts hit (with the shared expert's and its gate) run as one group of
 * GEMMs, then the down projections as another. */
static void run_moe(mx_sess *s, const mdl_moe *e, int T, const float *in, float *out) {
  const mdl_model *m = s->m;
  int d = m->d_model, E = e->n_exp, K = e->top_k, R = T * K;
  int inter = e->experts[0].inter, sh = e->has_shared ? e->shared.inter : 0, act = e->experts[0].act;
  int upw = act == MDL_ACT_SWIGLU ? 2 * inter : inter;
  int supw = e->shared.act == MDL_ACT_SWIGLU ? 2 * sh : sh;
  float *logit = s->moe;                          /* (T, E) */
  float *xin = logit + (size_t)T * E;             /* (R, d) routed inputs, expert by expert */
  float *ws = xin + (size_t)R * d;                /* (R, upw + inter) expert scratch */
  float *sws = ws + (size_t)R * (upw + inter);    /* (T, supw + sh) shared-expert scratch */
  float *eo = sws + (size_t)T * (supw + sh);      /* (R, d) expert outputs */
  float *so = eo + (size_t)R * d;                 /* (T, d) */
  float *gl = so + (size_t)T * d;                 /* (T) shared gate logits */
  s->ops->gemm(s->b, T, in, &e->router, NULL, logit, 0);
  for (int t = 0; t < T; t++) { /* softmax, top-k */
    float *l = logit + (size_t)t * E, mx = -INFINITY, sum = 0;
    for (int i = 0; i < E; i++) mx = l[i] > mx ? l[i] : mx;
    for (int i = 0; i < E; i++) sum += l[i] = expf(l[i] - mx);
    for (int i = 0; i < E; i++) l[i] /= sum;
    float tot = 0;
    for (int k = 0; k < K; k++) {
      int best = -1;
      for (int i = 0; i < E; i++) {
        int used = 0;
        for (int j = 0; j < k; j++) used |= s->eidx[t * K + j] == i;
        if (!used && (best < 0 || l[i] > l[best])) best = i;
      }
      s->eidx[t * K + k] = best;
      s->ew[t * K + k] = l[best];
      tot += l[best];
    }
    if (e->norm_topk)
      for (int k = 0; k < K; k++) s->ew[t * K + k] /= tot;
  }
  /* expert-major order of the (token, expert) pairs: ecnt[ex] rows from eoff[ex] */
  memset(s->ecnt, 0, sizeof(int32_t) * (size_t)E);
  for (int i = 0; i < R; i++) s->ecnt[s->eidx[i]]++;
  for (int ex = 0, o = 0; ex < E; ex++) s->eoff[ex] = o, o += s->ecnt[ex];
  memset(s->ecnt, 0, sizeof(int32_t) * (size_t)E);
  for (int t = 0; t < T; t++)
    for (int k = 0; k < K; k++) {
      int ex = s->eidx[t * K + k], r = s->eoff[ex] + s->ecnt[ex]++;
      s->elist[r] = t, s->ewl[r] = s->ew[t * K + k];
      memcpy(xin + (size_t)r * d, in + (size_t)t * d, sizeof(float) * (size_t)d);
    }
  mark(s, PF_MOE_ROUTE);
  if (sh && e->shared_gate.w) s->ops->gemm(s->b, T, in, &e->shared_gate, NULL, gl, 0);
  be_ffn f[E + 1];
  int n = 0;
  for (int ex = 0; ex < E; ex++)
    if (s->ecnt[ex])
      f[n++] = (be_ffn){s->ecnt[ex], xin + (size_t)s->eoff[ex] * d, &e->experts[ex], eo + (size_t)s->eoff[ex] * d, 0,
                        ws + (size_t)s->eoff[ex] * (upw + inter)};
  if (sh) f[n++] = (be_ffn){T, in, &e->shared, so, 0, sws};
  s->ops->ffn_n(s->b, n, f);
  mark(s, PF_MOE_EXPERTS);
  /* out += sum_k w eo (routed) + sigmoid(gate) so (shared) */
  float *Y = s->Y; /* (T, d) */
  s->ops->zero(s->b, Y, sizeof(float) * (size_t)T * d);
  for (int r = 0; r < R; r++) {
    float *y = Y + (size_t)s->elist[r] * d, w = s->ewl[r];
    const float *src = eo + (size_t)r * d;
    for (int c = 0; c < d; c++) y[c] += w * src[c];
  }
  for (int t = 0; sh && t < T; t++) {
    float gate = e->shared_gate.w ? 1.f / (1.f + expf(-gl[t])) : 1.f, *y = Y + (size_t)t * d;
    for (int c = 0; c < d; c++) y[c] += gate * so[(size_t)t * d + c];
  }
  for (size_t i = 0; i < (size_t)T * d; i++) out[i] += Y[i];
  mark(s, PF_MOE_SHARED);
}

static void run_attn(mx_sess *s, int li, const mdl_attn *a, int T, const float *in, float *out) {
  const mdl_model *m = s->m;
  int hd = a->head_dim, nq = a->n_heads, nkv = a->n_kv;
  float *Pq = s->P, *Pk = s->P + (size_t)T * a->wq.rows, *Pv = Pk + (size_t)T * nkv * hd;
  be_gemm g[3] = {{T, in, &a->wq, a->bq, Pq, 0}, {T, in, &a->wk, a->bk, Pk, 0}, {T, in, &a->wv, a->bv, Pv, 0}};
  s->ops->gemm_n(s->b, 3, g);
  mark(s, PF_ATT_PROJ);
  float *q = s->A, *gate = s->A + (size_t)T * nq * hd;
  if (a->out_gate) {
    for (int t = 0; t < T; t++)
      for (int h = 0; h < nq; h++) {
        memcpy(q + ((size_t)t * nq + h) * hd, Pq + (size_t)t * a->wq.rows + (size_t)h * 2 * hd, sizeof(float) * hd);
        memcpy(gate + ((size_t)t * nq + h) * hd, Pq + (size_t)t * a->wq.rows + (size_t)h * 2 * hd + hd, sizeof(float) * hd);
      }
  } else {
    memcpy(q, Pq, sizeof(float) * (size_t)T * nq * hd);
  }
  s->ops->qk_prep(s->b, T, s->tpos, q, nq, Pk, nkv, a, m->norm_one_plus, m->norm_eps);
  mx_lstate *st = &s->ls[li];
  size_t row = (size_t)nkv * hd;
  for (int t = 0; t < T; t++) {
    size_t at = ((size_t)s->tslot[t] * s->o.max_ctx + s->tpos[t]) * row;
    memcpy(st->kc + at, Pk + t * row, sizeof(float) * row);
    memcpy(st->vc + at, Pv + t * row, sizeof(float) * row);
  }
  mark(s, PF_ATT_PREP);
  float *o = s->B;
  be_attn_job j = {T, nq, nkv, hd, a->window, s->o.max_ctx, s->tslot, s->tpos, q, st->kc, st->vc, o};
  s->ops->attn(s->b, &j);
  mark(s, PF_ATT_CORE);
  if (a->out_gate)
    for (size_t i = 0; i < (size_t)T * nq * hd; i++) o[i] *= 1.f / (1.f + expf(-gate[i]));
  s->ops->gemm(s->b, T, o, &a->wo, a->bo, out, 1);
  mark(s, PF_ATT_OUT);
}

static void run_ssm(mx_sess *s, int li, const mdl_ssm *x, int T, int n_seqs, int decode, const float *in, float *out) {
  const ssmc_kernel *k = x->kern;
  mx_lstate *st = &s->ls[li];
  s->ops->gemm(s->b, T, in, &x->w_in, x->b_in, s->P, 0);
  mark(s, PF_SSM_IN);
  be_ssm_prep pj = {x, T, s->tslot, s->tstart, s->P, st->tail, s->q, s->k, s->v, s->g, s->beta, s->alpha,
                    x->D ? s->xs : NULL};
  s->ops->ssm_prep(s->b, &pj);
  mark(s, PF_SSM_PREP);
  const void *ins[SSMC_MAX_IO] = {0};
  for (int i = 0; i < k->n_inputs; i++) {
    const char *nm = k->input_names[i];
    ins[i] = !strcmp(nm, "q") ? s->q : !strcmp(nm, "k") ? s->k : !strcmp(nm, "v") ? s->v : !strcmp(nm, "g") ? s->g
           : !strcmp(nm, "beta") ? s->beta : s->alpha;
  }
  float *y = s->A;
  if (decode) {
    ssmc_decode_args a = {.n_seqs = n_seqs, .h_qk = x->h_qk, .h_v = x->h_v, .out = y, .slots = s->kslots, .iters = x->iters};
    memcpy(a.in, ins, sizeof ins);
    for (int j = 0; j < k->n_states; j++) a.state[j] = st->st[j];
    s->ops->ssm_decode(s->b, k, &a);
  } else {
    ssmc_fwd_args a = {.n_seqs = n_seqs, .h_qk = x->h_qk, .h_v = x->h_v, .cu_seqlens = s->cu, .out = y, .iters = x->iters};
    memcpy(a.in, ins, sizeof ins);
    /* states of the step's sequences, gathered from their slots and scattered back */
    for (int j = 0; j < k->n_states; j++) {
      size_t n = (size_t)x->h_v * k->state_size[j];
      for (int q = 0; q < n_seqs; q++)
        s->ops->copy(s->b, s->gst[j] + q * n, st->st[j] + (size_t)s->kslots[q] * n, n * sizeof(float));
      a.state_in[j] = a.state_out[j] = s->gst[j];
    }
    s->ops->ssm_fwd(s->b, k, &a);
    for (int j = 0; j < k->n_states; j++) {
      size_t n = (size_t)x->h_v * k->state_size[j];
      for (int q = 0; q < n_seqs; q++)
        s->ops->copy(s->b, st->st[j] + (size_t)s->kslots[q] * n, s->gst[j] + q * n, n * sizeof(float));
    }
  }
  mark(s, PF_SSM_KERN);
  float *o = s->B;
  s->ops->ssm_post(s->b, x, T, y, s->xs, s->P, o);
  mark(s, PF_SSM_POST);
  s->ops->gemm(s->b, T, o, &x->wo, NULL, out, 1);
  mark(s, PF_SSM_OUT);
}

static void run_ffn(mx_sess *s, int kind, const mdl_mlp *p, const mdl_moe *e, int T, const float *in, float *out) {
  if (kind == MDL_MLP) { run_mlp(s, p, T, in, out, 1); mark(s, PF_MLP); }
  else if (kind == MDL_MOE) run_moe(s, e, T, in, out);
}

/* One step: T tokens of n sequences (tokens of sequence i contiguous). */
static void step(mx_sess *s, int n, int T, const int32_t *tok, int decode) {
  const mdl_model *m = s->m;
  int d = m->d_model;
  if (s->o.profile) s->t_mark = now_s();
  for (int t = 0; t < T; t++)
    memcpy(s->x + (size_t)t * d, m->embed + (size_t)tok[t] * d, sizeof(float) * (size_t)d);
  mark(s, PF_EMBED);
  for (int i = 0; i < m->n_layers; i++) {
    const mdl_layer *L = &m->layers[i];
    s->ops->rmsnorm(s->b, T, d, s->x, L->norm1, m->norm_one_plus, m->norm_eps, s->h);
    mark(s, PF_NORM);
    if (L->mixer == MDL_ATTN) run_attn(s, i, &L->attn, T, s->h, s->x);
    else if (L->mixer == MDL_SSM) run_ssm(s, i, &L->ssm, T, n, decode, s->h, s->x);
    else run_ffn(s, L->mixer, &L->mlp1, &L->moe1, T, s->h, s->x);
    if (L->ffn) {
      s->ops->rmsnorm(s->b, T, d, s->x, L->norm2, m->norm_one_plus, m->norm_eps, s->h);
      mark(s, PF_NORM);
      run_ffn(s, L->ffn, &L->mlp2, &L->moe2, T, s->h, s->x);
    }
  }
}

static void logits_rows(mx_sess *s, int nrows, const int32_t *rows, float *out) {
  const mdl_model *m = s->m;
  int d = m->d_model;
  for (int r = 0; r < nrows; r += s->o.max_chunk) {
    int nb = nrows - r < s->o.max_chunk ? nrows - r : s->o.max_chunk;
    for (int i = 0; i < nb; i++)
      s->ops->rmsnorm(s->b, 1, d, s->x + (size_t)rows[r + i] * d, m->final_norm, m->norm_one_plus, m->norm_eps,
                      s->h + (size_t)i * d);
    s->ops->gemm(s->b, nb, s->h, &m->lm_head, NULL, out + (size_t)r * m->vocab, 0);
  }
  mark(s, PF_LM_HEAD);
}

int mx_feed(mx_sess *s, int n, const int *slots, const int *const *tokens, const int *lens, float *logits,
            int all_logits, rt_diag *d) {
  const mdl_model *m = s->m;
  if (n > s->o.max_batch) return rt_err(d, NULL, "batch of %d sequences; the session was planned for %d", n, s->o.max_batch);
  for (int i = 0; i < n; i++)
    if (s->pos[slots[i]] + lens[i] > s->o.max_ctx)
      return rt_err(d, NULL, "sequence %d would reach %d positions; the context is %d", i, s->pos[slots[i]] + lens[i],
                    s->o.max_ctx);
  int done[n > 0 ? n : 1];
  memset(done, 0, sizeof done);
  int out_row0[n > 0 ? n : 1], acc = 0;
  for (int i = 0; i < n; i++) { out_row0[i] = acc; acc += all_logits ? lens[i] : 1; }
  int32_t tok[s->o.max_chunk];
  int32_t seqid[s->o.max_chunk];
  for (;;) {
    /* next step: as many tokens as fit, sequence by sequence */
    int T = 0, ns = 0, budget = s->o.max_chunk, decode = 1;
    int take[n > 0 ? n : 1], who[n > 0 ? n : 1];
    for (int i = 0; i < n && budget > 0; i++) {
      int left = lens[i] - done[i];
      if (left <= 0) continue;
      int t = left < budget ? left : budget;
      who[ns] = i, take[ns] = t, ns++;
      budget -= t;
      decode &= t == 1 && s->pos[slots[i]] > 0;
    }
    if (!ns) break;
    s->cu[0] = 0;
    for (int q = 0; q < ns; q++) {
      int i = who[q], sl = slots[i];
      s->kslots[q] = sl;
      for (int j = 0; j < take[q]; j++) {
        tok[T] = tokens[i][done[i] + j];
        seqid[T] = q;
        s->tslot[T] = sl;
        s->tpos[T] = s->pos[sl] + j;
        s->tstart[T] = T - j;
        T++;
      }
      s->cu[q + 1] = T;
    }
    for (int t = 0; t < T; t++)
      if (tok[t] < 0 || tok[t] >= m->vocab) return rt_err(d, NULL, "token id %d is outside the vocabulary (%d)", tok[t], m->vocab);
    step(s, ns, T, tok, decode);
    /* logits of this step's rows */
    if (logits) {
      if (all_logits) {
        int r0 = 0;
        for (int q = 0; q < ns; q++) {
          int i = who[q];
          for (int j = 0; j < take[q]; j++) s->sel[j] = r0 + j;
          logits_rows(s, take[q], s->sel, logits + (size_t)(out_row0[i] + done[i]) * m->vocab);
          r0 += take[q];
        }
      } else {
        /* the last token of each sequence that ends in this step: one LM-head GEMM for all */
        int r0 = 0, nr = 0, dst[ns];
        for (int q = 0; q < ns; q++) {
          int i = who[q];
          if (done[i] + take[q] == lens[i]) s->sel[nr] = r0 + take[q] - 1, dst[nr++] = out_row0[i];
          r0 += take[q];
        }
        logits_rows(s, nr, s->sel, s->lg);
        for (int r = 0; r < nr; r++)
          memcpy(logits + (size_t)dst[r] * m->vocab, s->lg + (size_t)r * m->vocab, sizeof(float) * (size_t)m->vocab);
      }
    }
    for (int q = 0; q < ns; q++) {
      done[who[q]] += take[q];
      s->pos[slots[who[q]]] += take[q];
    }
    (void)seqid;
  }
  return 0;
}
