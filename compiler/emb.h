/* compiler stage: emission of the chunkwise BACKWARD (CPU and CUDA) of a classified
 * family (templates cpu_bwd.c.tpl, cuda_bwd.cu.tpl). Builds the template's parameter table:
 * the forward's structure plus, for every scalar coefficient (write, erase,
 * log decays, query coefficients), its partial derivatives with respect to
 * each scalar input as C expressions (symbolic differentiation of the spec's
 * own scalar expressions). Deterministic like emit.c. */
#ifndef SSMC_EMB_H
#define SSMC_EMB_H
#include <stddef.h>
#include "cls.h"
#include "ssmc_kernel.h"

struct sbx;

/* Renders the backward of kernel `name` (the forward's name; entry points
 * <name>_bwd and <name>_bwd_ws). *src is malloc'd. Returns non-zero after filling d. */
int emb_cpu_backward(const cls_family *f, int dtype, int bk, int bv, const char *name, struct sbx *lua, char **src,
                     size_t *len, diag *d);

/* Renders the CUDA backward stages (template cuda_bwd.cu.tpl) of kernel `name`, appended to its CUDA module
 * whose forward's launch facts (chunk, value tile, prep and state stages) are cu. */
int emb_cuda_backward(const cls_family *f, int dtype, int bk, int bv, const char *name, const ssmc_cuda_kernel *cu,
                      struct sbx *lua, char **src, size_t *len, diag *d);
/* One manifest line block describing the backward of a family's kernel. */
void emb_manifest_lines(const cls_family *f, const char *name, char *buf, size_t n);

#endif
