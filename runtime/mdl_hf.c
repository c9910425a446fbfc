/* runtime stage: Hugging Face folders (config.json as transformers 5.x writes
 * it + safetensors) mapped onto the normalized model of mdl.h. Supported
 * model_type: qwen3_next, nemotron_h, hybrid_qwen3 (awslabs/hybrid-model-factory,
 * layers "*" attention and "GKA"). Packed HF projections are re-arranged into
 * the runtime's fused SSM input projection [q, k, v, z, a, b, alpha]. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "mdl_ld.h"

#define NM(...) (snprintf(nm, sizeof nm, __VA_ARGS__), nm)

static void hf_attn(mdl_ld *l, mdl_attn *a, const char *p, int nh, int nkv, int hd, int out_gate, int qk_norm, int bias) {
  char nm[512];
  int d = l->m->d_model, qrows = nh * hd * (out_gate ? 2 : 1);
  a->n_heads = nh, a->n_kv = nkv, a->head_dim = hd, a->out_gate = out_gate;
  a->wq = (mdl_mat){ld_w(l, NM("%sq_proj.weight", p), 2, qrows, d, 0), qrows, d};
  a->wk = (mdl_mat){ld_w(l, NM("%sk_proj.weight", p), 2, nkv * hd, d, 0), nkv * hd, d};
  a->wv = (mdl_mat){ld_w(l, NM("%sv_proj.weight", p), 2, nkv * hd, d, 0), nkv * hd, d};
  a->wo = (mdl_mat){ld_w(l, NM("%so_proj.weight", p), 2, d, nh * hd, 0), d, nh * hd};
  if (bias) {
    a->bq = ld_w(l, NM("%sq_proj.bias", p), 1, qrows, 0, 0);
    a->bk = ld_w(l, NM("%sk_proj.bias", p), 1, nkv * hd, 0, 0);
    a->bv = ld_w(l, NM("%sv_proj.bias", p), 1, nkv * hd, 0, 0);
    a->bo = ld_w(l, NM("%so_proj.bias", p), 1, d, 0, 0);
  }
  if (qk_norm) {
    a->q_norm = ld_w(l, NM("%sq_norm.weight", p), 1, hd, 0, 0);
    a->k_norm = ld_w(l, NM("%sk_norm.weight", p), 1, hd, 0, 0);
  }
}

static void hf_mlp(mdl_ld *l, mdl_mlp *f, const char *p, int inter, int act) {
  char nm[512];
  int d = l->m->d_model;
  f->act = act, f->inter = inter;
  f->w_down = (mdl_mat){ld_w(l, NM("%sdown_proj.weight", p), 2, d, inter, 0), d, inter};
  if (act == MDL_ACT_RELU2) {
    f->w_up = (mdl_mat){ld_w(l, NM("%sup_proj.weight", p), 2, inter, d, 0), inter, d};
    return;
  }
  const float *g = ld_w(l, NM("%sgate_proj.weight", p), 2, inter, d, 0);
  const float *u = ld_w(l, NM("%sup_proj.weight", p), 2, inter, d, 0);
  float *w = l->d->set ? NULL : ld_alloc(l, (size_t)2 * inter * d);
  if (!w) return;
  ld_rows(w, 0, g, 0, inter, d);
  ld_rows(w, inter, u, 0, inter, d);
  f->w_up = (mdl_mat){w, 2 * inter, d};
}

/* Qwen-style MoE: softmax router, top-k (optionally renormalized), SwiGLU
 * experts (per-expert tensors, or transformers' fused 3D gate_up_proj/down_proj)
 * and a shared expert gated by sigmoid(shared_expert_gate). */
