/* compiler stage: GPU throughput of a kernel's CUDA module (a benchmark, not a test).
 *
 * Method: CUDA events around every launch, warm-up launches first, the median
 * of the timed ones; inputs rotated over as many device copies as it takes to
 * read past the L2 between two uses of the same copy. The machine's ceilings
 * are measured in the same process: device-to-device copy bandwidth (bytes
 * read + written) and the bf16 tensor-core rate of mma.sync (a register-only
 * probe). Each row reports the time, the achieved TFLOP/s and GB/s, and the
 * fraction of the floor max(FLOPs / mma rate, bytes / copy bandwidth) reached.
 *
 * FLOPs are counted as the chunkwise algorithm executes them on dense tiles
 * (bench_cuda_chunk_flops); bytes are the minimum any kernel must move:
 * every input read once, the output written once, states read and written. */
#ifndef SSMC_BENCH_CUDA_H
#define SSMC_BENCH_CUDA_H
#include <stddef.h>
#include "cls.h"
#include "rt_cuda.h"

typedef struct {
  double copy_gbps, mma_bf16_tflops;
  double launch_event_us, launch_host_us; /* an empty kernel: events around it; launch + wait from C */
} bench_ceil;

/* Measures the two ceilings; 0, or -1 with err set. */
int bench_cuda_ceilings(rt_cuda *c, const char *cache_dir, bench_ceil *o, char *err, size_t n);

typedef struct {
  double ms;         /* median device time per call (events) */
  double host_us;    /* decode only: median wall time of launch + synchronize, from C */
  double flops, bytes;
  int copies;        /* input copies rotated over */
} bench_cuda_res;

/* FLOPs per token and head of the chunkwise forward (dense tiles, chunk C). */
double bench_cuda_chunk_flops(const cls_family *f, int iters);

/* Chunkwise forward of B sequences of T tokens, H heads (h_qk = h_v = H),
 * initial and final states on, through forward variant `variant` (RT_FWD_*). */
int bench_cuda_fwd(rt_cuda *c, rt_cuda_mod *m, const cls_family *f, const ssmc_kernel *k, int B, int T, int H, int reps,
                   int iters, int variant, bench_cuda_res *r, char *err, size_t n);
/* FLOPs per token and head of the chunkwise backward (with its recomputation of the forward's chunk parts). */
double bench_cuda_bwd_flops(const cls_family *f);
/* Times the backward alone through backward variant `variant` (RT_BWD_*) and, where both is not NULL,
 * forward + backward as the runtime picks them (B sequences of T tokens, H heads), as bench_cuda_fwd. saved: the
 * forward kept for the backward (rt_cuda_fwd_save, then the backward with fwd_saved). */
int bench_cuda_bwd(rt_cuda *c, rt_cuda_mod *m, const cls_family *f, const ssmc_kernel *k, int B, int T, int H, int reps,
                   int iters, int variant, int saved, bench_cuda_res *bwd, bench_cuda_res *both, char *err, size_t n);
/* --rows: a comma-separated list of the GPU bench's row names (the second column: fwd, fwd-<variant>, bwd,
 * bwd-narrow, fwd+bwd, bwd-saved, fwd+bwd-saved, decode). bench_rows_check: 0, or -1 with err naming the first
 * item that is none of them; bench_row_wanted: whether row `label` is in the list (every row where rows is NULL). */
int bench_rows_check(const char *rows, char *err, size_t n);
int bench_row_wanted(const char *rows, const char *label);
/* One decode step of B sequences, H heads, through decode variant `variant` (RT_DECODE_*). */
int bench_cuda_decode(rt_cuda *c, rt_cuda_mod *m, const cls_family *f, const ssmc_kernel *k, int B, int H, int reps,
                      int iters, int variant, bench_cuda_res *r, char *err, size_t n);

#endif
