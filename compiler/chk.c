/* compiler stage: verification against the fp64 oracle (see chk.h). */
#include "chk.h"
#include "chk_bwd.h"
#include "orc_interp.h"
#include "orc_rand.h"
#include "orc_ref.h"
#include "orc_tol.h"
#include "rt_cuda.h"
#include "rt_exec.h"
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct chk_batch {
  const cls_family *f;
  const layer_spec *s;
  const ssmc_kernel *k;
  chk_shape sh;
  int64_t T, cu[9];
  int n_in, H_in[SPEC_MAX_IO], D[SPEC_MAX_IO];
  double *in_d[SPEC_MAX_IO];   /* (T, H_in, D): exactly the values the kernel sees */
  void *in_k[SPEC_MAX_IO];     /* the kernel's buffers */
  int n_st;
  int64_t st_size[SPEC_MAX_IO];
  float *st0[SPEC_MAX_IO];     /* initial states, ABI layout (N, h_v, size), or NULL */
  float *st1[SPEC_MAX_IO];     /* states after the last run */
  void *out_k;                 /* (T, h_v, V) kernel dtype */
  double *out_d;
  float *x_k;                  /* (T, h_v, K) the solve's x */
  const chk_backend *be;       /* NULL: the CPU */
  char err[1024];              /* the backend's first failure */
  int fails;                   /* the backend's failed runs */
};

const void *chk_batch_kinput(const chk_batch *b, int i, size_t *bytes) {
  int bf = b->k->dtype == SSMC_BF16 && !ssmc_input_is_gate(b->k, i);
  *bytes = (size_t)(b->T * b->H_in[i] * b->D[i]) * (bf ? 2 : 4);
  return b->in_k[i];
}

void chk_batch_set_backend(chk_batch *b, const chk_backend *be) { b->be = be; }
const char *chk_batch_error(const chk_batch *b) { return !b->fails ? NULL : b->err[0] ? b->err : "the backend failed"; }
int chk_batch_fails(const chk_batch *b) { return b->fails; }
const chk_backend *chk_batch_backend(const chk_batch *b) { return b->be; }

static void run_fwd(chk_batch *b, const ssmc_kernel *k, const ssmc_fwd_args *a, int64_t t_total, int threads) {
  if (!b->be) { rt_run_fwd(k, a, threads); return; }
  char e[1024];
  if (b->be->fwd(b->be->ctx, k, a, t_total, e, sizeof e) && !b->fails++) snprintf(b->err, sizeof b->err, "%s", e);
}

static void run_decode(chk_batch *b, const ssmc_kernel *k, const ssmc_decode_args *a, int n_slots, int threads) {
  if (!b->be) { rt_run_decode(k, a, threads); return; }
  char e[1024];
  if (b->be->decode(b->be->ctx, k, a, n_slots, e, sizeof e) && !b->fails++) snprintf(b->err, sizeof b->err, "%s", e);
}

static void random_state(orc_rng *r, const ssmc_kernel *k, int i, float *dst) {
  if (k->state_symmetric[i]) { /* a positive semidefinite H: a few decayed k k' */
    double *full = calloc((size_t)k->K * k->K, sizeof *full), *u = malloc(sizeof(double) * (size_t)k->K);
    for (int j = 0; j < 6; j++) {
      orc_sample(r, SSMC_IN_UNIT_SPHERE, k->K, u);
      double w = 0.2 + 0.8 * orc_uniform(r);
      for (int a = 0; a < k->K; a++)
        for (int b = 0; b < k->K; b++) full[a * k->K + b] += w * u[a] * u[b];
    }
    for (int a = 0; a < k->K; a++)
      for (int b = 0; b <= a; b++) dst[a * (a + 1) / 2 + b] = (float)full[a * k->K + b];
    free(full);
    free(u);
  } else {
    for (int64_t j = 0; j < k->state_size[i]; j++) dst[j] = (float)(0.1 * orc_normal(r));
  }
}

