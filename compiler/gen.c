/* compiler stage: the generation driver (see gen.h). */
#include "gen.h"
#include "sbx.h"
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void gen_init(gen_set *g) {
  memset(g, 0, sizeof *g);
  g->lua = sbx_new(64u << 20, 50000000L);
}

void gen_free(gen_set *g) {
  for (int i = 0; i < g->n; i++) {
    for (int j = 0; j < g->u[i]->nk; j++) emit_kernel_free(&g->u[i]->k[j]);
    src_free(g->u[i]->file);
  }
  sbx_free(g->lua);
  arena_free(&g->a);
}

int gen_add(gen_set *g, const char *path, diag *d) {
  if (g->n == 64) return diag_at(d, NULL, 0, 0, "too many specs (at most 64)");
  srcfile *f = src_read(path, d);
  if (!f) return 1;
  gen_unit *u = arena_alloc(&g->a, sizeof *u);
  u->file = f;
  g->u[g->n++] = u;
  if (!(u->spec = spec_load(f, &g->a, g->lua, d))) return 1;
  if (cls_classify(u->spec, &g->a, &u->fam, d)) return 1;
  for (int i = 0; i < g->n - 1; i++)
    if (!strcmp(g->u[i]->spec->family, u->spec->family))
      return diag_at(d, f, 1, 1, "family '%s' is also defined by %s", u->spec->family, g->u[i]->file->name);
  for (int dt = 0; dt < 2; dt++) {
    if (!(u->spec->dtypes & (1 << dt))) continue;
    if (emit_cpu_kernel(&u->fam, dt, u->spec->bk, u->spec->bv, path, g->lua, &u->k[u->nk], d)) return 1;
    if (emit_cuda_kernel(&u->fam, dt, u->spec->bk, u->spec->bv, g->lua, &u->k[u->nk], d)) {
      emit_kernel_free(&u->k[u->nk]);
      return 1;
    }
    u->nk++;
  }
  return 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int gen_add_builtins(gen_set *g, const char *root, diag *d) {
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/dsl/families", root);
  DIR *dp = opendir(dir);
  if (!dp) return diag_at(d, NULL, 0, 0, "cannot open %s: %s (run from the repository root or pass --root)", dir, strerror(errno));
  char *names[64];
  int n = 0;
  struct dirent *e;
  while ((e = readdir(dp)) && n < 64) {
    size_t l = strlen(e->d_name);
    if (l > 5 && !strcmp(e->d_name + l - 5, ".yaml")) names[n++] = strdup(e->d_name);
  }
  closedir(dp);
  qsort(names, (size_t)n, sizeof *names, cmp_str);
  int rc = 0;
  for (int i = 0; i < n; i++) {
    char path[1300];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    if (!rc && gen_add(g, path, d)) rc = 1;
    free(names[i]);
  }
  return rc;
}

int gen_files(gen_set *g, gen_file **out) {
  int nk = 0;
  for (int i = 0; i < g->n; i++) nk += g->u[i]->nk;
  gen_file *f = calloc((size_t)2 * nk + 2, sizeof *f);
  const cls_family **fams = calloc((size_t)nk + 1, sizeof *fams);
  const emit_kernel **ks = calloc((size_t)nk + 1, sizeof *ks);
  int j = 0, nj = 0;
  for (int i = 0; i < g->n; i++)
    for (int k = 0; k < g->u[i]->nk; k++) {
      const emit_kernel *e = &g->u[i]->k[k];
      snprintf(f[j].path, sizeof f[j].path, "%s", e->path);
      f[j].text = strdup(e->source);
      f[j].len = e->len;
      fams[nj] = &g->u[i]->fam;
      ks[nj++] = e;
      j++;
      snprintf(f[j].path, sizeof f[j].path, "%s", e->cu_path);
      f[j].text = strdup(e->cu_source);
      f[j].len = e->cu_len;
      j++;
    }
  snprintf(f[j].path, sizeof f[j].path, "manifest.txt");
  f[j].text = emit_manifest(fams, ks, nk);
  f[j].len = strlen(f[j].text);
  j++;
  snprintf(f[j].path, sizeof f[j].path, "ssmc_builtin.c");
  f[j].text = emit_table(ks, nk);
  f[j].len = strlen(f[j].text);
  j++;
  free(fams);
  free(ks);
  *out = f;
  return j;
}

void gen_files_free(gen_file *f, int n) {
  for (int i = 0; i < n; i++) free(f[i].text);
  free(f);
}

static int mkdirs(const char *path) {
  char tmp[1400];
  snprintf(tmp, sizeof tmp, "%s", path);
  for (char *p = tmp + 1; *p; p++)
    if (*p == '/') {
      *p = 0;
      if (mkdir(tmp, 0777) && errno != EEXIST) return -1;
      *p = '/';
    }
  if (mkdir(tmp, 0777) && errno != EEXIST) return -1;
  return 0;
}

int gen_write(const gen_file *f, int n, const char *dir, diag *d) {
  char (*tmp)[1420] = calloc((size_t)n, sizeof *tmp);
  int i, rc = 0;
  for (i = 0; i < n && !rc; i++) {
    char path[1400], sub[1400];
    snprintf(path, sizeof path, "%s/%s", dir, f[i].path);
    snprintf(sub, sizeof sub, "%s", path);
    char *slash = strrchr(sub, '/');
    if (slash) *slash = 0;
    if (mkdirs(sub)) { rc = diag_at(d, NULL, 0, 0, "cannot create folder '%.300s': %s", sub, strerror(errno)); break; }
    snprintf(tmp[i], sizeof tmp[i], "%s.tmp-ssmc", path);
    FILE *fp = fopen(tmp[i], "wb");
    if (!fp) { rc = diag_at(d, NULL, 0, 0, "cannot write '%s': %s", path, strerror(errno)); tmp[i][0] = 0; break; }
    size_t w = fwrite(f[i].text, 1, f[i].len, fp);
    if (fclose(fp) || w != f[i].len) { rc = diag_at(d, NULL, 0, 0, "cannot write '%s'", path); break; }
  }
  /* Nothing may be in the way of an output (e.g. a folder named like a file). */
  for (int j = 0; j < n && !rc; j++) {
    char path[1400];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, f[j].path);
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
      rc = diag_at(d, NULL, 0, 0, "cannot write '%.300s': something that is not a file is in the way", path);
  }
  /* Existing outputs are kept aside until every rename has succeeded. */
  char (*bak)[1440] = calloc((size_t)n, sizeof *bak);
  int done = 0;
  for (int j = 0; j < n && !rc; j++, done++) {
    char path[1400];
    snprintf(path, sizeof path, "%s/%s", dir, f[j].path);
    snprintf(bak[j], sizeof bak[j], "%s.bak-ssmc", path);
    if (link(path, bak[j])) bak[j][0] = 0; /* no previous file */
    if (rename(tmp[j], path)) {
      rc = diag_at(d, NULL, 0, 0, "cannot rename onto '%.300s': %s", path, strerror(errno));
      if (bak[j][0]) unlink(bak[j]);
      bak[j][0] = 0;
      break;
    }
    tmp[j][0] = 0;
  }
  for (int j = 0; j < done; j++) { /* roll back on failure, else drop the backups */
    char path[1400];
    snprintf(path, sizeof path, "%s/%s", dir, f[j].path);
    if (rc) {
      if (bak[j][0]) rename(bak[j], path);
      else unlink(path);
    } else if (bak[j][0]) {
      unlink(bak[j]);
    }
  }
  for (int j = 0; j < n; j++)
    if (tmp[j][0]) unlink(tmp[j]);
  free(bak);
  free(tmp);
  return rc;
}

