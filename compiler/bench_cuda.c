/* compiler stage: GPU benchmark of CUDA modules (see bench_cuda.h). */
#include "bench_cuda.h"
#include "bench.h"
#include "chk.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WARM 3
#define MAX_REPS 512

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}
static double median(double *t, int n) {
  qsort(t, (size_t)n, sizeof *t, cmp_d);
  return t[n / 2];
}
static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}
static int fail(rt_cuda *c, char *err, size_t n, const char *what) {
  snprintf(err, n, "%s: %s", what, rt_cuda_error(c));
  return -1;
}

/* A register-only mma.sync loop: 8 independent m16n8k16 bf16 products per step and warp. */
static const char probe_src[] =
    "extern \"C\" __global__ void __launch_bounds__(256) ssmc_probe_mma(float *out, int steps) {\n"
    "  unsigned a = 0x3f803f80u ^ (threadIdx.x & 1u), b = 0x3f003f00u;\n"
    "  float d[8][4] = {};\n"
    "  for (int i = 0; i < steps; i++) {\n"
    "#pragma unroll\n"
    "    for (int j = 0; j < 8; j++)\n"
    "      asm volatile(\"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, \"\n"
    "                   \"{%0,%1,%2,%3};\" : \"+f\"(d[j][0]), \"+f\"(d[j][1]), \"+f\"(d[j][2]), \"+f\"(d[j][3])\n"
    "                   : \"r\"(a), \"r\"(a), \"r\"(a), \"r\"(a), \"r\"(b), \"r\"(b));\n"
    "  }\n"
    "  float s = 0.0f;\n"
    "  for (int j = 0; j < 8; j++) s += d[j][0] + d[j][1] + d[j][2] + d[j][3];\n"
    "  if (s == 1234.5f) out[0] = s;\n"
    "}\n"
    "extern \"C\" __global__ void ssmc_probe_empty(float *out, int steps) { if (steps < 0) out[0] = 0.0f; }\n";

int bench_cuda_ceilings(rt_cuda *c, const char *cache_dir, bench_ceil *o, char *err, size_t n) {
  const rt_cuda_info *di = rt_cuda_device(c);
  void *e0 = rt_cuda_event(c), *e1 = rt_cuda_event(c);
  double t[16];
  int rc = 0;
  /* copy bandwidth: 1 GiB device to device, bytes read + written */
  size_t nb = (size_t)1 << 30;
  void *a = rt_cuda_alloc(c, nb), *b = a ? rt_cuda_alloc(c, nb) : NULL;
  if (!b) rc = fail(c, err, n, "device memory");
  for (int i = 0; i < 12 && !rc; i++) {
    if (rt_cuda_record(c, e0, NULL) || rt_cuda_d2d(c, b, a, nb) || rt_cuda_record(c, e1, NULL)) rc = fail(c, err, n, "copy");
    else if (i >= 2) t[i - 2] = rt_cuda_elapsed(c, e0, e1);
  }
  if (!rc) o->copy_gbps = 2.0 * (double)nb / (median(t, 10) * 1e-3) * 1e-9;
  rt_cuda_free(c, a);
  rt_cuda_free(c, b);
  /* tensor cores: 4 blocks of 8 warps per SM */
  rt_cuda_raw *m = rc ? NULL : rt_cuda_raw_load(c, probe_src, "ssmc_probe_mma.cu", cache_dir, err, n);
  if (!rc && !m) rc = -1;
  float *out = rc ? NULL : rt_cuda_alloc(c, 16);
  int steps = 4096;
  unsigned blocks = (unsigned)di->sm_count * 4;
  void *params[] = {&out, &steps};
  for (int i = 0; i < 7 && !rc; i++) {
    if (rt_cuda_record(c, e0, NULL) || rt_cuda_raw_launch(c, m, "ssmc_probe_mma", blocks, 256, params, NULL) ||
        rt_cuda_record(c, e1, NULL))
      rc = fail(c, err, n, "mma probe");
    else if (i >= 2) t[i - 2] = rt_cuda_elapsed(c, e0, e1);
  }
  if (!rc) {
    double flops = (double)blocks * 8 /* warps */ * steps * 8 /* products */ * (2.0 * 16 * 8 * 16);
    o->mma_bf16_tflops = flops / (median(t, 5) * 1e-3) * 1e-12;
  }
  /* the launch floor: an empty kernel (one block), timed as the decode is: events around the launch,
   * and the wall time of launch + wait from C, one call at a time */
  double th[200];
  for (int i = 0; i < 16 + 200 && !rc; i++) {
    double t0 = now_us();
    if (rt_cuda_raw_launch(c, m, "ssmc_probe_empty", 1, 32, params, NULL) || rt_cuda_sync(c)) rc = fail(c, err, n, "launch probe");
    else if (i >= 16) th[i - 16] = now_us() - t0;
  }
  if (!rc) o->launch_host_us = median(th, 200);
  for (int i = 0; i < 16 + 200 && !rc; i++) {
    if (rt_cuda_record(c, e0, NULL) || rt_cuda_raw_launch(c, m, "ssmc_probe_empty", 1, 32, params, NULL) ||
        rt_cuda_record(c, e1, NULL))
      rc = fail(c, err, n, "launch probe");
    else if (i >= 16) th[i - 16] = 1e3 * rt_cuda_elapsed(c, e0, e1);
  }
  if (!rc) o->launch_event_us = median(th, 200);
  rt_cuda_free(c, out);
  rt_cuda_raw_unload(c, m);
  rt_cuda_event_free(c, e0);
  rt_cuda_event_free(c, e1);
  return rc;
}

