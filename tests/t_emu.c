/* tests: the CUDA kernels on a machine without a GPU. Every CUDA stage of five user specs — a scalar
 * decay (examples/my_ssm.yaml), a gated delta rule (tests/fixtures/specs/emu_delta.yaml: the erase
 * class, with prep, state and the WY/UT inverse), per-key decays with an erase (bwd_diag_delta.yaml)
 * and without one (bwd_sqrt_write.yaml) and a Chebyshev solve readout (bwd_solve_key.yaml; its bf16 form in m16n8k16 products at K = C = 64:
 * emu_solve_bf.yaml; gsolve's D in row blocks and decode_large's H in U's place: emu_solve_k48.yaml; the sm_90a path's wgmma products: emu_wg.yaml, emu_wg_scalar.yaml, and its fused pass
 * fused90: emu_f90.yaml, emu_f90_v64.yaml, emu_f90_q2.yaml, emu_f90_delta.yaml, emu_f90_delta_k96.yaml) — runs through check's CPU emulation
 * (--backend cuda-emu: the module compiled as C++, CUDA threads as fibers) and is compared
 * with the fp64 oracle on check's shapes: the staged forward and the other forward variant (the fused
 * pass, or the sequential state pass seq: tests/fixtures/specs/emu_seq.yaml), both decode stages,
 * the backward; with an erase both forms of the chunk-to-chunk stages (wide and narrow). (The emulated
 * mma.sync, m16n8k8 tf32 and m16n8k16 bf16, follows PTX's documented fragment layout, not the kernels'
 * reading of it: a kernel that misreads the layout fails here as on a GPU. Its fibers run each thread to
 * the next barrier in turn, so a read of shared memory before the barrier that orders it after another
 * thread's write passes here: compute-sanitizer's racecheck on a GPU finds those.) Besides: the emulation's cache
 * folder and its tensor-core accumulation (tcase parts), and an erase's f32 edge gradients under the model of the
 * tensor cores' truncating sums (tcase cuda-emu-tc: bgrad's lo terms apart at chunk 64, MM_TF3P at chunk 16). */
#define _GNU_SOURCE /* memmem */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "build.h"
#include "chk.h"
#include "chk_emu.h"
#include "gen.h"

/* every kernel of the spec (dtype -1) or those of one dtype (0 f32, 1 bf16), solver iterations iters
 * (0: the spec's); must: text each module's source has, lines of it each on its own ('\n' between; NULL: none);
 * bwd_skip as chk_opts's (0: the backward rows too, 2: none) */
