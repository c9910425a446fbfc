/* compiler stage: emission. A classified family + dtype becomes the
 * parameter table of a template, rendered by the Lua sandbox into C.
 * Also produces the manifest and the table of built-in kernels. Output is
 * deterministic: no time, no pointers, no absolute paths. */
#ifndef SSMC_EMIT_H
#define SSMC_EMIT_H
#include "cls.h"
#include "ssmc_kernel.h"

/* cu_entries: the forward stages, decode, decode_large, fused, fused90, then the keep forms of fused, fused90 and
 * fwd[0] (prep), fwd[0]'s form before the fused slot, fused90's segment form (split_seg) and its own scan (split_scan
 * with an erase), the fused slot's split form (split_fused), the keep form of fwd[0]'s form before the fused slot
 * (prep_fused_keep), the split form's keep form (split_keep) */
#define EMIT_KEEP_ENTRY0 (SSMC_MAX_STAGES + 4)
#define EMIT_BWD_ENTRY0 (EMIT_KEEP_ENTRY0 + 9)

struct sbx;

typedef struct {
  char name[160];        /* procedural kernel name (its identity) */
  char path[256];        /* relative output path, e.g. gated_deltanet/<name>.c */
  char *source;          /* malloc'd C text */
  size_t len;
  int dtype;             /* 0 f32, 1 bf16 */
  /* The CUDA module of the same kernel (same name and identity). */
  char cu_path[256];     /* e.g. gated_deltanet/<name>.cu */
  char *cu_source;       /* malloc'd CUDA C++ text */
  size_t cu_len;
  ssmc_cuda_kernel cuda; /* launch facts read back from the module's launch line; source = cu_source */
  char cu_entries[EMIT_BWD_ENTRY0 + SSMC_MAX_BWD_STAGES][192]; /* forward stages, decode, decode_large, fused, fused90,
                                                                 their other forms, backward */
} emit_kernel;

/* A growable text buffer (every emitter writes through it); p is malloc'd. */
typedef struct { char *p; size_t len, cap; } emit_buf;
void emit_add(emit_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* C text of scalar spec expressions, as the templates' coefficient strings (the one printer of the
 * emitters): a float literal (%.9g, always with a '.', suffix f), an expression of scalar inputs read as
 * in[i][t_], a coefficient term c * prod f_i^(+-1), a scalar log decay (logc + its sum of expressions). */
void emit_c_float(emit_buf *b, double v);
void emit_c_scalar(emit_buf *b, const layer_spec *s, const ex_node *n);
void emit_c_coef(emit_buf *b, const layer_spec *s, const ex_term *t);
void emit_c_logdecay(emit_buf *b, const layer_spec *s, const cls_state *st);
/* The same as Lua string literals of a template's parameter table (a log decay: nil unless scalar). */
void emit_lua_str(emit_buf *b, const char *s);
void emit_lua_coef(emit_buf *b, const layer_spec *s, const ex_term *t);
void emit_lua_logdecay(emit_buf *b, const layer_spec *s, const cls_state *st);

/* Template text: from the binary, or from a folder (for template work). */
void emit_set_template_dir(const char *dir);
const char *emit_template(const char *name, diag *d);

/* Kernel name of a family for a dtype (and the spec's default tiles). */
void emit_kernel_name(const cls_family *f, int dtype, int bk, int bv, char *buf, size_t n);
/* Emits the CPU kernel of a family and dtype with tiles (bk, bv). */
int emit_cpu_kernel(const cls_family *f, int dtype, int bk, int bv, const char *spec_path, struct sbx *lua,
                    emit_kernel *out, diag *d);
/* Emits the CUDA module of a family and dtype into out->cu_* (after emit_cpu_kernel). */
int emit_cuda_kernel(const cls_family *f, int dtype, int bk, int bv, struct sbx *lua, emit_kernel *out, diag *d);
/* C text defining `const ssmc_cuda_kernel <name>_cuda` for a kernel: its source is the
 * symbol `source_symbol` (a built-in's embedded .cu), or, when NULL, a string literal. */
char *emit_cuda_desc(const emit_kernel *k, const char *source_symbol);
void emit_kernel_free(emit_kernel *k);
/* FNV-1a of the kernel's C source continued over its CUDA source (16 hex digits). */
void emit_kernel_hash(const emit_kernel *k, char out[17]);
/* Manifest line block and table source for a list of kernels. */
char *emit_manifest(const cls_family *const *fams, const emit_kernel *const *ks, int n);
char *emit_table(const emit_kernel *const *ks, int n);

#endif