double bench_cuda_chunk_flops(const cls_family *f, int iters) {
  const layer_spec *s = f->spec;
  double K = s->K, V = s->V, C = s->chunk;
  /* per chunk: q k' (C C K), q Z (C K V), A u (C C V), Z += k' u (K C V); a rank-1 erase adds
   * k k' (C C K), (k e^b) Z (C K V) and the forward substitution (C C V / 2) */
  double fl = 2 * C * C * K + 4 * C * K * V + 2 * C * C * V;
  if (f->main.delta) fl += 2 * C * C * K + 2 * C * K * V + C * C * V;
  if (f->has_solve) {
    int r = iters > 0 ? iters : f->iters;
    /* k k' (C C K), k H0 (C K K), H update (K K C), per iteration x H0 (C K K), x k' and (..) k (2 C C K) */
    fl += 2 * C * C * K + 4 * C * K * K + r * (2 * C * K * K + 4 * C * C * K);
  }
  return fl / C;
}

double bench_cuda_bwd_flops(const cls_family *f) {
  const layer_spec *s = f->spec;
  double K = s->K, V = s->V, C = s->chunk;
  /* per chunk, the forward's chunk products again (prep and state recomputed), then: q k' and A' dY
   * (C C K, C C V), (q e^b)' dY (K C V), kd dZ (C K V), dY Z0' and u dZ' (2 C K V), dY u' (C C V),
   * dA k and dA' q (2 C C K); a rank-1 erase adds W' du (K C V), T' du (C C V), dr Z0' (C K V),
   * dr u' (C C V), dG k and dG' k (2 C C K) */
  double fl = bench_cuda_chunk_flops(f, 0) * C;
  fl += 2 * (C * C * K + C * C * V + 4 * C * K * V + C * C * V + 2 * C * C * K);
  if (f->main.delta) fl += 2 * (2 * C * K * V + 2 * C * C * V + 2 * C * C * K);
  return fl / C;
}

/* Bytes of the inputs of one call over t tokens, H heads. */
static size_t input_bytes(const ssmc_kernel *k, int64_t t, int H) {
  size_t s = 0;
  for (int i = 0; i < k->n_inputs; i++)
    s += (size_t)t * H * ssmc_input_len(k, i) * (ssmc_input_is_gate(k, i) || k->dtype == SSMC_F32 ? 4 : 2);
  return s;
}
static size_t state_bytes(const ssmc_kernel *k, int64_t slots) {
  size_t s = 0;
  for (int i = 0; i < k->n_states; i++) s += (size_t)slots * (size_t)k->state_size[i] * 4;
  return s;
}

/* Device copies of the batch's inputs, enough of them to rotate past the L2. */
typedef struct {
  int copies;
  void *in[64][SSMC_MAX_IO];
} inputs;

