/* runtime stage: threaded execution of CPU kernels (see rt_exec.h). */
#include "rt_exec.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

int rt_threads(void) {
  const char *e = getenv("SSMC_THREADS");
  if (e && atoi(e) > 0) return atoi(e);
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

typedef struct {
  const ssmc_kernel *k;
  const ssmc_fwd_args *fa;
  const ssmc_decode_args *da;
  int64_t n_items, grain;
  atomic_llong next;
} rt_job;

typedef struct { rt_job *job; float *ws; } rt_worker;

static void *rt_work(void *p) {
  rt_worker *w = p;
  rt_job *j = w->job;
  for (;;) {
    int64_t b = atomic_fetch_add(&j->next, j->grain);
    if (b >= j->n_items) break;
    int64_t e = b + j->grain < j->n_items ? b + j->grain : j->n_items;
    if (j->fa) j->k->fwd(j->fa, b, e, w->ws);
    else j->k->decode(j->da, b, e, w->ws);
  }
  return NULL;
}

static int rt_run(rt_job *j, int nthreads) {
  if (nthreads < 1) nthreads = 1;
  if (nthreads > j->n_items) nthreads = (int)(j->n_items > 0 ? j->n_items : 1);
  size_t ws_bytes = ((size_t)j->k->ws_floats * sizeof(float) + 63) & ~(size_t)63;
  if (ws_bytes == 0) ws_bytes = 64;
  char *ws = aligned_alloc(64, ws_bytes * (size_t)nthreads);
  rt_worker *wk = calloc((size_t)nthreads, sizeof *wk);
  pthread_t *th = calloc((size_t)nthreads, sizeof *th);
  if (!ws || !wk || !th) { free(ws); free(wk); free(th); return -1; }
  atomic_init(&j->next, 0);
  for (int i = 0; i < nthreads; i++) { wk[i].job = j; wk[i].ws = (float *)(ws + ws_bytes * (size_t)i); }
  int started = 0;
  for (int i = 1; i < nthreads; i++)
    if (pthread_create(&th[i], NULL, rt_work, &wk[i]) == 0) started = i; else break;
  rt_work(&wk[0]);
  for (int i = 1; i <= started; i++) pthread_join(th[i], NULL);
  free(ws); free(wk); free(th);
  return 0;
}

int rt_run_fwd(const ssmc_kernel *k, const ssmc_fwd_args *a, int nthreads) {
  rt_job j = {.k = k, .fa = a, .n_items = (int64_t)a->n_seqs * a->h_v, .grain = 1};
  return rt_run(&j, nthreads);
}

int rt_run_decode(const ssmc_kernel *k, const ssmc_decode_args *a, int nthreads) {
  int64_t n = (int64_t)a->n_seqs * a->h_v;
  if (n < 32) nthreads = 1; /* a few heads: starting a thread costs more than the work */
  /* decode items are tiny: hand them out in groups */
  int64_t grain = n / (8 * (nthreads > 0 ? nthreads : 1));
  rt_job j = {.k = k, .da = a, .n_items = n, .grain = grain > 0 ? grain : 1};
  return rt_run(&j, nthreads);
}