chk_batch *chk_batch_new(const cls_family *f, const ssmc_kernel *k, const chk_shape *sh, uint64_t seed) {
  chk_batch *b = calloc(1, sizeof *b);
  b->f = f;
  b->s = f->spec;
  b->k = k;
  b->sh = *sh;
  b->cu[0] = 0;
  for (int n = 0; n < sh->n; n++) b->cu[n + 1] = b->cu[n] + sh->lens[n];
  b->T = b->cu[sh->n];
  orc_rng r;
  orc_rng_seed(&r, seed);
  b->n_in = k->n_inputs;
  for (int i = 0; i < k->n_inputs; i++) {
    int D = ssmc_input_len(k, i), H = ssmc_input_qk_heads(k, i) ? sh->h_qk : sh->h_v;
    int gate = ssmc_input_is_gate(k, i);
    b->H_in[i] = H;
    b->D[i] = D;
    int64_t n = b->T * H * D;
    b->in_d[i] = malloc(sizeof(double) * (size_t)(n + 1));
    for (int64_t t = 0; t < b->T * H; t++) orc_sample(&r, k->input_domain[i], D, b->in_d[i] + t * D);
    int bf = k->dtype == SSMC_BF16 && !gate;
    b->in_k[i] = malloc((size_t)(n + 1) * (bf ? 2 : 4));
    for (int64_t j = 0; j < n; j++) {
      float v = (float)b->in_d[i][j];
      if (bf) {
        uint16_t h = orc_f32_to_bf16(v);
        ((uint16_t *)b->in_k[i])[j] = h;
        b->in_d[i][j] = orc_bf16_to_f32(h);
      } else {
        ((float *)b->in_k[i])[j] = v;
        b->in_d[i][j] = v;
      }
    }
  }
  b->n_st = k->n_states;
  for (int i = 0; i < k->n_states; i++) {
    b->st_size[i] = k->state_size[i];
    int64_t n = (int64_t)(sh->n + 1) * sh->h_v * k->state_size[i]; /* one spare slot for decode */
    b->st1[i] = calloc((size_t)n, sizeof(float));
    if (sh->init) {
      b->st0[i] = calloc((size_t)n, sizeof(float));
      for (int64_t s = 0; s < (int64_t)sh->n * sh->h_v; s++) random_state(&r, k, i, b->st0[i] + s * k->state_size[i]);
    }
  }
  b->out_k = calloc((size_t)(b->T * sh->h_v * k->V + 1), k->dtype == SSMC_BF16 ? 2 : 4);
  b->out_d = calloc((size_t)(b->T * sh->h_v * k->V + 1), sizeof(double));
  b->x_k = calloc((size_t)(b->T * sh->h_v * k->K + 1), sizeof(float));
  return b;
}

void chk_batch_free(chk_batch *b) {
  if (!b) return;
  for (int i = 0; i < b->n_in; i++) { free(b->in_d[i]); free(b->in_k[i]); }
  for (int i = 0; i < b->n_st; i++) { free(b->st0[i]); free(b->st1[i]); }
  free(b->out_k);
  free(b->out_d);
  free(b->x_k);
  free(b);
}

static void out_to_double(chk_batch *b) {
  int64_t n = b->T * b->sh.h_v * b->k->V;
  for (int64_t j = 0; j < n; j++)
    b->out_d[j] = b->k->dtype == SSMC_BF16 ? orc_bf16_to_f32(((uint16_t *)b->out_k)[j]) : ((float *)b->out_k)[j];
}

const char *chk_fwd_label(const ssmc_kernel *k, int cc_major, int v, char *buf, size_t n) {
  if (!v || !k->cuda) return "fwd";
  ssmc_cuda_kernel c;
  ssmc_cuda_for_device(k->cuda, cc_major, &c);
  const int variant = rt_fwd_variant_at(&c, v);
  if (variant == RT_FWD_NARROW) return ssmc_cuda_fwd_narrow(&c) ? "fwd-narrow" : "fwd";
  if (variant == RT_FWD_SPLIT) return "fwd-split";
  if (variant != RT_FWD_FUSED) return "fwd";
  snprintf(buf, n, "fwd-%s", c.fused.entry + strlen(k->name) + 1);
  return buf;
}
const char *chk_bwd_label(const ssmc_kernel *k, int cc_major, int v, char *buf, size_t n) {
  if (!k->cuda) return "bwd";
  ssmc_cuda_kernel c;
  ssmc_cuda_for_device(k->cuda, cc_major, &c);
  int fwd, bwd;
  rt_bwd_run_at(&c, v, &fwd, &bwd);
  if (fwd == RT_FWD_NONE) return bwd == RT_BWD_NARROW ? "bwd-narrow" : "bwd";
  char f[64];
  snprintf(buf, n, "bwd-saved%s", chk_fwd_label(k, cc_major, v - rt_bwd_variant_count(&c), f, sizeof f) + 3);
  return buf;
}
void chk_run_fwd(chk_batch *b, const ssmc_kernel *k, int threads, int iters) {
  ssmc_fwd_args a = {0};
  a.n_seqs = b->sh.n;
  a.h_qk = b->sh.h_qk;
  a.h_v = b->sh.h_v;
  a.cu_seqlens = b->cu;
  for (int i = 0; i < b->n_in; i++) a.in[i] = b->in_k[i];
  a.out = b->out_k;
  a.aux_out[0] = k->n_aux ? b->x_k : NULL;
  for (int i = 0; i < b->n_st; i++) { a.state_in[i] = b->st0[i]; a.state_out[i] = b->st1[i]; }
  a.iters = iters;
  run_fwd(b, k, &a, b->T, threads);
  out_to_double(b);
}