static int upload(rt_cuda *c, chk_batch *b, const ssmc_kernel *k, size_t per_call, inputs *u, char *err, size_t n) {
  size_t l2 = (size_t)rt_cuda_device(c)->l2_bytes;
  u->copies = (int)((3 * l2) / (per_call ? per_call : 1)) + 1;
  if (u->copies > 64) u->copies = 64;
  for (int j = 0; j < u->copies; j++)
    for (int i = 0; i < k->n_inputs; i++) {
      size_t bytes;
      const void *h = chk_batch_kinput(b, i, &bytes);
      if (!(u->in[j][i] = rt_cuda_alloc(c, bytes)) || rt_cuda_h2d(c, u->in[j][i], h, bytes))
        return fail(c, err, n, "uploading inputs");
    }
  return 0;
}
static void free_inputs(rt_cuda *c, const ssmc_kernel *k, inputs *u) {
  for (int j = 0; j < u->copies; j++)
    for (int i = 0; i < k->n_inputs; i++) rt_cuda_free(c, u->in[j][i]);
}

/* Zeroed device buffers (N, h_v, S) for every state. */
static int states(rt_cuda *c, const ssmc_kernel *k, int64_t slots, float **st, char *err, size_t n) {
  for (int i = 0; i < k->n_states; i++) {
    size_t bytes = (size_t)slots * (size_t)k->state_size[i] * 4;
    if (!(st[i] = rt_cuda_alloc(c, bytes)) || rt_cuda_memset(c, st[i], 0, bytes)) return fail(c, err, n, "states");
  }
  return 0;
}

static const char *const ROWS[] = {"fwd", "bwd", "bwd-narrow", "fwd+bwd", "bwd-saved", "fwd+bwd-saved", "decode"};

int bench_rows_check(const char *rows, char *err, size_t n) {
  for (const char *p = rows;; p++) {
    const size_t len = strcspn(p, ",");
    int ok = len > 4 && !strncmp(p, "fwd-", 4); /* a forward variant's label: fwd-fused90, fwd-split ... */
    for (size_t i = 4; ok && i < len; i++) ok = (p[i] >= 'a' && p[i] <= 'z') || (p[i] >= '0' && p[i] <= '9') || p[i] == '_';
    for (size_t i = 0; !ok && i < sizeof ROWS / sizeof *ROWS; i++) ok = strlen(ROWS[i]) == len && !strncmp(p, ROWS[i], len);
    if (!ok) {
      snprintf(err, n, "--rows: no row '%.*s' (rows: fwd, fwd-<variant>, bwd, bwd-narrow, fwd+bwd, bwd-saved, "
               "fwd+bwd-saved, decode)", (int)len, p);
      return -1;
    }
    p += len;
    if (!*p) return 0;
  }
}

int bench_row_wanted(const char *rows, const char *label) {
  if (!rows) return 1;
  const size_t n = strlen(label);
  for (const char *p = rows;; p++) {
    const size_t len = strcspn(p, ",");
    if (len == n && !strncmp(p, label, n)) return 1;
    p += len;
    if (!*p) return 0;
  }
}

/* Times `run(.., copy)` with events: WARM untimed calls, then reps timed ones. */
typedef int (*launch_fn)(rt_cuda *c, rt_cuda_mod *m, void *args, int copy);
static int time_calls(rt_cuda *c, rt_cuda_mod *m, void *args, launch_fn run, int copies, int reps, double *ms,
                      char *err, size_t n) {
  void *ev[2 * MAX_REPS];
  double t[MAX_REPS];
  int rc = 0;
  if (reps > MAX_REPS) reps = MAX_REPS;
  for (int i = 0; i < 2 * reps; i++) ev[i] = rt_cuda_event(c);
  for (int i = 0; i < WARM && !rc; i++)
    if (run(c, m, args, i % copies)) rc = fail(c, err, n, "launch");
  for (int i = 0; i < reps && !rc; i++)
    if (rt_cuda_record(c, ev[2 * i], NULL) || run(c, m, args, (WARM + i) % copies) ||
        rt_cuda_record(c, ev[2 * i + 1], NULL))
      rc = fail(c, err, n, "launch");
  if (!rc && rt_cuda_sync(c)) rc = fail(c, err, n, "kernel execution");
  for (int i = 0; i < reps && !rc; i++) t[i] = rt_cuda_elapsed(c, ev[2 * i], ev[2 * i + 1]);
  if (!rc) *ms = median(t, reps);
  for (int i = 0; i < 2 * reps; i++) rt_cuda_event_free(c, ev[i]);
  return rc;
}

