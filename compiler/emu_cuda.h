/* compiler stage: check's CUDA emulation (`ssmc check --backend cuda-emu`, compiler/chk_emu.c).
 * Included (-include) in front of a generated CUDA module compiled as C++ for the CPU with SSMC_EMU
 * defined: every CUDA thread of a block is a fiber (ucontext) on the calling thread, run round-robin
 * until it waits at a barrier or returns; blocks run one after the other (so one array is the
 * shared memory of all); __syncthreads and the warp operations are barriers, and the
 * module's inline PTX (mma8 and the copy helpers, guarded by SSMC_EMU in the template) gets C++
 * bodies: m16n8k8 tf32 products from the documented fragment layout, cp.async as copies that land at the
 * wait for their commit group (never, uncommitted).
 * It checks what a kernel computes, not its speed or its memory model: races that only real
 * hardware shows are compute-sanitizer's. */
#ifndef SSMC_EMU_CUDA_H
#define SSMC_EMU_CUDA_H
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <math.h>
#include <ucontext.h>
#include <stdint.h>
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
struct uint4 { unsigned x, y, z, w; };
static inline float2 make_float2(float x, float y) { return {x, y}; }
static inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
static inline uint2 make_uint2(unsigned x, unsigned y) { return {x, y}; }
static inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return {x, y, z, w}; }
static inline unsigned __float_as_uint(float f) { unsigned u; memcpy(&u, &f, 4); return u; }
static inline float __uint_as_float(unsigned u) { float f; memcpy(&f, &u, 4); return f; }
static inline float4 __ldcs(const float4 *p) { return *p; }
static inline float __fdividef(float a, float b) { return a / b; }

/* ------------------------------------------------ the running block: fibers and their barriers */
#define EMU_MAX_THREADS 1024
#define EMU_SMEM_FLOATS (232448 / 4)
#define EMU_STACK (256 * 1024)
struct emu_thread { uint3 tid, bid, bdim, gdim; int lane, warp; };
/* a barrier over the threads still running (exited threads count as arrived, as on the GPU) */
struct emu_bar { int live, arrived; unsigned gen; };
/* a named barrier (bar.sync / bar.arrive id, n): complete when n threads have arrived */
struct emu_nbar { int arrived; unsigned gen; };
#define EMU_NBARS 16
/* a cp.async in flight: its 16 bytes as read when issued, land at dst when its group is waited for (group: its
 * commit group, counted from 1; 0 while not committed) */
struct emu_cp { float *dst; unsigned char data[16]; unsigned group; };
struct emu_fiber { ucontext_t ctx; emu_thread t; int done; char *stack; emu_cp *cp; int ncp, capcp; unsigned groups; };
struct emu_block {
  emu_bar all, warp[EMU_MAX_THREADS / 32];
  emu_nbar named[EMU_NBARS];
  uint64_t xch[EMU_MAX_THREADS / 32][32];   /* shuffles */
  float mma_a[EMU_MAX_THREADS / 32][32][4]; /* mma8 fragments */
  float mma_b[EMU_MAX_THREADS / 32][32][2];
  emu_fiber f[EMU_MAX_THREADS];
  emu_fiber *cur;
  ucontext_t sched;
};
inline emu_block emu_blk;
extern "C" {
alignas(16) float sm[EMU_SMEM_FLOATS]; /* extern __shared__ float sm[]: one block at a time */
}
#define emu_t (emu_blk.cur->t)
#define threadIdx (emu_t.tid)
#define blockIdx (emu_t.bid)
#define blockDim (emu_t.bdim)
#define gridDim (emu_t.gdim)
static inline void emu_yield() { swapcontext(&emu_blk.cur->ctx, &emu_blk.sched); }
static inline void emu_bar_wait(emu_bar *b) {
  const unsigned g = b->gen;
  if (++b->arrived >= b->live) { b->arrived = 0; b->gen++; return; }
  while (b->gen == g) emu_yield();
}
static inline void emu_bar_leave(emu_bar *b) {
  if (--b->live > 0 && b->arrived > 0 && b->arrived >= b->live) { b->arrived = 0; b->gen++; }
}
static inline void __syncthreads() { emu_bar_wait(&emu_blk.all); }
static inline void emu_nbar_at(int id, int n, bool wait) {
  if (id < 1 || id >= EMU_NBARS || n % 32) abort(); /* barrier 0 is __syncthreads'; counts are whole warps */
  emu_nbar *b = &emu_blk.named[id];
  const unsigned g = b->gen;
  if (++b->arrived >= n) { b->arrived = 0; b->gen++; return; }
  while (wait && b->gen == g) emu_yield();
}
static inline void bar_wait(int id, int n) { emu_nbar_at(id, n, true); }
static inline void bar_arrive(int id, int n) { emu_nbar_at(id, n, false); }
/* the non-aligned forms (the same barriers: the emulation runs each thread on its own) */
static inline void bar_wait_na(int id, int n) { emu_nbar_at(id, n, true); }
static inline void bar_arrive_na(int id, int n) { emu_nbar_at(id, n, false); }
static inline void bar_all_na() { emu_bar_wait(&emu_blk.all); }
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
/* A tensor-core multiply-accumulate of one output: c plus the n products x[i] (each exact in fp32: tf32 and bf16
 * operands). Plain: the products summed in order, then added to c (fp32, round to nearest). With SSMC_EMU_TC = E
 * (check's environment variable SSMC_EMU_TC, compiled in), a model of the hardware's accumulation after Fasi et al.
 * 2021, "Numerical behavior of NVIDIA tensor cores": c and the products aligned to the largest exponent among them,
 * each truncated to E bits below fp32's 24-bit significand at that exponent, summed exactly, the sum truncated to
 * fp32 (toward zero: a bias a long accumulation adds up). E = 3 reproduces the H200's edge dg of the K = 32 fixture
 * emu_f90_delta (f32 1.84e-2 here, 2.0e-2 on the GPU, 5.8e-3 plain: bench/, the s41 record). */
