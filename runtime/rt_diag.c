/* runtime stage: diagnostics (see rt_diag.h). */
#include "rt_diag.h"
#include <stdarg.h>

int rt_err(rt_diag *d, const char *file, const char *fmt, ...) {
  if (!d || d->set) return -1;
  int n = snprintf(d->msg, sizeof d->msg, "%s: error: ", file ? file : "ssmc");
  if (n < 0 || (size_t)n >= sizeof d->msg) n = 0;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(d->msg + n, sizeof d->msg - (size_t)n, fmt, ap);
  va_end(ap);
  d->set = 1;
  return -1;
}

void rt_diag_print(const rt_diag *d, FILE *o) {
  if (d && d->set) fprintf(o, "%s\n", d->msg);
}
