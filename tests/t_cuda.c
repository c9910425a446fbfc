/* tests: the CUDA modules without a GPU. Every generated CUDA kernel (the
 * built-in specs and examples/) compiles with NVRTC for sm_80 and sm_90a,
 * with zero spills in its decode stage (a few bytes at most elsewhere); the launch facts read back from a module
 * agree with the kernel table; ptxas's report is parsed; a module that does
 * not compile is reported with its generated and template lines, one over the
 * shared memory limit is reported too; a solve with V = 2K has a decode. */
#include <check.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include "build.h"
#include "cuc.h"
#include "gen.h"
#include "rt_cuda.h"

static void add_dir(gen_set *g, const char *sub) {
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/%s", SSMC_SOURCE_DIR, sub);
  DIR *dp = opendir(dir);
  ck_assert_ptr_nonnull(dp);
  struct dirent *e;
  while ((e = readdir(dp))) {
    size_t l = strlen(e->d_name);
    if (l < 6 || strcmp(e->d_name + l - 5, ".yaml")) continue;
    char path[1400];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    diag d = {0};
    if (gen_add(g, path, &d)) { diag_print(&d, stderr); ck_abort_msg("cannot load %s", path); }
  }
  closedir(dp);
}

/* NVRTC opened and a fresh cache directory for the compiles of one test (dir: a mkdtemp template, made in place);
 * cache_remove deletes it */
static void nvrtc_cache(char *dir) {
  char err[4096];
  ck_assert_msg(rt_nvrtc_open(err, sizeof err) == 0, "%s", err);
  ck_assert_ptr_nonnull(mkdtemp(dir));
}
static void cache_remove(const char *dir) {
  char rm[128];
  snprintf(rm, sizeof rm, "rm -rf %s", dir);
  ck_assert_int_eq(system(rm), 0);
}

/* the value of `NAME = v,` in a generated layout enum (-1: absent) */
static long enum_val(const char *src, const char *name) {
  char key[64];
  snprintf(key, sizeof key, "  %s = ", name);
  const char *p = strstr(src, key);
  return p ? strtol(p + strlen(key), NULL, 10) : -1;
}
/* A state pass's tile read by both its products (u, du) is in two buffers exactly where the layout with the
 * second fits its budget, 160 KiB, or 113 KiB for a pass of two blocks an SM (kib) (the copies of the chunk after issued
 * as the chunk before starts; else as the chunk starts); pre: the layout's prefix, t: the tile (its second buffer t2),
 * next: the tile after it */
static void check_second_buffer(const char *src, const char *pre, const char *t, const char *next, int kib) {
  char n[4][32];
  snprintf(n[0], sizeof n[0], "%s%s", pre, t);
  snprintf(n[1], sizeof n[1], "%s%s2", pre, t);
  snprintf(n[2], sizeof n[2], "%s%s", pre, next);
  snprintf(n[3], sizeof n[3], "%sTOTAL", pre);
  const long a = enum_val(src, n[0]), b = enum_val(src, n[1]), size = enum_val(src, n[2]) - a, total = enum_val(src, n[3]);
  ck_assert_int_ge(a, 0);
  ck_assert_int_ge(b, 0);
  ck_assert_int_gt(size, 0);
  if (b != a) ck_assert_int_le(total * 4, kib * 1024);
  else ck_assert_int_gt((total + size) * 4, kib * 1024);
}

