/* compiler stage: CPU timing of a kernel's backward (a benchmark, not a test).
 * Same batch as bench.c (B sequences of T tokens, H heads, h_qk = h_v): the
 * backward alone (given the forward's inputs and initial states, its x for a
 * solve spec, random dy and final-state gradients), timed like the forward:
 * the lowest median of clean blocks (bench.c). */
#ifndef SSMC_BWDB_H
#define SSMC_BWDB_H
#include "bench.h"
typedef struct { double bwd_ms; int bwd_clean; } bwdb_result;
/* Returns 0, or -1 if the kernel has no backward. */
int bwdb_kernel(const cls_family *f, const ssmc_kernel *k, const bench_opts *o, bwdb_result *r);
#endif
