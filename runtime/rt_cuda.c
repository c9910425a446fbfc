/* runtime stage: the CUDA backend (see rt_cuda.h). */
#include "rt_cuda.h"
#include <assert.h>
#include <dlfcn.h>
#include <errno.h>
#include <glob.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern const char ssmc_hdr_ssmc_kernel[]; /* runtime/ssmc_kernel.h, embedded at build time */

static void set_err(char *err, size_t n, const char *fmt, ...) {
  if (!err || !n) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, n, fmt, ap);
  va_end(ap);
}

static uint64_t fnv(const void *p, size_t n, uint64_t h) {
  const unsigned char *s = p;
  for (size_t i = 0; i < n; i++) { h ^= s[i]; h *= 0x100000001b3ULL; }
  return h;
}

/* ------------------------------------------------------------ NVRTC */

typedef int nvrtcResult;
typedef struct _nvrtcProgram *nvrtcProgram;
static struct {
  void *lib;
  int major, minor;
  char version[32];
  const char *(*GetErrorString)(nvrtcResult);
  nvrtcResult (*Version)(int *, int *);
  nvrtcResult (*CreateProgram)(nvrtcProgram *, const char *, const char *, int, const char *const *,
                               const char *const *);
  nvrtcResult (*CompileProgram)(nvrtcProgram, int, const char *const *);
  nvrtcResult (*GetProgramLogSize)(nvrtcProgram, size_t *);
  nvrtcResult (*GetProgramLog)(nvrtcProgram, char *);
  nvrtcResult (*GetCUBINSize)(nvrtcProgram, size_t *);
  nvrtcResult (*GetCUBIN)(nvrtcProgram, char *);
  nvrtcResult (*DestroyProgram)(nvrtcProgram *);
} nv;

static void *open_first(const char *const *names, char *tried, size_t n) {
  for (int i = 0; names[i]; i++) {
    void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (h) return h;
    size_t l = strlen(tried);
    snprintf(tried + l, n - l, "%s%s", l ? ", " : "", names[i]);
  }
  return NULL;
}

/* NVRTC from NVIDIA's PyPI wheels (nvidia-cuda-nvrtc) or a toolkit folder. */
static void *open_nvrtc_glob(char *tried, size_t n) {
  static const char *const pats[] = {
    "/usr/local/cuda/lib64/libnvrtc.so*",
    "/usr/local/cuda-*/lib64/libnvrtc.so*",
    "/usr/local/lib/python3*/dist-packages/nvidia/*/lib/libnvrtc.so*",
    "/usr/lib/python3/dist-packages/nvidia/*/lib/libnvrtc.so*",
    "/opt/ssmc-nvrtc/nvidia/*/lib/libnvrtc.so*",
    NULL,
  };
  for (int i = 0; pats[i]; i++) {
    glob_t g;
    if (glob(pats[i], 0, NULL, &g) == 0) {
      for (size_t j = 0; j < g.gl_pathc; j++) {
        if (strstr(g.gl_pathv[j], "builtins") || strstr(g.gl_pathv[j], "alt")) continue;
        void *h = dlopen(g.gl_pathv[j], RTLD_NOW | RTLD_LOCAL);
        if (h) { globfree(&g); return h; }
      }
      globfree(&g);
    }
    size_t l = strlen(tried);
    snprintf(tried + l, n - l, ", %s", pats[i]);
  }
  return NULL;
}

int rt_nvrtc_open(char *err, size_t errlen) {
  if (nv.lib) return 0;
  char tried[2048] = "";
  const char *env = getenv("SSMC_NVRTC");
  void *h = NULL;
  if (env && *env) {
    h = dlopen(env, RTLD_NOW | RTLD_LOCAL);
    if (!h) { set_err(err, errlen, "SSMC_NVRTC=%s cannot be opened: %s", env, dlerror()); return -1; }
  } else {
    static const char *const names[] = {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", NULL};
    h = open_first(names, tried, sizeof tried);
    if (!h) h = open_nvrtc_glob(tried, sizeof tried);
  }
  if (!h) {
    set_err(err, errlen,
            "NVRTC (libnvrtc.so) was not found (tried %s); install the CUDA toolkit, or `pip install "
            "nvidia-cuda-nvrtc`, or set SSMC_NVRTC to the library's path",
            tried);
    return -1;
  }
#define SYM(field, name)                                                                     \
  if (!(*(void **)&nv.field = dlsym(h, name))) {                                             \
    set_err(err, errlen, "NVRTC library lacks %s", name);                                    \
    dlclose(h);                                                                              \
    return -1;                                                                               \
  }
  SYM(GetErrorString, "nvrtcGetErrorString");
  SYM(Version, "nvrtcVersion");
  SYM(CreateProgram, "nvrtcCreateProgram");
  SYM(CompileProgram, "nvrtcCompileProgram");
  SYM(GetProgramLogSize, "nvrtcGetProgramLogSize");
  SYM(GetProgramLog, "nvrtcGetProgramLog");
  SYM(GetCUBINSize, "nvrtcGetCUBINSize");
  SYM(GetCUBIN, "nvrtcGetCUBIN");
  SYM(DestroyProgram, "nvrtcDestroyProgram");
#undef SYM
  nv.Version(&nv.major, &nv.minor);
  snprintf(nv.version, sizeof nv.version, "NVRTC %d.%d", nv.major, nv.minor);
  nv.lib = h;
  return 0;
}

const char *rt_nvrtc_version(void) { return nv.lib ? nv.version : "NVRTC (not loaded)"; }

static char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (b && fread(b, 1, (size_t)n, f) != (size_t)n) { free(b); b = NULL; }
  fclose(f);
  if (b) { b[n] = 0; if (len) *len = (size_t)n; }
  return b;
}

