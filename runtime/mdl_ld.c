/* runtime stage: model loading entry point and the helpers of mdl_ld.h. */
#include "mdl_ld.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern const ssmc_kernel *const ssmc_builtin_kernels[];

static json_t *ld_get(mdl_ld *l, json_t *obj, const char *key, int req) {
  json_t *v = obj ? json_object_get(obj, key) : NULL;
  if (v && json_is_null(v)) v = NULL;
  if (!v && req) rt_err(l->d, l->cfg_path, "missing key '%s'", key);
  return v;
}

int64_t ld_int(mdl_ld *l, json_t *obj, const char *key, int64_t def, int req) {
  json_t *v = ld_get(l, obj, key, req);
  if (!v) return def;
  if (json_is_integer(v)) return json_integer_value(v);
  if (json_is_real(v) && json_real_value(v) == floor(json_real_value(v))) return (int64_t)json_real_value(v);
  rt_err(l->d, l->cfg_path, "key '%s' must be an integer", key);
  return def;
}

double ld_num(mdl_ld *l, json_t *obj, const char *key, double def, int req) {
  json_t *v = ld_get(l, obj, key, req);
  if (!v) return def;
  if (json_is_number(v)) return json_number_value(v);
  rt_err(l->d, l->cfg_path, "key '%s' must be a number", key);
  return def;
}

int ld_bool(mdl_ld *l, json_t *obj, const char *key, int def) {
  json_t *v = ld_get(l, obj, key, 0);
  if (!v) return def;
  if (json_is_boolean(v)) return json_is_true(v);
  rt_err(l->d, l->cfg_path, "key '%s' must be true or false", key);
  return def;
}

const char *ld_str(mdl_ld *l, json_t *obj, const char *key, const char *def, int req) {
  json_t *v = ld_get(l, obj, key, req);
  if (!v) return def;
  if (json_is_string(v)) return json_string_value(v);
  rt_err(l->d, l->cfg_path, "key '%s' must be a string", key);
  return def;
}

float *ld_alloc(mdl_ld *l, size_t n) {
  mdl_model *m = l->m;
  if (m->n_owned == m->cap_owned) {
    m->cap_owned = m->cap_owned ? 2 * m->cap_owned : 64;
    m->owned = realloc(m->owned, sizeof *m->owned * (size_t)m->cap_owned);
  }
  float *p = calloc(n ? n : 1, sizeof *p);
  if (!p || !m->owned) { rt_err(l->d, NULL, "out of memory"); free(p); return NULL; }
  m->owned[m->n_owned++] = p;
  return p;
}

void ld_rows(float *dst, int dst_row, const float *w, int src_row, int n, int cols) {
  memcpy(dst + (size_t)dst_row * cols, w + (size_t)src_row * cols, sizeof(float) * (size_t)n * cols);
}

static void shape_str(char *b, size_t n, int nd, const int64_t *s) {
  size_t o = (size_t)snprintf(b, n, "[");
  for (int i = 0; i < nd && o < n; i++) o += (size_t)snprintf(b + o, n - o, "%s%lld", i ? ", " : "", (long long)s[i]);
  if (o < n) snprintf(b + o, n - o, "]");
}

