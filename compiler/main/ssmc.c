/* driver stage: the ssmc command line.
 * Exit codes: 0 success, 1 a check failed, 2 bad input or usage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bench.h"
#include "bench_cuda.h"
#include "bwdb.h"
#include "rt_isa.h"
#include "build.h"
#include "chk.h"
#include "chk_cuda.h"
#include "chk_emu.h"
#include "cuc.h"
#include "gen.h"
#include "jit.h"
#include "rt_exec.h"

int cmd_run(int argc, char **argv);   /* ssmc_run.c */
int cmd_model(int argc, char **argv); /* ssmc_run.c */

static void usage(FILE *o) {
  fprintf(o,
          "usage: ssmc <command> [options]\n"
          "  gen [SPEC...] [-o DIR]       emit C kernels; with no SPEC, the built-in families\n"
          "                               (dsl/families/*.yaml) into generated/\n"
          "  gen --check                  regenerate the built-ins in memory and diff with generated/\n"
          "  check SPEC... [--seed N] [--quick] [--iters R] [--jit] [--backend c|cuda|cuda-emu] [--no-bwd]\n"
          "                               compare every kernel (forward, decode, backward gradients)\n"
          "                               with the fp64 oracle (CPU or GPU)\n"
          "  bench SPEC... [--B N] [--T N] [--H N] [--threads N] [--reps N] [--dtype f32|bf16]\n"
          "        [--backend c|cuda] [--decode B1,B2,...] [--rec] [--once] [--no-bwd] [--rows R1,R2,...]\n"
          "                               throughput: CPU forward (B sequences) and decode (the first\n"
          "                               --decode batch, default 64); --rec adds the token-by-token\n"
          "                               form, --once runs one forward (callgrind), then forward +\n"
          "                               backward; GPU chunkwise forward, backward, forward + backward\n"
          "                               (--no-bwd: without) and decode against the\n"
          "                               measured copy and tensor-core ceilings; --rows runs only the\n"
          "                               GPU rows named (fwd, fwd-<variant>, bwd, bwd-narrow, fwd+bwd,\n"
          "                               bwd-saved, fwd+bwd-saved, decode)\n"
          "  compile [SPEC...] [--arch sm_80|sm_90a|all]\n"
          "                               NVRTC-compile every CUDA kernel; registers, shared memory,\n"
          "                               local memory and spills per stage (no GPU needed)\n"
          "  run MODEL (--prompt TEXT | --tokens IDS | --batch FILE) [--max-new N] [--temperature T\n"
          "      --top-p P --top-k K --seed S] [--threads N] [--chunked-prefill N]\n"
          "                               load a Hybrid model folder and generate on the CPU\n"
          "  model show MODEL             the normalized per-layer list of a model folder\n"
          "common options: --root DIR (repository root, default .), --templates DIR\n"
          "  --help, --version\n");
}

typedef struct {
  const char *specs[64];
  int nspecs;
  const char *out, *root, *templates, *arch, *decode, *rows; /* rows: bench --rows (NULL: every row) */
  int check, quick, jit, iters, B, T, H, threads, reps, cuda, emu, dtype; /* dtype: -1 any, else ssmc_dtype */
  int no_bwd;
  int rec, once, decode_set; /* CPU bench: the recurrent column, one forward only, --decode given */
  unsigned long long seed;
} opts;

