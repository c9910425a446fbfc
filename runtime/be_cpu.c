/* runtime stage: the CPU backend's operation table (see be.h, be_cpu.h).
 * GEMMs go to OpenBLAS (single-threaded, one column block per worker of our
 * pool); attention (be_cpu_attn.c), the SSM layer's pre/post work and the
 * generated kernels run on the same persistent thread pool (rt_pool.c). */
#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "be_cpu.h"
#include "rt_fmath.h"

extern void openblas_set_num_threads(int);

/* rows [0, T) through fn(ctx, t0, t1) on the pool, in pieces of >= 8 rows
 * (a decode step's few rows stay on the calling thread) */
typedef void (*rows_fn)(const void *ctx, int t0, int t1);
typedef struct { rows_fn fn; const void *ctx; int grain; } rows_job;

static void rows_items(void *vc, int64_t b, int64_t e, int worker) {
  const rows_job *j = vc;
  for (int64_t i = b; i < e; i++) j->fn(j->ctx, (int)i * j->grain, (int)(i + 1) * j->grain);
}

static void rows_par(be *b, int T, rows_fn fn, const void *ctx) {
  int grain = T / (4 * b->threads);
  if (grain < 8 || b->threads == 1) { fn(ctx, 0, T); return; }
  rows_job j = {fn, ctx, grain};
  int64_t n = T / grain;
  rtp_run(b->pool, rows_items, &j, n, 1);
  if (n * grain < T) fn(ctx, (int)(n * grain), T);
}

static void *cpu_alloc(be *b, size_t n) {
  (void)b;
  size_t sz = (n + 63) & ~(size_t)63;
  void *p = aligned_alloc(64, sz ? sz : 64);
  if (p) memset(p, 0, sz);
  return p;
}
static void cpu_free(be *b, void *p) { (void)b; free(p); }
static void cpu_copy(be *b, void *d, const void *s, size_t n) { (void)b; memmove(d, s, n); }
static void cpu_zero(be *b, void *d, size_t n) { (void)b; memset(d, 0, n); }

/* columns [n0, n1) of y (M, N) = x (M, K) W', N = W->rows (beta 1: y was preset with the bias, or accumulates) */
static void gemm_cols(const be_gemm *g, int n0, int n1) {
  const mdl_mat *W = g->W;
  if (n1 <= n0 || g->M <= 0) return;
  const float *w = W->w + (size_t)n0 * W->cols;
  float beta = g->accumulate || g->bias ? 1.f : 0.f;
  if (g->M == 1)
    cblas_sgemv(CblasRowMajor, CblasNoTrans, n1 - n0, W->cols, 1.f, w, W->cols, g->x, 1, beta, g->y + n0, 1);
  else
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, g->M, n1 - n0, W->cols, 1.f, g->x, W->cols, w, W->cols,
                beta, g->y + n0, W->rows);
}

static void gemm_items(void *vc, int64_t b, int64_t e, int worker) {
  const cpu_gemm_block *bl = vc;
  for (int64_t i = b; i < e; i++) gemm_cols(bl[i].g, bl[i].n0, bl[i].n1);
}

/* Every product is cut into column blocks (multiples of 16 columns) of about
 * equal work, four per thread so that a group of uneven products balances;
 * products too small to be worth a dispatch run on the calling thread. */
void cpu_gemm_n(be *b, int n, const be_gemm *g) {
  double tot = 0;
  for (int i = 0; i < n; i++) {
    const be_gemm *x = &g[i];
    if (x->bias)
      for (int r = 0; r < x->M; r++) {
        float *y = x->y + (size_t)r * x->W->rows;
        if (x->accumulate)
          for (int j = 0; j < x->W->rows; j++) y[j] += x->bias[j];
        else memcpy(y, x->bias, sizeof(float) * (size_t)x->W->rows);
      }
    tot += (double)x->M * x->W->rows * x->W->cols;
  }
  if (b->threads == 1 || tot < 65536) {
    for (int i = 0; i < n; i++) gemm_cols(&g[i], 0, g[i].W->rows);
    return;
  }
  double target = tot / (4 * b->threads); /* 4 blocks per thread: uneven groups still balance */
  int nb = 0;
  for (int i = 0; i < n; i++) {
    const be_gemm *x = &g[i];
    int N = x->W->rows, parts = (int)((double)x->M * N * x->W->cols / target + 0.5);
    parts = parts < 1 ? 1 : parts > N / 16 ? (N / 16 > 0 ? N / 16 : 1) : parts;
    if (nb + parts > CPU_GEMM_BLOCKS) { /* no room: run it here */
      gemm_cols(x, 0, N);
      continue;
    }
    for (int p = 0; p < parts; p++) {
      int n0 = (int)((int64_t)N * p / parts) & ~15, n1 = p + 1 == parts ? N : (int)((int64_t)N * (p + 1) / parts) & ~15;
      b->blocks[nb++] = (cpu_gemm_block){x, n0, n1};
    }
  }
  rtp_run(b->pool, gemm_items, b->blocks, nb, 1);
}

