/* runtime stage: token sampling (see mx_sample.h). */
#include "mx_sample.h"
#include <math.h>
#include <stdlib.h>

static double uniform(uint64_t *s) {
  *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
  return (double)((*s * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

static const float *CMP_P;
static int by_prob(const void *a, const void *b) {
  float x = CMP_P[*(const int *)a], y = CMP_P[*(const int *)b];
  return x < y ? 1 : x > y ? -1 : *(const int *)a - *(const int *)b;
}

int mx_sample(const float *logits, int V, const mx_sampler *s, uint64_t *rng, float *p, int *idx) {
  int best = 0;
  for (int i = 1; i < V; i++) if (logits[i] > logits[best]) best = i;
  if (s->temperature <= 0.f) return best;
  double sum = 0;
  for (int i = 0; i < V; i++) sum += p[i] = expf((logits[i] - logits[best]) / s->temperature);
  for (int i = 0; i < V; i++) { p[i] = (float)(p[i] / sum); idx[i] = i; }
  CMP_P = p;
  qsort(idx, (size_t)V, sizeof *idx, by_prob);
  int n = s->top_k > 0 && s->top_k < V ? s->top_k : V;
  double c = 0;
  int keep = 0;
  for (; keep < n; keep++) {
    c += p[idx[keep]];
    if (c >= s->top_p && s->top_p < 1.f) { keep++; break; }
  }
  double tot = 0;
  for (int i = 0; i < keep; i++) tot += p[idx[i]];
  double r = uniform(rng) * tot, acc = 0;
  for (int i = 0; i < keep; i++) {
    acc += p[idx[i]];
    if (r < acc) return idx[i];
  }
  return idx[keep - 1];
}