static int parse(int argc, char **argv, opts *o) {
  memset(o, 0, sizeof *o);
  o->root = ".";
  o->seed = 1;
  o->B = 1;
  o->T = 4096;
  o->dtype = -1;
  o->decode = "1,512";
  o->H = 4;
  o->reps = 5;
  o->threads = rt_threads();
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    static const char *const valued[] = {"-o", "--root", "--templates", "--seed", "--iters", "--T", "--H",
                                         "--threads", "--reps", "--backend", "--arch", "--B", "--dtype",
                                         "--decode", "--rows"};
    for (size_t j = 0; j < sizeof valued / sizeof *valued; j++)
      if (!strcmp(a, valued[j]) && !v) { fprintf(stderr, "ssmc: error: %s needs a value\n", a); return 2; }
#define VAL(name) (!strcmp(a, name))
    if (!strcmp(a, "--check")) o->check = 1;
    else if (!strcmp(a, "--quick")) o->quick = 1;
    else if (!strcmp(a, "--no-bwd")) o->no_bwd = 1;
    else if (!strcmp(a, "--jit")) o->jit = 1;
    else if (VAL("-o")) { o->out = v; i++; }
    else if (VAL("--root")) { o->root = v; i++; }
    else if (VAL("--templates")) { o->templates = v; i++; }
    else if (VAL("--seed")) { o->seed = strtoull(v, NULL, 10); i++; }
    else if (VAL("--iters")) { o->iters = atoi(v); i++; }
    else if (VAL("--B")) { o->B = atoi(v); i++; }
    else if (VAL("--T")) { o->T = atoi(v); i++; }
    else if (VAL("--decode")) { o->decode = v; o->decode_set = 1; i++; }
    else if (VAL("--rows")) {
      char err[200];
      if (bench_rows_check(v, err, sizeof err)) { fprintf(stderr, "ssmc: error: %s\n", err); return 2; }
      o->rows = v;
      i++;
    }
    else if (!strcmp(argv[i], "--rec")) o->rec = 1;
    else if (!strcmp(argv[i], "--once")) o->once = 1;
    else if (VAL("--dtype")) {
      if (strcmp(v, "f32") && strcmp(v, "bf16")) { fprintf(stderr, "ssmc: error: --dtype takes f32 or bf16\n"); return 2; }
      o->dtype = !strcmp(v, "bf16") ? SSMC_BF16 : SSMC_F32;
      i++;
    }
    else if (VAL("--H")) { o->H = atoi(v); i++; }
    else if (VAL("--threads")) { o->threads = atoi(v); i++; }
    else if (VAL("--reps")) { o->reps = atoi(v); i++; }
    else if (VAL("--arch")) { o->arch = v; i++; }
    else if (VAL("--backend")) {
      if (strcmp(v, "c") && strcmp(v, "cuda") && strcmp(v, "cuda-emu")) {
        fprintf(stderr, "ssmc: error: unknown backend '%s' (backends: c, cuda, cuda-emu)\n", v);
        return 2;
      }
      o->cuda = !strcmp(v, "cuda");
      o->emu = !strcmp(v, "cuda-emu");
      i++;
    } else if (a[0] == '-') {
      fprintf(stderr, "ssmc: error: unknown option '%s'\n", a);
      return 2;
    } else if (o->nspecs < 64) o->specs[o->nspecs++] = a;
    else { fprintf(stderr, "ssmc: error: too many specs\n"); return 2; }
#undef VAL
  }
  if (o->B < 1 || o->T < 1 || o->H < 1 || o->threads < 1 || o->reps < 1) {
    fprintf(stderr, "ssmc: error: --B, --T, --H, --threads and --reps must be positive\n");
    return 2;
  }
  if (o->templates) emit_set_template_dir(o->templates);
  return 0;
}

static int load_specs(gen_set *g, const opts *o) {
  diag d = {0};
  int rc = o->nspecs ? 0 : gen_add_builtins(g, o->root, &d);
  for (int i = 0; i < o->nspecs && !rc; i++) rc = gen_add(g, o->specs[i], &d);
  if (rc) diag_print(&d, stderr);
  return rc ? 2 : 0;
}

static int cmd_gen(const opts *o) {
  gen_set g;
  gen_init(&g);
  int rc = load_specs(&g, o);
  if (!rc) {
    gen_file *f;
    int n = gen_files(&g, &f);
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/generated", o->root);
    if (o->check) {
      int bad = gen_diff(f, n, dir, stdout);
      if (bad) fprintf(stderr, "ssmc: generated/ differs from the specs and templates in %d file(s); run ssmc gen\n", bad);
      else printf("generated/ is up to date (%d files)\n", n);
      rc = bad ? 1 : 0;
    } else {
      diag d = {0};
      if (gen_write(f, n, o->out ? o->out : dir, &d)) { diag_print(&d, stderr); rc = 2; }
      else printf("wrote %d files to %s\n", n, o->out ? o->out : dir);
    }
    gen_files_free(f, n);
  }
  gen_free(&g);
  return rc;
}

