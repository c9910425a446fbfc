/* runtime stage: the CPU backend's private state, shared by its files
 * (be_cpu.c: the operation table, GEMMs, norms, SSM pre/post work;
 * be_cpu_attn.c: attention). One thread pool runs everything: OpenBLAS is
 * kept single-threaded and each GEMM is cut into column blocks that the
 * pool's workers hand to OpenBLAS, so no second set of threads competes
 * with ours for the cores. */
#ifndef BE_CPU_H
#define BE_CPU_H
#include "be.h"
#include "rt_pool.h"

enum { CPU_GEMM_BLOCKS = 1024 }; /* column blocks of one gemm_n dispatch */

typedef struct { const be_gemm *g; int n0, n1; } cpu_gemm_block;

struct be {
  rtp_pool *pool;
  cpu_gemm_block blocks[CPU_GEMM_BLOCKS];
  int threads;
  float *ws;          /* per-worker kernel workspace */
  int64_t ws_floats;  /* per worker */
  float *att;         /* per-worker attention scratch (be_cpu_attn.c) */
  int64_t att_floats; /* per worker */
};

void cpu_gemm_n(be *b, int n, const be_gemm *g);
void cpu_mlp_act(be *b, int T, int act, int inter, const float *up, float *out);
/* MLP groups (be_cpu_ffn.c) */
void cpu_ffn_n(be *b, int n, const be_ffn *f);
/* Per-worker floats the attention of this shape needs. */
int64_t cpu_attn_scratch(int n_heads, int n_kv, int head_dim);
void cpu_attn(be *b, const be_attn_job *j);

#endif
