/* runtime stage: a persistent thread pool for the model runtime.
 * Workers are created once (per model session) and sleep on a condition
 * variable between jobs; a job is a range of items handed out dynamically in
 * grains. The caller's thread is worker 0. No allocation per job. */
#ifndef RT_POOL_H
#define RT_POOL_H
#include <stdint.h>

typedef struct rtp_pool rtp_pool;
/* fn(ctx, begin, end, worker): processes items [begin, end); worker in [0, n_threads). */
typedef void (*rtp_fn)(void *ctx, int64_t begin, int64_t end, int worker);

rtp_pool *rtp_create(int n_threads); /* NULL if threads could not be had */
void rtp_destroy(rtp_pool *p);
int rtp_threads(const rtp_pool *p);
/* Runs fn over [0, n_items) in grains of `grain` items and returns when all are done. */
void rtp_run(rtp_pool *p, rtp_fn fn, void *ctx, int64_t n_items, int64_t grain);

#endif
