/* compiler stage: verification of a kernel against the fp64 oracle.
 * Inputs are drawn from each parameter's domain (bf16-rounded for bf16
 * kernels); shapes hit the edges (T = 1, a partial chunk, several sequences
 * of different lengths with initial states and grouped heads, T = 4096).
 * Every comparison takes its bound from the tolerance table (orc_tol.h). */
#ifndef SSMC_CHK_H
#define SSMC_CHK_H
#include <stdint.h>
#include <stdio.h>
#include "cls.h"
#include "ssmc_kernel.h"

/* Where a kernel runs. The CPU (NULL backend) runs it on host memory with
 * `threads` threads; another backend gets the host arguments and moves them
 * itself (the CUDA one: to the device, poisoned outputs, and back). Returns 0
 * or -1 with a message in err. t_total: tokens of a forward; n_slots: state
 * slots of a decode. */
typedef struct chk_backend {
  const char *name;
  int (*fwd)(void *ctx, const ssmc_kernel *k, const ssmc_fwd_args *a, int64_t t_total, char *err, size_t n);
  int (*decode)(void *ctx, const ssmc_kernel *k, const ssmc_decode_args *a, int n_slots, char *err, size_t n);
  void *ctx;
  /* appended: the chunkwise backward; 1 (no error) when this backend has none for k. y (or NULL): where the run keeps
   * a forward for the backward, that forward's output (the kernel's dtype, (t_total, h_v, V)) */
  int (*bwd)(void *ctx, const ssmc_kernel *k, const ssmc_bwd_args *a, int64_t t_total, void *y, char *err, size_t n);
  /* Decode variants (NULL: one): how many kernel k has on this backend, and which one the
   * following decode calls run (0 .. n-1; -1: the backend's own choice). check runs every one. */
  int (*decode_variants)(void *ctx, const ssmc_kernel *k);
  void (*set_decode_variant)(void *ctx, int variant);
  /* appended: forward variants (NULL: one), the same way (CUDA: the staged forward, the fused one) */
  int (*fwd_variants)(void *ctx, const ssmc_kernel *k);
  void (*set_fwd_variant)(void *ctx, int variant);
  int cc_major; /* appended: the (emulated) device's compute capability (ssmc_cuda_for_device); 0 on the CPU */
  /* appended: backward runs (NULL: one), the same way (CUDA: rt_bwd_run_at's: the wide and the narrow forms of
   * the chunk-to-chunk stages, then the backward after each forward variant that keeps its results) */
  int (*bwd_variants)(void *ctx, const ssmc_kernel *k);
  void (*set_bwd_variant)(void *ctx, int variant);
} chk_backend;

typedef struct {
  uint64_t seed;
  int long_shapes;     /* include T = 4096 */
  int threads;
  int iters;           /* solver iterations for the check; <= 0: the spec's */
  const chk_backend *be; /* NULL: the CPU */
  int bwd_skip;        /* backward rows (chk_bwd.c): 0 every shape, 1 not at T = 4096, 2 none */
} chk_opts;

typedef struct { int rows, failed; double worst_ratio; } chk_result;

/* One batch of sequences: lengths and heads. */
typedef struct { const char *name; int n; int lens[8]; int h_qk, h_v, init; } chk_shape;

/* Prints one row per kernel, shape and quantity; returns the number failed. */
int chk_kernel(const cls_family *f, const ssmc_kernel *k, const chk_opts *o, FILE *out, chk_result *r);
/* One row of check's table: counts it in r (bound > 0: judged, rel <= bound; else reported) and prints
 * kernel, shape, quantity, max abs, relative L2, bound and the verdict. */
void chk_row_judge(FILE *out, chk_result *r, const char *kname, const char *shape, const char *what, double mx,
                   double rel, double bound);