static void hf_moe_qwen(mdl_ld *l, mdl_moe *e, const char *p, int n_exp, int top_k, int norm_topk, int inter, int shared_inter) {
  char nm[512];
  int d = l->m->d_model;
  e->n_exp = n_exp, e->top_k = top_k, e->norm_topk = norm_topk;
  e->router = (mdl_mat){ld_w(l, NM("%sgate.weight", p), 2, n_exp, d, 0), n_exp, d};
  e->experts = calloc((size_t)n_exp, sizeof *e->experts);
  if (st_get(l->m->st, NM("%sexperts.gate_up_proj", p))) {
    const float *gu = ld_w(l, nm, 3, n_exp, 2 * inter, d);
    const float *dn = ld_w(l, NM("%sexperts.down_proj", p), 3, n_exp, d, inter);
    for (int i = 0; i < n_exp && gu && dn; i++)
      e->experts[i] = (mdl_mlp){MDL_ACT_SWIGLU, inter, {gu + (size_t)i * 2 * inter * d, 2 * inter, d},
                                {dn + (size_t)i * d * inter, d, inter}};
  } else {
    for (int i = 0; i < n_exp; i++) {
      char pe[512];
      snprintf(pe, sizeof pe, "%sexperts.%d.", p, i);
      hf_mlp(l, &e->experts[i], pe, inter, MDL_ACT_SWIGLU);
    }
  }
  if (shared_inter > 0) {
    char ps[512];
    snprintf(ps, sizeof ps, "%sshared_expert.", p);
    e->has_shared = 1;
    hf_mlp(l, &e->shared, ps, shared_inter, MDL_ACT_SWIGLU);
    e->shared_gate = (mdl_mat){ld_w_opt(l, NM("%sshared_expert_gate.weight", p), 2, 1, d, 0), 1, d};
  }
}

static void ssm_offsets(mdl_ssm *s, int has_z, int has_b, int has_alpha) {
  s->n_q = s->h_qk * s->dk;
  s->off_q = 0;
  s->off_k = s->n_q;
  s->off_v = 2 * s->n_q;
  s->off_z = s->off_v + s->h_v * s->dv;
  s->off_a = s->off_z + (has_z ? s->h_v * s->dv : 0);
  s->off_b = s->off_a + s->h_v;
  s->off_al = s->off_b + (has_b ? s->h_v : 0);
  s->n_in = s->off_al + (has_alpha ? s->h_v : 0);
}

static int rope_dims(mdl_ld *l, int hd, double *theta) {
  json_t *rp = json_object_get(l->cfg, "rope_parameters");
  if (!json_is_object(rp)) rp = json_object_get(l->cfg, "rope_scaling");
  double prf = ld_num(l, l->cfg, "partial_rotary_factor", 1.0, 0);
  *theta = ld_num(l, l->cfg, "rope_theta", 10000.0, 0);
  if (json_is_object(rp)) {
    const char *type = ld_str(l, rp, "rope_type", "default", 0);
    if (strcmp(type, "default"))
      rt_err(l->d, l->cfg_path, "rope_parameters.rope_type '%s' is not supported (default only)", type);
    *theta = ld_num(l, rp, "rope_theta", *theta, 0);
    prf = ld_num(l, rp, "partial_rotary_factor", prf, 0);
  }
  return (int)(hd * prf);
}

