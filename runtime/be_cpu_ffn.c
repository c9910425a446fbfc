/* runtime stage: the CPU backend's MLP groups (be.h, be_ffn). A MoE layer
 * runs the experts its tokens were routed to and its shared expert together:
 * the up projections of all of them as one group of GEMMs (one dispatch on
 * the pool), the activations, then the down projections as another group.
 * (Cutting each MLP along its inner dimension so that up, activation and
 * down run in a single dispatch was measured on the llama.cpp benchmark's
 * model at batch 1 and 8: no faster, so not kept.) */
#include "be_cpu.h"

void cpu_ffn_n(be *b, int n, const be_ffn *f) {
  if (n <= 0) return;
  be_gemm g[n];
  for (int i = 0; i < n; i++) g[i] = (be_gemm){f[i].M, f[i].x, &f[i].p->w_up, NULL, f[i].ws, 0};
  cpu_gemm_n(b, n, g);
  for (int i = 0; i < n; i++) {
    const mdl_mlp *p = f[i].p;
    float *act = f[i].ws + (size_t)f[i].M * p->w_up.rows; /* (M, inter) */
    cpu_mlp_act(b, f[i].M, p->act, p->inter, f[i].ws, act);
    g[i] = (be_gemm){f[i].M, act, &p->w_down, NULL, f[i].y, f[i].accumulate};
  }
  cpu_gemm_n(b, n, g);
}
