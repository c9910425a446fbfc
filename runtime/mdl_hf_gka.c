/* runtime stage: awslabs/hybrid-model-factory's HybridQwen3 folders
 * (model_type hybrid_qwen3): Qwen3 decoder layers ("*": attention with
 * QK-norm and RoPE, SwiGLU MLP) with some sequence mixers replaced by Gated
 * KalmaNet ("GKA"), mapped onto the normalized model. GKA's k and v heads are
 * repeated to the expanded head count in the weights (the conv acts per
 * channel, so repeating before it is the same as after); beta scales both k
 * and v by sigmoid(b) + 1e-6, which is beta = (sigmoid(b) + 1e-6)^2 in the
 * spec's H and U updates. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "mdl_ld.h"

#define NM(...) (snprintf(nm, sizeof nm, __VA_ARGS__), nm)

static void rows_expanded(float *dst, int dst_row, const float *src, int n_src_heads, int groups, int hd, int cols) {
  for (int h = 0; h < n_src_heads * groups; h++) ld_rows(dst, dst_row + h * hd, src, (h / groups) * hd, hd, cols);
}

int hf_read_hybrid_qwen3(mdl_ld *l, char **types, int n) {
  mdl_model *m = l->m;
  json_t *c = l->cfg, *gc = json_object_get(c, "gka_config");
  char nm[512], p[256];
  int d = m->d_model;
  int nh = (int)ld_int(l, c, "num_attention_heads", 0, 1), nkv = (int)ld_int(l, c, "num_key_value_heads", nh, 0);
  int hd = (int)ld_int(l, c, "head_dim", d / (nh ? nh : 1), 0);
  int inter = (int)ld_int(l, c, "intermediate_size", 0, 1);
  double theta = ld_num(l, c, "rope_theta", 10000.0, 0);
  json_t *rp = json_object_get(c, "rope_parameters");
  if (json_is_object(rp)) theta = ld_num(l, rp, "rope_theta", theta, 0);
  int window = ld_bool(l, c, "use_sliding_window", 0) ? (int)ld_int(l, c, "sliding_window", 0, 0) : 0;
  /* GKA options (hybrid-model-factory GKAConfig defaults) */
  int use_alpha = ld_bool(l, gc, "use_alpha_connection", 1), use_v_conv = ld_bool(l, gc, "use_v_conv", 1);
  int use_fg = ld_bool(l, gc, "use_forgetting_gate", 1), gla_rescale = ld_bool(l, gc, "gla_rescale", 1);
  int use_gate = ld_bool(l, gc, "use_gate", 1), use_beta = ld_bool(l, gc, "use_beta_gate", 1);
  int use_fg_kk = ld_bool(l, gc, "use_forgetting_gate_kk", 1);
  int iters = (int)ld_int(l, gc, "num_iter", 30, 0), cw = (int)ld_int(l, gc, "conv_size", 4, 0);
  double ridge = ld_num(l, gc, "ridge_strength", 0.02, 0);
  float geps = (float)ld_num(l, gc, "norm_eps", 1e-6, 0);
  const char *solver = ld_str(l, gc, "solver_type", "chebyshev", 0);
  if (l->d->set) return -1;
  if (gc && json_object_get(gc, "kv_proj_rank") && !json_is_null(json_object_get(gc, "kv_proj_rank")))
    return rt_err(l->d, l->cfg_path, "gka_config.kv_proj_rank (low-rank KV expansion) is not supported");
  if (!use_fg || !use_fg_kk || !gla_rescale || !use_gate || strcmp(solver, "chebyshev") || fabs(ridge - 0.02) > 1e-12)
    return rt_err(l->d, l->cfg_path, "gka_config: the built-in gated_kalmanet spec needs use_forgetting_gate(_kk), "
                  "gla_rescale, use_gate, solver_type chebyshev and ridge_strength 0.02");
  int H = nh > nkv ? nh : nkv, gq = H / nh, gk = H / nkv;
  if (H % nh || H % nkv) return rt_err(l->d, l->cfg_path, "num_attention_heads and num_key_value_heads must divide each other");
  for (int i = 0; i < n && !l->d->set; i++) {
    l->layer = i;
    mdl_layer *L = &m->layers[i];
    snprintf(L->label, sizeof L->label, "%s", types[i]);
    snprintf(p, sizeof p, "model.layers.%d.", i);
    L->norm1 = ld_w(l, NM("%sinput_layernorm.weight", p), 1, d, 0, 0);
    L->norm2 = ld_w(l, NM("%spost_attention_layernorm.weight", p), 1, d, 0, 0);
    if (!strcmp(types[i], "*") || !strcmp(types[i], "SWA")) {
      mdl_attn *a = &L->attn;
      L->mixer = MDL_ATTN;
      char pa[300];
      snprintf(pa, sizeof pa, "%s%s.", p, !strcmp(types[i], "*") ? "self_attn" : "swa");
      a->n_heads = nh, a->n_kv = nkv, a->head_dim = hd, a->rot_dim = hd, a->theta = theta;
      a->window = !strcmp(types[i], "SWA") ? window : 0;
      a->wq = (mdl_mat){ld_w(l, NM("%sq_proj.weight", pa), 2, nh * hd, d, 0), nh * hd, d};
      a->wk = (mdl_mat){ld_w(l, NM("%sk_proj.weight", pa), 2, nkv * hd, d, 0), nkv * hd, d};
      a->wv = (mdl_mat){ld_w(l, NM("%sv_proj.weight", pa), 2, nkv * hd, d, 0), nkv * hd, d};
      a->wo = (mdl_mat){ld_w(l, NM("%so_proj.weight", pa), 2, d, nh * hd, 0), d, nh * hd};
      a->q_norm = ld_w(l, NM("%sq_norm.weight", pa), 1, hd, 0, 0);
      a->k_norm = ld_w(l, NM("%sk_norm.weight", pa), 1, hd, 0, 0);
    } else if (!strcmp(types[i], "GKA")) {
      mdl_ssm *s = &L->ssm;
      L->mixer = MDL_SSM;
      char pg[300];
      snprintf(pg, sizeof pg, "%sgka.", p);
      snprintf(s->spec, sizeof s->spec, "gated_kalmanet");
      s->h_qk = H, s->h_v = H, s->dk = hd, s->dv = hd;
      s->n_q = H * hd;
      s->off_q = 0, s->off_k = H * hd, s->off_v = 2 * H * hd, s->off_z = 3 * H * hd, s->off_a = 4 * H * hd;
      s->off_b = s->off_a + H;
      s->off_al = s->off_b + (use_beta ? H : 0);
      s->n_in = s->off_al + (use_alpha ? H : 0);
      const float *wq = ld_w(l, NM("%sq_proj.weight", pg), 2, nh * hd, d, 0);
      const float *wk = ld_w(l, NM("%sk_proj.weight", pg), 2, nkv * hd, d, 0);
      const float *wv = ld_w(l, NM("%sv_proj.weight", pg), 2, nkv * hd, d, 0);
      const float *wg = ld_w(l, NM("%sg_proj.weight", pg), 2, H * hd, d, 0);
      const float *wa = ld_w(l, NM("%sa_proj.weight", pg), 2, H, d, 0);
      const float *wb = use_beta ? ld_w(l, NM("%sb_proj.weight", pg), 2, H, d, 0) : NULL;
      const float *bb = use_beta ? ld_w(l, NM("%sb_proj.bias", pg), 1, H, 0, 0) : NULL;
      const float *wal = use_alpha ? ld_w(l, NM("%salpha_proj.weight", pg), 2, H, d, 0) : NULL;
      const float *bal = use_alpha ? ld_w(l, NM("%salpha_proj.bias", pg), 1, H, 0, 0) : NULL;
      const float *cq = ld_w(l, NM("%sq_conv1d.weight", pg), 3, nh * hd, 1, cw);
      const float *ck = ld_w(l, NM("%sk_conv1d.weight", pg), 3, nkv * hd, 1, cw);
      const float *cv = use_v_conv ? ld_w(l, NM("%sv_conv1d.weight", pg), 3, nkv * hd, 1, cw) : NULL;
      if (l->d->set) break;
      float *w = ld_alloc(l, (size_t)s->n_in * d), *b = ld_alloc(l, (size_t)s->n_in);
      rows_expanded(w, s->off_q, wq, nh, gq, hd, d);
      rows_expanded(w, s->off_k, wk, nkv, gk, hd, d);
      rows_expanded(w, s->off_v, wv, nkv, gk, hd, d);
      ld_rows(w, s->off_z, wg, 0, H * hd, d);
      ld_rows(w, s->off_a, wa, 0, H, d);
      if (use_beta) { ld_rows(w, s->off_b, wb, 0, H, d); ld_rows(b, s->off_b, bb, 0, H, 1); }
      if (use_alpha) { ld_rows(w, s->off_al, wal, 0, H, d); ld_rows(b, s->off_al, bal, 0, H, 1); }
      s->w_in = (mdl_mat){w, s->n_in, d};
      s->b_in = b;
      s->conv_w = cw, s->conv_v = use_v_conv, s->conv_ch = (use_v_conv ? 3 : 2) * H * hd;
      float *c = ld_alloc(l, (size_t)s->conv_ch * cw);
      rows_expanded(c, 0, cq, nh, gq, hd, cw);
      rows_expanded(c, H * hd, ck, nkv, gk, hd, cw);
      if (use_v_conv) rows_expanded(c, 2 * H * hd, cv, nkv, gk, hd, cw);
      s->conv_wt = c;
      s->A_log = ld_w(l, NM("%sA_log", pg), 1, H, 0, 0);
      s->dt_bias = ld_w(l, NM("%sdt_bias", pg), 1, H, 0, 0);
      s->dt_min = 0.f, s->dt_max = INFINITY;
      s->beta_mode = use_beta ? MDL_BETA_SIGMOID_SQ : MDL_BETA_NONE;
      s->alpha = use_alpha;
      s->l2 = MDL_L2_DIV, s->l2_eps = 1e-6f, s->q_scale = 1.f;
      s->onorm = MDL_ONORM_NORM_GATE, s->onorm_per_head = 1, s->onorm_group = hd, s->onorm_eps = geps;
      s->onorm_w = ld_w(l, NM("%so_norm.weight", pg), 1, hd, 0, 0);
      s->wo = (mdl_mat){ld_w(l, NM("%so_proj.weight", pg), 2, d, H * hd, 0), d, H * hd};
      s->iters = iters;
      s->kern = ld_kernel(l, s->spec, hd, hd);
      if (s->kern) ld_check_kernel_inputs(l, s, i);
    } else {
      return rt_err(l->d, l->cfg_path, "hybrid_override_pattern[%d]: layer kind '%s' is not supported for hybrid_qwen3 "
                    "(*, SWA, GKA)", i, types[i]);
    }
    char pm[300];
    snprintf(pm, sizeof pm, "%smlp.", p);
    L->ffn = MDL_MLP;
    L->mlp2.act = MDL_ACT_SWIGLU, L->mlp2.inter = inter;
    const float *g = ld_w(l, NM("%sgate_proj.weight", pm), 2, inter, d, 0);
    const float *u = ld_w(l, NM("%sup_proj.weight", pm), 2, inter, d, 0);
    L->mlp2.w_down = (mdl_mat){ld_w(l, NM("%sdown_proj.weight", pm), 2, d, inter, 0), d, inter};
    if (l->d->set) break;
    float *w = ld_alloc(l, (size_t)2 * inter * d);
    ld_rows(w, 0, g, 0, inter, d);
    ld_rows(w, inter, u, 0, inter, d);
    L->mlp2.w_up = (mdl_mat){w, 2 * inter, d};
  }
  return l->d->set ? -1 : 0;
}
