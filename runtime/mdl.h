/* runtime stage: the normalized Hybrid model — one internal form that both
 * ssmc's own model file and Hugging Face folders are mapped onto.
 *
 * A model is a list of layers; a layer is a pre-normed sequence mixer
 * (attention, an SSM layer from a spec, or — Nemotron-H style — an MLP/MoE in
 * the mixer slot) followed by an optional pre-normed channel mixer (MLP or
 * MoE). Every weight is fp32, row-major (out, in): y = x W'. Weights read as
 * fp32 point into the safetensors mapping; converted or re-arranged ones
 * (bf16 -> f32, the SSM layer's fused input projection) are owned by the model. */
#ifndef MDL_H
#define MDL_H
#include <stdint.h>
#include "rt_diag.h"
#include "ssmc_kernel.h"
#include "st_file.h"

enum { MDL_NONE = 0, MDL_ATTN, MDL_SSM, MDL_MLP, MDL_MOE };
enum { MDL_ACT_SWIGLU = 0, MDL_ACT_RELU2 };
/* SSM output norms: Qwen/GKA normalize y per head then gate by silu(z);
 * Mamba-2 gates first, then normalizes per group of `onorm_group` channels. */
enum { MDL_ONORM_NONE = 0, MDL_ONORM_NORM_GATE, MDL_ONORM_GATE_NORM, MDL_ONORM_NORM };
/* L2 normalization of q and k: x / sqrt(|x|^2 + eps) (fla) or x / (|x| + eps) (GKA). */
enum { MDL_L2_NONE = 0, MDL_L2_RSQRT, MDL_L2_DIV };
/* beta: sigmoid(b), or (sigmoid(b) + 1e-6)^2 (GKA scales both k and v by sigmoid(b) + 1e-6). */
enum { MDL_BETA_NONE = 0, MDL_BETA_SIGMOID, MDL_BETA_SIGMOID_SQ };

typedef struct { const float *w; int rows, cols; } mdl_mat;

typedef struct {
  int n_heads, n_kv, head_dim;
  int rot_dim;           /* rotary dims (first rot_dim of each head, rotate-half), 0: no RoPE */
  double theta;
  int window;            /* sliding window (keys within the last `window` positions), 0: full */
  int out_gate;          /* q_proj rows are per head [q (hd), gate (hd)]; o *= sigmoid(gate) */
  mdl_mat wq, wk, wv, wo;
  const float *bq, *bk, *bv, *bo; /* biases or NULL */
  const float *q_norm, *k_norm;   /* per-head RMSNorm weights (head_dim) or NULL */
} mdl_attn;

typedef struct {
  char spec[64];         /* spec (family) name or path, as the model file gives it */
  const ssmc_kernel *kern;
  int h_qk, h_v, dk, dv; /* heads and head dims (kernel K = dk, V = dv) */
  int n_q;               /* rows of q in the fused projection: h_qk*dk */
  /* fused input projection rows, in this order: q, k, v, z, a, b, alpha (absent parts: 0 rows) */
  mdl_mat w_in;
  int off_q, off_k, off_v, off_z, off_a, off_b, off_al, n_in;
  const float *b_in;     /* bias of w_in (n_in) or NULL */
  int conv_w;            /* conv kernel width (0: none) */
  int conv_ch;           /* channels through the conv: q, k (and v when conv_v) */
  int conv_v;
  const float *conv_wt;  /* (conv_ch, conv_w) */
  const float *conv_b;   /* (conv_ch) or NULL */
  const float *A_log, *dt_bias, *D; /* (h_v) each; D may be NULL */
  float dt_min, dt_max;  /* clamp of softplus(a + dt_bias) */
  int dt_scales_v;       /* Mamba-2: v = x * dt and g = -exp(A_log) dt */
  int beta_mode, alpha;  /* MDL_BETA_*, alpha connection from sigmoid(alpha) */
  int l2;                /* MDL_L2_* on q and k */
  float l2_eps;
  float q_scale;         /* q multiplied by this before the kernel (the kernel applies 1/sqrt(K)) */
  int onorm, onorm_group;
  float onorm_eps;
  const float *onorm_w;  /* (h_v*dv) or (dv), see onorm_per_head */
  int onorm_per_head;    /* weight of dv shared by all heads */
  mdl_mat wo;            /* (d_model, h_v*dv) */
  int iters;             /* solver iterations (0: the spec's default) */
} mdl_ssm;

