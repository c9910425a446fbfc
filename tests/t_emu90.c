/* tests: the CUDA kernels' sm_90a paths on a machine without a GPU (SSMC_EMU_ARCH=sm_90a: wgmma emulated from its
 * operands' descriptors as PTX documents them, named barriers, cp.async), each spec's kernels through check's CPU
 * emulation against the fp64 oracle as t_emu.c's (emu_check.c): the out stage on wgmma (emu_wg.yaml,
 * emu_wg_scalar.yaml), the fused pass fused90 (emu_f90.yaml, emu_f90_v64.yaml, cuda_f90_k48.yaml, emu_f90_q2.yaml,
 * emu_f90_delta.yaml, emu_f90_delta_k96.yaml), psolve90, bgrad's producer forms (emu_bgw_delta.yaml), the split
 * forward (emu_split_delta.yaml); and an erase's f32 edge gradients under the model of the tensor cores' truncating
 * sums (tcase cuda-emu-tc: bgrad's lo terms apart at chunk 64, MM_TF3P at chunk 16). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include "emu_check.h"

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

/* bgrad's value loop on wgmma (sm_90a, BGW) in its producer form: a 512-thread block, the fourth warpgroup
 * loading the tiles under named barriers (the emulation's bar_wait / bar_arrive), four value steps: the staged form
 * (STG), its cp.async into stages that the consumers part into two buffers (each stage and buffer used more than
 * once), f32 and bf16 (f32 through the producer's registers into the buffers until bgrad's result tiles took a
 * pitch of 72 floats, s60: the stages fit since, at every C = 64 and 128 shape swept). And in the bf16 module
 * (K = V = 64) fused90's bf16 form with an erase at V = 64 (HD: one consumer warpgroup and the producer, the state
 * the register operand A of X' and y') */
START_TEST(bgrad_wgmma_producer_matches_oracle) {
  ck_assert_int_eq(setenv("SSMC_EMU_ARCH", "sm_90a", 1), 0);
  check_spec_with("tests/fixtures/specs/emu_bgw_delta.yaml", 0, 0,
                  "/* the producer: cp.async only, NS - 1 steps in flight (and Z0 . dZ_L from the stages) */");
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


Suite *emu90_suite(void) {
  Suite *s = suite_create("emu90");
  TCase *tc = tcase_create("cuda-emu-sm90a");
  tcase_set_timeout(tc, 900);
  tcase_add_test(tc, wgmma_out_matches_oracle);
  tcase_add_test(tc, fused90_matches_oracle);
  tcase_add_test(tc, psolve90_matches_oracle);
  tcase_add_test(tc, bgrad_wgmma_producer_matches_oracle);
  tcase_add_test(tc, split_delta_matches_oracle);
  suite_add_tcase(s, tc);
  TCase *model = tcase_create("cuda-emu-tc"); /* the tensor cores' accumulation modelled */
  tcase_set_timeout(model, 900);
  tcase_add_test(model, f32_bgrad_lo_apart_under_tensor_core_model);
  tcase_add_test(model, split_products_promoted_under_tensor_core_model);
  suite_add_tcase(s, model);
  return s;
}
