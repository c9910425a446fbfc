/* oracle stage: reverse-mode fp64 gradients of a spec (see orc_grad.h). */
#include "orc_grad.h"
#include "orc_interp.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { int r, c; double *d; } gm; /* row-major r x c */

typedef struct {
  const ex_node *n;  /* NULL: a leaf value with no node (unused) */
  gm v;              /* value */
  double *adj;       /* adjoint, same shape */
  int a, b;          /* operand entries (-1 none) */
} gent;

typedef struct {
  const layer_spec *s;
  double *pool;
  size_t used, cap;
  gent *tape;
  int nt, capt;
  gm in[SPEC_MAX_IO], st[SPEC_MAX_IO], loc[SPEC_MAX_IO];
  /* where leaf adjoints go */
  double *din[SPEC_MAX_IO];   /* this token's input gradient rows */
  double *dst[SPEC_MAX_IO];   /* the state adjoint that SYM_STATE leaves feed */
  double *dloc[SPEC_MAX_IO];
} gtape;

static double *take(gtape *G, size_t n) {
  if (G->used + n > G->cap) {
    fprintf(stderr, "orc_grad: pool overflow\n");
    abort(); /* sized up front: an overflow is our bug */
  }
  double *p = G->pool + G->used;
  G->used += n;
  memset(p, 0, n * sizeof *p);
  return p;
}

static gm mk(gtape *G, int r, int c) { return (gm){r, c, take(G, (size_t)r * (size_t)c)}; }

static int dimlen(const layer_spec *s, ex_dim d) { return d == DIM_K ? s->K : d == DIM_V ? s->V : 1; }

static int push(gtape *G, const ex_node *n, gm v, int a, int b) {
  if (G->nt == G->capt) {
    G->capt = G->capt ? 2 * G->capt : 256;
    G->tape = realloc(G->tape, sizeof(gent) * (size_t)G->capt);
  }
  gent *e = &G->tape[G->nt];
  e->n = n;
  e->v = v;
  e->adj = take(G, (size_t)v.r * (size_t)v.c);
  e->a = a;
  e->b = b;
  return G->nt++;
}

static int ev(gtape *G, const ex_node *n);

static int ev_call(gtape *G, const ex_node *n) {
  int ia = ev(G, n->args[0]);
  gm x = G->tape[ia].v;
  if (!strcmp(n->name, "diag")) {
    gm c = mk(G, x.r, x.r);
    for (int i = 0; i < x.r; i++) c.d[(size_t)i * x.r + i] = x.d[i];
    return push(G, n, c, ia, -1);
  }
  if (!strcmp(n->name, "fro")) {
    gm c = mk(G, 1, 1);
    double s = 0;
    for (int i = 0; i < x.r * x.c; i++) s += x.d[i] * x.d[i];
    c.d[0] = sqrt(s);
    return push(G, n, c, ia, -1);
  }
  gm c = mk(G, x.r, x.c);
  for (int i = 0; i < x.r * x.c; i++)
    c.d[i] = !strcmp(n->name, "exp") ? exp(x.d[i]) : !strcmp(n->name, "log") ? log(x.d[i]) : sqrt(x.d[i]);
  return push(G, n, c, ia, -1);
}

