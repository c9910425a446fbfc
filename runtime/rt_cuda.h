/* runtime stage: the CUDA backend. Loads the CUDA driver and NVRTC with
 * dlopen (one binary runs everywhere; without them the CPU path is unchanged),
 * compiles a kernel's CUDA module (ssmc_cuda_kernel.source) with NVRTC into a
 * cubin cached on disk, loads it and launches its stages from the kernel
 * table alone. NVRTC needs no GPU: rt_nvrtc_compile works on any machine
 * that has the library.
 *
 * Cubin cache: <cache_dir>/<16 hex>.cubin (+ .log, ptxas's resource report),
 * key = FNV-1a over the source, the ABI header, the options, the arch and the
 * NVRTC version; written to a temp file and renamed (atomic). */
#ifndef SSMC_RT_CUDA_H
#define SSMC_RT_CUDA_H
#include <stddef.h>
#include "ssmc_kernel.h"

/* ------------------------------------------------------------ NVRTC */

/* Opens NVRTC (SSMC_NVRTC, else libnvrtc.so* on the loader path, else the CUDA
 * toolkit's and NVIDIA's PyPI wheel folders). 0, or -1 with a reason in err. */
int rt_nvrtc_open(char *err, size_t errlen);
/* "NVRTC 13.0" once opened. */
const char *rt_nvrtc_version(void);

typedef struct {
  void *cubin;         /* malloc'd */
  size_t cubin_len;
  char *log;           /* malloc'd: NVRTC's log including ptxas's resource report */
  int from_cache;
} rt_nvrtc_out;

/* mkdir -p dir (best effort: a caller checks what it needs) */
void rt_mkdirs(const char *dir);

/* Compiles a module for arch ("sm_80", "sm_90a"). name: the file name in
 * messages. cache_dir may be NULL. On a compile error returns 1 with the log
 * in out->log; on other failures -1 with err set. */
int rt_nvrtc_compile(const char *src, const char *name, const char *arch, const char *cache_dir, rt_nvrtc_out *out,
                     char *err, size_t errlen);
void rt_nvrtc_out_free(rt_nvrtc_out *o);

/* One entry function's resources, from ptxas's report in an NVRTC log; wgmma_serialized: ptxas made its wgmma
 * wait for one another (info C7520, "Potential Performance Loss": a region of them it could not keep asynchronous). */
typedef struct {
  int regs, smem_static, stack, spill_stores, spill_loads, wgmma_serialized, found;
} rt_ptxas_info;
void rt_ptxas_parse(const char *log, const char *entry, rt_ptxas_info *out);

/* ------------------------------------------------------------ devices */

typedef struct rt_cuda rt_cuda;
typedef struct {
  char name[128];
  int sm_count, cc_major, cc_minor, smem_optin, l2_bytes;
  char arch[16];       /* "sm_80", "sm_90a", ... */
} rt_cuda_info;

/* Opens the driver and NVRTC and makes device 0's primary context current. */
rt_cuda *rt_cuda_open(char *err, size_t errlen);
void rt_cuda_close(rt_cuda *c);
const rt_cuda_info *rt_cuda_device(const rt_cuda *c);

/* Device memory and copies (synchronous); 0 or -1 with the driver's message in err. */
void *rt_cuda_alloc(rt_cuda *c, size_t bytes);
void rt_cuda_free(rt_cuda *c, void *p);
int rt_cuda_h2d(rt_cuda *c, void *dst, const void *src, size_t bytes);
int rt_cuda_d2h(rt_cuda *c, void *dst, const void *src, size_t bytes);
int rt_cuda_d2d(rt_cuda *c, void *dst, const void *src, size_t bytes);
int rt_cuda_memset(rt_cuda *c, void *dst, unsigned char v, size_t bytes);
int rt_cuda_sync(rt_cuda *c);
const char *rt_cuda_error(rt_cuda *c); /* the last failure */

/* Events on the default stream: record, then milliseconds between two. */
void *rt_cuda_event(rt_cuda *c);
int rt_cuda_record(rt_cuda *c, void *ev, void *stream);
float rt_cuda_elapsed(rt_cuda *c, void *a, void *b);
void rt_cuda_event_free(rt_cuda *c, void *ev);

/* ------------------------------------------------------------ kernels */

typedef struct rt_cuda_mod rt_cuda_mod;
/* Compiles (or takes from the cache) and loads the CUDA module of k for this device. */
rt_cuda_mod *rt_cuda_load(rt_cuda *c, const ssmc_kernel *k, const char *cache_dir, int *from_cache, char *err,
                          size_t errlen);
