/* oracle stage: literal fp64 interpreter (see orc_interp.h). */
#include "orc_interp.h"
#include "orc_ref.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct { int r, c; double *d; } mv; /* row-major r x c */

typedef struct {
  const layer_spec *s;
  double *pool;
  size_t used, cap;
  mv in[SPEC_MAX_IO], st[SPEC_MAX_IO], loc[SPEC_MAX_IO];
} interp;

static double *take(interp *I, size_t n) {
  if (I->used + n > I->cap) abort(); /* sized up front: an overflow is our bug */
  double *p = I->pool + I->used;
  I->used += n;
  memset(p, 0, n * sizeof *p);
  return p;
}

static mv mk(interp *I, int r, int c) { return (mv){r, c, take(I, (size_t)r * (size_t)c)}; }

static int dimlen(const layer_spec *s, ex_dim d) { return d == DIM_K ? s->K : d == DIM_V ? s->V : 1; }

static mv eval(interp *I, const ex_node *n);

static mv matmul(interp *I, mv a, mv b) {
  mv c = mk(I, a.r, b.c);
  for (int i = 0; i < a.r; i++)
    for (int k = 0; k < a.c; k++) {
      double av = a.d[(size_t)i * a.c + k];
      if (av == 0) continue;
      const double *br = b.d + (size_t)k * b.c;
      double *cr = c.d + (size_t)i * c.c;
      for (int j = 0; j < b.c; j++) cr[j] += av * br[j];
    }
  return c;
}

static mv scale(interp *I, mv a, double f) {
  mv c = mk(I, a.r, a.c);
  for (int i = 0; i < a.r * a.c; i++) c.d[i] = a.d[i] * f;
  return c;
}

static mv eval_call(interp *I, const ex_node *n) {
  mv x = eval(I, n->args[0]);
  if (!strcmp(n->name, "diag")) {
    mv c = mk(I, x.r, x.r);
    for (int i = 0; i < x.r; i++) c.d[(size_t)i * x.r + i] = x.d[i];
    return c;
  }
  if (!strcmp(n->name, "fro")) {
    mv c = mk(I, 1, 1);
    double s = 0;
    for (int i = 0; i < x.r * x.c; i++) s += x.d[i] * x.d[i];
    c.d[0] = sqrt(s);
    return c;
  }
  mv c = mk(I, x.r, x.c);
  for (int i = 0; i < x.r * x.c; i++)
    c.d[i] = !strcmp(n->name, "exp") ? exp(x.d[i]) : !strcmp(n->name, "log") ? log(x.d[i]) : sqrt(x.d[i]);
  return c;
}

static mv eval(interp *I, const ex_node *n) {
  const layer_spec *s = I->s;
  switch (n->op) {
  case EX_NUM: { mv c = mk(I, 1, 1); c.d[0] = n->num; return c; }
  case EX_SYM:
    switch (n->sym) {
    case SYM_INPUT: return I->in[n->index];
    case SYM_STATE: return I->st[n->index];
    case SYM_LOCAL: return I->loc[n->index];
    case SYM_CONST: { mv c = mk(I, 1, 1); c.d[0] = s->cst[n->index].value; return c; }
    case SYM_IDENT: {
      int d = dimlen(s, n->rows);
      mv c = mk(I, d, d);
      for (int i = 0; i < d; i++) c.d[(size_t)i * d + i] = 1;
      return c;
    }
    default: abort();
    }
  case EX_CALL: return eval_call(I, n);
  case EX_NEG: return scale(I, eval(I, n->a), -1);
  case EX_T: {
    mv a = eval(I, n->a), c = mk(I, a.c, a.r);
    for (int i = 0; i < a.r; i++)
      for (int j = 0; j < a.c; j++) c.d[(size_t)j * a.r + i] = a.d[(size_t)i * a.c + j];
    return c;
  }
  case EX_ADD:
  case EX_SUB: {
    mv a = eval(I, n->a), b = eval(I, n->b), c = mk(I, a.r, a.c);
    double sg = n->op == EX_ADD ? 1 : -1;
    for (int i = 0; i < a.r * a.c; i++) c.d[i] = a.d[i] + sg * b.d[i];
    return c;
  }
  case EX_MUL: {
    mv a = eval(I, n->a), b = eval(I, n->b);
    if (ex_is_scalar(n->a)) return scale(I, b, a.d[0]);
    if (ex_is_scalar(n->b)) return scale(I, a, b.d[0]);
    return matmul(I, a, b);
  }
  case EX_DIV: {
    mv a = eval(I, n->a), b = eval(I, n->b);
    return scale(I, a, 1.0 / b.d[0]);
  }
  }
  abort();
}

