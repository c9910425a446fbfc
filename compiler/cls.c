/* compiler stage: structural classification (see cls.h). */
#include "cls.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

#define SUPPORTED_TRANSITIONS                                                                       \
  "supported transitions: S (identity), exp(g) * S (scalar decay), S * diag(exp(gk)) (per-key "     \
  "decay), and S * D * (I - b k k') with D one of those (delta rule)"

typedef struct { const layer_spec *s; arena *a; diag *d; } cctx;

static int fail(cctx *c, const ex_node *at, const char *msg) {
  return diag_at(c->d, c->s->file, at->line, at->col, "%s", msg);
}

/* A coefficient may use numbers, constants and scalar inputs, through
 * + - * / and exp/log/sqrt. */
static const ex_node *bad_coef_part(const ex_node *n) {
  if (!n) return NULL;
  switch (n->op) {
  case EX_NUM: return NULL;
  case EX_SYM:
    if ((n->sym == SYM_INPUT || n->sym == SYM_CONST) && ex_is_scalar(n)) return NULL;
    return n;
  case EX_CALL:
    if (!strcmp(n->name, "diag") || !strcmp(n->name, "fro")) return n;
    return bad_coef_part(n->args[0]);
  default: {
    const ex_node *x = bad_coef_part(n->a);
    return x ? x : bad_coef_part(n->b);
  }
  }
}

static int check_coef(cctx *c, const ex_term *t) {
  for (int i = 0; i < t->nf; i++) {
    const ex_node *bad = bad_coef_part(t->f[i]);
    if (bad)
      return diag_at(c->d, c->s->file, bad->line, bad->col,
                     "a coefficient may only use numbers, constants and scalar inputs (here: '%s')",
                     bad->op == EX_SYM || bad->op == EX_CALL ? bad->name : "?");
  }
  return 0;
}

static int is_input_vec(const ex_node *n, ex_dim dim) {
  return n->op == EX_SYM && n->sym == SYM_INPUT && n->rows == dim && n->cols == DIM_1;
}

static int is_input_row(const ex_node *n, ex_dim dim) {
  return n->op == EX_T && is_input_vec(n->a, dim);
}

/* A decay coefficient: constant times exp(...) factors. */
static int scalar_decay(cctx *c, const ex_term *t, const ex_node *at, cls_state *st) {
  if (t->c <= 0) return fail(c, at, "a decay factor must be positive; write it as exp(<log decay>)");
  st->logc = log(t->c);
  st->n_logdecay = 0;
  for (int i = 0; i < t->nf; i++) {
    const ex_node *f = t->f[i];
    if (f->op != EX_CALL || strcmp(f->name, "exp") || t->finv[i])
      return diag_at(c->d, c->s->file, f->line, f->col,
                     "a decay must be written exp(<log decay>) so chunks can accumulate it");
    st->logdecay[st->n_logdecay++] = f->args[0];
  }
  if (check_coef(c, t)) return 1;
  st->decay = (st->n_logdecay || st->logc != 0) ? DECAY_SCALAR : DECAY_NONE;
  return 0;
}

/* Transition terms are S * R with R in: [], [diag(exp(x))], and the same
 * followed by [k, k']. */