START_TEST(every_module_compiles_without_spills) {
  char err[4096], cache[] = "/tmp/ssmc_t_nvrtc_XXXXXX"; /* one NVRTC compile per module and arch: its stages read the
                                                        * cached report */
  nvrtc_cache(cache);
  gen_set g;
  gen_init(&g);
  add_dir(&g, "dsl/families");
  add_dir(&g, "examples");
  const char *archs[] = {"sm_80", "sm_90a"};
  int compiled = 0;
  for (int i = 0; i < g.n; i++)
    for (int j = 0; j < g.u[i]->nk; j++) {
      const emit_kernel *ek = &g.u[i]->k[j];
      ck_assert_int_ge(ek->cuda.n_fwd, 1);
      const int erase = g.u[i]->fam.main.delta;
      /* the narrow forms of the chunk-to-chunk stages (state, fstate, bstate: an erase, the value tile over 16):
       * each right after its wide form, named <wide>_n, on the narrow grid; every stage of the forward and
       * the backward in the staged order once the narrow ones are set aside (narrow_of: the wide form's
       * list without them) */
      const int narrow = erase && ek->cuda.bv > 16;
      /* without an erase (BQS: bscan's tile pass) the backward's own narrow forms, bprep_n and the elementwise
       * bscan_n, on their wide grids */
      const int bqs = !erase && strstr(ek->cu_source, "_bscan_n(") != NULL;
      ck_assert_int_eq(ek->cuda.narrow_bv > 0, narrow || bqs);
      if (narrow) ck_assert_int_eq(ek->cuda.narrow_bv, 16);
      ck_assert_int_eq(ssmc_cuda_fwd_narrow(&ek->cuda), narrow);
      if (narrow) ck_assert_int_gt(ek->cuda.narrow_below_pct, 0);
      ssmc_cuda_kernel w = ek->cuda; /* the wide forms only */
      w.n_fwd = w.n_bwd = 0;
      for (int pass = 0; pass < 2; pass++) {
        const ssmc_cuda_stage *all = pass ? ek->cuda.bwd : ek->cuda.fwd;
        const int n = pass ? ek->cuda.n_bwd : ek->cuda.n_fwd;
        ssmc_cuda_stage *keep = pass ? w.bwd : w.fwd;
        int *nk = pass ? &w.n_bwd : &w.n_fwd, nn = 0;
        for (int s = 0; s < n; s++) {
          const ssmc_cuda_stage *st = &all[s];
          if (st->when == SSMC_STAGE_SM90) { /* an sm_90a form (a solve's hdelta90, psolve90, xsolve90, gcheb90, gsolve90, sgrad90): NAME_<stage>90, after it */
            char want[200];
            snprintf(want, sizeof want, "%s90", all[s - 1].entry);
            ck_assert_str_eq(st->entry, want);
            ck_assert_int_eq(st->grid, all[s - 1].grid);
            ck_assert(g.u[i]->fam.has_solve);
            continue;
          }
          if (st->when != SSMC_STAGE_NARROW) { keep[(*nk)++] = *st; continue; }
          nn++;
          ck_assert_int_eq(st->grid, erase ? SSMC_GRID_ITEMS_NTILES : strstr(st->entry, "_bprep_n") ? SSMC_GRID_CHUNKS : SSMC_GRID_ITEMS_ELEMS);
          ck_assert_int_gt(s, 0);
          ck_assert_int_eq(all[s - 1].when, SSMC_STAGE_WIDE);
          char want[200];
          snprintf(want, sizeof want, "%s_n", all[s - 1].entry);
          ck_assert_str_eq(st->entry, want);
        }
        ck_assert_int_eq(nn, narrow ? pass ? 2 : 1 : bqs && pass ? 2 : 0); /* state; fstate and bstate (BQS: bprep, bscan) */
      }
      const ssmc_cuda_kernel *wk = &w;
      /* [hdelta, hscan, psolve,] prep, state (an erase) or scan (elementwise), out: the chunk-parallel stages around
       * the sequential passes (a solve's H chain, the main state's) */
      ck_assert_int_eq(wk->n_fwd, g.u[i]->fam.has_solve ? 6 : 3);
      if (g.u[i]->fam.has_solve) {
        ck_assert_int_eq(wk->fwd[0].grid, SSMC_GRID_CHUNKS);
        ck_assert_int_eq(wk->fwd[1].grid, SSMC_GRID_ITEMS_ELEMS);
        ck_assert_int_eq(wk->fwd[2].grid, SSMC_GRID_CHUNKS);
        ck_assert_int_ge(ek->cuda.ws_chunk_floats, (int64_t)g.u[i]->spec->K * g.u[i]->spec->K); /* psolve's H */
      }
      const ssmc_cuda_stage *f3 = &wk->fwd[wk->n_fwd - 3];
      ck_assert_int_eq(f3[0].grid, SSMC_GRID_CHUNKS);
      ck_assert_int_eq(f3[1].grid, erase ? SSMC_GRID_ITEMS_VTILES : SSMC_GRID_ITEMS_ELEMS);
      ck_assert_str_eq(f3[1].entry + strlen(ek->name) + 1, erase ? "state" : "scan");
      ck_assert_int_eq(f3[2].grid, SSMC_GRID_CHUNKS);
      ck_assert_int_gt(ek->cuda.ws_chunk_floats, 0);
      /* the backward: the forward's prep and state again (fprep, fstate, fp32-accurate), then bprep, bstate,
       * bval, bgrad, brows, breduce; without an erase the two sequential passes are elementwise scans
       * (fscan, bscan); a solve readout adds bhdelta, bhscan and xsolve in front and gcheb, gsolve, hadj and sgrad
       * before breduce */
      const int nb = wk->n_bwd, sv = g.u[i]->fam.has_solve;
      ck_assert_int_eq(nb, sv ? 15 : 8);
      {
        static const char *const names[2][15] = {
            {"fprep", "fstate", "bprep", "bstate", "bval", "bgrad", "brows", "breduce"},
            {"bhdelta", "bhscan", "xsolve", "fprep", "fstate", "bprep", "bstate", "bval", "bgrad", "brows", "gcheb", "gsolve",
             "hadj", "sgrad", "breduce"}};
        static const int grids[2][15] = {
            {SSMC_GRID_CHUNKS, SSMC_GRID_ITEMS_VTILES, SSMC_GRID_CHUNKS, SSMC_GRID_ITEMS_BVTILES, SSMC_GRID_CHUNKS,
             SSMC_GRID_CHUNKS_KTILES, SSMC_GRID_CHUNKS, SSMC_GRID_CHUNKS},
            {SSMC_GRID_CHUNKS, SSMC_GRID_ITEMS_ELEMS, SSMC_GRID_CHUNKS, SSMC_GRID_CHUNKS, SSMC_GRID_ITEMS_VTILES, SSMC_GRID_CHUNKS,
             SSMC_GRID_ITEMS_BVTILES, SSMC_GRID_CHUNKS, SSMC_GRID_CHUNKS_KTILES, SSMC_GRID_CHUNKS, SSMC_GRID_CHUNKS,
             SSMC_GRID_CHUNKS, SSMC_GRID_ITEMS_ELEMS, SSMC_GRID_CHUNKS, SSMC_GRID_CHUNKS}};
        for (int s = 0; s < nb; s++) {
          const char *name = names[sv][s];
          int grid = grids[sv][s];
          if (!erase && !strcmp(name, "fstate")) name = "fscan", grid = SSMC_GRID_ITEMS_ELEMS;
          if (!erase && !strcmp(name, "bstate")) name = "bscan", grid = bqs ? SSMC_GRID_ITEMS_BVTILES : SSMC_GRID_ITEMS_ELEMS;
          ck_assert_str_eq(wk->bwd[s].entry + strlen(ek->name) + 1, name);
          ck_assert_int_eq(wk->bwd[s].grid, grid);
        }
      }
      {
        ck_assert_int_eq(ek->cuda.bwd_fwd, 0);
        ck_assert_int_eq(g.u[i]->spec->K % ek->cuda.bk, 0);
        ck_assert_int_eq(g.u[i]->spec->V % ek->cuda.bwd_bv, 0);
        ck_assert_int_gt(ek->cuda.bwd_ws_tok_floats, 0);
        ck_assert_int_gt(ek->cuda.bwd_ws_chunk_floats, 0);
        /* a token's row and a chunk slot's on 128-byte lines (the forward's rows are multiples of K and V) */
        ck_assert_int_eq(ek->cuda.bwd_ws_tok_floats % 32, 0);
        ck_assert_int_eq(ek->cuda.bwd_ws_chunk_floats % 32, 0);
        /* the forward kept for the backward: bf16 modules without a solve; it replaces fprep and fstate (and
         * fstate_n where the module has the narrow forms), or without an erase fprep and fscan. A solve's (both
         * dtypes) runs the backward's bhdelta, bhscan and xsolve itself (saved_lead), then the chunk stages after
         * the solve (prep, scan, out) */
        const int keep = ek->dtype == SSMC_BF16 && !sv;
        ck_assert_int_eq(ek->cuda.bwd_saved, keep ? (narrow ? 3 : 2) : sv ? 3 : 0);
        ck_assert_int_eq(ek->cuda.saved_lead, sv);
        for (int s = 0; s < ek->cuda.bwd_saved && !sv; s++) {
          const char *want = !s ? "fprep" : erase ? "fstate" : "fscan";
          ck_assert(!strncmp(ek->cuda.bwd[s].entry + strlen(ek->name) + 1, want, strlen(want)));
        }
        if (sv) {
          ssmc_kernel kd = {.name = ek->name, .V = g.u[i]->spec->V, .cuda = wk};
          ssmc_fwd_args fa = {.n_seqs = 2, .h_qk = 4, .h_v = 4, .t_len = 256, .t_total = 512};
          const ssmc_cuda_stage *ks[SSMC_MAX_STAGES + 1];
          static const char *const want[] = {"bhdelta", "bhscan", "xsolve", "prep", "scan", "out"};
          ck_assert_int_eq(rt_fwd_plan(&kd, &fa, RT_FWD_AUTO, 1, 132, ks), 6);
          for (int s = 0; s < 6; s++) ck_assert_str_eq(ks[s]->entry + strlen(ek->name) + 1, want[s]);
          ck_assert_ptr_eq(ks[0], &wk->bwd[0]);
        }
        /* prep's W and U products on ldmatrix with bf16 hi + lo parts of T (mm_hl16): bf16 inputs with an erase,
         * K and V multiples of 16; f32 inputs keep their split products */
        const int wu16 = erase && ek->dtype == SSMC_BF16 && g.u[i]->spec->K % 16 == 0 && g.u[i]->spec->V % 16 == 0;
        ck_assert_int_eq(strstr(ek->cu_source, "mm_hl16<CH + 8, ") != NULL, wu16);
        if (erase) {
          check_second_buffer(ek->cu_source, "S_", "U", "ZDEC", 160);
          /* bstate with scalar decays forms kd and the erase's keys from the keys as loaded and bprep's two factors a
           * token (BT_KF; its key tiles KB after du), with per-key decays it reads kd and W (KD after du) */
          const int kf = g.u[i]->fam.main.decay != DECAY_DIAG && g.u[i]->spec->K % 8 == 0;
          ck_assert_int_eq(strstr(ek->cu_source, "#define BT_KF ") != NULL, kf);
          ck_assert_int_eq(strstr(ek->cu_source, "  BS_KB = ") != NULL, kf);
          char bs2[256]; /* bstate's wide form in two blocks an SM */
          snprintf(bs2, sizeof bs2, "__launch_bounds__(256, 2) %s_bstate(", ek->name);
          check_second_buffer(ek->cu_source, "BS_", "DU", kf ? "KB" : "KD", strstr(ek->cu_source, bs2) ? 113 : 160);
          if (narrow) check_second_buffer(ek->cu_source, "SN_", "U", "ZDEC", 160), check_second_buffer(ek->cu_source, "BN_", "DU", kf ? "KB" : "KD", 160);
        }
        /* the forward keeps through prep's keep form, in fwd[0]'s place: with an erase T's rows too (the backward's bval
         * reads them), without one kd and U with per-key decays only: else the backward's bgrad reads V for U, its bval
         * forms kd (KDU_B), and prep keeps nothing of its own */
        const int kd = erase || g.u[i]->fam.main.decay == DECAY_DIAG;
        ck_assert_int_eq(ek->cuda.prep_keep.entry != NULL, keep && kd);
        { /* the forward's per-token workspace: [x (a solve)] [W (an erase)] [U] [kd] [T (an erase: C floats)]; without an
           * erase or per-key decays neither U = diag(w) V nor kd = K e^{b_L - b} is stored (the backward's bgrad reads V,
           * its bval forms kd from the keys) */
          const int K = g.u[i]->spec->K, V = g.u[i]->spec->V;
          ck_assert_int_eq(ek->cuda.ws_tok_floats, (sv ? K : 0) + (erase ? K : 0) + (kd ? V + K : 0) + (erase ? ek->cuda.chunk : 0));
        }
        const ssmc_cuda_stage *vs[SSMC_MAX_STAGES + 1], *plain[SSMC_MAX_STAGES + 1];
        ck_assert_int_eq(ssmc_cuda_fwd_stages(&ek->cuda, 0, 0, 1, vs), ssmc_cuda_fwd_stages(&ek->cuda, 0, 0, 0, plain));
        if (ek->cuda.prep_keep.entry) {
          ck_assert_str_eq(ek->cuda.prep_keep.entry + strlen(ek->name) + 1, "prep_keep");
          ck_assert_str_eq(ek->cuda.fwd[0].entry + strlen(ek->name) + 1, "prep");
          ck_assert_int_eq(ek->cuda.prep_keep.smem, ek->cuda.fwd[0].smem);
          ck_assert_ptr_eq(vs[0], &ek->cuda.prep_keep);
        } else
          ck_assert_ptr_eq(vs[0], &ek->cuda.fwd[0]);
      }
      { /* the other forward variant: every module without a per-key decay (with one, where a value tile
       * fits 160 KiB). The fused pass (its readout inside, after prep with an erase), or with neither an
       * erase nor a per-key decay the sequential state pass seq, then the out stage; with a solve the
       * sequential solve in place of hdelta, hscan and psolve, then the chunk stages */
        const int fused = ek->cuda.fused.entry != NULL;
        if (sv || g.u[i]->fam.main.decay != DECAY_DIAG) ck_assert(fused);
        if (fused) {
          const char *name = ek->cuda.fused.entry + strlen(ek->name) + 1;
          ssmc_cuda_kernel d80; /* the stages as sm_80 runs them (without psolve90) */
          ssmc_cuda_for_device(&ek->cuda, 8, &d80);
          const int seq = !strcmp(name, "seq"), post = sv ? d80.n_fwd - 3 : seq; /* a solve's: all but hdelta, hscan, psolve */
          ck_assert_str_eq(name, sv ? "solve" : seq ? "seq" : "fused");
          ck_assert_int_eq(ek->cuda.fused.grid, SSMC_GRID_ITEMS_FTILES);
          ck_assert_int_eq(g.u[i]->spec->V % ek->cuda.fused_bv, 0);
          ck_assert_int_ge(ek->cuda.fused_from_pct, 0);
          ck_assert_int_eq(ek->cuda.fused_pre, erase && !sv ? 1 : 0); /* prep first with an erase */
          ck_assert_int_eq(ek->cuda.fused_post, post);
          if (sv) ck_assert_str_eq(d80.fwd[2].entry + strlen(ek->name) + 1, "psolve");
          if (seq) ck_assert(!erase && g.u[i]->fam.main.decay != DECAY_DIAG);
          const ssmc_cuda_stage *vs[SSMC_MAX_STAGES + 1];
          const int nv = ssmc_cuda_fwd_stages(&ek->cuda, 1, 0, 0, vs);
          ck_assert_int_eq(nv, ek->cuda.fused_pre + 1 + ek->cuda.fused_post);
          /* with an erase, prep before the fused pass in its form without kd (prep_fused), unless the forward is kept */
          ck_assert_int_eq(ek->cuda.prep_fused.entry != NULL, erase && !sv);
          if (ek->cuda.prep_fused.entry) {
            ck_assert_str_eq(ek->cuda.prep_fused.entry + strlen(ek->name) + 1, "prep_fused");
            ck_assert_int_eq(ek->cuda.prep_fused.smem, ek->cuda.fwd[0].smem);
            ck_assert_ptr_eq(vs[0], &ek->cuda.prep_fused);
            const ssmc_cuda_stage *kv[SSMC_MAX_STAGES + 1];
            if (ssmc_cuda_fwd_stages(&ek->cuda, 1, 0, 1, kv) > 0) ck_assert_ptr_eq(kv[0], &ek->cuda.prep_keep); /* (T's rows too) */
            /* on sm_90, before fused90's keep form on HD's body (the T form's pass): prep_fused's keep form, T's rows at
             * WS_T (neither W, U nor kd: the backward forms what it needs from the keys, BS_KF) */
            const int hd = strstr(ek->cu_source, "{ fused90d_body<false>(a, ws); }") != NULL;
            ck_assert_int_eq(ek->cuda.prep_fused_keep.entry != NULL, hd && ek->cuda.bwd_saved > 0);
            ssmc_cuda_kernel d90, d80;
            ssmc_cuda_for_device(&ek->cuda, 9, &d90);
            ssmc_cuda_for_device(&ek->cuda, 8, &d80);
            ck_assert_ptr_null(d80.prep_fused_keep.entry);
            if (ek->cuda.prep_fused_keep.entry) {
              ck_assert_str_eq(ek->cuda.prep_fused_keep.entry + strlen(ek->name) + 1, "prep_fused_keep");
              ck_assert_int_eq(ek->cuda.prep_fused_keep.smem, ek->cuda.fwd[0].smem);
              ck_assert_int_gt(ssmc_cuda_fwd_stages(&d90, 1, 0, 1, kv), 0);
              ck_assert_ptr_eq(kv[0], &d90.prep_fused_keep);
              ck_assert_int_eq(d90.fused_keep.threads, d90.fused.threads); /* (fused90d's keep form) */
              ck_assert_int_gt(ssmc_cuda_fwd_stages(&d80, 1, 0, 1, kv), 0);
              ck_assert_ptr_eq(kv[0], &d80.prep_keep);
              ck_assert_int_gt(ssmc_cuda_fwd_stages(&d90, 0, 0, 1, kv), 0); /* (the staged forward's: W, U, kd) */
              ck_assert_ptr_eq(kv[0], &d90.prep_keep);
            }
          }
          ck_assert_ptr_eq(vs[nv - 1], post ? &ek->cuda.fwd[ek->cuda.n_fwd - 1] : &ek->cuda.fused);
          /* its keep form (the same pass, entry NAME_fused_keep or NAME_seq_keep) where the module keeps its
           * forward (a solve's kept forward is the backward's first stages: saved_lead); elsewhere a kept fused
           * forward is refused */
          ck_assert_int_eq(ek->cuda.fused_keep.entry != NULL, ek->cuda.bwd_saved > 0 && !sv);
          if (ek->cuda.fused_keep.entry) {
            ck_assert_str_eq(ek->cuda.fused_keep.entry + strlen(ek->name) + 1, seq ? "seq_keep" : "fused_keep");
            ck_assert_int_eq(ek->cuda.fused_keep.smem, ek->cuda.fused.smem);
            ck_assert_int_eq(ssmc_cuda_fwd_stages(&ek->cuda, 1, 0, 1, vs), nv);
            ck_assert_ptr_eq(vs[nv - 1 - post], &ek->cuda.fused_keep);
          } else
            ck_assert_int_eq(ssmc_cuda_fwd_stages(&ek->cuda, 1, 0, 1, vs), -1);
        }
        /* sm_90's fused slot fused90 (every product on wgmma): bf16 modules at chunk 64 without a solve
         * or a per-key decay, V = 128 or 64 (the built-in specs: Mamba-2, GDN, DeltaNet);
         * the whole value width a block, after prep with an erase, nothing after it; on sm_90 it takes
         * the fused slot */
        const int f90 = ek->dtype == SSMC_BF16 && !sv && g.u[i]->fam.main.decay != DECAY_DIAG && ek->cuda.chunk == 64 &&
                        (g.u[i]->spec->V == 128 || g.u[i]->spec->V == 64);
        ck_assert_int_eq(ek->cuda.fused_sm90.entry != NULL, f90);
        if (f90) {
          ck_assert_str_eq(ek->cuda.fused_sm90.entry + strlen(ek->name) + 1, "fused90");
          ck_assert_int_eq(ek->cuda.fused_sm90.grid, SSMC_GRID_ITEMS_FTILES);
          ck_assert_int_eq(ek->cuda.fused_sm90_bv, g.u[i]->spec->V);
          ck_assert_int_eq(ek->cuda.fused_sm90_post, 0);
          ck_assert_int_eq(ek->cuda.fused_pre, erase ? 1 : 0);
          ssmc_cuda_kernel d90, d80;
          ssmc_cuda_for_device(&ek->cuda, 9, &d90);
          ssmc_cuda_for_device(&ek->cuda, 8, &d80);
          ck_assert_ptr_eq(d90.fused.entry, ek->cuda.fused_sm90.entry);
          ck_assert_ptr_eq(d80.fused.entry, ek->cuda.fused.entry);
          const ssmc_cuda_stage *vs[SSMC_MAX_STAGES + 1];
          ck_assert_int_eq(ssmc_cuda_fwd_stages(&d90, 1, 0, 0, vs), ek->cuda.fused_pre + 1);
          ck_assert_int_eq(ek->cuda.fused_sm90_keep.entry != NULL, ek->cuda.bwd_saved > 0);
          ck_assert_ptr_eq(d90.fused_keep.entry, ek->cuda.fused_sm90_keep.entry);
          if (ek->cuda.fused_sm90_keep.entry)
            ck_assert_str_eq(ek->cuda.fused_sm90_keep.entry + strlen(ek->name) + 1, "fused90_keep");
          /* the split forward, on sm_90 only: without an erase (its bf16 form) NAME_fused90_seg (its own block: 256
           * threads and its shared memory, on fused90's grid) and the scan; with one where K is a multiple of V
           * NAME_fused90_seg (fused90's block, a block a segment's value rows and one each V rows of its transition)
           * and its own scan NAME_fused90_scan (sequence, value head, columns), then NAME_fused90_split in fused90's
           * place (fused90's block: the segments' items) */
          const int split = !erase || g.u[i]->spec->K % g.u[i]->spec->V == 0;
          ck_assert_int_eq(ek->cuda.split_seg.entry != NULL, split);
          if (split) {
            ck_assert_str_eq(ek->cuda.split_seg.entry + strlen(ek->name) + 1, "fused90_seg");
            ck_assert_str_eq(ek->cuda.split_scan.entry + strlen(ek->name) + 1, erase ? "fused90_scan" : "scan");
            ck_assert_int_eq(ek->cuda.split_seg.threads, erase ? ek->cuda.fused_sm90.threads : 256);
            ck_assert(ek->cuda.split_seg.smem > 0 && ek->cuda.split_seg.smem <= 227 * 1024);
            ck_assert_int_eq(ek->cuda.split_seg.grid, erase ? SSMC_GRID_ITEMS_STILES : SSMC_GRID_ITEMS_FTILES);
            ck_assert_int_eq(ek->cuda.split_scan.grid, SSMC_GRID_ITEMS_ELEMS);
            ck_assert_int_eq(ek->cuda.split_fused.entry != NULL, erase);
            if (erase) {
              ck_assert_str_eq(ek->cuda.split_fused.entry + strlen(ek->name) + 1, "fused90_split");
              ck_assert_int_eq(ek->cuda.split_fused.threads, ek->cuda.fused_sm90.threads);
              ck_assert_int_eq(ek->cuda.split_fused.smem, ek->cuda.fused_sm90.smem);
            }
            ck_assert_int_ge(ek->cuda.split_pct, 100);
            ck_assert_ptr_eq(d90.split_seg.entry, ek->cuda.split_seg.entry);
            ck_assert_ptr_null(d80.split_seg.entry);
            ck_assert_int_eq(rt_fwd_variant_count(&d90), rt_fwd_variant_count(&d80) + 1);
            ck_assert_int_eq(rt_fwd_variant_at(&d90, rt_fwd_variant_count(&d90) - 1), RT_FWD_SPLIT);
          }
        }
      }
      const ssmc_cuda_stage *st;
      for (int a = 0; a < 2; a++)
        for (int s = 0; (st = cuc_stage(&ek->cuda, s)); s++) { /* forward stages, decode, decode_large, fused, backward,
                                                                 fused90, the other forms */
          if (!st->entry) continue;
          const char *stage = st->entry + strlen(ek->name) + 1;
          if (a == 0) { /* a numeric __launch_bounds__ of the entry is the launch's block */
            char key[256];
            snprintf(key, sizeof key, " %s(", st->entry);
            const char *at = strstr(ek->cu_source, key), *lb = NULL;
            ck_assert_msg(at != NULL, "%s not in its module", st->entry);
            for (const char *p = ek->cu_source; (p = strstr(p, "__launch_bounds__(")) && p < at; p++) lb = p;
            ck_assert_ptr_nonnull(lb);
            int nt = atoi(lb + strlen("__launch_bounds__("));
            if (nt > 0) ck_assert_msg(nt == st->threads, "%s: launch_bounds %d, launched with %d", st->entry, nt, st->threads);
          }
          /* sm_90a only: its body is empty elsewhere */
          const int sm90 = st == &ek->cuda.fused_sm90 || st == &ek->cuda.fused_sm90_keep || st == &ek->cuda.split_seg ||
                           st == &ek->cuda.split_fused || st == &ek->cuda.prep_fused_keep || st == &ek->cuda.split_keep;
          if (sm90 && a == 0) continue;
          rt_ptxas_info pi;
          int rc = cuc_stage_info(ek, archs[a], cache, stage, &pi, err, sizeof err);
          ck_assert_msg(rc == 0, "%s for %s: %s", ek->name, archs[a], err);
          int spills = pi.spill_stores + pi.spill_loads;
          /* no stage's wgmma serialized by ptxas (C7520: each waits for the one before; a wgmma region in a branch
           * on the warpgroup did it, the gpu-h200-sn90 record) */
          ck_assert_msg(!pi.wgmma_serialized, "%s (%s): ptxas serialized its wgmma", st->entry, archs[a]);
          /* decode none, nor decode_large without a solve; a solve's decode_large (H in 128 registers of
           * at most 168, for three blocks an SM) and
           * the chunk stages at most a few bytes outside their loops (4-12 B: decode_large on sm_90a;
           * solve, out and one state stage on NVRTC 13.0, visible since the parser reads the newer
           * counts line) */
          /* fused90 with an erase: the state's 64 accumulators and u's 32 at 255 registers spill a few
           * words (56 B on NVRTC 13.0: GDN, DeltaNet); its bf16 form (HD: setmaxnreg 120 / 192 at 384 threads, 96 /
           * 160 at 256) the producer's and the entry's words outside the consumers' products (260 B GDN, 192 B
           * at K = V = 64) */
          const int hd = (st == &ek->cuda.fused_sm90 || st == &ek->cuda.split_seg || st == &ek->cuda.split_fused ||
                          st == &ek->cuda.fused_sm90_keep || st == &ek->cuda.split_keep) &&
                         strstr(ek->cu_source, "{ fused90d_body<false>(a, ws); }");
          /* fused90_keep (training only: it also stores u from its accumulators) more: 36 B GDN, 144 B DeltaNet on
           * NVRTC 13 (tf32 form); on HD's body as HD's (312 B GDN, 300 B DeltaNet); its split form (split_keep, the
           * segment's item and slot besides) 532 B GDN, 500 B DeltaNet */
          const int budget = st == &ek->cuda.decode || (st == &ek->cuda.decode_large && !g.u[i]->fam.has_solve) ? 0
                             : hd && st == &ek->cuda.split_keep                                                ? 640
                             : hd                                                                              ? 512
                             : st == &ek->cuda.fused_sm90_keep                                                 ? 192
                             : sm90 && erase                                                                   ? 64
                                                                                                               : 16;
          /* NVRTC 13's ptxas has reported 8 B for a stage at its register cap (KDA decode_large, 80
           * registers) in one of many compiles in this process and never standalone: a spill must
           * show again in a fresh compile (no cache) to fail */
          if (spills > budget) {
            ck_assert_int_eq(cuc_stage_info(ek, archs[a], NULL, stage, &pi, err, sizeof err), 0);
            spills = pi.spill_stores + pi.spill_loads;
          }
          ck_assert_msg(spills <= budget, "%s (%s) spills %d bytes", st->entry, archs[a], spills);
          ck_assert_int_le(st->smem, sm90 ? 227 * 1024 : 160 * 1024); /* fits an A100's 163 KiB too (fused90: an H100's 227) */
          compiled++;
        }
    }
  ck_assert_int_ge(compiled, 2 * 6 * 2 * 2);
  gen_free(&g);
  cache_remove(cache);
}
END_TEST

