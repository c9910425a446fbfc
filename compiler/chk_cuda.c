/* compiler stage: the CUDA backend of `ssmc check` and `ssmc bench`.
 * Takes the host arguments a check builds, moves them to the device (outputs
 * poisoned with NaN first, so an element no thread wrote cannot pass), runs
 * the kernel's CUDA stages through the runtime, and copies the results back. */
#include "chk_cuda.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct chk_cuda {
  rt_cuda *c;
  const char *cache_dir;
  const ssmc_kernel *k; /* the kernel whose module is loaded, and its name (a later kernel may reuse the address) */
  char kname[160];
  rt_cuda_mod *m;
  int from_cache;
  int decode_variant; /* RT_DECODE_AUTO, _SMALL or _LARGE */
  int fwd_index;      /* the forward variant: rt_cuda_fwd_variant_at's index, -1: RT_FWD_AUTO */
  int bwd_run;        /* the backward run: rt_bwd_run_at's index, -1: RT_BWD_AUTO recomputing */
  chk_backend be;
};

static int fail(chk_cuda *g, char *err, size_t n, const char *what) {
  snprintf(err, n, "%s: %s", what, rt_cuda_error(g->c));
  return -1;
}

static int ensure_module(chk_cuda *g, const ssmc_kernel *k, char *err, size_t n) {
  if (g->k == k && g->m && !strcmp(g->kname, k->name)) return 0;
  rt_cuda_unload(g->c, g->m);
  g->m = rt_cuda_load(g->c, k, g->cache_dir, &g->from_cache, err, n);
  g->k = g->m ? k : NULL;
  snprintf(g->kname, sizeof g->kname, "%s", k->name);
  return g->m ? 0 : -1;
}

/* A device copy of a host buffer (NULL stays NULL). */
static void *up(chk_cuda *g, const void *h, size_t bytes, int *bad) {
  if (!h || *bad) return NULL;
  void *d = rt_cuda_alloc(g->c, bytes);
  if (!d || rt_cuda_h2d(g->c, d, h, bytes)) *bad = 1;
  return d;
}

/* A device output poisoned with 0xff bytes (NaN in f32 and bf16). */
static void *poisoned(chk_cuda *g, size_t bytes, int *bad) {
  if (*bad) return NULL;
  void *d = rt_cuda_alloc(g->c, bytes);
  if (!d || rt_cuda_memset(g->c, d, 0xff, bytes)) *bad = 1;
  return d;
}

static size_t in_bytes(const ssmc_kernel *k, int i, int64_t rows, int h_qk, int h_v) {
  int gate = ssmc_input_is_gate(k, i);
  size_t esz = gate || k->dtype == SSMC_F32 ? 4 : 2;
  return (size_t)rows * (size_t)(ssmc_input_qk_heads(k, i) ? h_qk : h_v) * (size_t)ssmc_input_len(k, i) * esz;
}

/* An input's gradient: fp32 in the input's layout. */
static size_t grad_bytes(const ssmc_kernel *k, int i, int64_t rows, int h_qk, int h_v) {
  return (size_t)rows * (size_t)(ssmc_input_qk_heads(k, i) ? h_qk : h_v) * (size_t)ssmc_input_len(k, i) * 4;
}

