/* compiler stage: backward rows of `ssmc check` (see chk_bwd.h). */
#include "chk_bwd.h"
#include "orc_grad.h"
#include "orc_rand.h"
#include "orc_tol.h"
#include "rt_exec.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void chkb_row(FILE *out, chk_result *r, const char *kname, const char *shape, const char *what,
                     const double *got, const double *want, int64_t n, double bound, double fl) {
  /* relative L2 with the norm of want floored at fl RMS (orc_tol.c, ORC_TOL_GRAD_FLOOR; decay_floor). Where the
   * oracle's gradient is not finite (the spec's derivative is unbounded there, e.g. of sqrt(beta) at beta = 0)
   * the kernel's must not be finite either; the other elements are compared. */
  double num = 0, den = 0, mx = 0;
  int64_t unbounded = 0, finite_got = 0;
  for (int64_t j = 0; j < n; j++) {
    if (!isfinite(want[j])) { unbounded++; finite_got += isfinite(got[j]) != 0; continue; }
    double e = got[j] - want[j];
    num += e * e;
    den += want[j] * want[j];
    mx = isnan(e) || fabs(e) > mx ? fabs(e) : mx;
  }
  if (den < fl * fl * (double)n) den = fl * fl * (double)n;
  double rel = sqrt(num) / sqrt(den);
  if (isnan(mx) || finite_got) rel = NAN;
  if (unbounded)
    fprintf(out, "note: %s %s %s: the oracle's gradient is not finite at %lld of %lld elements (the spec's derivative "
            "is unbounded at these inputs); the kernel's is %s there; the rest is compared\n", kname, shape, what,
            (long long)unbounded, (long long)n, finite_got ? "finite (wrong)" : "not finite either");
  chk_row_judge(out, r, kname, shape, what, mx, rel, bound);
}
/* the same for a kernel's float gradient */
static void chkb_row_f(FILE *out, chk_result *r, const char *kname, const char *shape, const char *what,
                       const float *got, const double *want, int64_t n, double bound, double fl) {
  double *g = malloc(sizeof(double) * (size_t)(n + 1));
  for (int64_t j = 0; j < n; j++) g[j] = got[j];
  chkb_row(out, r, kname, shape, what, g, want, n, bound, fl);
  free(g);
}

static int in_heads(const ssmc_kernel *k, const chk_shape *sh, int i) {
  return ssmc_input_qk_heads(k, i) ? sh->h_qk : sh->h_v;
}

/* The RMS floor of input i's gradient (chkb_row): ORC_TOL_GRAD_FLOOR, and for a log decay at least
 * ORC_TOL_DECAY_GRAD_FLOOR times the RMS of its cumulative-sum identity's k . dk terms: for each of its elements the
 * sum of |k dk| over the keys it decays (all K with a scalar decay, its own key with per-key decays), k the main
 * state's key as the kernel read it and dk the oracle's gradient of it (its heads' group, as the kernel sums it). */
static double decay_floor(chk_batch *b, const cls_family *f, const ssmc_kernel *k, int i, const double *dk) {
  const double fl = orc_tol_bound(ORC_TOL_GRAD_FLOOR);
  const int ki = f->main.key_in;
  if (k->input_domain[i] != SSMC_IN_LOG_DECAY || ki < 0 || !dk) return fl;
  const chk_shape *sh = chk_batch_shape(b);
  const int64_t T = chk_batch_tokens(b);
  const int H = in_heads(k, sh, i), D = ssmc_input_len(k, i), HK = in_heads(k, sh, ki), K = ssmc_input_len(k, ki);
  const double *key = chk_batch_input(b, ki);
  double ss = 0;
  for (int64_t t = 0; t < T; t++)
    for (int h = 0; h < H; h++) {
      const int64_t o = (t * HK + (int64_t)h * HK / H) * K;
      for (int d = 0; d < D; d++) {
        double s = 0;
        for (int c = D == 1 ? 0 : d; c < (D == 1 ? K : d + 1); c++) s += fabs(key[o + c] * dk[o + c]);
        ss += s * s;
      }
    }
  const double rel = orc_tol_bound(ORC_TOL_DECAY_GRAD_FLOOR) * sqrt(ss / (double)(T * H * D + !T));
  return rel > fl ? rel : fl;
}