/* The table's CUDA descriptors are the ones the emitter produces now. */
START_TEST(builtin_table_describes_cuda) {
  gen_set g;
  gen_init(&g);
  add_dir(&g, "dsl/families");
  for (int i = 0; i < g.n; i++)
    for (int j = 0; j < g.u[i]->nk; j++) {
      build_kernel bk;
      diag d = {0};
      ck_assert_int_eq(build_get(&g.u[i]->k[j], &g.u[i]->fam, 0, NULL, &bk, &d), 0);
      ck_assert(bk.builtin);
      const ssmc_cuda_kernel *c = bk.k->cuda, *e = &g.u[i]->k[j].cuda;
      ck_assert_ptr_nonnull(c);
      ck_assert_str_eq(c->source, g.u[i]->k[j].cu_source);
      ck_assert_int_eq(c->n_fwd, e->n_fwd);
      ck_assert_int_eq(c->bv, e->bv);
      ck_assert_int_eq(bk.k->V % c->bv, 0);
      ck_assert_int_eq(c->decode_bv, e->decode_bv);
      ck_assert_int_eq(c->ws_tok_floats, e->ws_tok_floats);
      ck_assert_int_eq(c->ws_chunk_floats, e->ws_chunk_floats);
      ck_assert_int_eq(c->chunk, e->chunk);
      ck_assert_int_eq(c->chunk, bk.k->chunk); /* the built-ins keep their spec's chunk */
      ck_assert_int_eq(bk.k->V % c->decode_bv, 0);
      ck_assert_int_eq(c->decode.grid, e->decode.grid);
      ck_assert_str_eq(c->decode.entry, e->decode.entry);
      ck_assert_int_eq(c->decode.smem, e->decode.smem);
      ck_assert_int_eq(c->n_bwd, e->n_bwd);
      ck_assert_int_eq(c->bwd_fwd, e->bwd_fwd);
      ck_assert_int_eq(c->bk, e->bk);
      ck_assert_int_eq(c->bwd_bv, e->bwd_bv);
      ck_assert_int_eq(c->bwd_ws_tok_floats, e->bwd_ws_tok_floats);
      ck_assert_int_eq(c->bwd_ws_chunk_floats, e->bwd_ws_chunk_floats);
      ck_assert_int_eq(c->bwd_ws_seq_floats, e->bwd_ws_seq_floats);
      ck_assert_int_eq(c->bwd_ws_qk_floats, e->bwd_ws_qk_floats);
      ck_assert_int_eq(c->fused.entry != NULL, e->fused.entry != NULL);
      if (c->fused.entry) {
        ck_assert_str_eq(c->fused.entry, e->fused.entry);
        ck_assert_int_eq(c->fused.grid, e->fused.grid);
        ck_assert_int_eq(c->fused.threads, e->fused.threads);
        ck_assert_int_eq(c->fused.smem, e->fused.smem);
      }
      ck_assert_int_eq(c->fused_bv, e->fused_bv);
      ck_assert_int_eq(c->fused_pre, e->fused_pre);
      ck_assert_int_eq(c->fused_from_pct, e->fused_from_pct);
      ck_assert_int_eq(c->fused_post, e->fused_post);
      ck_assert_int_eq(c->narrow_bv, e->narrow_bv);
      ck_assert_int_eq(c->narrow_below_pct, e->narrow_below_pct);
      ck_assert_int_eq(c->bwd_narrow_below_pct, e->bwd_narrow_below_pct);
      /* the erase's bf16 modules (GDN, DeltaNet) with bstate's wide form in two blocks an SM: their own pick, below
       * 30% (at B2 T16384 H16, 48%, and H12, 36%, that wide form; at H8, 24%, bstate_n) */
      char bs2[256];
      snprintf(bs2, sizeof bs2, "__launch_bounds__(256, 2) %s_bstate(", bk.k->name);
      ck_assert_int_eq(c->bwd_narrow_below_pct, strstr(c->source, bs2) ? 30 : 0);
      for (int s = 0; s < c->n_bwd; s++) {
        ck_assert_str_eq(c->bwd[s].entry, e->bwd[s].entry);
        ck_assert_int_eq(c->bwd[s].grid, e->bwd[s].grid);
        ck_assert_int_eq(c->bwd[s].smem, e->bwd[s].smem);
        ck_assert_int_eq(c->bwd[s].when, e->bwd[s].when);
        /* breduce sums grouped value heads' q/k gradients: launched only where h_v > h_qk */
        const int reduce = strstr(c->bwd[s].entry, "_breduce") != NULL;
        ck_assert_int_eq(c->bwd[s].when == SSMC_STAGE_GROUPED, reduce);
        ck_assert_int_eq(ssmc_cuda_stage_runs_for(&c->bwd[s], 0, 4, 4), !reduce && ssmc_cuda_stage_runs(&c->bwd[s], 0));
        ck_assert_int_eq(ssmc_cuda_stage_runs_for(&c->bwd[s], 0, 4, 8), reduce || ssmc_cuda_stage_runs(&c->bwd[s], 0));
      }
      build_release(&bk);
    }
  gen_free(&g);
}
END_TEST