void rt_cuda_unload(rt_cuda *c, rt_cuda_mod *m);
/* Device workspace of the forward call a, in bytes (per token and per chunk slot, see ssmc_kernel.h). */
size_t rt_cuda_fwd_ws_bytes(const ssmc_kernel *k, const ssmc_fwd_args *a);
/* Launches every forward stage on `stream` (NULL: the default stream); a holds
 * device pointers. ws: device workspace of rt_cuda_fwd_ws_bytes (may be NULL when 0). */
int rt_cuda_fwd(rt_cuda *c, rt_cuda_mod *m, const ssmc_fwd_args *a, void *ws, void *stream);
/* Forward variants: RT_FWD_AUTO (rt_fwd_pick), RT_FWD_STAGED (the fwd[] stages, the wide forms), RT_FWD_FUSED (the
 * one-stage forward; an error where the module has none), RT_FWD_NARROW (the fwd[] stages, the narrow forms; the
 * staged forward where the module has none), RT_FWD_SPLIT (the fused slot's split forward, ssmc_kernel.h; with keep
 * where ssmc_cuda_split_keeps). */
enum { RT_FWD_AUTO = -1, RT_FWD_STAGED = 0, RT_FWD_FUSED = 1, RT_FWD_NARROW = 2, RT_FWD_SPLIT = 3 };
int rt_cuda_fwd_variant(rt_cuda *c, rt_cuda_mod *m, const ssmc_fwd_args *a, int variant, void *ws, void *stream);
/* The variant RT_FWD_AUTO runs for the call a (t_total set) on a device of sm_count SMs (kd: the table as it runs
 * it; keep: rt_cuda_fwd_save's forward): the split one where it makes three segments or more, else the fused one
 * from ssmc_cuda_fwd_fused's size on, else the split one where it makes two, else ssmc_cuda_narrow's pick. H200,
 * bf16, split vs fused90 ms (bench/2026-11-25-gpu-h200-split, call 3): Mamba-2 T4096 H16 B2 (4 segments) 0.156 vs
 * 0.373, B3 (2) 0.355 vs 0.372, B4 (2) 0.390 vs 0.374; K = V = 64 T4096 H32 B4 (2) 0.296 vs 0.203, B2 (4; call 2)
 * 0.142 vs 0.201; B1 T32768 H16 (8) 0.533 vs 2.88, the staged forward 1.43. A kept forward the same where
 * ssmc_cuda_split_keeps (H200 bf16 fwd+bwd-saved, bench/2026-11-30-gpu-h200-s55 calls 3-4: B1 T32768 H16 Mamba-2
 * 4.48 -> 3.65 ms, GDN 8.05 -> 7.10, DeltaNet 7.64 -> 6.66; B2 T16384 Mamba-2 4.79 -> 3.60, GDN 8.03 -> 7.08) */
static inline int rt_fwd_pick(const ssmc_kernel *kd, const ssmc_fwd_args *a, int sm_count, int keep) {
  const ssmc_cuda_kernel *c = kd->cuda;
  const int32_t split = keep && !ssmc_cuda_split_keeps(c) ? 0 : ssmc_cuda_split(kd, a, sm_count, 0);
  if (split >= 3) return RT_FWD_SPLIT;
  if (ssmc_cuda_fwd_fused(c, a->n_seqs, a->h_v, kd->V, sm_count)) return RT_FWD_FUSED;
  if (split >= 2) return RT_FWD_SPLIT;
  return ssmc_cuda_fwd_narrow(c) && ssmc_cuda_narrow(c, a->n_seqs, a->h_v, kd->V, sm_count) ? RT_FWD_NARROW : RT_FWD_STAGED;
}
/* rt_fwd_pick on this device (a's t_total: ssmc_fwd_tokens) */
int rt_cuda_fwd_pick(const rt_cuda *c, const rt_cuda_mod *m, const ssmc_fwd_args *a);
/* How many forward variants the module has (1 to 4) and the v-th (RT_FWD_*): staged, then fused, narrow and split
 * where it has them (c: the table as the device runs it, ssmc_cuda_for_device) */
