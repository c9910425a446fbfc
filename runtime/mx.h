/* runtime stage: running a loaded model — memory planned once per model and
 * batch, prefill through the chunkwise kernels, decode through the decode
 * kernels, a fixed state slot per sequence (fp32 SSM states + conv tail) and
 * a KV cache per attention layer. A prefill continues from the slot's saved
 * state, so a prompt may be fed in any number of pieces. */
#ifndef MX_H
#define MX_H
#include <stdio.h>
#include "be.h"
#include "mdl.h"

typedef struct {
  int max_batch;   /* state slots */
  int max_ctx;     /* positions per slot (KV cache length) */
  int max_chunk;   /* tokens per step (prefill is cut into steps of at most this many) */
  int threads;
  int profile;     /* time each part of a step (mx_profile) */
} mx_opts;

typedef struct mx_sess mx_sess;

int mx_create(const mdl_model *m, const be_ops *ops, be *b, const mx_opts *o, mx_sess **out, rt_diag *d);
void mx_destroy(mx_sess *s);
void mx_reset(mx_sess *s, int slot);      /* empty sequence: zero state, position 0 */
int mx_pos(const mx_sess *s, int slot);

/* Feeds lens[i] tokens to slot slots[i] (i < n), continuing each slot's
 * sequence. Logits (vocab floats per row) go to `logits`: one row per
 * sequence for its last token, or with all_logits one row per token, in
 * order (sequence 0's tokens, then sequence 1's, ...). Decode is a step with
 * one token per sequence; it runs the decode kernels. Returns -1 and sets d
 * when a sequence would pass max_ctx. */
int mx_feed(mx_sess *s, int n, const int *slots, const int *const *tokens, const int *lens, float *logits,
            int all_logits, rt_diag *d);

/* With mx_opts.profile: seconds spent per part of the steps since the last
 * call, printed as a table (part, seconds, share); the counters restart. */
void mx_profile(mx_sess *s, FILE *out);

#endif
