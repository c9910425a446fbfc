/* runtime stage: helpers shared by the model-file readers (own YAML, HF
 * config.json): typed config access with errors that name file and key, and
 * weight binding with errors that name the tensor and its expected shape. */
#ifndef MDL_LD_H
#define MDL_LD_H
#include <jansson.h>
#include "mdl.h"

typedef struct {
  mdl_model *m;
  const mdl_opts *o;
  rt_diag *d;
  const char *cfg_path;   /* config file named in config errors */
  json_t *cfg;
  const char *prefix;     /* weight name prefix for the reader (e.g. "model.") */
  int layer;              /* the layer being read (-1: model-level weights), for the model's wrefs */
} mdl_ld;

/* Config values. `req` = 1: a missing key is an error. Wrong types are always errors. */
int64_t ld_int(mdl_ld *l, json_t *obj, const char *key, int64_t def, int req);
double ld_num(mdl_ld *l, json_t *obj, const char *key, double def, int req);
int ld_bool(mdl_ld *l, json_t *obj, const char *key, int def);
const char *ld_str(mdl_ld *l, json_t *obj, const char *key, const char *def, int req);

/* Weight of exactly this shape (ndim dims; trailing args), converted to fp32 if needed. */
const float *ld_w(mdl_ld *l, const char *name, int ndim, int64_t s0, int64_t s1, int64_t s2);
/* As ld_w, NULL without error when the tensor is absent. */
const float *ld_w_opt(mdl_ld *l, const char *name, int ndim, int64_t s0, int64_t s1, int64_t s2);
/* Model-owned zeroed fp32 buffer. */
float *ld_alloc(mdl_ld *l, size_t n);
/* Copies rows [src_row, src_row + n) of matrix `w` (cols wide) into dst at dst_row. */
void ld_rows(float *dst, int dst_row, const float *w, int src_row, int n, int cols);
/* The SSM kernel for `spec` with K = dk, V = dv (fp32). */
const ssmc_kernel *ld_kernel(mdl_ld *l, const char *spec, int dk, int dv);
/* Checks that the kernel's inputs are ones the runtime can produce (q k v g beta alpha). */
int ld_check_kernel_inputs(mdl_ld *l, const mdl_ssm *s, int layer);
/* Normalized layer-kind list from the short forms (see mdl_pattern.c). */
int ld_pattern_nemotron(mdl_ld *l, const char *pat, char ***out, int *n);

int mdl_read_hf(mdl_ld *l);
int mdl_read_own(mdl_ld *l, const char *yaml_path);
json_t *mdl_yaml_load(const char *path, rt_diag *d);

#endif
