/* bench stage: times ggml's CPU ssm_scan and gated_delta_net at ssmc's
 * benchmark shapes; built outside the repo against a ggml checkout.
 *
 * Only ggml's public headers (ggml.h, ggml-cpu.h) are included and its static
 * libraries linked; no ggml source lives in this tree. See README.md and
 * run.sh next to this file for how the ggml checkout is obtained and built.
 *
 * What is timed: one graph holding exactly one op node (GGML_OP_SSM_SCAN or
 * GGML_OP_GATED_DELTA_NET) whose inputs are leaf tensors filled once on the
 * host, computed with ggml_graph_compute() on a persistent ggml threadpool of
 * n_threads (default 2). Every call does identical work (the initial state is
 * an input, never overwritten). Wall clock is CLOCK_MONOTONIC around
 * ggml_graph_compute(); we warm up, then report the median of the timed runs.
 * A timed block that another process disturbed (see bench()) is retried.
 *
 * Tensor layouts (ggml ne[] order, innermost first), as read from the ggml
 * snapshot this was written against (see README.md):
 *
 *  ggml_ssm_scan(ctx, s, x, dt, A, B, C, ids, K=1), Mamba-2 form (A->ne[0]==1):
 *    s   {N=d_state, P=head_dim, H, n_seqs}  initial state (selected by ids)
 *    x   {P, H, T, n_seqs}      dt {H, T, n_seqs} (raw; softplus applied inside)
 *    A   {1, H}  (negative)     B, C {N, G, T, n_seqs}   ids {n_seqs} i32
 *    per token, head h (group g = h / (H/G)):
 *      d = softplus(dt); a = exp(d*A[h])
 *      S[p][n] = a*S[p][n] + B[g][n]*(x[h][p]*d);  y[h][p] = sum_n S[p][n]*C[g][n]
 *    result: 1-D f32 = y {P,H,T,n_seqs} followed by final states {N,P,H,n_seqs}.
 *    No D skip, no z gate, no output scale (those are separate ggml ops).
 *
 *  ggml_gated_delta_net(ctx, q, k, v, g, beta, state, K=1):
 *    q, k {S_k, H_k, T, n_seqs}  v {S_v, H, T, n_seqs}  (S_k == S_v)
 *    g    {1, H, T, n_seqs} scalar log-decay per head (or {S_v,...} = KDA)
 *    beta {1, H, T, n_seqs} used as-is (no sigmoid inside)
 *    state {S_v, S_v, H, n_seqs}; element [j*S_v + i] = S[i][j], i = key
 *      index, j = value index (key index contiguous).
 *    per token, head h:  S *= exp(g);  u[j] = beta*(v[j] - sum_i S[i][j] k[i]);
 *      S[i][j] += k[i]*u[j];  o[j] = (1/sqrt(S_v)) * sum_i S[i][j] q[i]
 *    q/k are NOT L2-normalised by the op (callers add ggml_l2_norm first); the
 *    1/sqrt(S_v) query scale IS applied inside.
 *    result: {S_v*H, T*n_seqs + S_v*n_seqs} = o {S_v,H,T,n_seqs} then final
 *    states {S_v,S_v,H,n_seqs}.
 *
 * `--check` runs both ops at small T against a naive C reference of the
 * semantics above (our own code, not ggml's) and fails on mismatch, so the
 * layout description above is verified on every run.
 *
 * FLOP convention (state-update form, per token per head, MAC = 2 flops):
 *   ssm_scan (scalar decay):  2*(2*K*V)    gated_delta_net:  2*(3*K*V)
 */
#define _POSIX_C_SOURCE 199309L
#include "ggml.h"
#include "ggml-cpu.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---------------------------------------------------------------- utils -- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static double urand(void) { /* xorshift64*, uniform in [0,1) */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 0x2545F4914F6CDD1Dull) >> 11) * (1.0 / 9007199254740992.0);
}