void rt_mkdirs(const char *dir) {
  char tmp[1024];
  snprintf(tmp, sizeof tmp, "%s", dir);
  for (char *p = tmp + 1; *p; p++)
    if (*p == '/') { *p = 0; mkdir(tmp, 0777); *p = '/'; }
  mkdir(tmp, 0777);
}

/* Best effort: a cache that cannot be written just means the next run compiles again. */
static void write_atomic(const char *path, const void *data, size_t len) {
  char tmp[1100];
  snprintf(tmp, sizeof tmp, "%s.tmp-%d", path, (int)getpid());
  FILE *f = fopen(tmp, "wb");
  if (!f) return;
  size_t w = fwrite(data, 1, len, f);
  if (fclose(f) == 0 && w == len && rename(tmp, path) == 0) return;
  unlink(tmp);
}

int rt_nvrtc_compile(const char *src, const char *name, const char *arch, const char *cache_dir, rt_nvrtc_out *out,
                     char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  if (rt_nvrtc_open(err, errlen)) return -1;
  char archopt[64];
  snprintf(archopt, sizeof archopt, "--gpu-architecture=%s", arch);
  /* SSMC_NVRTC_LINEINFO=1: source lines in the cubin, for profilers (ncu's source view); part of the cache key */
  const char *li = getenv("SSMC_NVRTC_LINEINFO");
  const char *opts[] = {archopt, "--std=c++17", "--ptxas-options=-v", "-default-device", "--extra-device-vectorization", "-lineinfo"};
  int nopt = (int)(sizeof opts / sizeof *opts) - !(li && strcmp(li, "1") == 0);
  uint64_t h = fnv(src, strlen(src), 0xcbf29ce484222325ULL);
  h = fnv(ssmc_hdr_ssmc_kernel, strlen(ssmc_hdr_ssmc_kernel), h);
  for (int i = 0; i < nopt; i++) h = fnv(opts[i], strlen(opts[i]) + 1, h);
  h = fnv(nv.version, strlen(nv.version), h);
  char cpath[1024] = "", lpath[1040] = "";
  if (cache_dir) {
    snprintf(cpath, sizeof cpath, "%s/%016llx.cubin", cache_dir, (unsigned long long)h);
    snprintf(lpath, sizeof lpath, "%s/%016llx.log", cache_dir, (unsigned long long)h);
    size_t n;
    char *cubin = read_all(cpath, &n), *log = cubin ? read_all(lpath, NULL) : NULL;
    if (cubin && log) {
      out->cubin = cubin;
      out->cubin_len = n;
      out->log = log;
      out->from_cache = 1;
      return 0;
    }
    free(cubin);
    free(log);
  }
  nvrtcProgram prog;
  const char *hdr[] = {ssmc_hdr_ssmc_kernel}, *hname[] = {"ssmc_kernel.h"};
  nvrtcResult r = nv.CreateProgram(&prog, src, name, 1, hdr, hname);
  if (r) { set_err(err, errlen, "nvrtcCreateProgram: %s", nv.GetErrorString(r)); return -1; }
  r = nv.CompileProgram(prog, nopt, opts);
  size_t ln = 0;
  nv.GetProgramLogSize(prog, &ln);
  out->log = calloc(ln + 1, 1);
  nv.GetProgramLog(prog, out->log);
  if (r) {
    nv.DestroyProgram(&prog);
    set_err(err, errlen, "NVRTC could not compile %s for %s", name, arch);
    return 1;
  }
  nv.GetCUBINSize(prog, &out->cubin_len);
  out->cubin = malloc(out->cubin_len);
  nv.GetCUBIN(prog, out->cubin);
  nv.DestroyProgram(&prog);
  if (cache_dir) {
    rt_mkdirs(cache_dir);
    write_atomic(lpath, out->log, strlen(out->log));
    write_atomic(cpath, out->cubin, out->cubin_len);
  }
  return 0;
}

void rt_nvrtc_out_free(rt_nvrtc_out *o) {
  free(o->cubin);
  free(o->log);
  memset(o, 0, sizeof *o);
}

