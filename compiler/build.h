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
} build_kernel;

/* force_jit: never use the built-in table. cache_dir may be NULL (no cache). */
int build_get(const emit_kernel *ek, int force_jit, const char *cache_dir, build_kernel *out, diag *d);
void build_release(build_kernel *b);
/* The default cache folder: $SSMC_CACHE_DIR, else $XDG_CACHE_HOME/ssmc, else ~/.cache/ssmc. */
const char *build_cache_dir(void);
/* FNV-1a of a source text, as 16 hex digits (recorded in the built-in table). */
void build_source_hash(const char *src, size_t len, char out[17]);

#endif