int chkb_run(chk_batch *b, const ssmc_kernel *k, int threads, int iters, const void *dy, float *const *dstate_out,
             const float *aux, float **din, float **dstate0, void *y, char *err, size_t n) {
  const chk_shape *sh = chk_batch_shape(b);
  ssmc_bwd_args a = {0};
  a.n_seqs = sh->n;
  a.h_qk = sh->h_qk;
  a.h_v = sh->h_v;
  a.cu_seqlens = chk_batch_cu(b);
  for (int i = 0; i < k->n_inputs; i++) {
    size_t bytes;
    a.in[i] = chk_batch_kinput(b, i, &bytes);
    a.din[i] = din[i];
  }
  for (int i = 0; i < k->n_states; i++) {
    a.state_in[i] = chk_batch_state0(b, i);
    a.dstate_out[i] = dstate_out[i];
    a.dstate_in[i] = dstate0[i];
  }
  a.aux_in[0] = aux;
  a.dout = dy;
  a.iters = iters;
  const chk_backend *be = chk_batch_backend(b);
  if (!be) {
    const int rc = rt_run_bwd(k, &a, threads);
    if (rc) snprintf(err, n, "%s has no backward", k->name);
    return rc;
  }
  return be->bwd(be->ctx, k, &a, chk_batch_tokens(b), y, err, n) ? -1 : 0;
}

void chkb_edge_inputs(chk_batch *b, const cls_family *f, const ssmc_kernel *k) {
  const chk_shape *sh = chk_batch_shape(b);
  const int64_t *cu = chk_batch_cu(b);
  int64_t T = chk_batch_tokens(b);
  for (int i = 0; i < k->n_inputs; i++) {
    double *x = chk_batch_input(b, i);
    int H = in_heads(k, sh, i), D = ssmc_input_len(k, i);
    for (int n = 0; n < sh->n; n++)
      for (int64_t t = cu[n]; t < cu[n + 1]; t++) {
        int64_t tl = t - cu[n], len = cu[n + 1] - cu[n];
        for (int h = 0; h < H; h++) {
          double *p = x + (t * H + h) * D;
          if (k->input_domain[i] == SSMC_IN_LOG_DECAY)
            for (int d = 0; d < D; d++) p[d] = 2 * tl < len ? 0.0 : -20.0;
          else if (k->input_domain[i] == SSMC_IN_UNIT)
            for (int d = 0; d < D; d++) p[d] = tl < 2 ? 0.0 : 1.0;
          else if ((i == f->main.key_in || (f->has_solve && i == f->aux.key_in)) && tl > 0)
            memcpy(p, x + (cu[n] * H + h) * D, sizeof(double) * (size_t)D);
        }
      }
    (void)T;
    chk_batch_sync_input(b, i);
  }
}

