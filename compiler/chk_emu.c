/* compiler stage: the CUDA emulation backend of `ssmc check` (see chk_emu.h). Host pointers are
 * device pointers here: the check's own buffers go to the stages (outputs, gradients and the
 * workspace poisoned with NaN first, as on a GPU). */
#include "chk_emu.h"
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "rt_cuda.h"
#include "spec.h"

extern const char ssmc_emu_emu_cuda[];      /* compiler/emu_cuda.h, embedded at build time */
extern const char ssmc_hdr_ssmc_kernel[];   /* runtime/ssmc_kernel.h */
#define EMU_SM_COUNT 132                     /* the variants' picks (RT_*_AUTO) as on an H100 / H200 */
#define EMU_CXX_FLAGS "-std=c++17 -O1 -fPIC -shared -DSSMC_EMU"

typedef int (*emu_launch_fn)(void *fn, int sig, const unsigned *g, int nt, void **params);
struct chk_emu {
  char cache[512], cxx[256];
  char tc[24]; /* " -DSSMC_EMU_TC=E" where SSMC_EMU_TC=E (0..8) models the tensor cores' accumulation (emu_cuda.h's
                * emu_tc_acc); "": plain */
  int sm90a; /* SSMC_EMU_ARCH=sm_90a: the modules' sm_90a paths (wgmma), else their sm_80 ones */
  const ssmc_kernel *k; /* the kernel whose module is loaded, and its name (a later kernel may reuse the address) */
  char kname[160];
  void *so;
  emu_launch_fn launch;
  int fwd_index; /* the forward variant (rt_fwd_variant_at's index; -1: RT_FWD_AUTO) */
  int decode_variant; /* RT_DECODE_* */
  int bwd_run;        /* the backward run: rt_bwd_run_at's index, -1: RT_BWD_AUTO recomputing */
  chk_backend be;
};

static int write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  size_t n = strlen(text);
  int rc = fwrite(text, 1, n, f) == n ? 0 : -1;
  return fclose(f) || rc ? -1 : 0;
}

/* The module of k compiled for this CPU: cache/emu-<hash>.so (compiled into a scratch folder first,
 * then renamed: a failed or concurrent compile leaves nothing half-written). */
static int ensure_module(chk_emu *g, const ssmc_kernel *k, char *err, size_t n) {
  if (g->k == k && g->so && !strcmp(g->kname, k->name)) return 0;
  if (g->so) dlclose(g->so);
  g->so = NULL;
  g->k = NULL;
  if (!k->cuda) { snprintf(err, n, "%s has no CUDA module", k->name); return -1; }
  uint64_t h = spec_fnv1a(k->cuda->source, strlen(k->cuda->source), 0xcbf29ce484222325ULL);
  h = spec_fnv1a(ssmc_emu_emu_cuda, strlen(ssmc_emu_emu_cuda), h);
  h = spec_fnv1a(ssmc_hdr_ssmc_kernel, strlen(ssmc_hdr_ssmc_kernel), h);
  h = spec_fnv1a(g->cxx, strlen(g->cxx), h);
  h = spec_fnv1a(g->sm90a ? "sm_90a" : "sm_80", g->sm90a ? 6 : 5, h);
  h = spec_fnv1a(g->tc, strlen(g->tc), h);
  char so[700];
  snprintf(so, sizeof so, "%s/emu-%016llx.so", g->cache, (unsigned long long)h);
  if (access(so, R_OK)) {
    char dir[600], cmd[4200];
    snprintf(dir, sizeof dir, "%s/emu-XXXXXX", g->cache);
    if (!mkdtemp(dir)) { snprintf(err, n, "cannot make a scratch folder in %s", g->cache); return -1; }
    char f_src[700], f_emu[700], f_hdr[700], f_so[700], f_log[700];
    snprintf(f_src, sizeof f_src, "%s/m.cu", dir);
    snprintf(f_emu, sizeof f_emu, "%s/emu_cuda.h", dir);
    snprintf(f_hdr, sizeof f_hdr, "%s/ssmc_kernel.h", dir);
    snprintf(f_so, sizeof f_so, "%s/m.so", dir);
    snprintf(f_log, sizeof f_log, "%s/log", dir);
    int rc = write_file(f_src, k->cuda->source) || write_file(f_emu, ssmc_emu_emu_cuda) || write_file(f_hdr, ssmc_hdr_ssmc_kernel);
    if (!rc) {
      snprintf(cmd, sizeof cmd, "%s " EMU_CXX_FLAGS "%s%s -include '%s' -I '%s' -x c++ '%s' -o '%s' > '%s' 2>&1", g->cxx,
               g->sm90a ? " -DSSMC_EMU_WG" : "", g->tc, f_emu, dir, f_src, f_so, f_log);
      rc = system(cmd) != 0;
      if (rc) {
        char log[1200] = "";
        FILE *f = fopen(f_log, "r");
        if (f) { log[fread(log, 1, sizeof log - 1, f)] = 0; fclose(f); }
        snprintf(err, n, "%s: the emulation of its CUDA module did not compile (%s):\n%s", k->name, g->cxx, log);
      } else if (rename(f_so, so)) rc = 1, snprintf(err, n, "cannot move the compiled emulation to %s", so);
    } else snprintf(err, n, "cannot write into %s", dir);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd)) { /* a scratch folder left behind loses nothing */ }
    if (rc) return -1;
  }
  g->so = dlopen(so, RTLD_NOW | RTLD_LOCAL);
  if (!g->so) { snprintf(err, n, "dlopen %s: %s", so, dlerror()); return -1; }
  g->launch = (emu_launch_fn)dlsym(g->so, "ssmc_emu_launch");
  if (!g->launch) { snprintf(err, n, "%s has no ssmc_emu_launch", so); return -1; }
  g->k = k;
  snprintf(g->kname, sizeof g->kname, "%s", k->name);
  return 0;
}

