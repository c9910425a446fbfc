/* bench tool: this CPU's fp32 FMA peak per core and the memory bandwidth of a
 * streaming read+write, the two ceilings the CPU kernels are measured against.
 * Build: cc -O3 -march=native -fopenmp bench/peak/fma_peak.c -o /tmp/fma_peak -lpthread
 * Prints GFLOP/s for 256-bit and 512-bit FMA chains (one thread, then N
 * threads) and GB/s for scaling a large buffer in place (read + write). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

#define CHAINS 12 /* independent accumulators (registers 0-11): covers FMA latency x pipes */
#define FMA12(R)                                                                                      \
  "vfmadd231ps %%" R "12, %%" R "13, %%" R "0\n\t vfmadd231ps %%" R "12, %%" R "13, %%" R "1\n\t"     \
  "vfmadd231ps %%" R "12, %%" R "13, %%" R "2\n\t vfmadd231ps %%" R "12, %%" R "13, %%" R "3\n\t"     \
  "vfmadd231ps %%" R "12, %%" R "13, %%" R "4\n\t vfmadd231ps %%" R "12, %%" R "13, %%" R "5\n\t"     \
  "vfmadd231ps %%" R "12, %%" R "13, %%" R "6\n\t vfmadd231ps %%" R "12, %%" R "13, %%" R "7\n\t"     \
  "vfmadd231ps %%" R "12, %%" R "13, %%" R "8\n\t vfmadd231ps %%" R "12, %%" R "13, %%" R "9\n\t"     \
  "vfmadd231ps %%" R "12, %%" R "13, %%" R "10\n\t vfmadd231ps %%" R "12, %%" R "13, %%" R "11\n\t"
/* The loop body is written in assembly so that nothing but the FMAs and the loop counter runs. */
#define FMA_LOOP(NAME, R, BYTES)                                                                      \
  static double NAME(long iters) {                                                                  \
    double t0 = now();                                                                              \
    long n = iters;                                                                                 \
    __asm__ volatile("vxorps %%xmm12, %%xmm12, %%xmm12\n\t vxorps %%xmm13, %%xmm13, %%xmm13\n\t"  \
                     "1:\n\t" FMA12(R) "dec %0\n\t jnz 1b\n\t"                                     \
                     : "+r"(n)                                                                      \
                     :                                                                              \
                     : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", \
                       "xmm10", "xmm11", "xmm12", "xmm13", "cc");                                   \
    double dt = now() - t0;                                                                         \
    return 2.0 * CHAINS * (BYTES / 4) * iters / dt * 1e-9;                                          \
  }
FMA_LOOP(fma256, "ymm", 32)
FMA_LOOP(fma512, "zmm", 64)

typedef struct { int w; long iters; double gf; } job;
static void *run(void *p) {
  job *j = p;
  j->gf = j->w == 512 ? fma512(j->iters) : fma256(j->iters);
  return NULL;
}

static double par(int w, int nth, long iters) {
  pthread_t th[64];
  job j[64];
  for (int i = 0; i < nth; i++) { j[i] = (job){w, iters, 0}; pthread_create(&th[i], 0, run, &j[i]); }
  double s = 0;
  for (int i = 0; i < nth; i++) { pthread_join(th[i], 0); s += j[i].gf; }
  return s;
}

int main(int argc, char **argv) {
  int nth = argc > 1 ? atoi(argv[1]) : 2;
  long iters = 100000000;
  fma256(iters / 10);
  double best256 = 0, best512 = 0;
  for (int r = 0; r < 3; r++) {
    double a = fma256(iters), b = fma512(iters / 2);
    if (a > best256) best256 = a;
    if (b > best512) best512 = b;
  }
  printf("fma 1 thread: 256-bit %.1f GFLOP/s, 512-bit %.1f GFLOP/s\n", best256, best512);
  printf("fma %d threads: 256-bit %.1f GFLOP/s, 512-bit %.1f GFLOP/s\n", nth, par(256, nth, iters),
         par(512, nth, iters / 2));
  /* 16 MiB: the size of decode's states at B=64 H=4 (they stay in the 32 MiB L3); 1 GiB: DRAM */
  const size_t sizes[2] = {(size_t)4 << 20, (size_t)256 << 20};
  for (int z = 0; z < 2; z++) {
    size_t n = sizes[z];
    float *buf = aligned_alloc(64, n * sizeof(float));
    memset(buf, 0, n * sizeof(float));
    double best = 0;
    int rounds = z ? 3 : 50;
    for (int r = 0; r < rounds; r++) {
      double t0 = now();
#pragma omp parallel for
      for (size_t i = 0; i < n; i++) buf[i] = buf[i] * 0.5f + 1.0f;
      double gbs = 2.0 * n * sizeof(float) / (now() - t0) * 1e-9;
      if (gbs > best) best = gbs;
    }
    printf("stream read+write (%s, %s): %.1f GB/s\n", z ? "1 GiB" : "16 MiB",
#ifdef _OPENMP
           "openmp",
#else
           "1 thread",
#endif
           best);
    free(buf);
  }
  return 0;
}
