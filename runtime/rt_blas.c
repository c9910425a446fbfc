/* runtime stage: OpenBLAS kernel set (see rt_blas.h). */
#include "rt_blas.h"

extern char *openblas_get_corename(void);

const char *rt_blas_core(void) {
  const char *c = openblas_get_corename();
  return c ? c : "?";
}
