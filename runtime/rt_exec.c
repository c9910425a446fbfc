/* runtime stage: threaded execution of CPU kernels (see rt_exec.h).
 * Items ((sequence, head) pairs) are handed out dynamically, since variable
 * sequence lengths make them uneven. One persistent pool (rt_pool.c) and its
 * per-worker workspaces serve every call; they are rebuilt only when a call
 * asks for another thread count, and grown when a kernel needs more workspace.
 * Calls are serialized (the pool runs one job at a time). */
#include "rt_exec.h"
#include "rt_pool.h"
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

int rt_threads(void) {
  const char *e = getenv("SSMC_THREADS");
  if (e && atoi(e) > 0) return atoi(e);
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

static pthread_mutex_t rt_mu = PTHREAD_MUTEX_INITIALIZER;
static rtp_pool *rt_pool_;
static int rt_pool_n;
static char *rt_ws;
static size_t rt_ws_bytes; /* per worker */

typedef struct {
  const ssmc_kernel *k;
  const ssmc_fwd_args *fa;
  const ssmc_decode_args *da;
  const ssmc_bwd_args *ba;
  int64_t ws_floats; /* per worker */
} rt_job;

static void rt_items(void *ctx, int64_t b, int64_t e, int worker) {
  rt_job *j = ctx;
  float *ws = (float *)(rt_ws + rt_ws_bytes * (size_t)worker);
  if (j->fa) j->k->fwd(j->fa, b, e, ws);
  else if (j->ba) j->k->bwd(j->ba, b, e, ws);
  else j->k->decode(j->da, b, e, ws);
}

/* under rt_mu: a pool of n threads and n workspaces of at least `bytes` */
static int rt_ready(int n, size_t bytes) {
  if (!rt_pool_ || rt_pool_n != n) {
    rtp_destroy(rt_pool_);
    rt_pool_ = rtp_create(n);
    if (!rt_pool_) { rt_pool_n = 0; return -1; }
    rt_pool_n = n;
    free(rt_ws);
    rt_ws = NULL;
    rt_ws_bytes = 0;
  }
  if (bytes > rt_ws_bytes) {
    free(rt_ws);
    rt_ws = aligned_alloc(64, bytes * (size_t)rtp_threads(rt_pool_));
    rt_ws_bytes = rt_ws ? bytes : 0;
    if (!rt_ws) return -1;
  }
  return 0;
}

static int rt_run(rt_job *j, int64_t n_items, int64_t grain, int nthreads) {
  if (nthreads < 1) nthreads = 1;
  if (nthreads > n_items) nthreads = (int)(n_items > 0 ? n_items : 1);
  size_t ws_bytes = ((size_t)j->ws_floats * sizeof(float) + 63) & ~(size_t)63;
  if (ws_bytes == 0) ws_bytes = 64;
  pthread_mutex_lock(&rt_mu);
  int rc = rt_ready(nthreads, ws_bytes);
  if (!rc) rtp_run(rt_pool_, rt_items, j, n_items, grain);
  pthread_mutex_unlock(&rt_mu);
  return rc;
}

/* Fewer (sequence, head) items than threads (one long sequence, few heads): split each item's value
 * columns (they evolve independently; each part repeats only the per-chunk key-side work). */
int rt_fwd_v_parts(const ssmc_kernel *k, int64_t items, int nthreads) {
  int parts = 1, tiles = k->bv > 0 ? k->V / k->bv : 1;
  if (k->n_aux) return 1; /* a solve would be repeated by every part */
  while (items * parts < nthreads && tiles % (parts * 2) == 0) parts *= 2;
  return parts;
}

int rt_run_fwd(const ssmc_kernel *k, const ssmc_fwd_args *a, int nthreads) {
  int64_t items = (int64_t)a->n_seqs * a->h_v;
  ssmc_fwd_args s = *a;
  s.v_parts = rt_fwd_v_parts(k, items, nthreads);
  const char *rb = getenv("SSMC_REC_BELOW"); /* measuring the cost model: force the form */
  if (rb && *rb && !s.rec_below) s.rec_below = atoi(rb) ? atoi(rb) : -1;
  rt_job j = {.k = k, .fa = &s, .ws_floats = k->ws_floats};
  return rt_run(&j, items * s.v_parts, 1, nthreads);
}

int rt_run_decode(const ssmc_kernel *k, const ssmc_decode_args *a, int nthreads) {
  int64_t n = (int64_t)a->n_seqs * a->h_v;
  if (n < 4) nthreads = 1; /* a few heads: waking a worker costs more than the work */
  /* decode items are small: hand them out in groups */
  int64_t grain = n / (4 * (nthreads > 0 ? nthreads : 1));
  rt_job j = {.k = k, .da = a, .ws_floats = k->ws_floats};
  return rt_run(&j, n, grain > 0 ? grain : 1, nthreads);
}

int rt_run_bwd(const ssmc_kernel *k, const ssmc_bwd_args *a, int nthreads) {
  if (!k->bwd || !k->bwd_ws_floats) return -1;
  int64_t maxlen = a->t_len;
  if (a->cu_seqlens) {
    maxlen = 0;
    for (int n = 0; n < a->n_seqs; n++)
      if (a->cu_seqlens[n + 1] - a->cu_seqlens[n] > maxlen) maxlen = a->cu_seqlens[n + 1] - a->cu_seqlens[n];
  }
  rt_job j = {.k = k, .ba = a, .ws_floats = k->bwd_ws_floats(maxlen)};
  return rt_run(&j, (int64_t)a->n_seqs * a->h_qk, 1, nthreads);
}