#ifdef SSMC_EMU_TC
inline int emu_tc_on = 1; /* the stage running is modelled (SSMC_EMU_TC_STAGES, at its launch) */
static float emu_tc_model(float c, const float *x, int n) {
  int emax = INT_MIN;
  for (int i = -1; i < n; i++) {
    const float v = i < 0 ? c : x[i];
    int e;
    if (v != 0.0f) frexpf(v, &e), emax = e > emax ? e : emax;
  }
  if (emax == INT_MIN) return c + 0.0f;
  const double q = ldexp(1.0, emax - 24 - (SSMC_EMU_TC)); /* the last bit kept */
  double s = 0.0;
  for (int i = -1; i < n; i++) s += trunc((double)(i < 0 ? c : x[i]) / q) * q;
  float f = (float)s;
  if (fabs((double)f) > fabs(s)) f = nextafterf(f, 0.0f);
  return f;
}
#endif
static inline float emu_tc_acc(float c, const float *x, int n) {
#ifdef SSMC_EMU_TC
  if (emu_tc_on) return emu_tc_model(c, x, n);
#endif
  float s = 0.0f;
  for (int i = 0; i < n; i++) s += x[i];
  return c + s;
}
/* mma.sync (row.col, fp32 accumulation) over KS k: the warp's fragments are staged, then each lane
 * sums its four outputs d = {D[g][2q], D[g][2q+1], D[g+8][2q], D[g+8][2q+1]}; av(A, row, k) and
 * bv(B, k, col) read an element from the staged registers (A: [lane][4], B: [lane][2]). */
template <int KS, typename FA, typename FB>
static inline void emu_mma(float *d, const unsigned *a, const unsigned *b, FA av, FB bv) {
  const int w = emu_t.warp, lane = emu_t.lane;
  for (int r = 0; r < 4; r++) emu_blk.mma_a[w][lane][r] = __uint_as_float(a[r]);
  for (int r = 0; r < 2; r++) emu_blk.mma_b[w][lane][r] = __uint_as_float(b[r]);
  emu_warp_sync();
  const int g = lane >> 2, q = lane & 3;
  for (int o = 0; o < 4; o++) {
    const int row = g + (o >> 1) * 8, col = 2 * q + (o & 1);
    float x[KS];
    for (int k = 0; k < KS; k++) x[k] = av(emu_blk.mma_a[w], row, k) * bv(emu_blk.mma_b[w], k, col);
    d[o] = emu_tc_acc(d[o], x, KS);
  }
  emu_warp_sync();
}
/* m16n8k8 tf32: lane = 4 g + q holds a = {A[g][q], A[g+8][q], A[g][q+4], A[g+8][q+4]}, b = {B[q][g], B[q+4][g]};
 * each operand read as tf32, its lower 13 bits dropped (as the tensor cores read a 32-bit register) */