static void cpu_gemm(be *b, int M, const float *x, const mdl_mat *W, const float *bias, float *y, int acc) {
  be_gemm g = {M, x, W, bias, y, acc};
  cpu_gemm_n(b, 1, &g);
}

static void rms_row(const float *x, int n, const float *w, int one_plus, float eps, float *y) {
  double ss = 0;
  for (int i = 0; i < n; i++) ss += (double)x[i] * x[i];
  float r = 1.f / sqrtf((float)(ss / n) + eps);
  for (int i = 0; i < n; i++) y[i] = x[i] * r * (w ? (one_plus ? 1.f + w[i] : w[i]) : 1.f);
}

typedef struct { int n; const float *x, *w; int one_plus; float eps; float *y; } rms_ctx;

static void rms_rows(const void *vc, int t0, int t1) {
  const rms_ctx *c = vc;
  for (int i = t0; i < t1; i++) rms_row(c->x + (size_t)i * c->n, c->n, c->w, c->one_plus, c->eps, c->y + (size_t)i * c->n);
}

static void cpu_rmsnorm(be *b, int M, int n, const float *x, const float *w, int one_plus, float eps, float *y) {
  rms_ctx c = {n, x, w, one_plus, eps, y};
  rows_par(b, M, rms_rows, &c);
}

static void rope_row(float *v, int hd, int rot, int pos, double theta) {
  int half = rot / 2;
  for (int i = 0; i < half; i++) {
    double f = (double)pos * pow(theta, -2.0 * i / rot);
    float c = (float)cos(f), s = (float)sin(f);
    float a = v[i], bb = v[i + half];
    v[i] = a * c - bb * s;
    v[i + half] = bb * c + a * s;
  }
  (void)hd;
}

typedef struct { const int32_t *pos; float *q; int nq; float *k; int nk; const mdl_attn *a; int one_plus; float eps; } qk_ctx;

static void qk_rows(const void *vc, int t0, int t1) {
  const qk_ctx *c = vc;
  const mdl_attn *a = c->a;
  int hd = a->head_dim;
  for (int t = t0; t < t1; t++) {
    for (int h = 0; h < c->nq; h++) {
      float *v = c->q + ((size_t)t * c->nq + h) * hd;
      if (a->q_norm) rms_row(v, hd, a->q_norm, c->one_plus, c->eps, v);
      if (a->rot_dim) rope_row(v, hd, a->rot_dim, c->pos[t], a->theta);
    }
    for (int h = 0; h < c->nk; h++) {
      float *v = c->k + ((size_t)t * c->nk + h) * hd;
      if (a->k_norm) rms_row(v, hd, a->k_norm, c->one_plus, c->eps, v);
      if (a->rot_dim) rope_row(v, hd, a->rot_dim, c->pos[t], a->theta);
    }
  }
}

static void cpu_qk_prep(be *b, int T, const int32_t *pos, float *q, int nq, float *k, int nk, const mdl_attn *a,
                        int one_plus, float eps) {
  qk_ctx c = {pos, q, nq, k, nk, a, one_plus, eps};
  rows_par(b, T, qk_rows, &c);
}

/* ---- SSM layer pre/post --------------------------------------------------- */
static float softplusf(float x) { return x > 20.f ? x : log1pf(expf(x)); }
#define sigmoidf rt_sigmoidf
#define siluf rt_siluf

static void l2_rows(float *v, int H, int D, int mode, float eps, float scale) {
  for (int h = 0; h < H; h++) {
    float *x = v + (size_t)h * D;
    double ss = 0;
    for (int i = 0; i < D; i++) ss += (double)x[i] * x[i];
    float r = mode == MDL_L2_RSQRT ? 1.f / sqrtf((float)ss + eps) : mode == MDL_L2_DIV ? 1.f / (sqrtf((float)ss) + eps) : 1.f;
    r *= scale;
    for (int i = 0; i < D; i++) x[i] *= r;
  }
}

