/* runtime stage: the CPU backend's attention (see be.h, be_attn_job), tiled
 * through OpenBLAS: a work item is a block of up to BQ consecutive tokens of
 * one step and one KV head. The queries of the block's tokens for the g query
 * heads sharing that KV head form R = g x nb rows; keys and values are read
 * from the cache in blocks of BK positions: S = Q K' and O += P V are SGEMMs,
 * with the softmax taken online (running max and sum per row, flash style),
 * so the scratch does not grow with the context. Causal and sliding-window
 * masks are applied per row on S. */
#include <cblas.h>
#include <math.h>
#include <string.h>
#include "be_cpu.h"
#include "rt_fmath.h"

enum { BK = 256, ROWS = 256 };

static int block_tokens(int g) {
  int bq = ROWS / g;
  return bq < 1 ? 1 : bq > 64 ? 64 : bq;
}

int64_t cpu_attn_scratch(int n_heads, int n_kv, int head_dim) {
  int g = n_heads / n_kv, R = g * block_tokens(g);
  /* Q, O (R, hd); S (R, BK); m, l, lo, hi (R) */
  return (int64_t)R * (2 * head_dim + BK + 4) + 16;
}

/* max and sum of a row, in 16 lanes so that the loops vectorize */
static float row_max(const float *x, int n) {
  float l[16];
  for (int i = 0; i < 16; i++) l[i] = -INFINITY;
  int i = 0;
  for (; i + 16 <= n; i += 16)
    for (int j = 0; j < 16; j++) l[j] = x[i + j] > l[j] ? x[i + j] : l[j];
  float m = -INFINITY;
  for (int j = 0; j < 16; j++) m = l[j] > m ? l[j] : m;
  for (; i < n; i++) m = x[i] > m ? x[i] : m;
  return m;
}

static float row_sum(const float *x, int n) {
  float l[16] = {0};
  int i = 0;
  for (; i + 16 <= n; i += 16)
    for (int j = 0; j < 16; j++) l[j] += x[i + j];
  float s = 0;
  for (int j = 0; j < 16; j++) s += l[j];
  for (; i < n; i++) s += x[i];
  return s;
}

typedef struct { const be_attn_job *j; float *scratch; int64_t stride; int bq; } attn_ctx;

/* tokens [a, e) of one sequence (consecutive positions), KV head kh */
static void attn_run(const attn_ctx *c, int a, int e, int kh, float *ws) {
  const be_attn_job *j = c->j;
  int hd = j->head_dim, g = j->n_heads / j->n_kv, nb = e - a, R = g * nb, ld = j->n_kv * hd;
  float *Q = ws, *O = Q + (size_t)R * hd, *S = O + (size_t)R * hd; /* (R, hd) (R, hd) (R, BK) */
  float *m = S + (size_t)R * BK, *l = m + R;                        /* (R) running max, sum */
  int32_t *lo = (int32_t *)(l + R), *hi = lo + R;                   /* (R) allowed key positions */
  float scale = 1.f / sqrtf((float)hd);
  for (int i = 0; i < nb; i++) {
    const float *q = j->q + ((size_t)(a + i) * j->n_heads + (size_t)kh * g) * hd; /* g heads, contiguous */
    for (int x = 0; x < g * hd; x++) Q[(size_t)i * g * hd + x] = q[x] * scale;
    int p = j->pos[a + i], w0 = j->window > 0 && p - j->window + 1 > 0 ? p - j->window + 1 : 0;
    for (int h = 0; h < g; h++) lo[i * g + h] = w0, hi[i * g + h] = p;
  }
  memset(O, 0, sizeof(float) * (size_t)R * hd);
  for (int r = 0; r < R; r++) m[r] = -INFINITY, l[r] = 0.f;
  int k0 = lo[0], k1 = hi[R - 1]; /* positions grow with i */
  const float *K = j->kc + ((size_t)j->slot[a] * j->max_ctx * j->n_kv + kh) * hd;
  const float *V = j->vc + ((size_t)j->slot[a] * j->max_ctx * j->n_kv + kh) * hd;
  for (int kb = k0; kb <= k1; kb += BK) {
    int n = k1 + 1 - kb < BK ? k1 + 1 - kb : BK;
    /* S (R, n) = Q (R, hd) K[kb:kb+n]' */
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, R, n, hd, 1.f, Q, hd, K + (size_t)kb * ld, ld, 0.f, S, BK);
    for (int r = 0; r < R; r++) {
      float *s = S + (size_t)r * BK;
      int s0 = lo[r] - kb, s1 = hi[r] - kb + 1; /* allowed [s0, s1) within the block */
      s0 = s0 < 0 ? 0 : s0, s1 = s1 > n ? n : s1;
      if (s0 >= s1) { memset(s, 0, sizeof(float) * (size_t)n); continue; }
      float mx = fmaxf(m[r], row_max(s + s0, s1 - s0));
      for (int x = s0; x < s1; x++) s[x] = rt_expf(s[x] - mx);
      float sum = row_sum(s + s0, s1 - s0);
      if (s0) memset(s, 0, sizeof(float) * (size_t)s0);
      if (s1 < n) memset(s + s1, 0, sizeof(float) * (size_t)(n - s1));
      if (mx != m[r]) {
        float cf = m[r] == -INFINITY ? 0.f : rt_expf(m[r] - mx);
        float *o = O + (size_t)r * hd;
        for (int x = 0; x < hd; x++) o[x] *= cf;
        l[r] *= cf;
        m[r] = mx;
      }
      l[r] += sum;
    }
    /* O (R, hd) += P (R, n) V[kb:kb+n] */
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, R, hd, n, 1.f, S, BK, V + (size_t)kb * ld, ld, 1.f, O, hd);
  }
  for (int i = 0; i < nb; i++) {
    float *o = j->o + ((size_t)(a + i) * j->n_heads + (size_t)kh * g) * hd;
    for (int h = 0; h < g; h++) {
      float inv = 1.f / l[i * g + h];
      const float *src = O + (size_t)(i * g + h) * hd;
      for (int x = 0; x < hd; x++) o[(size_t)h * hd + x] = src[x] * inv;
    }
  }
}

static void attn_items(void *vc, int64_t b, int64_t e, int worker) {
  const attn_ctx *c = vc;
  const be_attn_job *j = c->j;
  float *ws = c->scratch + (size_t)worker * c->stride;
  for (int64_t it = b; it < e; it++) {
    int kh = (int)(it % j->n_kv), t0 = (int)(it / j->n_kv) * c->bq;
    int t1 = t0 + c->bq < j->T ? t0 + c->bq : j->T;
    /* runs of one sequence: same slot, consecutive positions */
    for (int a = t0; a < t1;) {
      int x = a + 1;
      while (x < t1 && j->slot[x] == j->slot[a] && j->pos[x] == j->pos[x - 1] + 1) x++;
      attn_run(c, a, x, kh, ws);
      a = x;
    }
  }
}

void cpu_attn(be *b, const be_attn_job *j) {
  int g = j->n_heads / j->n_kv;
  attn_ctx c = {j, b->att, b->att_floats, block_tokens(g)};
  if (cpu_attn_scratch(j->n_heads, j->n_kv, j->head_dim) > b->att_floats) return; /* reserve() not called: our bug */
  int64_t blocks = (j->T + c.bq - 1) / c.bq;
  rtp_run(b->pool, attn_items, &c, blocks * j->n_kv, 1);
}