static int ev(gtape *G, const ex_node *n) {
  const layer_spec *s = G->s;
  switch (n->op) {
  case EX_NUM: { gm c = mk(G, 1, 1); c.d[0] = n->num; return push(G, n, c, -1, -1); }
  case EX_SYM:
    switch (n->sym) {
    case SYM_INPUT: return push(G, n, G->in[n->index], -1, -1);
    case SYM_STATE: return push(G, n, G->st[n->index], -1, -1);
    case SYM_LOCAL: return push(G, n, G->loc[n->index], -1, -1);
    case SYM_CONST: { gm c = mk(G, 1, 1); c.d[0] = s->cst[n->index].value; return push(G, n, c, -1, -1); }
    case SYM_IDENT: {
      int d = dimlen(s, n->rows);
      gm c = mk(G, d, d);
      for (int i = 0; i < d; i++) c.d[(size_t)i * d + i] = 1;
      return push(G, n, c, -1, -1);
    }
    default: abort();
    }
  case EX_CALL: return ev_call(G, n);
  case EX_NEG: {
    int ia = ev(G, n->a);
    gm a = G->tape[ia].v, c = mk(G, a.r, a.c);
    for (int i = 0; i < a.r * a.c; i++) c.d[i] = -a.d[i];
    return push(G, n, c, ia, -1);
  }
  case EX_T: {
    int ia = ev(G, n->a);
    gm a = G->tape[ia].v, c = mk(G, a.c, a.r);
    for (int i = 0; i < a.r; i++)
      for (int j = 0; j < a.c; j++) c.d[(size_t)j * a.r + i] = a.d[(size_t)i * a.c + j];
    return push(G, n, c, ia, -1);
  }
  case EX_ADD:
  case EX_SUB: {
    int ia = ev(G, n->a), ib = ev(G, n->b);
    gm a = G->tape[ia].v, b = G->tape[ib].v, c = mk(G, a.r, a.c);
    double sg = n->op == EX_ADD ? 1 : -1;
    for (int i = 0; i < a.r * a.c; i++) c.d[i] = a.d[i] + sg * b.d[i];
    return push(G, n, c, ia, ib);
  }
  case EX_MUL: {
    int ia = ev(G, n->a), ib = ev(G, n->b);
    gm a = G->tape[ia].v, b = G->tape[ib].v;
    if (ex_is_scalar(n->a) || ex_is_scalar(n->b)) {
      gm m = ex_is_scalar(n->a) ? b : a;
      double f = ex_is_scalar(n->a) ? a.d[0] : b.d[0];
      gm c = mk(G, m.r, m.c);
      for (int i = 0; i < m.r * m.c; i++) c.d[i] = m.d[i] * f;
      return push(G, n, c, ia, ib);
    }
    gm c = mk(G, a.r, b.c);
    for (int i = 0; i < a.r; i++)
      for (int k = 0; k < a.c; k++) {
        double av = a.d[(size_t)i * a.c + k];
        if (av == 0) continue;
        for (int j = 0; j < b.c; j++) c.d[(size_t)i * c.c + j] += av * b.d[(size_t)k * b.c + j];
      }
    return push(G, n, c, ia, ib);
  }
  case EX_DIV: {
    int ia = ev(G, n->a), ib = ev(G, n->b);
    gm a = G->tape[ia].v, b = G->tape[ib].v, c = mk(G, a.r, a.c);
    for (int i = 0; i < a.r * a.c; i++) c.d[i] = a.d[i] / b.d[0];
    return push(G, n, c, ia, ib);
  }
  }
  abort();
}