static int cmd_check(const opts *o) {
  gen_set g;
  gen_init(&g);
  int rc = load_specs(&g, o), failed = 0, rows = 0;
  chk_opts co = {o->seed, !o->quick, o->threads, o->iters, NULL, o->no_bwd ? 2 : 0};
  chk_cuda *gpu = NULL;
  chk_emu *emu = NULL;
  if (!rc && o->emu) {
    char err[1024];
    if (!(emu = chk_emu_open(build_cache_dir(), err, sizeof err))) {
      fprintf(stderr, "ssmc: error: --backend cuda-emu: %s\n", err);
      rc = 2;
    } else {
      printf("# CUDA modules emulated on the CPU (every CUDA thread a fiber; what they compute, not their speed)\n");
      co.be = chk_emu_backend(emu);
    }
  }
  if (!rc && o->cuda) {
    char err[1024];
    if (!(gpu = chk_cuda_open(build_cache_dir(), err, sizeof err))) {
      fprintf(stderr, "ssmc: error: --backend cuda: %s\n", err);
      rc = 2;
    } else {
      const rt_cuda_info *di = rt_cuda_device(chk_cuda_device(gpu));
      printf("# device: %s, %d SMs, %s, %s\n", di->name, di->sm_count, di->arch, rt_nvrtc_version());
      co.be = chk_cuda_backend(gpu);
    }
  }
  if (!rc) printf("%-44s %-14s %-22s %10s %10s %7s  %s\n", "kernel", "shape", "quantity", "max_abs", "rel_l2", "bound", "result");
  for (int i = 0; i < g.n && !rc; i++)
    for (int j = 0; j < g.u[i]->nk && !rc; j++) {
      build_kernel bk;
      diag d = {0};
      if (build_get(&g.u[i]->k[j], &g.u[i]->fam, o->jit, build_cache_dir(), &bk, &d)) { diag_print(&d, stderr); rc = 2; break; }
      char err[4096];
      if (gpu && !chk_cuda_module(gpu, bk.k, NULL, err, sizeof err)) {
        /* a module this device cannot load (a stage over its shared memory): no row could run */
        fprintf(stderr, "%s: error: %s cannot run on this device: %s\n", g.u[i]->file->name, bk.k->name, err);
        build_release(&bk);
        rc = 2;
        break;
      }
      printf("# %s (%s%s%s) %s\n", bk.k->name, bk.builtin ? "built-in" : "compiled in-process",
             bk.from_cache ? ", from cache" : "", gpu ? ", CUDA via NVRTC" : emu ? ", CUDA emulated" : "", g.u[i]->fam.summary);
      chk_result r;
      failed += chk_kernel(&g.u[i]->fam, bk.k, &co, stdout, &r);
      rows += r.rows;
      build_release(&bk);
    }
  if (!rc) printf("check: %d of %d comparisons passed%s\n", rows - failed, rows, gpu ? " (cuda)" : emu ? " (cuda-emu)" : "");
  chk_cuda_close(gpu);
  chk_emu_close(emu);
  gen_free(&g);
  return rc ? rc : failed ? 1 : 0;
}

/* One row of the GPU bench: time, rates, and the fraction of the floor reached. */
static void gpu_row(const char *name, const char *what, const char *shape, const bench_cuda_res *r, const bench_ceil *cl) {
  double floor_ms = 1e3 * (r->flops / (cl->mma_bf16_tflops * 1e12) > r->bytes / (cl->copy_gbps * 1e9)
                               ? r->flops / (cl->mma_bf16_tflops * 1e12)
                               : r->bytes / (cl->copy_gbps * 1e9));
  printf("%-44s %-7s %-18s %10.4f ms %8.2f TFLOP/s %7.0f GB/s %6.1f%% of floor (%.4f ms)", name, what, shape, r->ms,
         r->flops / (r->ms * 1e9), r->bytes / (r->ms * 1e6), 100 * floor_ms / r->ms, floor_ms);
  if (r->host_us > 0) printf("  host-incl %.1f us", r->host_us);
  printf("  [%d input copies]\n", r->copies);
  fflush(stdout); /* a row at a time: a run cut short (a timeout) keeps the rows it timed */
}

