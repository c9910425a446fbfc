/* compiler stage: CPU throughput of a kernel (a benchmark, not a test).
 * Times the chunkwise forward at T tokens and H heads (the kernel call only),
 * the decode of B sequences (one token each, states in place) and, on request,
 * the recurrent form (the decode kernel stepped token by token over the same
 * sequence). Timings are the lowest median of clean blocks (bench.c says what
 * clean means), wall clock. */
#ifndef SSMC_BENCH_H
#define SSMC_BENCH_H
#include <stdio.h>
#include "cls.h"
#include "ssmc_kernel.h"

typedef struct { int T, H, N, threads, reps, iters, B, rec, once; } bench_opts; /* once: one forward, untimed blocks (callgrind) */

typedef struct {
  double fwd_ms, rec_ms, dec_ms, flops_per_token;
  double dec_state_bytes; /* state bytes read + written by one decode call */
  int fwd_clean, dec_clean; /* clean blocks behind the figure (0: contended) */
} bench_result;

/* FLOPs per token per head in the recurrent form (a multiply-add counts 2):
 * state updates and readouts 2*KV each (3 for a rank-1 erase), a symmetric
 * solve state 2*K*K for its update plus 2*K*K per iteration. */
double bench_flops_per_token(const cls_family *f, int iters);
int bench_kernel(const cls_family *f, const ssmc_kernel *k, const bench_opts *o, bench_result *r);
/* Blocks of `reps` timed calls of fn(ctx) after a warm-up call: the lowest median of up to 3 clean blocks
 * (the process had its threads' CPU time and the CPU pressure stall stayed low), of at most 10 blocks;
 * *clean says how many were clean (0: the lowest median of all, contended). */
typedef void (*bench_fn)(void *ctx);
double bench_time_blocks(bench_fn fn, void *ctx, int reps, int threads, int *clean);

#endif