/* Propagates the adjoints of tape entries [lo, hi) to their operands, last first. */
static void back(gtape *G, int lo, int hi) {
  for (int e = hi - 1; e >= lo; e--) {
    gent *E = &G->tape[e];
    const ex_node *n = E->n;
    const double *g = E->adj;
    int sz = E->v.r * E->v.c;
    gent *A = E->a >= 0 ? &G->tape[E->a] : NULL, *B = E->b >= 0 ? &G->tape[E->b] : NULL;
    switch (n->op) {
    case EX_NUM: break;
    case EX_SYM: {
      double *dst = n->sym == SYM_INPUT ? G->din[n->index]
                    : n->sym == SYM_STATE ? G->dst[n->index]
                    : n->sym == SYM_LOCAL ? G->dloc[n->index] : NULL;
      if (dst)
        for (int i = 0; i < sz; i++) dst[i] += g[i];
      break;
    }
    case EX_CALL: {
      gm x = A->v;
      if (!strcmp(n->name, "diag")) {
        for (int i = 0; i < x.r; i++) A->adj[i] += g[(size_t)i * x.r + i];
      } else if (!strcmp(n->name, "fro")) {
        if (E->v.d[0] > 0)
          for (int i = 0; i < x.r * x.c; i++) A->adj[i] += g[0] * x.d[i] / E->v.d[0];
      } else if (!strcmp(n->name, "exp")) {
        for (int i = 0; i < sz; i++) A->adj[i] += g[i] * E->v.d[i];
      } else if (!strcmp(n->name, "log")) {
        for (int i = 0; i < sz; i++) A->adj[i] += g[i] / x.d[i];
      } else {
        for (int i = 0; i < sz; i++) A->adj[i] += g[i] / (2 * E->v.d[i]);
      }
      break;
    }
    case EX_NEG:
      for (int i = 0; i < sz; i++) A->adj[i] -= g[i];
      break;
    case EX_T:
      for (int i = 0; i < A->v.r; i++)
        for (int j = 0; j < A->v.c; j++) A->adj[(size_t)i * A->v.c + j] += g[(size_t)j * A->v.r + i];
      break;
    case EX_ADD:
    case EX_SUB: {
      double sg = n->op == EX_ADD ? 1 : -1;
      for (int i = 0; i < sz; i++) { A->adj[i] += g[i]; B->adj[i] += sg * g[i]; }
      break;
    }
    case EX_MUL:
      if (ex_is_scalar(n->a) || ex_is_scalar(n->b)) {
        gent *S = ex_is_scalar(n->a) ? A : B, *M = ex_is_scalar(n->a) ? B : A;
        double f = S->v.d[0], acc = 0; /* (scalar * scalar: S = A, M = B, also right) */
        for (int i = 0; i < sz; i++) { acc += g[i] * M->v.d[i]; M->adj[i] += g[i] * f; }
        S->adj[0] += acc;
      } else { /* C = A B: dA += G Bᵀ, dB += Aᵀ G */
        int m = A->v.r, kd = A->v.c, nn = B->v.c;
        for (int i = 0; i < m; i++)
          for (int k = 0; k < kd; k++) {
            double acc = 0, av = A->v.d[(size_t)i * kd + k];
            for (int j = 0; j < nn; j++) {
              acc += g[(size_t)i * nn + j] * B->v.d[(size_t)k * nn + j];
              B->adj[(size_t)k * nn + j] += av * g[(size_t)i * nn + j];
            }
            A->adj[(size_t)i * kd + k] += acc;
          }
      }
      break;
    case EX_DIV: {
      double b = B->v.d[0], acc = 0;
      for (int i = 0; i < sz; i++) { A->adj[i] += g[i] / b; acc += g[i] * A->v.d[i]; }
      B->adj[0] -= acc / (b * b);
      break;
    }
    }
  }
}

/* ---- the solve ---- */

typedef struct {
  int iM, ib, il;      /* tape entries of M, b, lambda (-1: no lambda) */
  int singular;
  double L, mu, nrm, lam;
  double *xi;          /* (iters + 2) x n: ξ_{-1} = 0, ξ_0 .. ξ_r */
  double *om;          /* ω_0 .. ω_r */
  int iters;
  double *xc, *xe;     /* Chebyshev and exact results */
  int failed;
} gsolve;

static void matvec(int n, const double *A, const double *x, double *y) {
  for (int i = 0; i < n; i++) {
    double acc = 0;
    for (int j = 0; j < n; j++) acc += A[(size_t)i * n + j] * x[j];
    y[i] = acc;
  }
}

static void solve_fwd(gtape *G, const spec_readout *r, int iters, orc_solve how, gsolve *S) {
  int n = dimlen(G->s, r->rows);
  memset(S, 0, sizeof *S);
  S->iM = ev(G, r->matrix);
  S->ib = ev(G, r->rhs);
  S->il = r->lambda ? ev(G, r->lambda) : -1;
  const double *M = G->tape[S->iM].v.d, *b = G->tape[S->ib].v.d;
  S->lam = S->il >= 0 ? G->tape[S->il].v.d[0] : 0;
  double h2 = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double v = M[(size_t)i * n + j] - (i == j ? S->lam : 0);
      h2 += v * v;
    }
  S->nrm = sqrt(h2);
  S->L = S->nrm + S->lam;
  S->mu = S->lam;
  S->iters = iters;
  S->xc = take(G, (size_t)n);
  S->xe = take(G, (size_t)n);
  if (S->L + S->mu == 0) {
    S->singular = 1;
    memcpy(S->xc, b, sizeof(double) * (size_t)n);
    memcpy(S->xe, b, sizeof(double) * (size_t)n);
    return;
  }
  if (how == ORC_SOLVE_EXACT) {
    if (orc_cholesky_solve(n, M, b, S->xe)) {
      S->failed = 1;
      for (int i = 0; i < n; i++) S->xe[i] = NAN;
    }
    return;
  }
  S->xi = take(G, (size_t)(iters + 2) * n);
  S->om = take(G, (size_t)(iters + 1));
  double *res = take(G, (size_t)n);
  double st = 2.0 / (S->L + S->mu), rho = (S->L - S->mu) / (S->L + S->mu);
  double *x0 = S->xi + n;
  for (int j = 0; j < n; j++) x0[j] = st * b[j];
  S->om[0] = 2.0;
  for (int i = 1; i <= iters; i++) {
    double om = S->om[i] = 4.0 / (4.0 - rho * rho * S->om[i - 1]);
    double *cur = S->xi + (size_t)i * n, *prev = S->xi + (size_t)(i - 1) * n, *nx = S->xi + (size_t)(i + 1) * n;
    matvec(n, M, cur, res);
    for (int j = 0; j < n; j++) nx[j] = cur[j] - st * om * (res[j] - b[j]) + (om - 1.0) * (cur[j] - prev[j]);
  }
  memcpy(S->xc, S->xi + (size_t)(iters + 1) * n, sizeof(double) * (size_t)n);
}