static int bench_gpu(gen_set *g, const opts *o) {
  char err[1024];
  chk_cuda *gpu = chk_cuda_open(build_cache_dir(), err, sizeof err);
  if (!gpu) { fprintf(stderr, "ssmc: error: --backend cuda: %s\n", err); return 2; }
  rt_cuda *c = chk_cuda_device(gpu);
  const rt_cuda_info *di = rt_cuda_device(c);
  bench_ceil cl;
  int rc = 0;
  if (bench_cuda_ceilings(c, build_cache_dir(), &cl, err, sizeof err)) { fprintf(stderr, "ssmc: error: %s\n", err); rc = 1; }
  else
    printf("# device: %s, %d SMs, %s, L2 %d MiB, %s\n# ceilings (measured): copy %.0f GB/s (read + write), bf16 mma.sync "
           "%.1f TFLOP/s; an empty kernel: %.1f us (events), %.1f us host-incl (launch + wait from C)\n"
           "# fwd: B=%d T=%d H=%d, initial and final states; decode batches %s; median of %d (CUDA events)\n",
           di->name, di->sm_count, di->arch, di->l2_bytes >> 20, rt_nvrtc_version(), cl.copy_gbps, cl.mma_bf16_tflops,
           cl.launch_event_us, cl.launch_host_us, o->B, o->T, o->H, o->decode, o->reps);
  for (int i = 0; i < g->n && !rc; i++)
    for (int j = 0; j < g->u[i]->nk && !rc; j++) {
      if (o->dtype >= 0 && g->u[i]->k[j].dtype != o->dtype) continue;
      build_kernel bk;
      diag d = {0};
      if (build_get(&g->u[i]->k[j], &g->u[i]->fam, o->jit, build_cache_dir(), &bk, &d)) { diag_print(&d, stderr); rc = 2; break; }
      const cls_family *f = &g->u[i]->fam;
      rt_cuda_mod *m = chk_cuda_module(gpu, bk.k, NULL, err, sizeof err);
      bench_cuda_res r;
      char shape[64];
      if (!m) { fprintf(stderr, "ssmc: error: %s\n", err); rc = 1; }
      /* every forward variant of the module; '*' marks the one the runtime picks for this batch; the
       * fwd+bwd row runs the pick */
      const ssmc_fwd_args fa = {.n_seqs = o->B, .h_qk = o->H, .h_v = o->H, .t_len = o->T};
      const int nfv = m ? rt_cuda_fwd_variants(m) : 0, fpick = m ? rt_cuda_fwd_pick(c, m, &fa) : 0;
      for (int v = 0; v < nfv && !rc; v++) {
        const int variant = nfv > 1 ? rt_cuda_fwd_variant_at(m, v) : RT_FWD_AUTO;
        char lab[48];
        const char *label = chk_fwd_label(bk.k, rt_cuda_device(c)->cc_major, v, lab, sizeof lab);
        if (!bench_row_wanted(o->rows, label)) continue;
        if (bench_cuda_fwd(c, m, f, bk.k, o->B, o->T, o->H, o->reps, o->iters, variant, &r, err, sizeof err)) {
          fprintf(stderr, "ssmc: error: %s: %s\n", bk.k->name, err);
          rc = 1;
        } else {
          snprintf(shape, sizeof shape, "B%d T%d H%d%s", o->B, o->T, o->H, nfv > 1 && variant == fpick ? "*" : "");
          gpu_row(bk.k->name, label, shape, &r, &cl);
        }
      }
      if (!rc) {
        snprintf(shape, sizeof shape, "B%d T%d H%d", o->B, o->T, o->H);
        bench_cuda_res rb;
        if (!bk.k->cuda->n_bwd) printf("%-44s %-7s %-18s none on CUDA (the module declares no backward stages)\n", bk.k->name, "bwd", shape);
        else if (!o->no_bwd) {
          /* every backward variant ('*': the pick); the fwd+bwd row runs the picks */
          const int nbv = rt_cuda_bwd_variants(m), bpick = rt_cuda_bwd_pick(c, m, o->B, o->H);
          const int both = bench_row_wanted(o->rows, "fwd+bwd");
          for (int v = 0; v < nbv && !rc; v++) {
            const int pick = nbv == 1 || v == bpick;
            const char *label = v ? "bwd-narrow" : "bwd";
            if (!bench_row_wanted(o->rows, label) && !(pick && both)) continue;
            if (bench_cuda_bwd(c, m, f, bk.k, o->B, o->T, o->H, o->reps, o->iters, nbv > 1 ? v : RT_BWD_AUTO, 0, &rb,
                               pick && both ? &r : NULL, err, sizeof err)) {
              fprintf(stderr, "ssmc: error: %s: %s\n", bk.k->name, err);
              rc = 1;
            } else if (bench_row_wanted(o->rows, label)) {
              char bs[72];
              snprintf(bs, sizeof bs, "%s%s", shape, nbv > 1 && pick ? "*" : "");
              gpu_row(bk.k->name, label, bs, &rb, &cl);
            }
          }
          if (!rc && both) gpu_row(bk.k->name, "fwd+bwd", shape, &r, &cl);
          /* the forward kept for the backward (its workspace held until then): the runtime's picks */
          const int sv = bench_row_wanted(o->rows, "bwd-saved"), sboth = bench_row_wanted(o->rows, "fwd+bwd-saved");
          if (!rc && bk.k->cuda->bwd_saved && (sv || sboth)) {
            if (bench_cuda_bwd(c, m, f, bk.k, o->B, o->T, o->H, o->reps, o->iters, RT_BWD_AUTO, 1, &rb, sboth ? &r : NULL,
                               err, sizeof err)) {
              fprintf(stderr, "ssmc: error: %s: %s\n", bk.k->name, err);
              rc = 1;
            } else {
              if (sv) gpu_row(bk.k->name, "bwd-saved", shape, &rb, &cl);
              if (sboth) gpu_row(bk.k->name, "fwd+bwd-saved", shape, &r, &cl);
            }
          }
        }
      }
      for (const char *p = bench_row_wanted(o->rows, "decode") ? o->decode : ""; !rc && *p;) {
        int nb = (int)strtol(p, (char **)&p, 10);
        if (*p == ',') p++;
        if (nb < 1) { fprintf(stderr, "ssmc: error: --decode takes positive batch sizes, e.g. 1,64,512\n"); rc = 2; break; }
        /* every decode variant of the module; '*' marks the one the runtime picks for this batch */
        const int nv = rt_cuda_decode_variants(m), pick = rt_cuda_decode_pick(c, m, nb, o->H);
        for (int v = 0; v < nv && !rc; v++) {
          if (bench_cuda_decode(c, m, f, bk.k, nb, o->H, o->reps < 50 ? 50 : o->reps, o->iters,
                                nv > 1 ? v : RT_DECODE_AUTO, &r, err, sizeof err)) {
            fprintf(stderr, "ssmc: error: %s: %s\n", bk.k->name, err);
            rc = 1;
          } else {
            if (nv > 1) snprintf(shape, sizeof shape, "B%d H%d %s%s", nb, o->H, v ? "large" : "small", v == pick ? "*" : "");
            else snprintf(shape, sizeof shape, "B%d H%d", nb, o->H);
            gpu_row(bk.k->name, "decode", shape, &r, &cl);
          }
        }
      }
      build_release(&bk);
      fflush(stdout);
    }
  chk_cuda_close(gpu);
  return rc;
}