void chk_batch_scale_input(chk_batch *b, int i, double f) {
  int64_t n = b->T * b->H_in[i] * b->D[i];
  int bf = b->k->dtype == SSMC_BF16 && !ssmc_input_is_gate(b->k, i);
  for (int64_t j = 0; j < n; j++) {
    float v = (float)(b->in_d[i][j] * f);
    if (bf) {
      uint16_t h = orc_f32_to_bf16(v);
      ((uint16_t *)b->in_k[i])[j] = h;
      b->in_d[i][j] = orc_bf16_to_f32(h);
    } else {
      ((float *)b->in_k[i])[j] = v;
      b->in_d[i][j] = v;
    }
  }
}

void chk_time_fwd(chk_batch *b, const ssmc_kernel *k, int threads, int iters) {
  ssmc_fwd_args a = {0};
  a.n_seqs = b->sh.n;
  a.h_qk = b->sh.h_qk;
  a.h_v = b->sh.h_v;
  a.cu_seqlens = b->cu;
  for (int i = 0; i < b->n_in; i++) a.in[i] = b->in_k[i];
  a.out = b->out_k;
  a.aux_out[0] = k->n_aux ? b->x_k : NULL;
  for (int i = 0; i < b->n_st; i++) { a.state_in[i] = b->st0[i]; a.state_out[i] = b->st1[i]; }
  a.iters = iters;
  run_fwd(b, k, &a, b->T, threads);
}

void chk_run_decode(chk_batch *b, const ssmc_kernel *k, int threads, int iters) {
  const chk_shape *sh = &b->sh;
  int N = sh->n, maxlen = 0;
  for (int n = 0; n < N; n++) maxlen = sh->lens[n] > maxlen ? sh->lens[n] : maxlen;
  /* slots are permuted: sequence n lives in slot N - n (slot 0 stays unused) */
  for (int i = 0; i < b->n_st; i++) {
    int64_t per = (int64_t)sh->h_v * b->st_size[i];
    memset(b->st1[i], 0, sizeof(float) * (size_t)((N + 1) * per));
    if (b->st0[i])
      for (int n = 0; n < N; n++) memcpy(b->st1[i] + (N - n) * per, b->st0[i] + n * per, sizeof(float) * (size_t)per);
  }
  void *tin[SPEC_MAX_IO];
  for (int i = 0; i < b->n_in; i++)
    tin[i] = malloc((size_t)N * b->H_in[i] * b->D[i] * 4 + 4);
  int esz = k->dtype == SSMC_BF16 ? 2 : 4;
  void *tout = malloc((size_t)N * sh->h_v * k->V * esz);
  float *tx = malloc(sizeof(float) * (size_t)N * sh->h_v * k->K + 4);
  int32_t slots[8];
  int64_t tok[8];
  for (int step = 0; step < maxlen; step++) {
    int m = 0;
    for (int n = 0; n < N; n++)
      if (sh->lens[n] > step) { slots[m] = N - n; tok[m++] = b->cu[n] + step; }
    for (int i = 0; i < b->n_in; i++) {
      int gsz = ssmc_input_is_gate(k, i) || k->dtype == SSMC_F32 ? 4 : 2;
      size_t row = (size_t)b->H_in[i] * b->D[i] * gsz;
      for (int j = 0; j < m; j++) memcpy((char *)tin[i] + j * row, (char *)b->in_k[i] + tok[j] * row, row);
    }
    ssmc_decode_args a = {0};
    a.n_seqs = m;
    a.h_qk = sh->h_qk;
    a.h_v = sh->h_v;
    for (int i = 0; i < b->n_in; i++) a.in[i] = tin[i];
    a.out = tout;
    a.aux_out[0] = k->n_aux ? tx : NULL;
    for (int i = 0; i < b->n_st; i++) a.state[i] = b->st1[i];
    a.slots = slots;
    a.iters = iters;
    run_decode(b, k, &a, N + 1, threads);
    size_t orow = (size_t)sh->h_v * k->V * esz, xrow = (size_t)sh->h_v * k->K * sizeof(float);
    for (int j = 0; j < m; j++) {
      memcpy((char *)b->out_k + tok[j] * orow, (char *)tout + j * orow, orow);
      memcpy((char *)b->x_k + tok[j] * xrow, (char *)tx + j * xrow, xrow);
    }
  }
  /* back to sequence order */
  for (int i = 0; i < b->n_st; i++) {
    int64_t per = (int64_t)sh->h_v * b->st_size[i];
    float *tmp = malloc(sizeof(float) * (size_t)(N * per) + 4);
    for (int n = 0; n < N; n++) memcpy(tmp + n * per, b->st1[i] + (N - n) * per, sizeof(float) * (size_t)per);
    memcpy(b->st1[i], tmp, sizeof(float) * (size_t)(N * per));
    free(tmp);
  }
  for (int i = 0; i < b->n_in; i++) free(tin[i]);
  free(tout);
  free(tx);
  out_to_double(b);
}

