/* runtime stage: which of OpenBLAS's kernel sets the GEMMs run on, for the
 * record (`ssmc run` prints it). OpenBLAS (DYNAMIC_ARCH) picks them from the
 * CPU when it is loaded, unless OPENBLAS_CORETYPE in the environment names
 * one (e.g. Haswell = AVX2 only, Cooperlake/SkylakeX = AVX-512). */
#ifndef RT_BLAS_H
#define RT_BLAS_H

const char *rt_blas_core(void);

#endif
