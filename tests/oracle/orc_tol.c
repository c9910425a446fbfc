/* oracle stage: the tolerance table (see orc_tol.h). */
#include "orc_tol.h"

static const orc_tol table[ORC_TOL_COUNT] = {
  {ORC_TOL_OUTPUT, "output", 5e-3, "DESIGN §3: bf16 inputs, fp32 accumulation"},
  {ORC_TOL_STATE, "final state", 5e-3, "DESIGN §3: states are fp32"},
  {ORC_TOL_GRAD, "gradient", 1e-2, "DESIGN §3"},
  {ORC_TOL_SOLVE_CHEB, "solve x vs fp64 Chebyshev", 5e-3, "DESIGN §3: same r, rounding only"},
};

const orc_tol *orc_tol_get(orc_tol_kind k) { return &table[k]; }
double orc_tol_bound(orc_tol_kind k) { return table[k].bound; }
