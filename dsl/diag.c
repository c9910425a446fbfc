/* dsl stage: diagnostics (see diag.h). */
#include "diag.h"
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

static char *dupstr(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = malloc(n);
  if (p) memcpy(p, s, n);
  return p;
}

srcfile *src_read(const char *path, diag *d) {
  FILE *fp = fopen(path, "rb");
  if (!fp) {
    diag_at(d, NULL, 0, 0, "cannot open '%s': %s", path, strerror(errno));
    snprintf(d->file, sizeof d->file, "%s", path);
    return NULL;
  }
  size_t cap = 4096, len = 0;
  char *buf = malloc(cap);
  for (;;) {
    if (len + 1 >= cap) { cap *= 2; buf = realloc(buf, cap); }
    size_t got = fread(buf + len, 1, cap - len - 1, fp);
    if (got == 0) break;
    len += got;
  }
  int err = ferror(fp);
  fclose(fp);
  if (err) {
    free(buf);
    diag_at(d, NULL, 0, 0, "cannot read '%s'", path);
    snprintf(d->file, sizeof d->file, "%s", path);
    return NULL;
  }
  buf[len] = 0;
  srcfile *f = calloc(1, sizeof *f);
  f->name = dupstr(path);
  f->text = buf;
  f->len = len;
  return f;
}

srcfile *src_from_string(const char *name, const char *text) {
  srcfile *f = calloc(1, sizeof *f);
  f->name = dupstr(name);
  f->text = dupstr(text);
  f->len = strlen(text);
  return f;
}

void src_free(srcfile *f) {
  if (!f) return;
  free(f->name);
  free(f->text);
  free(f);
}

static void copy_line(const srcfile *f, int line, char *out, size_t n) {
  out[0] = 0;
  if (!f || line <= 0) return;
  const char *p = f->text;
  for (int l = 1; l < line && *p; p++)
    if (*p == '\n') l++;
  size_t i = 0;
  while (p[i] && p[i] != '\n' && p[i] != '\r' && i + 1 < n) {
    out[i] = p[i] == '\t' ? ' ' : p[i];
    i++;
  }
  out[i] = 0;
}

int diag_at(diag *d, const srcfile *f, int line, int col, const char *fmt, ...) {
  if (d->set) return 1;
  memset(d, 0, sizeof *d);
  d->set = 1;
  if (f) snprintf(d->file, sizeof d->file, "%s", f->name);
  d->line = line;
  d->col = col;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(d->msg, sizeof d->msg, fmt, ap);
  va_end(ap);
  copy_line(f, line, d->srcline, sizeof d->srcline);
  return 1;
}

void diag_note(diag *d, const char *fmt, ...) {
  if (!d->set || d->note[0]) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(d->note, sizeof d->note, fmt, ap);
  va_end(ap);
}

void diag_format(const diag *d, char *buf, size_t n) {
  size_t o = 0;
#define PUT(...) do { int k_ = snprintf(buf + o, o < n ? n - o : 0, __VA_ARGS__); \
                      if (k_ > 0) o += (size_t)k_; } while (0)
  if (d->file[0] && d->line > 0)
    PUT("%s:%d:%d: error: %s\n", d->file, d->line, d->col > 0 ? d->col : 1, d->msg);
  else if (d->file[0])
    PUT("%s: error: %s\n", d->file, d->msg);
  else
    PUT("ssmc: error: %s\n", d->msg);
  if (d->line > 0 && d->srcline[0]) {
    PUT("  %s\n  ", d->srcline);
    for (int i = 1; i < d->col; i++) PUT(" ");
    PUT("^\n");
  }
  if (d->note[0]) PUT("note: %s\n", d->note);
#undef PUT
}

void diag_print(const diag *d, FILE *out) {
  char buf[2048];
  diag_format(d, buf, sizeof buf);
  fputs(buf, out);
}

int diag_edit_distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  if (la > 64 || lb > 64) return 99;
  int prev[65], cur[65];
  for (size_t j = 0; j <= lb; j++) prev[j] = (int)j;
  for (size_t i = 1; i <= la; i++) {
    cur[0] = (int)i;
    for (size_t j = 1; j <= lb; j++) {
      int c = prev[j - 1] + (a[i - 1] != b[j - 1]);
      if (prev[j] + 1 < c) c = prev[j] + 1;
      if (cur[j - 1] + 1 < c) c = cur[j - 1] + 1;
      cur[j] = c;
    }
    memcpy(prev, cur, sizeof(int) * (lb + 1));
  }
  return prev[lb];
}

const char *diag_nearest(const char *word, const char *const *cands, int n) {
  const char *best = NULL;
  int bd = 3;
  for (int i = 0; i < n; i++) {
    int dd = diag_edit_distance(word, cands[i]);
    if (dd < bd) { bd = dd; best = cands[i]; }
  }
  return best;
}
