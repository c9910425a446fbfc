/* compiler stage: `ssmc compile` — every CUDA module of a spec through NVRTC
 * for a target arch, with ptxas's own resource report per stage (registers,
 * static and dynamic shared memory, stack frame = local memory, spills). No
 * GPU is needed. A compile error names the generated file's line and the
 * template line it came from. */
#include "cuc.h"
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Does generated line `g` come from template line `t`? The template line's
 * literal pieces (between ${...} substitutions) must appear in g in order. */
static int line_matches(const char *t, size_t tn, const char *g, size_t gn) {
  while (tn && (*t == ' ' || *t == '\t')) t++, tn--;
  if (tn < 4 || t[0] == '@') return 0;
  char *gs = strndup(g, gn), *ts = strndup(t, tn);
  const char *pos = gs;
  int ok = 1, pieces = 0;
  for (char *p = ts; *p && ok;) {
    char *sub = strstr(p, "${");
    if (sub) *sub = 0;
    if (*p) {
      const char *f = strstr(pos, p);
      if (!f || (pieces == 0 && f != pos + strspn(pos, " \t"))) ok = 0;
      else pos = f + strlen(p);
      pieces++;
    }
    if (!sub) break;
    char *close = strchr(sub + 2, '}');
    if (!close) break;
    p = close + 1;
  }
  free(gs);
  free(ts);
  return ok && pieces;
}

static const char *nth_line(const char *s, int n, size_t *len) {
  for (int i = 1; i < n && s; i++) { s = strchr(s, '\n'); if (s) s++; }
  if (!s) return NULL;
  const char *e = strchr(s, '\n');
  *len = e ? (size_t)(e - s) : strlen(s);
  return s;
}

/* NVRTC errors read "<name>(<line>): error: ..."; each gets the generated and template lines. */
static void explain_errors(const emit_kernel *ek, const char *log, FILE *out, diag *d) {
  const char *tpl = emit_template("cuda_kernel.cu.tpl", d);
  char pat[300];
  snprintf(pat, sizeof pat, "%s.cu(", ek->name);
  for (const char *p = strstr(log, pat); p; p = strstr(p + 1, pat)) {
    int line = atoi(p + strlen(pat));
    const char *eol = strchr(p, '\n');
    int n = eol ? (int)(eol - p) : (int)strlen(p);
    fprintf(out, "generated/%s:%d: %.*s\n", ek->cu_path, line, n, strchr(p, ':') ? strchr(p, ':') + 2 : p);
    size_t gl;
    const char *g = nth_line(ek->cu_source, line, &gl);
    if (!g) continue;
    fprintf(out, "    %.*s\n", (int)gl, g);
    int tline = 0;
    size_t tl;
    for (int i = 1; tpl && !tline; i++) {
      const char *t = nth_line(tpl, i, &tl);
      if (!t) break;
      if (line_matches(t, tl, g, gl)) tline = i;
    }
    if (tline) fprintf(out, "    from templates/cuda_kernel.cu.tpl:%d\n", tline);
  }
  /* the other errors (the assembler's: ptxas) name no source line: as they are */
  for (const char *p = log; *p;) {
    const char *eol = strchr(p, '\n');
    const int n = eol ? (int)(eol - p) : (int)strlen(p);
    char ln[400];
    snprintf(ln, sizeof ln, "%.*s", n, p);
    if (strncmp(ln, pat, strlen(pat)) && (strstr(ln, "error") || strstr(ln, "fatal"))) fprintf(out, "%s\n", ln);
    p += n + (eol != NULL);
  }
}

/* whether a stage of fwd[] has the entry e (the same pointer) */
static int fwd_entry(const ssmc_cuda_kernel *c, const char *e) {
  for (int i = 0; i < c->n_fwd; i++)
    if (c->fwd[i].entry == e) return 1;
  return 0;
}

const ssmc_cuda_stage *cuc_stage(const ssmc_cuda_kernel *c, int i) {
#define CUC_FORM(f) offsetof(ssmc_cuda_kernel, f),
  static const size_t forms[] = {offsetof(ssmc_cuda_kernel, fused_sm90), SSMC_CUDA_FORMS(CUC_FORM)};
#undef CUC_FORM
  static const ssmc_cuda_stage none = {0};
  const int nf = c->n_fwd;
  if (i < nf) return &c->fwd[i];
  switch (i - nf) {
  case 0: return &c->decode;
  case 1: return &c->decode_large;
  case 2: return &c->fused;
  default: {
    const int j = i - nf - 3 - c->n_bwd; /* after the backward: fused90, then the other forms */
    if (j < 0) return &c->bwd[i - nf - 3];
    if (j >= (int)(sizeof forms / sizeof *forms)) return NULL;
    const ssmc_cuda_stage *st = (const ssmc_cuda_stage *)((const char *)c + forms[j]);
    return st == &c->split_scan && fwd_entry(c, st->entry) ? &none : st; /* (a fwd[] stage: reported there) */
  }
  }
}