/* One stage on its grid; sig as ssmc_emu_launch's. */
static int run_stage(chk_emu *g, const ssmc_kernel *k, const ssmc_cuda_stage *st, int sig, int n_seqs, int h_v,
                     int64_t slots, void **params, char *err, size_t n) {
  void *fn = dlsym(g->so, st->entry);
  if (!fn) { snprintf(err, n, "%s: no entry %s", k->name, st->entry); return -1; }
  uint32_t grid[3];
  ssmc_cuda_grid(k, st, n_seqs, h_v, slots, grid);
  if (!grid[0]) return 0;
  const unsigned gd[3] = {grid[0], grid[1], grid[2]};
  const int rc = g->launch(fn, sig, gd, st->threads, params);
  if (rc == -2) { snprintf(err, n, "%s: %s deadlocks (a barrier not reached by every thread of a block)", k->name, st->entry); return -1; }
  if (rc) { snprintf(err, n, "%s: cannot run %s (block of %d threads)", k->name, st->entry, st->threads); return -1; }
  return 0;
}

static void *poisoned(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  if (p) memset(p, 0xff, bytes);
  return p;
}

/* The stages of forward variant `variant` (RT_FWD_*) of kd (its table as the emulated device runs it), as the runtime
 * launches them (rt_cuda_fwd_variant; keep: rt_cuda_fwd_save's) */
static int fwd_stages(chk_emu *g, const ssmc_kernel *kd, int variant, int keep, ssmc_fwd_args *d, float *ws, char *err,
                      size_t n) {
  const int64_t slots = ssmc_chunk_slots(kd, d);
  ssmc_bwd_args none = {0}; /* a kept forward's backward stages (saved_lead) read none of it */
  void *params[] = {d, &ws}, *bparams[] = {d, &none, &ws};
  const ssmc_cuda_stage *st[SSMC_MAX_STAGES + 1];
  const int ns = rt_fwd_plan(kd, d, variant, keep, EMU_SM_COUNT, st);
  if (ns < 0) {
    snprintf(err, n, "%s: %s", kd->name, rt_fwd_plan_why(ns));
    return -1;
  }
  int rc = 0;
  for (int i = 0; i < ns && !rc; i++) {
    const int bwd = st[i] >= kd->cuda->bwd && st[i] < kd->cuda->bwd + kd->cuda->n_bwd;
    rc = run_stage(g, kd, st[i], bwd, ssmc_cuda_items(st[i], d), d->h_v, slots, bwd ? bparams : params, err, n);
  }
  return rc;
}

/* k with its CUDA table as the emulated device runs it (ssmc_cuda_for_device: cd) into kd */
static void device_kernel(const chk_emu *g, const ssmc_kernel *k, ssmc_cuda_kernel *cd, ssmc_kernel *kd) {
  ssmc_cuda_for_device(k->cuda, g->sm90a ? 9 : 8, cd);
  *kd = *k;
  kd->cuda = cd;
}