/* Chebyshev as the spec states it: L = ||M - lambda I||_F + lambda, mu = lambda. */
static int solve(interp *I, const spec_readout *r, int iters, double *xc, double *xe) {
  int n = dimlen(I->s, r->rows);
  mv M = eval(I, r->matrix), b = eval(I, r->rhs);
  double lam = r->lambda ? eval(I, r->lambda).d[0] : 0, h2 = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double v = M.d[(size_t)i * n + j] - (i == j ? lam : 0);
      h2 += v * v;
    }
  double L = sqrt(h2) + lam, mu = lam;
  if (L + mu == 0) { /* ||H||_F = 0 and lambda = 0: x = b by definition */
    memcpy(xc, b.d, sizeof(double) * (size_t)n);
    memcpy(xe, b.d, sizeof(double) * (size_t)n);
    return 0;
  }
  orc_chebyshev(n, M.d, b.d, L, mu, iters, xc);
  return orc_cholesky_solve(n, M.d, b.d, xe);
}

int orc_interp(const layer_spec *s, int T, const double *const *in, double *const *state, orc_out *o) {
  interp I = {.s = s};
  size_t big = (size_t)(s->K > s->V ? s->K : s->V);
  I.cap = 64 * big * big + 4096;
  I.pool = malloc(I.cap * sizeof(double));
  int rc = 0, xr = -1;
  for (int i = 0; i < s->n_rd; i++)
    if (s->rd[i].kind == RD_SOLVE) xr = i;
  size_t nx = xr >= 0 ? (size_t)dimlen(s, s->rd[xr].rows) : 0;
  double *xc = malloc(sizeof(double) * (nx + 1)), *xe = malloc(sizeof(double) * (nx + 1));
  /* persistent state matrices (math orientation) live in their own buffers */
  double *stbuf[SPEC_MAX_IO], *nxt[SPEC_MAX_IO];
  for (int i = 0; i < s->n_st; i++) {
    int r = dimlen(s, s->st[i].rows), c = dimlen(s, s->st[i].cols);
    stbuf[i] = malloc(sizeof(double) * (size_t)r * c);
    nxt[i] = malloc(sizeof(double) * (size_t)r * c);
    for (int a = 0; a < r; a++)
      for (int b = 0; b < c; b++) stbuf[i][(size_t)a * c + b] = state[i][(size_t)b * r + a];
  }
  for (int t = 0; t < T && !rc; t++) {
    I.used = 0;
    for (int i = 0; i < s->n_in; i++) {
      int d = dimlen(s, s->in[i].dim);
      I.in[i] = (mv){d, 1, (double *)in[i] + (size_t)t * d};
    }
    for (int i = 0; i < s->n_st; i++)
      I.st[i] = (mv){dimlen(s, s->st[i].rows), dimlen(s, s->st[i].cols), stbuf[i]};
    for (int i = 0; i < s->n_st; i++) { /* all updates read the states at t-1 */
      mv v = eval(&I, s->st[i].update);
      memcpy(nxt[i], v.d, sizeof(double) * (size_t)v.r * v.c);
    }
    for (int i = 0; i < s->n_st; i++) {
      double *x = stbuf[i]; stbuf[i] = nxt[i]; nxt[i] = x;
      I.st[i].d = stbuf[i];
    }
    for (int i = 0; i < s->n_rd; i++) {
      const spec_readout *r = &s->rd[i];
      if (r->kind == RD_SOLVE) {
        if (solve(&I, r, o->iters > 0 ? o->iters : r->iters, xc, xe)) rc = -1;
        if (o->x) memcpy(o->x + (size_t)t * nx, xc, sizeof(double) * nx);
        if (o->x_exact) memcpy(o->x_exact + (size_t)t * nx, xe, sizeof(double) * nx);
        I.loc[i] = (mv){(int)nx, 1, xc};
      } else {
        I.loc[i] = eval(&I, r->expr);
      }
    }
    mv y = I.loc[s->out_rd];
    memcpy(o->y + (size_t)t * s->V, y.d, sizeof(double) * (size_t)s->V);
    if (o->y_exact) {
      if (xr >= 0) {
        I.loc[xr] = (mv){(int)nx, 1, xe};
        for (int i = xr + 1; i < s->n_rd; i++)
          if (s->rd[i].kind == RD_EXPR) I.loc[i] = eval(&I, s->rd[i].expr);
      }
      memcpy(o->y_exact + (size_t)t * s->V, I.loc[s->out_rd].d, sizeof(double) * (size_t)s->V);
    }
  }
  for (int i = 0; i < s->n_st; i++) {
    int r = dimlen(s, s->st[i].rows), c = dimlen(s, s->st[i].cols);
    for (int a = 0; a < r; a++)
      for (int b = 0; b < c; b++) state[i][(size_t)b * r + a] = stbuf[i][(size_t)a * c + b];
    free(stbuf[i]);
    free(nxt[i]);
  }
  free(xc);
  free(xe);
  free(I.pool);
  return rc;
}