static int classify_transition(cctx *c, const spec_state *sp, ex_term *tt, int nt, cls_state *st) {
  const ex_node *at = sp->update;
  if (nt < 1 || nt > 2) return fail(c, at, "unsupported transition; " SUPPORTED_TRANSITIONS);
  ex_term *base = &tt[0], *erase = nt == 2 ? &tt[1] : NULL;
  if (erase && erase->na < base->na) { ex_term *x = base; base = erase; erase = x; }
  /* base: [] or [diag(exp(x))] after the state */
  st->diag_in = -1;
  if (base->na == 1) {
    const ex_node *dg = base->atom[0];
    const ex_node *ex = dg->op == EX_CALL && !strcmp(dg->name, "diag") ? dg->args[0] : NULL;
    if (!ex || ex->op != EX_CALL || strcmp(ex->name, "exp") || !is_input_vec(ex->args[0], DIM_K))
      return diag_at(c->d, c->s->file, dg->line, dg->col,
                     "a per-key decay must be diag(exp(gk)) with gk a [K] input; " SUPPORTED_TRANSITIONS);
    if (base->nf || base->c != 1)
      return diag_at(c->d, c->s->file, dg->line, dg->col,
                     "a per-key decay cannot be combined with a scalar factor here");
    st->decay = DECAY_DIAG;
    st->diag_in = ex->args[0]->index;
    st->n_logdecay = 0;
  } else if (base->na == 0) {
    if (scalar_decay(c, base, at, st)) return 1;
  } else {
    return fail(c, at, "unsupported transition; " SUPPORTED_TRANSITIONS);
  }
  if (!erase) return 0;
  /* erase: same prefix, then k k' with coefficient -base * e */
  if (erase->na != base->na + 2) return fail(c, at, "unsupported transition; " SUPPORTED_TRANSITIONS);
  for (int i = 0; i < base->na; i++)
    if (!ex_equal(erase->atom[i], base->atom[i]))
      return fail(c, at, "the erase (I - b k k') must come after the decay; " SUPPORTED_TRANSITIONS);
  const ex_node *k1 = erase->atom[base->na], *k2 = erase->atom[base->na + 1];
  if (!is_input_vec(k1, DIM_K) || !is_input_row(k2, DIM_K) || strcmp(k1->name, k2->a->name))
    return diag_at(c->d, c->s->file, k1->line, k1->col,
                   "the rank-1 erase must be along one key input: (I - b k k')");
  if (ex_factors_divide(erase, base, &st->erase))
    return fail(c, at, "the erase term must be the decay times -b k k'; " SUPPORTED_TRANSITIONS);
  st->erase.c = -st->erase.c;
  if (check_coef(c, &st->erase)) return 1;
  st->delta = 1;
  st->key_in = k1->index;
  return 0;
}

static int classify_state(cctx *c, int si, cls_state *st) {
  const spec_state *sp = &c->s->st[si];
  memset(st, 0, sizeof *st);
  st->state = si;
  st->key_in = st->val_in = -1;
  ex_sum sum;
  if (ex_expand(sp->update, c->a, c->s->file, &sum, c->d)) return 1;
  ex_collect(&sum, c->a); /* (1 - beta) * v k' is one write, not two */
  ex_term trans[8], writes[8];
  int nt = 0, nw = 0;
  for (int i = 0; i < sum.n; i++) {
    ex_term *t = &sum.t[i];
    if (t->c == 0) continue;
    int uses_state = 0, tr;
    for (int k = 0; k < t->na; k++) {
      const ex_node *sym = ex_atom_sym(t->atom[k], &tr);
      if (sym->op == EX_SYM && sym->sym == SYM_STATE && sym->index != si)
        return diag_at(c->d, c->s->file, sym->line, sym->col,
                       "the update of '%s' cannot read another state ('%s'); states evolve independently",
                       sp->name, sym->name);
      if (sym->op == EX_SYM && sym->sym == SYM_STATE) {
        if (k != 0 || tr)
          return diag_at(c->d, c->s->file, sym->line, sym->col,
                         "the update of '%s' may use '%s' only once per term, untransposed, on the left",
                         sp->name, sp->name);
        uses_state = 1;
      }
    }
    if (uses_state == 1) {
      if (nt == 8) return fail(c, sp->update, "too many terms");
      trans[nt] = *t;
      trans[nt].na--; /* drop the leading state */
      memmove(trans[nt].atom, trans[nt].atom + 1, sizeof(t->atom[0]) * (size_t)trans[nt].na);
      nt++;
    } else {
      if (nw == 8) return fail(c, sp->update, "too many terms");
      writes[nw++] = *t;
    }
  }
  if (nt == 0)
    return diag_at(c->d, c->s->file, sp->update->line, sp->update->col,
                   "the update of '%s' does not use '%s' (a state must carry itself forward)", sp->name, sp->name);
  if (classify_transition(c, sp, trans, nt, st)) return 1;
  if (nw != 1)
    return diag_at(c->d, c->s->file, sp->update->line, sp->update->col,
                   "the update of '%s' needs exactly one write term (c * v k'), found %d", sp->name, nw);
  ex_term *w = &writes[0];
  const ex_node *wat = w->na ? w->atom[0] : sp->update;
  int ok = w->na == 2 && is_input_row(w->atom[1], DIM_K);
  if (ok && sp->rows == DIM_V) ok = is_input_vec(w->atom[0], DIM_V);
  if (ok && sp->rows == DIM_K) ok = is_input_vec(w->atom[0], DIM_K) && !strcmp(w->atom[0]->name, w->atom[1]->a->name);
  if (!ok)
    return diag_at(c->d, c->s->file, wat->line, wat->col, "unsupported write: expected c * %s k' with inputs v, k%s",
                   sp->rows == DIM_V ? "v" : "k", sp->rows == DIM_K ? " (a [K,K] state is written k k')" : "");
  if (check_coef(c, w)) return 1;
  st->write = *w;
  st->write.na = 0;
  int wkey = w->atom[1]->a->index;
  if (st->delta && wkey != st->key_in)
    return diag_at(c->d, c->s->file, wat->line, wat->col, "the write must use the same key as the erase");
  st->key_in = wkey;
  st->val_in = sp->rows == DIM_V ? w->atom[0]->index : -1;
  if (sp->symmetric && sp->rows != DIM_K) return fail(c, sp->update, "only [K,K] states can be symmetric");
  if (sp->rows == DIM_K && !sp->symmetric)
    return diag_at(c->d, c->s->file, sp->line, sp->col,
                   "state '%s' is [K,K] and written k k': declare it symmetric: true", sp->name);
  return 0;
}