static int cmd_bench(const opts *o) {
  gen_set g;
  gen_init(&g);
  int rc = load_specs(&g, o);
  if (!rc && o->emu) {
    fprintf(stderr, "ssmc: error: bench times a GPU (--backend cuda); cuda-emu is for check\n");
    rc = 2;
  }
  if (!rc && o->rows && !o->cuda) {
    fprintf(stderr, "ssmc: error: --rows picks rows of the GPU bench (--backend cuda)\n");
    rc = 2;
  }
  if (!rc && o->cuda) rc = bench_gpu(&g, o);
  int dec = o->once ? 0 : o->decode_set ? atoi(o->decode) : 64; /* CPU decode batch */
  if (!rc && !o->cuda && o->B > 8) {
    fprintf(stderr, "ssmc: error: the CPU bench runs at most 8 sequences per forward (--B)\n");
    rc = 2;
  } else if (!rc && !o->cuda)
    printf("# ssmc bench: B=%d T=%d H=%d threads=%d, decode B=%d, lowest median of clean blocks of %d; isa %s;"
           " FLOPs counted in the recurrent form\n", o->B, o->T, o->H, o->threads, dec, o->reps,
           ssmc_cpu_isa_name(ssmc_cpu_isa()));
  for (int i = 0; i < g.n && !rc && !o->cuda; i++)
    for (int j = 0; j < g.u[i]->nk && !rc; j++) {
      if (o->dtype >= 0 && g.u[i]->k[j].dtype != o->dtype) continue;
      build_kernel bk;
      diag d = {0};
      if (build_get(&g.u[i]->k[j], &g.u[i]->fam, o->jit, build_cache_dir(), &bk, &d)) { diag_print(&d, stderr); rc = 2; break; }
      bench_opts bo = {o->T, o->H, o->B, o->threads, o->reps, o->iters, dec, o->rec, o->once};
      bench_result r;
      bench_kernel(&g.u[i]->fam, bk.k, &bo, &r);
      double tok = (double)o->T * o->B;
      double gf = r.flops_per_token * tok * o->H;
      printf("%-44s fwd %8.2f ms %8.0f tok/s %6.1f GFLOP/s%s", bk.k->name, r.fwd_ms, tok / r.fwd_ms * 1e3,
             gf / r.fwd_ms * 1e-6, o->once ? " (one call)" : r.fwd_clean ? "" : " CONTENDED");
      if (dec > 0)
        printf(" | decode %7.3f ms %8.0f tok/s %6.1f GFLOP/s %6.1f GB/s state%s", r.dec_ms, dec / r.dec_ms * 1e3,
               r.flops_per_token * dec * o->H / r.dec_ms * 1e-6, r.dec_state_bytes / r.dec_ms * 1e-6,
               r.dec_clean ? "" : " CONTENDED");
      if (o->rec)
        printf(" | recurrent %8.2f ms %6.1f GFLOP/s x%.2f", r.rec_ms, gf / r.rec_ms * 1e-6, r.rec_ms / r.fwd_ms);
      printf("\n");
      bwdb_result br; /* the backward (compiler/bwdb.c) */
      if (!o->no_bwd && !o->once && bwdb_kernel(&g.u[i]->fam, bk.k, &bo, &br) == 0)
        printf("%-44s bwd %8.2f ms%s | fwd+bwd %8.2f ms | bwd/fwd x%.2f (target <= 3)\n", bk.k->name, br.bwd_ms,
               br.bwd_clean ? "" : " CONTENDED", r.fwd_ms + br.bwd_ms, br.bwd_ms / r.fwd_ms);
      build_release(&bk);
    }
  gen_free(&g);
  return rc;
}