static inline float emu_tf32(float x) { return __uint_as_float(__float_as_uint(x) & 0xffffe000u); }
static inline float emu_a8(float (*A)[4], int row, int k) { return emu_tf32(A[(row & 7) * 4 + (k & 3)][(row >> 3) + 2 * (k >> 2)]); }
static inline void mma8(float *d, const unsigned *a, const unsigned *b) {
  emu_mma<8>(d, a, b, emu_a8,
             [](float (*B)[2], int k, int col) { return emu_tf32(B[col * 4 + (k & 3)][k >> 2]); });
}
/* m16n8k16 bf16: registers hold bf16 pairs (the lower half the even k); a = {A[g][2q..], A[g+8][2q..],
 * A[g][2q+8..], A[g+8][2q+8..]}, b = {B[2q..][g], B[2q+8..][g]} */
static inline float emu_bf(float pair, int k) {
  const unsigned u = __float_as_uint(pair);
  return __uint_as_float(k & 1 ? u & 0xffff0000u : u << 16);
}
static inline float emu_a16(float (*A)[4], int row, int k) {
  return emu_bf(A[(row & 7) * 4 + (k & 7) / 2][(row >> 3) + 2 * (k >> 3)], k);
}
static inline void mma16(float *d, const unsigned *a, const unsigned *b) {
  emu_mma<16>(d, a, b, emu_a16,
              [](float (*B)[2], int k, int col) { return emu_bf(B[col * 4 + (k & 7) / 2][k >> 3], k); });
}
/* wgmma m64nNk8 tf32 (SSMC_EMU_WG: the sm_90a path), operands in shared memory through their
 * descriptors as PTX documents them (start address, LBO along k, SBO along m or n, in 16-byte units;
 * K-major, no swizzle: element (r, k) at start + (r / 8) SBO + (k / 4) LBO + (r % 8) 16 + (k % 4) 4
 * bytes), read as tf32 (the lower 13 bits dropped); lane 4 g + q of warp w of the warpgroup holds
 * D[16 w + g (+ 8)][8 i + 2 q (+ 1)] in d[4 i ..]. Synchronous here, so the fences and waits are
 * nothing. */
static inline unsigned __cvta_generic_to_shared(const void *p) { return (unsigned)((const char *)p - (const char *)sm); }
static inline void __syncwarp(unsigned = 0xffffffffu) { emu_warp_sync(); }
static inline float emu_wg_el(uint64_t desc, int r, int k) {
  const unsigned start = (unsigned)(desc & 0x3fff) << 4, lbo = (unsigned)(desc >> 16 & 0x3fff) << 4,
                 sbo = (unsigned)(desc >> 32 & 0x3fff) << 4;
  if (desc >> 62) abort(); /* a swizzled layout: not emulated */
  float x;
  memcpy(&x, (const char *)sm + start + (r >> 3) * sbo + (k >> 2) * lbo + (r & 7) * 16 + (k & 3) * 4, 4);
  return __uint_as_float(__float_as_uint(x) & 0xffffe000u);
}
template <int N> static inline void wg_mma(float *d, unsigned al, unsigned ah, unsigned bl, unsigned bh) {
  const uint64_t da = (uint64_t)ah << 32 | al, db = (uint64_t)bh << 32 | bl;
  const int w = emu_t.warp & 3, g = emu_t.lane >> 2, q = emu_t.lane & 3;
  for (int i = 0; i < N / 8; i++)
    for (int o = 0; o < 4; o++) {
      const int row = 16 * w + g + (o >> 1) * 8, col = 8 * i + 2 * q + (o & 1);
      float x[8];
      for (int k = 0; k < 8; k++) x[k] = emu_wg_el(da, row, k) * emu_wg_el(db, col, k);
      d[4 * i + o] = emu_tc_acc(d[4 * i + o], x, 8);
    }
}
/* a wgmma with A from registers: the warp's 16 rows of A as an mma.sync A fragment (staged; av(A, row, k) reads
 * one: emu_a8, emu_a16), B's element (col, k) by bv; KS k; the warp's rows of D need only its own lanes */