/* y or a local: sum of coef * S * src, src an input [K] or a solve's x. */
static int classify_query(cctx *c, const ex_node *e, double scale_c, const ex_term *outer, cls_family *fam,
                          int depth) {
  const layer_spec *s = c->s;
  ex_sum sum;
  if (ex_expand(e, c->a, s->file, &sum, c->d)) return 1;
  for (int i = 0; i < sum.n; i++) {
    ex_term *t = &sum.t[i];
    if (t->c == 0) continue;
    const ex_node *at = t->na ? t->atom[0] : e;
    int skip_state = depth == 0;
    if (skip_state) {
      if (t->na != 2 || t->atom[0]->op != EX_SYM || t->atom[0]->sym != SYM_STATE)
        return diag_at(c->d, s->file, at->line, at->col,
                       "y must be a sum of c * S w terms (S a [V,K] state, w a [K] vector)");
      int si = t->atom[0]->index;
      if (fam->main.state != si && fam->n_q)
        return diag_at(c->d, s->file, at->line, at->col, "y must read a single state");
      fam->main.state = si;
    } else if (t->na != 1) {
      return diag_at(c->d, s->file, at->line, at->col, "a query vector must be a sum of c * w terms");
    }
    const ex_node *w = t->atom[t->na - 1];
    ex_term coef = *t;
    coef.na = 0;
    coef.c *= scale_c;
    if (outer) {
      for (int k = 0; k < outer->nf; k++) {
        if (coef.nf == EX_MAX_FACTORS) return fail(c, e, "expression too complex");
        coef.f[coef.nf] = outer->f[k];
        coef.finv[coef.nf++] = outer->finv[k];
      }
    }
    if (check_coef(c, &coef)) return 1;
    if (is_input_vec(w, DIM_K)) {
      if (fam->n_q == 8) return fail(c, e, "too many query terms");
      fam->q[fam->n_q++] = (cls_qterm){coef, w->index};
    } else if (w->op == EX_SYM && w->sym == SYM_LOCAL && s->rd[w->index].rows == DIM_K) {
      const spec_readout *r = &s->rd[w->index];
      if (r->kind == RD_SOLVE) {
        if (fam->n_q == 8) return fail(c, e, "too many query terms");
        fam->q[fam->n_q++] = (cls_qterm){coef, -1};
      } else if (depth > 4) {
        return fail(c, e, "readouts nest too deeply");
      } else if (classify_query(c, r->expr, coef.c, &coef, fam, depth + 1)) {
        return 1;
      }
    } else {
      return diag_at(c->d, s->file, w->line, w->col, "the vector read through the state must be a [K] input or readout");
    }
  }
  return 0;
}

