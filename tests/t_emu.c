/* tests: the CUDA kernels on a machine without a GPU, their sm_80 paths (the sm_90a ones: t_emu90.c). Every CUDA
 * stage of user specs — a scalar decay (examples/my_ssm.yaml), a gated delta rule (tests/fixtures/specs/emu_delta.yaml:
 * the erase class, with prep, state and the WY/UT inverse), per-key decays with an erase (bwd_diag_delta.yaml) and
 * without one (bwd_sqrt_write.yaml) and a Chebyshev solve readout (bwd_solve_key.yaml; its bf16 form in m16n8k16
 * products at K = C = 64: emu_solve_bf.yaml; gsolve's D in row blocks and decode_large's H in U's place:
 * emu_solve_k48.yaml) — runs through check's CPU emulation (--backend cuda-emu: the module compiled as C++, CUDA
 * threads as fibers; emu_check.c) and is compared with the fp64 oracle on check's shapes: the staged forward and the
 * other forward variant (the fused pass, or the sequential state pass seq: tests/fixtures/specs/emu_seq.yaml), both
 * decode stages, the backward; with an erase both forms of the chunk-to-chunk stages (wide and narrow). (The emulated
 * mma.sync, m16n8k8 tf32 and m16n8k16 bf16, follows PTX's documented fragment layout, not the kernels' reading of it: a
 * kernel that misreads the layout fails here as on a GPU. Its fibers run each thread to the next barrier in turn, so a
 * read of shared memory before the barrier that orders it after another thread's write passes here:
 * compute-sanitizer's racecheck on a GPU finds those.) Besides: the emulation's cache folder and its tensor-core
 * accumulation (tcase parts). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "chk_emu.h"
#include "emu_check.h"

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
  suite_add_tcase(s, tc);
  return s;
}