static int cmd_compile(const opts *o) {
  gen_set g;
  gen_init(&g);
  int rc = load_specs(&g, o);
  const char *archs[2] = {"sm_80", "sm_90a"};
  int na = 2;
  if (o->arch && strcmp(o->arch, "all")) { archs[0] = o->arch; na = 1; }
  if (o->arch && strncmp(o->arch, "sm_", 3) && strcmp(o->arch, "all")) {
    fprintf(stderr, "ssmc: error: --arch takes sm_80, sm_90a, ... or all\n");
    rc = 2;
  }
  if (!rc) {
    char err[512];
    if (rt_nvrtc_open(err, sizeof err)) { fprintf(stderr, "ssmc: error: %s\n", err); rc = 2; }
    else printf("# %s; per stage: registers, shared memory, local memory (stack frame), spills\n", rt_nvrtc_version());
  }
  for (int i = 0; i < g.n && !rc; i++)
    for (int j = 0; j < g.u[i]->nk && !rc; j++)
      for (int a = 0; a < na && !rc; a++) {
        diag d = {0};
        if (cuc_compile(&g.u[i]->k[j], archs[a], build_cache_dir(), stdout, &d)) { diag_print(&d, stderr); rc = 2; }
      }
  gen_free(&g);
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 2) { usage(stderr); return 2; }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) { usage(stdout); return 0; }
  if (!strcmp(cmd, "--version")) { printf("ssmc %s (in-process C compiler: %s)\n", SSMC_VERSION, jit_version()); return 0; }
  if (!strcmp(cmd, "run")) return cmd_run(argc, argv);
  if (!strcmp(cmd, "model")) return cmd_model(argc, argv);
  opts o;
  if (strcmp(cmd, "gen") && strcmp(cmd, "check") && strcmp(cmd, "bench") && strcmp(cmd, "compile")) {
    fprintf(stderr, "ssmc: error: unknown command '%s'\n", cmd);
    usage(stderr);
    return 2;
  }
  for (int i = 2; i < argc; i++) /* `ssmc check --help` and the like: the usage, not an unknown option */
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) { usage(stdout); return 0; }
  if (parse(argc, argv, &o)) return 2;
  if (!strcmp(cmd, "gen")) {
    if (o.check && (o.nspecs || o.out)) { fprintf(stderr, "ssmc: error: gen --check takes no SPEC or -o\n"); return 2; }
    if (o.nspecs && !o.out) { fprintf(stderr, "ssmc: error: gen SPEC... needs -o DIR (generated/ holds the built-ins)\n"); return 2; }
    return cmd_gen(&o);
  }
  if (!strcmp(cmd, "compile")) return cmd_compile(&o);
  return !strcmp(cmd, "check") ? cmd_check(&o) : cmd_bench(&o);
}
