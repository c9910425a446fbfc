/* compiler stage: check's CUDA emulation (`ssmc check --backend cuda-emu`, compiler/chk_emu.c).
 * Included (-include) in front of a generated CUDA module compiled as C++ for the CPU with SSMC_EMU
 * defined: every CUDA thread of a block is a POSIX thread, blocks run one after the other (so one
 * array is the shared memory of all), __syncthreads and the warp operations are barriers, and the
 * module's inline PTX (mma8 and the copy helpers, guarded by SSMC_EMU in the template) gets C++
 * bodies: m16n8k8 tf32 products from the documented fragment layout, cp.async as plain copies.
 * It checks what a kernel computes, not its speed or its memory model: races that only real
 * hardware shows are compute-sanitizer's. */
#ifndef SSMC_EMU_CUDA_H
#define SSMC_EMU_CUDA_H
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ssmc_kernel.h"

#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__
#define __restrict__

struct float2 { float x, y; };
struct float4 { float x, y, z, w; };
struct uint2 { unsigned x, y; };
struct uint3 { unsigned x, y, z; };
static inline float2 make_float2(float x, float y) { return {x, y}; }
static inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
static inline uint2 make_uint2(unsigned x, unsigned y) { return {x, y}; }
static inline unsigned __float_as_uint(float f) { unsigned u; memcpy(&u, &f, 4); return u; }
static inline float __uint_as_float(unsigned u) { float f; memcpy(&f, &u, 4); return f; }
static inline float4 __ldcs(const float4 *p) { return *p; }
static inline float __fdividef(float a, float b) { return a / b; }

/* ------------------------------------------------ barriers that count the threads still running */
struct emu_bar {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int expected, arrived;
  unsigned gen;
};
static inline void emu_bar_init(emu_bar *b, int n) {
  pthread_mutex_init(&b->mu, NULL);
  pthread_cond_init(&b->cv, NULL);
  b->expected = n;
  b->arrived = 0;
  b->gen = 0;
}
static inline void emu_bar_release(emu_bar *b) { /* mu held */
  b->arrived = 0;
  b->gen++;
  pthread_cond_broadcast(&b->cv);
}
static inline void emu_bar_wait(emu_bar *b) {
  pthread_mutex_lock(&b->mu);
  const unsigned g = b->gen;
  if (++b->arrived >= b->expected) emu_bar_release(b);
  else
    while (g == b->gen) pthread_cond_wait(&b->cv, &b->mu);
  pthread_mutex_unlock(&b->mu);
}
/* a thread that returned: exited threads count as arrived (as on the GPU) */
static inline void emu_bar_leave(emu_bar *b) {
  pthread_mutex_lock(&b->mu);
  b->expected--;
  if (b->arrived > 0 && b->arrived >= b->expected) emu_bar_release(b);
  pthread_mutex_unlock(&b->mu);
}

/* ------------------------------------------------ the running block */
#define EMU_MAX_THREADS 1024
#define EMU_SMEM_FLOATS (232448 / 4)
struct emu_thread { uint3 tid, bid, bdim, gdim; int lane, warp; };
inline thread_local emu_thread emu_t;
struct emu_block {
  emu_bar all, warp[EMU_MAX_THREADS / 32];
  uint64_t xch[EMU_MAX_THREADS / 32][32];   /* shuffles */
  float mma_a[EMU_MAX_THREADS / 32][32][4]; /* mma8 fragments */
  float mma_b[EMU_MAX_THREADS / 32][32][2];
};
inline emu_block emu_blk;
extern "C" {
alignas(16) float sm[EMU_SMEM_FLOATS]; /* extern __shared__ float sm[]: one block at a time */
}
#define threadIdx (emu_t.tid)
#define blockIdx (emu_t.bid)
#define blockDim (emu_t.bdim)
#define gridDim (emu_t.gdim)
static inline void __syncthreads() { emu_bar_wait(&emu_blk.all); }
static inline void emu_warp_sync() { emu_bar_wait(&emu_blk.warp[emu_t.warp]); }

template <typename T> static inline T emu_shfl(T v, int src, bool keep) {
  static_assert(sizeof(T) <= 8, "a shuffle moves at most 8 bytes");
  uint64_t *x = emu_blk.xch[emu_t.warp];
  memcpy(&x[emu_t.lane], &v, sizeof(T));
  emu_warp_sync();
  T r = v;
  if (!keep) memcpy(&r, &x[src & 31], sizeof(T));
  emu_warp_sync();
  return r;
}
template <typename T> static inline T __shfl_xor_sync(unsigned, T v, int o) { return emu_shfl(v, emu_t.lane ^ o, false); }
template <typename T> static inline T __shfl_up_sync(unsigned, T v, int o) {
  return emu_shfl(v, emu_t.lane - o, emu_t.lane < o);
}
template <typename T> static inline T __shfl_down_sync(unsigned, T v, int o) {
  return emu_shfl(v, emu_t.lane + o, emu_t.lane + o > 31);
}
template <typename T> static inline T __shfl_sync(unsigned, T v, int src) { return emu_shfl(v, src, false); }

/* ------------------------------------------------ the module's PTX */
/* mma.sync.m16n8k8 tf32 (row.col, fp32 accumulation): lane = 4 g + q holds a = {A[g][q], A[g+8][q],
 * A[g][q+4], A[g+8][q+4]}, b = {B[q][g], B[q+4][g]}, d = {D[g][2q], D[g][2q+1], D[g+8][2q], D[g+8][2q+1]} */