typedef struct {
  int act;               /* MDL_ACT_* */
  int inter;
  mdl_mat w_up;          /* SwiGLU: rows [gate (inter); up (inter)]; relu2: up (inter) */
  mdl_mat w_down;        /* (d_model, inter) */
} mdl_mlp;

typedef struct {
  int n_exp, top_k, norm_topk;
  mdl_mat router;        /* (n_exp, d_model) */
  mdl_mlp *experts;      /* n_exp */
  int has_shared;
  mdl_mlp shared;
  mdl_mat shared_gate;   /* (1, d_model) or w == NULL */
} mdl_moe;

typedef struct {
  int mixer, ffn;        /* MDL_* */
  char label[32];        /* what the source called it ("linear_attention", "M", "GKA", ...) */
  const float *norm1, *norm2;
  mdl_attn attn;
  mdl_ssm ssm;
  mdl_mlp mlp1, mlp2;    /* mixer-slot MLP, channel MLP */
  mdl_moe moe1, moe2;
} mdl_layer;

/* A tensor the model read from its weight files, for `ssmc model show`. */
typedef struct {
  char *name;            /* as named in the file */
  int layer;             /* -1: embedding, final norm, LM head */
  int ndim;
  int64_t shape[8];
  char dtype[12];
} mdl_wref;

typedef struct {
  char arch[64];         /* "qwen3_next", "nemotron_h", "hybrid_qwen3", or "ssmc" */
  char dir[4096];
  char tokenizer[4200];  /* path of tokenizer.json, or "" */
  int d_model, vocab, n_layers;
  float norm_eps;
  int norm_one_plus;     /* zero-centered RMSNorm weights: x * (1 + w) */
  const float *embed;    /* (vocab, d_model) */
  mdl_mat lm_head;       /* (vocab, d_model); may point at embed */
  int tied;
  const float *final_norm;
  mdl_layer *layers;
  int max_ctx;           /* positions the model was configured for (informational) */
  int bos_id, eos_id;    /* -1 when absent */
  st_set *st;
  void **owned;          /* buffers owned by the model */
  int n_owned, cap_owned;
  mdl_wref *wrefs;       /* every tensor read, in reading order */
  int n_wrefs, cap_wrefs;
} mdl_model;

/* Resolves an SSM layer's spec to a kernel: built-in family names are looked
 * up in the built-in table; a resolver given by the caller (the CLI, which can
 * compile a spec in-process) may serve spec files. Returns NULL and sets d. */
typedef const ssmc_kernel *(*mdl_resolver)(void *ctx, const char *spec, int K, int V, rt_diag *d);

typedef struct {
  mdl_resolver resolve;  /* may be NULL */
  void *resolve_ctx;
} mdl_opts;

/* Loads a model folder: ssmc's own model.yaml, or a Hugging Face config.json.
 * Everything is validated (config, pattern, every tensor's presence, dtype and
 * shape) before returning 0; on error returns -1 with d set and *m freed. */
int mdl_load(const char *dir, const mdl_opts *o, mdl_model *m, rt_diag *d);
void mdl_free(mdl_model *m);
/* The normalized per-layer list, as `ssmc model show` prints it, each layer
 * followed by the tensors it reads (name, shape, dtype as in the file). */
void mdl_show(const mdl_model *m, FILE *out);
const char *mdl_kind_name(int kind);

#endif
