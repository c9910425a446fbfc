/* runtime stage: threaded execution of a kernel's CPU backward.
 * Items are (sequence, q/k head) pairs (see ssmc_bwd_args), handed out
 * dynamically; each thread gets the kernel's backward workspace for the
 * longest sequence of the batch. */
#ifndef SSMC_RT_BWD_H
#define SSMC_RT_BWD_H
#include "ssmc_kernel.h"

/* Returns 0, or -1 if the kernel has no backward or memory could not be had. */
int rtb_run_bwd(const ssmc_kernel *k, const ssmc_bwd_args *a, int nthreads);

#endif