static int cuda_fwd(void *ctx, const ssmc_kernel *k, const ssmc_fwd_args *a, int64_t t_total, char *err, size_t n) {
  chk_cuda *g = ctx;
  if (ensure_module(g, k, err, n)) return -1;
  ssmc_fwd_args d = *a;
  d.t_total = t_total;
  int bad = 0, N = a->n_seqs;
  size_t esz = k->dtype == SSMC_F32 ? 4 : 2;
  size_t out_b = (size_t)t_total * a->h_v * k->V * esz, aux_b = (size_t)t_total * a->h_v * k->K * 4;
  d.cu_seqlens = up(g, a->cu_seqlens, sizeof(int64_t) * (size_t)(N + 1), &bad);
  for (int i = 0; i < k->n_inputs; i++) d.in[i] = up(g, a->in[i], in_bytes(k, i, t_total, a->h_qk, a->h_v), &bad);
  d.out = poisoned(g, out_b, &bad);
  for (int i = 0; i < k->n_aux; i++) d.aux_out[i] = a->aux_out[i] ? poisoned(g, aux_b, &bad) : NULL;
  for (int i = 0; i < k->n_states; i++) {
    size_t sb = (size_t)N * a->h_v * (size_t)k->state_size[i] * 4;
    d.state_in[i] = up(g, a->state_in[i], sb, &bad);
    if (a->state_out[i] && a->state_out[i] == a->state_in[i]) d.state_out[i] = (float *)d.state_in[i];
    else d.state_out[i] = a->state_out[i] ? poisoned(g, sb, &bad) : NULL;
  }
  size_t wsb = rt_cuda_fwd_ws_bytes(k, &d);
  void *ws = wsb ? poisoned(g, wsb, &bad) : NULL;
  const int variant = g->fwd_index < 0 ? RT_FWD_AUTO : rt_cuda_fwd_variant_at(g->m, g->fwd_index);
  int rc = 0;
  if (bad) rc = fail(g, err, n, "device memory");
  else if (rt_cuda_fwd_variant(g->c, g->m, &d, variant, ws, NULL) || rt_cuda_sync(g->c)) rc = fail(g, err, n, k->name);
  if (!rc && rt_cuda_d2h(g->c, a->out, d.out, out_b)) rc = fail(g, err, n, "copy back");
  for (int i = 0; i < k->n_aux && !rc; i++)
    if (a->aux_out[i] && rt_cuda_d2h(g->c, a->aux_out[i], d.aux_out[i], aux_b)) rc = fail(g, err, n, "copy back");
  for (int i = 0; i < k->n_states && !rc; i++)
    if (a->state_out[i] &&
        rt_cuda_d2h(g->c, a->state_out[i], d.state_out[i], (size_t)N * a->h_v * (size_t)k->state_size[i] * 4))
      rc = fail(g, err, n, "copy back");
  rt_cuda_free(g->c, (void *)d.cu_seqlens);
  for (int i = 0; i < k->n_inputs; i++) rt_cuda_free(g->c, (void *)d.in[i]);
  rt_cuda_free(g->c, d.out);
  for (int i = 0; i < k->n_aux; i++) rt_cuda_free(g->c, d.aux_out[i]);
  for (int i = 0; i < k->n_states; i++) {
    if (d.state_out[i] != d.state_in[i]) rt_cuda_free(g->c, d.state_out[i]);
    rt_cuda_free(g->c, (void *)d.state_in[i]);
  }
  rt_cuda_free(g->c, ws);
  return rc;
}

static int cuda_decode(void *ctx, const ssmc_kernel *k, const ssmc_decode_args *a, int n_slots, char *err, size_t n) {
  chk_cuda *g = ctx;
  if (ensure_module(g, k, err, n)) return -1;
  ssmc_decode_args d = *a;
  int bad = 0, N = a->n_seqs;
  size_t esz = k->dtype == SSMC_F32 ? 4 : 2;
  size_t out_b = (size_t)N * a->h_v * k->V * esz, aux_b = (size_t)N * a->h_v * k->K * 4;
  for (int i = 0; i < k->n_inputs; i++) d.in[i] = up(g, a->in[i], in_bytes(k, i, N, a->h_qk, a->h_v), &bad);
  d.out = poisoned(g, out_b, &bad);
  for (int i = 0; i < k->n_aux; i++) d.aux_out[i] = a->aux_out[i] ? poisoned(g, aux_b, &bad) : NULL;
  for (int i = 0; i < k->n_states; i++)
    d.state[i] = up(g, a->state[i], (size_t)n_slots * a->h_v * (size_t)k->state_size[i] * 4, &bad);
  d.slots = up(g, a->slots, sizeof(int32_t) * (size_t)N, &bad);
  int rc = 0;
  if (bad) rc = fail(g, err, n, "device memory");
  else if (rt_cuda_decode_variant(g->c, g->m, &d, g->decode_variant, NULL) || rt_cuda_sync(g->c))
    rc = fail(g, err, n, k->name);
  if (!rc && rt_cuda_d2h(g->c, a->out, d.out, out_b)) rc = fail(g, err, n, "copy back");
  for (int i = 0; i < k->n_aux && !rc; i++)
    if (a->aux_out[i] && rt_cuda_d2h(g->c, a->aux_out[i], d.aux_out[i], aux_b)) rc = fail(g, err, n, "copy back");
  for (int i = 0; i < k->n_states && !rc; i++)
    if (rt_cuda_d2h(g->c, a->state[i], d.state[i], (size_t)n_slots * a->h_v * (size_t)k->state_size[i] * 4))
      rc = fail(g, err, n, "copy back");
  for (int i = 0; i < k->n_inputs; i++) rt_cuda_free(g->c, (void *)d.in[i]);
  rt_cuda_free(g->c, d.out);
  for (int i = 0; i < k->n_aux; i++) rt_cuda_free(g->c, d.aux_out[i]);
  for (int i = 0; i < k->n_states; i++) rt_cuda_free(g->c, d.state[i]);
  rt_cuda_free(g->c, (void *)d.slots);
  return rc;
}

