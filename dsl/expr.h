/* dsl stage: the expression language of state updates and readouts.
 *
 *   expr    := term (('+' | '-') term)*
 *   term    := unary (('*' | '/' | <juxtaposition>) unary)*
 *   unary   := '-' unary | postfix
 *   postfix := primary "'"*                       (transpose)
 *   primary := number | name | name '(' expr (',' expr)* ')' | '(' expr ')'
 *
 * `*` and juxtaposition are both products: matrix product when both sides are
 * matrices or vectors, scaling when one side is a scalar. `I` is the identity
 * (its size is inferred). Functions: exp, log, sqrt (elementwise), diag(v),
 * fro(M) (Frobenius norm). Shapes are symbolic over the dims 1, K and V.
 *
 * After parsing, ex_check annotates every node with its shape, and ex_expand
 * distributes products over sums into a list of terms, each a numeric constant
 * times scalar factors times an ordered chain of matrix/vector atoms. */
#ifndef SSMC_EXPR_H
#define SSMC_EXPR_H
#include "arena.h"
#include "diag.h"

typedef enum { EX_NUM, EX_SYM, EX_CALL, EX_ADD, EX_SUB, EX_MUL, EX_DIV, EX_NEG, EX_T } ex_op;
typedef enum { DIM_1 = 0, DIM_K = 1, DIM_V = 2, DIM_ANY = 3 } ex_dim;

/* What a symbol names (set by ex_check from the environment). */
typedef enum { SYM_UNBOUND, SYM_INPUT, SYM_STATE, SYM_LOCAL, SYM_CONST, SYM_IDENT } ex_symkind;

typedef struct ex_node ex_node;
struct ex_node {
  ex_op op;
  int line, col;          /* source position of the node's first character */
  double num;             /* EX_NUM */
  const char *name;       /* EX_SYM, EX_CALL */
  ex_node *a, *b;         /* operands */
  ex_node **args;         /* EX_CALL */
  int nargs;
  /* annotations from ex_check */
  ex_dim rows, cols;      /* shape; scalar is (DIM_1, DIM_1) */
  ex_symkind sym;         /* EX_SYM */
  int index;              /* EX_SYM: index into the environment's list */
};

/* Environment for shape checking: every name a spec's expressions may use. */
typedef struct { const char *name; ex_symkind kind; int index; ex_dim rows, cols; } ex_binding;
typedef struct { const ex_binding *b; int n; } ex_env;

/* Parses text (a YAML scalar whose first character sits at line:col of f).
 * Returns NULL after filling d. */
ex_node *ex_parse(const char *text, const srcfile *f, int line, int col, arena *a, diag *d);
/* Parses "lhs = rhs" (a solve equation). */
int ex_parse_equation(const char *text, const srcfile *f, int line, int col, arena *a,
                      ex_node **lhs, ex_node **rhs, diag *d);
/* Annotates shapes and binds symbols; returns non-zero after filling d. */
int ex_check(ex_node *n, const ex_env *env, const srcfile *f, diag *d);

int ex_is_scalar(const ex_node *n);
int ex_equal(const ex_node *x, const ex_node *y);           /* structural */
int ex_contains_kind(const ex_node *n, ex_symkind kind);     /* any symbol of that kind */
/* Canonical text (deterministic; used for hashing and messages). */
/* Returns the length of the whole text (as snprintf): when it is >= len, buf
 * holds a truncated copy. */
size_t ex_print(const ex_node *n, char *buf, size_t len);
const char *ex_dim_name(ex_dim d);
void ex_shape_str(const ex_node *n, char *buf, size_t len);  /* "[V,K]", "scalar" */

/* ---- expansion into sum of products ---- */
#define EX_MAX_FACTORS 12
#define EX_MAX_CHAIN 8
typedef struct {
  double c;                          /* numeric coefficient */
  int nf;
  const ex_node *f[EX_MAX_FACTORS];  /* scalar factors (opaque scalar subtrees) */
  int finv[EX_MAX_FACTORS];          /* 1 if the factor divides */
  int na;
  const ex_node *atom[EX_MAX_CHAIN]; /* matrix/vector chain: SYM, T(SYM) or diag(...) */
} ex_term;

typedef struct { int n; ex_term *t; } ex_sum;

/* Expands a checked expression. Returns non-zero after filling d (too complex). */
int ex_expand(const ex_node *n, arena *a, const srcfile *f, ex_sum *out, diag *d);
/* Atom helpers: the symbol under an atom and whether it is transposed. */
const ex_node *ex_atom_sym(const ex_node *atom, int *transposed);
/* num = den * quot over the factor multisets (scalars commute): fills quot
 * (may be NULL) and returns 0, or returns 1 if den's factors are not all in num. */
int ex_factors_divide(const ex_term *num, const ex_term *den, ex_term *quot);
/* Factor-list equality up to order. */
int ex_factors_equal(const ex_term *x, const ex_term *y);
/* Combines terms with the same chain but different factors into one term,
 * so that "(1 - b) * v k'" is one term again: the factors common to all of
 * them stay factors, the rest becomes one scalar factor sum_i c_i prod_i
 * (new nodes in a, annotated as scalars). Order of first appearance is kept. */
void ex_collect(ex_sum *s, arena *a);

#endif
