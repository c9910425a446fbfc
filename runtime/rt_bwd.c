/* runtime stage: threaded execution of a kernel's CPU backward (see rt_bwd.h). */
#include "rt_bwd.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

typedef struct {
  const ssmc_kernel *k;
  const ssmc_bwd_args *a;
  int64_t n_items;
  atomic_llong next;
} rtb_job;

typedef struct { rtb_job *job; float *ws; } rtb_worker;

static void *rtb_work(void *p) {
  rtb_worker *w = p;
  rtb_job *j = w->job;
  for (;;) {
    int64_t b = atomic_fetch_add(&j->next, 1);
    if (b >= j->n_items) break;
    j->k->bwd(j->a, b, b + 1, w->ws);
  }
  return NULL;
}

int rtb_run_bwd(const ssmc_kernel *k, const ssmc_bwd_args *a, int nthreads) {
  if (!k->bwd || !k->bwd_ws_floats) return -1;
  rtb_job j = {.k = k, .a = a, .n_items = (int64_t)a->n_seqs * a->h_qk};
  int64_t maxlen = a->t_len;
  if (a->cu_seqlens) {
    maxlen = 0;
    for (int n = 0; n < a->n_seqs; n++)
      if (a->cu_seqlens[n + 1] - a->cu_seqlens[n] > maxlen) maxlen = a->cu_seqlens[n + 1] - a->cu_seqlens[n];
  }
  if (nthreads < 1) nthreads = 1;
  if (nthreads > j.n_items) nthreads = (int)(j.n_items > 0 ? j.n_items : 1);
  size_t ws_bytes = ((size_t)k->bwd_ws_floats(maxlen) * sizeof(float) + 63) & ~(size_t)63;
  if (ws_bytes == 0) ws_bytes = 64;
  char *ws = aligned_alloc(64, ws_bytes * (size_t)nthreads);
  rtb_worker *wk = calloc((size_t)nthreads, sizeof *wk);
  pthread_t *th = calloc((size_t)nthreads, sizeof *th);
  if (!ws || !wk || !th) { free(ws); free(wk); free(th); return -1; }
  atomic_init(&j.next, 0);
  for (int i = 0; i < nthreads; i++) { wk[i].job = &j; wk[i].ws = (float *)(ws + ws_bytes * (size_t)i); }
  int started = 0;
  for (int i = 1; i < nthreads; i++)
    if (pthread_create(&th[i], NULL, rtb_work, &wk[i]) == 0) started = i; else break;
  rtb_work(&wk[0]);
  for (int i = 1; i <= started; i++) pthread_join(th[i], NULL);
  free(ws); free(wk); free(th);
  return 0;
}