static int cuda_bwd(void *ctx, const ssmc_kernel *k, const ssmc_bwd_args *a, int64_t t_total, void *y, char *err,
                    size_t n) {
  chk_cuda *g = ctx;
  if (ensure_module(g, k, err, n)) return -1;
  ssmc_bwd_args d = *a;
  d.t_total = t_total;
  int bad = 0, N = a->n_seqs;
  size_t esz = k->dtype == SSMC_F32 ? 4 : 2;
  d.cu_seqlens = up(g, a->cu_seqlens, sizeof(int64_t) * (size_t)(N + 1), &bad);
  d.dout = up(g, a->dout, (size_t)t_total * a->h_v * k->V * esz, &bad);
  for (int i = 0; i < k->n_inputs; i++) {
    size_t ib = in_bytes(k, i, t_total, a->h_qk, a->h_v), gb = grad_bytes(k, i, t_total, a->h_qk, a->h_v);
    d.in[i] = up(g, a->in[i], ib, &bad);
    d.din[i] = a->din[i] ? poisoned(g, gb, &bad) : NULL;
  }
  for (int i = 0; i < k->n_aux; i++) d.aux_in[i] = NULL; /* recomputed on the device */
  for (int i = 0; i < k->n_states; i++) {
    size_t sb = (size_t)N * a->h_v * (size_t)k->state_size[i] * 4;
    d.state_in[i] = up(g, a->state_in[i], sb, &bad);
    d.dstate_out[i] = up(g, a->dstate_out[i], sb, &bad);
    d.dstate_in[i] = a->dstate_in[i] ? poisoned(g, sb, &bad) : NULL;
  }
  size_t wsb = rt_cuda_bwd_ws_bytes(k, &d);
  void *ws = wsb ? poisoned(g, wsb, &bad) : NULL;
  int fv = RT_FWD_NONE, bv = RT_BWD_AUTO;
  if (g->bwd_run >= 0) {
    ssmc_cuda_kernel cd; /* as the device runs it */
    ssmc_cuda_for_device(k->cuda, g->be.cc_major, &cd);
    rt_bwd_run_at(&cd, g->bwd_run, &fv, &bv);
  }
  /* a kept forward: the forward of the same inputs into the backward's workspace first (its output poisoned) */
  ssmc_fwd_args f = rt_cuda_bwd_fwd_args(k, &d, NULL);
  f.out = fv != RT_FWD_NONE ? poisoned(g, (size_t)t_total * a->h_v * k->V * esz, &bad) : NULL;
  d.fwd_saved = fv != RT_FWD_NONE;
  int rc = 0;
  if (bad) rc = fail(g, err, n, "device memory");
  else if ((d.fwd_saved && rt_cuda_fwd_save(g->c, g->m, &f, fv, ws, NULL)) ||
           rt_cuda_bwd_variant(g->c, g->m, &d, bv, ws, NULL) || rt_cuda_sync(g->c))
    rc = fail(g, err, n, k->name);
  if (!rc && y && f.out && rt_cuda_d2h(g->c, y, f.out, (size_t)t_total * a->h_v * k->V * esz)) rc = fail(g, err, n, "copy back");
  rt_cuda_free(g->c, f.out);
  for (int i = 0; i < k->n_inputs && !rc; i++) {
    if (a->din[i] && rt_cuda_d2h(g->c, a->din[i], d.din[i], grad_bytes(k, i, t_total, a->h_qk, a->h_v)))
      rc = fail(g, err, n, "copy back");
  }
  for (int i = 0; i < k->n_states && !rc; i++)
    if (a->dstate_in[i] &&
        rt_cuda_d2h(g->c, a->dstate_in[i], d.dstate_in[i], (size_t)N * a->h_v * (size_t)k->state_size[i] * 4))
      rc = fail(g, err, n, "copy back");
  rt_cuda_free(g->c, (void *)d.cu_seqlens);
  rt_cuda_free(g->c, (void *)d.dout);
  for (int i = 0; i < k->n_inputs; i++) {
    rt_cuda_free(g->c, (void *)d.in[i]);
    rt_cuda_free(g->c, d.din[i]);
  }
  for (int i = 0; i < k->n_states; i++) {
    rt_cuda_free(g->c, (void *)d.state_in[i]);
    rt_cuda_free(g->c, (void *)d.dstate_out[i]);
    rt_cuda_free(g->c, d.dstate_in[i]);
  }
  rt_cuda_free(g->c, ws);
  return rc;
}