/* The oracle's gradients for the whole batch, in the kernel's layouts. */
static int oracle_grads(chk_batch *b, const layer_spec *s, const ssmc_kernel *k, int iters, orc_solve how,
                        int implicit, const double *dy, double *const *dso, double **din, double **ds0) {
  const chk_shape *sh = chk_batch_shape(b);
  const int64_t *cu = chk_batch_cu(b);
  int K = k->K, V = k->V, rc = 0;
  for (int n = 0; n < sh->n; n++)
    for (int h = 0; h < sh->h_v; h++) {
      int T = sh->lens[n], hq = h / (sh->h_v / sh->h_qk);
      double *in[SPEC_MAX_IO], *st[SPEC_MAX_IO], *dst[SPEC_MAX_IO], *gin[SPEC_MAX_IO], *gst[SPEC_MAX_IO];
      for (int i = 0; i < k->n_inputs; i++) {
        int D = ssmc_input_len(k, i), H = in_heads(k, sh, i), hh = ssmc_input_qk_heads(k, i) ? hq : h;
        const double *x = chk_batch_input(b, i);
        in[i] = malloc(sizeof(double) * (size_t)(T * D + 1));
        gin[i] = malloc(sizeof(double) * (size_t)(T * D + 1));
        for (int t = 0; t < T; t++) memcpy(in[i] + t * D, x + ((cu[n] + t) * H + hh) * D, sizeof(double) * (size_t)D);
      }
      double *dyh = malloc(sizeof(double) * (size_t)(T * V + 1));
      for (int t = 0; t < T; t++) memcpy(dyh + t * V, dy + ((cu[n] + t) * sh->h_v + h) * V, sizeof(double) * (size_t)V);
      for (int i = 0; i < k->n_states; i++) {
        int64_t S = k->state_size[i];
        size_t full = k->state_symmetric[i] ? (size_t)K * K : (size_t)S;
        st[i] = calloc(full, sizeof(double));
        dst[i] = calloc(full, sizeof(double));
        gst[i] = calloc(full, sizeof(double));
        const float *s0 = chk_batch_state0(b, i);
        const float *src = s0 ? s0 + ((int64_t)n * sh->h_v + h) * S : NULL;
        const double *dsrc = dso[i] + ((int64_t)n * sh->h_v + h) * S;
        if (k->state_symmetric[i]) {
          for (int a = 0; a < K; a++)
            for (int c = 0; c <= a; c++) {
              if (src) st[i][a * K + c] = st[i][c * K + a] = src[a * (a + 1) / 2 + c];
              double p = dsrc[a * (a + 1) / 2 + c];
              dst[i][a * K + c] = dst[i][c * K + a] = a == c ? p : 0.5 * p;
            }
        } else {
          for (size_t j = 0; j < full; j++) { st[i][j] = src ? src[j] : 0.0; dst[i][j] = dsrc[j]; }
        }
      }
      orc_grad_io g = {iters, how, dyh, (const double *const *)dst, gin, gst, implicit};
      if (orc_grad(s, T, (const double *const *)in, (const double *const *)st, &g)) rc = -1;
      for (int i = 0; i < k->n_inputs; i++) {
        int D = ssmc_input_len(k, i), H = in_heads(k, sh, i), hh = ssmc_input_qk_heads(k, i) ? hq : h;
        for (int t = 0; t < T; t++)
          for (int d = 0; d < D; d++) din[i][((cu[n] + t) * H + hh) * D + d] += gin[i][t * D + d];
        free(in[i]);
        free(gin[i]);
      }
      for (int i = 0; i < k->n_states; i++) {
        double *o = ds0[i] + ((int64_t)n * sh->h_v + h) * k->state_size[i];
        if (k->state_symmetric[i]) {
          for (int a = 0; a < K; a++)
            for (int c = 0; c <= a; c++)
              o[a * (a + 1) / 2 + c] = a == c ? gst[i][a * K + a] : gst[i][a * K + c] + gst[i][c * K + a];
        } else {
          memcpy(o, gst[i], sizeof(double) * (size_t)k->state_size[i]);
        }
        free(st[i]);
        free(dst[i]);
        free(gst[i]);
      }
      free(dyh);
    }
  return rc;
}

/* Gradients vs the exact solve are judged at the spec's r where the solve converged on this batch
 * (ORC_TOL_SOLVE_CONVERGED); elsewhere they measure the spec's r, reported with a note. */
static int exact_judged(chk_batch *b, const ssmc_kernel *k, const chk_opts *o, const char *shape, FILE *out) {
  if (!k->n_aux || o->iters > 0) return 0;
  double gap = chk_batch_solve_gap(b, o->iters), conv = orc_tol_bound(ORC_TOL_SOLVE_CONVERGED);
  if (gap <= conv) return 1;
  fprintf(out, "note: %s %s: at the spec's r the fp64 Chebyshev %s is %.1e from the exact solve (> %.0e): "
          "gradients vs exact are reported, not judged\n", k->name, shape, k->aux_names[0], gap, conv);
  return 0;
}