/* Every module has two decode stages (decode, decode_large) in the table as the emitter made them;
 * the runtime's choice between them (ssmc_cuda_decode_stage) is decode for small batches,
 * decode_large for large ones, at the crossover measured on an H200, and monotone: once
 * decode_large, decode_large for every larger batch. Without a solve: decode a grid of value tiles
 * (many blocks for a small batch), decode_large one block per item. */
START_TEST(decode_variants_in_table_and_rule_monotone) {
  gen_set g;
  gen_init(&g);
  add_dir(&g, "dsl/families");
  int solves = 0, plain = 0;
  for (int i = 0; i < g.n; i++)
    for (int j = 0; j < g.u[i]->nk; j++) {
      build_kernel bk;
      diag d = {0};
      ck_assert_int_eq(build_get(&g.u[i]->k[j], &g.u[i]->fam, 0, NULL, &bk, &d), 0);
      const ssmc_cuda_kernel *c = bk.k->cuda, *e = &g.u[i]->k[j].cuda;
      if (!g.u[i]->fam.has_solve) {
        plain++;
        ck_assert_int_eq(c->decode.grid, SSMC_GRID_ITEMS_DTILES);
        ck_assert_int_lt(c->decode_bv, bk.k->V); /* several blocks an item */
        ck_assert_int_eq(c->decode_bv % 4, 0);   /* 16-byte pieces of the state */
      } else solves++;
      ck_assert_ptr_nonnull(c->decode_large.entry);
      ck_assert_ptr_nonnull(e->decode_large.entry);
      ck_assert_str_eq(c->decode_large.entry, e->decode_large.entry);
      ck_assert_str_ne(c->decode_large.entry, c->decode.entry);
      ck_assert_int_eq(c->decode_large.grid, SSMC_GRID_ITEMS);
      ck_assert_int_eq(c->decode_large.threads, e->decode_large.threads);
      ck_assert_int_eq(c->decode_large.smem, e->decode_large.smem);
      ck_assert_int_gt(c->decode_large.threads, 0);
      ck_assert_int_le(c->decode_large.smem, 160 * 1024);
      ck_assert_int_eq(c->decode_large_from_pct, e->decode_large_from_pct);
      ck_assert_int_gt(c->decode_large_from_pct, 0);
      ck_assert_ptr_nonnull(strstr(c->source, c->decode_large.entry + strlen(bk.k->name)));
      const int sms[] = {1, 108, 132, 144}, heads[] = {1, 2, 16, 32};
      for (int a = 0; a < 4; a++)
        for (int h = 0; h < 4; h++) {
          int large = 0;
          for (int n = 1; n <= 8192; n++) {
            const ssmc_cuda_stage *st = ssmc_cuda_decode_stage(c, n, heads[h], sms[a]);
            ck_assert(st == &c->decode || st == &c->decode_large);
            if (large) ck_assert_msg(st == &c->decode_large, "not monotone at n=%d h_v=%d SMs=%d", n, heads[h], sms[a]);
            large = st == &c->decode_large;
          }
          ck_assert(large); /* 8192 x h_v items: decode_large */
        }
      /* the crossovers measured on an H200 (132 SMs, h_v = 16): with a solve decode up to B32,
       * decode_large from B64; without, decode at B8, decode_large from B32 */
      ck_assert_ptr_eq(ssmc_cuda_decode_stage(c, 1, 16, 132), &c->decode);
      ck_assert_ptr_eq(ssmc_cuda_decode_stage(c, 8, 16, 132), &c->decode);
      ck_assert_ptr_eq(ssmc_cuda_decode_stage(c, 32, 16, 132),
                       g.u[i]->fam.has_solve ? &c->decode : &c->decode_large);
      ck_assert_ptr_eq(ssmc_cuda_decode_stage(c, 64, 16, 132), &c->decode_large);
      ck_assert_ptr_eq(ssmc_cuda_decode_stage(c, 512, 16, 132), &c->decode_large);
      /* fewer work items than SMs: never decode_large */
      for (int n = 1; n * 16 < 132; n++) ck_assert_ptr_eq(ssmc_cuda_decode_stage(c, n, 16, 132), &c->decode);
      build_release(&bk);
    }
  ck_assert_int_ge(solves, 2); /* gated_kalmanet, f32 and bf16 */
  ck_assert_int_ge(plain, 10); /* the other five built-ins, f32 and bf16 */
  gen_free(&g);
}
END_TEST

/* The runtime's choice of the fused forward (ssmc_cuda_fwd_fused): never without the stage or with
 * from_pct 0 (not measured: only asked for), else from enough blocks (items x value tiles) on, and
 * monotone in the batch. */
