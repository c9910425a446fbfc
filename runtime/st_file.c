/* runtime stage: safetensors reader (see st_file.h). Headers are JSON, read with jansson. */
#include "st_file.h"
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct { char *path; void *map; size_t size; } st_map;

struct st_set {
  st_map *files;
  int nfiles;
  st_tensor *t;
  int n, cap;
};

static int st_cmp(const void *a, const void *b) {
  return strcmp(((const st_tensor *)a)->name, ((const st_tensor *)b)->name);
}

static int st_dtype_of(const char *s, st_dtype *dt, int *size) {
  static const struct { const char *n; st_dtype d; int sz; } tab[] = {
      {"F32", ST_F32, 4}, {"BF16", ST_BF16, 2}, {"F16", ST_F16, 2}, {"I32", ST_I32, 4}, {"I64", ST_I64, 8},
      {"F64", ST_OTHER, 8}, {"I8", ST_OTHER, 1}, {"U8", ST_OTHER, 1}, {"I16", ST_OTHER, 2}, {"BOOL", ST_OTHER, 1},
      {"F8_E4M3", ST_OTHER, 1}, {"F8_E5M2", ST_OTHER, 1}, {"U16", ST_OTHER, 2}, {"U32", ST_OTHER, 4},
      {"U64", ST_OTHER, 8}};
  for (size_t i = 0; i < sizeof tab / sizeof *tab; i++)
    if (!strcmp(s, tab[i].n)) { *dt = tab[i].d; *size = tab[i].sz; return 0; }
  return -1;
}

int64_t st_numel(const st_tensor *t) {
  int64_t n = 1;
  for (int i = 0; i < t->ndim; i++) n *= t->shape[i];
  return n;
}

static int st_add_file(st_set *s, const char *path, rt_diag *d) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return rt_err(d, path, "cannot open the weights file");
  struct stat stt;
  if (fstat(fd, &stt) || stt.st_size < 8) { close(fd); return rt_err(d, path, "truncated safetensors file (no header)"); }
  size_t size = (size_t)stt.st_size;
  void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (map == MAP_FAILED) return rt_err(d, path, "cannot map the weights file");
  st_map *fm = realloc(s->files, sizeof *fm * (size_t)(s->nfiles + 1));
  if (!fm) { munmap(map, size); return rt_err(d, path, "out of memory"); }
  s->files = fm;
  st_map *m = &s->files[s->nfiles++];
  m->path = strdup(path);
  m->map = map;
  m->size = size;
  uint64_t hlen = 0;
  memcpy(&hlen, map, 8); /* little-endian host (x86-64) */
  if (hlen > size - 8) return rt_err(d, path, "truncated safetensors file (header of %llu bytes, file of %zu)",
                                     (unsigned long long)hlen, size);
  json_error_t je;
  json_t *h = json_loadb((const char *)map + 8, (size_t)hlen, 0, &je);
  if (!h || !json_is_object(h)) {
    if (h) json_decref(h);
    return rt_err(d, path, "malformed safetensors header: %s", h ? "not a JSON object" : je.text);
  }
  const char *data0 = (const char *)map + 8 + hlen;
  size_t dlen = size - 8 - hlen;
  const char *key;
  json_t *v;
  int rc = 0;
  json_object_foreach(h, key, v) {
    if (!strcmp(key, "__metadata__")) continue;
    json_t *dt = json_object_get(v, "dtype"), *sh = json_object_get(v, "shape"), *off = json_object_get(v, "data_offsets");
    if (!json_is_string(dt) || !json_is_array(sh) || !json_is_array(off) || json_array_size(off) != 2 ||
        json_array_size(sh) > 8) {
      rc = rt_err(d, path, "malformed safetensors header entry for tensor '%s'", key);
      break;
    }
    if (s->n == s->cap) {
      s->cap = s->cap ? 2 * s->cap : 256;
      st_tensor *nt = realloc(s->t, sizeof *nt * (size_t)s->cap);
      if (!nt) { rc = rt_err(d, path, "out of memory"); break; }
      s->t = nt;
    }
    st_tensor *t = &s->t[s->n];
    memset(t, 0, sizeof *t);
    int esz = 0;
    snprintf(t->dtype_name, sizeof t->dtype_name, "%s", json_string_value(dt));
    if (st_dtype_of(t->dtype_name, &t->dtype, &esz)) { t->dtype = ST_OTHER; esz = 0; }
    t->ndim = (int)json_array_size(sh);
    int64_t numel = 1;
    for (int i = 0; i < t->ndim; i++) {
      json_t *e = json_array_get(sh, (size_t)i);
      if (!json_is_integer(e) || json_integer_value(e) < 0) { rc = rt_err(d, path, "bad shape for tensor '%s'", key); break; }
      t->shape[i] = json_integer_value(e);
      numel *= t->shape[i];
    }
    if (rc) break;
    json_t *o0 = json_array_get(off, 0), *o1 = json_array_get(off, 1);
    if (!json_is_integer(o0) || !json_is_integer(o1)) { rc = rt_err(d, path, "bad data_offsets for tensor '%s'", key); break; }
    int64_t b = json_integer_value(o0), e = json_integer_value(o1);
    if (b < 0 || e < b || (uint64_t)e > dlen) {
      rc = rt_err(d, path, "truncated safetensors file: tensor '%s' needs bytes [%lld, %lld) of a %zu-byte data section",
                  key, (long long)b, (long long)e, dlen);
      break;
    }
    if (esz && (int64_t)numel * esz != e - b) {
      rc = rt_err(d, path, "tensor '%s': %lld bytes for %s x %lld elements", key, (long long)(e - b), t->dtype_name,
                  (long long)numel);
      break;
    }
    t->name = strdup(key);
    t->data = data0 + b;
    t->nbytes = (size_t)(e - b);
    t->file = m->path;
    s->n++;
  }
  json_decref(h);
  return rc;
}