int chkb_rows(chk_batch *b, const cls_family *f, const ssmc_kernel *k, const chk_opts *o, const char *shape,
              uint64_t seed, FILE *out, chk_result *r) {
  const chk_shape *sh = chk_batch_shape(b);
  int64_t T = chk_batch_tokens(b);
  int failed0 = r->failed;
  const chk_backend *be = chk_batch_backend(b);
  if (be ? !be->bwd : !k->bwd) {
    chk_row_error(out, r, k->name, shape, "the kernel has no backward");
    return 1;
  }
  orc_rng rng;
  orc_rng_seed(&rng, seed);
  /* dy in the kernel's dtype (the oracle sees the same rounded values) and dS_T */
  int64_t ny = T * sh->h_v * k->V;
  double *dyd = malloc(sizeof(double) * (size_t)(ny + 1));
  void *dyk = malloc((size_t)(ny + 1) * 4);
  for (int64_t j = 0; j < ny; j++) {
    float v = (float)orc_normal(&rng);
    if (k->dtype == SSMC_BF16) {
      ((uint16_t *)dyk)[j] = orc_f32_to_bf16(v);
      dyd[j] = orc_bf16_to_f32(((uint16_t *)dyk)[j]);
    } else {
      ((float *)dyk)[j] = v;
      dyd[j] = v;
    }
  }
  float *dsok[SPEC_MAX_IO], *ds0k[SPEC_MAX_IO], *dink[SPEC_MAX_IO];
  double *dsod[SPEC_MAX_IO], *ds0d[3][SPEC_MAX_IO], *dind[3][SPEC_MAX_IO];
  int64_t nst[SPEC_MAX_IO], nin[SPEC_MAX_IO];
  for (int i = 0; i < k->n_states; i++) {
    nst[i] = (int64_t)sh->n * sh->h_v * k->state_size[i];
    dsok[i] = malloc(sizeof(float) * (size_t)(nst[i] + 1));
    dsod[i] = malloc(sizeof(double) * (size_t)(nst[i] + 1));
    ds0k[i] = malloc(sizeof(float) * (size_t)(nst[i] + 1));
    for (int64_t j = 0; j < nst[i]; j++) {
      dsod[i][j] = dsok[i][j] = (float)(0.5 * orc_normal(&rng));
      ds0k[i][j] = NAN; /* every element must be written */
    }
    for (int m = 0; m < 3; m++) ds0d[m][i] = calloc((size_t)(nst[i] + 1), sizeof(double));
  }
  for (int i = 0; i < k->n_inputs; i++) {
    nin[i] = T * in_heads(k, sh, i) * ssmc_input_len(k, i);
    dink[i] = aligned_alloc(64, (sizeof(float) * (size_t)(nin[i] + 1) + 63) & ~(size_t)63); /* as a framework's tensors */
    for (int64_t j = 0; j < nin[i]; j++) dink[i][j] = NAN;
    for (int m = 0; m < 3; m++) dind[m][i] = calloc((size_t)(nin[i] + 1), sizeof(double));
  }
  const float *aux = NULL;
  if (k->n_aux) { /* the forward saves x for the backward */
    chk_run_fwd(b, k, o->threads, o->iters);
    aux = chk_batch_x(b);
  }
  /* Without a solve: one oracle gradient. With a solve, three fp64 references:
   *   implicit: the kernels' formula (g = CH_r(H + lI, dx) at the Chebyshev x) in fp64 — judged
   *             (the kernel's rounding);
   *   exact:    the exact solve's gradient — judged at the spec's r (what the implicit gradient
   *             approximates; with another --iters the solve itself is that far off: reported);
   *   cheb:     the gradient of the r-step Chebyshev function itself (which also moves with
   *             L = |H|_F + l and the truncation) — reported. */
  int modes = k->n_aux ? 3 : 1;
  static const orc_solve how[3] = {ORC_SOLVE_CHEBYSHEV, ORC_SOLVE_EXACT, ORC_SOLVE_CHEBYSHEV};
  for (int m = 0; m < modes; m++)
    if (oracle_grads(b, f->spec, k, o->iters, how[m], k->n_aux && m == 0, dyd, dsod, dind[m], ds0d[m]))
      fprintf(out, "note: the exact solve met a matrix that is not positive definite\n");
  double bound = orc_tol_bound(ORC_TOL_GRAD);
  int judge_exact = exact_judged(b, k, o, shape, out);
  /* every backward run of the backend (CUDA: the wide and the narrow chunk-to-chunk stages, after a kept forward);
   * a kept forward's output y is judged too, against the oracle's (ORC_TOL_OUTPUT) */
  const int nv = be && be->bwd_variants ? be->bwd_variants(be->ctx, k) : 1;
  const size_t esz = k->dtype == SSMC_F32 ? 4 : 2;
  void *yk = malloc((size_t)(ny + 1) * esz);
  double *yo = NULL; /* the oracle's y, once a run keeps a forward */
  for (int v = 0; v < nv; v++) {
    char lb[64];
    const char *lab = chk_bwd_label(k, be ? be->cc_major : 0, v, lb, sizeof lb);
    const int kept = strncmp(lab, "bwd-saved", 9) == 0;
    if (nv > 1) be->set_bwd_variant(be->ctx, v);
    for (int i = 0; i < k->n_inputs; i++)
      for (int64_t j = 0; j < nin[i]; j++) dink[i][j] = NAN;
    for (int i = 0; i < k->n_states; i++)
      for (int64_t j = 0; j < nst[i]; j++) ds0k[i][j] = NAN;
    memset(yk, 0xff, (size_t)ny * esz); /* NaN in either dtype: every element must be written */
    char why[1024] = "";
    if (chkb_run(b, k, o->threads, o->iters, dyk, dsok, aux, dink, ds0k, kept ? yk : NULL, why, sizeof why)) {
      chk_row_error(out, r, k->name, shape, "the %s could not run: %s", lab, why);
      continue; /* its gradients are not there to compare */
    } else if (kept) {
      if (!yo) yo = chk_batch_oracle_y(b, o->iters);
      float *yf = malloc(sizeof(float) * (size_t)(ny + 1));
      for (int64_t j = 0; j < ny; j++) yf[j] = esz == 4 ? ((float *)yk)[j] : orc_bf16_to_f32(((uint16_t *)yk)[j]);
      char what[64];
      snprintf(what, sizeof what, "%s y", lab);
      chkb_row_f(out, r, k->name, shape, what, yf, yo, ny, orc_tol_bound(ORC_TOL_OUTPUT), orc_tol_bound(ORC_TOL_GRAD_FLOOR));
      free(yf);
    }
    for (int m = 0; m < modes; m++) {
      static const char *const vsn[3] = {" vs implicit", " vs exact", " vs cheb"};
      const char *vs = k->n_aux ? vsn[m] : "";
      double jb = !k->n_aux || m == 0 || (m == 1 && judge_exact) ? bound : 0;
      char what[64];
      for (int i = 0; i < k->n_inputs; i++) {
        snprintf(what, sizeof what, "%s d%s%s", lab, k->input_names[i], vs);
        chkb_row_f(out, r, k->name, shape, what, dink[i], dind[m][i], nin[i], jb,
                   decay_floor(b, f, k, i, f->main.key_in >= 0 ? dind[m][f->main.key_in] : NULL));
      }
      for (int i = 0; i < k->n_states; i++) {
        snprintf(what, sizeof what, "%s d%s0%s", lab, k->state_names[i], vs);
        chkb_row_f(out, r, k->name, shape, what, ds0k[i], ds0d[m][i], nst[i], jb, orc_tol_bound(ORC_TOL_GRAD_FLOOR));
      }
    }
  }
  if (nv > 1) be->set_bwd_variant(be->ctx, -1);
  free(yk);
  free(yo);
  for (int i = 0; i < k->n_states; i++) {
    free(dsok[i]); free(dsod[i]); free(ds0k[i]);
    for (int m = 0; m < 3; m++) free(ds0d[m][i]);
  }
  for (int i = 0; i < k->n_inputs; i++) {
    free(dink[i]);
    for (int m = 0; m < 3; m++) free(dind[m][i]);
  }
  free(dyd);
  free(dyk);
  return r->failed - failed0;
}

void chkb_edges(const cls_family *f, const ssmc_kernel *k, const chk_opts *o, FILE *out, chk_result *r) {
  chk_shape sh = {"edges", 2, {k->chunk + 5, 3}, 1, 2, 0};
  chk_batch *b = chk_batch_new(f, k, &sh, o->seed + 4242);
  chk_batch_set_backend(b, o->be);
  chkb_edge_inputs(b, f, k);
  chk_run_fwd(b, k, o->threads, o->iters);
  if (chk_batch_error(b)) { /* no forward ran: nothing to judge, and the backward's rows would say the same */
    chk_row_error(out, r, k->name, "edges", "%s", chk_batch_error(b));
    chk_batch_free(b);
    return;
  }
  int64_t n;
  const double *y = chk_batch_out(b, &n);
  int finite = 1;
  for (int64_t j = 0; j < n; j++) finite &= isfinite(y[j]) != 0;
  fprintf(out, "%-44s %-14s %-22s %s\n", k->name, "edges", "fwd y finite", finite ? "PASS" : "FAIL");
  r->rows++;
  if (!finite) r->failed++;
  chkb_rows(b, f, k, o, "edges", o->seed + 4243, out, r);
  chk_batch_free(b);
}