static inline void mma8(float *d, const unsigned *a, const unsigned *b) {
  const int w = emu_t.warp, lane = emu_t.lane;
  for (int r = 0; r < 4; r++) emu_blk.mma_a[w][lane][r] = __uint_as_float(a[r]);
  for (int r = 0; r < 2; r++) emu_blk.mma_b[w][lane][r] = __uint_as_float(b[r]);
  emu_warp_sync();
  const int g = lane >> 2, q = lane & 3;
  for (int o = 0; o < 4; o++) {
    const int row = g + (o >> 1) * 8, col = 2 * q + (o & 1);
    float s = 0.0f;
    for (int k = 0; k < 8; k++) {
      const float av = emu_blk.mma_a[w][(row & 7) * 4 + (k & 3)][(row >> 3) + 2 * (k >> 2)];
      const float bv = emu_blk.mma_b[w][col * 4 + (k & 3)][k >> 2];
      s += av * bv;
    }
    d[o] += s;
  }
  emu_warp_sync();
}
static inline float4 ld_state4(const float *p) { return *(const float4 *)p; }
static inline void st_state4(float *p, float4 v) { *(float4 *)p = v; }
static inline void cp_async16(float *dst, const float *src) { memcpy(dst, src, 16); }
static inline unsigned long long evict_first() { return 0; }
static inline void cp_async16_hint(float *dst, const float *src, unsigned long long) { memcpy(dst, src, 16); }
static inline void cp_async_commit() {}
template <int N> static inline void cp_async_wait() {}

/* ------------------------------------------------ launches (one block after the other) */
/* nt threads run every block of the grid in turn: after a block, all wait at `next` (those that
 * returned early too), thread 0 resets the block's barriers, all wait again, then the next block. */
struct emu_launch { void *fn; int sig, nt; void **params; const unsigned *g; pthread_barrier_t next; };
struct emu_arg { emu_launch *l; unsigned tid; };
static void emu_reset_barriers(int nt) {
  emu_bar_init(&emu_blk.all, nt);
  for (int w = 0; w < nt / 32; w++) emu_bar_init(&emu_blk.warp[w], 32);
}
static void *emu_thread_main(void *p) {
  emu_arg *x = (emu_arg *)p;
  emu_launch *l = x->l;
  emu_t.tid = {x->tid, 0, 0};
  emu_t.bdim = {(unsigned)l->nt, 1, 1};
  emu_t.gdim = {l->g[0], l->g[1], l->g[2]};
  emu_t.lane = (int)(x->tid & 31);
  emu_t.warp = (int)(x->tid >> 5);
  for (unsigned z = 0; z < l->g[2]; z++)
    for (unsigned y = 0; y < l->g[1]; y++)
      for (unsigned b = 0; b < l->g[0]; b++) {
        emu_t.bid = {b, y, z};
        if (l->sig == 1) /* (ssmc_fwd_args, ssmc_bwd_args, float *) */
          ((void (*)(ssmc_fwd_args, ssmc_bwd_args, float *))l->fn)(*(ssmc_fwd_args *)l->params[0],
                                                                   *(ssmc_bwd_args *)l->params[1], *(float **)l->params[2]);
        else if (l->sig == 2) /* (ssmc_decode_args, float *) */
          ((void (*)(ssmc_decode_args, float *))l->fn)(*(ssmc_decode_args *)l->params[0], *(float **)l->params[1]);
        else /* (ssmc_fwd_args, float *) */
          ((void (*)(ssmc_fwd_args, float *))l->fn)(*(ssmc_fwd_args *)l->params[0], *(float **)l->params[1]);
        emu_bar_leave(&emu_blk.warp[emu_t.warp]);
        emu_bar_leave(&emu_blk.all);
        pthread_barrier_wait(&l->next);
        if (x->tid == 0) emu_reset_barriers(l->nt);
        pthread_barrier_wait(&l->next);
      }
  return NULL;
}
/* Runs entry fn on a grid of g[0] x g[1] x g[2] blocks of nt threads; sig: 0 forward-like
 * (ssmc_fwd_args, float *), 1 backward (ssmc_fwd_args, ssmc_bwd_args, float *), 2 decode. 0, or -1
 * for a block size the emulation does not take. */
extern "C" int ssmc_emu_launch(void *fn, int sig, const unsigned *g, int nt, void **params) {
  if (nt < 1 || nt > EMU_MAX_THREADS || nt % 32) return -1;
  static pthread_t th[EMU_MAX_THREADS];
  static emu_arg args[EMU_MAX_THREADS];
  emu_launch l = {fn, sig, nt, params, g, {}};
  pthread_barrier_init(&l.next, NULL, (unsigned)nt);
  emu_reset_barriers(nt);
  pthread_attr_t at;
  pthread_attr_init(&at);
  pthread_attr_setstacksize(&at, 1 << 20);
  for (int i = 0; i < nt; i++) {
    args[i] = {&l, (unsigned)i};
    if (pthread_create(&th[i], &at, emu_thread_main, &args[i])) {
      /* the threads made would wait at their first barrier for ever */
      fprintf(stderr, "ssmc cuda-emu: cannot make thread %d of a %d-thread block\n", i, nt);
      abort();
    }
  }
  pthread_attr_destroy(&at);
  for (int i = 0; i < nt; i++) pthread_join(th[i], NULL);
  pthread_barrier_destroy(&l.next);
  return 0;
}
#endif
