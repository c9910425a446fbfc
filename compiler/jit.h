/* compiler stage: in-process C compiler (Clang 16) + ORC JIT loader + on-disk object cache
 *
 * Emitted kernel C is compiled inside this process with the Clang 16
 * libraries (never an external compiler process), turned into an x86-64 ELF
 * object in memory, optionally stored in an object cache on disk, and loaded
 * with an LLVM 16 ORC LLJIT. Each jit_module owns its own LLJIT; the code it
 * loaded stays valid until jit_free.
 *
 * Compile options (cc1): -O2 -ffp-contract=fast -ffreestanding
 *   -vectorize-loops -vectorize-slp -target-cpu <cpu> -triple <host>,
 *   position-independent code, no errno for math builtins. Only the compiler's
 *   own headers (<stdint.h>, <stddef.h>, ...) and the in-memory `headers` are
 *   visible; calls the code makes (expf from __builtin_expf, memset, ...) are
 *   resolved against the symbols of the host process (libm, libc).
 *
 * Cache: key = 64-bit FNV-1a over the source, every header's name and text,
 *   the cc1 option string, cpu, the host triple and the LLVM/Clang version
 *   strings. The object is stored as <cache_dir>/<16 hex>.o via a temp file in
 *   the same dir and rename() (atomic), once it has loaded (objects that fail
 *   to link are not cached). A hit loads the object without compiling.
 *   Caching is best effort: a cache dir
 *   that cannot be created or written, or a cached object that cannot be read
 *   or loaded, just means the source is compiled (and the result is still
 *   returned); it is never an error.
 *
 * Threads: jit_compile must be called from one thread at a time (callers
 *   serialize it). jit_symbol/jit_free on distinct modules may run anywhere;
 *   the loaded code itself is ordinary reentrant machine code.
 *
 * No C++ exception crosses this interface. */
#ifndef SSMC_JIT_H
#define SSMC_JIT_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct jit_module jit_module;

/* One in-memory header, reachable as #include "name" (or <name>). */
typedef struct { const char *name; const char *text; } jit_header;

/* Compiles C source `src` (file name `name` used in messages) and loads it.
 * `headers`: array of {name, text} terminated by an entry with name == NULL
 *   (or NULL for none); made available to #include "name" in memory.
 * `cpu`: cc1 -target-cpu value, e.g. "x86-64-v3" (NULL or "": the host CPU).
 *   The caller makes sure the host can run code built for it.
 * `cache_dir`: directory of the object cache (created with parents if
 *   missing); NULL disables caching.
 * `*from_cache` (may be NULL) set to 1 on a cache hit, else 0.
 * On failure returns NULL and writes the compiler's diagnostics (or the
 * reason) into err (NUL-terminated, truncated to errlen). */
jit_module *jit_compile(const char *src, const char *name, const jit_header *headers,
                        const char *cpu, const char *cache_dir, int *from_cache,
                        char *err, size_t errlen);

/* Address of a symbol defined by the module's code; NULL if absent. */
void *jit_symbol(jit_module *m, const char *symbol);

/* Releases the module and the memory of its code. NULL is a no-op. */
void jit_free(jit_module *m);

/* Version of the in-process compiler, e.g. "clang 16.0.6". */
const char *jit_version(void);

#ifdef __cplusplus
}
#endif
#endif