static int emu_fwd(void *ctx, const ssmc_kernel *k, const ssmc_fwd_args *a, int64_t t_total, char *err, size_t n) {
  chk_emu *g = ctx;
  if (ensure_module(g, k, err, n)) return -1;
  ssmc_fwd_args d = *a;
  d.t_total = t_total;
  ssmc_cuda_kernel cd;
  ssmc_kernel kd;
  device_kernel(g, k, &cd, &kd);
  const ssmc_cuda_kernel *c = &cd;
  size_t esz = k->dtype == SSMC_F32 ? 4 : 2;
  memset(d.out, 0xff, (size_t)t_total * a->h_v * k->V * esz);
  for (int i = 0; i < k->n_aux; i++)
    if (d.aux_out[i]) memset(d.aux_out[i], 0xff, (size_t)t_total * a->h_v * k->K * 4);
  for (int i = 0; i < k->n_states; i++)
    if (d.state_out[i] && d.state_out[i] != d.state_in[i]) memset(d.state_out[i], 0xff, (size_t)a->n_seqs * a->h_v * k->state_size[i] * 4);
  float *ws = poisoned(rt_cuda_fwd_ws_bytes(k, &d));
  if (!ws) { snprintf(err, n, "out of memory"); return -1; }
  const int rc = fwd_stages(g, &kd, g->fwd_index < 0 ? RT_FWD_AUTO : rt_fwd_variant_at(c, g->fwd_index), 0, &d, ws, err, n);
  free(ws);
  return rc;
}

static int emu_decode(void *ctx, const ssmc_kernel *k, const ssmc_decode_args *a, int n_slots, char *err, size_t n) {
  chk_emu *g = ctx;
  (void)n_slots;
  if (ensure_module(g, k, err, n)) return -1;
  ssmc_decode_args d = *a;
  const ssmc_cuda_kernel *c = k->cuda;
  size_t esz = k->dtype == SSMC_F32 ? 4 : 2;
  memset(d.out, 0xff, (size_t)a->n_seqs * a->h_v * k->V * esz);
  const ssmc_cuda_stage *st = g->decode_variant == RT_DECODE_LARGE   ? &c->decode_large
                              : g->decode_variant == RT_DECODE_SMALL ? &c->decode
                                                                     : ssmc_cuda_decode_stage(c, a->n_seqs, a->h_v, EMU_SM_COUNT);
  if (!st->entry) { snprintf(err, n, "%s has no decode_large stage", k->name); return -1; }
  void *ws = NULL, *params[] = {&d, &ws};
  return run_stage(g, k, st, 2, a->n_seqs, a->h_v, 0, params, err, n);
}

static int emu_bwd(void *ctx, const ssmc_kernel *k, const ssmc_bwd_args *a, int64_t t_total, void *y, char *err, size_t n) {
  chk_emu *g = ctx;
  if (ensure_module(g, k, err, n)) return -1;
  ssmc_bwd_args b = *a;
  b.t_total = t_total;
  for (int i = 0; i < k->n_aux; i++) b.aux_in[i] = NULL; /* recomputed by the stages */
  for (int i = 0; i < k->n_inputs; i++)
    if (b.din[i])
      memset(b.din[i], 0xff, (size_t)t_total * (ssmc_input_qk_heads(k, i) ? a->h_qk : a->h_v) * ssmc_input_len(k, i) * 4);
  for (int i = 0; i < k->n_states; i++)
    if (b.dstate_in[i]) memset(b.dstate_in[i], 0xff, (size_t)a->n_seqs * a->h_v * k->state_size[i] * 4);
  float *ws = poisoned(rt_cuda_bwd_ws_bytes(k, &b));
  if (!ws) { snprintf(err, n, "out of memory"); return -1; }
  ssmc_fwd_args f = rt_cuda_bwd_fwd_args(k, &b, ws);
  ssmc_cuda_kernel cd;
  ssmc_kernel kd;
  device_kernel(g, k, &cd, &kd);
  const ssmc_cuda_kernel *c = &cd; /* the stages as the emulated device runs them (its sm_90a forms) */
  int fv = RT_FWD_NONE, bv = RT_BWD_AUTO, rc = 0;
  if (g->bwd_run >= 0) rt_bwd_run_at(&cd, g->bwd_run, &fv, &bv);
  /* a kept forward (rt_cuda_fwd_save): the forward of the same inputs into this workspace first, the fused slot's keep
   * form where the module keeps it, the final states where the backward's recomputation puts them (f's), the output
   * poisoned */
  b.fwd_saved = fv != RT_FWD_NONE;
  const int saved = b.fwd_saved ? c->bwd_saved : 0;
  if (b.fwd_saved) {
    ssmc_fwd_args s = f;
    const size_t yb = (size_t)t_total * a->h_v * k->V * (k->dtype == SSMC_F32 ? 4 : 2);
    s.out = poisoned(yb);
    rc = s.out ? fwd_stages(g, &kd, fv, saved > 0, &s, ws, err, n) : (snprintf(err, n, "out of memory"), -1);
    if (!rc && y) memcpy(y, s.out, yb);
    free(s.out);
  }
  const int64_t slots = ssmc_chunk_slots(k, &f);
  void *fparams[] = {&f, &ws}, *bparams[] = {&f, &b, &ws};
  const int narrow = bv == RT_BWD_NARROW || (bv == RT_BWD_AUTO && ssmc_cuda_bwd_narrow(c, a->n_seqs, a->h_v, k->V, EMU_SM_COUNT));
  for (int i = 0; i < (saved ? 0 : c->bwd_fwd) && !rc; i++)
    if (ssmc_cuda_stage_runs(&c->fwd[i], narrow)) rc = run_stage(g, k, &c->fwd[i], 0, f.n_seqs, f.h_v, slots, fparams, err, n);
  for (int i = saved; i < c->n_bwd && !rc; i++)
    if (ssmc_cuda_stage_runs_for(&c->bwd[i], narrow, f.h_qk, f.h_v)) rc = run_stage(g, k, &c->bwd[i], 1, f.n_seqs, f.h_v, slots, bparams, err, n);
  free(ws);
  return rc;
}