template <int N, int KS, typename FA, typename FB> static inline void emu_wg_rega(float *d, const unsigned *a, FA av, FB bv) {
  const int w = emu_t.warp, lane = emu_t.lane, g = lane >> 2, q = lane & 3;
  for (int r = 0; r < 4; r++) emu_blk.mma_a[w][lane][r] = __uint_as_float(a[r]);
  emu_warp_sync();
  for (int i = 0; i < N / 8; i++)
    for (int o = 0; o < 4; o++) {
      const int row = g + (o >> 1) * 8, col = 8 * i + 2 * q + (o & 1);
      float x[KS];
      for (int k = 0; k < KS; k++) x[k] = av(emu_blk.mma_a[w], row, k) * bv(col, k);
      d[4 * i + o] = emu_tc_acc(d[4 * i + o], x, KS);
    }
  emu_warp_sync();
}
/* the tf32 product with A from registers (fused90's T form): m16n8k8's tf32 A fragment (mma8's layout) */
template <int N> static inline void wg_mmar(float *d, const unsigned *a, unsigned bl, unsigned bh) {
  const uint64_t db = (uint64_t)bh << 32 | bl;
  emu_wg_rega<N, 8>(d, a, emu_a8, [&](int col, int k) { return emu_wg_el(db, col, k); });
}
/* wgmma m64nNk16 bf16 (fused90's bf16 form), operands from their descriptors: K-major (T 0: element (r, k)
 * at start + (r / 8) SBO + (k / 8) LBO + (r % 8) 16 + (k % 8) 2 bytes) or MN-major (T 1, the transposed
 * operand: (r / 8) SBO + (k / 8) LBO + (k % 8) 16 + (r % 8) 2), no swizzle; the accumulators as wg_mma's */
static inline float emu_wg16_el(uint64_t desc, int t, int r, int k) {
  const unsigned start = (unsigned)(desc & 0x3fff) << 4, lbo = (unsigned)(desc >> 16 & 0x3fff) << 4,
                 sbo = (unsigned)(desc >> 32 & 0x3fff) << 4;
  if (desc >> 62) abort();
  const unsigned off = (r >> 3) * sbo + (k >> 3) * lbo + (t ? (k & 7) * 16 + (r & 7) * 2 : (r & 7) * 16 + (k & 7) * 2);
  unsigned short h;
  memcpy(&h, (const char *)sm + start + off, 2);
  return __uint_as_float((unsigned)h << 16);
}
template <int N, int TA, int TB> static inline void wg_mma16(float *d, unsigned al, unsigned ah, unsigned bl, unsigned bh) {
  const uint64_t da = (uint64_t)ah << 32 | al, db = (uint64_t)bh << 32 | bl;
  const int w = emu_t.warp & 3, g = emu_t.lane >> 2, q = emu_t.lane & 3;
  for (int i = 0; i < N / 8; i++)
    for (int o = 0; o < 4; o++) {
      const int row = 16 * w + g + (o >> 1) * 8, col = 8 * i + 2 * q + (o & 1);
      float x[16];
      for (int k = 0; k < 16; k++) x[k] = emu_wg16_el(da, TA, row, k) * emu_wg16_el(db, TB, col, k);
      d[4 * i + o] = emu_tc_acc(d[4 * i + o], x, 16);
    }
}
/* the bf16 product with A from registers (psolve90): m16n8k16's A fragment (mma16's layout) */
template <int N, int TB> static inline void wg_mma16r(float *d, const unsigned *a, unsigned bl, unsigned bh) {
  const uint64_t db = (uint64_t)bh << 32 | bl;
  emu_wg_rega<N, 16>(d, a, emu_a16, [&](int col, int k) { return emu_wg16_el(db, TB, col, k); });
}
/* a row address of ldmatrix, from lane src: one not 16-byte aligned is a misaligned-address fault on the GPU;
 * here, an abort */
static inline const float *emu_ldsm_row(const float *p, int src) {
  const float *row = emu_shfl(p, src, false);
  if ((uintptr_t)row & 15) abort();
  return row;
}
/* ldmatrix of 32-bit elements: lane 4 g + q gets word q of row g of block i from lane 8 i + g's address */
static inline void ldsm4(unsigned *r, const float *p) {
  for (int i = 0; i < 4; i++) memcpy(&r[i], emu_ldsm_row(p, 8 * i + (emu_t.lane >> 2)) + (emu_t.lane & 3), 4);
}
static inline void ldsm2(unsigned *r, const float *p) {
  for (int i = 0; i < 2; i++) memcpy(&r[i], emu_ldsm_row(p, 8 * i + (emu_t.lane >> 2)) + (emu_t.lane & 3), 4);
}
/* transposed, of b16 elements: lane 4 g + q gets element g of rows 2q and 2q + 1 of block i (the lower half) */
static inline void ldsm4t(unsigned *r, const unsigned short *p) {
  for (int i = 0; i < 4; i++) {
    const int q = emu_t.lane & 3, g = emu_t.lane >> 2;
    const unsigned short *r0 = (const unsigned short *)emu_ldsm_row((const float *)p, 8 * i + 2 * q);
    const unsigned short *r1 = (const unsigned short *)emu_ldsm_row((const float *)p, 8 * i + 2 * q + 1);
    r[i] = (unsigned)r0[g] | (unsigned)r1[g] << 16;
  }
}
/* stmatrix, transposed, of b16 pairs: lane 8 i + j writes row j of block i at its p, column j of the 8 x 8 block whose
 * row g, columns 2 q (+ 1) lane 4 g + q holds in r[i] */