int cuc_compile(const emit_kernel *ek, const char *arch, const char *cache_dir, FILE *out, diag *d) {
  rt_nvrtc_out o;
  char err[512], name[200];
  snprintf(name, sizeof name, "%s.cu", ek->name);
  int rc = rt_nvrtc_compile(ek->cu_source, name, arch, cache_dir, &o, err, sizeof err);
  if (rc < 0) {
    rt_nvrtc_out_free(&o);
    return diag_at(d, NULL, 0, 0, "%s", err);
  }
  if (rc > 0) {
    fprintf(out, "%s\n", err);
    explain_errors(ek, o.log, out, d);
    rt_nvrtc_out_free(&o);
    return diag_at(d, NULL, 0, 0, "the CUDA module of %s did not compile for %s (generated/%s)", ek->name, arch,
                   ek->cu_path);
  }
  const char *over = NULL;
  int over_smem = 0, over_max = 0;
  const ssmc_cuda_stage *st;
  for (int i = 0; (st = cuc_stage(&ek->cuda, i)); i++) {
    if (!st->entry) continue; /* no decode_large, no fused */
    rt_ptxas_info pi;
    rt_ptxas_parse(o.log, st->entry, &pi);
    if (!pi.found) {
      rt_nvrtc_out_free(&o);
      return diag_at(d, NULL, 0, 0, "internal: no ptxas report for %s", st->entry);
    }
    const int max = st == &ek->cuda.fused_sm90 || st == &ek->cuda.fused_sm90_keep || st == &ek->cuda.split_seg ||
                            st == &ek->cuda.split_fused || st == &ek->cuda.split_keep
                        ? CUC_SMEM_MAX_SM90
                        : CUC_SMEM_MAX;
    const int smem = pi.smem_static + st->smem, big = smem > max;
    char mark[64] = "";
    if (big) snprintf(mark, sizeof mark, "  OVER %d KiB", max / 1024);
    if (pi.wgmma_serialized) /* ptxas's C7520: every wgmma of the stage waits for the one before */
      snprintf(mark + strlen(mark), sizeof mark - strlen(mark), "  WGMMA SERIALIZED");
    fprintf(out, "%-64s %-6s %4d regs %6d B smem static %7d B smem dynamic %5d B local %5d/%d B spill st/ld%s%s\n",
            st->entry, arch, pi.regs, pi.smem_static, st->smem, pi.stack, pi.spill_stores, pi.spill_loads,
            o.from_cache ? "  (cached)" : "", mark);
    if (big && !over) over = st->entry, over_smem = smem, over_max = max;
  }
  rt_nvrtc_out_free(&o);
  if (over) /* it compiles, but no launch could give it that much: as much an error as a compile error */
    return diag_at(d, NULL, 0, 0,
                   "stage %s needs %d B of shared memory, more than the %d B (%d KiB) a block may use on every "
                   "GPU it is for (the template has no smaller blocking for these dims)",
                   over, over_smem, over_max, over_max / 1024);
  return 0;
}

int cuc_stage_info(const emit_kernel *ek, const char *arch, const char *cache_dir, const char *stage, rt_ptxas_info *pi,
                   char *err, size_t n) {
  rt_nvrtc_out o;
  char name[200], entry[200];
  snprintf(name, sizeof name, "%s.cu", ek->name);
  snprintf(entry, sizeof entry, "%s_%s", ek->name, stage);
  int rc = rt_nvrtc_compile(ek->cu_source, name, arch, cache_dir, &o, err, n);
  if (!rc) {
    rt_ptxas_parse(o.log, entry, pi);
    if (!pi->found) rc = -1, snprintf(err, n, "no ptxas report for %s", entry);
  } else if (rc > 0) {
    size_t l = strlen(err);
    snprintf(err + l, n - l, ":\n%.2000s", o.log);
  }
  rt_nvrtc_out_free(&o);
  return rc;
}