static int classify_solve(cctx *c, const spec_readout *r, cls_family *fam) {
  const layer_spec *s = c->s;
  fam->has_solve = 1;
  fam->solve_rd = (int)(r - s->rd);
  fam->iters = r->iters;
  if (!is_input_vec(r->rhs, DIM_K))
    return fail(c, r->rhs, "the right-hand side of the solve must be a [K] input");
  fam->rhs_in = r->rhs->index;
  ex_sum sum;
  if (ex_expand(r->matrix, c->a, s->file, &sum, c->d)) return 1;
  int aux = -1;
  for (int i = 0; i < sum.n; i++) {
    const ex_term *t = &sum.t[i];
    if (t->na == 1 && t->atom[0]->op == EX_SYM && t->atom[0]->sym == SYM_STATE && t->nf == 0 && t->c == 1) {
      if (aux >= 0) return fail(c, r->matrix, "the solve matrix must be H + lambda * I");
      aux = t->atom[0]->index;
    } else if (t->na != 0) {
      return fail(c, r->matrix, "the solve matrix must be H + lambda * I (H a symmetric state)");
    }
  }
  if (aux < 0 || !s->st[aux].symmetric)
    return fail(c, r->matrix, "the solve matrix must be H + lambda * I with H a symmetric [K,K] state");
  for (int i = 0; i < sum.n; i++) {
    const ex_term *t = &sum.t[i];
    if (t->na) continue;
    if (t->nf == 0) fam->lam_b += t->c;
    else if (t->nf == 1 && !t->finv[0] && t->f[0]->op == EX_CALL && !strcmp(t->f[0]->name, "fro") &&
             t->f[0]->args[0]->op == EX_SYM && t->f[0]->args[0]->index == aux &&
             t->f[0]->args[0]->sym == SYM_STATE)
      fam->lam_a += t->c;
    else
      return fail(c, r->lambda ? r->lambda : r->matrix, "lambda must be a * fro(H) + b with constants a, b");
  }
  if (fam->lam_a < 0 || fam->lam_b < 0 || (fam->lam_a == 0 && fam->lam_b == 0))
    return fail(c, r->lambda ? r->lambda : r->matrix, "lambda must be positive: a * fro(H) + b with a, b >= 0, not both 0");
  if (classify_state(c, aux, &fam->aux)) return 1;
  if (fam->aux.decay == DECAY_DIAG || fam->aux.delta)
    return fail(c, s->st[aux].update, "the solve's state must be updated exp(g) * H + c * k k'");
  return 0;
}

static void summarize(cls_family *f) {
  const layer_spec *s = f->spec;
  static const char *const dn[] = {"identity", "scalar decay", "per-key decay"};
  int n = snprintf(f->summary, sizeof f->summary, "%s: %s%s, write %s", s->st[f->main.state].name,
                   dn[f->main.decay], f->main.delta ? " + rank-1 erase" : "", s->in[f->main.val_in].name);
  if (f->has_solve && n > 0 && (size_t)n < sizeof f->summary)
    snprintf(f->summary + n, sizeof f->summary - (size_t)n,
             "; solve (%s + (%g fro + %g) I) %s = %s by Chebyshev, r=%d", s->st[f->aux.state].name, f->lam_a,
             f->lam_b, s->rd[f->solve_rd].name, s->in[f->rhs_in].name, f->iters);
}

int cls_classify(const layer_spec *s, arena *a, cls_family *out, diag *d) {
  cctx c = {s, a, d};
  memset(out, 0, sizeof *out);
  out->spec = s;
  out->main.state = -1;
  int nsolve = 0;
  for (int i = 0; i < s->n_rd; i++) {
    if (s->rd[i].kind != RD_SOLVE) continue;
    if (++nsolve > 1) return fail(&c, s->rd[i].matrix, "at most one solve per spec is supported");
    if (classify_solve(&c, &s->rd[i], out)) return 1;
  }
  const spec_readout *y = &s->rd[s->out_rd];
  if (classify_query(&c, y->expr, 1.0, NULL, out, 0)) return 1;
  if (out->n_q == 0) return fail(&c, y->expr, "y reads nothing");
  int main = out->main.state;
  if (s->st[main].rows != DIM_V) return fail(&c, y->expr, "y must read a [V,K] state");
  if (classify_state(&c, main, &out->main)) return 1;
  for (int i = 0; i < s->n_st; i++)
    if (i != main && !(out->has_solve && i == out->aux.state))
      return diag_at(d, s->file, s->st[i].line, s->st[i].col,
                     "state '%s' is never read (y reads '%s'%s)", s->st[i].name, s->st[main].name,
                     out->has_solve ? " and the solve reads its matrix" : "");
  int uses_x = 0;
  for (int i = 0; i < out->n_q; i++) uses_x |= out->q[i].src_in < 0;
  if (out->has_solve && !uses_x)
    return diag_at(d, s->file, s->rd[out->solve_rd].line, s->rd[out->solve_rd].col, "the solve's result is never used by y");
  summarize(out);
  return 0;
}