typedef struct {
  ssmc_fwd_args fa;
  ssmc_decode_args da;
  ssmc_bwd_args ba;
  inputs *u;
  const ssmc_kernel *k;
  void *ws, *bws;
  void *slots[64]; /* decode: the slot table of each copy */
  int variant;     /* forward: RT_FWD_*; decode: RT_DECODE_* */
  int bwd_variant; /* RT_BWD_* */
  int saved;       /* fwd+bwd: the forward kept for the backward (rt_cuda_fwd_save into bws, then fwd_saved) */
} call;

static int run_fwd(rt_cuda *c, rt_cuda_mod *m, void *p, int copy) {
  call *cl = p;
  for (int i = 0; i < cl->k->n_inputs; i++) cl->fa.in[i] = cl->u->in[copy][i];
  if (cl->saved) return rt_cuda_fwd_save(c, m, &cl->fa, cl->variant, cl->bws, NULL);
  return rt_cuda_fwd_variant(c, m, &cl->fa, cl->variant, cl->ws, NULL);
}
static int run_bwd(rt_cuda *c, rt_cuda_mod *m, void *p, int copy) {
  call *cl = p;
  for (int i = 0; i < cl->k->n_inputs; i++) cl->ba.in[i] = cl->u->in[copy][i];
  return rt_cuda_bwd_variant(c, m, &cl->ba, cl->bwd_variant, cl->bws, NULL);
}
static int run_fwd_bwd(rt_cuda *c, rt_cuda_mod *m, void *p, int copy) {
  return run_fwd(c, m, p, copy) || run_bwd(c, m, p, copy);
}
static int run_decode(rt_cuda *c, rt_cuda_mod *m, void *p, int copy) {
  call *cl = p;
  for (int i = 0; i < cl->k->n_inputs; i++) cl->da.in[i] = cl->u->in[copy][i];
  cl->da.slots = cl->slots[copy];
  return rt_cuda_decode_variant(c, m, &cl->da, cl->variant, NULL);
}

int bench_cuda_fwd(rt_cuda *c, rt_cuda_mod *m, const cls_family *f, const ssmc_kernel *k, int B, int T, int H, int reps,
                   int iters, int variant, bench_cuda_res *r, char *err, size_t n) {
  int64_t tt = (int64_t)B * T;
  chk_shape sh = {"bench", 1, {(int)tt}, H, H, 0}; /* B sequences of T tokens, packed: (B*T, H, D) */
  chk_batch *b = chk_batch_new(f, k, &sh, 4321);
  inputs u = {0};
  call cl = {.k = k, .u = &u, .variant = variant};
  float *st[SSMC_MAX_IO] = {0};
  size_t esz = k->dtype == SSMC_F32 ? 4 : 2, in_b = input_bytes(k, tt, H);
  cl.fa = (ssmc_fwd_args){.n_seqs = B, .h_qk = H, .h_v = H, .t_len = T, .iters = iters, .t_total = tt};
  size_t out_b = (size_t)tt * H * k->V * esz, ws_b = rt_cuda_fwd_ws_bytes(k, &cl.fa);
  int rc = upload(c, b, k, in_b, &u, err, n);
  chk_batch_free(b);
  if (!rc) rc = states(c, k, (int64_t)B * H, st, err, n);
  if (!rc && (!(cl.fa.out = rt_cuda_alloc(c, out_b)) || (ws_b && !(cl.ws = rt_cuda_alloc(c, ws_b)))))
    rc = fail(c, err, n, "device memory");
  for (int i = 0; i < k->n_states; i++) { cl.fa.state_in[i] = st[i]; cl.fa.state_out[i] = st[i]; }
  if (!rc) rc = time_calls(c, m, &cl, run_fwd, u.copies, reps, &r->ms, err, n);
  r->copies = u.copies;
  r->host_us = 0;
  r->flops = bench_cuda_chunk_flops(f, iters) * (double)tt * H;
  r->bytes = (double)(in_b + out_b + 2 * state_bytes(k, (int64_t)B * H));
  free_inputs(c, k, &u);
  for (int i = 0; i < k->n_states; i++) rt_cuda_free(c, st[i]);
  rt_cuda_free(c, cl.fa.out);
  rt_cuda_free(c, cl.ws);
  return rc;
}