/* ---- Qwen3-Next ---------------------------------------------------------- */
static int read_qwen3_next(mdl_ld *l, char **types, int n) {
  mdl_model *m = l->m;
  json_t *c = l->cfg;
  char nm[512], p[256];
  int nh = (int)ld_int(l, c, "num_attention_heads", 0, 1), nkv = (int)ld_int(l, c, "num_key_value_heads", nh, 0);
  int hd = (int)ld_int(l, c, "head_dim", m->d_model / (nh ? nh : 1), 0);
  double theta;
  int rot = rope_dims(l, hd, &theta);
  int hk = (int)ld_int(l, c, "linear_num_key_heads", 0, 1), hv = (int)ld_int(l, c, "linear_num_value_heads", 0, 1);
  int dk = (int)ld_int(l, c, "linear_key_head_dim", 0, 1), dv = (int)ld_int(l, c, "linear_value_head_dim", 0, 1);
  int cw = (int)ld_int(l, c, "linear_conv_kernel_dim", 4, 0);
  int n_exp = (int)ld_int(l, c, "num_experts", 0, 0), topk = (int)ld_int(l, c, "num_experts_per_tok", 1, 0);
  int step = (int)ld_int(l, c, "decoder_sparse_step", 1, 0), norm_topk = ld_bool(l, c, "norm_topk_prob", 1);
  int inter = (int)ld_int(l, c, "intermediate_size", 0, 1), moe_inter = (int)ld_int(l, c, "moe_intermediate_size", 0, 0);
  int sh_inter = (int)ld_int(l, c, "shared_expert_intermediate_size", 0, 0);
  int window = ld_bool(l, c, "use_sliding_window", 0) ? (int)ld_int(l, c, "sliding_window", 0, 0) : 0;
  json_t *mlp_only = json_object_get(c, "mlp_only_layers");
  if (l->d->set) return -1;
  if (hk <= 0 || hv <= 0 || hv % hk) return rt_err(l->d, l->cfg_path, "linear_num_value_heads must be a multiple of linear_num_key_heads");
  int d = m->d_model;
  for (int i = 0; i < n && !l->d->set; i++) {
    l->layer = i;
    mdl_layer *L = &m->layers[i];
    snprintf(L->label, sizeof L->label, "%s", types[i]);
    snprintf(p, sizeof p, "model.layers.%d.", i);
    L->norm1 = ld_w(l, NM("%sinput_layernorm.weight", p), 1, d, 0, 0);
    L->norm2 = ld_w(l, NM("%spost_attention_layernorm.weight", p), 1, d, 0, 0);
    if (!strcmp(types[i], "full_attention") || !strcmp(types[i], "sliding_attention")) {
      char pa[300];
      snprintf(pa, sizeof pa, "%sself_attn.", p);
      L->mixer = MDL_ATTN;
      hf_attn(l, &L->attn, pa, nh, nkv, hd, 1, 1, ld_bool(l, c, "attention_bias", 0));
      L->attn.rot_dim = rot, L->attn.theta = theta;
      L->attn.window = !strcmp(types[i], "sliding_attention") ? window : 0;
    } else if (!strcmp(types[i], "linear_attention")) {
      mdl_ssm *s = &L->ssm;
      L->mixer = MDL_SSM;
      snprintf(s->spec, sizeof s->spec, "gated_deltanet");
      s->h_qk = hk, s->h_v = hv, s->dk = dk, s->dv = dv;
      ssm_offsets(s, 1, 1, 0);
      int r = hv / hk, G = 2 * dk + 2 * r * dv;
      const float *qkvz = ld_w(l, NM("%slinear_attn.in_proj_qkvz.weight", p), 2, hk * G, d, 0);
      const float *ba = ld_w(l, NM("%slinear_attn.in_proj_ba.weight", p), 2, hk * 2 * r, d, 0);
      float *w = l->d->set ? NULL : ld_alloc(l, (size_t)s->n_in * d);
      if (!w) break;
      for (int j = 0; j < hk; j++) {
        ld_rows(w, s->off_q + j * dk, qkvz, j * G, dk, d);
        ld_rows(w, s->off_k + j * dk, qkvz, j * G + dk, dk, d);
        ld_rows(w, s->off_v + j * r * dv, qkvz, j * G + 2 * dk, r * dv, d);
        ld_rows(w, s->off_z + j * r * dv, qkvz, j * G + 2 * dk + r * dv, r * dv, d);
        ld_rows(w, s->off_b + j * r, ba, j * 2 * r, r, d);
        ld_rows(w, s->off_a + j * r, ba, j * 2 * r + r, r, d);
      }
      s->w_in = (mdl_mat){w, s->n_in, d};
      s->conv_w = cw, s->conv_v = 1, s->conv_ch = 2 * hk * dk + hv * dv;
      s->conv_wt = ld_w(l, NM("%slinear_attn.conv1d.weight", p), 3, s->conv_ch, 1, cw);
      s->conv_b = ld_w_opt(l, NM("%slinear_attn.conv1d.bias", p), 1, s->conv_ch, 0, 0);
      s->A_log = ld_w(l, NM("%slinear_attn.A_log", p), 1, hv, 0, 0);
      s->dt_bias = ld_w(l, NM("%slinear_attn.dt_bias", p), 1, hv, 0, 0);
      s->dt_min = 0.f, s->dt_max = INFINITY;
      s->beta_mode = MDL_BETA_SIGMOID;
      s->l2 = MDL_L2_RSQRT, s->l2_eps = 1e-6f, s->q_scale = 1.f;
      s->onorm = MDL_ONORM_NORM_GATE, s->onorm_per_head = 1, s->onorm_group = dv;
      s->onorm_eps = (float)ld_num(l, c, "rms_norm_eps", 1e-6, 0);
      s->onorm_w = ld_w(l, NM("%slinear_attn.norm.weight", p), 1, dv, 0, 0);
      s->wo = (mdl_mat){ld_w(l, NM("%slinear_attn.out_proj.weight", p), 2, d, hv * dv, 0), d, hv * dv};
      s->kern = ld_kernel(l, s->spec, dk, dv);
      if (s->kern) ld_check_kernel_inputs(l, s, i);
    } else {
      return rt_err(l->d, l->cfg_path, "layer_types[%d]: unknown layer kind '%s' for qwen3_next "
                    "(linear_attention, full_attention, sliding_attention)", i, types[i]);
    }
    int only = 0;
    for (size_t k = 0; json_is_array(mlp_only) && k < json_array_size(mlp_only); k++)
      only |= json_integer_value(json_array_get(mlp_only, k)) == i;
    char pm[300];
    snprintf(pm, sizeof pm, "%smlp.", p);
    if (!only && n_exp > 0 && (i + 1) % (step ? step : 1) == 0) {
      L->ffn = MDL_MOE;
      hf_moe_qwen(l, &L->moe2, pm, n_exp, topk, norm_topk, moe_inter, sh_inter);
    } else {
      L->ffn = MDL_MLP;
      hf_mlp(l, &L->mlp2, pm, inter, MDL_ACT_SWIGLU);
    }
  }
  return l->d->set ? -1 : 0;
}

