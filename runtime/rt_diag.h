/* runtime stage: the runtime's one diagnostic type.
 * A user mistake (bad model folder, config, weights, tokenizer) is reported as
 * "FILE: error: message" (FILE may name a key or tensor after a colon) and
 * the caller exits with status 2; our own bugs are asserts. The runtime does
 * not include dsl/ headers, so it has this small twin of dsl/diag.h. */
#ifndef RT_DIAG_H
#define RT_DIAG_H
#include <stdio.h>

typedef struct {
  int set;
  char msg[1536];
} rt_diag;

/* Records the first error only (later ones are consequences). Returns -1. */
int rt_err(rt_diag *d, const char *file, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void rt_diag_print(const rt_diag *d, FILE *o);

#endif
