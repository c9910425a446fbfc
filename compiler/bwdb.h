/* compiler stage: CPU timing of a kernel's backward (a benchmark, not a test).
 * Same batch as bench.c (one sequence of T tokens, H heads, h_qk = h_v):
 * the forward alone, and forward + backward (the forward's x saved for a solve
 * spec, dy and the final-state gradients random); warm-up, then the median. */
#ifndef SSMC_BWDB_H
#define SSMC_BWDB_H
#include "bench.h"

typedef struct { double fwd_ms, fwdbwd_ms, bwd_ms; } bwdb_result;

/* Returns 0, or -1 if the kernel has no backward. */
int bwdb_kernel(const cls_family *f, const ssmc_kernel *k, const bench_opts *o, bwdb_result *r);

#endif
