/* oracle stage: splitmix64, domain samplers and bf16 rounding (orc_rand.h). */
#include "orc_rand.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ssmc_kernel.h" /* SSMC_IN_*; ssmc_oracle does not link the runtime */

static const double orc_two_pi = 6.283185307179586476925286766559;

void orc_rng_seed(orc_rng *r, uint64_t seed) { r->s = seed; }

uint64_t orc_next(orc_rng *r) {
  uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double orc_uniform(orc_rng *r) { return (double)(orc_next(r) >> 11) * 0x1.0p-53; }

double orc_normal(orc_rng *r) {
  double u1 = 1.0 - orc_uniform(r);   /* (0,1]: log(u1) is finite */
  double u2 = orc_uniform(r);
  return sqrt(-2.0 * log(u1)) * cos(orc_two_pi * u2);
}

/* log(sigmoid(x)) = −log(1 + e^{−x}), kept strictly negative. */
static double log_sigmoid_neg(double x) {
  double y = x >= 0.0 ? -log1p(exp(-x)) : x - log1p(exp(x));
  return y < 0.0 ? y : -DBL_MIN;
}

void orc_sample(orc_rng *r, int domain, int dim, double *out) {
  switch (domain) {
  case SSMC_IN_NORMAL:
    for (int i = 0; i < dim; i++) out[i] = orc_normal(r);
    break;
  case SSMC_IN_UNIT_SPHERE: {
    double nrm = 0.0;
    for (int i = 0; i < dim; i++) {
      out[i] = orc_normal(r);
      nrm += out[i] * out[i];
    }
    nrm = sqrt(nrm);
    if (nrm == 0.0) {                 /* measure zero; keep the result on the sphere */
      out[0] = 1.0;
      nrm = 1.0;
    }
    for (int i = 0; i < dim; i++) out[i] /= nrm;
    break;
  }
  case SSMC_IN_LOG_DECAY:
    for (int i = 0; i < dim; i++) out[i] = log_sigmoid_neg(2.0 + 1.5 * orc_normal(r));
    break;
  case SSMC_IN_UNIT:
    for (int i = 0; i < dim; i++) out[i] = orc_uniform(r);
    break;
  default:
    fprintf(stderr, "orc_sample: unknown domain %d\n", domain);
    abort();
  }
}

void orc_sample_tokens(orc_rng *r, int domain, int T, int dim, double *out) {
  for (int t = 0; t < T; t++) orc_sample(r, domain, dim, out + (size_t)t * dim);
}

uint16_t orc_f32_to_bf16(float x) {
  uint32_t u;
  memcpy(&u, &x, sizeof u);
  if ((u & 0x7F800000u) == 0x7F800000u && (u & 0x007FFFFFu) != 0)
    return (uint16_t)((u >> 16) | 0x0040u);           /* NaN: keep sign, force quiet */
  uint32_t lsb = (u >> 16) & 1u;                      /* round to nearest, ties to even */
  u += 0x7FFFu + lsb;
  return (uint16_t)(u >> 16);
}

float orc_bf16_to_f32(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float x;
  memcpy(&x, &u, sizeof x);
  return x;
}

float orc_round_bf16f(float x) { return orc_bf16_to_f32(orc_f32_to_bf16(x)); }

double orc_round_bf16(double x) { return (double)orc_round_bf16f((float)x); }

void orc_round_bf16_array(double *x, int64_t n) {
  for (int64_t i = 0; i < n; i++) x[i] = orc_round_bf16(x[i]);
}
