/* compiler stage: the in-process C compiler when ssmc is built without LLVM
 * (cmake -DSSMC_JIT=OFF, e.g. for a GPU machine with no LLVM 16). Every
 * compile fails with that reason; built-in CPU kernels and every CUDA module
 * (NVRTC) still work. */
#include "jit.h"
#include <stdio.h>

jit_module *jit_compile(const char *src, const char *name, const jit_header *headers, const char *cpu,
                        const char *cache_dir, int *from_cache, char *err, size_t errlen) {
  (void)src; (void)headers; (void)cpu; (void)cache_dir;
  if (from_cache) *from_cache = 0;
  snprintf(err, errlen, "%s: this ssmc was built without the in-process C compiler (cmake -DSSMC_JIT=OFF)", name);
  return NULL;
}
void *jit_symbol(jit_module *m, const char *symbol) { (void)m; (void)symbol; return NULL; }
void jit_free(jit_module *m) { (void)m; }
const char *jit_version(void) { return "none (built with SSMC_JIT=OFF)"; }