/* ---- Nemotron-H ---------------------------------------------------------- */
static int read_nemotron_h(mdl_ld *l, char **types, int n) {
  mdl_model *m = l->m;
  json_t *c = l->cfg;
  char nm[512], p[256];
  int d = m->d_model;
  int nh = (int)ld_int(l, c, "num_attention_heads", 0, 1), nkv = (int)ld_int(l, c, "num_key_value_heads", nh, 0);
  int hd = (int)ld_int(l, c, "head_dim", d / (nh ? nh : 1), 0);
  int mh = (int)ld_int(l, c, "mamba_num_heads", 0, 1), mhd = (int)ld_int(l, c, "mamba_head_dim", 0, 1);
  int ng = (int)ld_int(l, c, "n_groups", 1, 0), ds = (int)ld_int(l, c, "ssm_state_size", 0, 1);
  int cw = (int)ld_int(l, c, "conv_kernel", 4, 0), inter = (int)ld_int(l, c, "intermediate_size", 0, 1);
  double tmin = ld_num(l, c, "time_step_min", 0.001, 0);
  const char *act = ld_str(l, c, "mlp_hidden_act", "relu2", 0);
  float eps = (float)ld_num(l, c, "layer_norm_epsilon", 1e-5, 0);
  if (l->d->set) return -1;
  if (strcmp(act, "relu2")) return rt_err(l->d, l->cfg_path, "mlp_hidden_act '%s' is not supported (relu2)", act);
  if (ng <= 0 || mh % ng) return rt_err(l->d, l->cfg_path, "mamba_num_heads must be a multiple of n_groups");
  for (int i = 0; i < n && !l->d->set; i++) {
    l->layer = i;
    mdl_layer *L = &m->layers[i];
    const char *t = types[i];
    snprintf(L->label, sizeof L->label, "%s", t);
    snprintf(p, sizeof p, "backbone.layers.%d.", i);
    L->norm1 = ld_w(l, NM("%snorm.weight", p), 1, d, 0, 0);
    char px[300];
    snprintf(px, sizeof px, "%smixer.", p);
    if (!strcmp(t, "attention") || !strcmp(t, "full_attention")) {
      L->mixer = MDL_ATTN;
      /* full causal attention: transformers' NemotronH has a sliding_window config key but never applies it */
      hf_attn(l, &L->attn, px, nh, nkv, hd, 0, 0, ld_bool(l, c, "attention_bias", 0));
    } else if (!strcmp(t, "mlp")) {
      L->mixer = MDL_MLP;
      hf_mlp(l, &L->mlp1, px, inter, MDL_ACT_RELU2);
    } else if (!strcmp(t, "mamba") || !strcmp(t, "linear_attention")) {
      mdl_ssm *s = &L->ssm;
      L->mixer = MDL_SSM;
      snprintf(s->spec, sizeof s->spec, "mamba2");
      s->h_qk = ng, s->h_v = mh, s->dk = ds, s->dv = mhd;
      ssm_offsets(s, 1, 0, 0);
      int di = mh * mhd, gs = ng * ds, conv_dim = di + 2 * gs;
      int rows = di + conv_dim + mh;
      const float *w0 = ld_w(l, NM("%sin_proj.weight", px), 2, rows, d, 0);
      const float *b0 = ld_w_opt(l, NM("%sin_proj.bias", px), 1, rows, 0, 0);
      float *w = l->d->set ? NULL : ld_alloc(l, (size_t)s->n_in * d);
      if (!w) break;
      /* HF rows: z (di), x (di), B (gs), C (gs), dt (mh)  ->  q = C, k = B, v = x, z, a = dt */
      ld_rows(w, s->off_q, w0, di + di + gs, gs, d);
      ld_rows(w, s->off_k, w0, di + di, gs, d);
      ld_rows(w, s->off_v, w0, di, di, d);
      ld_rows(w, s->off_z, w0, 0, di, d);
      ld_rows(w, s->off_a, w0, di + conv_dim, mh, d);
      s->w_in = (mdl_mat){w, s->n_in, d};
      if (b0) {
        float *b = ld_alloc(l, (size_t)s->n_in);
        ld_rows(b, s->off_q, b0, di + di + gs, gs, 1);
        ld_rows(b, s->off_k, b0, di + di, gs, 1);
        ld_rows(b, s->off_v, b0, di, di, 1);
        ld_rows(b, s->off_z, b0, 0, di, 1);
        ld_rows(b, s->off_a, b0, di + conv_dim, mh, 1);
        s->b_in = b;
      }
      s->conv_w = cw, s->conv_v = 1, s->conv_ch = conv_dim;
      const float *cwt = ld_w(l, NM("%sconv1d.weight", px), 3, conv_dim, 1, cw);
      const float *cb = ld_w_opt(l, NM("%sconv1d.bias", px), 1, conv_dim, 0, 0);
      if (l->d->set) break;
      float *cwp = ld_alloc(l, (size_t)conv_dim * cw);
      ld_rows(cwp, 0, cwt, di + gs, gs, cw); /* C */
      ld_rows(cwp, gs, cwt, di, gs, cw);     /* B */
      ld_rows(cwp, 2 * gs, cwt, 0, di, cw);  /* x */
      s->conv_wt = cwp;
      if (cb) {
        float *cbp = ld_alloc(l, (size_t)conv_dim);
        ld_rows(cbp, 0, cb, di + gs, gs, 1);
        ld_rows(cbp, gs, cb, di, gs, 1);
        ld_rows(cbp, 2 * gs, cb, 0, di, 1);
        s->conv_b = cbp;
      }
      s->A_log = ld_w(l, NM("%sA_log", px), 1, mh, 0, 0);
      s->dt_bias = ld_w(l, NM("%sdt_bias", px), 1, mh, 0, 0);
      s->D = ld_w_opt(l, NM("%sD", px), 1, mh, 0, 0);
      s->dt_min = (float)tmin, s->dt_max = INFINITY, s->dt_scales_v = 1;
      s->l2 = MDL_L2_NONE, s->q_scale = sqrtf((float)ds);
      s->onorm = MDL_ONORM_GATE_NORM, s->onorm_group = di / ng, s->onorm_eps = eps;
      s->onorm_w = ld_w(l, NM("%snorm.weight", px), 1, di, 0, 0);
      s->wo = (mdl_mat){ld_w(l, NM("%sout_proj.weight", px), 2, d, di, 0), d, di};
      s->kern = ld_kernel(l, s->spec, ds, mhd);
      if (s->kern) ld_check_kernel_inputs(l, s, i);
    } else {
      return rt_err(l->d, l->cfg_path, "layers_block_type[%d]: layer kind '%s' is not supported for nemotron_h "
                    "(mamba/linear_attention, attention/full_attention, mlp)", i, t);
    }
  }
  return l->d->set ? -1 : 0;
}

