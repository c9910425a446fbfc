/* runtime stage: runs a kernel's work items on all CPU cores.
 * Items ((sequence, head) pairs) are handed out dynamically, since variable
 * sequence lengths make them uneven: the chunkwise forward, decode and backward.
 * Workspace is planned once per call. */
#ifndef SSMC_RT_EXEC_H
#define SSMC_RT_EXEC_H
#include "ssmc_kernel.h"

/* Number of worker threads: SSMC_THREADS from the environment, else the
 * number of online CPUs. */
int rt_threads(void);
/* Returns 0, or -1 if memory for the workspace could not be had. */
int rt_run_fwd(const ssmc_kernel *k, const ssmc_fwd_args *a, int nthreads);
/* The value-column split rt_run_fwd uses for `items` (sequence, head) pairs on nthreads threads
 * (ssmc_fwd_args.v_parts): > 1 when there are fewer items than threads. */
int rt_fwd_v_parts(const ssmc_kernel *k, int64_t items, int nthreads);
int rt_run_decode(const ssmc_kernel *k, const ssmc_decode_args *a, int nthreads);
/* The backward: items are (sequence, q/k head) pairs (see ssmc_bwd_args), each worker with the kernel's
 * backward workspace for the longest sequence of the batch. Returns 0, or -1 if the kernel has no
 * backward or memory could not be had. */
int rt_run_bwd(const ssmc_kernel *k, const ssmc_bwd_args *a, int nthreads);

#endif
