/* compiler stage: structural classification of a spec.
 * Reads the expanded equations and recognizes, per state, the transition
 * A_t (identity, scalar decay exp(g) I, per-key decay diag(exp(g)), and the
 * rank-1 erase (I - b k k') after any of those) and the write c * v k';
 * per readout, the query composition q~ = sum_i c_i src_i read through the
 * main state, and an optional Chebyshev solve (H + (a fro(H) + b) I) x = q
 * over an auxiliary symmetric state. Never looks at the family's name. */
#ifndef SSMC_CLS_H
#define SSMC_CLS_H
#include "spec.h"

typedef enum { DECAY_NONE, DECAY_SCALAR, DECAY_DIAG } cls_decay;

typedef struct {
  int state;               /* index into spec->st */
  cls_decay decay;
  int n_logdecay;          /* scalar decay: log decay = logc + sum of these scalar expressions */
  const ex_node *logdecay[EX_MAX_FACTORS];
  double logc;
  int diag_in;             /* DECAY_DIAG: input index of the [K] log decay, else -1 */
  int delta;               /* has the rank-1 erase (I - e k k') */
  ex_term erase;           /* e: scalar coefficient (na == 0) */
  ex_term write;           /* w: scalar coefficient of the write */
  int key_in;              /* input index of k */
  int val_in;              /* input index of v; -1 for a symmetric k k' write */
} cls_state;

typedef struct {
  ex_term coef;            /* scalar coefficient */
  int src_in;              /* input index, or -1 for the solve's x */
} cls_qterm;

typedef struct {
  const layer_spec *spec;
  cls_state main;
  int n_q;
  cls_qterm q[8];          /* q~ = sum coef * src; y = S_main q~ */
  int has_solve;
  int solve_rd;            /* readout index of the solve */
  cls_state aux;           /* the symmetric state of the solve */
  double lam_a, lam_b;     /* lambda = lam_a * fro(H) + lam_b */
  int rhs_in;              /* input index of b */
  int iters;
  char summary[512];       /* human-readable: what was recognized */
} cls_family;

/* Classifies; returns non-zero after filling d (naming what is supported). */
int cls_classify(const layer_spec *s, arena *a, cls_family *out, diag *d);

#endif
