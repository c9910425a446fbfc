/* compiler stage: kernel acquisition (see build.h). */
#include "build.h"
#include "jit.h"
#include "spec.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* generated/ssmc_builtin.c (checked in, compiled into the runtime library) */
extern const ssmc_kernel *const ssmc_builtin_kernels[];
extern const char *const ssmc_builtin_source_hashes[];

typedef struct { const char *name; const char *data; size_t len; } ssmc_embedded_file;
extern const ssmc_embedded_file ssmc_embedded_files[];

void build_source_hash(const char *src, size_t len, char out[17]) {
  snprintf(out, 17, "%016llx", (unsigned long long)spec_fnv1a(src, len, 0xcbf29ce484222325ULL));
}

const char *build_cache_dir(void) {
  static char buf[1024];
  const char *e = getenv("SSMC_CACHE_DIR");
  if (e && *e) return e;
  const char *x = getenv("XDG_CACHE_HOME"), *h = getenv("HOME");
  if (x && *x) snprintf(buf, sizeof buf, "%s/ssmc", x);
  else if (h && *h) snprintf(buf, sizeof buf, "%s/.cache/ssmc", h);
  else return NULL;
  return buf;
}

static const char *abi_header(void) {
  for (const ssmc_embedded_file *e = ssmc_embedded_files; e->name; e++)
    if (!strcmp(e->name, "ssmc_kernel.h")) return e->data;
  return NULL;
}

int build_get(const emit_kernel *ek, int force_jit, const char *cache_dir, build_kernel *out, diag *d) {
  memset(out, 0, sizeof *out);
  char h[17];
  build_source_hash(ek->source, ek->len, h);
  if (!force_jit)
    for (int i = 0; ssmc_builtin_kernels[i]; i++)
      if (!strcmp(ssmc_builtin_kernels[i]->name, ek->name) && !strcmp(ssmc_builtin_source_hashes[i], h)) {
        out->k = ssmc_builtin_kernels[i];
        out->builtin = 1;
        return 0;
      }
  jit_header hdrs[] = {{"ssmc_kernel.h", abi_header()}, {NULL, NULL}};
  char err[4096];
  jit_module *m = jit_compile(ek->source, ek->path, hdrs, SSMC_CPU_TARGET, cache_dir, &out->from_cache, err, sizeof err);
  if (!m) return diag_at(d, NULL, 0, 0, "compiling %s in-process failed:\n%s", ek->name, err);
  out->k = jit_symbol(m, ek->name);
  if (!out->k) {
    jit_free(m);
    return diag_at(d, NULL, 0, 0, "internal: %s has no kernel descriptor", ek->name);
  }
  out->module = m;
  return 0;
}

void build_release(build_kernel *b) {
  if (b->module) jit_free(b->module);
  memset(b, 0, sizeof *b);
}