START_TEST(fused_forward_rule) {
  ssmc_cuda_kernel c = {0};
  ck_assert_int_eq(ssmc_cuda_fwd_fused(&c, 512, 32, 128, 132), 0); /* no stage */
  c.fused = (ssmc_cuda_stage){"k_fused", SSMC_GRID_ITEMS_FTILES, 256, 1024, SSMC_STAGE_ALWAYS};
  c.fused_bv = 32;
  ck_assert_int_eq(ssmc_cuda_fwd_fused(&c, 512, 32, 128, 132), 0); /* from_pct 0: only when asked for */
  c.fused_from_pct = 200;
  /* V = 128: 4 blocks an item; 2 x 132 SMs = 264 blocks = 66 items */
  ck_assert_int_eq(ssmc_cuda_fwd_fused(&c, 1, 65, 128, 132), 0);
  ck_assert_int_eq(ssmc_cuda_fwd_fused(&c, 1, 66, 128, 132), 1);
  ck_assert_int_eq(ssmc_cuda_fwd_fused(&c, 8, 16, 128, 132), 1);
  ck_assert_int_eq(ssmc_cuda_fwd_fused(&c, 1, 16, 128, 132), 0); /* B1 H16: 64 blocks */
  const int sms[] = {1, 108, 132}, heads[] = {1, 16, 32};
  for (int a = 0; a < 3; a++)
    for (int h = 0; h < 3; h++) {
      int on = 0;
      for (int n = 1; n <= 4096; n++) {
        const int f = ssmc_cuda_fwd_fused(&c, n, heads[h], 128, sms[a]);
        if (on) ck_assert_msg(f, "not monotone at n=%d h_v=%d SMs=%d", n, heads[h], sms[a]);
        on = f;
      }
      ck_assert(on);
    }
}
END_TEST

/* The runtime's choice of the narrow chunk-to-chunk stages (ssmc_cuda_narrow; the backward's ssmc_cuda_bwd_narrow, its
 * own percent where the module states one): never without them, else below below_pct percent of the SMs in wide
 * blocks (items x V / bv), monotone in the batch; a call runs the wide
 * forms or the narrow ones, never both, and every other stage (ssmc_cuda_fwd_stages, ssmc_cuda_stage_runs). */
START_TEST(narrow_stage_rule) {
  ssmc_cuda_kernel c = {0};
  c.bv = 64;
  ck_assert_int_eq(ssmc_cuda_narrow(&c, 1, 16, 128, 132), 0); /* none */
  c.narrow_bv = 16;
  c.narrow_below_pct = 50;
  /* V = 128, bv 64: 2 wide blocks an item; 50% of 132 SMs = 66 blocks = 33 items */
  ck_assert_int_eq(ssmc_cuda_narrow(&c, 1, 32, 128, 132), 1);
  ck_assert_int_eq(ssmc_cuda_narrow(&c, 1, 33, 128, 132), 0);
  ck_assert_int_eq(ssmc_cuda_narrow(&c, 8, 16, 128, 132), 0);
  for (int h = 1; h <= 32; h *= 2) {
    int wide = 0;
    for (int n = 1; n <= 512; n++) {
      const int nr = ssmc_cuda_narrow(&c, n, h, 128, 132);
      if (wide) ck_assert_msg(!nr, "not monotone at n=%d h_v=%d", n, h);
      wide = !nr;
    }
    ck_assert(wide);
  }
  /* the backward's pick: the forward's where the module states none of its own, else its own */
  ck_assert_int_eq(ssmc_cuda_bwd_narrow(&c, 1, 32, 128, 132), 1);
  ck_assert_int_eq(ssmc_cuda_bwd_narrow(&c, 1, 33, 128, 132), 0);
  c.bwd_narrow_below_pct = 25; /* 33 blocks = 16.5 items */
  ck_assert_int_eq(ssmc_cuda_bwd_narrow(&c, 1, 16, 128, 132), 1);
  ck_assert_int_eq(ssmc_cuda_bwd_narrow(&c, 1, 17, 128, 132), 0);
  ck_assert_int_eq(ssmc_cuda_narrow(&c, 1, 17, 128, 132), 1); /* (the forward's unchanged) */
  c.bwd_narrow_below_pct = 0;
  c.n_fwd = 4;
  c.fwd[0] = (ssmc_cuda_stage){"k_prep", SSMC_GRID_CHUNKS, 256, 0, SSMC_STAGE_ALWAYS};
  c.fwd[1] = (ssmc_cuda_stage){"k_state", SSMC_GRID_ITEMS_VTILES, 512, 0, SSMC_STAGE_WIDE};
  c.fwd[2] = (ssmc_cuda_stage){"k_state_n", SSMC_GRID_ITEMS_NTILES, 256, 0, SSMC_STAGE_NARROW};
  c.fwd[3] = (ssmc_cuda_stage){"k_out", SSMC_GRID_CHUNKS, 256, 0, SSMC_STAGE_ALWAYS};
  const ssmc_cuda_stage *st[SSMC_MAX_STAGES + 1];
  for (int nr = 0; nr < 2; nr++) {
    ck_assert_int_eq(ssmc_cuda_fwd_stages(&c, 0, nr, 0, st), 3);
    ck_assert_ptr_eq(st[0], &c.fwd[0]);
    ck_assert_ptr_eq(st[1], &c.fwd[nr ? 2 : 1]);
    ck_assert_ptr_eq(st[2], &c.fwd[3]);
    ck_assert_int_eq(ssmc_cuda_stage_runs(&c.fwd[1], nr), !nr);
    ck_assert_int_eq(ssmc_cuda_stage_runs(&c.fwd[2], nr), nr);
  }
  ssmc_kernel k = {.V = 128, .cuda = &c};
  uint32_t g[3];
  ssmc_cuda_grid(&k, &c.fwd[2], 2, 16, 0, g);
  ck_assert_uint_eq(g[0], 32);
  ck_assert_uint_eq(g[1], 8); /* V / narrow_bv */
}
END_TEST

/* A fwd[] stage's sm_90a form (when = SSMC_STAGE_SM90): ssmc_cuda_for_device puts it in the place of the stage before
 * it on compute capability 9 (with that stage's form) and drops it elsewhere, so the stages' count and order are the
 * module's without it on every device */
START_TEST(sm90_stage_form) {
  ssmc_cuda_kernel c = {0}, d;
  c.n_fwd = 4;
  c.fwd[0] = (ssmc_cuda_stage){"k_hchain", SSMC_GRID_ITEMS, 256, 1000, SSMC_STAGE_ALWAYS};
  c.fwd[1] = (ssmc_cuda_stage){"k_psolve", SSMC_GRID_CHUNKS, 256, 2000, SSMC_STAGE_ALWAYS};
  c.fwd[2] = (ssmc_cuda_stage){"k_psolve90", SSMC_GRID_CHUNKS, 128, 3000, SSMC_STAGE_SM90};
  c.fwd[3] = (ssmc_cuda_stage){"k_out", SSMC_GRID_CHUNKS, 512, 4000, SSMC_STAGE_ALWAYS};
  for (int cc = 8; cc <= 10; cc++) {
    ssmc_cuda_for_device(&c, cc, &d);
    ck_assert_int_eq(d.n_fwd, 3);
    ck_assert_str_eq(d.fwd[0].entry, "k_hchain");
    ck_assert_str_eq(d.fwd[1].entry, cc == 9 ? "k_psolve90" : "k_psolve");
    ck_assert_int_eq(d.fwd[1].threads, cc == 9 ? 128 : 256);
    ck_assert_int_eq(d.fwd[1].smem, cc == 9 ? 3000 : 2000);
    ck_assert_int_eq(d.fwd[1].when, SSMC_STAGE_ALWAYS);
    ck_assert_str_eq(d.fwd[2].entry, "k_out");
    const ssmc_cuda_stage *st[SSMC_MAX_STAGES + 1];
    ck_assert_int_eq(ssmc_cuda_fwd_stages(&d, 0, 0, 0, st), 3);
    ck_assert_int_eq(ssmc_cuda_fwd_stages(&c, 0, 0, 0, st), 3); /* the table as emitted never runs the sm_90a form */
    ck_assert_str_eq(st[1]->entry, "k_psolve");
  }
}
END_TEST

/* The split forward (ssmc_cuda_split, rt_fwd_pick, rt_fwd_plan): segments of at least SSMC_SPLIT_MIN_CHUNKS chunks
 * of the mean sequence, as many as fill split_pct percent of the SMs; picked from three on, and from two below the
 * fused pass's size; for a kept forward where a keep form runs the segments (ssmc_cuda_split_keeps: the fused slot's
 * without an erase, split_keep with one, after the first stage's keep form again); its three stages, the segment stages on n_seqs * split items, the scan on n_seqs;
 * with a keep form as well the run count of check's backward rows (one more: bwd-saved after the split forward). */