static inline void stsm4t(unsigned short *p, const unsigned *r) {
  const int w = emu_t.warp, lane = emu_t.lane, i = lane >> 3, j = lane & 7;
  for (int m = 0; m < 4; m++) emu_blk.mma_a[w][lane][m] = __uint_as_float(r[m]);
  emu_warp_sync();
  if ((uintptr_t)p & 15) abort();
  for (int k = 0; k < 8; k++) {
    const unsigned x = __float_as_uint(emu_blk.mma_a[w][4 * k + (j >> 1)][i]);
    p[k] = (unsigned short)(j & 1 ? x >> 16 : x & 0xffffu);
  }
  emu_warp_sync();
}
static inline void wg_fence() {}
static inline void wg_commit() {}
static inline void wg_wait0() {}
static inline void wg_wait1() {}
static inline unsigned opaque(unsigned x) { return x; }
static inline void fence_async_smem() {}
template <int N> static inline void regs_dec() {}
template <int N> static inline void regs_inc() {}
static inline float4 ld_state4(const float *p) { return *(const float4 *)p; }
static inline void st_state4(float *p, float4 v) { *(float4 *)p = v; }
/* cp.async as PTX orders it: a copy lands at the cp.async.wait_group that waits for its commit group, never
 * before, and a copy not committed is waited for by none (a kernel that reads it has a race on the GPU: here it
 * reads what was there before). Each thread's copies in flight, in issue order. */
static inline void emu_cp_issue(float *dst, const void *src) {
  emu_fiber *f = emu_blk.cur;
  if (f->ncp == f->capcp) {
    f->capcp = f->capcp ? 2 * f->capcp : 64;
    f->cp = (emu_cp *)realloc(f->cp, (size_t)f->capcp * sizeof *f->cp);
    if (!f->cp) abort();
  }
  emu_cp *c = &f->cp[f->ncp++];
  c->dst = dst;
  c->group = 0;
  if (src) memcpy(c->data, src, 16);
  else memset(c->data, 0, 16);
}
static inline void cp_async_commit() {
  emu_fiber *f = emu_blk.cur;
  f->groups++;
  for (int i = 0; i < f->ncp; i++)
    if (!f->cp[i].group) f->cp[i].group = f->groups;
}
/* wait_group N: every copy of the groups but the newest N lands */
template <int N> static inline void cp_async_wait() {
  emu_fiber *f = emu_blk.cur;
  int k = 0;
  for (int i = 0; i < f->ncp; i++) {
    emu_cp *c = &f->cp[i];
    if (c->group && c->group + N <= f->groups) memcpy(c->dst, c->data, 16);
    else f->cp[k++] = *c;
  }
  f->ncp = k;
}
static inline void cp_async16(float *dst, const float *src) { emu_cp_issue(dst, src); }
static inline void prefetch_l2(const void *) {}
/* __expf: ex2.approx of x log2(e), the product's rounding (the larger error at large |x|) as the GPU has it */
static inline float fexp(float x) { return exp2f(x * 1.4426950408889634f); }
static inline void cp_async16_z(float *dst, const float *src, bool ok) { emu_cp_issue(dst, ok ? src : NULL); }
static inline unsigned long long evict_first() { return 0; }
static inline void cp_async16_hint(float *dst, const float *src, unsigned long long) { emu_cp_issue(dst, src); }

