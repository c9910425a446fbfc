/* compiler stage: the CUDA backend of `ssmc check` and `ssmc bench` (see chk_cuda.c). */
#ifndef SSMC_CHK_CUDA_H
#define SSMC_CHK_CUDA_H
#include "chk.h"
#include "rt_cuda.h"

typedef struct chk_cuda chk_cuda;
/* Opens the GPU (driver + NVRTC); NULL with a reason in err. */
chk_cuda *chk_cuda_open(const char *cache_dir, char *err, size_t n);
void chk_cuda_close(chk_cuda *g);
const chk_backend *chk_cuda_backend(chk_cuda *g);
rt_cuda *chk_cuda_device(chk_cuda *g);
/* The loaded module of k (compiled or from the cache), kept until another kernel is asked for. */
rt_cuda_mod *chk_cuda_module(chk_cuda *g, const ssmc_kernel *k, int *from_cache, char *err, size_t n);

#endif
