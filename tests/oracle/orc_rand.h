/* oracle stage: deterministic random inputs for oracle checks — a splitmix64
 * generator, samplers for each parameter domain (SSMC_IN_* in
 * runtime/ssmc_kernel.h), and bf16 rounding helpers so kernels and the
 * oracle see the same bf16-rounded inputs (DESIGN.md §3). */
#ifndef SSMC_ORC_RAND_H
#define SSMC_ORC_RAND_H

#include <stdint.h>

typedef struct { uint64_t s; } orc_rng;  /* splitmix64 */

void orc_rng_seed(orc_rng *r, uint64_t seed);
uint64_t orc_next(orc_rng *r);
double orc_uniform(orc_rng *r);          /* [0,1) with 53 random bits */
double orc_normal(orc_rng *r);           /* N(0,1), Box–Muller (one value per call) */

/* Fills one token's value for a parameter of the given domain (SSMC_IN_*):
 * NORMAL: N(0,1) entries; UNIT_SPHERE: N(0,1) then L2-normalized;
 * LOG_DECAY: log(sigmoid(x)), x ~ N(2, 1.5) per entry (always < 0);
 * UNIT: U(0,1). dim = 1 for a scalar. An unknown domain aborts. */
void orc_sample(orc_rng *r, int domain, int dim, double *out);

/* Fills n = T·dim values token by token (token-major), i.e. T calls of
 * orc_sample with the same rng. */
void orc_sample_tokens(orc_rng *r, int domain, int T, int dim, double *out);

/* Round to nearest-even bf16. The double goes through float first (double
 * rounding, as a real fp32 -> bf16 cast of the same input would); NaN stays
 * NaN (quiet), ±inf stay ±inf, values past the largest bf16 round to ±inf. */
double orc_round_bf16(double x);
float orc_round_bf16f(float x);
uint16_t orc_f32_to_bf16(float x);
float orc_bf16_to_f32(uint16_t h);

/* Rounds n values in place with orc_round_bf16. */
void orc_round_bf16_array(double *x, int64_t n);

#endif
