/* runtime stage: ssmc's own model file (model.yaml; see README "Model
 * files"): dimensions, norms, RoPE, vocabulary, the layer pattern (explicit
 * or a short form), the spec and options of the SSM layers, and an optional
 * map from the canonical weight names to the names in the safetensors files. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "mdl_ld.h"

static const char *const TOP_KEYS[] = {"format", "d_model", "vocab", "norm_eps", "norm_one_plus", "tie_embeddings",
  "weights", "tokenizer", "weight_names", "attention", "ssm", "mlp", "moe", "layers", "pattern", "n_layers",
  "full_attention_interval", "attn_layer_period", "attn_layer_offset", "ffn", "bos_id", "eos_id", "max_ctx", NULL};

static const char *const ATTN_KEYS[] = {"heads", "kv_heads", "head_dim", "rope_theta", "rotary_dim", "qk_norm",
  "out_gate", "window", NULL};
static const char *const SSM_KEYS[] = {"spec", "qk_heads", "v_heads", "key_dim", "value_dim", "conv", "conv_v", "beta",
  "alpha", "l2norm", "l2norm_eps", "q_scale", "dt_scales_v", "dt_min", "dt_max", "out_norm", "out_norm_group",
  "out_norm_per_head", "out_norm_eps", "iters", NULL};
static const char *const MLP_KEYS[] = {"act", "inter", NULL};
static const char *const MOE_KEYS[] = {"experts", "top_k", "renorm", "inter", "shared_inter", "shared_gate", "act", NULL};

/* every key of `obj` is one of `ok` (a typo is an error, not a silent default) */
static int check_keys(mdl_ld *l, json_t *obj, const char *section, const char *const *ok) {
  const char *k;
  json_t *v;
  if (!obj) return 0;
  if (!json_is_object(obj)) return section ? rt_err(l->d, l->cfg_path, "key '%s' must be a mapping", section) : -1;
  json_object_foreach(obj, k, v) {
    int found = 0;
    for (int i = 0; ok[i]; i++) found |= !strcmp(k, ok[i]);
    if (!found) return section ? rt_err(l->d, l->cfg_path, "%s: unknown key '%s'", section, k)
                               : rt_err(l->d, l->cfg_path, "unknown key '%s'", k);
  }
  return 0;
}

/* canonical name -> file name through weight_names ({i}: layer, {e}: expert) */
static const char *own_name(mdl_ld *l, const char *canon, int li, int ei, char *buf, size_t n) {
  json_t *map = json_object_get(l->cfg, "weight_names");
  const char *k;
  json_t *v;
  json_object_foreach(map, k, v) {
    char key[512], val[512], *o;
    const char *src[2] = {k, json_string_value(v)};
    char *dst[2] = {key, val};
    for (int s = 0; s < 2; s++) {
      o = dst[s];
      for (const char *c = src[s]; c && *c && o < dst[s] + 480; c++) {
        if (!strncmp(c, "{i}", 3)) { o += sprintf(o, "%d", li); c += 2; }
        else if (!strncmp(c, "{e}", 3)) { o += sprintf(o, "%d", ei); c += 2; }
        else *o++ = *c;
      }
      *o = 0;
    }
    if (!strcmp(key, canon)) { snprintf(buf, n, "%s", val); return buf; }
  }
  snprintf(buf, n, "%s", canon);
  return buf;
}

#define W(nd, a, b, c, ...) (snprintf(cn, sizeof cn, __VA_ARGS__), ld_w(l, own_name(l, cn, li, ei, fn, sizeof fn), nd, a, b, c))
#define WOPT(nd, a, b, c, ...) (snprintf(cn, sizeof cn, __VA_ARGS__), ld_w_opt(l, own_name(l, cn, li, ei, fn, sizeof fn), nd, a, b, c))

static void own_mlp(mdl_ld *l, mdl_mlp *p, json_t *cfg, const char *pre, int li, int ei, int inter) {
  char cn[512], fn[512];
  int d = l->m->d_model;
  const char *act = ld_str(l, cfg, "act", "swiglu", 0);
  p->act = !strcmp(act, "relu2") ? MDL_ACT_RELU2 : MDL_ACT_SWIGLU;
  if (strcmp(act, "relu2") && strcmp(act, "swiglu")) rt_err(l->d, l->cfg_path, "mlp act '%s': swiglu or relu2", act);
  p->inter = inter;
  int up = p->act == MDL_ACT_SWIGLU ? 2 * inter : inter;
  p->w_up = (mdl_mat){W(2, up, d, 0, "%s.up.weight", pre), up, d};
  p->w_down = (mdl_mat){W(2, d, inter, 0, "%s.down.weight", pre), d, inter};
}