int bench_cuda_bwd(rt_cuda *c, rt_cuda_mod *m, const cls_family *f, const ssmc_kernel *k, int B, int T, int H, int reps,
                   int iters, int variant, int saved, bench_cuda_res *bwd, bench_cuda_res *both, char *err, size_t n) {
  int64_t tt = (int64_t)B * T;
  chk_shape sh = {"bench", 1, {(int)tt}, H, H, 0};
  chk_batch *b = chk_batch_new(f, k, &sh, 4321);
  inputs u = {0};
  call cl = {.k = k, .u = &u, .variant = RT_FWD_AUTO, .bwd_variant = variant, .saved = saved};
  float *st[SSMC_MAX_IO] = {0}, *dst[SSMC_MAX_IO] = {0}, *din[SSMC_MAX_IO] = {0};
  size_t esz = k->dtype == SSMC_F32 ? 4 : 2, in_b = input_bytes(k, tt, H), out_b = (size_t)tt * H * k->V * esz;
  size_t g_b = 0; /* the gradients: fp32 in each input's layout */
  for (int i = 0; i < k->n_inputs; i++) g_b += (size_t)tt * H * ssmc_input_len(k, i) * 4;
  cl.fa = (ssmc_fwd_args){.n_seqs = B, .h_qk = H, .h_v = H, .t_len = T, .iters = iters, .t_total = tt};
  cl.ba = (ssmc_bwd_args){.n_seqs = B, .h_qk = H, .h_v = H, .t_len = T, .iters = iters, .t_total = tt};
  size_t ws_b = rt_cuda_fwd_ws_bytes(k, &cl.fa), bws_b = rt_cuda_bwd_ws_bytes(k, &cl.ba);
  int rc = upload(c, b, k, in_b + out_b + g_b, &u, err, n);
  chk_batch_free(b);
  if (!rc) rc = states(c, k, (int64_t)B * H, st, err, n);
  if (!rc) rc = states(c, k, (int64_t)B * H, dst, err, n);
  if (!rc && (!(cl.fa.out = rt_cuda_alloc(c, out_b)) || (ws_b && !(cl.ws = rt_cuda_alloc(c, ws_b))) ||
              !(cl.bws = rt_cuda_alloc(c, bws_b)) || rt_cuda_memset(c, cl.fa.out, 0, out_b)))
    rc = fail(c, err, n, "device memory");
  for (int i = 0; i < k->n_inputs && !rc; i++)
    if (!(din[i] = rt_cuda_alloc(c, (size_t)tt * H * ssmc_input_len(k, i) * 4))) rc = fail(c, err, n, "device memory");
  for (int i = 0; i < k->n_states; i++) {
    cl.fa.state_in[i] = st[i];
    cl.fa.state_out[i] = st[i];
    cl.ba.state_in[i] = st[i];
    cl.ba.dstate_out[i] = dst[i];
    cl.ba.dstate_in[i] = dst[i];
  }
  for (int i = 0; i < k->n_inputs; i++) cl.ba.din[i] = din[i];
  cl.ba.dout = cl.fa.out; /* dy: the forward's output buffer (values do not change the time) */
  cl.ba.fwd_saved = saved;
  /* the backward alone after a kept forward: bws holds one forward's (copy 0's; values do not change the time) */
  if (!rc && saved && (run_fwd(c, m, &cl, 0) || rt_cuda_sync(c))) rc = fail(c, err, n, "the kept forward");
  if (!rc) rc = time_calls(c, m, &cl, run_bwd, u.copies, reps, &bwd->ms, err, n);
  if (!rc && both) rc = time_calls(c, m, &cl, run_fwd_bwd, u.copies, reps, &both->ms, err, n);
  bwd->copies = u.copies;
  bwd->host_us = 0;
  /* after a kept forward, without the recomputation's products */
  bwd->flops = (bench_cuda_bwd_flops(f) - (saved ? bench_cuda_chunk_flops(f, 0) : 0)) * (double)tt * H;
  bwd->bytes = (double)(in_b + out_b + g_b + 3 * state_bytes(k, (int64_t)B * H));
  if (both) {
    both->copies = u.copies;
    both->host_us = 0;
    both->flops = bwd->flops + bench_cuda_chunk_flops(f, iters) * (double)tt * H;
    both->bytes = bwd->bytes + (double)(in_b + out_b + 2 * state_bytes(k, (int64_t)B * H));
  }
  free_inputs(c, k, &u);
  for (int i = 0; i < k->n_states; i++) { rt_cuda_free(c, st[i]); rt_cuda_free(c, dst[i]); }
  for (int i = 0; i < k->n_inputs; i++) rt_cuda_free(c, din[i]);
  rt_cuda_free(c, cl.fa.out);
  rt_cuda_free(c, cl.ws);
  rt_cuda_free(c, cl.bws);
  return rc;
}

