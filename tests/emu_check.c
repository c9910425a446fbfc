/* tests: the emulation suites' one check (t_emu.c, t_emu90.c): a spec's CUDA kernels run through check's CPU
 * emulation (--backend cuda-emu) and compared with the fp64 oracle, every row passing and the rows of each of its
 * variants present. */
#define _GNU_SOURCE /* memmem */
#include "emu_check.h"
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "build.h"
#include "chk.h"
#include "chk_emu.h"
#include "gen.h"

/* every kernel of the spec (dtype -1) or those of one dtype (0 f32, 1 bf16), solver iterations iters
 * (0: the spec's); must: text each module's source has, lines of it each on its own ('\n' between; NULL: none);
 * bwd_skip as chk_opts's (0: the backward rows too, 2: none) */
void check_spec_opts(const char *rel, int dtype, int iters, const char *must, int bwd_skip, uint64_t seed) {
  char path[1024], err[2048], cache[] = "/tmp/ssmc_t_emu_XXXXXX";
  snprintf(path, sizeof path, "%s/%s", SSMC_SOURCE_DIR, rel);
  ck_assert_ptr_nonnull(mkdtemp(cache));
  chk_emu *emu = chk_emu_open(cache, err, sizeof err);
  ck_assert_msg(emu != NULL, "%s", err);
  gen_set g;
  gen_init(&g);
  diag d = {0};
  if (gen_add(&g, path, &d)) { diag_print(&d, stderr); ck_abort_msg("cannot load %s", rel); }
  chk_opts co = {seed, 0, 2, iters, chk_emu_backend(emu), bwd_skip}; /* check's shapes but T = 4096 */
  for (int j = 0; j < g.u[0]->nk; j++) {
    if (dtype >= 0 && g.u[0]->k[j].dtype != dtype) continue;
    build_kernel bk;
    ck_assert_int_eq(build_get(&g.u[0]->k[j], &g.u[0]->fam, 1, NULL, &bk, &d), 0);
    const int fused = 1; /* every module here has the other forward variant (fused, seq or solve) */
    ck_assert_int_eq(bk.k->cuda->fused.entry != NULL, fused);
    for (const char *m = must; m && *m;) {
      const char *e = strchr(m, '\n');
      const int n = e ? (int)(e - m) : (int)strlen(m);
      ck_assert_msg(memmem(bk.k->cuda->source, strlen(bk.k->cuda->source), m, (size_t)n) != NULL, "%s: no '%.*s' in its module",
                    bk.k->name, n, m);
      m += n + (e != NULL);
    }
    FILE *out = tmpfile();
    chk_result r;
    const int failed = chk_kernel(&g.u[0]->fam, bk.k, &co, out, &r);
    char text[1 << 16];
    rewind(out);
    text[fread(text, 1, sizeof text - 1, out)] = 0;
    fclose(out);
    char bad[2048] = ""; /* the failed rows (Check's messages are short) */
    for (const char *l = text; *l;) {
      const char *e = strchr(l, '\n');
      const size_t len = e ? (size_t)(e - l) : strlen(l);
      if ((memmem(l, len, "FAIL", 4) || memmem(l, len, "error", 5)) && strlen(bad) + len + 2 < sizeof bad)
        strncat(bad, l, len), strcat(bad, "\n");
      l += len + (e != NULL);
    }
    ck_assert_msg(failed == 0 && r.failed == 0 && !bad[0], "%s: %d of %d rows failed:\n%s", bk.k->name, r.failed, r.rows, bad);
    char lab[48], other[64] = ""; /* the other forward variant's y row */
    if (fused) snprintf(other, sizeof other, "%s y", chk_fwd_label(bk.k, chk_emu_backend(emu)->cc_major, 1, lab, sizeof lab));
    const int bwd = bwd_skip < 2; /* the backward's rows asked for */
    for (const char *what = bwd ? "decode-large y\0bwd dk\0" : "decode-large y\0"; *what; what += strlen(what) + 1)
      ck_assert_msg(strstr(text, what) != NULL, "%s: no '%s' row", bk.k->name, what);
    /* a split forward (sm_90a only) */
    if (bk.k->cuda->split_seg.entry && chk_emu_backend(emu)->cc_major == 9) {
      ck_assert_msg(strstr(text, "fwd-split y") != NULL, "%s: no 'fwd-split y' row", bk.k->name);
      ssmc_cuda_kernel cd; /* and the backward after it where it keeps (ssmc_cuda_split_keeps) */
      ssmc_cuda_for_device(bk.k->cuda, 9, &cd);
      if (bwd_skip < 2 && cd.bwd_saved && ssmc_cuda_split_keeps(&cd))
        ck_assert_msg(strstr(text, "bwd-saved-split dk") != NULL, "%s: no 'bwd-saved-split dk' row", bk.k->name);
    }
    if (fused) ck_assert_msg(strstr(text, other) != NULL, "%s: no '%s' row", bk.k->name, other);
    /* a kept forward (bf16 without a solve): the backward after the staged forward and after the other variant; a
     * solve's (both dtypes: the backward's first stages, whatever the variant): after the staged one */
    const int solve = strstr(bk.k->cuda->source, "_xsolve(") != NULL;
    if (bk.k->cuda->bwd_saved && bwd) {
      char saved[80];
      snprintf(saved, sizeof saved, "bwd-saved%s dk", chk_fwd_label(bk.k, chk_emu_backend(emu)->cc_major, 1, lab, sizeof lab) + 3);
      ck_assert_msg(strstr(text, "bwd-saved dk") != NULL && (solve || strstr(text, saved) != NULL), "%s: no '%s' row",
                    bk.k->name, solve ? "bwd-saved dk" : saved);
      /* the kept forward's own output, judged against the oracle's y */
      ck_assert_msg(strstr(text, "bwd-saved y ") != NULL, "%s: no 'bwd-saved y' row", bk.k->name);
    }
    ck_assert_int_eq(bk.k->cuda->bwd_saved > 0, solve || bk.k->dtype == 1);
    ck_assert_int_eq(bk.k->cuda->saved_lead, solve);
    /* the narrow forms of the chunk-to-chunk stages (an erase, a value tile over 16): forward and backward rows */
    /* (without an erase, BQS: the backward's alone, bprep_n and bscan_n) */
    const int fn = bk.k->cuda->bv > 16 && strstr(bk.k->cuda->source, "_bstate(") != NULL;
    ck_assert_int_eq(ssmc_cuda_fwd_narrow(bk.k->cuda), fn);
    ck_assert_int_eq(bk.k->cuda->narrow_bv > 0, fn || strstr(bk.k->cuda->source, "_bscan_n(") != NULL);
    if (fn) ck_assert_msg(strstr(text, "fwd-narrow y") != NULL, "%s: no 'fwd-narrow y' row", bk.k->name);
    if (bwd && bk.k->cuda->narrow_bv) ck_assert_msg(strstr(text, "bwd-narrow dk") != NULL, "%s: no 'bwd-narrow dk' row", bk.k->name);
    ck_assert_int_ge(r.rows, bwd ? 50 : 40); /* (forward rows alone: 48 for the split fixture) */
    build_release(&bk);
  }
  gen_free(&g);
  chk_emu_close(emu);
  snprintf(path, sizeof path, "rm -rf %s", cache);
  ck_assert_int_eq(system(path), 0);
}

void check_spec_with(const char *rel, int dtype, int iters, const char *must) {
  check_spec_opts(rel, dtype, iters, must, 0, 1234);
}
void check_spec(const char *rel) { check_spec_with(rel, -1, 0, NULL); }