static void prep_items(void *vc, int64_t b, int64_t e, int worker) {
  (void)worker;
  const be_ssm_prep *j = vc;
  const mdl_ssm *s = j->s;
  int W = s->conv_w, C = s->conv_ch, nv = s->h_v * s->dv;
  float tmp[C > 0 ? C : 1];
  for (int64_t t = b; t < e; t++) {
    const float *P = j->P + (size_t)t * s->n_in;
    int st = j->seq_start[t], jj = (int)t - st; /* index within its sequence in this call */
    const float *tail = j->conv_tail + (size_t)j->slot[t] * (W > 1 ? W - 1 : 0) * C;
    for (int c = 0; c < C; c++) {
      float acc = s->conv_b ? s->conv_b[c] : 0.f;
      for (int i = 0; i < W; i++) {
        int back = W - 1 - i; /* input at t - back */
        float in = jj - back >= 0 ? j->P[(size_t)(t - back) * s->n_in + c] : tail[(size_t)(W - 1 - (back - jj)) * C + c];
        acc += s->conv_wt[(size_t)c * W + i] * in;
      }
      tmp[c] = siluf(acc);
    }
    float *q = j->q + (size_t)t * s->n_q, *k = j->k + (size_t)t * s->n_q, *v = j->v + (size_t)t * nv;
    memcpy(q, W ? tmp + s->off_q : P + s->off_q, sizeof(float) * (size_t)s->n_q);
    memcpy(k, W ? tmp + s->off_k : P + s->off_k, sizeof(float) * (size_t)s->n_q);
    memcpy(v, W && s->conv_v ? tmp + s->off_v : P + s->off_v, sizeof(float) * (size_t)nv);
    l2_rows(q, s->h_qk, s->dk, s->l2, s->l2_eps, s->q_scale);
    l2_rows(k, s->h_qk, s->dk, s->l2, s->l2_eps, 1.f);
    if (j->xskip) memcpy(j->xskip + (size_t)t * nv, v, sizeof(float) * (size_t)nv);
    for (int h = 0; h < s->h_v; h++) {
      float dt = softplusf(P[s->off_a + h] + s->dt_bias[h]);
      dt = dt < s->dt_min ? s->dt_min : dt > s->dt_max ? s->dt_max : dt;
      j->g[(size_t)t * s->h_v + h] = -expf(s->A_log[h]) * dt;
      if (s->dt_scales_v)
        for (int i = 0; i < s->dv; i++) v[(size_t)h * s->dv + i] *= dt;
      if (s->beta_mode) {
        float bb = sigmoidf(P[s->off_b + h]);
        if (s->beta_mode == MDL_BETA_SIGMOID_SQ) bb = (bb + 1e-6f) * (bb + 1e-6f);
        j->beta[(size_t)t * s->h_v + h] = bb;
      }
      if (s->alpha) j->alpha[(size_t)t * s->h_v + h] = sigmoidf(P[s->off_al + h]);
    }
  }
}

static void cpu_ssm_prep(be *b, const be_ssm_prep *j) {
  const mdl_ssm *s = j->s;
  rtp_run(b->pool, prep_items, (void *)j, j->T, 8);
  int W = s->conv_w, C = s->conv_ch;
  if (W <= 1) return;
  /* conv tails: the last W-1 inputs of each sequence (older tail first when it had fewer tokens) */
  float tmp[(W - 1) * C];
  for (int t = 0; t < j->T; t++) {
    if (t + 1 < j->T && j->seq_start[t + 1] == j->seq_start[t]) continue;
    int st = j->seq_start[t], n = t - st + 1;
    float *tail = j->conv_tail + (size_t)j->slot[t] * (W - 1) * C;
    for (int r = 0; r < W - 1; r++) {
      int src = n - (W - 1) + r; /* index within this call's tokens */
      if (src >= 0) memcpy(tmp + (size_t)r * C, j->P + (size_t)(st + src) * s->n_in, sizeof(float) * (size_t)C);
      else memcpy(tmp + (size_t)r * C, tail + (size_t)(W - 1 + src) * C, sizeof(float) * (size_t)C);
    }
    memcpy(tail, tmp, sizeof(float) * (size_t)(W - 1) * C);
  }
}

typedef struct { const ssmc_kernel *k; const ssmc_fwd_args *fa; const ssmc_decode_args *da; be *b; } kern_ctx;

static void kern_items(void *vc, int64_t b, int64_t e, int worker) {
  kern_ctx *c = vc;
  float *ws = c->b->ws + (size_t)worker * c->b->ws_floats;
  if (c->fa) c->k->fwd(c->fa, b, e, ws);
  else c->k->decode(c->da, b, e, ws);
}

static int ws_ensure(be *b, const ssmc_kernel *k) {
  int64_t need = (k->ws_floats + 15) & ~(int64_t)15;
  if (need <= b->ws_floats && b->ws) return 0;
  free(b->ws);
  b->ws = aligned_alloc(64, sizeof(float) * (size_t)(need ? need : 16) * b->threads);
  b->ws_floats = need;
  return b->ws ? 0 : -1;
}

