/* compiler stage: kernel acquisition (see build.h). */
#include "build.h"
#include "jit.h"
#include "rt_isa.h"
#include "spec.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* generated/ssmc_builtin.c (checked in, compiled into the runtime library) */
extern const ssmc_kernel *const ssmc_builtin_kernels[];
extern const char *const ssmc_builtin_source_hashes[];

typedef struct { const char *name; const char *data; size_t len; } ssmc_embedded_file;
extern const ssmc_embedded_file ssmc_embedded_files[];

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

#ifndef SSMC_HAVE_JIT
/* Without the in-process compiler, a kernel that is not built in gets a
 * descriptor with its CUDA module and no CPU entry points (fwd = decode = NULL). */
static int describe_only(const emit_kernel *ek, const cls_family *f, build_kernel *out) {
  const layer_spec *s = f->spec;
  ssmc_kernel *k = calloc(1, sizeof *k);
  const char **in_names = calloc((size_t)s->n_in + 1, sizeof *in_names), **st_names = calloc((size_t)s->n_st + 1, sizeof *st_names);
  int32_t *dim = calloc((size_t)s->n_in + 1, sizeof *dim), *dom = calloc((size_t)s->n_in + 1, sizeof *dom);
  int32_t *sym = calloc((size_t)s->n_st + 1, sizeof *sym);
  int64_t *size = calloc((size_t)s->n_st + 1, sizeof *size);
  static const char *aux[1];
  for (int i = 0; i < s->n_in; i++) {
    in_names[i] = s->in[i].name;
    dim[i] = (int32_t)s->in[i].dim;
    dom[i] = (int32_t)s->in[i].domain;
  }
  for (int i = 0; i < s->n_st; i++) {
    st_names[i] = s->st[i].name;
    sym[i] = s->st[i].symmetric;
    int r = s->st[i].rows == DIM_K ? s->K : s->V, c = s->st[i].cols == DIM_K ? s->K : s->V;
    size[i] = sym[i] ? (int64_t)s->K * (s->K + 1) / 2 : (int64_t)r * c;
  }
  *k = (ssmc_kernel){.name = ek->name, .family = s->family, .spec_hash = s->hash, .K = s->K, .V = s->V,
                     .chunk = s->chunk, .bk = s->bk, .bv = s->bv, .dtype = ek->dtype ? SSMC_BF16 : SSMC_F32,
                     .n_inputs = s->n_in, .input_names = in_names, .input_dim = dim, .input_domain = dom,
                     .n_states = s->n_st, .state_names = st_names, .state_size = size, .state_symmetric = sym,
                     .n_aux = f->has_solve, .aux_names = aux, .default_iters = f->has_solve ? f->iters : 0,
                     .cuda = &ek->cuda};
  if (f->has_solve) aux[0] = s->rd[f->solve_rd].name;
  out->k = k;
  out->described = k;
  return 0;
}
#endif

int build_get(const emit_kernel *ek, const cls_family *fam, int force_jit, const char *cache_dir, build_kernel *out, diag *d) {
  memset(out, 0, sizeof *out);
  char h[17];
  emit_kernel_hash(ek, h);
  if (!force_jit)
    for (int i = 0; ssmc_builtin_kernels[i]; i++)
      if (!strcmp(ssmc_builtin_kernels[i]->name, ek->name) && !strcmp(ssmc_builtin_source_hashes[i], h)) {
        out->k = ssmc_builtin_kernels[i];
        out->builtin = 1;
        return 0;
      }
  jit_header hdrs[] = {{"ssmc_kernel.h", abi_header()}, {NULL, NULL}};
  char err[4096];
  /* the CPU code and, beside it, the descriptor of its CUDA module (source as a literal) */
  char *desc = emit_cuda_desc(ek, NULL);
  size_t n = ek->len + strlen(desc) + 2;
  char *src = malloc(n);
  snprintf(src, n, "%s\n%s", ek->source, desc);
  free(desc);
  /* the in-process compiler targets this CPU: x86-64-v4 where it has AVX-512 */
  const char *cpu = ssmc_cpu_isa_max() >= 4 ? "x86-64-v4" : SSMC_CPU_TARGET;
  jit_module *m = jit_compile(src, ek->path, hdrs, cpu, cache_dir, &out->from_cache, err, sizeof err);
  free(src);
#ifndef SSMC_HAVE_JIT
  if (!m && fam) return describe_only(ek, fam, out);
#endif
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
  if (b->described) {
    free((void *)b->described->input_names); free((void *)b->described->input_dim);
    free((void *)b->described->input_domain); free((void *)b->described->state_names);
    free((void *)b->described->state_size); free((void *)b->described->state_symmetric);
    free(b->described);
  }
  memset(b, 0, sizeof *b);
}
