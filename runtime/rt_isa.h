/* runtime stage: the ISA variant of the built-in CPU kernels.
 * 3: x86-64-v3 (AVX2 + FMA), 4: x86-64-v4 (AVX-512 F/BW/DQ/VL). Detected once
 * from the CPU's features; SSMC_ISA=v3 in the environment keeps AVX2. Tests and
 * benchmarks may force a level (not thread-safe against running kernels). */
#ifndef SSMC_RT_ISA_H
#define SSMC_RT_ISA_H

int ssmc_cpu_isa(void);              /* the level the built-in kernels run at now */
int ssmc_cpu_isa_max(void);          /* the highest level this CPU (and SSMC_ISA) allows */
void ssmc_cpu_isa_force(int level);  /* 3 or 4; anything else: back to detection */
const char *ssmc_cpu_isa_name(int level);

#endif