static float bf16f(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static float f16f(uint16_t h) {
  uint32_t s = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 31, m = h & 1023, u;
  if (e == 0) {
    float f = ldexpf((float)m, -24);
    return s ? -f : f;
  }
  u = e == 31 ? s | 0x7f800000u | (m << 13) : s | ((e + 112) << 23) | (m << 13);
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static void wref_add(mdl_ld *l, const st_tensor *t) {
  mdl_model *m = l->m;
  if (m->n_wrefs == m->cap_wrefs) {
    int cap = m->cap_wrefs ? 2 * m->cap_wrefs : 64;
    mdl_wref *w = realloc(m->wrefs, sizeof *w * (size_t)cap);
    if (!w) return; /* only `model show` would miss it */
    m->wrefs = w, m->cap_wrefs = cap;
  }
  mdl_wref *w = &m->wrefs[m->n_wrefs];
  if (!(w->name = strdup(t->name))) return;
  w->layer = l->layer, w->ndim = t->ndim;
  memcpy(w->shape, t->shape, sizeof w->shape);
  snprintf(w->dtype, sizeof w->dtype, "%s", t->dtype_name);
  m->n_wrefs++;
}

static const float *ld_w_impl(mdl_ld *l, const char *name, int ndim, const int64_t *shape, int opt) {
  if (l->d->set) return NULL;
  const st_tensor *t = st_get(l->m->st, name);
  char want[128], got[128];
  shape_str(want, sizeof want, ndim, shape);
  if (!t) {
    if (!opt) rt_err(l->d, l->m->dir, "missing tensor '%s' (expected shape %s)", name, want);
    return NULL;
  }
  int ok = t->ndim == ndim;
  for (int i = 0; ok && i < ndim; i++) ok = t->shape[i] == shape[i];
  if (!ok) {
    shape_str(got, sizeof got, t->ndim, t->shape);
    rt_err(l->d, t->file, "tensor '%s': expected shape %s, found %s", name, want, got);
    return NULL;
  }
  if (t->dtype == ST_F32 || t->dtype == ST_BF16 || t->dtype == ST_F16) wref_add(l, t);
  if (t->dtype == ST_F32) return t->data;
  if (t->dtype != ST_BF16 && t->dtype != ST_F16) {
    rt_err(l->d, t->file, "tensor '%s': dtype %s is not one we read (F32, BF16, F16)", name, t->dtype_name);
    return NULL;
  }
  int64_t n = st_numel(t);
  float *p = ld_alloc(l, (size_t)n);
  if (!p) return NULL;
  const uint16_t *h = t->data;
  for (int64_t i = 0; i < n; i++) p[i] = t->dtype == ST_BF16 ? bf16f(h[i]) : f16f(h[i]);
  return p;
}

const float *ld_w(mdl_ld *l, const char *name, int ndim, int64_t s0, int64_t s1, int64_t s2) {
  int64_t s[3] = {s0, s1, s2};
  return ld_w_impl(l, name, ndim, s, 0);
}

const float *ld_w_opt(mdl_ld *l, const char *name, int ndim, int64_t s0, int64_t s1, int64_t s2) {
  int64_t s[3] = {s0, s1, s2};
  return ld_w_impl(l, name, ndim, s, 1);
}

const ssmc_kernel *ld_kernel(mdl_ld *l, const char *spec, int dk, int dv) {
  if (l->d->set) return NULL;
  int is_file = strchr(spec, '/') || strstr(spec, ".yaml") || strstr(spec, ".yml");
  if (!is_file)
    for (int i = 0; ssmc_builtin_kernels[i]; i++) {
      const ssmc_kernel *k = ssmc_builtin_kernels[i];
      if (!strcmp(k->family, spec) && k->K == dk && k->V == dv && k->dtype == SSMC_F32) return k;
    }
  if (l->o && l->o->resolve) return l->o->resolve(l->o->resolve_ctx, spec, dk, dv, l->d);
  int known = 0;
  for (int i = 0; ssmc_builtin_kernels[i]; i++) known |= !strcmp(ssmc_builtin_kernels[i]->family, spec);
  rt_err(l->d, l->cfg_path, "no kernel for spec '%s' with K=%d, V=%d%s", spec, dk, dv,
         known ? " (the built-in kernels of this family have other dims; the ssmc CLI compiles one in-process)"
               : is_file ? " (spec files are compiled by the ssmc CLI)" : " (not a built-in family)");
  return NULL;
}

int ld_check_kernel_inputs(mdl_ld *l, const mdl_ssm *s, int layer) {
  const ssmc_kernel *k = s->kern;
  static const char *const ok[] = {"q", "k", "v", "g", "beta", "alpha"};
  for (int i = 0; i < k->n_inputs; i++) {
    int found = 0;
    for (int j = 0; j < 6; j++) found |= !strcmp(k->input_names[i], ok[j]);
    if (!found)
      return rt_err(l->d, l->cfg_path, "layer %d: spec '%s' has input '%s'; the runtime provides q, k, v, g, beta, alpha",
                    layer, s->spec, k->input_names[i]);
    if (!strcmp(k->input_names[i], "beta") && !s->beta_mode)
      return rt_err(l->d, l->cfg_path, "layer %d: spec '%s' reads beta but the layer has no beta projection", layer, s->spec);
    if (!strcmp(k->input_names[i], "alpha") && !s->alpha)
      return rt_err(l->d, l->cfg_path, "layer %d: spec '%s' reads alpha but the layer has no alpha projection", layer, s->spec);
  }
  return 0;
}

int ld_pattern_nemotron(mdl_ld *l, const char *pat, char ***out, int *n) {
  int len = (int)strlen(pat);
  char **v = calloc((size_t)len + 1, sizeof *v);
  for (int i = 0; i < len; i++) {
    const char *k = pat[i] == 'M' ? "mamba" : pat[i] == '*' ? "attention" : pat[i] == '-' ? "mlp" : pat[i] == 'E' ? "moe" : NULL;
    if (!k) {
      for (int j = 0; j < i; j++) free(v[j]);
      free(v);
      return rt_err(l->d, l->cfg_path, "hybrid_override_pattern: unknown layer symbol '%c' at %d (M, *, -, E)", pat[i], i);
    }
    v[i] = strdup(k);
  }
  *out = v;
  *n = len;
  return 0;
}

int mdl_load(const char *dir, const mdl_opts *o, mdl_model *m, rt_diag *d) {
  memset(m, 0, sizeof *m);
  m->bos_id = m->eos_id = -1;
  snprintf(m->dir, sizeof m->dir, "%s", dir);
  char own[4200], hf[4200], tok[4200];
  snprintf(own, sizeof own, "%s/model.yaml", dir);
  snprintf(hf, sizeof hf, "%s/config.json", dir);
  snprintf(tok, sizeof tok, "%s/tokenizer.json", dir);
  mdl_ld l = {.m = m, .o = o, .d = d, .layer = -1};
  int rc;
  if (access(own, R_OK) == 0) {
    l.cfg_path = own;
    rc = mdl_read_own(&l, own);
  } else if (access(hf, R_OK) == 0) {
    l.cfg_path = hf;
    json_error_t je;
    l.cfg = json_load_file(hf, 0, &je);
    if (!l.cfg) rc = rt_err(d, hf, "malformed JSON at line %d, column %d: %s", je.line, je.column, je.text);
    else if (!json_is_object(l.cfg)) rc = rt_err(d, hf, "not a JSON object");
    else rc = st_open_dir(&m->st, dir, d) ? -1 : mdl_read_hf(&l);
  } else {
    rc = rt_err(d, dir, "not a model folder: no model.yaml (ssmc) or config.json (Hugging Face)");
  }
  if (l.cfg) json_decref(l.cfg);
  if (!rc && d->set) rc = -1;
  if (!rc && !m->tokenizer[0] && access(tok, R_OK) == 0) snprintf(m->tokenizer, sizeof m->tokenizer, "%s", tok);
  if (rc) mdl_free(m);
  return rc;
}

void mdl_free(mdl_model *m) {
  if (m->layers)
    for (int i = 0; i < m->n_layers; i++) {
      free(m->layers[i].moe1.experts);
      free(m->layers[i].moe2.experts);
    }
  free(m->layers);
  for (int i = 0; i < m->n_wrefs; i++) free(m->wrefs[i].name);
  free(m->wrefs);
  for (int i = 0; i < m->n_owned; i++) free(m->owned[i]);
  free(m->owned);
  st_close(m->st);
  memset(m, 0, sizeof *m);
}

const char *mdl_kind_name(int k) {
  return k == MDL_ATTN ? "attention" : k == MDL_SSM ? "ssm" : k == MDL_MLP ? "mlp" : k == MDL_MOE ? "moe" : "-";
}

static void show_ffn(FILE *o, int kind, const mdl_mlp *p, const mdl_moe *e) {
  if (kind == MDL_MLP) fprintf(o, "mlp %s inter=%d", p->act == MDL_ACT_SWIGLU ? "swiglu" : "relu2", p->inter);
  else if (kind == MDL_MOE)
    fprintf(o, "moe experts=%d top_k=%d%s inter=%d%s", e->n_exp, e->top_k, e->norm_topk ? " renorm" : "",
            e->experts[0].inter, e->has_shared ? (e->shared_gate.w ? " +gated shared" : " +shared") : "");
}

static void show_weights(const mdl_model *m, int layer, FILE *o) {
  for (int i = 0; i < m->n_wrefs; i++) {
    const mdl_wref *w = &m->wrefs[i];
    if (w->layer != layer) continue;
    char sh[160];
    size_t n = (size_t)snprintf(sh, sizeof sh, "[");
    for (int k = 0; k < w->ndim && n < sizeof sh; k++) n += (size_t)snprintf(sh + n, sizeof sh - n, "%s%lld", k ? ", " : "", (long long)w->shape[k]);
    if (n < sizeof sh) snprintf(sh + n, sizeof sh - n, "]");
    fprintf(o, "       %-56s %-16s %s\n", w->name, sh, w->dtype);
  }
}

void mdl_show(const mdl_model *m, FILE *o) {
  fprintf(o, "model %s (%s): d_model=%d vocab=%d layers=%d norm=%s eps=%g lm_head=%s tokenizer=%s\n", m->dir, m->arch,
          m->d_model, m->vocab, m->n_layers, m->norm_one_plus ? "rms(1+w)" : "rms(w)", m->norm_eps,
          m->tied ? "tied" : "own", m->tokenizer[0] ? "tokenizer.json" : "none");
  show_weights(m, -1, o);
  for (int i = 0; i < m->n_layers; i++) {
    const mdl_layer *L = &m->layers[i];
    fprintf(o, "%3d  %-18s ", i, L->label);
    if (L->mixer == MDL_ATTN) {
      const mdl_attn *a = &L->attn;
      fprintf(o, "attention heads=%d kv=%d hd=%d rope=%d/%d theta=%g%s%s", a->n_heads, a->n_kv, a->head_dim, a->rot_dim,
              a->head_dim, a->theta, a->q_norm ? " qk-norm" : "", a->out_gate ? " out-gate" : "");
      if (a->window) fprintf(o, " window=%d", a->window);
    } else if (L->mixer == MDL_SSM) {
      const mdl_ssm *s = &L->ssm;
      fprintf(o, "ssm spec=%s kernel=%s h_qk=%d h_v=%d K=%d V=%d conv=%d%s l2=%s beta=%s%s gate=%s onorm=%s",
              s->spec, s->kern->name, s->h_qk, s->h_v, s->dk, s->dv, s->conv_w, s->conv_v ? "(q,k,v)" : "(q,k)",
              s->l2 == MDL_L2_NONE ? "no" : "yes", s->beta_mode == MDL_BETA_NONE ? "no" : s->beta_mode == MDL_BETA_SIGMOID ? "sigmoid" : "sigmoid^2",
              s->alpha ? " alpha" : "", s->dt_scales_v ? "mamba-dt" : "softplus", s->onorm == MDL_ONORM_NORM_GATE ? "norm*silu(z)"
              : s->onorm == MDL_ONORM_GATE_NORM ? "norm(y*silu(z))" : s->onorm == MDL_ONORM_NORM ? "norm" : "none");
      if (s->D) fprintf(o, " D");
    } else {
      show_ffn(o, L->mixer, &L->mlp1, &L->moe1);
    }
    if (L->ffn) {
      fprintf(o, " | ");
      show_ffn(o, L->ffn, &L->mlp2, &L->moe2);
    }
    fprintf(o, "\n");
    show_weights(m, i, o);
  }
}