static void check_spec_opts(const char *rel, int dtype, int iters, const char *must, int bwd_skip, uint64_t seed) {
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

static void check_spec_with(const char *rel, int dtype, int iters, const char *must) {
  check_spec_opts(rel, dtype, iters, must, 0, 1234);
}
static void check_spec(const char *rel) { check_spec_with(rel, -1, 0, NULL); }

START_TEST(scalar_decay_every_stage_matches_oracle) { check_spec("examples/my_ssm.yaml"); }
END_TEST

START_TEST(delta_rule_every_stage_matches_oracle) { check_spec("tests/fixtures/specs/emu_delta.yaml"); }
END_TEST

/* per-key decays with an erase (the factored scores, the per-key loops of prep and the backward) */
START_TEST(per_key_delta_every_stage_matches_oracle) { check_spec("tests/fixtures/specs/bwd_diag_delta.yaml"); }
END_TEST

/* per-key decays with an erase at chunk 64: bgrad's pair sums off the diagonal (mm_pairs) between blocks that are not
 * neighbours, whose per-key factor is not 1 (with that factor taken as 1, 56 of its 262 rows fail) */
START_TEST(per_key_delta_chunk64_matches_oracle) { check_spec("tests/fixtures/specs/emu_diag_delta_c64.yaml"); }
END_TEST

/* per-key decays without an erase (the fused pass's per-key scores; its keep form stores kd from the key tile it
 * rescales; the staged forward keeps through prep_keep) */
START_TEST(per_key_decay_every_stage_matches_oracle) { check_spec("tests/fixtures/specs/bwd_sqrt_write.yaml"); }
END_TEST

/* a scalar decay whose other forward is the sequential state pass (seq) and then the out stage */
START_TEST(seq_pass_every_stage_matches_oracle) { check_spec("tests/fixtures/specs/emu_seq.yaml"); }
END_TEST

/* a Chebyshev solve readout (the solve stage, its decode stages, the implicit-differentiation backward) */
START_TEST(solve_every_stage_matches_oracle) { check_spec("tests/fixtures/specs/bwd_solve_key.yaml"); }
END_TEST

/* a solve at K = 48, V = 16, chunk 32, f32, 4 iterations (the emulation is slow): gsolve's D in row blocks (QR) where
 * it does not fit whole, a multiple of the products' 16-row tiles (24 before: dH0, dk, dg, dbeta off); decode_large's
 * packed H in U's place, smaller than H at V < (K + 1) / 2 (it overran: decode-large rows off) */
START_TEST(solve_d_row_blocks_match_oracle) {
  check_spec_with("tests/fixtures/specs/emu_solve_k48.yaml", 0, 4, "#define QR 16\n");
}
END_TEST

/* a scalar decay at K = 32, V = 80 (bf16, at check's own seed, 1): decode_large in blocks of 160 threads (8 row parts;
 * the halving rule gave 1, a block of 20); bgrad's u dZ_L' as split products in a one-product module (its T = 1 dg
 * 1.24e-2 with one tf32 product, 1.4e-3 split) */
START_TEST(scalar_decay_v80_matches_oracle) {
  check_spec_opts("tests/fixtures/specs/emu_scalar_v80.yaml", 1, 0,
                  "__launch_bounds__(160, 2) ssmc_emu_scalar_v80_\nmm_acc<NT, CH, BK, MM_TF3, false> acc_p2;", 0, 1);
}
END_TEST

/* the bf16 module of a solve at K = C = 64: its Chebyshev steps in bf16 m16n8k16 on hi + lo parts (forward
 * solve, backward xsolve and gsolve); 8 iterations, as the emulation is slow */
START_TEST(solve_bf16_products_match_oracle) { check_spec_with("tests/fixtures/specs/emu_solve_bf.yaml", 1, 8, NULL); }
END_TEST

/* the sm_90a path: the out stage's product through wgmma (emulated from its operands' descriptors as
 * PTX documents them), a bf16 module at chunk 64, with and without an erase */
START_TEST(wgmma_out_matches_oracle) {
  ck_assert_int_eq(setenv("SSMC_EMU_ARCH", "sm_90a", 1), 0);
  check_spec_with("tests/fixtures/specs/emu_wg.yaml", 1, 0, "#define SSMC_WG (SSMC_SM90 && 1)");
  check_spec_with("tests/fixtures/specs/emu_wg_scalar.yaml", 1, 0, "#define SSMC_WG (SSMC_SM90 && 1)");
  ck_assert_int_eq(unsetenv("SSMC_EMU_ARCH"), 0);
}
END_TEST

/* the sm_90a fused pass fused90 (every product on wgmma), in the fused slot of the emulated sm_90a:
 * check's fwd-fused90 rows; its bf16 form (one query term, no erase: a producer warpgroup and two consumers,
 * bf16 products of operands as loaded, K-major and MN-major) at V = 128 (a value half a consumer warpgroup),
 * V = 64 (a key half) and K = 48 (the copies' general path, an update of n 48), each with its split forward's
 * rows (fwd-split: fused90_seg, its own kernel, the scan over the segments, fused90 from each segment's start); its
 * tf32 form with two query terms; with an erase at V = 128 its bf16 form (HD: a producer warpgroup, the consumers'
 * chain with the values as rows, A operands from their accumulators, y transposed by stmatrix) after prep_fused's
 * sm_90a form (T alone, t_form: u = T (diag(w) v - diag(e e^b) K Z)), the state the register operand A of X' and y' at
 * K = 32, in shared memory at K = 96; and its keep form on the same body after prep_fused's keep form (T's rows at
 * WS_T; each chunk-start state and u stored from the consumers' accumulators: bwd-saved rows), the backward forming kd
 * and W' du from the keys (BS_KF) */
START_TEST(fused90_matches_oracle) {
  ck_assert_int_eq(setenv("SSMC_EMU_ARCH", "sm_90a", 1), 0);
  const char *bf = "_fused90(ssmc_fwd_args a, float *ws) { fused90b_body<false>(a, ws);", *tf = "_fused90(ssmc_fwd_args a, float *ws) { fused90_body<false>(a, ws);",
             *bd = "_fused90(ssmc_fwd_args a, float *ws) { fused90d_body<false>(a, ws);";
  check_spec_with("tests/fixtures/specs/emu_f90.yaml", 1, 0, bf);
  check_spec_with("tests/fixtures/specs/emu_f90_v64.yaml", 1, 0, bf);
  check_spec_with("tests/fixtures/specs/cuda_f90_k48.yaml", 1, 0, bf);
  check_spec_with("tests/fixtures/specs/emu_f90_q2.yaml", 1, 0, tf);
  /* (the bf16 form with an erase, and prep_fused's T form before it; at V = 64 the tf32 T form: the bgrad test's
   * emu_bgw_delta) */
  char delta[512];
  snprintf(delta, sizeof delta,
           "%s\nprep_body<MM_SPLIT, false, true, false, true>(a, ws);\nt_form<NT>(in, kc, b, ee,\n"
           "_fused90_keep(ssmc_fwd_args a, float *ws) { fused90d_body<false, false, true>(a, ws); }\n"
           "prep_body<MM_SPLIT, false, true, false, true, true>(a, ws);\n#define BT_KF ",
           bd);
  check_spec_with("tests/fixtures/specs/emu_f90_delta.yaml", 1, 0, delta);
  /* (its bgrad keeps the split products' lo terms apart, BGE: on the H200 its edges dg went 1.19e-2 -> 4.4e-3; the
   * emulation's model gives 9.7e-3 without, so only the module's form tells the two apart here; bench/, s42) */
  char k96[256];
  snprintf(k96, sizeof k96, "%s\nfloat e1[", bd);
  check_spec_with("tests/fixtures/specs/emu_f90_delta_k96.yaml", 1, 0, k96);
  ck_assert_int_eq(unsetenv("SSMC_EMU_ARCH"), 0);
}
END_TEST

/* psolve's sm_90a form psolve90 (one warpgroup a chunk, the Chebyshev rounds on wgmma with the iterate as the
 * register operand A), in psolve's place on the emulated sm_90a: the staged forward's rows (`fwd`: x against the
 * fp64 Chebyshev, y, the states) and the backward's after it, with its sm_90a forms (xsolve90, gcheb90, gsolve90,
 * sgrad90); K = C = 64, 8 iterations */
START_TEST(psolve90_matches_oracle) {
  ck_assert_int_eq(setenv("SSMC_EMU_ARCH", "sm_90a", 1), 0);
  check_spec_with("tests/fixtures/specs/emu_solve_bf.yaml", 1, 8, "_psolve90(ssmc_fwd_args a, float *ws) {");
  ck_assert_int_eq(unsetenv("SSMC_EMU_ARCH"), 0);
}
END_TEST

/* bgrad's value loop on wgmma (sm_90a, BGW) in its producer forms: a 512-thread block, the fourth warpgroup
 * loading the tiles under named barriers (the emulation's bar_wait / bar_arrive), four value steps. f32: through
 * its registers into the buffers (one register set of tiles in flight); bf16: the staged form (STG), its cp.async
 * into two stages that the consumers part into two buffers (four steps: each stage and buffer used twice). And in
 * the bf16 module (K = V = 64) fused90's bf16 form with an erase at V = 64 (HD: one consumer warpgroup and the
 * producer, the state the register operand A of X' and y') */
START_TEST(bgrad_wgmma_producer_matches_oracle) {
  ck_assert_int_eq(setenv("SSMC_EMU_ARCH", "sm_90a", 1), 0);
  check_spec_with("tests/fixtures/specs/emu_bgw_delta.yaml", 0, 0, "/* the producer */");
  check_spec_with("tests/fixtures/specs/emu_bgw_delta.yaml", 1, 0,
                  "/* the producer: cp.async only, NS - 1 steps in flight (and Z0 . dZ_L from the stages) */\n"
                  "_fused90(ssmc_fwd_args a, float *ws) { fused90d_body<false>(a, ws);");
  ck_assert_int_eq(unsetenv("SSMC_EMU_ARCH"), 0);
}
END_TEST

/* a spec's f32 module on the emulated sm_90a under the model of the tensor cores' accumulation (SSMC_EMU_TC=3),
 * its module holding must */
static void check_f32_under_model(const char *rel, const char *must) {
  ck_assert_int_eq(setenv("SSMC_EMU_ARCH", "sm_90a", 1), 0);
  ck_assert_int_eq(setenv("SSMC_EMU_TC", "3", 1), 0);
  check_spec_with(rel, 0, 0, must);
  ck_assert_int_eq(unsetenv("SSMC_EMU_TC"), 0);
  ck_assert_int_eq(unsetenv("SSMC_EMU_ARCH"), 0);
}

/* the edge batch's dg of an erase's f32 module (K = 32, V = 128) under the emulation's model of the tensor cores'
 * truncating accumulation (SSMC_EMU_TC=3: with one accumulator it gives 1.84e-2, the H200 2.0e-2; bench/, the s41
 * record): bgrad's lo terms in accumulators of their own (BGE) keep every row within its bound (7.4e-3) */
START_TEST(f32_bgrad_lo_apart_under_tensor_core_model) { check_f32_under_model("tests/fixtures/specs/emu_f90_delta.yaml", "float e1["); }
END_TEST

/* the split forward with an erase on the emulated sm_90a (fwd-split rows: prep_fused's T form, fused90_seg's three
 * blocks a segment at K = 128 V = 64 (the value rows, the transition's rows in two), fused90_scan, fused90_split),
 * without decay: each segment's transition carries its start state to its end, so a wrong one shows (varlen has
 * initial states and a sequence of three segments); and the backward after its kept form (bwd-saved-split rows:
 * prep_fused_keep again after the scan, fused90_split_keep writing each segment's chunk-start states and u), on
 * check's shapes but T = 4096; its bwd-narrow rows run bstate_n with dZ in registers (R16, K = 128) on the ring */
START_TEST(split_delta_matches_oracle) {
  ck_assert_int_eq(setenv("SSMC_EMU_ARCH", "sm_90a", 1), 0);
  check_spec_opts("tests/fixtures/specs/emu_split_delta.yaml", 1, 0,
                  "_fused90_split(ssmc_fwd_args a, float *ws) { fused90d_body<false, true>(a, ws); }\n"
                  "_fused90_seg(ssmc_fwd_args a, float *ws) { fused90d_body<true>(a, ws); }\n_fused90_scan(\n"
                  "_fused90_split_keep(ssmc_fwd_args a, float *ws) { fused90d_body<false, true, true>(a, ws); }\n"
                  "SEPT = 1, SEP16 = 1, NB16 = 16, RING = 1, R16 = 1",
                  1, 1234);
  ck_assert_int_eq(unsetenv("SSMC_EMU_ARCH"), 0);
}
END_TEST

/* the edge batch's dg of an erase through many chunks (chunk 16, K = 32, V = 128, f32) under the same model: the
 * backward's split products accumulated in place gave 2.2e-2 (the H200 2.85e-2 at K = 128); on sm_90 they are
 * MM_TF3P (each k step's products summed from zero, then added): 1.9e-3 */
START_TEST(split_products_promoted_under_tensor_core_model) {
  check_f32_under_model("tests/fixtures/specs/emu_delta_c16.yaml", "#define MM_BWD (SSMC_SM90 ? MM_TF3P : MM_TF3)");
}
END_TEST

/* a fresh machine has no ~/.cache: the emulation's cache folder is made with its parents */
START_TEST(cache_folder_made_with_parents) {
  char base[] = "/tmp/ssmc_t_emu_XXXXXX", dir[256], err[512];
  ck_assert_ptr_nonnull(mkdtemp(base));
  snprintf(dir, sizeof dir, "%s/no/such/ssmc", base);
  chk_emu *emu = chk_emu_open(dir, err, sizeof err);
  ck_assert_msg(emu != NULL, "%s", err);
  chk_emu_close(emu);
  ck_assert_int_eq(access(dir, W_OK), 0);
}
END_TEST

/* The emulation's tensor-core accumulation (emu_cuda.h's emu_tc_acc), compiled as the emulation compiles a module:
 * plain, the products' sum added to c rounded to nearest; modelled (SSMC_EMU_TC = E), c and the products aligned to
 * the largest exponent with E bits below fp32's significand kept, the sum truncated toward zero. Returns the
 * program's exit status (0: every case as stated). */
extern const char ssmc_emu_emu_cuda[], ssmc_hdr_ssmc_kernel[];
static int tc_program(const char *defs) {
  static const char prog[] =
      "#include <stdio.h>\n"
      "static int bad;\n"
      "static void eq(float c, float x0, int n, float want, const char *what) {\n"
      "  float x[8];\n"
      "  for (int i = 0; i < 8; i++) x[i] = x0;\n"
      "  const float got = emu_tc_acc(c, x, n);\n"
      "  if (got != want) bad = 1, printf(\"%s: %a, want %a\\n\", what, got, want);\n"
      "}\n"
      "int main() {\n"
      "  const float u = 0x1p-23f;\n" /* an ulp of 1 */
      "#ifndef SSMC_EMU_TC\n"
      "  eq(1.0f, 0x1.8p-24f, 1, 1.0f + u, \"nearest\");\n"
      "  eq(-1.0f, -0x1.8p-24f, 1, -1.0f - u, \"nearest, negative\");\n"
      "#else\n"
      "  eq(1.0f, 0x1.8p-24f, 1, 1.0f, \"toward zero\");\n"
      "  eq(-1.0f, -0x1.8p-24f, 1, -1.0f, \"toward zero, negative\");\n"
      "#if SSMC_EMU_TC >= 3\n"
      "  eq(1.0f + u, -0x1p-26f, 1, 1.0f, \"toward zero, below\");\n"
      "  eq(1.0f, 0x1p-26f, 8, 1.0f + u, \"eight terms at the last bit kept\");\n"
      "#else\n"
      "  eq(1.0f, 0x1p-26f, 8, 1.0f, \"eight terms below the last bit kept\");\n"
      "#endif\n"
      "#endif\n"
      "  return bad;\n"
      "}\n";
  char dir[] = "/tmp/ssmc_t_emu_XXXXXX", path[256], cmd[1024];
  ck_assert_ptr_nonnull(mkdtemp(dir));
  const char *names[] = {"emu_cuda.h", "ssmc_kernel.h", "t.cpp"}, *texts[] = {ssmc_emu_emu_cuda, ssmc_hdr_ssmc_kernel, prog};
  for (int i = 0; i < 3; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(texts[i], f);
    fclose(f);
  }
  snprintf(cmd, sizeof cmd, "cd %s && c++ -std=c++17 -O1 -DSSMC_EMU %s -include emu_cuda.h -I . t.cpp -o t && ./t", dir, defs);
  const int rc = system(cmd);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  ck_assert_int_eq(system(cmd), 0);
  return rc;
}
START_TEST(tensor_core_accumulation_plain_and_modelled) {
  ck_assert_int_eq(tc_program(""), 0);
  ck_assert_int_eq(tc_program("-DSSMC_EMU_TC=3"), 0);
  ck_assert_int_eq(tc_program("-DSSMC_EMU_TC=0"), 0);
}
END_TEST

Suite *emu_suite(void) {
  Suite *s = suite_create("emu");
  TCase *parts = tcase_create("parts");
  tcase_set_timeout(parts, 120);
  tcase_add_test(parts, cache_folder_made_with_parents);
  tcase_add_test(parts, tensor_core_accumulation_plain_and_modelled);
  suite_add_tcase(s, parts);
  TCase *tc = tcase_create("cuda-emu");
  tcase_set_timeout(tc, 900);
  tcase_add_test(tc, scalar_decay_every_stage_matches_oracle);
  tcase_add_test(tc, delta_rule_every_stage_matches_oracle);
  tcase_add_test(tc, per_key_delta_every_stage_matches_oracle);
  tcase_add_test(tc, per_key_delta_chunk64_matches_oracle);
  tcase_add_test(tc, per_key_decay_every_stage_matches_oracle);
  tcase_add_test(tc, solve_every_stage_matches_oracle);
  tcase_add_test(tc, solve_d_row_blocks_match_oracle);
  tcase_add_test(tc, seq_pass_every_stage_matches_oracle);
  tcase_add_test(tc, solve_bf16_products_match_oracle);
  tcase_add_test(tc, scalar_decay_v80_matches_oracle);
  tcase_add_test(tc, split_delta_matches_oracle);
  tcase_add_test(tc, psolve90_matches_oracle);
  tcase_add_test(tc, wgmma_out_matches_oracle);
  tcase_add_test(tc, fused90_matches_oracle);
  tcase_add_test(tc, bgrad_wgmma_producer_matches_oracle);
  suite_add_tcase(s, tc);
  TCase *model = tcase_create("cuda-emu-tc"); /* the tensor cores' accumulation modelled */
  tcase_set_timeout(model, 900);
  tcase_add_test(model, f32_bgrad_lo_apart_under_tensor_core_model);
  tcase_add_test(model, split_products_promoted_under_tensor_core_model);
  suite_add_tcase(s, model);
  return s;
}