void chk_run_fwd_split(chk_batch *b, const ssmc_kernel *k, int64_t t1, int threads, int iters) {
  int esz = k->dtype == SSMC_BF16 ? 2 : 4;
  float *mid[SPEC_MAX_IO];
  for (int i = 0; i < b->n_st; i++) mid[i] = calloc((size_t)(b->sh.h_v * b->st_size[i]), sizeof(float));
  for (int part = 0; part < 2; part++) {
    int64_t from = part ? t1 : 0, len = part ? b->T - t1 : t1;
    ssmc_fwd_args a = {0};
    a.n_seqs = 1;
    a.h_qk = b->sh.h_qk;
    a.h_v = b->sh.h_v;
    a.t_len = len;
    for (int i = 0; i < b->n_in; i++) {
      int gsz = ssmc_input_is_gate(k, i) || k->dtype == SSMC_F32 ? 4 : 2;
      a.in[i] = (char *)b->in_k[i] + from * b->H_in[i] * b->D[i] * gsz;
    }
    a.out = (char *)b->out_k + from * b->sh.h_v * k->V * esz;
    a.aux_out[0] = k->n_aux ? b->x_k + from * b->sh.h_v * k->K : NULL;
    for (int i = 0; i < b->n_st; i++) {
      a.state_in[i] = part ? mid[i] : b->st0[i];
      a.state_out[i] = part ? b->st1[i] : mid[i];
    }
    a.iters = iters;
    run_fwd(b, k, &a, len, threads);
  }
  for (int i = 0; i < b->n_st; i++) free(mid[i]);
  out_to_double(b);
}

double *chk_batch_input(chk_batch *b, int i) { return b->in_d[i]; }

void chk_batch_sync_input(chk_batch *b, int i) {
  int64_t n = b->T * b->H_in[i] * b->D[i];
  int bf = b->k->dtype == SSMC_BF16 && !ssmc_input_is_gate(b->k, i);
  for (int64_t j = 0; j < n; j++) {
    if (bf) {
      ((uint16_t *)b->in_k[i])[j] = orc_f32_to_bf16((float)b->in_d[i][j]);
      b->in_d[i][j] = orc_bf16_to_f32(((uint16_t *)b->in_k[i])[j]);
    } else {
      ((float *)b->in_k[i])[j] = (float)b->in_d[i][j];
      b->in_d[i][j] = (float)b->in_d[i][j];
    }
  }
}

const float *chk_batch_x(chk_batch *b) { return b->x_k; }
const chk_shape *chk_batch_shape(const chk_batch *b) { return &b->sh; }
const int64_t *chk_batch_cu(const chk_batch *b) { return b->cu; }
const float *chk_batch_state0(const chk_batch *b, int i) { return b->st0[i]; }

