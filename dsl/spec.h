/* dsl stage: a layer-family spec, read from YAML and checked.
 * The spec language is documented in README.md ("Spec language reference").
 * A spec holds its inputs, states with update expressions, readouts (plain
 * expressions or a solve), constants, chunk size and tile search space. It
 * knows nothing about kernels: the compiler classifies it afterwards. */
#ifndef SSMC_SPEC_H
#define SSMC_SPEC_H
#include "arena.h"
#include "diag.h"
#include "expr.h"
#include <stdint.h>

#define SPEC_MAX_IO 8
#define SPEC_MAX_CONST 16
#define SPEC_MAX_TILES 64

/* Input domains: where the oracle draws random values from. The numbers are
 * the ABI's SSMC_IN_* values. */
typedef enum { DOM_NORMAL = 0, DOM_UNIT_SPHERE = 1, DOM_LOG_DECAY = 2, DOM_UNIT = 3 } spec_domain;

typedef struct { const char *name; ex_dim dim; spec_domain domain; int line, col; } spec_input;

typedef struct {
  const char *name;
  ex_dim rows, cols;       /* [V,K] or [K,K] */
  int symmetric;
  ex_node *update;         /* value of the state at t from the state at t-1 */
  int line, col;
} spec_state;

typedef enum { RD_EXPR, RD_SOLVE } spec_rd_kind;
typedef enum { SOLVE_CHEBYSHEV = 0 } spec_method;

typedef struct {
  const char *name;
  spec_rd_kind kind;
  int line, col;
  ex_node *expr;           /* RD_EXPR */
  ex_node *matrix;         /* RD_SOLVE: M of "M x = b" (lambda substituted) */
  ex_node *rhs;            /* RD_SOLVE: b */
  ex_node *lambda;         /* RD_SOLVE: the lambda expression, or NULL */
  spec_method method;
  int iters;               /* default iteration count */
  ex_dim rows;             /* the value is a vector of this dim */
} spec_readout;

typedef struct { const char *name; double value; int line, col; } spec_const;

typedef struct layer_spec {
  const srcfile *file;
  const char *family;
  int K, V, chunk;
  int n_in;
  spec_input in[SPEC_MAX_IO];
  int n_st;
  spec_state st[SPEC_MAX_IO];
  int n_rd;
  spec_readout rd[SPEC_MAX_IO];
  int out_rd;              /* index of the readout named y (the layer output) */
  int n_const;
  spec_const cst[SPEC_MAX_CONST + 1]; /* + the default scale */
  int n_tiles;             /* valid (bk, bv) pairs, in search order */
  int tile_bk[SPEC_MAX_TILES], tile_bv[SPEC_MAX_TILES];
  int bk, bv;              /* the default tile */
  int dtypes;              /* bit (1 << dtype): 1 = f32, 2 = bf16 */
  const char *canon;       /* canonical text of the math (hashed) */
  char hash[17];           /* 16 hex digits of FNV-1a over canon */
  int tiles_line, tiles_col;
  int chunk_line, chunk_col; /* the chunk's value (0: the default) */
  int k_line, k_col;         /* the values of dims.K and dims.V */
  int v_line, v_col;
} layer_spec;

struct sbx;
/* Loads and checks a spec. Returns NULL after filling d. */
layer_spec *spec_load(const srcfile *f, arena *a, struct sbx *lua, diag *d);
const char *spec_domain_name(spec_domain d);
/* Looks up a constant's value (e.g. "scale"); 0 if absent. */
int spec_const_value(const layer_spec *s, const char *name, double *out);
uint64_t spec_fnv1a(const char *s, size_t n, uint64_t h);

#endif