/* ------------------------------------------------------------ diff */

typedef struct { const char **l; int n; } lines;

static lines split(char *text) {
  lines r = {0};
  int cap = 64;
  r.l = malloc(sizeof(char *) * (size_t)cap);
  char *p = text;
  while (*p) {
    if (r.n == cap) { cap *= 2; r.l = realloc(r.l, sizeof(char *) * (size_t)cap); }
    r.l[r.n++] = p;
    char *nl = strchr(p, '\n');
    if (!nl) break;
    *nl = 0;
    p = nl + 1;
  }
  return r;
}

/* One hunk around the region between the common prefix and suffix. */
static void unified(const char *name, char *old, char *new, FILE *out) {
  lines a = split(old), b = split(new);
  int pre = 0;
  while (pre < a.n && pre < b.n && !strcmp(a.l[pre], b.l[pre])) pre++;
  int suf = 0;
  while (suf < a.n - pre && suf < b.n - pre && !strcmp(a.l[a.n - 1 - suf], b.l[b.n - 1 - suf])) suf++;
  int c0 = pre > 3 ? pre - 3 : 0, ae = a.n - suf, be = b.n - suf;
  int ctx_end = suf > 3 ? 3 : suf;
  fprintf(out, "--- a/generated/%s\n+++ b/generated/%s\n", name, name);
  fprintf(out, "@@ -%d,%d +%d,%d @@\n", c0 + 1, ae + ctx_end - c0, c0 + 1, be + ctx_end - c0);
  for (int i = c0; i < pre; i++) fprintf(out, " %s\n", a.l[i]);
  for (int i = pre; i < ae; i++) fprintf(out, "-%s\n", a.l[i]);
  for (int i = pre; i < be; i++) fprintf(out, "+%s\n", b.l[i]);
  for (int i = 0; i < ctx_end; i++) fprintf(out, " %s\n", a.l[ae + i]);
  free(a.l);
  free(b.l);
}

