/* dsl stage: the one diagnostic type of ssmc.
 * A diagnostic is a user-facing error at a source position, rendered as
 *   file:line:col: error: message
 *     <source line>
 *     <caret>
 * plus an optional note. Functions that can fail on user input take a
 * `diag *` and return non-zero after filling it; the first error wins. */
#ifndef SSMC_DIAG_H
#define SSMC_DIAG_H
#include <stdio.h>

/* A source file held in memory (specs are small). */
typedef struct srcfile {
  char *name;  /* as given on the command line; never made absolute */
  char *text;  /* NUL-terminated contents */
  size_t len;
} srcfile;

typedef struct diag {
  int set;             /* 0 until the first error */
  char file[256];
  int line, col;       /* 1-based; 0 = no position (e.g. a missing file) */
  char msg[768];
  char note[512];      /* optional extra line: "note: ..." */
  char srcline[512];   /* the source line, copied so rendering needs no file */
} diag;

/* Reads a whole file. On failure fills d (no position) and returns NULL. */
srcfile *src_read(const char *path, diag *d);
/* Wraps an in-memory text (tests, embedded specs). Copies both strings. */
srcfile *src_from_string(const char *name, const char *text);
void src_free(srcfile *f);

/* Sets the diagnostic (if not already set). f may be NULL (no source line). */
int diag_at(diag *d, const srcfile *f, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Adds a note line to an already-set diagnostic. */
void diag_note(diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Renders to out in the documented format. */
void diag_print(const diag *d, FILE *out);
/* Renders into a buffer (tests). */
void diag_format(const diag *d, char *buf, size_t n);

/* Edit distance used for "did you mean" suggestions. */
int diag_edit_distance(const char *a, const char *b);
/* Returns the candidate nearest to word (distance <= 2 or a prefix), or NULL. */
const char *diag_nearest(const char *word, const char *const *cands, int n);

#endif