static int cpu_reserve(be *b, const be_need *n) {
  if (n->kern) return ws_ensure(b, n->kern);
  if (!n->attn) return 0;
  int64_t need = cpu_attn_scratch(n->attn->n_heads, n->attn->n_kv, n->attn->head_dim);
  if (need <= b->att_floats) return 0;
  free(b->att);
  b->att = aligned_alloc(64, sizeof(float) * (size_t)need * b->threads);
  b->att_floats = b->att ? need : 0;
  return b->att ? 0 : -1;
}

static void cpu_ssm_fwd(be *b, const ssmc_kernel *k, const ssmc_fwd_args *a) {
  kern_ctx c = {k, a, NULL, b};
  rtp_run(b->pool, kern_items, &c, (int64_t)a->n_seqs * a->h_v, 1);
}

static void cpu_ssm_decode(be *b, const ssmc_kernel *k, const ssmc_decode_args *a) {
  kern_ctx c = {k, NULL, a, b};
  int64_t n = (int64_t)a->n_seqs * a->h_v;
  rtp_run(b->pool, kern_items, &c, n, n / (2 * b->threads) > 0 ? n / (2 * b->threads) : 1);
}

typedef struct { const mdl_ssm *s; float *y; const float *xskip, *P; float *out; } post_ctx;

static void post_rows(const void *vc, int t0, int t1) {
  const post_ctx *c = vc;
  const mdl_ssm *s = c->s;
  int nv = s->h_v * s->dv;
  for (int t = t0; t < t1; t++) {
    float *yt = c->y + (size_t)t * nv, *ot = c->out + (size_t)t * nv;
    const float *z = c->P + (size_t)t * s->n_in + s->off_z;
    if (s->D)
      for (int h = 0; h < s->h_v; h++)
        for (int i = 0; i < s->dv; i++) yt[h * s->dv + i] += s->D[h] * c->xskip[(size_t)t * nv + h * s->dv + i];
    if (s->onorm == MDL_ONORM_NONE) { memcpy(ot, yt, sizeof(float) * (size_t)nv); continue; }
    if (s->onorm == MDL_ONORM_GATE_NORM)
      for (int i = 0; i < nv; i++) yt[i] *= siluf(z[i]);
    int G = s->onorm_group;
    for (int g0 = 0; g0 < nv; g0 += G) {
      const float *w = s->onorm_per_head ? s->onorm_w : s->onorm_w + g0;
      rms_row(yt + g0, G, w, 0, s->onorm_eps, ot + g0);
      if (s->onorm == MDL_ONORM_NORM_GATE)
        for (int i = 0; i < G; i++) ot[g0 + i] *= siluf(z[g0 + i]);
    }
  }
}

static void cpu_ssm_post(be *b, const mdl_ssm *s, int T, float *y, const float *xskip, const float *P, float *out) {
  post_ctx c = {s, y, xskip, P, out};
  rows_par(b, T, post_rows, &c);
}

typedef struct { int act, inter; const float *up; float *out; } act_ctx;

static void act_rows(const void *vc, int t0, int t1) {
  const act_ctx *c = vc;
  int inter = c->inter;
  for (int t = t0; t < t1; t++) {
    float *o = c->out + (size_t)t * inter;
    if (c->act == MDL_ACT_SWIGLU) {
      const float *g = c->up + (size_t)t * 2 * inter, *u = g + inter;
      for (int i = 0; i < inter; i++) o[i] = siluf(g[i]) * u[i];
    } else {
      const float *u = c->up + (size_t)t * inter;
      for (int i = 0; i < inter; i++) o[i] = u[i] > 0 ? u[i] * u[i] : 0.f;
    }
  }
}

void cpu_mlp_act(be *b, int T, int act, int inter, const float *up, float *out) {
  act_ctx c = {act, inter, up, out};
  rows_par(b, T, act_rows, &c);
}

static const be_ops CPU = {
    "cpu", cpu_alloc, cpu_free, cpu_gemm, cpu_gemm_n, cpu_rmsnorm, cpu_qk_prep, cpu_attn, cpu_ssm_prep, cpu_ssm_fwd, cpu_ssm_decode,
    cpu_ssm_post, cpu_ffn_n, cpu_mlp_act, cpu_copy, cpu_zero, cpu_reserve,
};

const be_ops *be_cpu_ops(void) { return &CPU; }

be *be_cpu_create(int threads) {
  be *b = calloc(1, sizeof *b);
  if (!b) return NULL;
  b->threads = threads < 1 ? 1 : threads;
  b->pool = rtp_create(b->threads);
  b->threads = rtp_threads(b->pool);
  openblas_set_num_threads(1); /* our pool parallelizes the GEMMs (cpu_gemm) */
  return b;
}

void be_cpu_destroy(be *b) {
  if (!b) return;
  rtp_destroy(b->pool);
  free(b->ws);
  free(b->att);
  free(b);
}
