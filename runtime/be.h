/* runtime stage: a backend is a table of operations. The model executor
 * (mx_exec.c) plans memory and walks the layers; every piece of arithmetic
 * goes through a be_ops table, so the CUDA backend is a second table (its own
 * allocator, GEMM, attention, conv, kernels), not a fork of the executor.
 * Tensors are row-major fp32; shapes are given per call. */
#ifndef BE_H
#define BE_H
#include <stddef.h>
#include <stdint.h>
#include "mdl.h"
#include "ssmc_kernel.h"

typedef struct be be;  /* backend instance (device, threads, handles) */

/* One attention call over T tokens of several sequences. Token t belongs to
 * slot slot[t] at position pos[t]; its keys/values were already appended to
 * the cache, so it attends to cache positions [max(0, pos - window + 1), pos]. */
typedef struct {
  int T, n_heads, n_kv, head_dim, window, max_ctx;
  const int32_t *slot, *pos;   /* (T) */
  const float *q;              /* (T, n_heads, head_dim) */
  const float *kc, *vc;        /* (n_slots, max_ctx, n_kv, head_dim) */
  float *o;                    /* (T, n_heads, head_dim) */
} be_attn_job;

/* The SSM layer's per-token pre-kernel work: causal conv1d + silu over the
 * first conv_ch channels of P (with the slot's conv tail), q/k L2 norm and
 * scale, gates (g, beta, alpha) and Mamba's dt scaling of v. */
typedef struct {
  const mdl_ssm *s;
  int T;
  const int32_t *slot;         /* (T) */
  const int32_t *seq_start;    /* (T) index of the first token of its sequence in this call */
  float *P;                    /* (T, n_in) projected inputs, conv'd in place */
  float *conv_tail;            /* (n_slots, conv_w - 1, conv_ch) */
  float *q, *k, *v, *g, *beta, *alpha, *xskip; /* kernel inputs (T, H, D) / (T, h_v); xskip = v before dt */
} be_ssm_prep;

/* One product of a group: y (M, W.rows) = x (M, W.cols) W' (+ bias) (+ y when accumulate). */
typedef struct {
  int M;
  const float *x;
  const mdl_mat *W;
  const float *bias;
  float *y;
  int accumulate;
} be_gemm;

/* One MLP of a group: y (M, d) = W_down act(W_up x) (+ y when accumulate).
 * ws: M x (W_up rows + inter) floats the backend may use. */
typedef struct {
  int M;
  const float *x;
  const mdl_mlp *p;
  float *y;
  int accumulate;
  float *ws;
} be_ffn;

/* What one layer needs from the backend's scratch (one member set per call). */
typedef struct {
  const mdl_attn *attn;     /* attention of this shape */
  const ssmc_kernel *kern;  /* this kernel's workspace */
} be_need;

typedef struct be_ops {
  const char *name;
  void *(*alloc)(be *b, size_t bytes);          /* zeroed, 64-byte aligned */
  void (*free)(be *b, void *p);
  /* y (M, W.rows) = x (M, W.cols) W' (+ bias) (+ y when accumulate) */
  void (*gemm)(be *b, int M, const float *x, const mdl_mat *W, const float *bias, float *y, int accumulate);
  /* n independent products run together (their outputs must not overlap):
   * the small ones of a decode step (MoE experts, q/k/v) share one dispatch */
  void (*gemm_n)(be *b, int n, const be_gemm *g);
  /* y = x / rms(x) * (w or 1 + w), rows of n */
  void (*rmsnorm)(be *b, int M, int n, const float *x, const float *w, int one_plus, float eps, float *y);
  /* per-head RMSNorm + RoPE on q (T, nq, hd) and k (T, nk, hd) at positions pos */
  void (*qk_prep)(be *b, int T, const int32_t *pos, float *q, int nq, float *k, int nk, const mdl_attn *a,
                  int one_plus, float eps);
  void (*attn)(be *b, const be_attn_job *j);
  void (*ssm_prep)(be *b, const be_ssm_prep *j);
  void (*ssm_fwd)(be *b, const ssmc_kernel *k, const ssmc_fwd_args *a);
  void (*ssm_decode)(be *b, const ssmc_kernel *k, const ssmc_decode_args *a);
  /* y (T, h_v, dv) += D xskip; then the output norm with gate z into out (T, h_v*dv) */
  void (*ssm_post)(be *b, const mdl_ssm *s, int T, float *y, const float *xskip, const float *P, float *out);
  /* n independent MLPs (the experts a MoE layer routed tokens to, its shared expert) */
  void (*ffn_n)(be *b, int n, const be_ffn *f);
  /* act (T, inter) from up (T, 2*inter | inter) */
  void (*mlp_act)(be *b, int T, int act, int inter, const float *up, float *out);
  void (*copy)(be *b, void *dst, const void *src, size_t bytes);
  void (*zero)(be *b, void *dst, size_t bytes);
  /* sizes the backend's scratch once, before any step, for what a layer
   * needs (called for every layer part). Returns -1 without memory. */
  int (*reserve)(be *b, const be_need *n);
} be_ops;

/* The CPU backend: OpenBLAS GEMMs, a persistent thread pool for the rest. */
const be_ops *be_cpu_ops(void);
be *be_cpu_create(int threads);
void be_cpu_destroy(be *b);

#endif
