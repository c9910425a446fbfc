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

/* exp(x) for x <= 0 (scores minus their row max); a branch-free polynomial
 * (Cephes' expf reduction, ~2 ulp) that the compiler vectorizes. */
static inline float exp_neg(float x) {
  x = x < -87.f ? -87.f : x;
  float n = floorf(x * 1.44269504f + 0.5f);
  float r = x - n * 0.693359375f + n * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.f;
  union { float f; int32_t i; } u = {p};
  u.i += (int32_t)n << 23;
  return u.f;
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
      float mx = m[r];
      for (int x = s0; x < s1; x++) mx = s[x] > mx ? s[x] : mx;
      float sum = 0.f;
      for (int x = s0; x < s1; x++) sum += s[x] = exp_neg(s[x] - mx);
      if (s0) memset(s, 0, sizeof(float) * (size_t)s0);
      if (s1 < n) memset(s + s1, 0, sizeof(float) * (size_t)(n - s1));
      if (mx != m[r]) {
        float cf = m[r] == -INFINITY ? 0.f : exp_neg(m[r] - mx);
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