/* decode and decode_large where the module has both: check runs each at its own small batches */
static int cuda_decode_variants(void *ctx, const ssmc_kernel *k) {
  chk_cuda *g = ctx;
  char err[512];
  if (ensure_module(g, k, err, sizeof err)) return 1; /* the decode call reports the failure */
  return rt_cuda_decode_variants(g->m);
}
static void cuda_set_decode_variant(void *ctx, int variant) {
  ((chk_cuda *)ctx)->decode_variant = variant < 0 ? RT_DECODE_AUTO : variant ? RT_DECODE_LARGE : RT_DECODE_SMALL;
}

/* the staged forward, and the fused one and the narrow one where the module has them */
static int cuda_fwd_variants(void *ctx, const ssmc_kernel *k) {
  chk_cuda *g = ctx;
  char err[512];
  if (ensure_module(g, k, err, sizeof err)) return 1; /* the forward call reports the failure */
  return rt_cuda_fwd_variants(g->m);
}
static void cuda_set_fwd_variant(void *ctx, int variant) { ((chk_cuda *)ctx)->fwd_index = variant < 0 ? -1 : variant; }

/* the wide forms of the chunk-to-chunk stages and the narrow ones where the module has both, then the backward
 * after each forward variant that keeps its results (rt_bwd_run_at) */
static int cuda_bwd_variants(void *ctx, const ssmc_kernel *k) {
  chk_cuda *g = ctx;
  char err[512];
  if (ensure_module(g, k, err, sizeof err)) return 1; /* the backward call reports the failure */
  return rt_cuda_bwd_runs(g->m);
}
static void cuda_set_bwd_variant(void *ctx, int variant) { ((chk_cuda *)ctx)->bwd_run = variant < 0 ? -1 : variant; }

chk_cuda *chk_cuda_open(const char *cache_dir, char *err, size_t n) {
  rt_cuda *c = rt_cuda_open(err, n);
  if (!c) return NULL;
  chk_cuda *g = calloc(1, sizeof *g);
  g->c = c;
  g->cache_dir = cache_dir;
  g->decode_variant = RT_DECODE_AUTO;
  g->fwd_index = -1;
  g->bwd_run = -1;
  g->be = (chk_backend){"cuda",          cuda_fwd,     cuda_decode, g, cuda_bwd, cuda_decode_variants, cuda_set_decode_variant,
                        cuda_fwd_variants, cuda_set_fwd_variant, rt_cuda_device(c)->cc_major, cuda_bwd_variants,
                        cuda_set_bwd_variant};
  return g;
}

void chk_cuda_close(chk_cuda *g) {
  if (!g) return;
  rt_cuda_unload(g->c, g->m);
  rt_cuda_close(g->c);
  free(g);
}

const chk_backend *chk_cuda_backend(chk_cuda *g) { return &g->be; }
rt_cuda *chk_cuda_device(chk_cuda *g) { return g->c; }
rt_cuda_mod *chk_cuda_module(chk_cuda *g, const ssmc_kernel *k, int *from_cache, char *err, size_t n) {
  if (ensure_module(g, k, err, n)) return NULL;
  if (from_cache) *from_cache = g->from_cache;
  return g->m;
}