/* Seeds the adjoints of M, b and lambda from dx. */
static void solve_back(gtape *G, const spec_readout *r, orc_solve how, int implicit, gsolve *S, const double *dx) {
  int n = dimlen(G->s, r->rows);
  double *dM = G->tape[S->iM].adj, *db = G->tape[S->ib].adj;
  const double *M = G->tape[S->iM].v.d, *b = G->tape[S->ib].v.d;
  if (S->singular) {
    for (int i = 0; i < n; i++) db[i] += dx[i];
    return;
  }
  if (how == ORC_SOLVE_EXACT) { /* g = M⁻ᵀ dx (M symmetric here, Cholesky as the forward) */
    double *gv = take(G, (size_t)n), *Mt = take(G, (size_t)n * n);
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) Mt[(size_t)i * n + j] = M[(size_t)j * n + i];
    if (orc_cholesky_solve(n, Mt, dx, gv))
      for (int i = 0; i < n; i++) gv[i] = NAN;
    for (int i = 0; i < n; i++) {
      db[i] += gv[i];
      for (int j = 0; j < n; j++) dM[(size_t)i * n + j] -= gv[i] * S->xe[j];
    }
    return;
  }
  if (implicit) { /* g = CH_r(Mᵀ, dx) with the forward's bounds */
    double *gv = take(G, (size_t)n), *Mt = take(G, (size_t)n * n);
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) Mt[(size_t)i * n + j] = M[(size_t)j * n + i];
    orc_chebyshev(n, Mt, dx, S->L, S->mu, S->iters, gv);
    for (int i = 0; i < n; i++) {
      db[i] += gv[i];
      for (int j = 0; j < n; j++) dM[(size_t)i * n + j] -= gv[i] * S->xc[j];
    }
    return;
  }
  int R = S->iters;
  double st = 2.0 / (S->L + S->mu), rho = (S->L - S->mu) / (S->L + S->mu);
  double *dxi = take(G, (size_t)(R + 2) * n), *dom = take(G, (size_t)(R + 1)), *res = take(G, (size_t)n);
  double *mta = take(G, (size_t)n);
  double dst = 0, drho = 0;
  memcpy(dxi + (size_t)(R + 1) * n, dx, sizeof(double) * (size_t)n);
  for (int i = R; i >= 1; i--) {
    const double *a = dxi + (size_t)(i + 1) * n, *cur = S->xi + (size_t)i * n, *prev = S->xi + (size_t)(i - 1) * n;
    double om = S->om[i];
    matvec(n, M, cur, res);
    for (int j = 0; j < n; j++) res[j] -= b[j];
    for (int j = 0; j < n; j++) { /* Mᵀ a */
      double acc = 0;
      for (int k = 0; k < n; k++) acc += M[(size_t)k * n + j] * a[k];
      mta[j] = acc;
    }
    double *dcur = dxi + (size_t)i * n, *dprev = dxi + (size_t)(i - 1) * n;
    double dw = 0, ds = 0;
    for (int j = 0; j < n; j++) {
      dcur[j] += om * a[j] - st * om * mta[j];
      dprev[j] += -(om - 1.0) * a[j];
      db[j] += st * om * a[j];
      dw += a[j] * (cur[j] - prev[j] - st * res[j]);
      ds += -om * a[j] * res[j];
      for (int k = 0; k < n; k++) dM[(size_t)j * n + k] -= st * om * a[j] * cur[k];
    }
    dom[i] += dw;
    dst += ds;
    /* ω_i = 4 / (4 − ρ² ω_{i−1}) */
    double den = 4.0 - rho * rho * S->om[i - 1];
    dom[i - 1] += dom[i] * 4.0 * rho * rho / (den * den);
    drho += dom[i] * 4.0 * 2.0 * rho * S->om[i - 1] / (den * den);
  }
  for (int j = 0; j < n; j++) { /* ξ_0 = st b */
    db[j] += st * dxi[(size_t)n + j];
    dst += dxi[(size_t)n + j] * b[j];
  }
  double sum = S->L + S->mu;
  double dL = -2.0 / (sum * sum) * dst + 2.0 * S->mu / (sum * sum) * drho;
  double dmu = -2.0 / (sum * sum) * dst - 2.0 * S->L / (sum * sum) * drho;
  double dlam = dL + dmu, dnrm = dL;
  if (S->nrm > 0)
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        double v = (M[(size_t)i * n + j] - (i == j ? S->lam : 0)) / S->nrm;
        dM[(size_t)i * n + j] += dnrm * v;
        if (i == j) dlam -= dnrm * v;
      }
  if (S->il >= 0) G->tape[S->il].adj[0] += dlam;
}

