/* compiler stage: CPU timing of the backward (see bwdb.h). */
#include "bwdb.h"
#include "chk.h"
#include "chk_bwd.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double bwdb_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static int bwdb_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int bwdb_kernel(const cls_family *f, const ssmc_kernel *k, const bench_opts *o, bwdb_result *r) {
  if (!k->bwd) return -1;
  chk_shape sh = {"bench", o->N, {0}, o->H, o->H, 1};
  for (int n = 0; n < o->N; n++) sh.lens[n] = o->T;
  chk_batch *b = chk_batch_new(f, k, &sh, 4321);
  int64_t T = chk_batch_tokens(b), ny = T * o->H * k->V;
  void *dy = calloc((size_t)ny, 4);
  uint64_t s = 99;
  for (int64_t j = 0; j < ny; j++) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    float v = (float)((s >> 40) & 0xffff) / 32768.0f - 1.0f;
    if (k->dtype == SSMC_BF16) { union { float f; uint32_t u; } c = {v}; ((uint16_t *)dy)[j] = (uint16_t)(c.u >> 16); }
    else ((float *)dy)[j] = v;
  }
  float *dso[SPEC_MAX_IO] = {0}, *ds0[SPEC_MAX_IO] = {0}, *din[SPEC_MAX_IO] = {0};
  for (int i = 0; i < k->n_states; i++) {
    size_t n = (size_t)o->N * o->H * k->state_size[i];
    dso[i] = calloc(n, sizeof(float));
    ds0[i] = calloc(n, sizeof(float));
    for (size_t j = 0; j < n; j++) dso[i][j] = (float)((j * 2654435761u) % 1000) * 1e-3f - 0.5f;
  }
  for (int i = 0; i < k->n_inputs; i++)
    din[i] = calloc((size_t)(T * o->H * ssmc_input_len(k, i)), sizeof(float));
  double tf[32], tb[32];
  int reps = o->reps < 32 ? o->reps : 32;
  if (reps < 1) reps = 1;
  chk_run_fwd(b, k, o->threads, o->iters); /* warm-up */
  chkb_run(b, k, o->threads, o->iters, dy, dso, k->n_aux ? chk_batch_x(b) : NULL, din, ds0);
  for (int i = 0; i < reps; i++) {
    double t0 = bwdb_now_ms();
    chk_run_fwd(b, k, o->threads, o->iters);
    double t1 = bwdb_now_ms();
    chkb_run(b, k, o->threads, o->iters, dy, dso, k->n_aux ? chk_batch_x(b) : NULL, din, ds0);
    double t2 = bwdb_now_ms();
    tf[i] = t1 - t0;
    tb[i] = t2 - t1;
  }
  qsort(tf, (size_t)reps, sizeof *tf, bwdb_cmp);
  qsort(tb, (size_t)reps, sizeof *tb, bwdb_cmp);
  r->fwd_ms = tf[reps / 2];
  r->bwd_ms = tb[reps / 2];
  r->fwdbwd_ms = r->fwd_ms + r->bwd_ms;
  for (int i = 0; i < SPEC_MAX_IO; i++) { free(dso[i]); free(ds0[i]); free(din[i]); }
  free(dy);
  chk_batch_free(b);
  return 0;
}
