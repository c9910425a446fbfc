/* compiler stage: emission. A classified family + dtype becomes the
 * parameter table of a template, rendered by the Lua sandbox into C.
 * Also produces the manifest and the table of built-in kernels. Output is
 * deterministic: no time, no pointers, no absolute paths. */
#ifndef SSMC_EMIT_H
#define SSMC_EMIT_H
#include "cls.h"

struct sbx;

typedef struct {
  char name[160];        /* procedural kernel name (its identity) */
  char path[256];        /* relative output path, e.g. gated_deltanet/<name>.c */
  char *source;          /* malloc'd C text */
  size_t len;
  int dtype;             /* 0 f32, 1 bf16 */
} emit_kernel;

/* Template text: from the binary, or from a folder (for template work). */
void emit_set_template_dir(const char *dir);
const char *emit_template(const char *name, diag *d);

/* Kernel name of a family for a dtype (and the spec's default tiles). */
void emit_kernel_name(const cls_family *f, int dtype, int bk, int bv, char *buf, size_t n);
/* Emits the CPU kernel of a family and dtype with tiles (bk, bv). */
int emit_cpu_kernel(const cls_family *f, int dtype, int bk, int bv, const char *spec_path, struct sbx *lua,
                    emit_kernel *out, diag *d);
/* Manifest line block and table source for a list of kernels. */
char *emit_manifest(const cls_family *const *fams, const emit_kernel *const *ks, int n);
char *emit_table(const emit_kernel *const *ks, int n);

#endif
