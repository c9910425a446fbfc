/* compiler stage: the backward rows of `ssmc check`. For a batch (see chk.h)
 * it draws dy and the gradients of the final states, runs the kernel's CPU
 * backward and compares every input gradient and every initial-state
 * gradient with the fp64 gradient oracle (tests/oracle/orc_grad.h) on the
 * same (bf16-rounded) inputs: max abs, relative L2, bound ORC_TOL_GRAD.
 * A spec with a solve is compared twice: against the gradient of the exact
 * solve and against the gradient of the r-step Chebyshev function. */
#ifndef SSMC_CHK_BWD_H
#define SSMC_CHK_BWD_H
#include <stdio.h>
#include "chk.h"

/* Prints the rows of one batch; returns the number failed (also counted in r). */
int chkb_rows(chk_batch *b, const cls_family *f, const ssmc_kernel *k, const chk_opts *o, const char *shape,
              uint64_t seed, FILE *out, chk_result *r);

/* Edits the batch's inputs into the edge cases that break other implementations:
 * log decays exactly 0 (first half) and -20 (second half), unit gates 1 (0 for the
 * first two tokens: with zero initial states ||H||_F = 0 there), every key (the
 * classified key inputs) equal to the sequence's first one (repeated keys). */
void chkb_edge_inputs(chk_batch *b, const cls_family *f, const ssmc_kernel *k);

/* The edge batch (two sequences, C + 5 and 3 tokens, zero initial states, edge
 * inputs): forward output and final-state rows and the backward rows. */
void chkb_edges(const cls_family *f, const ssmc_kernel *k, const chk_opts *o, FILE *out, chk_result *r);

/* Runs the kernel's backward on the batch with the given dy and dstate_out;
 * gradients come back in din (per input, its own layout) and dstate0. aux: the
 * forward's x or NULL; y (or NULL): a backend run that keeps a forward puts its output there (chk_backend's bwd).
 * Returns -1 if the kernel has no backward or the backend's run failed (why in err, n bytes). */
int chkb_run(chk_batch *b, const ssmc_kernel *k, int threads, int iters, const void *dy, float *const *dstate_out,
             const float *aux, float **din, float **dstate0, void *y, char *err, size_t n);

#endif