static int own_kind(const char *s) {
  if (!strcmp(s, "attention") || !strcmp(s, "sliding_attention") || !strcmp(s, "*")) return MDL_ATTN;
  if (!strcmp(s, "ssm") || !strcmp(s, "M")) return MDL_SSM;
  if (!strcmp(s, "mlp") || !strcmp(s, "-")) return MDL_MLP;
  if (!strcmp(s, "moe") || !strcmp(s, "E")) return MDL_MOE;
  return MDL_NONE;
}

static int opt_enum(mdl_ld *l, json_t *o, const char *key, const char *def, const char *const *names, int n) {
  const char *v = ld_str(l, o, key, def, 0);
  for (int i = 0; v && i < n; i++)
    if (!strcmp(v, names[i])) return i;
  rt_err(l->d, l->cfg_path, "ssm.%s: '%s' is not one of the accepted values", key, v ? v : "?");
  return 0;
}

int mdl_read_own(mdl_ld *l, const char *path) {
  mdl_model *m = l->m;
  json_t *c = mdl_yaml_load(path, l->d);
  if (!c) return -1;
  l->cfg = c;
  if (check_keys(l, c, NULL, TOP_KEYS) || check_keys(l, json_object_get(c, "attention"), "attention", ATTN_KEYS) ||
      check_keys(l, json_object_get(c, "ssm"), "ssm", SSM_KEYS) || check_keys(l, json_object_get(c, "mlp"), "mlp", MLP_KEYS) ||
      check_keys(l, json_object_get(c, "moe"), "moe", MOE_KEYS))
    return -1;
  snprintf(m->arch, sizeof m->arch, "ssmc");
  m->d_model = (int)ld_int(l, c, "d_model", 0, 1);
  m->vocab = (int)ld_int(l, c, "vocab", 0, 1);
  m->norm_eps = (float)ld_num(l, c, "norm_eps", 1e-6, 0);
  m->norm_one_plus = ld_bool(l, c, "norm_one_plus", 0);
  m->bos_id = (int)ld_int(l, c, "bos_id", -1, 0);
  m->eos_id = (int)ld_int(l, c, "eos_id", -1, 0);
  m->max_ctx = (int)ld_int(l, c, "max_ctx", 0, 0);
  const char *tk = ld_str(l, c, "tokenizer", NULL, 0);
  if (tk) snprintf(m->tokenizer, sizeof m->tokenizer, "%s/%s", m->dir, tk);
  if (l->d->set) return -1;
  if (m->d_model <= 0 || m->vocab <= 0) return rt_err(l->d, path, "d_model and vocab must be positive");
  /* weights */
  json_t *wl = json_object_get(c, "weights");
  int rc;
  if (wl) {
    if (!json_is_array(wl) || !json_array_size(wl)) return rt_err(l->d, path, "key 'weights' must be a list of files");
    int n = (int)json_array_size(wl);
    char **paths = calloc((size_t)n, sizeof *paths);
    for (int i = 0; i < n; i++) {
      const char *f = json_string_value(json_array_get(wl, (size_t)i));
      paths[i] = malloc(strlen(m->dir) + strlen(f ? f : "") + 2);
      sprintf(paths[i], "%s/%s", m->dir, f ? f : "");
    }
    rc = st_open_files(&m->st, (const char *const *)paths, n, l->d);
    for (int i = 0; i < n; i++) free(paths[i]);
    free(paths);
  } else rc = st_open_dir(&m->st, m->dir, l->d);
  if (rc) return -1;
  /* the pattern, normalized */
  char **types = NULL;
  int n = 0, n_cfg = (int)ld_int(l, c, "n_layers", -1, 0);
  json_t *lay = json_object_get(c, "layers"), *pat = json_object_get(c, "pattern");
  if (lay) {
    if (!json_is_array(lay)) return rt_err(l->d, path, "key 'layers' must be a list of layer kinds");
    n = (int)json_array_size(lay);
    types = calloc((size_t)n + 1, sizeof *types);
    for (int i = 0; i < n; i++) {
      const char *s = json_string_value(json_array_get(lay, (size_t)i));
      types[i] = strdup(s ? s : "?");
    }
  } else if (json_is_string(pat)) {
    if (ld_pattern_nemotron(l, json_string_value(pat), &types, &n)) return -1;
  } else if (json_object_get(c, "full_attention_interval") && n_cfg > 0) {
    int iv = (int)ld_int(l, c, "full_attention_interval", 4, 0);
    types = calloc((size_t)n_cfg + 1, sizeof *types);
    for (n = 0; n < n_cfg; n++) types[n] = strdup((n + 1) % (iv > 0 ? iv : 1) == 0 ? "attention" : "ssm");
  } else if (json_object_get(c, "attn_layer_period") && n_cfg > 0) {
    int per = (int)ld_int(l, c, "attn_layer_period", 1, 0), off = (int)ld_int(l, c, "attn_layer_offset", 0, 0);
    types = calloc((size_t)n_cfg + 1, sizeof *types);
    for (n = 0; n < n_cfg; n++) types[n] = strdup(n % (per > 0 ? per : 1) == off ? "attention" : "ssm");
  } else return rt_err(l->d, path, "no layer pattern: give 'layers', 'pattern', or 'n_layers' with "
                       "'full_attention_interval' or 'attn_layer_period'/'attn_layer_offset'");
  if (n_cfg >= 0 && n != n_cfg) {
    for (int i = 0; i < n; i++) free(types[i]);
    free(types);
    return rt_err(l->d, path, "the layer pattern has %d entries but n_layers is %d", n, n_cfg);
  }
  m->n_layers = n;
  m->layers = calloc((size_t)n, sizeof *m->layers);
  char cn[512], fn[512];
  int li = 0, ei = 0, d = m->d_model;
  m->embed = W(2, m->vocab, d, 0, "embed.weight");
  m->final_norm = W(1, d, 0, 0, "final_norm.weight");
  const float *lm = ld_bool(l, c, "tie_embeddings", 0) ? NULL : W(2, m->vocab, d, 0, "lm_head.weight");
  m->tied = !lm;
  m->lm_head = (mdl_mat){lm ? lm : m->embed, m->vocab, d};
  json_t *ac = json_object_get(c, "attention"), *sc = json_object_get(c, "ssm"), *mc = json_object_get(c, "mlp");
  json_t *ec = json_object_get(c, "moe"), *ffn = json_object_get(c, "ffn");
  for (li = 0; li < n && !l->d->set; li++) {
    l->layer = li;
    mdl_layer *L = &m->layers[li];
    int kind = own_kind(types[li]);
    snprintf(L->label, sizeof L->label, "%s", types[li]);
    if (!kind) { rt_err(l->d, path, "layers[%d]: unknown layer kind '%s' (attention, sliding_attention, ssm, mlp, moe)", li, types[li]); break; }
    L->mixer = kind;
    L->norm1 = W(1, d, 0, 0, "layers.%d.norm1.weight", li);
    if (kind == MDL_ATTN) {
      if (!json_is_object(ac)) { rt_err(l->d, path, "layer %d is attention but there is no 'attention' section", li); break; }
      mdl_attn *a = &L->attn;
      a->n_heads = (int)ld_int(l, ac, "heads", 0, 1), a->n_kv = (int)ld_int(l, ac, "kv_heads", a->n_heads, 0);
      a->head_dim = (int)ld_int(l, ac, "head_dim", 0, 1), a->theta = ld_num(l, ac, "rope_theta", 10000, 0);
      a->rot_dim = (int)ld_int(l, ac, "rotary_dim", a->head_dim, 0), a->out_gate = ld_bool(l, ac, "out_gate", 0);
      a->window = !strcmp(types[li], "sliding_attention") ? (int)ld_int(l, ac, "window", 0, 1) : 0;
      if (l->d->set) break;
      if (a->n_kv <= 0 || a->n_heads % a->n_kv || a->rot_dim % 2 || a->rot_dim > a->head_dim) {
        rt_err(l->d, path, "attention: heads must be a multiple of kv_heads, rotary_dim even and <= head_dim");
        break;
      }
      int hd = a->head_dim, qr = a->n_heads * hd * (a->out_gate ? 2 : 1);
      a->wq = (mdl_mat){W(2, qr, d, 0, "layers.%d.attn.q.weight", li), qr, d};
      a->wk = (mdl_mat){W(2, a->n_kv * hd, d, 0, "layers.%d.attn.k.weight", li), a->n_kv * hd, d};
      a->wv = (mdl_mat){W(2, a->n_kv * hd, d, 0, "layers.%d.attn.v.weight", li), a->n_kv * hd, d};
      a->wo = (mdl_mat){W(2, d, a->n_heads * hd, 0, "layers.%d.attn.o.weight", li), d, a->n_heads * hd};
      if (ld_bool(l, ac, "qk_norm", 0)) {
        a->q_norm = W(1, hd, 0, 0, "layers.%d.attn.q_norm.weight", li);
        a->k_norm = W(1, hd, 0, 0, "layers.%d.attn.k_norm.weight", li);
      }
    } else if (kind == MDL_SSM) {
      if (!json_is_object(sc)) { rt_err(l->d, path, "layer %d is ssm but there is no 'ssm' section", li); break; }
      mdl_ssm *s = &L->ssm;
      snprintf(s->spec, sizeof s->spec, "%s", ld_str(l, sc, "spec", "", 1));
      s->h_qk = (int)ld_int(l, sc, "qk_heads", 0, 1), s->h_v = (int)ld_int(l, sc, "v_heads", 0, 1);
      s->dk = (int)ld_int(l, sc, "key_dim", 0, 1), s->dv = (int)ld_int(l, sc, "value_dim", 0, 1);
      s->conv_w = (int)ld_int(l, sc, "conv", 0, 0), s->conv_v = ld_bool(l, sc, "conv_v", 1);
      static const char *const betas[] = {"none", "sigmoid", "sigmoid_sq"}, *const l2s[] = {"none", "rsqrt", "div"};
      static const char *const onorms[] = {"none", "norm_gate", "gate_norm", "norm"};
      s->beta_mode = opt_enum(l, sc, "beta", "none", betas, 3);
      s->l2 = opt_enum(l, sc, "l2norm", "none", l2s, 3);
      s->onorm = opt_enum(l, sc, "out_norm", "none", onorms, 4);
      s->alpha = ld_bool(l, sc, "alpha", 0), s->dt_scales_v = ld_bool(l, sc, "dt_scales_v", 0);
      s->l2_eps = (float)ld_num(l, sc, "l2norm_eps", 1e-6, 0), s->q_scale = (float)ld_num(l, sc, "q_scale", 1.0, 0);
      s->dt_min = (float)ld_num(l, sc, "dt_min", 0, 0), s->dt_max = (float)ld_num(l, sc, "dt_max", INFINITY, 0);
      s->onorm_eps = (float)ld_num(l, sc, "out_norm_eps", 1e-6, 0), s->iters = (int)ld_int(l, sc, "iters", 0, 0);
      s->onorm_per_head = ld_bool(l, sc, "out_norm_per_head", 1);
      s->onorm_group = (int)ld_int(l, sc, "out_norm_group", s->dv, 0);
      if (l->d->set) break;
      if (s->h_qk <= 0 || s->h_v % s->h_qk || s->dk <= 0 || s->dv <= 0 || s->onorm_group <= 0 || (s->h_v * s->dv) % s->onorm_group) {
        rt_err(l->d, path, "ssm: v_heads must be a multiple of qk_heads and out_norm_group divide v_heads*value_dim");
        break;
      }
      int has_z = s->onorm == MDL_ONORM_NORM_GATE || s->onorm == MDL_ONORM_GATE_NORM;
      s->n_q = s->h_qk * s->dk, s->off_q = 0, s->off_k = s->n_q, s->off_v = 2 * s->n_q;
      s->off_z = s->off_v + s->h_v * s->dv, s->off_a = s->off_z + (has_z ? s->h_v * s->dv : 0);
      s->off_b = s->off_a + s->h_v, s->off_al = s->off_b + (s->beta_mode ? s->h_v : 0);
      s->n_in = s->off_al + (s->alpha ? s->h_v : 0);
      s->w_in = (mdl_mat){W(2, s->n_in, d, 0, "layers.%d.ssm.in.weight", li), s->n_in, d};
      s->b_in = WOPT(1, s->n_in, 0, 0, "layers.%d.ssm.in.bias", li);
      s->conv_ch = 2 * s->n_q + (s->conv_v ? s->h_v * s->dv : 0);
      if (s->conv_w > 0) {
        s->conv_wt = W(2, s->conv_ch, s->conv_w, 0, "layers.%d.ssm.conv.weight", li);
        s->conv_b = WOPT(1, s->conv_ch, 0, 0, "layers.%d.ssm.conv.bias", li);
      }
      s->A_log = W(1, s->h_v, 0, 0, "layers.%d.ssm.A_log", li);
      s->dt_bias = W(1, s->h_v, 0, 0, "layers.%d.ssm.dt_bias", li);
      s->D = WOPT(1, s->h_v, 0, 0, "layers.%d.ssm.D", li);
      if (s->onorm) {
        int nw = s->onorm_per_head ? s->onorm_group : s->h_v * s->dv;
        s->onorm_w = W(1, nw, 0, 0, "layers.%d.ssm.norm.weight", li);
      }
      s->wo = (mdl_mat){W(2, d, s->h_v * s->dv, 0, "layers.%d.ssm.out.weight", li), d, s->h_v * s->dv};
      s->kern = ld_kernel(l, s->spec, s->dk, s->dv);
      if (s->kern) ld_check_kernel_inputs(l, s, li);
    }
    /* channel mixer: 'ffn' (one kind for all, or a list), in the mixer slot for mlp/moe layers */
    int fk = MDL_NONE;
    if (kind == MDL_ATTN || kind == MDL_SSM) {
      json_t *f = json_is_array(ffn) ? json_array_get(ffn, (size_t)li) : ffn;
      const char *fs = json_is_string(f) ? json_string_value(f) : "none";
      fk = !strcmp(fs, "none") ? MDL_NONE : own_kind(fs);
      if (fk != MDL_NONE && fk != MDL_MLP && fk != MDL_MOE) { rt_err(l->d, path, "ffn of layer %d: '%s' (none, mlp, moe)", li, fs); break; }
    }
    for (int slot = 0; slot < 2; slot++) {
      int kk = slot == 0 ? (kind == MDL_MLP || kind == MDL_MOE ? kind : MDL_NONE) : fk;
      mdl_mlp *p = slot == 0 ? &L->mlp1 : &L->mlp2;
      mdl_moe *e = slot == 0 ? &L->moe1 : &L->moe2;
      char pre[64];
      if (kk == MDL_MLP) {
        if (!json_is_object(mc)) { rt_err(l->d, path, "layer %d has an mlp but there is no 'mlp' section", li); break; }
        snprintf(pre, sizeof pre, "layers.%d.mlp", li);
        own_mlp(l, p, mc, pre, li, 0, (int)ld_int(l, mc, "inter", 0, 1));
      } else if (kk == MDL_MOE) {
        if (!json_is_object(ec)) { rt_err(l->d, path, "layer %d has a moe but there is no 'moe' section", li); break; }
        e->n_exp = (int)ld_int(l, ec, "experts", 0, 1), e->top_k = (int)ld_int(l, ec, "top_k", 1, 0);
        e->norm_topk = ld_bool(l, ec, "renorm", 1);
        int inter = (int)ld_int(l, ec, "inter", 0, 1), sh = (int)ld_int(l, ec, "shared_inter", 0, 0);
        if (l->d->set || e->n_exp <= 0 || e->top_k <= 0 || e->top_k > e->n_exp || e->top_k > 64) {
          rt_err(l->d, path, "moe: experts >= top_k >= 1 (top_k <= 64)");
          break;
        }
        e->router = (mdl_mat){W(2, e->n_exp, d, 0, "layers.%d.moe.router.weight", li), e->n_exp, d};
        e->experts = calloc((size_t)e->n_exp, sizeof *e->experts);
        for (ei = 0; ei < e->n_exp; ei++) {
          snprintf(pre, sizeof pre, "layers.%d.moe.experts.%d", li, ei);
          own_mlp(l, &e->experts[ei], ec, pre, li, ei, inter);
        }
        ei = 0;
        if (sh > 0) {
          e->has_shared = 1;
          snprintf(pre, sizeof pre, "layers.%d.moe.shared", li);
          own_mlp(l, &e->shared, ec, pre, li, 0, sh);
          if (ld_bool(l, ec, "shared_gate", 0))
            e->shared_gate = (mdl_mat){W(2, 1, d, 0, "layers.%d.moe.shared_gate.weight", li), 1, d};
        }
      }
    }
    L->ffn = fk;
    if (fk) L->norm2 = W(1, d, 0, 0, "layers.%d.norm2.weight", li);
  }
  for (int i = 0; i < n; i++) free(types[i]);
  free(types);
  json_decref(c);
  l->cfg = NULL;
  return l->d->set ? -1 : 0;
}
