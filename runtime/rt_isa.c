/* runtime stage: which ISA variant of the built-in CPU kernels runs (see rt_isa.h).
 * The built-in kernels are compiled for x86-64-v3 (AVX2 + FMA) and again for
 * x86-64-v4 (AVX-512); each kernel's entry point asks ssmc_cpu_isa() and calls
 * the v4 compilation when this returns 4. */
#include "rt_isa.h"
#include <stdlib.h>
#include <string.h>

static int isa_forced; /* 0: detect */

static int isa_detect(void) {
  const char *e = getenv("SSMC_ISA");
  if (e && !strcmp(e, "v3")) return 3;
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
    return 4;
#endif
  return 3;
}

int ssmc_cpu_isa(void) {
  static int detected;
  if (isa_forced) return isa_forced;
  if (!detected) detected = isa_detect();
  return detected;
}

int ssmc_cpu_isa_max(void) {
  int f = isa_forced;
  isa_forced = 0;
  int r = ssmc_cpu_isa();
  isa_forced = f;
  return r;
}

void ssmc_cpu_isa_force(int level) { isa_forced = level == 3 || level == 4 ? level : 0; }

const char *ssmc_cpu_isa_name(int level) { return level >= 4 ? "x86-64-v4 (AVX-512)" : "x86-64-v3 (AVX2)"; }