const double *chk_batch_out(chk_batch *b, int64_t *n) { *n = b->T * b->sh.h_v * b->k->V; return b->out_d; }
const float *chk_batch_state(chk_batch *b, int i, int64_t *n) {
  *n = (int64_t)b->sh.n * b->sh.h_v * b->st_size[i];
  return b->st1[i];
}
int64_t chk_batch_tokens(const chk_batch *b) { return b->T; }

/* ------------------------------------------------------------ the oracle side */

typedef struct {
  double *y, *y_exact, *x, *x_exact; /* (T, h_v, V|K) like the kernel */
  double *st[SPEC_MAX_IO];           /* (N, h_v, size) ABI layout */
  int failed_solve;
} oracle_res;

static void oracle_run(chk_batch *b, int iters, oracle_res *o) {
  const layer_spec *s = b->s;
  const ssmc_kernel *k = b->k;
  const chk_shape *sh = &b->sh;
  int K = s->K, V = s->V;
  memset(o, 0, sizeof *o);
  o->y = calloc((size_t)(b->T * sh->h_v * V + 1), sizeof(double));
  o->y_exact = calloc((size_t)(b->T * sh->h_v * V + 1), sizeof(double));
  o->x = calloc((size_t)(b->T * sh->h_v * K + 1), sizeof(double));
  o->x_exact = calloc((size_t)(b->T * sh->h_v * K + 1), sizeof(double));
  for (int i = 0; i < b->n_st; i++) o->st[i] = calloc((size_t)(sh->n * sh->h_v * b->st_size[i]), sizeof(double));
  for (int n = 0; n < sh->n; n++)
    for (int h = 0; h < sh->h_v; h++) {
      int T = sh->lens[n], hq = h / (sh->h_v / sh->h_qk);
      double *in[SPEC_MAX_IO], *st[SPEC_MAX_IO];
      for (int i = 0; i < b->n_in; i++) {
        int D = b->D[i], hh = ssmc_input_qk_heads(k, i) ? hq : h;
        in[i] = malloc(sizeof(double) * (size_t)(T * D + 1));
        for (int t = 0; t < T; t++)
          memcpy(in[i] + t * D, b->in_d[i] + ((b->cu[n] + t) * b->H_in[i] + hh) * D, sizeof(double) * (size_t)D);
      }
      for (int i = 0; i < b->n_st; i++) {
        size_t full = k->state_symmetric[i] ? (size_t)K * K : (size_t)b->st_size[i];
        st[i] = calloc(full, sizeof(double));
        const float *src = b->st0[i] ? b->st0[i] + ((int64_t)n * sh->h_v + h) * b->st_size[i] : NULL;
        if (src && k->state_symmetric[i]) {
          for (int a = 0; a < K; a++)
            for (int c = 0; c <= a; c++) st[i][a * K + c] = st[i][c * K + a] = src[a * (a + 1) / 2 + c];
        } else if (src) {
          for (size_t j = 0; j < full; j++) st[i][j] = src[j];
        }
      }
      double *y = malloc(sizeof(double) * (size_t)(T * V + 1)), *ye = malloc(sizeof(double) * (size_t)(T * V + 1));
      double *x = malloc(sizeof(double) * (size_t)(T * K + 1)), *xe = malloc(sizeof(double) * (size_t)(T * K + 1));
      orc_out oo = {iters, y, ye, x, xe};
      if (orc_interp(s, T, (const double *const *)in, st, &oo)) o->failed_solve = 1;
      for (int t = 0; t < T; t++) {
        int64_t row = (b->cu[n] + t) * sh->h_v + h;
        memcpy(o->y + row * V, y + t * V, sizeof(double) * (size_t)V);
        memcpy(o->y_exact + row * V, ye + t * V, sizeof(double) * (size_t)V);
        memcpy(o->x + row * K, x + t * K, sizeof(double) * (size_t)K);
        memcpy(o->x_exact + row * K, xe + t * K, sizeof(double) * (size_t)K);
      }
      for (int i = 0; i < b->n_st; i++) {
        double *dst = o->st[i] + ((int64_t)n * sh->h_v + h) * b->st_size[i];
        if (k->state_symmetric[i]) {
          for (int a = 0; a < K; a++)
            for (int c = 0; c <= a; c++) dst[a * (a + 1) / 2 + c] = st[i][a * K + c];
        } else {
          memcpy(dst, st[i], sizeof(double) * (size_t)b->st_size[i]);
        }
        free(st[i]);
      }
      for (int i = 0; i < b->n_in; i++) free(in[i]);
      free(y); free(ye); free(x); free(xe);
    }
}

