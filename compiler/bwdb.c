/* compiler stage: CPU timing of the backward (see bwdb.h). */
#include "bwdb.h"
#include "chk.h"
#include "chk_bwd.h"
#include <stdlib.h>
#include <string.h>

typedef struct {
  chk_batch *b;
  const ssmc_kernel *k;
  int threads, iters;
  const void *dy;
  float **dso, **din, **ds0;
} bwdb_ctx;

static void bwdb_run(void *v) {
  bwdb_ctx *c = v;
  char err[1024]; /* (the bench checked the kernel's backward before timing it) */
  chkb_run(c->b, c->k, c->threads, c->iters, c->dy, c->dso, c->k->n_aux ? chk_batch_x(c->b) : NULL, c->din, c->ds0, NULL,
           err, sizeof err);
}

/* dy (T_total, H, V) in the kernel's dtype, values in [-1, 1) */
static void *bwdb_dy(const ssmc_kernel *k, int64_t ny) {
  void *dy = calloc((size_t)ny, 4);
  uint64_t s = 99;
  for (int64_t j = 0; j < ny; j++) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    float v = (float)((s >> 40) & 0xffff) / 32768.0f - 1.0f;
    if (k->dtype == SSMC_BF16) { union { float f; uint32_t u; } c = {v}; ((uint16_t *)dy)[j] = (uint16_t)(c.u >> 16); }
    else ((float *)dy)[j] = v;
  }
  return dy;
}

int bwdb_kernel(const cls_family *f, const ssmc_kernel *k, const bench_opts *o, bwdb_result *r) {
  if (!k->bwd) return -1;
  memset(r, 0, sizeof *r);
  chk_shape sh = {"bench", o->N, {0}, o->H, o->H, 1};
  for (int n = 0; n < o->N; n++) sh.lens[n] = o->T;
  chk_batch *b = chk_batch_new(f, k, &sh, 4321);
  int64_t T = chk_batch_tokens(b);
  void *dy = bwdb_dy(k, T * o->H * k->V);
  float *dso[SPEC_MAX_IO] = {0}, *ds0[SPEC_MAX_IO] = {0}, *din[SPEC_MAX_IO] = {0};
  for (int i = 0; i < k->n_states; i++) {
    size_t n = (size_t)o->N * o->H * k->state_size[i];
    dso[i] = calloc(n, sizeof(float));
    ds0[i] = calloc(n, sizeof(float));
    for (size_t j = 0; j < n; j++) dso[i][j] = (float)((j * 2654435761u) % 1000) * 1e-3f - 0.5f;
  }
  for (int i = 0; i < k->n_inputs; i++) { /* 64-byte aligned, as a framework's tensors */
    size_t bytes = (size_t)(T * o->H * ssmc_input_len(k, i)) * sizeof(float);
    din[i] = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
    memset(din[i], 0, bytes);
  }
  chk_run_fwd(b, k, o->threads, o->iters); /* the forward's x for a solve spec */
  bwdb_ctx c = {b, k, o->threads, o->iters, dy, dso, din, ds0};
  r->bwd_ms = bench_time_blocks(bwdb_run, &c, o->reps, o->threads, &r->bwd_clean);
  for (int i = 0; i < SPEC_MAX_IO; i++) { free(dso[i]); free(ds0[i]); free(din[i]); }
  free(dy);
  chk_batch_free(b);
  return 0;
}