/* A failed row that has no numbers: "error: " and what printf's fmt makes of the rest, counted in r. */
void chk_row_error(FILE *out, chk_result *r, const char *kname, const char *shape, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Building blocks shared with tests and bench: a batch of random inputs. */
typedef struct chk_batch chk_batch;
chk_batch *chk_batch_new(const cls_family *f, const ssmc_kernel *k, const chk_shape *sh, uint64_t seed);
void chk_batch_free(chk_batch *b);
/* Runs the batch's kernels on a backend (NULL: the CPU); a failure is kept and reported by chk_batch_error. */
void chk_batch_set_backend(chk_batch *b, const chk_backend *be);
const char *chk_batch_error(const chk_batch *b);
/* the backend's failed runs so far (a run that failed leaves no numbers to compare) */
int chk_batch_fails(const chk_batch *b);
const chk_backend *chk_batch_backend(const chk_batch *b);
/* Runs the kernel's forward on the batch (state_in from the batch), writes out and final states. */
void chk_run_fwd(chk_batch *b, const ssmc_kernel *k, int threads, int iters);
/* the row label of forward variant v (0: the staged forward "fwd"; then "fwd-" and the CUDA module's
 * fused slot as a device of compute capability cc_major runs it: fused, seq, solve or fused90; then
 * "fwd-narrow": the narrow forms of the chunk-to-chunk stages) into buf */
const char *chk_fwd_label(const ssmc_kernel *k, int cc_major, int v, char *buf, size_t n);
/* the row label of backward run v (rt_bwd_run_at): "bwd", "bwd-narrow", or after a kept forward "bwd-saved" and
 * its forward label's suffix (bwd-saved, bwd-saved-fused90, bwd-saved-narrow ...) into buf */
const char *chk_bwd_label(const ssmc_kernel *k, int cc_major, int v, char *buf, size_t n);
/* Multiplies input i by f (kernel buffers re-rounded for bf16): e.g. stronger decays. */
void chk_batch_scale_input(chk_batch *b, int i, double f);
/* The same forward, and nothing else (no conversion of the outputs): what bench times. */
void chk_time_fwd(chk_batch *b, const ssmc_kernel *k, int threads, int iters);
/* Forward in two calls, [0, t1) then the rest, passing the state between them
 * (a batch of one sequence). */
void chk_run_fwd_split(chk_batch *b, const ssmc_kernel *k, int64_t t1, int threads, int iters);
/* Runs the kernel's decode token by token through permuted slots. */
void chk_run_decode(chk_batch *b, const ssmc_kernel *k, int threads, int iters);
/* Results of the last run: output (T_total, h_v, V) as double, final state i as ABI layout. */
const double *chk_batch_out(chk_batch *b, int64_t *n);
const float *chk_batch_state(chk_batch *b, int i, int64_t *n);
int64_t chk_batch_tokens(const chk_batch *b);
/* Input i of the batch as the kernel sees it, in double: (T, H_in, D). */
double *chk_batch_input(chk_batch *b, int i);
/* Input i in the kernel's own dtype and layout (what a backend uploads), and its size in bytes. */
const void *chk_batch_kinput(const chk_batch *b, int i, size_t *bytes);
/* Re-packs input i into the kernel's buffer after a test edited chk_batch_input. */
void chk_batch_sync_input(chk_batch *b, int i);
/* The solve's x after the last run: (T, h_v, K). */
const float *chk_batch_x(chk_batch *b);
/* The oracle's output y for the batch (T, h_v, V), r = iters (or the spec's); the caller frees it. */
double *chk_batch_oracle_y(chk_batch *b, int iters);
/* A solve's convergence on the batch: rel. L2 of the oracle's fp64 Chebyshev x (r = iters, or the
 * spec's) vs the exact solve; 0 without a solve. */
double chk_batch_solve_gap(chk_batch *b, int iters);
/* The batch as the kernel sees it (for the backward rows, chk_bwd.c). */
const chk_shape *chk_batch_shape(const chk_batch *b);
const int64_t *chk_batch_cu(const chk_batch *b);
const float *chk_batch_state0(const chk_batch *b, int i);       /* initial state i (ABI layout) or NULL */

#endif