static void oracle_free(oracle_res *o, int n_st) {
  free(o->y); free(o->y_exact); free(o->x); free(o->x_exact);
  for (int i = 0; i < n_st; i++) free(o->st[i]);
}

double *chk_batch_oracle_y(chk_batch *b, int iters) {
  oracle_res o;
  oracle_run(b, iters, &o);
  double *y = o.y;
  o.y = NULL;
  oracle_free(&o, b->n_st);
  return y;
}

double chk_batch_solve_gap(chk_batch *b, int iters) {
  if (!b->k->n_aux) return 0;
  oracle_res o;
  oracle_run(b, iters, &o);
  double gap = orc_rel_l2(o.x, o.x_exact, (size_t)(b->T * b->sh.h_v * b->s->K));
  oracle_free(&o, b->n_st);
  return gap;
}

/* ------------------------------------------------------------ rows */

void chk_row_judge(FILE *out, chk_result *r, const char *kname, const char *shape, const char *what, double mx,
                   double rel, double bound) {
  int ok = bound <= 0 || rel <= bound; /* bound <= 0: reported, not judged */
  if (bound > 0) {
    r->rows++;
    if (!ok) r->failed++;
    if (rel / bound > r->worst_ratio) r->worst_ratio = rel / bound;
  }
  char b[32];
  if (bound > 0) snprintf(b, sizeof b, "%.0e", bound);
  else snprintf(b, sizeof b, "-");
  fprintf(out, "%-44s %-14s %-22s %10.3e %10.3e %7s  %s\n", kname, shape, what, mx, rel, b,
          bound <= 0 ? "info" : ok ? "PASS" : "FAIL");
}

void chk_row_error(FILE *out, chk_result *r, const char *kname, const char *shape, const char *fmt, ...) {
  fprintf(out, "%-44s %-14s error: ", kname, shape);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(out, fmt, ap);
  va_end(ap);
  fputc('\n', out);
  r->rows++;
  r->failed++;
}

static void row(FILE *out, chk_result *r, const char *kname, const char *shape, const char *what,
                const double *got, const double *want, int64_t n, double bound) {
  chk_row_judge(out, r, kname, shape, what, orc_max_abs(got, want, (size_t)n), orc_rel_l2(got, want, (size_t)n),
                bound);
}

static void compare(chk_batch *b, const oracle_res *o, const char *kname, const char *shape, const char *mode,
                    FILE *out, chk_result *r, int check_x) {
  char what[64];
  int64_t n;
  const double *got = chk_batch_out(b, &n);
  snprintf(what, sizeof what, "%s y", mode);
  row(out, r, kname, shape, what, got, o->y, n, orc_tol_bound(ORC_TOL_OUTPUT));
  for (int i = 0; i < b->n_st; i++) {
    int64_t m;
    const float *sf = chk_batch_state(b, i, &m);
    double *sd = malloc(sizeof(double) * (size_t)(m + 1));
    for (int64_t j = 0; j < m; j++) sd[j] = sf[j];
    snprintf(what, sizeof what, "%s state %s", mode, b->k->state_names[i]);
    row(out, r, kname, shape, what, sd, o->st[i], m, orc_tol_bound(ORC_TOL_STATE));
    free(sd);
  }
  if (check_x && b->k->n_aux) {
    int64_t m = b->T * b->sh.h_v * b->k->K;
    double *xd = malloc(sizeof(double) * (size_t)(m + 1));
    for (int64_t j = 0; j < m; j++) xd[j] = b->x_k[j];
    snprintf(what, sizeof what, "%s %s vs cheb", mode, b->k->aux_names[0]);
    row(out, r, kname, shape, what, xd, o->x, m, orc_tol_bound(ORC_TOL_SOLVE_CHEB));
    snprintf(what, sizeof what, "%s %s vs exact", mode, b->k->aux_names[0]);
    row(out, r, kname, shape, what, xd, o->x_exact, m, 0);
    free(xd);
  }
}

/* One shape: the oracle, the forward and (but at T=4096) decode through permuted slots, compared;
 * edge: the inputs that break other kernels (chkb_edge_inputs: log-decays exactly 0 then -20,
 * beta 0 then 1 with one key repeated, a zero state at the start). */