/* ptxas -v prints, per entry function:
 *   ptxas info    : Compiling entry function 'E' for 'sm_90a'
 *   ptxas info    : Function properties for E
 *       S bytes stack frame, A bytes spill stores, B bytes spill loads
 *   ptxas info    : Used R registers, [used N barriers, ][M bytes smem, ]...
 * and, anywhere, "ptxas info    : (C7520) Potential Performance Loss: wgmma.mma_async instructions are serialized
 * due to ... in the function 'E'". */
void rt_ptxas_parse(const char *log, const char *entry, rt_ptxas_info *o) {
  memset(o, 0, sizeof *o);
  char key[300];
  snprintf(key, sizeof key, "in the function '%s'", entry);
  for (const char *s = log; s && (s = strstr(s, "wgmma.mma_async instructions are serialized")); s++) {
    const char *nl = strchr(s, '\n'), *f = strstr(s, key);
    if (f && (!nl || f < nl)) o->wgmma_serialized = 1;
  }
  snprintf(key, sizeof key, "Function properties for %s\n", entry);
  const char *p = log ? strstr(log, key) : NULL;
  if (!p) return;
  p += strlen(key);
  const char *end = strstr(p, "ptxas info    : Compiling entry");
  /* the counts line starts with spaces, or (newer ptxas) with "ptxas         ." */
  const char *sf = strstr(p, " bytes stack frame");
  if (sf && (!end || sf < end)) {
    const char *b = sf;
    while (b > p && b[-1] >= '0' && b[-1] <= '9') b--;
    sscanf(b, "%d bytes stack frame, %d bytes spill stores, %d bytes spill loads", &o->stack, &o->spill_stores,
           &o->spill_loads);
  }
  const char *u = strstr(p, "Used ");
  if (!u || (end && u > end)) return;
  sscanf(u, "Used %d registers", &o->regs);
  const char *nl = strchr(u, '\n');
  const char *sm = strstr(u, " bytes smem");
  if (sm && (!nl || sm < nl)) {
    const char *b = sm;
    while (b > u && b[-1] != ' ') b--;
    o->smem_static = atoi(b);
  }
  o->found = 1;
}

/* ------------------------------------------------------------ driver */

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
struct rt_cuda {
  void *lib;
  void *ctx;
  int dev;
  rt_cuda_info info;
  char err[512];
  CUresult (*Init)(unsigned);
  CUresult (*DeviceGet)(int *, int);
  CUresult (*DeviceGetName)(char *, int, int);
  CUresult (*DeviceGetAttribute)(int *, int, int);
  CUresult (*PrimaryCtxRetain)(void **, int);
  CUresult (*PrimaryCtxRelease)(int);
  CUresult (*CtxSetCurrent)(void *);
  CUresult (*CtxSynchronize)(void);
  CUresult (*GetErrorString)(CUresult, const char **);
  CUresult (*MemAlloc)(CUdeviceptr *, size_t);
  CUresult (*MemFree)(CUdeviceptr);
  CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*MemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);
  CUresult (*MemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, void *);
  CUresult (*MemsetD8)(CUdeviceptr, unsigned char, size_t);
  CUresult (*ModuleLoadData)(void **, const void *);
  CUresult (*ModuleUnload)(void *);
  CUresult (*ModuleGetFunction)(void **, void *, const char *);
  CUresult (*FuncSetAttribute)(void *, int, int);
  CUresult (*LaunchKernel)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *,
                           void **, void **);
  CUresult (*EventCreate)(void **, unsigned);
  CUresult (*EventRecord)(void *, void *);
  CUresult (*EventSynchronize)(void *);
  CUresult (*EventElapsedTime)(float *, void *, void *);
  CUresult (*EventDestroy)(void *);
};

static int drv_fail(rt_cuda *c, CUresult r, const char *what) {
  const char *s = NULL;
  if (c->GetErrorString) c->GetErrorString(r, &s);
  snprintf(c->err, sizeof c->err, "%s: CUDA error %d (%s)", what, r, s ? s : "unknown");
  return -1;
}
#define CK(c, call, what) do { CUresult r_ = (call); if (r_) return drv_fail((c), r_, (what)); } while (0)

rt_cuda *rt_cuda_open(char *err, size_t errlen) {
  rt_cuda *c = calloc(1, sizeof *c);
  c->lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!c->lib) c->lib = dlopen("libcuda.so", RTLD_NOW | RTLD_LOCAL);
  if (!c->lib) {
    set_err(err, errlen, "the CUDA driver (libcuda.so.1) was not found: --backend cuda needs an NVIDIA GPU and its driver");
    free(c);
    return NULL;
  }