START_TEST(split_forward_rule) {
  ssmc_cuda_kernel c = {0};
  c.chunk = 64;
  c.bv = 64;
  c.n_fwd = 3;
  c.fwd[0] = (ssmc_cuda_stage){"k_prep", SSMC_GRID_CHUNKS, 512, 0, SSMC_STAGE_ALWAYS};
  c.fwd[1] = (ssmc_cuda_stage){"k_scan", SSMC_GRID_ITEMS_ELEMS, 128, 0, SSMC_STAGE_ALWAYS};
  c.fwd[2] = (ssmc_cuda_stage){"k_out", SSMC_GRID_CHUNKS, 256, 0, SSMC_STAGE_ALWAYS};
  c.fused = (ssmc_cuda_stage){"k_fused90", SSMC_GRID_ITEMS_FTILES, 384, 0, SSMC_STAGE_ALWAYS};
  c.fused_bv = 128;
  c.fused_from_pct = 24;
  ssmc_kernel k = {.K = 128, .V = 128, .chunk = 64, .cuda = &c};
  ssmc_fwd_args a = {.n_seqs = 1, .h_qk = 16, .h_v = 16, .t_len = 32768};
  const ssmc_cuda_stage *st[SSMC_MAX_STAGES + 1];
  ck_assert_int_eq(ssmc_cuda_split(&k, &a, 132, 1), 0); /* the module has none */
  ck_assert_int_eq(rt_fwd_plan(&k, &a, RT_FWD_SPLIT, 0, 132, st), -2);
  c.split_seg = (ssmc_cuda_stage){"k_fused90_seg", SSMC_GRID_ITEMS_FTILES, 384, 0, SSMC_STAGE_ALWAYS};
  c.split_scan = c.fwd[1];
  c.split_pct = 100;
  ck_assert_int_eq(ssmc_cuda_split(&k, &a, 132, 0), 8); /* 16 items: 8 segments fill 128 of 132 SMs */
  ck_assert_int_eq(rt_fwd_pick(&k, &a, 132, 0), RT_FWD_SPLIT);
  ck_assert_int_eq(rt_fwd_pick(&k, &a, 132, 1), RT_FWD_STAGED); /* kept: not split */
  ck_assert_int_eq(rt_fwd_plan(&k, &a, RT_FWD_SPLIT, 1, 132, st), -1);
  ck_assert_int_eq(rt_fwd_plan(&k, &a, RT_FWD_AUTO, 0, 132, st), 3);
  ck_assert_int_eq(a.split, 8);
  ck_assert_ptr_eq(st[0], &c.split_seg);
  ck_assert_ptr_eq(st[1], &c.split_scan);
  ck_assert_ptr_eq(st[2], &c.fused);
  /* a keep form without an erase: the kept forward splits too, its segments through the keep form */
  c.fused_keep = (ssmc_cuda_stage){"k_fused90_keep", SSMC_GRID_ITEMS_FTILES, 384, 0, SSMC_STAGE_ALWAYS};
  c.n_bwd = 1, c.bwd_saved = 1;
  ck_assert(ssmc_cuda_split_keeps(&c));
  ck_assert_int_eq(rt_fwd_pick(&k, &a, 132, 1), RT_FWD_SPLIT);
  ck_assert_int_eq(rt_fwd_plan(&k, &a, RT_FWD_AUTO, 1, 132, st), 3);
  ck_assert_int_eq(a.split, 8);
  ck_assert_ptr_eq(st[0], &c.split_seg);
  ck_assert_ptr_eq(st[2], &c.fused_keep);
  ck_assert_int_eq(rt_bwd_run_count(&c), 1 + 3); /* recomputing; after the staged, fused and split forwards */
  int fv, bv;
  rt_bwd_run_at(&c, 3, &fv, &bv);
  ck_assert_int_eq(fv, RT_FWD_SPLIT);
  c.fused_keep.entry = NULL, c.n_bwd = 0, c.bwd_saved = 0;
  ck_assert_int_eq(rt_fwd_plan(&k, &a, RT_FWD_AUTO, 0, 132, st), 3);
  ck_assert_int_eq(ssmc_cuda_items(st[0], &a), 8);
  ck_assert_int_eq(ssmc_cuda_items(st[1], &a), 1);
  ck_assert_int_eq(ssmc_cuda_items(st[2], &a), 8);
  uint32_t g[3];
  ssmc_cuda_grid(&k, st[0], ssmc_cuda_items(st[0], &a), a.h_v, 0, g);
  ck_assert_uint_eq(g[0], 128);
  ck_assert_uint_eq(g[1], 1);
  ck_assert_int_eq(rt_fwd_plan(&k, &a, RT_FWD_STAGED, 0, 132, st), 3); /* every other variant: split 0 */
  ck_assert_int_eq(a.split, 0);
  ck_assert_ptr_eq(st[1], &c.fwd[1]);
  a.n_seqs = 2, a.t_len = 4096; /* 32 items, 24% of the SMs: 4 segments before the fused pass */
  ck_assert_int_eq(ssmc_cuda_split(&k, &a, 132, 0), 4);
  ck_assert_int_eq(rt_fwd_pick(&k, &a, 132, 0), RT_FWD_SPLIT);
  ck_assert_int_eq(rt_fwd_pick(&k, &a, 132, 1), RT_FWD_FUSED);
  a.n_seqs = 4; /* 64 items: two segments lose to the fused pass from its size on */
  ck_assert_int_eq(ssmc_cuda_split(&k, &a, 132, 0), 2);
  ck_assert_int_eq(rt_fwd_pick(&k, &a, 132, 0), RT_FWD_FUSED);
  a.n_seqs = 5; /* 80 items: one segment */
  ck_assert_int_eq(rt_fwd_pick(&k, &a, 132, 0), RT_FWD_FUSED);
  a.n_seqs = 1, a.t_len = 512; /* 8 chunks: two segments of 4, below the fused pass's size */
  ck_assert_int_eq(ssmc_cuda_split(&k, &a, 132, 0), 2);
  ck_assert_int_eq(rt_fwd_pick(&k, &a, 132, 0), RT_FWD_SPLIT);
  a.t_len = 500; /* 7 whole chunks: one segment of 4 */
  ck_assert_int_lt(ssmc_cuda_split(&k, &a, 132, 0), 2);
  ck_assert_int_eq(rt_fwd_pick(&k, &a, 132, 0), RT_FWD_STAGED);
  ck_assert_int_eq(ssmc_cuda_split(&k, &a, 132, 1), 3); /* asked for: three, for a check */
  a.n_seqs = 3, a.t_len = 0, a.t_total = 3 * 8192; /* with cu_seqlens the mean sequence: 128 chunks */
  ck_assert_int_eq(ssmc_cuda_split(&k, &a, 132, 0), 2); /* 48 items: 2 segments fill 96 SMs */
  /* with an erase: the fused slot's first stage (prep_fused) first, the segment pass on (items, 1 + K / fused_bv),
   * the module's own scan on (n_seqs, K V / (4 threads)), the split form in fused90's place */
  c.fused_pre = 1;
  c.prep_fused = (ssmc_cuda_stage){"k_prep_fused", SSMC_GRID_CHUNKS, 256, 0, SSMC_STAGE_ALWAYS};
  c.split_seg = (ssmc_cuda_stage){"k_fused90_seg", SSMC_GRID_ITEMS_STILES, 384, 0, SSMC_STAGE_ALWAYS};
  c.split_scan = (ssmc_cuda_stage){"k_fused90_scan", SSMC_GRID_ITEMS_ELEMS, 256, 0, SSMC_STAGE_ALWAYS};
  c.split_fused = (ssmc_cuda_stage){"k_fused90_split", SSMC_GRID_ITEMS_FTILES, 384, 0, SSMC_STAGE_ALWAYS};
  k.K = 256;
  a.n_seqs = 1, a.t_len = 32768, a.t_total = 0;
  ck_assert_int_eq(rt_fwd_plan(&k, &a, RT_FWD_AUTO, 0, 132, st), 4);
  ck_assert_int_eq(a.split, 8);
  ck_assert_ptr_eq(st[0], &c.prep_fused);
  ck_assert_ptr_eq(st[1], &c.split_seg);
  ck_assert_ptr_eq(st[2], &c.split_scan);
  ck_assert_ptr_eq(st[3], &c.split_fused);
  ck_assert_int_eq(ssmc_cuda_items(st[1], &a), 8);
  ck_assert_int_eq(ssmc_cuda_items(st[2], &a), 1);
  ck_assert_int_eq(ssmc_cuda_items(st[3], &a), 8);
  ssmc_cuda_grid(&k, st[1], ssmc_cuda_items(st[1], &a), a.h_v, 0, g);
  ck_assert_uint_eq(g[0], 128);
  ck_assert_uint_eq(g[1], 3); /* the value rows, then K / 128 blocks of the transition's rows */
  ssmc_cuda_grid(&k, st[2], ssmc_cuda_items(st[2], &a), a.h_v, 0, g);
  ck_assert_uint_eq(g[0], 16);
  ck_assert_uint_eq(g[1], 32);
  ck_assert_int_eq(rt_fwd_plan(&k, &a, RT_FWD_FUSED, 0, 132, st), 2); /* the fused variant: fused itself */
  ck_assert_ptr_eq(st[1], &c.fused);
  c.fused_keep = c.fused_sm90_keep = (ssmc_cuda_stage){"k_fused90_keep", SSMC_GRID_ITEMS_FTILES, 384, 0, SSMC_STAGE_ALWAYS};
  ck_assert(!ssmc_cuda_split_keeps(&c)); /* with an erase a kept forward splits only through split_keep */
  ck_assert_int_eq(rt_fwd_pick(&k, &a, 132, 1), RT_FWD_STAGED);
  ck_assert_int_eq(rt_fwd_plan(&k, &a, RT_FWD_SPLIT, 1, 132, st), -1);
  /* with it: the plain first stage for the segment pass, the scan, the first stage's keep form again (the segments'
   * transition rows took the first tokens' rows), the split form's keep form */
  c.split_keep = (ssmc_cuda_stage){"k_fused90_split_keep", SSMC_GRID_ITEMS_FTILES, 384, 0, SSMC_STAGE_ALWAYS};
  c.prep_fused_keep = (ssmc_cuda_stage){"k_prep_fused_keep", SSMC_GRID_CHUNKS, 256, 0, SSMC_STAGE_ALWAYS};
  ck_assert(ssmc_cuda_split_keeps(&c));
  ck_assert_int_eq(rt_fwd_pick(&k, &a, 132, 1), RT_FWD_SPLIT);
  ck_assert_int_eq(rt_fwd_plan(&k, &a, RT_FWD_AUTO, 1, 132, st), 5);
  ck_assert_int_eq(a.split, 8);
  ck_assert_ptr_eq(st[0], &c.prep_fused);
  ck_assert_ptr_eq(st[1], &c.split_seg);
  ck_assert_ptr_eq(st[2], &c.split_scan);
  ck_assert_ptr_eq(st[3], &c.prep_fused_keep);
  ck_assert_ptr_eq(st[4], &c.split_keep);
  ck_assert_int_eq(ssmc_cuda_items(st[4], &a), 8);
  ssmc_cuda_kernel d80;
  ssmc_cuda_for_device(&c, 8, &d80); /* (sm_90 only) */
  ck_assert_ptr_null(d80.split_keep.entry);
}
END_TEST

/* The chunk slots of the ABI: every chunk of every sequence has its own slot below
 * ssmc_chunk_slots, found from cu_seqlens alone by the search the kernels do, and at most one
 * slot a sequence is idle. */