static int types_from(mdl_ld *l, json_t *arr, const char *key, char ***out, int *n) {
  if (!json_is_array(arr)) return rt_err(l->d, l->cfg_path, "key '%s' must be a list of layer kinds", key);
  *n = (int)json_array_size(arr);
  *out = calloc((size_t)*n + 1, sizeof **out);
  for (int i = 0; i < *n; i++) {
    json_t *e = json_array_get(arr, (size_t)i);
    if (!json_is_string(e)) return rt_err(l->d, l->cfg_path, "%s[%d] must be a string", key, i);
    (*out)[i] = strdup(json_string_value(e));
  }
  return 0;
}

int hf_read_hybrid_qwen3(mdl_ld *l, char **types, int n);

int mdl_read_hf(mdl_ld *l) {
  mdl_model *m = l->m;
  json_t *c = l->cfg;
  const char *mt = ld_str(l, c, "model_type", NULL, 1);
  if (!mt) return -1;
  snprintf(m->arch, sizeof m->arch, "%s", mt);
  int is_q = !strcmp(mt, "qwen3_next"), is_n = !strcmp(mt, "nemotron_h"), is_g = !strcmp(mt, "hybrid_qwen3");
  if (!is_q && !is_n && !is_g)
    return rt_err(l->d, l->cfg_path, "model_type '%s' is not a supported architecture (qwen3_next, nemotron_h, hybrid_qwen3)", mt);
  m->d_model = (int)ld_int(l, c, "hidden_size", 0, 1);
  m->vocab = (int)ld_int(l, c, "vocab_size", 0, 1);
  int n_cfg = (int)ld_int(l, c, "num_hidden_layers", -1, 0);
  m->norm_eps = (float)ld_num(l, c, is_n ? "layer_norm_epsilon" : "rms_norm_eps", 1e-6, 0);
  m->norm_one_plus = is_q;
  m->max_ctx = (int)ld_int(l, c, "max_position_embeddings", 0, 0);
  json_t *bos = json_object_get(c, "bos_token_id"), *eos = json_object_get(c, "eos_token_id");
  if (json_is_integer(bos)) m->bos_id = (int)json_integer_value(bos);
  if (json_is_integer(eos)) m->eos_id = (int)json_integer_value(eos);
  if (l->d->set) return -1;
  if (m->d_model <= 0 || m->vocab <= 0) return rt_err(l->d, l->cfg_path, "hidden_size and vocab_size must be positive");
  /* the layer pattern, normalized to an explicit list */
  char **types = NULL;
  int n = 0, rc = 0;
  json_t *lt = json_object_get(c, "layer_types"), *lbt = json_object_get(c, "layers_block_type");
  const char *hop = json_is_string(json_object_get(c, "hybrid_override_pattern"))
                        ? json_string_value(json_object_get(c, "hybrid_override_pattern")) : NULL;
  if (is_n && lbt && !json_is_null(lbt)) rc = types_from(l, lbt, "layers_block_type", &types, &n);
  else if (is_n && hop) rc = ld_pattern_nemotron(l, hop, &types, &n);
  else if (is_g && hop) {
    /* hybrid-model-factory: dash-separated tokens, e.g. "*-GKA-GKA-*" */
    char *s = strdup(hop), *save = NULL;
    types = calloc(strlen(hop) + 2, sizeof *types);
    for (char *t = strtok_r(s, "-", &save); t; t = strtok_r(NULL, "-", &save)) types[n++] = strdup(t);
    free(s);
  } else if (lt && !json_is_null(lt)) rc = types_from(l, lt, "layer_types", &types, &n);
  else if (is_q && n_cfg > 0) {
    int iv = (int)ld_int(l, c, "full_attention_interval", 4, 0);
    types = calloc((size_t)n_cfg + 1, sizeof *types);
    for (n = 0; n < n_cfg; n++) types[n] = strdup((n + 1) % (iv > 0 ? iv : 1) == 0 ? "full_attention" : "linear_attention");
  } else rc = rt_err(l->d, l->cfg_path, "no layer pattern (layer_types, layers_block_type, hybrid_override_pattern)");
  if (!rc && n_cfg >= 0 && n != n_cfg)
    rc = rt_err(l->d, l->cfg_path, "the layer pattern has %d entries but num_hidden_layers is %d", n, n_cfg);
  if (!rc && n == 0) rc = rt_err(l->d, l->cfg_path, "the layer pattern is empty");
  if (!rc) {
    m->n_layers = n;
    m->layers = calloc((size_t)n, sizeof *m->layers);
    const char *pre = is_n ? "backbone." : "model.";
    char nm[256];
    snprintf(nm, sizeof nm, "%s%s", pre, is_n ? "embeddings.weight" : "embed_tokens.weight");
    m->embed = ld_w(l, nm, 2, m->vocab, m->d_model, 0);
    snprintf(nm, sizeof nm, "%s%s", pre, is_n ? "norm_f.weight" : "norm.weight");
    m->final_norm = ld_w(l, nm, 1, m->d_model, 0, 0);
    int tie = ld_bool(l, c, "tie_word_embeddings", 0);
    const float *lm = ld_w_opt(l, "lm_head.weight", 2, m->vocab, m->d_model, 0);
    if (!lm && !tie) lm = ld_w(l, "lm_head.weight", 2, m->vocab, m->d_model, 0);
    m->tied = !lm;
    m->lm_head = (mdl_mat){lm ? lm : m->embed, m->vocab, m->d_model};
    if (!l->d->set)
      rc = is_q ? read_qwen3_next(l, types, n) : is_n ? read_nemotron_h(l, types, n) : hf_read_hybrid_qwen3(l, types, n);
  }
  for (int i = 0; types && types[i]; i++) free(types[i]);
  free(types);
  return rc || l->d->set ? -1 : 0;
}
