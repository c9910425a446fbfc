/* runtime stage: choosing the next token from logits — greedy (temperature 0)
 * or temperature / top-k / top-p sampling with a seeded generator. Scratch
 * space is the caller's (planned once), so the decode loop does not allocate. */
#ifndef MX_SAMPLE_H
#define MX_SAMPLE_H
#include <stdint.h>

typedef struct {
  float temperature;  /* 0: greedy */
  int top_k;          /* 0: all */
  float top_p;        /* 1: all */
} mx_sampler;

/* scratch: V floats, idx: V ints. rng: state of a xorshift64* generator (nonzero). */
int mx_sample(const float *logits, int V, const mx_sampler *s, uint64_t *rng, float *scratch, int *idx);

#endif