START_TEST(chunk_slots_cover_every_chunk_once) {
  ssmc_kernel k = {.chunk = 64};
  uint64_t x = 88172645463325252ULL;
  for (int trial = 0; trial < 200; trial++) {
    int64_t cu[17] = {0};
    const int n = 1 + trial % 16;
    for (int i = 0; i < n; i++) {
      x ^= x << 13; x ^= x >> 7; x ^= x << 17;
      const int64_t len = trial % 3 == 0 ? (int64_t)(x % 4) : (int64_t)(x % 700); /* empty and one-token sequences too */
      cu[i + 1] = cu[i] + len;
    }
    ssmc_fwd_args a = {.n_seqs = n, .cu_seqlens = cu, .t_total = cu[n]};
    const int64_t slots = ssmc_chunk_slots(&k, &a);
    int64_t used = 0;
    for (int64_t gs = 0; gs < slots; gs++) {
      int64_t lo = 0, hi = n - 1; /* the last sequence whose first slot is <= gs */
      while (lo < hi) {
        const int64_t mid = (lo + hi + 1) / 2;
        if (cu[mid] / k.chunk + mid <= gs) lo = mid; else hi = mid - 1;
      }
      const int64_t c0 = (gs - (cu[lo] / k.chunk + lo)) * k.chunk;
      ck_assert_int_ge(c0, 0);
      if (c0 < cu[lo + 1] - cu[lo]) used++;
    }
    int64_t chunks = 0;
    for (int i = 0; i < n; i++) chunks += (cu[i + 1] - cu[i] + k.chunk - 1) / k.chunk;
    ck_assert_int_eq(used, chunks); /* slots map to distinct chunks (c0 grows with gs within a sequence) */
    ck_assert_int_le(slots - chunks, n);
  }
  ssmc_fwd_args f = {.n_seqs = 3, .t_len = 130};
  ck_assert_int_eq(ssmc_chunk_slots(&k, &f), 9); /* no cu_seqlens: exactly N * ceil(T / C) */
  ck_assert_int_eq(ssmc_fwd_tokens(&f), 390);
}
END_TEST

START_TEST(ptxas_report_parsed) {
  const char *log =
    "ptxas info    : Compiling entry function 'kern_a' for 'sm_90a'\n"
    "ptxas info    : Function properties for kern_a\n"
    "    16 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n"
    "ptxas info    : Used 96 registers, used 1 barriers, 2048 bytes smem, 400 bytes cmem[0]\n"
    "ptxas info    : Compiling entry function 'kern_b' for 'sm_90a'\n"
    "ptxas info    : Function properties for kern_b\n"
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 40 registers, used 1 barriers, 384 bytes cmem[0]\n"
    "ptxas info    : Compiling entry function 'kern_d' for 'sm_90a'\n"
    "ptxas info    : Function properties for kern_d\n" /* the newer ptxas's counts line */
    "ptxas         .     656 bytes stack frame, 652 bytes spill stores, 648 bytes spill loads\n"
    "ptxas info    : Used 255 registers, used 1 barriers, 656 bytes cumulative stack size\n"
    "ptxas info    : (C7520) Potential Performance Loss: wgmma.mma_async instructions are serialized due to program "
    "dependence on compiler-inserted WG.AR in divergent path in the function 'kern_d'\n";
  rt_ptxas_info a, b, c;
  rt_ptxas_parse(log, "kern_a", &a);
  rt_ptxas_parse(log, "kern_b", &b);
  rt_ptxas_parse(log, "kern_c", &c);
  ck_assert(a.found && b.found && !c.found);
  ck_assert_int_eq(a.regs, 96);
  ck_assert_int_eq(a.smem_static, 2048);
  ck_assert_int_eq(a.stack, 16);
  ck_assert_int_eq(a.spill_stores, 8);
  ck_assert_int_eq(a.spill_loads, 12);
  ck_assert_int_eq(b.regs, 40);
  ck_assert_int_eq(b.smem_static, 0);
  rt_ptxas_info dd;
  rt_ptxas_parse(log, "kern_d", &dd);
  ck_assert(dd.found);
  ck_assert_int_eq(dd.regs, 255);
  ck_assert_int_eq(dd.stack, 656);
  ck_assert_int_eq(dd.spill_stores, 652);
  ck_assert_int_eq(dd.spill_loads, 648);
  ck_assert(dd.wgmma_serialized && !a.wgmma_serialized && !b.wgmma_serialized);
}
END_TEST

/* A module that does not compile: the error names the generated file's line
 * and the template line it came from. */
START_TEST(compile_error_points_at_template) {
  char err[512];
  ck_assert_msg(rt_nvrtc_open(err, sizeof err) == 0, "%s", err);
  gen_set g;
  gen_init(&g);
  char path[1024];
  snprintf(path, sizeof path, "%s/dsl/families/mamba2.yaml", SSMC_SOURCE_DIR);
  diag d = {0};
  ck_assert_int_eq(gen_add(&g, path, &d), 0);
  emit_kernel *ek = &g.u[0]->k[0];
  char *bad = strstr(ek->cu_source, "const float4 wv = make_float4(w * vv[j0],");
  ck_assert_ptr_nonnull(bad);
  memcpy(bad, "const float4 wv = make_float4(w * vx[j0],", 41); /* an undefined name, as a broken template would write */
  char *buf = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&buf, &len);
  memset(&d, 0, sizeof d);
  ck_assert_int_ne(cuc_compile(ek, "sm_80", NULL, out, &d), 0);
  fclose(out);
  ck_assert_msg(strstr(buf, ".cu:") && strstr(buf, "vx"), "%s", buf);
  ck_assert_msg(strstr(buf, "from templates/cuda_kernel.cu.tpl:"), "%s", buf);
  free(buf);
  gen_free(&g);
}
END_TEST

static emit_kernel *load_fixture(gen_set *g, const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/fixtures/specs/%s", SSMC_SOURCE_DIR, name);
  diag d = {0};
  gen_init(g);
  if (gen_add(g, path, &d)) { diag_print(&d, stderr); ck_abort_msg("cannot generate %s", name); }
  return &g->u[0]->k[0];
}

/* A solve whose U does not fit the decode's shared memory (K = 128, V = 256) generates: its decode
 * stages read U in global memory, fit 112 KiB and compile. */
START_TEST(solve_decode_with_wide_values) {
  char err[4096];
  ck_assert_msg(rt_nvrtc_open(err, sizeof err) == 0, "%s", err);
  gen_set g;
  emit_kernel *ek = load_fixture(&g, "cuda_solve_wide.yaml");
  ck_assert_ptr_nonnull(strstr(ek->cu_source, "U read and updated in place in global memory"));
  ck_assert_int_le(ek->cuda.decode.smem, 112 * 1024);
  ck_assert_int_le(ek->cuda.decode_large.smem, 112 * 1024);
  rt_ptxas_info pi;
  ck_assert_msg(cuc_stage_info(ek, "sm_80", NULL, "decode", &pi, err, sizeof err) == 0, "%s", err);
  gen_free(&g);
}
END_TEST

/* The fused pass is picked as measured on an H200 (bench/2026-11-23-gpu-h200-fused/): a bf16 module whose
 * fused value tile is the whole value width (K = V = 64, two blocks an SM) runs it from 1.5 blocks an SM
 * on (B8 H32 on 132 SMs: 256 blocks; not B2: 64); its f32 module (one block an SM, not measured) and the
 * built-ins (K = V = 128: a narrower value tile, slower at every size measured) only when asked for. */
START_TEST(fused_picked_where_measured) {
  gen_set g;
  load_fixture(&g, "cuda_fused_k64.yaml");
  ck_assert_int_eq(g.u[0]->nk, 2);
  for (int j = 0; j < g.u[0]->nk; j++) {
    const ssmc_cuda_kernel *c = &g.u[0]->k[j].cuda;
    ck_assert_ptr_nonnull(c->fused.entry);
    ck_assert_int_eq(c->fused_bv, 64);
    const int bf16 = g.u[0]->k[j].dtype == 1;
    ck_assert_int_eq(ssmc_cuda_fwd_fused(c, 8, 32, 64, 132), bf16);
    ck_assert_int_eq(ssmc_cuda_fwd_fused(c, 4, 32, 64, 132), 0);
    ck_assert_int_eq(ssmc_cuda_fwd_fused(c, 2, 32, 64, 132), 0);
  }
  gen_free(&g);
  gen_init(&g);
  add_dir(&g, "dsl/families");
  /* at K = V = 128 only the sequential state pass seq (Mamba-2's slot, bf16) is picked by itself, and a
   * solve's sequential solve from 95% of the SMs on (GKA at B8 H16 on an H200: 128 items of 132), except where the
   * module has psolve90 (GKA bf16: hchain and psolve90 at B8 8.8 ms against the sequential solve's 25.0, the
   * gpu-h200-psolve90 record): never by itself there */
  for (int i = 0; i < g.n; i++)
    for (int j = 0; j < g.u[i]->nk; j++) {
      const ssmc_cuda_kernel *c = &g.u[i]->k[j].cuda;
      if (g.u[i]->fam.has_solve) {
        const int ps90 = strstr(c->source, "_psolve90(ssmc_fwd_args a, float *ws) {") != NULL;
        ck_assert_int_eq(ps90, g.u[i]->k[j].dtype == 1);
        ck_assert_int_eq(c->fused_from_pct, ps90 ? 0 : 95);
        ck_assert_int_eq(ssmc_cuda_fwd_fused(c, 8, 16, 128, 132), !ps90);
        ck_assert_int_eq(ssmc_cuda_fwd_fused(c, 4, 16, 128, 132), 0);
        continue;
      }
      const int seq = c->fused.entry && c->fused_post > 0, bf16 = g.u[i]->k[j].dtype == 1;
      ck_assert_int_eq(c->fused_from_pct, seq && bf16 ? 150 : 0);
      if (seq && bf16) {
        ck_assert_int_eq(ssmc_cuda_fwd_fused(c, 8, 16, 128, 132), 1);
        ck_assert_int_eq(ssmc_cuda_fwd_fused(c, 4, 16, 128, 132), 0);
        ck_assert_int_eq(ssmc_cuda_fwd_fused(c, 1, 16, 128, 132), 0);
      }
    }
  gen_free(&g);
}
END_TEST

/* fused90's bf16 form takes two blocks an SM (__launch_bounds__(384, 2): 80 registers) only where its consumers'
 * accumulators fit them: at K = 32 V = 128 (48 of them) and V = 64 (32) two blocks, at K = 48 V = 128 (56; 348
 * bytes spilled with two) one; no spills. No stage of these modules has its wgmma serialized (bgrad's was at V = 64
 * before its warpgroup index came through a shuffle). */