static int emu_decode_variants(void *ctx, const ssmc_kernel *k) { (void)ctx; return k->cuda && k->cuda->decode_large.entry ? 2 : 1; }
static void emu_set_decode_variant(void *ctx, int v) {
  ((chk_emu *)ctx)->decode_variant = v < 0 ? RT_DECODE_AUTO : v ? RT_DECODE_LARGE : RT_DECODE_SMALL;
}
static int emu_fwd_variants(void *ctx, const ssmc_kernel *k) {
  ssmc_cuda_kernel cd;
  ssmc_kernel kd;
  if (!k->cuda) return 1;
  device_kernel(ctx, k, &cd, &kd);
  return rt_fwd_variant_count(&cd);
}
static void emu_set_fwd_variant(void *ctx, int v) { ((chk_emu *)ctx)->fwd_index = v < 0 ? -1 : v; }
static int emu_bwd_variants(void *ctx, const ssmc_kernel *k) {
  ssmc_cuda_kernel cd;
  ssmc_kernel kd;
  if (!k->cuda) return 1;
  device_kernel(ctx, k, &cd, &kd);
  return rt_bwd_run_count(&cd);
}
static void emu_set_bwd_variant(void *ctx, int v) { ((chk_emu *)ctx)->bwd_run = v < 0 ? -1 : v; }

chk_emu *chk_emu_open(const char *cache_dir, char *err, size_t n) {
  const char *cxx = getenv("CXX"), *arch = getenv("SSMC_EMU_ARCH"), *tc = getenv("SSMC_EMU_TC");
  if (!cxx || !*cxx) cxx = "c++";
  if (arch && *arch && strcmp(arch, "sm_80") && strcmp(arch, "sm_90a")) {
    snprintf(err, n, "SSMC_EMU_ARCH=%s: the emulation runs sm_80 or sm_90a", arch);
    return NULL;
  }
  if (tc && *tc && !(tc[0] >= '0' && tc[0] <= '8' && !tc[1])) {
    snprintf(err, n, "SSMC_EMU_TC=%s: the bits kept below fp32's significand, 0 to 8", tc);
    return NULL;
  }
  char cmd[400];
  snprintf(cmd, sizeof cmd, "%s --version > /dev/null 2>&1", cxx);
  if (system(cmd)) { snprintf(err, n, "no C++ compiler runs ('%s'; set CXX)", cxx); return NULL; }
  rt_mkdirs(cache_dir);
  if (access(cache_dir, W_OK)) { snprintf(err, n, "cannot write into %s", cache_dir); return NULL; }
  chk_emu *g = calloc(1, sizeof *g);
  snprintf(g->cache, sizeof g->cache, "%s", cache_dir);
  snprintf(g->cxx, sizeof g->cxx, "%s", cxx);
  g->sm90a = arch && !strcmp(arch, "sm_90a");
  if (tc && *tc) snprintf(g->tc, sizeof g->tc, " -DSSMC_EMU_TC=%c", tc[0]);
  g->fwd_index = -1;
  g->decode_variant = RT_DECODE_AUTO;
  g->bwd_run = -1;
  g->be = (chk_backend){"cuda-emu", emu_fwd, emu_decode, g, emu_bwd, emu_decode_variants, emu_set_decode_variant,
                        emu_fwd_variants, emu_set_fwd_variant, g->sm90a ? 9 : 8, emu_bwd_variants, emu_set_bwd_variant};
  return g;
}

void chk_emu_close(chk_emu *g) {
  if (!g) return;
  if (g->so) dlclose(g->so);
  free(g);
}

const chk_backend *chk_emu_backend(chk_emu *g) { return &g->be; }
