/* dsl stage: reading a layer-family spec from YAML (see spec.h). */
#include "spec.h"
#include "sbx.h"
#include "yml.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  layer_spec *s;
  const srcfile *f;
  arena *a;
  sbx *lua;
  diag *d;
} ld;

/* ------------------------------------------------------------ helpers */

static int err_node(ld *L, const yml_node *n, const char *fmt, const char *arg) {
  return diag_at(L->d, L->f, n->line, n->col, fmt, arg);
}

static int check_keys(ld *L, const yml_node *map, const char *where, const char *const *keys, int nk) {
  for (int i = 0; i < map->n; i++) {
    const char *k = map->keys[i]->value;
    int ok = 0;
    for (int j = 0; j < nk && !ok; j++) ok = !strcmp(k, keys[j]);
    if (ok) continue;
    diag_at(L->d, L->f, map->keys[i]->line, map->keys[i]->col, "unknown key '%s' in %s", k, where);
    const char *near = diag_nearest(k, keys, nk);
    if (near) diag_note(L->d, "did you mean '%s'?", near);
    else {
      char list[256] = "";
      for (int j = 0; j < nk; j++) {
        strncat(list, keys[j], sizeof list - strlen(list) - 1);
        if (j + 1 < nk) strncat(list, ", ", sizeof list - strlen(list) - 1);
      }
      diag_note(L->d, "known keys: %s", list);
    }
    return 1;
  }
  return 0;
}

static int want_kind(ld *L, const yml_node *n, yml_kind k, const char *what) {
  if (n->kind == k) return 0;
  diag_at(L->d, L->f, n->line, n->col, "%s must be %s, not %s", what, yml_kind_name(k), yml_kind_name(n->kind));
  return 1;
}

static int get_int(ld *L, const yml_node *n, const char *what, int lo, int hi, int *out) {
  if (want_kind(L, n, YML_SCALAR, what)) return 1;
  char *end;
  long v = strtol(n->value, &end, 10);
  if (!n->value[0] || *end)
    return diag_at(L->d, L->f, n->line, n->col, "%s must be an integer, not '%s'", what, n->value);
  if (v < lo || v > hi)
    return diag_at(L->d, L->f, n->line, n->col, "%s must be between %d and %d (got %ld)", what, lo, hi, v);
  *out = (int)v;
  return 0;
}

static int get_bool(ld *L, const yml_node *n, const char *what, int *out) {
  if (want_kind(L, n, YML_SCALAR, what)) return 1;
  if (!strcmp(n->value, "true")) { *out = 1; return 0; }
  if (!strcmp(n->value, "false")) { *out = 0; return 0; }
  return diag_at(L->d, L->f, n->line, n->col, "%s must be true or false, not '%s'", what, n->value);
}

