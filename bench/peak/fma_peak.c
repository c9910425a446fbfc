/* bench tool: this CPU's fp32 FMA peak per core and the memory bandwidth of a
 * streaming read+write, the two ceilings the CPU kernels are measured against.
 * Build: cc -O2 -march=native bench/peak/fma_peak.c -o /tmp/fma_peak -lpthread
 * Prints GFLOP/s for 256-bit and 512-bit FMA chains (one thread, then N
 * threads) and GB/s for scaling a large buffer in place (read + write). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef float v8 __attribute__((vector_size(32)));
typedef float v16 __attribute__((vector_size(64)));

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

#define CHAINS 12 /* independent accumulators: covers FMA latency x pipes */
#define FMA_LOOP(T, NAME)                                                              \
  static double NAME(long iters) {                                                     \
    T acc[CHAINS], m, a;                                                               \
    for (int i = 0; i < CHAINS; i++) acc[i] = (T){0} + (float)i;                       \
    m = (T){0} + 0.999999f;                                                            \
    a = (T){0} + 1e-7f;                                                                \
    double t0 = now();                                                                 \
    for (long it = 0; it < iters; it++) {                                              \
      _Pragma("GCC unroll 12") for (int i = 0; i < CHAINS; i++) acc[i] = acc[i] * m + a;  \
      __asm__ volatile("" : "+x"(acc[0]), "+x"(acc[1]), "+x"(acc[2]), "+x"(acc[3]));   \
    }                                                                                  \
    double dt = now() - t0;                                                            \
    float s = 0;                                                                       \
    for (int i = 0; i < CHAINS; i++) s += acc[i][0];                                   \
    if (s == 12345.f) puts("");                                                        \
    return 2.0 * CHAINS * (sizeof(T) / 4) * iters / dt * 1e-9;                         \
  }
FMA_LOOP(v8, fma256)
FMA_LOOP(v16, fma512)

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
  size_t n = (size_t)256 << 20; /* 1 GiB of floats */
  float *buf = aligned_alloc(64, n * sizeof(float));
  memset(buf, 0, n * sizeof(float));
  double best = 0;
  for (int r = 0; r < 3; r++) {
    double t0 = now();
#pragma omp parallel for
    for (size_t i = 0; i < n; i++) buf[i] = buf[i] * 0.5f + 1.0f;
    double gbs = 2.0 * n * sizeof(float) / (now() - t0) * 1e-9;
    if (gbs > best) best = gbs;
  }
  printf("stream read+write (1 GiB, %s): %.1f GB/s\n",
#ifdef _OPENMP
         "openmp",
#else
         "1 thread",
#endif
         best);
  free(buf);
  return 0;
}