/* ---- one token: evaluate with a tape, then back-propagate ---- */

typedef struct {
  const layer_spec *s;
  int iters;
  orc_solve how;
  int implicit;
  size_t stsz[SPEC_MAX_IO];   /* full element count of each state */
} gctx;

/* Math-orientation state buffers (rows x cols). Advances st from t-1 to t and
 * evaluates readouts; with dy != NULL also back-propagates: dcarry (adjoint of
 * S_t) becomes the adjoint of S_{t-1}, din_t gets this token's input gradients. */
static int token(const gctx *c, gtape *G, const double *const *in_t, double **st, double **nst, const double *dy,
                 double **dcarry, double **din_t, double *y_out) {
  const layer_spec *s = c->s;
  int rc = 0;
  G->used = 0;
  G->nt = 0;
  for (int i = 0; i < s->n_in; i++) {
    int d = dimlen(s, s->in[i].dim);
    G->in[i] = (gm){d, 1, (double *)in_t[i]};
  }
  int root[SPEC_MAX_IO], seg_lo[SPEC_MAX_IO + 1];
  for (int i = 0; i < s->n_st; i++) G->st[i] = (gm){dimlen(s, s->st[i].rows), dimlen(s, s->st[i].cols), st[i]};
  seg_lo[0] = 0;
  for (int i = 0; i < s->n_st; i++) root[i] = ev(G, s->st[i].update);
  int upd_hi = G->nt;
  for (int i = 0; i < s->n_st; i++) {
    memcpy(nst[i], G->tape[root[i]].v.d, sizeof(double) * c->stsz[i]);
    G->st[i].d = nst[i];
  }
  gsolve S[SPEC_MAX_IO];
  int rlo[SPEC_MAX_IO], rhi[SPEC_MAX_IO], rroot[SPEC_MAX_IO];
  for (int i = 0; i < s->n_rd; i++) {
    const spec_readout *r = &s->rd[i];
    rlo[i] = G->nt;
    if (r->kind == RD_SOLVE) {
      solve_fwd(G, r, c->iters > 0 ? c->iters : r->iters, c->how, &S[i]);
      if (S[i].failed) rc = -1;
      G->loc[i] = (gm){dimlen(s, r->rows), 1, c->how == ORC_SOLVE_EXACT ? S[i].xe : S[i].xc};
      rroot[i] = -1;
    } else {
      rroot[i] = ev(G, r->expr);
      G->loc[i] = G->tape[rroot[i]].v;
    }
    rhi[i] = G->nt;
  }
  if (y_out) memcpy(y_out, G->loc[s->out_rd].d, sizeof(double) * (size_t)s->V);
  if (!dy) return rc;
  /* readouts, last first: states read here are S_t */
  for (int i = 0; i < s->n_rd; i++) G->dloc[i] = take(G, (size_t)G->loc[i].r);
  for (int i = 0; i < s->n_in; i++) G->din[i] = din_t[i];
  for (int i = 0; i < s->n_st; i++) G->dst[i] = dcarry[i];
  for (int j = 0; j < s->V; j++) G->dloc[s->out_rd][j] += dy[j];
  for (int i = s->n_rd - 1; i >= 0; i--) {
    const spec_readout *r = &s->rd[i];
    if (r->kind == RD_SOLVE) solve_back(G, r, c->how, c->implicit, &S[i], G->dloc[i]);
    else
      for (int j = 0; j < G->loc[i].r; j++) G->tape[rroot[i]].adj[j] += G->dloc[i][j];
    back(G, rlo[i], rhi[i]);
  }
  /* updates: adjoint of S_t seeds each root; states read here are S_{t-1} */
  double *dprev[SPEC_MAX_IO];
  for (int i = 0; i < s->n_st; i++) {
    memcpy(G->tape[root[i]].adj, dcarry[i], sizeof(double) * c->stsz[i]);
    dprev[i] = take(G, c->stsz[i]);
    G->dst[i] = dprev[i];
  }
  back(G, seg_lo[0], upd_hi);
  for (int i = 0; i < s->n_st; i++) memcpy(dcarry[i], dprev[i], sizeof(double) * c->stsz[i]);
  return rc;
}