static float unif(float lo, float hi) { return lo + (hi - lo) * (float)urand(); }

static void fill_unif(struct ggml_tensor *t, float lo, float hi) {
    float *d = (float *)t->data;
    const int64_t n = ggml_nelements(t);
    for (int64_t i = 0; i < n; ++i) d[i] = unif(lo, hi);
}

/* Normalise every length-ne[0] row of a contiguous tensor to unit L2 norm. */
static void l2_rows(struct ggml_tensor *t) {
    float *d = (float *)t->data;
    const int64_t n = t->ne[0], rows = ggml_nelements(t) / n;
    for (int64_t r = 0; r < rows; ++r) {
        double ss = 0;
        for (int64_t i = 0; i < n; ++i) ss += (double)d[r * n + i] * d[r * n + i];
        const float inv = (float)(1.0 / sqrt(ss + 1e-12));
        for (int64_t i = 0; i < n; ++i) d[r * n + i] *= inv;
    }
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_dbl(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* CPU pressure stall time in microseconds: the "some ... total=" value of
 * /proc/pressure/cpu (-1 if PSI is unavailable). It counts the time during
 * which at least one runnable task waited for a CPU. On this 2-core machine,
 * any other busy process competes with our 2 threads, and the delta over a
 * measurement shows it. */
static long long psi_cpu_us(void) {
    FILE *f = fopen("/proc/pressure/cpu", "r");
    if (!f) return -1;
    char line[256];
    long long tot = -1;
    while (fgets(line, sizeof line, f)) {
        const char *p = strstr(line, "total=");
        if (!strncmp(line, "some", 4) && p) { tot = atoll(p + 6); break; }
    }
    fclose(f);
    return tot;
}

static double proc_cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static float softplus(float x) { return x > 20.0f ? x : log1pf(expf(x)); }

/* ---------------------------------------------------------- problem set -- */

typedef struct {
    int64_t H, K, V, T, B; /* heads, key/state dim, value dim, tokens/seq, seqs */
} shape_t;

typedef struct {
    struct ggml_context *ctx;
    struct ggml_cgraph *gf;
    struct ggml_tensor *out;
    struct ggml_tensor *in[8];
    int n_in;
} built_t;

static struct ggml_context *mk_ctx(size_t data_bytes) {
    struct ggml_init_params ip = {
        .mem_size = data_bytes + 64 * ggml_tensor_overhead() + ggml_graph_overhead() + (1u << 20),
        .mem_buffer = NULL,
        .no_alloc = false,
    };
    struct ggml_context *ctx = ggml_init(ip);
    if (!ctx) { fprintf(stderr, "ggml_init failed (%zu bytes)\n", data_bytes); exit(1); }
    return ctx;
}

/* Mamba-2 ssm_scan: N = d_state = K, P = head_dim = V, G = 1 group. */
static built_t build_ssm(shape_t sh) {
    const int64_t N = sh.K, P = sh.V, H = sh.H, T = sh.T, S = sh.B, G = 1;
    const size_t f = sizeof(float);
    size_t bytes = f * (size_t)(N * P * H * S          /* s   */
                              + P * H * T * S          /* x   */
                              + H * T * S              /* dt  */
                              + H                      /* A   */
                              + 2 * N * G * T * S      /* B,C */
                              + P * H * T * S + N * P * H * S) /* result */
                   + sizeof(int32_t) * (size_t)S + 16 * 64;
    built_t b = {0};
    b.ctx = mk_ctx(bytes);
    struct ggml_tensor *s   = ggml_new_tensor_4d(b.ctx, GGML_TYPE_F32, N, P, H, S);
    struct ggml_tensor *x   = ggml_new_tensor_4d(b.ctx, GGML_TYPE_F32, P, H, T, S);
    struct ggml_tensor *dt  = ggml_new_tensor_3d(b.ctx, GGML_TYPE_F32, H, T, S);
    struct ggml_tensor *A   = ggml_new_tensor_2d(b.ctx, GGML_TYPE_F32, 1, H);
    struct ggml_tensor *Bm  = ggml_new_tensor_4d(b.ctx, GGML_TYPE_F32, N, G, T, S);
    struct ggml_tensor *Cm  = ggml_new_tensor_4d(b.ctx, GGML_TYPE_F32, N, G, T, S);
    struct ggml_tensor *ids = ggml_new_tensor_1d(b.ctx, GGML_TYPE_I32, S);

    /* Realistic domains: softplus(dt) ~ [2.5e-3, 0.13] (Mamba-2 dt range),
     * A = -exp(A_log) in [-8, -1]  => log-decay softplus(dt)*A < 0. */
    fill_unif(s, -0.1f, 0.1f);
    fill_unif(x, -1.0f, 1.0f);
    fill_unif(dt, -6.0f, -2.0f);
    fill_unif(A, -8.0f, -1.0f);
    fill_unif(Bm, -1.0f, 1.0f);
    fill_unif(Cm, -1.0f, 1.0f);
    for (int64_t i = 0; i < S; ++i) ((int32_t *)ids->data)[i] = (int32_t)i;

    b.out = ggml_ssm_scan(b.ctx, s, x, dt, A, Bm, Cm, ids, 1);
    b.gf = ggml_new_graph(b.ctx);
    ggml_build_forward_expand(b.gf, b.out);
    b.in[0] = s; b.in[1] = x; b.in[2] = dt; b.in[3] = A; b.in[4] = Bm; b.in[5] = Cm; b.in[6] = ids;
    b.n_in = 7;
    return b;
}

/* gated_delta_net: scalar gate per head, H_k = H_v = H, S_k = S_v = K = V. */
static built_t build_gdn(shape_t sh) {
    if (sh.K != sh.V) { fprintf(stderr, "gated_delta_net needs K == V\n"); exit(1); }
    const int64_t D = sh.V, H = sh.H, T = sh.T, S = sh.B;
    const size_t f = sizeof(float);
    size_t bytes = f * (size_t)(3 * D * H * T * S       /* q,k,v */
                              + 2 * H * T * S           /* g,beta */
                              + D * D * H * S           /* state */
                              + D * H * (T * S + D * S)) /* result */
                   + 16 * 64;
    built_t b = {0};
    b.ctx = mk_ctx(bytes);
    struct ggml_tensor *q     = ggml_new_tensor_4d(b.ctx, GGML_TYPE_F32, D, H, T, S);
    struct ggml_tensor *k     = ggml_new_tensor_4d(b.ctx, GGML_TYPE_F32, D, H, T, S);
    struct ggml_tensor *v     = ggml_new_tensor_4d(b.ctx, GGML_TYPE_F32, D, H, T, S);
    struct ggml_tensor *g     = ggml_new_tensor_4d(b.ctx, GGML_TYPE_F32, 1, H, T, S);
    struct ggml_tensor *beta  = ggml_new_tensor_4d(b.ctx, GGML_TYPE_F32, 1, H, T, S);
    struct ggml_tensor *state = ggml_new_tensor_4d(b.ctx, GGML_TYPE_F32, D, D, H, S);

    fill_unif(q, -1.0f, 1.0f); l2_rows(q); /* unit-norm q/k: the op does not normalise */
    fill_unif(k, -1.0f, 1.0f); l2_rows(k);
    fill_unif(v, -1.0f, 1.0f);
    fill_unif(g, -0.5f, -1e-3f);           /* log-decay, negative */
    fill_unif(beta, 0.0f, 1.0f);
    fill_unif(state, -0.1f, 0.1f);

    b.out = ggml_gated_delta_net(b.ctx, q, k, v, g, beta, state, 1);
    b.gf = ggml_new_graph(b.ctx);
    ggml_build_forward_expand(b.gf, b.out);
    b.in[0] = q; b.in[1] = k; b.in[2] = v; b.in[3] = g; b.in[4] = beta; b.in[5] = state;
    b.n_in = 6;
    return b;
}

/* ------------------------------------------------------------- compute -- */

typedef struct {
    struct ggml_threadpool *tp;
    int n_threads;
} runner_t;

typedef struct {
    struct ggml_cplan plan;
    void *work;
} plan_t;

static plan_t make_plan(runner_t *r, struct ggml_cgraph *gf) {
    plan_t p;
    p.plan = ggml_graph_plan(gf, r->n_threads, r->tp);
    p.work = NULL;
    if (p.plan.work_size > 0) {
        p.work = malloc(p.plan.work_size);
        if (!p.work) { fprintf(stderr, "oom (work)\n"); exit(1); }
        p.plan.work_data = p.work;
    }
    return p;
}

static double run_once(struct ggml_cgraph *gf, plan_t *p) {
    const double t0 = now_s();
    const enum ggml_status st = ggml_graph_compute(gf, &p->plan);
    const double t1 = now_s();
    if (st != GGML_STATUS_SUCCESS) { fprintf(stderr, "ggml_graph_compute failed: %d\n", (int)st); exit(1); }
    return t1 - t0;
}

/* --------------------------------------------------- reference (--check) -- */

static int compare(const char *what, const float *got, const float *ref, int64_t n) {
    double max_err = 0, max_ref = 0;
    for (int64_t i = 0; i < n; ++i) {
        const double e = fabs((double)got[i] - (double)ref[i]);
        if (!(e <= max_err)) max_err = e; /* also catches NaN */
        if (fabs(ref[i]) > max_ref) max_ref = fabs(ref[i]);
    }
    const double rel = max_err / (max_ref > 0 ? max_ref : 1.0);
    const int ok = rel < 1e-4;
    printf("check %-28s n=%-8lld max_abs_err=%.3e rel=%.3e %s\n", what, (long long)n, max_err, rel,
           ok ? "OK" : "FAIL");
    return ok;
}

static int check_ssm(runner_t *r, shape_t sh) {
    built_t b = build_ssm(sh);
    plan_t p = make_plan(r, b.gf);
    run_once(b.gf, &p);
    const int64_t N = sh.K, P = sh.V, H = sh.H, T = sh.T, S = sh.B;
    const float *s0 = b.in[0]->data, *x = b.in[1]->data, *dt = b.in[2]->data, *A = b.in[3]->data,
                *Bm = b.in[4]->data, *Cm = b.in[5]->data;
    float *st = malloc(sizeof(float) * N * P * H * S);
    float *y = malloc(sizeof(float) * P * H * T * S);
    memcpy(st, s0, sizeof(float) * N * P * H * S);
    for (int64_t sq = 0; sq < S; ++sq)
        for (int64_t t = 0; t < T; ++t)
            for (int64_t h = 0; h < H; ++h) {
                const float d = softplus(dt[(sq * T + t) * H + h]);
                const float a = expf(d * A[h]);
                const float *Bt = Bm + (sq * T + t) * N, *Ct = Cm + (sq * T + t) * N; /* G = 1 */
                for (int64_t pp = 0; pp < P; ++pp) {
                    float *row = st + ((sq * H + h) * P + pp) * N;
                    const float xd = x[((sq * T + t) * H + h) * P + pp] * d;
                    double acc = 0;
                    for (int64_t n = 0; n < N; ++n) {
                        row[n] = a * row[n] + Bt[n] * xd;
                        acc += (double)row[n] * Ct[n];
                    }
                    y[((sq * T + t) * H + h) * P + pp] = (float)acc;
                }
            }
    const float *out = b.out->data;
    int ok = compare("ssm_scan y", out, y, P * H * T * S);
    ok &= compare("ssm_scan final_state", out + P * H * T * S, st, N * P * H * S);
    free(st); free(y); free(p.work); ggml_free(b.ctx);
    return ok;
}

static int check_gdn(runner_t *r, shape_t sh) {
    built_t b = build_gdn(sh);
    plan_t p = make_plan(r, b.gf);
    run_once(b.gf, &p);
    const int64_t D = sh.V, H = sh.H, T = sh.T, S = sh.B;
    const float *q = b.in[0]->data, *k = b.in[1]->data, *v = b.in[2]->data, *g = b.in[3]->data,
                *beta = b.in[4]->data, *s0 = b.in[5]->data;
    /* Reference keeps S[i][j] (i = key, j = value) row-major, i.e. the
     * transpose of ggml's memory order, so the comparison tests the layout. */
    float *Sm = malloc(sizeof(float) * D * D);
    float *o = malloc(sizeof(float) * D * H * T * S);
    float *fin = malloc(sizeof(float) * D * D * H * S);
    float *u = malloc(sizeof(float) * D);
    const float scale = 1.0f / sqrtf((float)D);
    for (int64_t sq = 0; sq < S; ++sq)
        for (int64_t h = 0; h < H; ++h) {
            const float *init = s0 + (sq * H + h) * D * D;
            for (int64_t i = 0; i < D; ++i)
                for (int64_t j = 0; j < D; ++j) Sm[i * D + j] = init[j * D + i];
            for (int64_t t = 0; t < T; ++t) {
                const int64_t row = ((sq * T + t) * H + h);
                const float *qt = q + row * D, *kt = k + row * D, *vt = v + row * D;
                const float a = expf(g[row]), bt = beta[row];
                for (int64_t e = 0; e < D * D; ++e) Sm[e] *= a;
                for (int64_t j = 0; j < D; ++j) {
                    double acc = 0;
                    for (int64_t i = 0; i < D; ++i) acc += (double)Sm[i * D + j] * kt[i];
                    u[j] = bt * (vt[j] - (float)acc);
                }
                for (int64_t i = 0; i < D; ++i)
                    for (int64_t j = 0; j < D; ++j) Sm[i * D + j] += kt[i] * u[j];
                for (int64_t j = 0; j < D; ++j) {
                    double acc = 0;
                    for (int64_t i = 0; i < D; ++i) acc += (double)Sm[i * D + j] * qt[i];
                    o[row * D + j] = scale * (float)acc;
                }
            }
            float *fo = fin + (sq * H + h) * D * D;
            for (int64_t i = 0; i < D; ++i)
                for (int64_t j = 0; j < D; ++j) fo[j * D + i] = Sm[i * D + j];
        }
    const float *out = b.out->data;
    int ok = compare("gated_delta_net o", out, o, D * H * T * S);
    ok &= compare("gated_delta_net final_state", out + D * H * T * S, fin, D * D * H * S);
    free(Sm); free(o); free(fin); free(u); free(p.work); ggml_free(b.ctx);
    return ok;
}

/* ---------------------------------------------------------------- bench -- */

typedef struct {
    double med, min, max, cpu_util, psi_ms;
    int contended;
} timing_t;

/* One timed block: `reps` back-to-back calls, with contention indicators. */
static timing_t time_block(runner_t *r, built_t *b, plan_t *p, int reps, double *ts) {
    timing_t t;
    const long long psi0 = psi_cpu_us();
    const double cpu0 = proc_cpu_s(), wall0 = now_s();
    for (int i = 0; i < reps; ++i) ts[i] = run_once(b->gf, p);
    const double cpu1 = proc_cpu_s(), wall1 = now_s();
    const long long psi1 = psi_cpu_us();
    qsort(ts, reps, sizeof(double), cmp_dbl);
    t.med = (reps & 1) ? ts[reps / 2] : 0.5 * (ts[reps / 2 - 1] + ts[reps / 2]);
    t.min = ts[0];
    t.max = ts[reps - 1];
    /* fraction of n_threads cores this process got during the block (the
     * OpenMP workers spin between calls, so ~1.0 on an otherwise idle box) */
    t.cpu_util = (cpu1 - cpu0) / ((wall1 - wall0) * r->n_threads);
    t.psi_ms = (psi0 >= 0 && psi1 >= 0) ? 1e-3 * (double)(psi1 - psi0) : -1.0;
    t.contended = t.cpu_util < 0.9 || t.psi_ms > 0.25 * 1e3 * (wall1 - wall0);
    return t;
}

/* Time one op/shape. On this shared 2-core machine, any other busy process
 * takes a core from one of our two threads and the timing doubles or worse.
 * So timed blocks are repeated until `blocks` clean (uncontended) ones have
 * been seen, or `attempts` blocks in all, sleeping between them after a
 * contended one. The clean block with the lowest median is reported (best of
 * medians, which also damps host-level noise the indicators cannot see).
 * If no block is clean, the lowest-median block is reported, marked
 * CONTENDED. */
static void bench(runner_t *r, const char *op, const char *mode, shape_t sh, int warmup, int reps,
                  int blocks, int attempts, double sleep_s) {
    const int is_ssm = strcmp(op, "ssm_scan") == 0;
    built_t b = is_ssm ? build_ssm(sh) : build_gdn(sh);
    plan_t p = make_plan(r, b.gf);
    double *ts = malloc(sizeof(double) * reps);
    timing_t best = {0};
    int used = 0, clean = 0, last_contended = 0;
    for (int a = 0; a < attempts && clean < blocks; ++a) {
        if (last_contended && sleep_s > 0) {
            struct timespec d = {(time_t)sleep_s, (long)((sleep_s - (double)(time_t)sleep_s) * 1e9)};
            nanosleep(&d, NULL);
        }
        for (int i = 0; i < warmup; ++i) run_once(b.gf, &p);
        const timing_t t = time_block(r, &b, &p, reps, ts);
        used = a + 1;
        clean += !t.contended;
        last_contended = t.contended;
        if (a == 0 || (!t.contended && best.contended) ||
            (t.contended == best.contended && t.med < best.med))
            best = t;
    }
    const double med = best.med;
    const double tokens = (double)sh.T * (double)sh.B;
    const double flop_tok_head = is_ssm ? 2.0 * (2.0 * sh.K * sh.V) : 2.0 * (3.0 * sh.K * sh.V);
    const double flops = flop_tok_head * tokens * (double)sh.H;
    /* state traffic: initial state read + final state written (f32) */
    const double state_bytes = 2.0 * 4.0 * (double)sh.K * sh.V * sh.H * sh.B;
    printf("ggml %s %s T=%lld B=%lld H=%lld K=%lld V=%lld threads=%d reps=%d ms=%.4f min_ms=%.4f "
           "max_ms=%.4f tok_s=%.1f gflops=%.3f state_gbs=%.3f cpu_util=%.2f psi_wait_ms=%.1f blocks=%d/%d%s\n",
           op, mode, (long long)sh.T, (long long)sh.B, (long long)sh.H, (long long)sh.K, (long long)sh.V,
           r->n_threads, reps, 1e3 * med, 1e3 * best.min, 1e3 * best.max, tokens / med, flops / med * 1e-9,
           state_bytes / med * 1e-9, best.cpu_util, best.psi_ms, clean, used, best.contended ? " CONTENDED" : "");
    fflush(stdout);
    free(ts); free(p.work); ggml_free(b.ctx);
}

static void usage(const char *argv0) {
    fprintf(stderr,
            "usage: %s [--threads N] [--reps N] [--decode-reps N] [--warmup N] [--T N] [--H N] [--B N]\n"
            "          [--blocks N] [--attempts N] [--attempt-sleep S] [--check | --no-check]\n"
            "  defaults: threads=2 reps=11 decode-reps=101 warmup=2 T=4096 (fwd) B=64 (decode)\n"
            "  blocks=3 attempts=20 attempt-sleep=2.0: best median of `blocks` clean timed\n"
            "  blocks; contended blocks are retried, `attempts` blocks at most\n"
            "  H=4 (--H) K=V=128 (ssmc benchmark shapes); --check (default on) verifies\n"
            "  the op semantics against a naive C reference at small T before timing.\n",
            argv0);
}

int main(int argc, char **argv) {
    int n_threads = 2, reps = 11, dreps = 101, warmup = 2, check = 1;
    int64_t T = 4096, Bdec = 64, H = 4;
    int attempts = 20, blocks = 3;
    double att_sleep = 2.0;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        const int more = i + 1 < argc;
        if (!strcmp(a, "--threads") && more) n_threads = atoi(argv[++i]);
        else if (!strcmp(a, "--reps") && more) reps = atoi(argv[++i]);
        else if (!strcmp(a, "--decode-reps") && more) dreps = atoi(argv[++i]);
        else if (!strcmp(a, "--warmup") && more) warmup = atoi(argv[++i]);
        else if (!strcmp(a, "--T") && more) T = atoll(argv[++i]);
        else if (!strcmp(a, "--B") && more) Bdec = atoll(argv[++i]);
        else if (!strcmp(a, "--H") && more) H = atoll(argv[++i]);
        else if (!strcmp(a, "--blocks") && more) blocks = atoi(argv[++i]);
        else if (!strcmp(a, "--attempts") && more) attempts = atoi(argv[++i]);
        else if (!strcmp(a, "--attempt-sleep") && more) att_sleep = atof(argv[++i]);
        else if (!strcmp(a, "--check")) check = 1;
        else if (!strcmp(a, "--no-check")) check = 0;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(argv[0]); return 0; }
        else { usage(argv[0]); return 2; }
    }
    if (n_threads < 1 || reps < 5 || dreps < 5 || warmup < 0 || T < 1 || Bdec < 1 || H < 1 || attempts < 1 ||
        blocks < 1 || att_sleep < 0) {
        fprintf(stderr, "bad arguments (reps and decode-reps must be >= 5)\n");
        return 2;
    }

    ggml_cpu_init();
    printf("# ggml cpu features: avx2=%d fma=%d avx512=%d avx512_vnni=%d avx512_bf16=%d\n",
           ggml_cpu_has_avx2(), ggml_cpu_has_fma(), ggml_cpu_has_avx512(), ggml_cpu_has_avx512_vnni(),
           ggml_cpu_has_avx512_bf16());

    struct ggml_threadpool_params tpp = ggml_threadpool_params_default(n_threads);
    runner_t r = {.tp = ggml_threadpool_new(&tpp), .n_threads = n_threads};
    if (!r.tp) { fprintf(stderr, "ggml_threadpool_new failed\n"); return 1; }

    if (check) {
        int ok = 1;
        ok &= check_ssm(&r, (shape_t){.H = 4, .K = 128, .V = 128, .T = 37, .B = 3});
        ok &= check_gdn(&r, (shape_t){.H = 4, .K = 128, .V = 128, .T = 37, .B = 3});
        if (!ok) { fprintf(stderr, "semantic check FAILED\n"); return 1; }
    }

    const shape_t fwd = {.H = H, .K = 128, .V = 128, .T = T, .B = 1};
    const shape_t dec = {.H = H, .K = 128, .V = 128, .T = 1, .B = Bdec};
    bench(&r, "ssm_scan", "fwd", fwd, warmup, reps, blocks, attempts, att_sleep);
    bench(&r, "ssm_scan", "decode", dec, warmup * 5, dreps, blocks, attempts, att_sleep);
    bench(&r, "gated_delta_net", "fwd", fwd, warmup, reps, blocks, attempts, att_sleep);
    bench(&r, "gated_delta_net", "decode", dec, warmup * 5, dreps, blocks, attempts, att_sleep);

    ggml_threadpool_free(r.tp);
    return 0;
}