static inline int rt_fwd_variant_count(const ssmc_cuda_kernel *c) {
  return 1 + (c->fused.entry != 0) + ssmc_cuda_fwd_narrow(c) + (c->split_seg.entry != 0);
}
static inline int rt_fwd_variant_at(const ssmc_cuda_kernel *c, int v) {
  const int all[] = {RT_FWD_STAGED, c->fused.entry ? RT_FWD_FUSED : -9, ssmc_cuda_fwd_narrow(c) ? RT_FWD_NARROW : -9,
                     c->split_seg.entry ? RT_FWD_SPLIT : -9};
  for (int i = 0, n = 0; i < 4; i++)
    if (all[i] != -9 && n++ == v) return all[i];
  return RT_FWD_STAGED;
}
/* The stages of forward variant `variant` of the call a (t_total set) on a device of sm_count SMs, in launch order,
 * into st[] (room for SSMC_MAX_STAGES + 1), and their count; a->split set (ssmc_cuda_split in a split forward, else
 * 0). < 0: none (rt_fwd_plan_why). Every launcher (the runtime, check's emulation) runs exactly these, each on
 * ssmc_cuda_items's items. */
static inline int rt_fwd_plan(const ssmc_kernel *kd, ssmc_fwd_args *a, int variant, int keep, int sm_count,
                              const ssmc_cuda_stage **st) {
  const ssmc_cuda_kernel *c = kd->cuda;
  if (variant == RT_FWD_AUTO) variant = rt_fwd_pick(kd, a, sm_count, keep);
  a->split = 0;
  if (keep && c->saved_lead) { /* the backward's first stages, then the chunk stages after the solve (the narrow
                                * variant: their narrow forms) */
    int n = 0;
    for (int i = 0; i < c->bwd_saved; i++) st[n++] = &c->bwd[i];
    for (int i = c->n_fwd - c->fused_post; i < c->n_fwd; i++)
      if (ssmc_cuda_stage_runs(&c->fwd[i], variant == RT_FWD_NARROW)) st[n++] = &c->fwd[i];
    return n;
  }
  if (variant == RT_FWD_SPLIT) {
    if (!c->split_seg.entry) return -2;
    if (keep && !ssmc_cuda_split_keeps(c)) return -1;
    a->split = ssmc_cuda_split(kd, a, sm_count, 1);
    const int erase = c->split_fused.entry != 0; /* (a kept one: its first stages' keep forms again, ssmc_kernel.h) */
    int n = ssmc_cuda_fwd_stages(c, 1, 0, keep && !erase, st) - 1; /* the fused slot's stages before it, then */
    st[n++] = &c->split_seg, st[n++] = &c->split_scan;
    if (keep && erase) n += ssmc_cuda_fwd_stages(c, 1, 0, 1, st + n) - 1;
    st[n++] = keep ? (erase ? &c->split_keep : &c->fused_keep) : erase ? &c->split_fused : &c->fused;
    return n;
  }
  if (variant == RT_FWD_FUSED && !c->fused.entry) return -2;
  return ssmc_cuda_fwd_stages(c, variant == RT_FWD_FUSED, variant == RT_FWD_NARROW, keep, st);
}
/* why rt_fwd_plan gave no stages (its return rc < 0) */
static inline const char *rt_fwd_plan_why(int rc) {
  return rc == -1 ? "this forward keeps nothing for the backward" : "the module has no such forward variant";
}
int rt_cuda_fwd_variants(const rt_cuda_mod *m);
int rt_cuda_fwd_variant_at(const rt_cuda_mod *m, int v);
/* One decode step; the stage is ssmc_cuda_decode_stage's pick for the batch and this device. */
int rt_cuda_decode(rt_cuda *c, rt_cuda_mod *m, const ssmc_decode_args *a, void *stream);
/* The chunkwise backward (ssmc_kernel.h: the forward's first bwd_fwd stages, then the backward's), device
 * pointers; ws: rt_cuda_bwd_ws_bytes of device memory. Every din / dstate_in given is written in full. */
size_t rt_cuda_bwd_ws_bytes(const ssmc_kernel *k, const ssmc_bwd_args *g);
/* The forward of a training step: forward variant `variant` (RT_FWD_*, as rt_cuda_fwd_variant) into the workspace of
 * the backward of the same call (bws: rt_cuda_bwd_ws_bytes; the forward's workspace is its first part). Where the
 * module keeps its forward (ssmc_cuda_kernel.bwd_saved > 0) the stages also leave there what the backward's first
 * bwd_saved stages recompute, and the final states (copied to a->state_out where given, on `stream`): a later
 * rt_cuda_bwd on bws with the same inputs and g->fwd_saved = 1 skips those stages. Elsewhere the plain forward. */
int rt_cuda_fwd_save(rt_cuda *c, rt_cuda_mod *m, const ssmc_fwd_args *a, int variant, void *bws, void *stream);
/* The forward arguments a backward's first bwd_fwd stages and every backward stage get: the backward's
 * inputs and initial states, no output, the final states into the backward's part of ws. */
