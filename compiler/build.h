/* compiler stage: getting a callable kernel for emitted source.
 * A built-in kernel (compiled into the library from generated/) is used when
 * its name and source hash match what the emitter produces now; otherwise the
 * source is compiled in-process (Clang + ORC JIT) with an on-disk cache. */
#ifndef SSMC_BUILD_H
#define SSMC_BUILD_H
#include "emit.h"
#include "ssmc_kernel.h"

typedef struct {
  const ssmc_kernel *k;
  void *module;          /* jit_module, or NULL for a built-in */
  int builtin, from_cache;
  ssmc_kernel *described;  /* a descriptor without CPU code (built with SSMC_JIT=OFF), else NULL */
} build_kernel;

/* force_jit: never use the built-in table. cache_dir may be NULL (no cache). fam: the
 * kernel's family (describes it when there is no in-process compiler). */
int build_get(const emit_kernel *ek, const cls_family *fam, int force_jit, const char *cache_dir, build_kernel *out, diag *d);
void build_release(build_kernel *b);
/* The default cache folder: $SSMC_CACHE_DIR, else $XDG_CACHE_HOME/ssmc, else ~/.cache/ssmc. */
const char *build_cache_dir(void);

#endif