static void to_math(const layer_spec *s, int i, const double *stored, double *math) {
  int r = dimlen(s, s->st[i].rows), c = dimlen(s, s->st[i].cols);
  for (int a = 0; a < r; a++)
    for (int b = 0; b < c; b++) math[(size_t)a * c + b] = stored[(size_t)b * r + a];
}

static void to_stored(const layer_spec *s, int i, const double *math, double *stored) {
  int r = dimlen(s, s->st[i].rows), c = dimlen(s, s->st[i].cols);
  for (int a = 0; a < r; a++)
    for (int b = 0; b < c; b++) stored[(size_t)b * r + a] = math[(size_t)a * c + b];
}

int orc_grad(const layer_spec *s, int T, const double *const *in, const double *const *state0, orc_grad_io *g) {
  gctx c = {.s = s, .iters = g->iters, .how = g->how, .implicit = g->how == ORC_SOLVE_CHEBYSHEV && g->implicit};
  gtape G = {.s = s};
  size_t big = (size_t)(s->K > s->V ? s->K : s->V);
  int iters = g->iters;
  for (int i = 0; i < s->n_rd; i++)
    if (s->rd[i].kind == RD_SOLVE && iters <= 0) iters = s->rd[i].iters;
  G.cap = 160 * big * big + (size_t)(iters + 8) * big * 4 + 65536;
  G.pool = malloc(G.cap * sizeof(double));
  size_t tot = 0;
  for (int i = 0; i < s->n_st; i++) tot += c.stsz[i] = (size_t)dimlen(s, s->st[i].rows) * dimlen(s, s->st[i].cols);
  int nseg = (T + ORC_GRAD_SEG - 1) / ORC_GRAD_SEG;
  double *ckpt = malloc(sizeof(double) * (tot * (size_t)(nseg + 1) + 1));    /* state at each segment start */
  double *hist = malloc(sizeof(double) * (tot * (ORC_GRAD_SEG + 1) + 1));    /* states inside one segment */
  double *dc[SPEC_MAX_IO], *cur[SPEC_MAX_IO], *nxt[SPEC_MAX_IO];
  size_t off[SPEC_MAX_IO];
  size_t o = 0;
  for (int i = 0; i < s->n_st; i++) {
    off[i] = o;
    o += c.stsz[i];
    dc[i] = calloc(c.stsz[i], sizeof(double));
    if (g->dstate && g->dstate[i]) to_math(s, i, g->dstate[i], dc[i]);
    to_math(s, i, state0[i], ckpt + off[i]);
  }
  int rc = 0;
  const double *in_t[SPEC_MAX_IO];
  double *din_t[SPEC_MAX_IO], *dscratch = malloc(sizeof(double) * (big * SPEC_MAX_IO + 1));
  int D[SPEC_MAX_IO];
  for (int i = 0; i < s->n_in; i++) D[i] = dimlen(s, s->in[i].dim);
  /* forward sweep: checkpoints */
  for (int sg = 0; sg < nseg; sg++) {
    for (int i = 0; i < s->n_st; i++) {
      cur[i] = hist + off[i];
      nxt[i] = hist + tot + off[i];
      memcpy(cur[i], ckpt + (size_t)sg * tot + off[i], sizeof(double) * c.stsz[i]);
    }
    int t1 = (sg + 1) * ORC_GRAD_SEG < T ? (sg + 1) * ORC_GRAD_SEG : T;
    for (int t = sg * ORC_GRAD_SEG; t < t1; t++) {
      for (int i = 0; i < s->n_in; i++) in_t[i] = in[i] + (size_t)t * D[i];
      token(&c, &G, in_t, cur, nxt, NULL, NULL, NULL, NULL);
      for (int i = 0; i < s->n_st; i++) { double *x = cur[i]; cur[i] = nxt[i]; nxt[i] = x; }
    }
    for (int i = 0; i < s->n_st; i++) memcpy(ckpt + (size_t)(sg + 1) * tot + off[i], cur[i], sizeof(double) * c.stsz[i]);
  }
  for (int i = 0; i < s->n_in; i++)
    if (g->din[i]) memset(g->din[i], 0, sizeof(double) * (size_t)T * D[i]);
  /* reverse sweep, segment by segment */
  for (int sg = nseg - 1; sg >= 0; sg--) {
    int t0 = sg * ORC_GRAD_SEG, t1 = t0 + ORC_GRAD_SEG < T ? t0 + ORC_GRAD_SEG : T;
    memcpy(hist, ckpt + (size_t)sg * tot, sizeof(double) * tot);
    for (int t = t0; t < t1; t++) { /* hist[j] = states after token t0 + j - 1 */
      for (int i = 0; i < s->n_in; i++) in_t[i] = in[i] + (size_t)t * D[i];
      for (int i = 0; i < s->n_st; i++) {
        cur[i] = hist + (size_t)(t - t0) * tot + off[i];
        nxt[i] = hist + (size_t)(t - t0 + 1) * tot + off[i];
      }
      token(&c, &G, in_t, cur, nxt, NULL, NULL, NULL, NULL);
    }
    for (int t = t1 - 1; t >= t0; t--) {
      for (int i = 0; i < s->n_in; i++) {
        in_t[i] = in[i] + (size_t)t * D[i];
        din_t[i] = g->din[i] ? g->din[i] + (size_t)t * D[i] : dscratch + big * (size_t)i;
      }
      for (int i = 0; i < s->n_st; i++) {
        cur[i] = hist + (size_t)(t - t0) * tot + off[i];
        nxt[i] = hist + (size_t)(t - t0 + 1) * tot + off[i];
      }
      if (token(&c, &G, in_t, cur, nxt, g->dy + (size_t)t * s->V, dc, din_t, NULL)) rc = -1;
    }
  }
  for (int i = 0; i < s->n_st; i++) {
    if (g->dstate0 && g->dstate0[i]) to_stored(s, i, dc[i], g->dstate0[i]);
    free(dc[i]);
  }
  free(dscratch);
  free(ckpt);
  free(hist);
  free(G.pool);
  free(G.tape);
  return rc;
}