START_TEST(fused90_bf16_blocks_fit_registers) {
  char err[4096], cache[] = "/tmp/ssmc_t_cuda_f90_XXXXXX";
  nvrtc_cache(cache);
  const struct { const char *spec; int blocks; } cases[] = {{"emu_f90.yaml", 2}, {"emu_f90_v64.yaml", 2}, {"cuda_f90_k48.yaml", 1}};
  for (int c = 0; c < 3; c++) {
    gen_set g;
    load_fixture(&g, cases[c].spec);
    emit_kernel *ek = NULL;
    for (int j = 0; j < g.u[0]->nk; j++)
      if (g.u[0]->k[j].dtype == SSMC_BF16) ek = &g.u[0]->k[j];
    ck_assert_ptr_nonnull(ek);
    ck_assert_int_eq(ek->cuda.fused_sm90.threads, 384);
    char lb[512];
    snprintf(lb, sizeof lb, "__launch_bounds__(384, %d) %s(", cases[c].blocks, ek->cuda.fused_sm90.entry);
    ck_assert_msg(strstr(ek->cu_source, lb) != NULL, "%s: no '%s'", ek->name, lb);
    rt_ptxas_info pi;
    ck_assert_msg(cuc_stage_info(ek, "sm_90a", cache, "fused90", &pi, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(pi.spill_stores + pi.spill_loads == 0, "%s fused90 spills %d + %d bytes", ek->name, pi.spill_stores,
                  pi.spill_loads);
    const ssmc_cuda_stage *st;
    for (int s = 0; (st = cuc_stage(&ek->cuda, s)); s++) {
      if (!st->entry) continue;
      ck_assert_msg(cuc_stage_info(ek, "sm_90a", cache, st->entry + strlen(ek->name) + 1, &pi, err, sizeof err) == 0, "%s", err);
      ck_assert_msg(!pi.wgmma_serialized, "%s: ptxas serialized its wgmma", st->entry);
    }
    gen_free(&g);
  }
  cache_remove(cache);
}
END_TEST

/* fused90's tf32 form with a query of two terms at K = V = 128 (the state's accumulators at 255 registers): the terms
 * after the first are fetched at the chunk's start, not kept in flight through the last chunk's products (32 B spilled
 * there, 116 B in the keep form); fused90 compiles without spills, its keep form (the chunk-start states' stores; U is
 * bprep's, kd bval's: KDU_B) with at most 8 B (NVRTC 13: 4 + 4). */
START_TEST(fused90_query_terms_without_spills) {
  char err[4096], cache[] = "/tmp/ssmc_t_cuda_q2_XXXXXX";
  nvrtc_cache(cache);
  gen_set g;
  load_fixture(&g, "cuda_f90_q2_k128.yaml");
  const char *stages[] = {"fused90", "fused90_keep"};
  for (int j = 0; j < g.u[0]->nk; j++) {
    emit_kernel *ek = &g.u[0]->k[j];
    if (ek->dtype != SSMC_BF16) continue;
    for (int s = 0; s < 2; s++) {
      rt_ptxas_info pi;
      ck_assert_msg(cuc_stage_info(ek, "sm_90a", cache, stages[s], &pi, err, sizeof err) == 0, "%s", err);
      ck_assert_msg(pi.spill_stores + pi.spill_loads <= (s ? 8 : 0), "%s %s spills %d + %d bytes", ek->name, stages[s],
                    pi.spill_stores, pi.spill_loads);
    }
  }
  gen_free(&g);
  cache_remove(cache);
}
END_TEST

/* A solve beside an erase has the most stages (the solve's sm_90a forms, the erase's narrow forms): every one of them
 * in the table, the sm_90a forms in place on cc 9, the sequential solve's variant with the chunk stages after it, and
 * the solve's sm_90a stages compile without spills. */
START_TEST(solve_beside_erase_keeps_every_stage) {
  char err[4096], cache[] = "/tmp/ssmc_t_cuda_sd_XXXXXX";
  nvrtc_cache(cache);
  gen_set g;
  load_fixture(&g, "cuda_solve_delta.yaml");
  emit_kernel *ek = NULL;
  for (int j = 0; j < g.u[0]->nk; j++)
    if (g.u[0]->k[j].dtype == SSMC_BF16) ek = &g.u[0]->k[j];
  ck_assert_ptr_nonnull(ek);
  static const char *const fwd[] = {"hdelta", "hdelta90", "hscan", "psolve", "psolve90", "prep", "state", "state_n", "out"};
  static const char *const bwd[] = {"bhdelta", "bhdelta90", "bhscan", "xsolve", "xsolve90", "fprep", "fstate", "fstate_n",
                                    "bprep", "bstate", "bstate_n", "bval", "bgrad", "brows", "gcheb", "gcheb90", "gsolve",
                                    "gsolve90", "hadj", "sgrad", "sgrad90", "breduce"};
  const size_t nl = strlen(ek->name) + 1;
  ck_assert_int_eq(ek->cuda.n_fwd, 9);
  for (int s = 0; s < 9; s++) ck_assert_str_eq(ek->cuda.fwd[s].entry + nl, fwd[s]);
  ck_assert_int_eq(ek->cuda.n_bwd, 22);
  for (int s = 0; s < 22; s++) ck_assert_str_eq(ek->cuda.bwd[s].entry + nl, bwd[s]);
  ssmc_cuda_kernel d;
  ssmc_cuda_for_device(&ek->cuda, 9, &d);
  ck_assert_int_eq(d.n_fwd, 7);
  /* the sequential solve, then prep, the state pass in the form the call runs (not both) and out (they had been
   * the last three: state, state_n, out, without prep) */
  ck_assert_int_eq(d.fused_post, 4);
  for (int narrow = 0; narrow < 2; narrow++) {
    const ssmc_cuda_stage *st[SSMC_MAX_STAGES + 1];
    static const char *const want[2][4] = {{"solve", "prep", "state", "out"}, {"solve", "prep", "state_n", "out"}};
    ck_assert_int_eq(ssmc_cuda_fwd_stages(&d, 1, narrow, 0, st), 4);
    for (int s = 0; s < 4; s++) ck_assert_str_eq(st[s]->entry + nl, want[narrow][s]);
  }
  ck_assert_int_eq(d.n_bwd, 17);
  ck_assert_str_eq(d.bwd[0].entry + nl, "bhdelta90");
  ck_assert_str_eq(d.bwd[12].entry + nl, "gcheb90");
  ck_assert_str_eq(d.bwd[13].entry + nl, "gsolve90");
  ck_assert_str_eq(d.bwd[15].entry + nl, "sgrad90");
  ssmc_cuda_for_device(&ek->cuda, 8, &d);
  ck_assert_str_eq(d.bwd[0].entry + nl, "bhdelta");
  ck_assert_str_eq(d.bwd[12].entry + nl, "gcheb");
  ck_assert_str_eq(d.bwd[13].entry + nl, "gsolve");
  ck_assert_str_eq(d.bwd[15].entry + nl, "sgrad");
  static const char *const sm90[] = {"hdelta90", "psolve90", "bhdelta90", "xsolve90", "gcheb90", "gsolve90", "sgrad90"};
  for (int s = 0; s < 7; s++) {
    rt_ptxas_info pi;
    ck_assert_msg(cuc_stage_info(ek, "sm_90a", cache, sm90[s], &pi, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(pi.spill_stores + pi.spill_loads == 0 && !pi.wgmma_serialized, "%s: spills %d + %d, serialized %d",
                  sm90[s], pi.spill_stores, pi.spill_loads, pi.wgmma_serialized);
  }
  gen_free(&g);
  cache_remove(cache);
}
END_TEST

/* A stage over 160 KiB of shared memory compiles, but `ssmc compile` marks it and fails. */
START_TEST(compile_reports_smem_over_limit) {
  char err[512];
  ck_assert_msg(rt_nvrtc_open(err, sizeof err) == 0, "%s", err);
  gen_set g;
  emit_kernel *ek = load_fixture(&g, "cuda_solve_k256.yaml");
  char *buf = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&buf, &len);
  diag d = {0};
  ck_assert_int_ne(cuc_compile(ek, "sm_90a", NULL, out, &d), 0);
  fclose(out);
  ck_assert_msg(strstr(buf, "OVER 160 KiB"), "%s", buf);
  ck_assert_msg(strstr(d.msg, "_hdelta needs") && strstr(d.msg, "160 KiB"), "%s", d.msg); /* its first stage */
  free(buf);
  gen_free(&g);
}
END_TEST

/* Where the forward's blocks fit at the spec's chunk and the backward's do not (GKA's form at K = 48, V = 16, chunk 128:
 * sgrad 178 KB; GKA at K = 64: bgrad 214 KB), the module is made again from half the chunk: every stage fits a block's
 * 160 KiB at chunk 64, and the CPU kernel keeps the spec's chunk (the name's c128). */
START_TEST(backward_blocks_fit_by_halving_chunk) {
  gen_set g;
  load_fixture(&g, "emu_solve_c128.yaml");
  ck_assert_int_eq(g.u[0]->nk, 2);
  for (int j = 0; j < g.u[0]->nk; j++) {
    const emit_kernel *ek = &g.u[0]->k[j];
    ck_assert_msg(strstr(ek->name, "_c128_") != NULL, "%s", ek->name);
    ck_assert_int_eq(ek->cuda.chunk, 64);
    ck_assert_ptr_nonnull(strstr(ek->cu_source, "\n#define CH 64\n"));
    ck_assert_int_ge(ek->cuda.n_bwd, 10);
    for (int i = 0; i < ek->cuda.n_fwd; i++) ck_assert_int_le(ek->cuda.fwd[i].smem, CUC_SMEM_MAX);
    for (int i = 0; i < ek->cuda.n_bwd; i++)
      ck_assert_msg(ek->cuda.bwd[i].smem <= CUC_SMEM_MAX, "%s: %d B", ek->cuda.bwd[i].entry, ek->cuda.bwd[i].smem);
  }
  gen_free(&g);
}
END_TEST

Suite *cuda_suite(void) {
  Suite *s = suite_create("cuda");
  TCase *tc = tcase_create("nvrtc");
  tcase_set_timeout(tc, 900);
  tcase_add_test(tc, every_module_compiles_without_spills);
  tcase_add_test(tc, sm90_stage_form);
  tcase_add_test(tc, fused_forward_rule);
  tcase_add_test(tc, narrow_stage_rule);
  tcase_add_test(tc, split_forward_rule);
  tcase_add_test(tc, builtin_table_describes_cuda);
  tcase_add_test(tc, decode_variants_in_table_and_rule_monotone);
  tcase_add_test(tc, chunk_slots_cover_every_chunk_once);
  tcase_add_test(tc, ptxas_report_parsed);
  tcase_add_test(tc, compile_error_points_at_template);
  tcase_add_test(tc, solve_decode_with_wide_values);
  tcase_add_test(tc, compile_reports_smem_over_limit);
  tcase_add_test(tc, fused_picked_where_measured);
  tcase_add_test(tc, fused90_bf16_blocks_fit_registers);
  tcase_add_test(tc, fused90_query_terms_without_spills);
  tcase_add_test(tc, solve_beside_erase_keeps_every_stage);
  suite_add_tcase(s, tc);
  TCase *blocks = tcase_create("blocks"); /* the module's blocking, no NVRTC */
  tcase_add_test(blocks, backward_blocks_fit_by_halving_chunk);
  suite_add_tcase(s, blocks);
  return s;
}