int bench_cuda_decode(rt_cuda *c, rt_cuda_mod *m, const cls_family *f, const ssmc_kernel *k, int B, int H, int reps,
                      int iters, int variant, bench_cuda_res *r, char *err, size_t n) {
  chk_shape sh = {"bench", 1, {B}, H, H, 0}; /* one token of B sequences: (B, H, D) */
  chk_batch *b = chk_batch_new(f, k, &sh, 4321);
  inputs u = {0};
  call cl = {.k = k, .u = &u, .variant = variant};
  float *st[SSMC_MAX_IO] = {0};
  size_t esz = k->dtype == SSMC_F32 ? 4 : 2, in_b = input_bytes(k, B, H);
  size_t out_b = (size_t)B * H * k->V * esz, st_b = state_bytes(k, (int64_t)B * H);
  int rc = upload(c, b, k, in_b + out_b + 2 * st_b, &u, err, n);
  chk_batch_free(b);
  /* the states rotate with the inputs: copy j updates slots [j*B, (j+1)*B) */
  if (!rc) rc = states(c, k, (int64_t)B * H * u.copies, st, err, n);
  cl.da = (ssmc_decode_args){.n_seqs = B, .h_qk = H, .h_v = H, .iters = iters};
  if (!rc && !(cl.da.out = rt_cuda_alloc(c, out_b))) rc = fail(c, err, n, "device memory");
  int32_t *slots = malloc(sizeof *slots * (size_t)B);
  for (int j = 0; j < u.copies && !rc; j++) {
    for (int i = 0; i < B; i++) slots[i] = j * B + i;
    if (!(cl.slots[j] = rt_cuda_alloc(c, sizeof *slots * (size_t)B)) ||
        rt_cuda_h2d(c, cl.slots[j], slots, sizeof *slots * (size_t)B))
      rc = fail(c, err, n, "slots");
  }
  for (int i = 0; i < k->n_states; i++) cl.da.state[i] = st[i];
  if (!rc) rc = time_calls(c, m, &cl, run_decode, u.copies, reps, &r->ms, err, n);
  if (!rc) { /* host time included: launch and wait, one call at a time, from C */
    double t[MAX_REPS];
    int nr = reps < 200 ? 200 : reps > MAX_REPS ? MAX_REPS : reps; /* the wall time is noisier than events */
    for (int i = 0; i < WARM + nr && !rc; i++) {
      double t0 = now_us();
      if (run_decode(c, m, &cl, i % u.copies) || rt_cuda_sync(c)) rc = fail(c, err, n, "launch");
      else if (i >= WARM) t[i - WARM] = now_us() - t0;
    }
    if (!rc) r->host_us = median(t, nr);
  }
  r->copies = u.copies;
  r->flops = bench_flops_per_token(f, iters) * (double)B * H;
  r->bytes = (double)(in_b + out_b + 2 * st_b);
  free(slots);
  for (int j = 0; j < u.copies; j++) rt_cuda_free(c, cl.slots[j]);
  free_inputs(c, k, &u);
  for (int i = 0; i < k->n_states; i++) rt_cuda_free(c, st[i]);
  rt_cuda_free(c, cl.da.out);
  return rc;
}