/* ------------------------------------------------ launches (one block after the other) */
struct emu_launch { void *fn; int sig; void **params; };
inline emu_launch emu_l;
static void emu_fiber_main() {
  const emu_launch *l = &emu_l;
  if (l->sig == 1) /* (ssmc_fwd_args, ssmc_bwd_args, float *) */
    ((void (*)(ssmc_fwd_args, ssmc_bwd_args, float *))l->fn)(*(ssmc_fwd_args *)l->params[0], *(ssmc_bwd_args *)l->params[1],
                                                             *(float **)l->params[2]);
  else if (l->sig == 2) /* (ssmc_decode_args, float *) */
    ((void (*)(ssmc_decode_args, float *))l->fn)(*(ssmc_decode_args *)l->params[0], *(float **)l->params[1]);
  else /* (ssmc_fwd_args, float *) */
    ((void (*)(ssmc_fwd_args, float *))l->fn)(*(ssmc_fwd_args *)l->params[0], *(float **)l->params[1]);
  emu_bar_leave(&emu_blk.warp[emu_t.warp]);
  emu_bar_leave(&emu_blk.all);
  emu_blk.cur->done = 1; /* back to the scheduler (uc_link) */
}
/* the sum of the block's barrier generations: it moves whenever a barrier completes */
static unsigned emu_bar_gens(int nt) {
  unsigned s = emu_blk.all.gen;
  for (int w = 0; w < (nt + 31) / 32; w++) s += emu_blk.warp[w].gen;
  for (int i = 0; i < EMU_NBARS; i++) s += emu_blk.named[i].gen;
  return s;
}
/* Runs entry fn on a grid of g[0] x g[1] x g[2] blocks of nt threads; sig: 0 forward-like
 * (ssmc_fwd_args, float *), 1 backward (ssmc_fwd_args, ssmc_bwd_args, float *), 2 decode. 0; -1 for
 * a block size the emulation does not take or stacks it cannot get, or -2 for a block whose threads
 * all wait at barriers that cannot complete (a kernel's barrier not reached by all its threads). */
extern "C" int ssmc_emu_launch(void *fn, int sig, const unsigned *g, int nt, void **params) {
  if (nt < 1 || nt > EMU_MAX_THREADS) return -1;
#ifdef SSMC_EMU_TC
  /* SSMC_EMU_TC_STAGES=a,b: the model only in the stages whose entry names contain a or b (the others as plain) */
  const char *only = getenv("SSMC_EMU_TC_STAGES");
  Dl_info di;
  if (only && *only && dladdr(fn, &di) && di.dli_sname) {
    emu_tc_on = 0;
    for (const char *p = only; *p && !emu_tc_on;) {
      const size_t m = strcspn(p, ",");
      char part[64];
      snprintf(part, sizeof part, "%.*s", (int)(m < 63 ? m : 63), p);
      emu_tc_on = m && strstr(di.dli_sname, part);
      p += m + (p[m] == ',');
    }
  }
#endif
  emu_l = {fn, sig, params};
  for (int i = 0; i < nt; i++)
    if (!emu_blk.f[i].stack && !(emu_blk.f[i].stack = (char *)malloc(EMU_STACK))) return -1;
  for (unsigned z = 0; z < g[2]; z++)
    for (unsigned y = 0; y < g[1]; y++)
      for (unsigned x = 0; x < g[0]; x++) {
        emu_blk.all = {nt, 0, 0};
        for (int w = 0; w < (nt + 31) / 32; w++) emu_blk.warp[w] = {nt - 32 * w < 32 ? nt - 32 * w : 32, 0, 0}; /* (a last warp may be partial) */
        for (int i = 0; i < EMU_NBARS; i++) emu_blk.named[i] = {0, 0};
        for (int i = 0; i < nt; i++) {
          emu_fiber *f = &emu_blk.f[i];
          f->t = {{(unsigned)i, 0, 0}, {x, y, z}, {(unsigned)nt, 1, 1}, {g[0], g[1], g[2]}, i & 31, i >> 5};
          f->done = 0;
          f->ncp = 0; /* (a block's copies never waited for do not reach the next block's shared memory) */
          f->groups = 0;
          getcontext(&f->ctx);
          f->ctx.uc_stack.ss_sp = f->stack;
          f->ctx.uc_stack.ss_size = EMU_STACK;
          f->ctx.uc_link = &emu_blk.sched;
          makecontext(&f->ctx, emu_fiber_main, 0);
        }
        /* round-robin until every thread has returned; a round in which no barrier completed and
         * no thread returned with all of them waiting is a deadlock */
        for (int left = nt; left > 0;) {
          const unsigned before = emu_bar_gens(nt);
          const int was = left;
          left = 0;
          for (int i = 0; i < nt; i++) {
            emu_fiber *f = &emu_blk.f[i];
            if (f->done) continue;
            emu_blk.cur = f;
            swapcontext(&emu_blk.sched, &f->ctx);
            left += !f->done;
          }
          if (left == was && emu_bar_gens(nt) == before) return -2;
        }
      }
  return 0;
}
#endif