double orc_grad_loss(const layer_spec *s, int T, const double *const *in, const double *const *state0,
                     const orc_grad_io *g) {
  double *st[SPEC_MAX_IO];
  size_t sz[SPEC_MAX_IO];
  for (int i = 0; i < s->n_st; i++) {
    sz[i] = (size_t)dimlen(s, s->st[i].rows) * dimlen(s, s->st[i].cols);
    st[i] = malloc(sizeof(double) * sz[i]);
    memcpy(st[i], state0[i], sizeof(double) * sz[i]);
  }
  double *y = malloc(sizeof(double) * (size_t)T * s->V), *ye = malloc(sizeof(double) * (size_t)T * s->V);
  orc_out o = {g->iters, y, ye, NULL, NULL};
  orc_interp(s, T, in, st, &o);
  const double *yy = g->how == ORC_SOLVE_EXACT ? ye : y;
  double L = 0;
  for (size_t j = 0; j < (size_t)T * s->V; j++) L += g->dy[j] * yy[j];
  for (int i = 0; i < s->n_st; i++) {
    if (g->dstate && g->dstate[i])
      for (size_t j = 0; j < sz[i]; j++) L += g->dstate[i][j] * st[i][j];
    free(st[i]);
  }
  free(y);
  free(ye);
  return L;
}