ssmc_fwd_args rt_cuda_bwd_fwd_args(const ssmc_kernel *k, const ssmc_bwd_args *g, float *ws);
int rt_cuda_bwd(rt_cuda *c, rt_cuda_mod *m, const ssmc_bwd_args *g, void *ws, void *stream);
/* Backward variants: RT_BWD_AUTO (ssmc_cuda_bwd_narrow's rule), RT_BWD_WIDE and RT_BWD_NARROW (the forms of the
 * chunk-to-chunk stages; RT_BWD_NARROW is RT_BWD_WIDE where the module has no narrow form) */
enum { RT_BWD_AUTO = -1, RT_BWD_WIDE = 0, RT_BWD_NARROW = 1 };
int rt_cuda_bwd_variant(rt_cuda *c, rt_cuda_mod *m, const ssmc_bwd_args *g, int variant, void *ws, void *stream);
/* The variant RT_BWD_AUTO runs for n_seqs sequences and h_v value heads on this device. */
int rt_cuda_bwd_pick(const rt_cuda *c, const rt_cuda_mod *m, int n_seqs, int h_v);
/* How many backward variants the module has (1 or 2). */
static inline int rt_bwd_variant_count(const ssmc_cuda_kernel *c) { return c->n_bwd && c->narrow_bv ? 2 : 1; }
/* The backward runs check goes through (c: the table as the device runs it, ssmc_cuda_for_device): first each
 * backward variant, recomputing; then, where the module keeps its forward (bwd_saved), one per forward variant:
 * that forward by rt_cuda_fwd_save, then the backward with fwd_saved (narrow after the narrow forward, else wide);
 * where the kept forward is the backward's first stages (saved_lead), whatever the variant, one per backward variant.
 * rt_bwd_run_at gives run v's forward variant (RT_FWD_NONE: none) and backward variant. */
enum { RT_FWD_NONE = -2 };
static inline int rt_bwd_run_count(const ssmc_cuda_kernel *c) { /* (the split forward, the last, where it keeps) */
  if (c->n_bwd && c->bwd_saved && c->saved_lead) return rt_bwd_variant_count(c) * 2; /* staged and narrow keep alike */
  return rt_bwd_variant_count(c) +
         (c->n_bwd && c->bwd_saved ? rt_fwd_variant_count(c) - (c->split_seg.entry && !ssmc_cuda_split_keeps(c)) : 0);
}
static inline void rt_bwd_run_at(const ssmc_cuda_kernel *c, int v, int *fwd, int *bwd) {
  const int nb = rt_bwd_variant_count(c);
  *fwd = v < nb ? RT_FWD_NONE : c->saved_lead ? (v - nb ? RT_FWD_NARROW : RT_FWD_STAGED) : rt_fwd_variant_at(c, v - nb);
  *bwd = v < nb ? (v ? RT_BWD_NARROW : RT_BWD_WIDE) : *fwd == RT_FWD_NARROW && c->narrow_bv ? RT_BWD_NARROW : RT_BWD_WIDE;
}
int rt_cuda_bwd_variants(const rt_cuda_mod *m);
int rt_cuda_bwd_runs(const rt_cuda_mod *m); /* rt_bwd_run_count of the module as this device runs it */
/* Decode variants: RT_DECODE_AUTO (the rule above), RT_DECODE_SMALL (`decode`), RT_DECODE_LARGE
 * (`decode_large`; an error where the module has none). */
enum { RT_DECODE_AUTO = -1, RT_DECODE_SMALL = 0, RT_DECODE_LARGE = 1 };
int rt_cuda_decode_variant(rt_cuda *c, rt_cuda_mod *m, const ssmc_decode_args *a, int variant, void *stream);
/* The variant RT_DECODE_AUTO runs for n_seqs sequences and h_v value heads on this device. */
int rt_cuda_decode_pick(const rt_cuda *c, const rt_cuda_mod *m, int n_seqs, int h_v);
/* How many decode variants the module has (1 or 2). */
int rt_cuda_decode_variants(const rt_cuda_mod *m);

/* A module that is not a kernel table entry (bench's ceiling probes): compiled
 * from src like any other (cached), entries launched by name on a 1-D grid. */
typedef struct rt_cuda_raw rt_cuda_raw;
rt_cuda_raw *rt_cuda_raw_load(rt_cuda *c, const char *src, const char *name, const char *cache_dir, char *err,
                              size_t errlen);
int rt_cuda_raw_launch(rt_cuda *c, rt_cuda_raw *m, const char *entry, unsigned blocks, unsigned threads, void **params,
                       void *stream);
void rt_cuda_raw_unload(rt_cuda *c, rt_cuda_raw *m);

#endif