#define SYM(field, name)                                                          \
  if (!(*(void **)&c->field = dlsym(c->lib, name))) {                            \
    set_err(err, errlen, "the CUDA driver lacks %s", name);                       \
    rt_cuda_close(c);                                                             \
    return NULL;                                                                  \
  }
  SYM(Init, "cuInit");
  SYM(DeviceGet, "cuDeviceGet");
  SYM(DeviceGetName, "cuDeviceGetName");
  SYM(DeviceGetAttribute, "cuDeviceGetAttribute");
  SYM(PrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  SYM(PrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
  SYM(CtxSetCurrent, "cuCtxSetCurrent");
  SYM(CtxSynchronize, "cuCtxSynchronize");
  SYM(GetErrorString, "cuGetErrorString");
  SYM(MemAlloc, "cuMemAlloc_v2");
  SYM(MemFree, "cuMemFree_v2");
  SYM(MemcpyHtoD, "cuMemcpyHtoD_v2");
  SYM(MemcpyDtoH, "cuMemcpyDtoH_v2");
  SYM(MemcpyDtoD, "cuMemcpyDtoD_v2");
  SYM(MemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2");
  SYM(MemsetD8, "cuMemsetD8_v2");
  SYM(ModuleLoadData, "cuModuleLoadData");
  SYM(ModuleUnload, "cuModuleUnload");
  SYM(ModuleGetFunction, "cuModuleGetFunction");
  SYM(FuncSetAttribute, "cuFuncSetAttribute");
  SYM(LaunchKernel, "cuLaunchKernel");
  SYM(EventCreate, "cuEventCreate");
  SYM(EventRecord, "cuEventRecord");
  SYM(EventSynchronize, "cuEventSynchronize");
  SYM(EventElapsedTime, "cuEventElapsedTime");
  SYM(EventDestroy, "cuEventDestroy_v2");
#undef SYM
  CUresult r = c->Init(0);
  if (!r) r = c->DeviceGet(&c->dev, 0);
  if (!r) r = c->PrimaryCtxRetain(&c->ctx, c->dev);
  if (!r) r = c->CtxSetCurrent(c->ctx);
  if (r) {
    drv_fail(c, r, "initializing CUDA device 0");
    set_err(err, errlen, "%s", c->err);
    rt_cuda_close(c);
    return NULL;
  }
  rt_cuda_info *i = &c->info;
  c->DeviceGetName(i->name, sizeof i->name, c->dev);
  c->DeviceGetAttribute(&i->sm_count, 16, c->dev);   /* MULTIPROCESSOR_COUNT */
  c->DeviceGetAttribute(&i->cc_major, 75, c->dev);   /* COMPUTE_CAPABILITY_MAJOR */
  c->DeviceGetAttribute(&i->cc_minor, 76, c->dev);
  c->DeviceGetAttribute(&i->smem_optin, 97, c->dev); /* MAX_SHARED_MEMORY_PER_BLOCK_OPTIN */
  c->DeviceGetAttribute(&i->l2_bytes, 38, c->dev);   /* L2_CACHE_SIZE */
  snprintf(i->arch, sizeof i->arch, "sm_%d%d%s", i->cc_major, i->cc_minor, i->cc_major == 9 ? "a" : "");
  if (rt_nvrtc_open(err, errlen)) { rt_cuda_close(c); return NULL; }
  return c;
}

void rt_cuda_close(rt_cuda *c) {
  if (!c) return;
  if (c->ctx && c->PrimaryCtxRelease) c->PrimaryCtxRelease(c->dev);
  if (c->lib) dlclose(c->lib);
  free(c);
}

const rt_cuda_info *rt_cuda_device(const rt_cuda *c) { return &c->info; }
const char *rt_cuda_error(rt_cuda *c) { return c->err; }

void *rt_cuda_alloc(rt_cuda *c, size_t bytes) {
  CUdeviceptr p = 0;
  CUresult r = c->MemAlloc(&p, bytes ? bytes : 16);
  if (r) { drv_fail(c, r, "cuMemAlloc"); return NULL; }
  return (void *)(uintptr_t)p;
}
void rt_cuda_free(rt_cuda *c, void *p) { if (p) c->MemFree((CUdeviceptr)(uintptr_t)p); }
int rt_cuda_h2d(rt_cuda *c, void *d, const void *s, size_t n) {
  CK(c, c->MemcpyHtoD((CUdeviceptr)(uintptr_t)d, s, n), "cuMemcpyHtoD");
  return 0;
}
int rt_cuda_d2h(rt_cuda *c, void *d, const void *s, size_t n) {
  CK(c, c->MemcpyDtoH(d, (CUdeviceptr)(uintptr_t)s, n), "cuMemcpyDtoH");
  return 0;
}
int rt_cuda_d2d(rt_cuda *c, void *d, const void *s, size_t n) {
  CK(c, c->MemcpyDtoD((CUdeviceptr)(uintptr_t)d, (CUdeviceptr)(uintptr_t)s, n), "cuMemcpyDtoD");
  return 0;
}
int rt_cuda_memset(rt_cuda *c, void *d, unsigned char v, size_t n) {
  CK(c, c->MemsetD8((CUdeviceptr)(uintptr_t)d, v, n), "cuMemsetD8");
  return 0;
}
int rt_cuda_sync(rt_cuda *c) {
  CK(c, c->CtxSynchronize(), "kernel execution");
  return 0;
}

void *rt_cuda_event(rt_cuda *c) {
  void *e = NULL;
  if (c->EventCreate(&e, 0)) return NULL;
  return e;
}
int rt_cuda_record(rt_cuda *c, void *ev, void *stream) {
  CK(c, c->EventRecord(ev, stream), "cuEventRecord");
  return 0;
}
float rt_cuda_elapsed(rt_cuda *c, void *a, void *b) {
  float ms = -1.0f;
  c->EventSynchronize(b);
  c->EventElapsedTime(&ms, a, b);
  return ms;
}
void rt_cuda_event_free(rt_cuda *c, void *ev) { if (ev) c->EventDestroy(ev); }

/* ------------------------------------------------------------ kernels */

/* the table's stages outside fwd[] and bwd[], one list for loading and launching them: the decode stages, the fused
 * slot, then SSMC_CUDA_FORMS (but fused_sm90_keep: the table a device runs has it as fused_keep where it runs; sm_80
 * could not give it its shared memory) */
#define RT_FORM(f) offsetof(ssmc_cuda_kernel, f),
static const size_t FORMS[] = {offsetof(ssmc_cuda_kernel, decode), offsetof(ssmc_cuda_kernel, decode_large),
                               offsetof(ssmc_cuda_kernel, fused), SSMC_CUDA_FORMS(RT_FORM)};
#undef RT_FORM
enum { FORM_DECODE = 0, FORM_DECODE_LARGE = 1, NFORMS = sizeof FORMS / sizeof *FORMS };
struct rt_cuda_mod {
  const ssmc_kernel *k; /* &kdev: the kernel as this device runs it (ssmc_cuda_for_device) */
  ssmc_kernel kdev;
  ssmc_cuda_kernel cdev;
  void *mod;
  void *fwd[SSMC_MAX_STAGES], *bwd[SSMC_MAX_BWD_STAGES];
  void *form[NFORMS]; /* the functions of the table's other stages, FORMS' order (NULL: an entry the module lacks) */
};
static const ssmc_cuda_stage *form_stage(const ssmc_cuda_kernel *c, int i) {
  return (const ssmc_cuda_stage *)((const char *)c + FORMS[i]);
}
/* the function of stage st of the table m runs */
static void *stage_fn(const rt_cuda_mod *m, const ssmc_cuda_stage *st) {
  const ssmc_cuda_kernel *ck = m->k->cuda;
  if (st >= ck->bwd && st < ck->bwd + ck->n_bwd) return m->bwd[st - ck->bwd];
  if (st >= ck->fwd && st < ck->fwd + ck->n_fwd) return m->fwd[st - ck->fwd];
  for (int i = 0; i < NFORMS; i++)
    if (st == form_stage(ck, i)) return m->form[i];
  assert(0 && "a stage outside the module's table");
  return NULL;
}

static int prepare_fn(rt_cuda *c, void *mod, const ssmc_cuda_stage *st, void **fn) {
  CK(c, c->ModuleGetFunction(fn, mod, st->entry), st->entry);
  if (st->smem > 48 * 1024) {
    if (st->smem > c->info.smem_optin) {
      snprintf(c->err, sizeof c->err, "%s needs %d bytes of shared memory; %s allows %d", st->entry, st->smem,
               c->info.name, c->info.smem_optin);
      return -1;
    }
    CK(c, c->FuncSetAttribute(*fn, 8 /* MAX_DYNAMIC_SHARED_SIZE_BYTES */, st->smem), st->entry);
  }
  return 0;
}

/* Compiles src for this device (or takes the cubin from the cache) and loads it; NULL with err set. */
static void *module_from_source(rt_cuda *c, const char *src, const char *name, const char *cache_dir, int *from_cache,
                                char *err, size_t errlen) {
  rt_nvrtc_out o;
  int rc = rt_nvrtc_compile(src, name, c->info.arch, cache_dir, &o, err, errlen);
  if (rc) {
    if (rc > 0) {
      size_t l = strlen(err);
      set_err(err + l, errlen - l, ":\n%.3000s", o.log);
    }
    rt_nvrtc_out_free(&o);
    return NULL;
  }
  if (from_cache) *from_cache = o.from_cache;
  void *mod = NULL;
  CUresult r = c->ModuleLoadData(&mod, o.cubin);
  rt_nvrtc_out_free(&o);
  if (r) {
    drv_fail(c, r, "cuModuleLoadData");
    set_err(err, errlen, "%s", c->err);
    return NULL;
  }
  return mod;
}

rt_cuda_mod *rt_cuda_load(rt_cuda *c, const ssmc_kernel *k, const char *cache_dir, int *from_cache, char *err,
                          size_t errlen) {
  if (!k->cuda) { set_err(err, errlen, "%s has no CUDA module", k->name); return NULL; }
  char name[200];
  snprintf(name, sizeof name, "%s.cu", k->name);
  void *mod = module_from_source(c, k->cuda->source, name, cache_dir, from_cache, err, errlen);
  if (!mod) return NULL;
  rt_cuda_mod *m = calloc(1, sizeof *m);
  ssmc_cuda_for_device(k->cuda, c->info.cc_major, &m->cdev);
  m->kdev = *k;
  m->kdev.cuda = &m->cdev;
  m->k = k = &m->kdev;
  m->mod = mod;
  int bad = 0;
  for (int i = 0; i < k->cuda->n_fwd && !bad; i++) bad = prepare_fn(c, m->mod, &k->cuda->fwd[i], &m->fwd[i]);
  for (int i = 0; i < NFORMS && !bad; i++) /* (decode always) */
    if (i == FORM_DECODE || (form_stage(k->cuda, i)->entry && FORMS[i] != offsetof(ssmc_cuda_kernel, fused_sm90_keep)))
      bad = prepare_fn(c, m->mod, form_stage(k->cuda, i), &m->form[i]);
  for (int i = 0; i < k->cuda->n_bwd && !bad; i++) bad = prepare_fn(c, m->mod, &k->cuda->bwd[i], &m->bwd[i]);
  if (bad) {
    set_err(err, errlen, "%s", c->err);
    rt_cuda_unload(c, m);
    return NULL;
  }
  return m;
}

void rt_cuda_unload(rt_cuda *c, rt_cuda_mod *m) {
  if (!m) return;
  if (m->mod) c->ModuleUnload(m->mod);
  free(m);
}

size_t rt_cuda_fwd_ws_bytes(const ssmc_kernel *k, const ssmc_fwd_args *a) {
  if (!k->cuda) return 0;
  const int64_t tok = ssmc_fwd_tokens(a) * a->h_v * k->cuda->ws_tok_floats;
  const int64_t chunk = ssmc_chunk_slots(k, a) * a->h_v * k->cuda->ws_chunk_floats;
  return (size_t)(tok + chunk) * sizeof(float);
}

static int launch(rt_cuda *c, void *fn, const ssmc_kernel *k, const ssmc_cuda_stage *st, int n_seqs, int h_v,
                  int64_t chunk_slots, void **params, void *stream) {
  uint32_t g[3];
  ssmc_cuda_grid(k, st, n_seqs, h_v, chunk_slots, g);
  if (!g[0]) return 0;
  CK(c, c->LaunchKernel(fn, g[0], g[1], g[2], (unsigned)st->threads, 1, 1, (unsigned)st->smem, stream, params, NULL),
     st->entry);
  return 0;
}

int rt_cuda_fwd_variants(const rt_cuda_mod *m) { return rt_fwd_variant_count(m->k->cuda); }
int rt_cuda_fwd_variant_at(const rt_cuda_mod *m, int v) { return rt_fwd_variant_at(m->k->cuda, v); }

int rt_cuda_fwd_pick(const rt_cuda *c, const rt_cuda_mod *m, const ssmc_fwd_args *a) {
  ssmc_fwd_args arg = *a;
  arg.t_total = ssmc_fwd_tokens(a);
  return rt_fwd_pick(m->k, &arg, c->info.sm_count, 0);
}

int rt_cuda_fwd(rt_cuda *c, rt_cuda_mod *m, const ssmc_fwd_args *a, void *ws, void *stream) {
  return rt_cuda_fwd_variant(c, m, a, RT_FWD_AUTO, ws, stream);
}

/* The stages of forward variant `variant` with the arguments arg (t_total set); keep: the fused slot's keep form. */
static int fwd_launch(rt_cuda *c, rt_cuda_mod *m, ssmc_fwd_args *arg, int variant, int keep, void *ws, void *stream) {
  const int64_t slots = ssmc_chunk_slots(m->k, arg);
  ssmc_bwd_args none = {0}; /* a kept forward's backward stages (saved_lead) read none of it */
  void *params[] = {arg, &ws}, *bparams[] = {arg, &none, &ws};
  const ssmc_cuda_kernel *ck = m->k->cuda;
  const ssmc_cuda_stage *st[SSMC_MAX_STAGES + 1];
  const int n = rt_fwd_plan(m->k, arg, variant, keep, c->info.sm_count, st);
  if (n < 0) {
    snprintf(c->err, sizeof c->err, "%s: %s", m->k->name, rt_fwd_plan_why(n));
    return -1;
  }
  for (int i = 0; i < n; i++) {
    const int bwd = st[i] >= ck->bwd && st[i] < ck->bwd + ck->n_bwd;
    if (launch(c, stage_fn(m, st[i]), m->k, st[i], ssmc_cuda_items(st[i], arg), arg->h_v, slots, bwd ? bparams : params, stream)) return -1;
  }
  return 0;
}

/* a's tokens: an error where the host cannot know them (cu_seqlens without t_total) */
static int fwd_tokens(rt_cuda *c, const rt_cuda_mod *m, const ssmc_fwd_args *a, ssmc_fwd_args *arg) {
  if (a->cu_seqlens && a->t_total <= 0) {
    snprintf(c->err, sizeof c->err, "%s: a forward with cu_seqlens needs t_total (the host cannot read the offsets)",
             m->k->name);
    return -1;
  }
  *arg = *a;
  arg->t_total = ssmc_fwd_tokens(a);
  return 0;
}

int rt_cuda_fwd_variant(rt_cuda *c, rt_cuda_mod *m, const ssmc_fwd_args *a, int variant, void *ws, void *stream) {
  ssmc_fwd_args arg;
  if (fwd_tokens(c, m, a, &arg)) return -1;
  return fwd_launch(c, m, &arg, variant, 0, ws, stream);
}

/* Floats of a backward's workspace before its per-sequence part: the forward's and the backward's
 * per-token and per-chunk-slot parts. */
static int64_t bwd_ws_before_seq(const ssmc_kernel *k, const ssmc_fwd_args *a) {
  const ssmc_cuda_kernel *cu = k->cuda;
  return ssmc_fwd_tokens(a) * a->h_v * (cu->ws_tok_floats + cu->bwd_ws_tok_floats) +
         ssmc_chunk_slots(k, a) * a->h_v * (cu->ws_chunk_floats + cu->bwd_ws_chunk_floats);
}

/* a's final states into the backward's part of the workspace ws, in state order */
static void final_states_in(const ssmc_kernel *k, ssmc_fwd_args *a, float *ws) {
  float *seq = ws + bwd_ws_before_seq(k, a);
  for (int i = 0; i < k->n_states; i++) {
    a->state_out[i] = seq;
    seq += (int64_t)a->n_seqs * a->h_v * k->state_size[i];
  }
}

/* The forward arguments of a backward call: its inputs and initial states; no output, the final states
 * into the backward's part of the workspace (fws: the forward's part). */
ssmc_fwd_args rt_cuda_bwd_fwd_args(const ssmc_kernel *k, const ssmc_bwd_args *g, float *ws) {
  ssmc_fwd_args a = {0};
  a.n_seqs = g->n_seqs;
  a.h_qk = g->h_qk;
  a.h_v = g->h_v;
  a.cu_seqlens = g->cu_seqlens;
  a.t_len = g->t_len;
  a.t_total = g->t_total > 0 ? g->t_total : (int64_t)g->n_seqs * g->t_len;
  a.iters = g->iters;
  for (int i = 0; i < k->n_inputs; i++) a.in[i] = g->in[i];
  for (int i = 0; i < k->n_states; i++) a.state_in[i] = g->state_in[i];
  if (ws) final_states_in(k, &a, ws);
  return a;
}

int rt_cuda_fwd_save(rt_cuda *c, rt_cuda_mod *m, const ssmc_fwd_args *a, int variant, void *bws, void *stream) {
  const ssmc_kernel *k = m->k;
  ssmc_fwd_args arg;
  if (fwd_tokens(c, m, a, &arg)) return -1;
  if (!k->cuda->bwd_saved) return fwd_launch(c, m, &arg, variant, 0, bws, stream);
  /* the final states into the backward's part of bws (where its recomputation puts them), then to the caller's */
  final_states_in(k, &arg, bws);
  if (fwd_launch(c, m, &arg, variant, 1, bws, stream)) return -1;
  for (int i = 0; i < k->n_states; i++)
    if (a->state_out[i])
      CK(c, c->MemcpyDtoDAsync((CUdeviceptr)(uintptr_t)a->state_out[i], (CUdeviceptr)(uintptr_t)arg.state_out[i],
                               (size_t)arg.n_seqs * arg.h_v * (size_t)k->state_size[i] * sizeof(float), stream),
         "cuMemcpyDtoDAsync");
  return 0;
}

size_t rt_cuda_bwd_ws_bytes(const ssmc_kernel *k, const ssmc_bwd_args *g) {
  if (!k->cuda || !k->cuda->n_bwd) return 0;
  const ssmc_fwd_args a = rt_cuda_bwd_fwd_args(k, g, NULL);
  const ssmc_cuda_kernel *cu = k->cuda;
  int64_t n = bwd_ws_before_seq(k, &a) + (int64_t)a.n_seqs * a.h_v * cu->bwd_ws_seq_floats;
  if (a.h_v > a.h_qk) n += ssmc_fwd_tokens(&a) * a.h_v * cu->bwd_ws_qk_floats;
  return (size_t)n * sizeof(float);
}

int rt_cuda_bwd_variants(const rt_cuda_mod *m) { return rt_bwd_variant_count(m->k->cuda); }
int rt_cuda_bwd_runs(const rt_cuda_mod *m) { return rt_bwd_run_count(m->k->cuda); }

int rt_cuda_bwd_pick(const rt_cuda *c, const rt_cuda_mod *m, int n_seqs, int h_v) {
  return ssmc_cuda_bwd_narrow(m->k->cuda, n_seqs, h_v, m->k->V, c->info.sm_count) ? RT_BWD_NARROW : RT_BWD_WIDE;
}

int rt_cuda_bwd(rt_cuda *c, rt_cuda_mod *m, const ssmc_bwd_args *g, void *ws, void *stream) {
  return rt_cuda_bwd_variant(c, m, g, RT_BWD_AUTO, ws, stream);
}

int rt_cuda_bwd_variant(rt_cuda *c, rt_cuda_mod *m, const ssmc_bwd_args *g, int variant, void *ws, void *stream) {
  const ssmc_kernel *k = m->k;
  if (!k->cuda->n_bwd) {
    snprintf(c->err, sizeof c->err, "%s has no CUDA backward (its module declares no backward stages)", k->name);
    return -1;
  }
  if (g->cu_seqlens && g->t_total <= 0) {
    snprintf(c->err, sizeof c->err, "%s: a backward with cu_seqlens needs t_total (the host cannot read the offsets)",
             k->name);
    return -1;
  }
  ssmc_fwd_args a = rt_cuda_bwd_fwd_args(k, g, ws);
  ssmc_bwd_args b = *g;
  b.t_total = a.t_total;
  const int64_t slots = ssmc_chunk_slots(k, &a);
  void *fparams[] = {&a, &ws}, *bparams[] = {&a, &b, &ws};
  if (variant == RT_BWD_AUTO) variant = rt_cuda_bwd_pick(c, m, a.n_seqs, a.h_v);
  const int narrow = variant == RT_BWD_NARROW;
  const int saved = g->fwd_saved ? k->cuda->bwd_saved : 0; /* the stages a kept forward replaces */
  for (int i = 0; i < (saved ? 0 : k->cuda->bwd_fwd); i++)
    if (ssmc_cuda_stage_runs(&k->cuda->fwd[i], narrow) &&
        launch(c, m->fwd[i], k, &k->cuda->fwd[i], a.n_seqs, a.h_v, slots, fparams, stream))
      return -1;
  for (int i = saved; i < k->cuda->n_bwd; i++)
    if (ssmc_cuda_stage_runs_for(&k->cuda->bwd[i], narrow, a.h_qk, a.h_v) &&
        launch(c, m->bwd[i], k, &k->cuda->bwd[i], a.n_seqs, a.h_v, slots, bparams, stream))
      return -1;
  return 0;
}

int rt_cuda_decode_variants(const rt_cuda_mod *m) { return m->form[FORM_DECODE_LARGE] ? 2 : 1; }

int rt_cuda_decode_pick(const rt_cuda *c, const rt_cuda_mod *m, int n_seqs, int h_v) {
  const ssmc_cuda_kernel *ck = m->k->cuda;
  return ssmc_cuda_decode_stage(ck, n_seqs, h_v, c->info.sm_count) == &ck->decode_large ? RT_DECODE_LARGE
                                                                                       : RT_DECODE_SMALL;
}

int rt_cuda_decode_variant(rt_cuda *c, rt_cuda_mod *m, const ssmc_decode_args *a, int variant, void *stream) {
  if (variant == RT_DECODE_AUTO) variant = rt_cuda_decode_pick(c, m, a->n_seqs, a->h_v);
  if (variant == RT_DECODE_LARGE && !m->form[FORM_DECODE_LARGE]) {
    snprintf(c->err, sizeof c->err, "%s has no decode_large stage", m->k->name);
    return -1;
  }
  ssmc_decode_args arg = *a;
  void *ws = NULL;
  void *params[] = {&arg, &ws};
  const int large = variant == RT_DECODE_LARGE;
  return launch(c, m->form[large ? FORM_DECODE_LARGE : FORM_DECODE], m->k, large ? &m->k->cuda->decode_large : &m->k->cuda->decode,
                a->n_seqs, a->h_v, 0, params, stream);
}

int rt_cuda_decode(rt_cuda *c, rt_cuda_mod *m, const ssmc_decode_args *a, void *stream) {
  return rt_cuda_decode_variant(c, m, a, RT_DECODE_AUTO, stream);
}

struct rt_cuda_raw { void *mod; };

rt_cuda_raw *rt_cuda_raw_load(rt_cuda *c, const char *src, const char *name, const char *cache_dir, char *err,
                              size_t errlen) {
  void *mod = module_from_source(c, src, name, cache_dir, NULL, err, errlen);
  if (!mod) return NULL;
  rt_cuda_raw *m = calloc(1, sizeof *m);
  m->mod = mod;
  return m;
}

int rt_cuda_raw_launch(rt_cuda *c, rt_cuda_raw *m, const char *entry, unsigned blocks, unsigned threads, void **params,
                       void *stream) {
  void *fn = NULL;
  CK(c, c->ModuleGetFunction(&fn, m->mod, entry), entry);
  CK(c, c->LaunchKernel(fn, blocks, 1, 1, threads, 1, 1, 0, stream, params, NULL), entry);
  return 0;
}

void rt_cuda_raw_unload(rt_cuda *c, rt_cuda_raw *m) {
  if (!m) return;
  c->ModuleUnload(m->mod);
  free(m);
}