static int listed(const gen_file *f, int n, const char *rel) {
  for (int i = 0; i < n; i++)
    if (!strcmp(f[i].path, rel)) return 1;
  return 0;
}

static int extra_files(const gen_file *f, int n, const char *dir, const char *rel, FILE *out) {
  char path[1400];
  snprintf(path, sizeof path, "%s%s%s", dir, rel[0] ? "/" : "", rel);
  DIR *dp = opendir(path);
  if (!dp) return 0;
  int bad = 0;
  struct dirent *e;
  while ((e = readdir(dp))) {
    if (e->d_name[0] == '.') continue;
    char sub[1400];
    snprintf(sub, sizeof sub, "%s%s%s", rel, rel[0] ? "/" : "", e->d_name);
    char full[2900];
    snprintf(full, sizeof full, "%s/%s", dir, sub);
    struct stat st;
    if (stat(full, &st)) continue;
    if (S_ISDIR(st.st_mode)) bad += extra_files(f, n, dir, sub, out);
    else if (!listed(f, n, sub)) {
      fprintf(out, "generated/%s: not produced by the current specs and templates (stale)\n", sub);
      bad++;
    }
  }
  closedir(dp);
  return bad;
}

int gen_diff(const gen_file *f, int n, const char *dir, FILE *out) {
  int bad = 0;
  for (int i = 0; i < n; i++) {
    char path[1400];
    snprintf(path, sizeof path, "%s/%s", dir, f[i].path);
    diag d = {0};
    srcfile *cur = src_read(path, &d);
    if (!cur) {
      fprintf(out, "generated/%s: missing\n", f[i].path);
      bad++;
      continue;
    }
    if (cur->len != f[i].len || memcmp(cur->text, f[i].text, f[i].len)) {
      char *want = strdup(f[i].text);
      unified(f[i].path, cur->text, want, out);
      free(want);
      bad++;
    }
    src_free(cur);
  }
  return bad + extra_files(f, n, dir, "", out);
}
