/* compiler stage: CPU benchmark (see bench.h). */
#include "bench.h"
#include "chk.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double bench_flops_per_token(const cls_family *f, int iters) {
  const layer_spec *s = f->spec;
  double kv = (double)s->K * s->V, kk = (double)s->K * s->K;
  double fl = 2 * (f->main.delta ? 3 : 2) * kv;
  if (f->has_solve) fl += 2 * kk + 2 * kk * (iters > 0 ? iters : f->iters);
  return fl;
}

int bench_kernel(const cls_family *f, const ssmc_kernel *k, const bench_opts *o, bench_result *r) {
  chk_shape sh = {"bench", o->N, {0}, o->H, o->H, 0};
  for (int n = 0; n < o->N; n++) sh.lens[n] = o->T;
  chk_batch *b = chk_batch_new(f, k, &sh, 1234);
  double t[32];
  int reps = o->reps < 32 ? o->reps : 32;
  chk_run_fwd(b, k, o->threads, o->iters); /* warm-up */
  for (int i = 0; i < reps; i++) {
    double t0 = now_ms();
    chk_run_fwd(b, k, o->threads, o->iters);
    t[i] = now_ms() - t0;
  }
  qsort(t, (size_t)reps, sizeof *t, cmp_d);
  r->fwd_ms = t[reps / 2];
  int rr = reps < 3 ? reps : 3; /* the recurrent form is slow: fewer runs */
  for (int i = 0; i < rr; i++) {
    double t0 = now_ms();
    chk_run_decode(b, k, o->threads, o->iters);
    t[i] = now_ms() - t0;
  }
  qsort(t, (size_t)rr, sizeof *t, cmp_d);
  r->rec_ms = t[rr / 2];
  r->flops_per_token = bench_flops_per_token(f, o->iters);
  chk_batch_free(b);
  return 0;
}
