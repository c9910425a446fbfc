/* compiler stage: the generation driver. Loads specs, classifies them, emits
 * every kernel (each dtype, default tiles) plus the manifest and the table of
 * built-in kernels; writes them atomically or diffs them against a folder. */
#ifndef SSMC_GEN_H
#define SSMC_GEN_H
#include <stdio.h>
#include "emit.h"

typedef struct {
  srcfile *file;
  layer_spec *spec;
  cls_family fam;
  int nk;
  emit_kernel k[2];
} gen_unit;

typedef struct {
  arena a;
  struct sbx *lua;
  int n;
  gen_unit *u[64];
} gen_set;

typedef struct { char path[300]; char *text; size_t len; } gen_file;

void gen_init(gen_set *g);
void gen_free(gen_set *g);
/* Loads, classifies and emits one spec file. */
int gen_add(gen_set *g, const char *path, diag *d);
/* Adds every .yaml file of dsl/families under root, in name order. */
int gen_add_builtins(gen_set *g, const char *root, diag *d);
/* The files of the set (kernels, manifest.txt, ssmc_builtin.c); caller frees with gen_files_free. */
int gen_files(gen_set *g, gen_file **out);
void gen_files_free(gen_file *f, int n);
/* Writes all files under dir: every file to a temp name first, then renamed;
 * on any error nothing is left behind. */
int gen_write(const gen_file *f, int n, const char *dir, diag *d);
/* Compares with dir; prints a unified diff for each difference. Returns the
 * number of differing, missing or extra files. */
int gen_diff(const gen_file *f, int n, const char *dir, FILE *out);

#endif