static int is_ident(const char *s) {
  if (!s[0] || !(s[0] == '_' || (s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z'))) return 0;
  for (const char *p = s; *p; p++)
    if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
      return 0;
  return 1;
}

static const char *const reserved[] = {"I", "exp", "log", "sqrt", "diag", "fro", "lambda", "K", "V"};

static int check_name(ld *L, const yml_node *key, const char *what) {
  if (!is_ident(key->value))
    return diag_at(L->d, L->f, key->line, key->col, "%s name '%s' is not an identifier", what, key->value);
  for (size_t i = 0; i < sizeof reserved / sizeof *reserved; i++)
    if (!strcmp(key->value, reserved[i]))
      return diag_at(L->d, L->f, key->line, key->col, "'%s' is reserved and cannot name %s", key->value, what);
  const layer_spec *s = L->s;
  for (int i = 0; i < s->n_in; i++)
    if (!strcmp(s->in[i].name, key->value)) goto dup;
  for (int i = 0; i < s->n_st; i++)
    if (!strcmp(s->st[i].name, key->value)) goto dup;
  for (int i = 0; i < s->n_rd; i++)
    if (!strcmp(s->rd[i].name, key->value)) goto dup;
  for (int i = 0; i < s->n_const; i++)
    if (!strcmp(s->cst[i].name, key->value)) goto dup;
  return 0;
dup:
  return diag_at(L->d, L->f, key->line, key->col, "the name '%s' is already used", key->value);
}

/* Parses a dim list like [K] or [V, K]. */
static int get_shape(ld *L, const yml_node *n, int maxrank, ex_dim out[2], int *rank) {
  if (want_kind(L, n, YML_SEQ, "a shape")) return 1;
  if (n->n > maxrank)
    return diag_at(L->d, L->f, n->line, n->col, "a shape here has at most %d dims", maxrank);
  for (int i = 0; i < n->n; i++) {
    const yml_node *e = n->items[i];
    if (want_kind(L, e, YML_SCALAR, "a dim")) return 1;
    if (!strcmp(e->value, "K")) out[i] = DIM_K;
    else if (!strcmp(e->value, "V")) out[i] = DIM_V;
    else return diag_at(L->d, L->f, e->line, e->col, "unknown dim '%s' (the dims are K and V)", e->value);
  }
  *rank = n->n;
  return 0;
}

/* Runs a Lua snippet held in a YAML scalar; errors point into the YAML. */
static int lua_eval(ld *L, const yml_node *n, const sbx_var *vars, int nv, double *out, int *is_bool) {
  char msg[512];
  int line = 0;
  if (sbx_eval(L->lua, n->value, vars, nv, out, is_bool, msg, sizeof msg, &line) == 0) return 0;
  int yl = n->vline, yc = n->vcol;
  if (line > 1) yl += line - 1; /* block scalar lines start at the same column */
  diag_at(L->d, L->f, yl, yc, "Lua: %s", msg);
  return 1;
}

static int n_vars(const layer_spec *s, sbx_var *v, int cap) {
  int n = 0;
  v[n++] = (sbx_var){"K", s->K};
  v[n++] = (sbx_var){"V", s->V};
  v[n++] = (sbx_var){"chunk", s->chunk};
  for (int i = 0; i < s->n_const && n < cap; i++) v[n++] = (sbx_var){s->cst[i].name, s->cst[i].value};
  return n;
}

/* ------------------------------------------------------------ sections */

static int load_dims(ld *L, const yml_node *n) {
  static const char *const keys[] = {"K", "V"};
  if (want_kind(L, n, YML_MAP, "dims") || check_keys(L, n, "dims", keys, 2)) return 1;
  const yml_node *k = yml_get(n, "K"), *v = yml_get(n, "V");
  if (!k || !v) return diag_at(L->d, L->f, n->line, n->col, "dims needs both K and V");
  L->s->k_line = k->line;
  L->s->k_col = k->col;
  L->s->v_line = v->line;
  L->s->v_col = v->col;
  return get_int(L, k, "K", 1, 1024, &L->s->K) || get_int(L, v, "V", 1, 1024, &L->s->V);
}

static int load_input(ld *L, const yml_node *key, const yml_node *n) {
  layer_spec *s = L->s;
  if (check_name(L, key, "an input")) return 1;
  if (s->n_in == SPEC_MAX_IO) return err_node(L, key, "too many inputs (at most 8): '%s'", key->value);
  spec_input *in = &s->in[s->n_in];
  in->name = key->value;
  in->line = key->line;
  in->col = key->col;
  ex_dim sh[2] = {DIM_1, DIM_1};
  int rank = 0;
  if (n->kind == YML_SEQ) { /* [K] */
    if (get_shape(L, n, 1, sh, &rank)) return 1;
    in->domain = DOM_NORMAL;
  } else if (n->kind == YML_SCALAR) {
    static const char *const shorts[] = {"scalar_log_decay", "key_log_decay", "unit", "scalar"};
    if (!strcmp(n->value, "scalar_log_decay")) in->domain = DOM_LOG_DECAY;
    else if (!strcmp(n->value, "key_log_decay")) { in->domain = DOM_LOG_DECAY; sh[0] = DIM_K; rank = 1; }
    else if (!strcmp(n->value, "unit")) in->domain = DOM_UNIT;
    else if (!strcmp(n->value, "scalar")) in->domain = DOM_NORMAL;
    else {
      diag_at(L->d, L->f, n->line, n->col, "unknown input type '%s'", n->value);
      const char *near = diag_nearest(n->value, shorts, 4);
      if (near) diag_note(L->d, "did you mean '%s'?", near);
      else diag_note(L->d, "an input is [K], [V], scalar_log_decay, key_log_decay, unit, scalar, or {shape: [...], domain: ...}");
      return 1;
    }
  } else {
    static const char *const keys[] = {"shape", "domain"};
    if (check_keys(L, n, "an input", keys, 2)) return 1;
    const yml_node *shape = yml_get(n, "shape"), *dom = yml_get(n, "domain");
    if (shape && get_shape(L, shape, 1, sh, &rank)) return 1;
    in->domain = DOM_NORMAL;
    if (dom) {
      static const char *const doms[] = {"normal", "unit_sphere", "log_decay", "unit"};
      if (want_kind(L, dom, YML_SCALAR, "domain")) return 1;
      int found = -1;
      for (int i = 0; i < 4; i++)
        if (!strcmp(dom->value, doms[i])) found = i;
      if (found < 0) {
        diag_at(L->d, L->f, dom->line, dom->col, "unknown domain '%s'", dom->value);
        const char *near = diag_nearest(dom->value, doms, 4);
        diag_note(L->d, near ? "did you mean '%s'?" : "%s", near ? near : "domains: normal, unit_sphere, log_decay, unit");
        return 1;
      }
      in->domain = (spec_domain)found;
    }
  }
  in->dim = rank ? sh[0] : DIM_1;
  if (in->domain == DOM_UNIT_SPHERE && in->dim == DIM_1)
    return err_node(L, key, "input '%s': unit_sphere needs a vector shape", key->value);
  if (in->domain == DOM_UNIT && in->dim != DIM_1)
    return err_node(L, key, "input '%s': the unit domain is for scalars", key->value);
  if (in->domain == DOM_LOG_DECAY && in->dim == DIM_V)
    return err_node(L, key, "input '%s': log decays are scalar or per key ([K])", key->value);
  s->n_in++;
  return 0;
}

static int load_constants(ld *L, const yml_node *n) {
  layer_spec *s = L->s;
  if (want_kind(L, n, YML_MAP, "constants")) return 1;
  for (int i = 0; i < n->n; i++) {
    const yml_node *key = n->keys[i], *v = n->vals[i];
    if (check_name(L, key, "a constant")) return 1;
    if (s->n_const == SPEC_MAX_CONST) return err_node(L, key, "too many constants: '%s'", key->value);
    if (want_kind(L, v, YML_SCALAR, "a constant")) return 1;
    double val;
    if (v->tag && !strcmp(v->tag, "!lua")) {
      sbx_var vars[SPEC_MAX_CONST + 3];
      int nv = n_vars(s, vars, SPEC_MAX_CONST + 3), isb = 0;
      if (lua_eval(L, v, vars, nv, &val, &isb)) return 1;
      if (isb) return err_node(L, v, "constant '%s' must be a number, not a boolean", key->value);
    } else {
      char *end;
      val = strtod(v->value, &end);
      if (!v->value[0] || *end) {
        diag_at(L->d, L->f, v->line, v->col, "constant '%s' must be a number, not '%s'", key->value, v->value);
        diag_note(L->d, "write derived values in Lua with the !lua tag, e.g. scale: !lua \"K^-0.5\"");
        return 1;
      }
    }
    if (!isfinite(val)) return err_node(L, v, "constant '%s' is not finite", key->value);
    s->cst[s->n_const++] = (spec_const){key->value, val, key->line, key->col};
  }
  return 0;
}

static void env_build(const layer_spec *s, ex_binding *b, int *n, int readouts_upto) {
  int k = 0;
  for (int i = 0; i < s->n_in; i++)
    b[k++] = (ex_binding){s->in[i].name, SYM_INPUT, i, s->in[i].dim, DIM_1};
  for (int i = 0; i < s->n_st; i++)
    b[k++] = (ex_binding){s->st[i].name, SYM_STATE, i, s->st[i].rows, s->st[i].cols};
  for (int i = 0; i < s->n_const; i++)
    b[k++] = (ex_binding){s->cst[i].name, SYM_CONST, i, DIM_1, DIM_1};
  for (int i = 0; i < readouts_upto; i++)
    b[k++] = (ex_binding){s->rd[i].name, SYM_LOCAL, i, s->rd[i].rows, DIM_1};
  *n = k;
}

static ex_node *parse_expr_node(ld *L, const yml_node *v, const char *what) {
  if (v->kind != YML_SCALAR) {
    diag_at(L->d, L->f, v->line, v->col, "%s must be an expression string", what);
    return NULL;
  }
  return ex_parse(v->value, L->f, v->vline, v->vcol, L->a, L->d);
}

static int load_states(ld *L, const yml_node *n) {
  layer_spec *s = L->s;
  if (want_kind(L, n, YML_MAP, "state")) return 1;
  if (n->n == 0) return diag_at(L->d, L->f, n->line, n->col, "a spec needs at least one state");
  /* First pass: names and shapes (updates may refer to any state). */
  for (int i = 0; i < n->n; i++) {
    const yml_node *key = n->keys[i], *v = n->vals[i];
    static const char *const keys[] = {"shape", "dtype", "symmetric", "update"};
    if (check_name(L, key, "a state")) return 1;
    if (s->n_st == SPEC_MAX_IO) return err_node(L, key, "too many states: '%s'", key->value);
    if (want_kind(L, v, YML_MAP, "a state") || check_keys(L, v, "a state", keys, 4)) return 1;
    spec_state *st = &s->st[s->n_st];
    st->name = key->value;
    st->line = key->line;
    st->col = key->col;
    const yml_node *shape = yml_get(v, "shape"), *dt = yml_get(v, "dtype"), *sym = yml_get(v, "symmetric");
    if (!shape) return err_node(L, key, "state '%s' needs a shape ([V, K] or [K, K])", key->value);
    ex_dim sh[2];
    int rank;
    if (get_shape(L, shape, 2, sh, &rank)) return 1;
    if (rank != 2 || sh[1] != DIM_K)
      return diag_at(L->d, L->f, shape->line, shape->col,
                     "state shapes are [V, K] or [K, K] (a state maps keys to values)");
    st->rows = sh[0];
    st->cols = sh[1];
    if (dt) {
      if (want_kind(L, dt, YML_SCALAR, "dtype")) return 1;
      if (strcmp(dt->value, "f32"))
        return diag_at(L->d, L->f, dt->line, dt->col, "states are f32 (got '%s')", dt->value);
    }
    if (sym && get_bool(L, sym, "symmetric", &st->symmetric)) return 1;
    if (st->symmetric && st->rows != st->cols)
      return diag_at(L->d, L->f, sym->line, sym->col, "only a square [K, K] state can be symmetric");
    if (!yml_get(v, "update")) return err_node(L, key, "state '%s' needs an update expression", key->value);
    s->n_st++;
  }
  return 0;
}

static int check_updates(ld *L, const yml_node *n) {
  layer_spec *s = L->s;
  ex_binding b[64];
  int nb;
  env_build(s, b, &nb, 0);
  ex_env env = {b, nb};
  for (int i = 0; i < n->n; i++) {
    const yml_node *u = yml_get(n->vals[i], "update");
    spec_state *st = &s->st[i];
    if (!(st->update = parse_expr_node(L, u, "update"))) return 1;
    if (ex_check(st->update, &env, L->f, L->d)) return 1;
    if (st->update->rows != st->rows || st->update->cols != st->cols) {
      char got[32];
      ex_shape_str(st->update, got, sizeof got);
      return diag_at(L->d, L->f, st->update->line, st->update->col,
                     "the update of '%s' has shape %s but the state is [%s,%s]", st->name, got,
                     ex_dim_name(st->rows), ex_dim_name(st->cols));
    }
  }
  return 0;
}

/* Replaces every symbol `lambda` under n by the lambda expression. */
static ex_node *subst_lambda(ld *L, ex_node *n, ex_node *lam) {
  if (!n) return NULL;
  if (n->op == EX_SYM && !strcmp(n->name, "lambda")) return lam;
  ex_node *c = arena_alloc(L->a, sizeof *c);
  *c = *n;
  c->a = subst_lambda(L, n->a, lam);
  c->b = subst_lambda(L, n->b, lam);
  if (n->nargs) {
    c->args = arena_alloc(L->a, sizeof(ex_node *) * (size_t)n->nargs);
    for (int i = 0; i < n->nargs; i++) c->args[i] = subst_lambda(L, n->args[i], lam);
  }
  return c;
}

static int load_solve(ld *L, const yml_node *key, const yml_node *v, spec_readout *r, ex_env *env) {
  static const char *const keys[] = {"solve", "method", "iters", "lambda"};
  if (check_keys(L, v, "a solve readout", keys, 4)) return 1;
  const yml_node *eq = yml_get(v, "solve"), *m = yml_get(v, "method"), *it = yml_get(v, "iters"),
                 *lam = yml_get(v, "lambda");
  if (!eq) return err_node(L, key, "readout '%s' needs 'solve' or an expression", key->value);
  if (want_kind(L, eq, YML_SCALAR, "solve")) return 1;
  r->kind = RD_SOLVE;
  r->method = SOLVE_CHEBYSHEV;
  if (m) {
    if (want_kind(L, m, YML_SCALAR, "method")) return 1;
    if (strcmp(m->value, "chebyshev"))
      return diag_at(L->d, L->f, m->line, m->col, "unsupported solve method '%s' (supported: chebyshev)", m->value);
  }
  r->iters = 30;
  if (it && get_int(L, it, "iters", 1, 1000, &r->iters)) return 1;
  ex_node *lhs, *rhs;
  if (ex_parse_equation(eq->value, L->f, eq->vline, eq->vcol, L->a, &lhs, &rhs, L->d)) return 1;
  if (lhs->op != EX_MUL || lhs->b->op != EX_SYM || strcmp(lhs->b->name, key->value))
    return diag_at(L->d, L->f, lhs->line, lhs->col,
                   "the solve must read '(M) %s = b' with the unknown '%s' last on the left", key->value,
                   key->value);
  if (ex_check(rhs, env, L->f, L->d)) return 1;
  if (rhs->cols != DIM_1 || rhs->rows == DIM_1)
    return diag_at(L->d, L->f, rhs->line, rhs->col, "the right-hand side of a solve must be a vector");
  r->rows = rhs->rows;
  if (lam) {
    if (!(r->lambda = parse_expr_node(L, lam, "lambda"))) return 1;
    if (ex_check(r->lambda, env, L->f, L->d)) return 1;
    if (!ex_is_scalar(r->lambda))
      return diag_at(L->d, L->f, r->lambda->line, r->lambda->col, "lambda must be a scalar");
  } else if (ex_contains_kind(lhs->a, SYM_UNBOUND) && 0) {
    return 1;
  }
  r->matrix = lam ? subst_lambda(L, lhs->a, r->lambda) : lhs->a;
  if (ex_check(r->matrix, env, L->f, L->d)) return 1;
  if (r->matrix->rows != r->rows || r->matrix->cols != r->rows)
    return diag_at(L->d, L->f, r->matrix->line, r->matrix->col,
                   "the matrix of the solve must be [%s,%s]", ex_dim_name(r->rows), ex_dim_name(r->rows));
  r->rhs = rhs;
  return 0;
}

static int load_readouts(ld *L, const yml_node *n) {
  layer_spec *s = L->s;
  if (want_kind(L, n, YML_MAP, "readout")) return 1;
  s->out_rd = -1;
  for (int i = 0; i < n->n; i++) {
    const yml_node *key = n->keys[i], *v = n->vals[i];
    if (check_name(L, key, "a readout")) return 1;
    if (s->n_rd == SPEC_MAX_IO) return err_node(L, key, "too many readouts: '%s'", key->value);
    ex_binding b[64];
    int nb;
    env_build(s, b, &nb, s->n_rd);
    ex_env env = {b, nb};
    spec_readout *r = &s->rd[s->n_rd];
    r->name = key->value;
    r->line = key->line;
    r->col = key->col;
    if (v->kind == YML_MAP) {
      if (load_solve(L, key, v, r, &env)) return 1;
    } else {
      r->kind = RD_EXPR;
      if (!(r->expr = parse_expr_node(L, v, "a readout"))) return 1;
      if (ex_check(r->expr, &env, L->f, L->d)) return 1;
      if (r->expr->cols != DIM_1 || r->expr->rows == DIM_1) {
        char got[32];
        ex_shape_str(r->expr, got, sizeof got);
        return diag_at(L->d, L->f, r->expr->line, r->expr->col, "readout '%s' must be a vector, not %s",
                       key->value, got);
      }
      r->rows = r->expr->rows;
    }
    if (!strcmp(key->value, "y")) s->out_rd = s->n_rd;
    s->n_rd++;
  }
  if (s->out_rd < 0) return diag_at(L->d, L->f, n->line, n->col, "readout must define y, the layer output");
  if (s->out_rd != s->n_rd - 1)
    return diag_at(L->d, L->f, s->rd[s->out_rd].line, s->rd[s->out_rd].col, "y must be the last readout");
  if (s->rd[s->out_rd].rows != DIM_V || s->rd[s->out_rd].kind != RD_EXPR)
    return diag_at(L->d, L->f, s->rd[s->out_rd].line, s->rd[s->out_rd].col, "y must be a [V] expression");
  return 0;
}

static int load_int_list(ld *L, const yml_node *n, const char *what, int *out, int *cnt, int max) {
  if (want_kind(L, n, YML_SEQ, what)) return 1;
  if (n->n == 0 || n->n > max) return diag_at(L->d, L->f, n->line, n->col, "%s needs 1 to %d values", what, max);
  for (int i = 0; i < n->n; i++)
    if (get_int(L, n->items[i], what, 1, 1024, &out[i])) return 1;
  *cnt = n->n;
  return 0;
}

/* the tile of a dim n where the spec gives none: n itself below 64, else the largest of 64, 32, 16, 8 dividing n
 * (64 where none does: the caller's "no tile is valid" error then names the dims) */
static int tile_default(int n) {
  if (n < 64) return n;
  for (int d = 64; d >= 8; d /= 2)
    if (n % d == 0) return d;
  return 64;
}
static int load_tiles(ld *L, const yml_node *n) {
  layer_spec *s = L->s;
  int bk[8] = {64}, bv[8] = {64}, nbk = 1, nbv = 1, has_bk = 0, has_bv = 0;
  const yml_node *valid = NULL, *def = NULL;
  if (n) {
    static const char *const keys[] = {"bk", "bv", "valid", "default"};
    if (want_kind(L, n, YML_MAP, "tiles") || check_keys(L, n, "tiles", keys, 4)) return 1;
    const yml_node *k = yml_get(n, "bk"), *v = yml_get(n, "bv");
    if (k && load_int_list(L, k, "bk", bk, &nbk, 8)) return 1;
    if (v && load_int_list(L, v, "bv", bv, &nbv, 8)) return 1;
    has_bk = k != NULL, has_bv = v != NULL;
    valid = yml_get(n, "valid");
    def = yml_get(n, "default");
    if (valid && want_kind(L, valid, YML_SCALAR, "tiles.valid")) return 1;
    s->tiles_line = n->line;
    s->tiles_col = n->col;
  }
  /* a tile the spec leaves out: tile_default (K = 96: 32); a lone 64 above its dim: the dim */
  if (!has_bk) bk[0] = tile_default(s->K);
  else if (nbk == 1 && bk[0] == 64 && s->K < 64) bk[0] = s->K;
  if (!has_bv) bv[0] = tile_default(s->V);
  else if (nbv == 1 && bv[0] == 64 && s->V < 64) bv[0] = s->V;
  for (int i = 0; i < nbk; i++)
    for (int j = 0; j < nbv; j++) {
      if (s->K % bk[i] || s->V % bv[j]) continue; /* tiles must divide the dims */
      if (valid) {
        sbx_var vars[SPEC_MAX_CONST + 5];
        int nv = n_vars(s, vars, SPEC_MAX_CONST + 3), isb = 0;
        vars[nv++] = (sbx_var){"bk", bk[i]};
        vars[nv++] = (sbx_var){"bv", bv[j]};
        double ok;
        if (lua_eval(L, valid, vars, nv, &ok, &isb)) return 1;
        if (!isb) return diag_at(L->d, L->f, valid->line, valid->col, "tiles.valid must return true or false");
        if (!ok) continue;
      }
      if (s->n_tiles < SPEC_MAX_TILES) {
        s->tile_bk[s->n_tiles] = bk[i];
        s->tile_bv[s->n_tiles++] = bv[j];
      }
    }
  if (s->n_tiles == 0)
    return diag_at(L->d, L->f, n ? n->line : 1, n ? n->col : 1,
                   "no tile (bk, bv) is valid: tiles must divide K=%d and V=%d and pass tiles.valid", s->K, s->V);
  s->bk = s->tile_bk[0];
  s->bv = s->tile_bv[0];
  if (def) {
    static const char *const keys[] = {"bk", "bv"};
    if (want_kind(L, def, YML_MAP, "tiles.default") || check_keys(L, def, "tiles.default", keys, 2)) return 1;
    const yml_node *k = yml_get(def, "bk"), *v = yml_get(def, "bv");
    int dk = s->bk, dv = s->bv;
    if ((k && get_int(L, k, "bk", 1, 1024, &dk)) || (v && get_int(L, v, "bv", 1, 1024, &dv))) return 1;
    int found = 0;
    for (int i = 0; i < s->n_tiles; i++) found |= s->tile_bk[i] == dk && s->tile_bv[i] == dv;
    if (!found) return diag_at(L->d, L->f, def->line, def->col, "the default tile (%d, %d) is not valid", dk, dv);
    s->bk = dk;
    s->bv = dv;
  }
  return 0;
}

static int load_dtypes(ld *L, const yml_node *n) {
  if (!n) { L->s->dtypes = 3; return 0; }
  if (want_kind(L, n, YML_SEQ, "dtypes")) return 1;
  for (int i = 0; i < n->n; i++) {
    const yml_node *e = n->items[i];
    if (want_kind(L, e, YML_SCALAR, "a dtype")) return 1;
    if (!strcmp(e->value, "f32")) L->s->dtypes |= 1;
    else if (!strcmp(e->value, "bf16")) L->s->dtypes |= 2;
    else return diag_at(L->d, L->f, e->line, e->col, "unknown dtype '%s' (f32 or bf16)", e->value);
  }
  if (!L->s->dtypes) return diag_at(L->d, L->f, n->line, n->col, "dtypes is empty");
  return 0;
}

/* ------------------------------------------------------------ canonical form */

uint64_t spec_fnv1a(const char *s, size_t n, uint64_t h) {
  for (size_t i = 0; i < n; i++) { h ^= (unsigned char)s[i]; h *= 0x100000001b3ULL; }
  return h;
}

const char *spec_domain_name(spec_domain d) {
  static const char *const names[] = {"normal", "unit_sphere", "log_decay", "unit"};
  return names[d];
}

/* A growing text buffer for the canonical form: nothing is ever cut, so the
 * hash (and every kernel name and cache key derived from it) covers the whole spec. */
typedef struct { char *p; size_t len, cap; } canon_buf;

static void canon_add(canon_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void canon_add(canon_buf *b, const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (b->len + (size_t)n + 1 > b->cap) {
    b->cap = (b->len + (size_t)n + 1) * 2;
    b->p = realloc(b->p, b->cap);
  }
  vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap2);
  va_end(ap2);
  b->len += (size_t)n;
}

static void canon_expr(canon_buf *b, const ex_node *n) {
  size_t need = ex_print(n, NULL, 0);
  char *e = malloc(need + 1);
  ex_print(n, e, need + 1);
  canon_add(b, "%s", e);
  free(e);
}

static void canonicalize(ld *L) {
  layer_spec *s = L->s;
  canon_buf b = {0};
  canon_add(&b, "K=%d;V=%d;", s->K, s->V);
  for (int i = 0; i < s->n_in; i++)
    canon_add(&b, "in %s %s %s;", s->in[i].name, ex_dim_name(s->in[i].dim), spec_domain_name(s->in[i].domain));
  for (int i = 0; i < s->n_const; i++) canon_add(&b, "const %s=%.17g;", s->cst[i].name, s->cst[i].value);
  for (int i = 0; i < s->n_st; i++) {
    canon_add(&b, "state %s [%s,%s] sym=%d: ", s->st[i].name, ex_dim_name(s->st[i].rows), ex_dim_name(s->st[i].cols),
              s->st[i].symmetric);
    canon_expr(&b, s->st[i].update);
    canon_add(&b, ";");
  }
  for (int i = 0; i < s->n_rd; i++) {
    const spec_readout *r = &s->rd[i];
    if (r->kind == RD_EXPR) {
      canon_add(&b, "rd %s = ", r->name);
      canon_expr(&b, r->expr);
    } else {
      canon_add(&b, "rd %s: (", r->name);
      canon_expr(&b, r->matrix);
      canon_add(&b, ") %s = ", r->name);
      canon_expr(&b, r->rhs);
      canon_add(&b, " cheb iters=%d", r->iters);
    }
    canon_add(&b, ";");
  }
  char *text = arena_alloc(L->a, b.len + 1);
  memcpy(text, b.p, b.len + 1);
  free(b.p);
  s->canon = text;
  snprintf(s->hash, sizeof s->hash, "%016llx", (unsigned long long)spec_fnv1a(text, b.len, 0xcbf29ce484222325ULL));
}

int spec_const_value(const layer_spec *s, const char *name, double *out) {
  for (int i = 0; i < s->n_const; i++)
    if (!strcmp(s->cst[i].name, name)) { *out = s->cst[i].value; return 1; }
  return 0;
}

/* ------------------------------------------------------------ entry */

layer_spec *spec_load(const srcfile *f, arena *a, sbx *lua, diag *d) {
  yml_node *root = yml_parse(f, a, d);
  if (!root) return NULL;
  layer_spec *s = arena_alloc(a, sizeof *s);
  s->file = f;
  ld L = {s, f, a, lua, d};
  static const char *const keys[] = {"family", "description", "dims", "inputs", "constants", "state",
                                     "readout", "chunk", "tiles", "dtypes"};
  if (check_keys(&L, root, "the spec", keys, 10)) return NULL;
  const yml_node *fam = yml_get(root, "family");
  if (!fam) { diag_at(d, f, root->line, root->col, "the spec needs a family name (family: ...)"); return NULL; }
  if (want_kind(&L, fam, YML_SCALAR, "family")) return NULL;
  if (!is_ident(fam->value)) { err_node(&L, fam, "family '%s' must be an identifier", fam->value); return NULL; }
  s->family = fam->value;
  const yml_node *desc = yml_get(root, "description");
  if (desc && want_kind(&L, desc, YML_SCALAR, "description")) return NULL;
  const char *need[] = {"dims", "inputs", "state", "readout"};
  for (int i = 0; i < 4; i++)
    if (!yml_get(root, need[i])) { diag_at(d, f, root->line, root->col, "the spec needs '%s'", need[i]); return NULL; }
  s->chunk = 64;
  const yml_node *ch = yml_get(root, "chunk");
  if (ch && get_int(&L, ch, "chunk", 1, 256, &s->chunk)) return NULL;
  if (ch && (s->chunk & (s->chunk - 1))) { err_node(&L, ch, "chunk must be a power of two (got %s)", ch->value); return NULL; }
  if (ch) { s->chunk_line = ch->line; s->chunk_col = ch->col; }
  if (load_dims(&L, yml_get(root, "dims"))) return NULL;
  const yml_node *ins = yml_get(root, "inputs");
  if (want_kind(&L, ins, YML_MAP, "inputs")) return NULL;
  for (int i = 0; i < ins->n; i++)
    if (load_input(&L, ins->keys[i], ins->vals[i])) return NULL;
  const yml_node *cs = yml_get(root, "constants");
  if (cs && load_constants(&L, cs)) return NULL;
  double scale;
  if (!spec_const_value(s, "scale", &scale)) /* the default scale, as in fla */
    s->cst[s->n_const++] = (spec_const){"scale", 1.0 / sqrt((double)s->K), 0, 0};
  const yml_node *states = yml_get(root, "state");
  if (load_states(&L, states) || check_updates(&L, states)) return NULL;
  if (load_readouts(&L, yml_get(root, "readout"))) return NULL;
  if (load_tiles(&L, yml_get(root, "tiles"))) return NULL;
  if (load_dtypes(&L, yml_get(root, "dtypes"))) return NULL;
  canonicalize(&L);
  return s;
}
