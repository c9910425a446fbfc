/* bench tool: the speed of the CPU kernels' tile products alone. Includes a
 * generated kernel (its static mm and microkernels) and times the intra-chunk
 * products at the shapes the forward uses (C=64, K=V=128, BV=64), one thread.
 * Build (from the repo root), once per ISA:
 *   cc -O2 -march=x86-64-v4 -ffp-contract=fast -Iruntime bench/peak/tile_bench.c -o /tmp/tile_v4 -lm
 *   cc -O2 -march=x86-64-v3 -ffp-contract=fast -Iruntime bench/peak/tile_bench.c -o /tmp/tile_v3 -lm
 * and compare with bench/peak/fma_peak.c's one-thread figure. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "../../generated/mamba2/ssmc_mamba2_373a415a_k128v128_c64_bk64bv64_f32.c"

const ssmc_cuda_kernel ssmc_mamba2_373a415a_k128v128_c64_bk64bv64_f32_cuda; /* not used here */

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static float *buf(int n) {
  float *p = aligned_alloc(64, sizeof(float) * (size_t)n);
  for (int i = 0; i < n; i++) p[i] = (float)((i * 37 % 101) - 50) * 1e-3f;
  return p;
}

int main(void) {
  float *a = buf(CH * KD), *z = buf(KD * VD), *y = buf(CH * BV), *kdt = buf(KD * CH), *u = buf(CH * BV);
  struct { const char *what; int m, n, kd, beta; } shapes[] = {
    {"y = qd . Z     (64 x 64 x 128)", CH, BV, KD, 0},
    {"Z = d Z + kdt u (128 x 64 x 64)", KD, BV, CH, 1},
  };
  for (int s = 0; s < 2; s++) {
    int reps = 20000;
    double best = 1e30;
    for (int r = 0; r < 5; r++) {
      double t0 = now();
      for (int i = 0; i < reps; i++) {
        if (s == 0) mm(y, BV, 0.0f, a, KD, z, VD, CH, BV, KD, FULL);
        else mm(z, VD, 0.999f, kdt, CH, u, BV, KD, BV, CH, FULL);
      }
      double dt = now() - t0;
      if (dt < best) best = dt;
    }
    double fl = 2.0 * shapes[s].m * shapes[s].n * shapes[s].kd * reps;
    printf("tile product %s, vector width %d: %.1f GFLOP/s\n", shapes[s].what, VW, fl / best * 1e-9);
  }
  if (y[3] == 12345.0f) puts("");
  return 0;
}
