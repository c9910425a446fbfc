/* runtime stage: persistent thread pool (see rt_pool.h). */
#include "rt_pool.h"
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

struct rtp_pool {
  int n;
  pthread_t *th;
  pthread_mutex_t mu;
  pthread_cond_t go, done;
  atomic_ullong gen; /* job generation: written under mu, read by spinning workers too */
  atomic_int busy;   /* workers still in the current job; the caller spins on it, then sleeps under mu */
  int quit;
  rtp_fn fn;
  void *ctx;
  int64_t n_items, grain;
  atomic_llong next;
};

typedef struct { rtp_pool *p; int id; } rtp_arg;

/* pause iterations (a few hundred microseconds) before sleeping; every
 * RTP_YIELD of them the core is offered to other threads, so that a machine
 * with more runnable threads than cores does not stall a spinning waiter */
#define RTP_SPIN 20000
#define RTP_YIELD 256
#if defined(__x86_64__) || defined(__i386__)
#define rtp_pause() __builtin_ia32_pause()
#else
#define rtp_pause() ((void)0)
#endif

static void rtp_work(rtp_pool *p, int id) {
  for (;;) {
    int64_t b = atomic_fetch_add(&p->next, p->grain);
    if (b >= p->n_items) break;
    int64_t e = b + p->grain < p->n_items ? b + p->grain : p->n_items;
    p->fn(p->ctx, b, e, id);
  }
}

static void *rtp_main(void *v) {
  rtp_arg a = *(rtp_arg *)v;
  free(v);
  rtp_pool *p = a.p;
  uint64_t seen = 0;
  for (;;) {
    /* a short spin first: back-to-back jobs (decode steps) start without a wake-up */
    for (int i = 0; i < RTP_SPIN && atomic_load_explicit(&p->gen, memory_order_acquire) == seen; i++)
      if (i % RTP_YIELD == RTP_YIELD - 1) sched_yield();
      else rtp_pause();
    pthread_mutex_lock(&p->mu);
    while (p->gen == seen && !p->quit) pthread_cond_wait(&p->go, &p->mu);
    if (p->quit) { pthread_mutex_unlock(&p->mu); return NULL; }
    seen = atomic_load(&p->gen);
    pthread_mutex_unlock(&p->mu);
    rtp_work(p, a.id);
    if (atomic_fetch_sub_explicit(&p->busy, 1, memory_order_acq_rel) == 1) {
      pthread_mutex_lock(&p->mu); /* the caller may be asleep on `done` */
      pthread_cond_signal(&p->done);
      pthread_mutex_unlock(&p->mu);
    }
  }
}

rtp_pool *rtp_create(int n_threads) {
  rtp_pool *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->n = n_threads < 1 ? 1 : n_threads;
  p->th = calloc((size_t)p->n, sizeof *p->th);
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->go, NULL);
  pthread_cond_init(&p->done, NULL);
  for (int i = 1; i < p->n; i++) {
    rtp_arg *a = malloc(sizeof *a);
    if (!a) { p->n = i; break; }
    a->p = p;
    a->id = i;
    if (pthread_create(&p->th[i], NULL, rtp_main, a)) { free(a); p->n = i; break; }
  }
  return p;
}

void rtp_destroy(rtp_pool *p) {
  if (!p) return;
  pthread_mutex_lock(&p->mu);
  p->quit = 1;
  pthread_cond_broadcast(&p->go);
  pthread_mutex_unlock(&p->mu);
  for (int i = 1; i < p->n; i++) pthread_join(p->th[i], NULL);
  pthread_mutex_destroy(&p->mu);
  pthread_cond_destroy(&p->go);
  pthread_cond_destroy(&p->done);
  free(p->th);
  free(p);
}

int rtp_threads(const rtp_pool *p) { return p->n; }

void rtp_run(rtp_pool *p, rtp_fn fn, void *ctx, int64_t n_items, int64_t grain) {
  if (n_items <= 0) return;
  if (grain < 1) grain = 1;
  if (p->n == 1 || n_items <= grain) { fn(ctx, 0, n_items, 0); return; }
  p->fn = fn;
  p->ctx = ctx;
  p->n_items = n_items;
  p->grain = grain;
  atomic_store(&p->next, 0);
  pthread_mutex_lock(&p->mu);
  atomic_store(&p->busy, p->n - 1);
  atomic_fetch_add(&p->gen, 1);
  pthread_cond_broadcast(&p->go);
  pthread_mutex_unlock(&p->mu);
  rtp_work(p, 0);
  /* the other workers finish their last grain: spin a while (no wake-up latency), then sleep */
  for (int i = 0; i < RTP_SPIN && atomic_load_explicit(&p->busy, memory_order_acquire); i++)
    if (i % RTP_YIELD == RTP_YIELD - 1) sched_yield();
    else rtp_pause();
  if (!atomic_load_explicit(&p->busy, memory_order_acquire)) return;
  pthread_mutex_lock(&p->mu);
  while (atomic_load(&p->busy)) pthread_cond_wait(&p->done, &p->mu);
  pthread_mutex_unlock(&p->mu);
}
