/* compiler stage: `ssmc compile` — NVRTC compilation of the CUDA modules with
 * ptxas's resource report (see cuc.c). */
#ifndef SSMC_CUC_H
#define SSMC_CUC_H
#include <stdio.h>
#include "emit.h"
#include "rt_cuda.h"

/* Shared memory a block may use on every supported GPU (an A100 has 163 KiB); a stage of sm_90 only
 * (fused_sm90) on an H100/H200 (227 KiB). */
#define CUC_SMEM_MAX (160 * 1024)
#define CUC_SMEM_MAX_SM90 (227 * 1024)

/* Stage i of a module in order: the forward stages, decode, decode_large, fused, the backward stages,
 * fused_sm90;
 * an absent one (no decode_large, no fused) has entry NULL; NULL past the last. */
const ssmc_cuda_stage *cuc_stage(const ssmc_cuda_kernel *c, int i);
/* Compiles ek's CUDA module for arch and prints one line per stage; on a
 * compile error prints each error with its generated and template line.
 * A stage over CUC_SMEM_MAX is marked and makes it an error too; one whose wgmma ptxas serialized (C7520)
 * is marked WGMMA SERIALIZED. */
int cuc_compile(const emit_kernel *ek, const char *arch, const char *cache_dir, FILE *out, diag *d);
/* ptxas's report on one stage ("prep", "decode", "solve", ...); 0, 1 on a compile error, -1 otherwise. */
int cuc_stage_info(const emit_kernel *ek, const char *arch, const char *cache_dir, const char *stage, rt_ptxas_info *pi,
                   char *err, size_t n);

#endif