static void check_shape(const cls_family *f, const ssmc_kernel *k, const chk_opts *o, const chk_shape *sh, uint64_t seed,
                        int edge, int decode, int bwd, uint64_t bwd_seed, FILE *out, chk_result *r) {
  chk_batch *b = chk_batch_new(f, k, sh, seed);
  chk_batch_set_backend(b, o->be);
  if (edge) chkb_edge_inputs(b, f, k);
  oracle_res orc;
  oracle_run(b, o->iters, &orc);
  if (orc.failed_solve) fprintf(out, "note: the exact solve met a matrix that is not positive definite\n");
  { /* every forward variant of the backend */
    const chk_backend *be = o->be;
    const int nv = be && be->fwd_variants ? be->fwd_variants(be->ctx, k) : 1;
    for (int v = 0; v < nv; v++) {
      if (nv > 1) be->set_fwd_variant(be->ctx, v);
      const int f0 = chk_batch_fails(b);
      chk_run_fwd(b, k, o->threads, o->iters);
      char lab[48];
      if (chk_batch_fails(b) == f0) /* a run that failed has no numbers to compare: its error row below says why */
        compare(b, &orc, k->name, sh->name, chk_fwd_label(k, be ? be->cc_major : 0, v, lab, sizeof lab), out, r, 1);
    }
    if (nv > 1) be->set_fwd_variant(be->ctx, -1);
  }
  if (decode) { /* token by token, through permuted slots; every decode variant of the backend */
    const chk_backend *be = o->be;
    const int nv = be && be->decode_variants ? be->decode_variants(be->ctx, k) : 1;
    for (int v = 0; v < nv; v++) {
      if (nv > 1) be->set_decode_variant(be->ctx, v);
      const int f0 = chk_batch_fails(b);
      chk_run_decode(b, k, o->threads, o->iters);
      if (chk_batch_fails(b) == f0) compare(b, &orc, k->name, sh->name, v ? "decode-large" : "decode", out, r, 1);
    }
    if (nv > 1) be->set_decode_variant(be->ctx, -1);
  }
  if (chk_batch_error(b)) /* a backend failure fails the shape, whatever the numbers said */
    chk_row_error(out, r, k->name, sh->name, "%s", chk_batch_error(b));
  if (bwd) chkb_rows(b, f, k, o, sh->name, bwd_seed, out, r); /* chk_bwd.c */
  if (k->n_aux) {
    int64_t n;
    chk_batch_out(b, &n);
    row(out, r, k->name, sh->name, "oracle y cheb vs exact", orc.y, orc.y_exact, n, 0);
  }
  oracle_free(&orc, b->n_st);
  chk_batch_free(b);
}

int chk_kernel(const cls_family *f, const ssmc_kernel *k, const chk_opts *o, FILE *out, chk_result *r) {
  int C = k->chunk;
  chk_shape shapes[] = {
    {"T=1", 1, {1}, 1, 2, 1},
    {"partial", 1, {C + 17}, 2, 2, 0},
    {"varlen", 3, {37, 2 * C + 5, 1}, 1, 2, 1},
    {"T=4096", 1, {4096}, 1, 1, 0},
  };
  int ns = o->long_shapes ? 4 : 3;
  memset(r, 0, sizeof *r);
  /* a backend without a backward for this kernel says so once (CUDA: a solve readout) */
  int bwd = !o->be || (o->be->bwd && !(k->cuda && !k->cuda->n_bwd));
  if (!bwd && o->bwd_skip < 2)
    fprintf(out, "%-44s %-14s %-22s NOT RUN (no %s backward for this kernel yet)\n", k->name, "all", "bwd", o->be->name);
  for (int i = 0; i < ns; i++)
    check_shape(f, k, o, &shapes[i], o->seed + (uint64_t)i * 7919, 0, i != 3, o->bwd_skip < (i == 3 ? 1 : 2) && bwd,
                o->seed + (uint64_t)i * 104729, out, r);
  chk_shape edges = {"edges", 2, {C + 5, 3}, 1, 2, 0};
  check_shape(f, k, o, &edges, o->seed + 4242, 1, 1, 0, 0, out, r);
  if (o->bwd_skip < 2 && bwd) chkb_edges(f, k, o, out, r); /* chk_bwd.c */
  return r->failed;
}
