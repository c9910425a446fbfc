/* runtime stage: safetensors weights, memory-mapped.
 * A set is one file, or the shards named by a model.safetensors.index.json.
 * Every header is checked when opened (JSON, offsets inside the file, sizes
 * that match dtype x shape), so a truncated or malformed file is an error
 * that names it before any compute. Tensor data stays in the mapping. */
#ifndef ST_FILE_H
#define ST_FILE_H
#include <stddef.h>
#include <stdint.h>
#include "rt_diag.h"

typedef enum { ST_F32, ST_BF16, ST_F16, ST_I32, ST_I64, ST_OTHER } st_dtype;

typedef struct {
  char *name;
  st_dtype dtype;
  char dtype_name[12];  /* as written in the header, e.g. "F8_E4M3" */
  int ndim;
  int64_t shape[8];
  const void *data;     /* inside the mapping */
  size_t nbytes;
  const char *file;     /* path of the file that holds it */
} st_tensor;

typedef struct st_set st_set;

/* Opens `dir`/model.safetensors.index.json (sharded) or `dir`/model.safetensors. */
int st_open_dir(st_set **out, const char *dir, rt_diag *d);
/* Opens the given files as one set (names must be unique across them). */
int st_open_files(st_set **out, const char *const *paths, int n, rt_diag *d);
void st_close(st_set *s);
const st_tensor *st_get(const st_set *s, const char *name);
int st_count(const st_set *s);
const st_tensor *st_at(const st_set *s, int i);
int64_t st_numel(const st_tensor *t);
/* Faults every mapped page in now (run before timing, so the first step does
 * not pay the page faults of the weights). */
void st_prefault(const st_set *s);

#endif
