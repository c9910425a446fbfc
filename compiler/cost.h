/* compiler stage: the CPU cost model: chunkwise or recurrent forward per shape.
 * The chunk form costs about the same for any chunk of up to C tokens (the
 * state pass and the per-chunk preparation do not shrink with it); the
 * recurrent form (the decode step per token) costs per token. A sequence
 * shorter than cost_rec_below() runs token by token. */
#ifndef SSMC_COST_H
#define SSMC_COST_H
#include "cls.h"

int cost_rec_below(const cls_family *f);

#endif