static int st_finish(st_set *s, rt_diag *d) {
  qsort(s->t, (size_t)s->n, sizeof *s->t, st_cmp);
  for (int i = 1; i < s->n; i++)
    if (!strcmp(s->t[i].name, s->t[i - 1].name))
      return rt_err(d, s->t[i].file, "tensor '%s' appears twice (also in %s)", s->t[i].name, s->t[i - 1].file);
  return 0;
}

int st_open_files(st_set **out, const char *const *paths, int n, rt_diag *d) {
  st_set *s = calloc(1, sizeof *s);
  *out = s;
  if (!s) return rt_err(d, NULL, "out of memory");
  for (int i = 0; i < n; i++)
    if (st_add_file(s, paths[i], d)) return -1;
  return st_finish(s, d);
}

int st_open_dir(st_set **out, const char *dir, rt_diag *d) {
  char idx[4096], one[4096];
  snprintf(idx, sizeof idx, "%s/model.safetensors.index.json", dir);
  snprintf(one, sizeof one, "%s/model.safetensors", dir);
  if (access(idx, R_OK) == 0) {
    json_error_t je;
    json_t *j = json_load_file(idx, 0, &je);
    json_t *wm = j ? json_object_get(j, "weight_map") : NULL;
    if (!json_is_object(wm)) {
      *out = calloc(1, sizeof **out);
      if (j) json_decref(j);
      return rt_err(d, idx, "%s", j ? "no \"weight_map\" object" : je.text);
    }
    /* the distinct shard files, in order of first appearance */
    const char *files[1024];
    int nf = 0;
    const char *k;
    json_t *v;
    json_object_foreach(wm, k, v) {
      if (!json_is_string(v)) continue;
      int seen = 0;
      for (int i = 0; i < nf; i++) seen |= !strcmp(files[i], json_string_value(v));
      if (!seen && nf < 1024) files[nf++] = json_string_value(v);
    }
    char *paths[1024] = {0};
    for (int i = 0; i < nf; i++) {
      paths[i] = malloc(strlen(dir) + strlen(files[i]) + 2);
      sprintf(paths[i], "%s/%s", dir, files[i]);
    }
    int rc = st_open_files(out, (const char *const *)paths, nf, d);
    for (int i = 0; i < nf && !rc; i++) (void)0;
    if (!rc) /* every tensor the index names must be in its shard */
      json_object_foreach(wm, k, v) {
        if (!st_get(*out, k)) { rc = rt_err(d, idx, "tensor '%s' is listed but not found in %s", k, json_string_value(v)); break; }
      }
    for (int i = 0; i < nf; i++) free(paths[i]);
    json_decref(j);
    return rc;
  }
  const char *p = one;
  if (access(one, R_OK)) {
    *out = calloc(1, sizeof **out);
    return rt_err(d, dir, "no model.safetensors or model.safetensors.index.json in the model folder");
  }
  return st_open_files(out, &p, 1, d);
}

void st_close(st_set *s) {
  if (!s) return;
  for (int i = 0; i < s->n; i++) free(s->t[i].name);
  for (int i = 0; i < s->nfiles; i++) { munmap(s->files[i].map, s->files[i].size); free(s->files[i].path); }
  free(s->t);
  free(s->files);
  free(s);
}

const st_tensor *st_get(const st_set *s, const char *name) {
  st_tensor key = {.name = (char *)name};
  return s->n ? bsearch(&key, s->t, (size_t)s->n, sizeof *s->t, st_cmp) : NULL;
}
int st_count(const st_set *s) { return s->n; }
const st_tensor *st_at(const st_set *s, int i) { return &s->t[i]; }

void st_prefault(const st_set *s) {
  for (int i = 0; s && i < s->nfiles; i++) {
    const st_map *m = &s->files[i];
#ifdef MADV_POPULATE_READ
    if (!madvise(m->map, m->size, MADV_POPULATE_READ)) continue;
#endif
    volatile const unsigned char *p = m->map;
    unsigned sum = 0;
    for (size_t o = 0; o < m->size; o += 4096) sum += p[o];
    (void)sum;
  }
}
