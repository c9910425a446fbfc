@ --[[ Template cpu_bwd.c.tpl — CPU chunkwise BACKWARD of one spec and dtype.
@ Appended by compiler/emb.c to the output of cpu_kernel.c.tpl (same C file): it
@ reuses the forward's chunk machinery (load_chunk, build_query, chunk_prepare,
@ chunk_tile, the solve steps, the mm / mm_at tile products) and its workspace
@ layout (WS_*), adding its own buffers after WS_TOTAL. Compiled once per ISA
@ like the forward (entry point NAME_bwd picks the AVX-512 compilation at run time).
@ Parameters (table P, built by compiler/emb.c):
@   name, K, V, C, dtype, inputs[i] = {idx, name, D, heads, gate}
@   main = {decay ('none'|'scalar'|'diag'), logdecay, dlog, diag_in, delta, erase, derase,
@           write, dwrite, key, val}
@   q[i] = {coef, dcoef, src}        q~ = sum coef * src; y = S q~
@   solve = nil | {logdecay, dlog, write, dwrite, key, lam_a, lam_b, iters, rhs}
@   d-lists: {{idx = j, d = "C expr"}}: partial derivative of the coefficient w.r.t. scalar input j.
@ Coefficient strings are C expressions of in[j][t_] (t_ the token in the chunk).
@ Algorithm per (sequence, value head): a state pass keeps the state at every chunk
@ start (the forward's chunk update without its readout); then chunks are visited
@ last to first, each differentiated as a whole with tile products: the written rows
@ u (WY/UT form with an erase), dU = Kdt dZ + A' dY, dW = T' dU, dA = dY u', the
@ erase's dAkk = -dW u', dq~ and dk from them, the state adjoint dZ carried to the
@ chunk start (dZ0 = e^{b_L} dZ + Qd' dY - Kd0' e dW), and the log-decay gradient
@ by the cumulative-sum identity d/db_t = q~.dq~ - k.dk(column) + k.dk(row) (+ the
@ chunk-end term Z_L . dZ), summed from the end of the chunk. The solve's gradient is
@ implicit: g = CH_r(H_t + lambda_t I, dx_t) for the whole chunk as tile products,
@ dH_t = -(g x' + x g')/2 + (a dlambda / ||H_t||) H_t, dlambda = -g.x, carried to the
@ chunk start and into dk, the write and the log decay of H in closed form. ]]
@ local K, V, C = P.K, P.V, P.C
@ local m, sv = P.main, P.solve
@ local diag = m.decay == 'diag'
@ local want_db = diag or #m.dlog > 0
@ local fix = 0
@ local ws = {}
@ local function alloc(name, n) ws[#ws + 1] = {name, fix}; fix = fix + math.ceil(n / 16) * 16 end
@ for _, x in ipairs(P.inputs) do alloc('DIN' .. x.idx, C * x.D) end
@ alloc('DY', C * V); alloc('U', C * V); alloc('UT', V * C); alloc('DU', C * V); alloc('Z0T', V * K)
@ alloc('DA', C * C); alloc('DQ', C * K); alloc('DKR', C * K); alloc('DKC', C * K); alloc('TMP', C * K)
@ alloc('TMPT', K * C); alloc('DB', diag and C * K or C); alloc('ZLD', K); alloc('DZ', K * V)
@ if diag then alloc('XR', C * K); alloc('TB', 16 * K) end
@ if m.delta then alloc('DW', C * V); alloc('DWE', C * V); alloc('DG', C * C)
@   alloc('KE', C * K); alloc('DCE', C) end
@ if sv then alloc('XS', C * K); alloc('DX', C * K); alloc('GS', C * K); alloc('GH', C * K); alloc('HX', C * K)
@   alloc('QV', C * K); alloc('XE', C * K); alloc('KR', C * K); alloc('MX', C * C); alloc('MG', C * C); alloc('NM', C * C)
@   alloc('RR', C); alloc('CN', C); alloc('DHB', C); alloc('NH', C); alloc('DH', K * K); alloc('MT', K * K) end
@ local per = K * V + (sv and K * K or 0) + (m.delta and C * V + C * C or 0)
@ local u_at = K * V + (sv and K * K or 0) -- a chunk's written rows u (CH, V), after its start state, then ti (CH, CH)

/* ---------------------------------------------------------------------------
 * Backward (template cpu_bwd.c.tpl): ${P.name}
 * Recognized: ${P.summary}
 * Chunk ${C}, chunkwise: the state at every chunk start of one sequence (${per} floats per chunk${m.delta and ', with' or ''})
@ if m.delta then
 * the rows the chunk writes (the WY/UT pseudo-values) and its (I + Akk)^{-1}) lives in the per-thread workspace; every chunk is
@ else
 * lives in the per-thread workspace; every chunk is
@ end
 * differentiated with tile products. Gradients are fp32.
 * ------------------------------------------------------------------------- */
enum {
@ for _, w in ipairs(ws) do
  BW_${w[1]} = WS_TOTAL + ${w[2]},
@ end
  BW_FIXED = WS_TOTAL + ${fix},
  BW_PER_CHUNK = ${per},
  BW_U_AT = ${u_at},
  BW_TI_AT = ${u_at + C * V}
};
#define BW_SB 16 /* sub-block of the per-key causal products */

/* a[t][s] = 0 for s > t - strict, rows t < m, in the columns a TRI_OUT product wrote. */
__attribute__((unused)) static void bw_causal_mask(float *a, int m, int strict) {
  for (int t = 0; t < m; t++) {
    int ns = ((t | (MR - 1)) + VW) / VW * VW;
    if (ns > CH) ns = CH;
    for (int s = t + 1 - strict; s < ns; s++) a[t * CH + s] = 0.0f;
  }
}

/* rows t < m of x (n wide): x_t *= c_t */
static void bw_scale_rows(float *x, int ld, const float *c, int m, int n) {
  for (int t = 0; t < m; t++) {
    const vf e = vset(c[t]);
    for (int j = 0; j < n; j += VW) vst(x + t * ld + j, e * vld(x + t * ld + j));
  }
}

static void bw_bind_din(float **din, float *ws) {
@ for _, x in ipairs(P.inputs) do
  din[${x.idx}] = ws + BW_DIN${x.idx};
@ end
}

/* n floats (n % VW == 0) from s to p (64-byte aligned) past the caches: a gradient row is written once and not
 * read again here, so its line is not fetched first (bw_chunk fences after its rows). */
static inline void bw_stream_row(float *p, const float *s, int n) {
#if defined(__clang__)
  for (int d = 0; d < n; d += VW) __builtin_nontemporal_store(vld(s + d), (vf *)(p + d));
#elif VW == 16
  for (int d = 0; d < n; d += VW) __builtin_ia32_movntps512(p + d, vld(s + d));
#else
  for (int d = 0; d < n; d += VW) __builtin_ia32_movntps256(p + d, vld(s + d));
#endif
}

/* Asks for the dY rows of tokens tok0 .. tok0+L-1 ahead of their bw_load_dy. */
static void bw_prefetch_dy(const ssmc_bwd_args *a, int64_t tok0, int L, int h) {
  for (int t = 0; t < L; t++) {
    const char *p = (const char *)((const elem_t *)a->dout + ((tok0 + t) * a->h_v + h) * VD);
    for (int d = 0; d < (int)(VD * sizeof(elem_t)); d += 64) __builtin_prefetch(p + d);
  }
}

/* dY rows of tokens tok0 .. tok0+L-1 in fp32, (CH, V); rows L .. CH-1 zero. */
static void bw_load_dy(const ssmc_bwd_args *a, int64_t tok0, int L, int h, float *dy) {
  const elem_t *src = (const elem_t *)a->dout;
  for (int t = 0; t < L; t++) ld_row(dy + t * VD, src + ((tok0 + t) * a->h_v + h) * VD, VD);
  zero(dy + L * VD, (CH - L) * VD);
}

@ if diag then
/* out[t] += sum_{s<=t} M[t][s] (x_s (.) e^{b_t - b_s}) for rows t < m with per-key decays (eg = e^{g} per token
 * and key, WS_EG), M (CH, CH) lower triangular. Left of the diagonal SB-block of rows [i, i+SB), one product
 * through the reference point r = b_{i-1}: x_s e^{r - b_s} and e^{b_t - r}, both <= 1, running products of eg
 * away from r; inside the block pair by pair, the decay carried from s to s - 1 by eg_s. */
static void bw_diag_lo(float *out, const float *M, const float *x, float *ws, int m) {
  const float *eg = ws + WS_EG;
  float *xr = ws + BW_XR, *tb = ws + BW_TB;
  for (int i = 0; i < m; i += BW_SB) {
    const int ie = i + BW_SB < m ? i + BW_SB : m;
    if (i > 0) {
      vf f[KD / VW];
      _Pragma("GCC unroll 16") for (int k = 0; k < KD / VW; k++) f[k] = vset(1.0f);
      for (int s = i - 1; s >= 0; s--) /* e^{r - b_s} */
        _Pragma("GCC unroll 16") for (int k = 0; k < KD / VW; k++) {
          vst(xr + s * KD + k * VW, vld(x + s * KD + k * VW) * f[k]);
          f[k] = vdecay(f[k], vld(eg + s * KD + k * VW));
        }
      mm(tb, KD, 0.0f, M + i * CH, CH, xr, KD, ie - i, KD, i, FULL);
      _Pragma("GCC unroll 16") for (int k = 0; k < KD / VW; k++) f[k] = vset(1.0f);
      for (int t = i; t < ie; t++) /* e^{b_t - r} */
        _Pragma("GCC unroll 16") for (int k = 0; k < KD / VW; k++) {
          f[k] = vdecay(f[k], vld(eg + t * KD + k * VW));
          vst(out + t * KD + k * VW, vld(out + t * KD + k * VW) + f[k] * vld(tb + (t - i) * KD + k * VW));
        }
    }
    for (int t = i; t < ie; t++) {
      vf acc[KD / VW], f[KD / VW];
      const vf mt = vset(M[t * CH + t]);
      _Pragma("GCC unroll 16") for (int k = 0; k < KD / VW; k++) { f[k] = vset(1.0f); acc[k] = mt * vld(x + t * KD + k * VW); }
      for (int s = t - 1; s >= i; s--) {
        const vf ms = vset(M[t * CH + s]);
        _Pragma("GCC unroll 16") for (int k = 0; k < KD / VW; k++) {
          f[k] *= vld(eg + (s + 1) * KD + k * VW);
          acc[k] += ms * vld(x + s * KD + k * VW) * f[k];
        }
      }
      _Pragma("GCC unroll 16") for (int k = 0; k < KD / VW; k++) vst(out + t * KD + k * VW, vld(out + t * KD + k * VW) + acc[k]);
    }
  }
}

/* out[s] += sum_{t>=s} M[t][s] (x_t (.) e^{b_t - b_s}) for rows s < m: the transposed form of bw_diag_lo, below
 * the diagonal block of rows [j, j+SB) through r = b_{j+SB-1}. */
static void bw_diag_up(float *out, const float *M, const float *x, float *ws, int m) {
  const float *eg = ws + WS_EG;
  float *xr = ws + BW_XR, *tb = ws + BW_TB;
  for (int j = 0; j < m; j += BW_SB) {
    const int je = j + BW_SB < m ? j + BW_SB : m;
    if (je < m) {
      vf f[KD / VW];
      _Pragma("GCC unroll 16") for (int k = 0; k < KD / VW; k++) f[k] = vset(1.0f);
      for (int t = je; t < m; t++) /* e^{b_t - r} */
        _Pragma("GCC unroll 16") for (int k = 0; k < KD / VW; k++) {
          f[k] = vdecay(f[k], vld(eg + t * KD + k * VW));
          vst(xr + t * KD + k * VW, vld(x + t * KD + k * VW) * f[k]);
        }
      mm_at(tb, KD, 0.0f, M + je * CH + j, CH, xr + je * KD, KD, je - j, KD, m - je, FULL);
      _Pragma("GCC unroll 16") for (int k = 0; k < KD / VW; k++) f[k] = vset(1.0f);
      for (int s = je - 1; s >= j; s--) /* e^{r - b_s} */
        _Pragma("GCC unroll 16") for (int k = 0; k < KD / VW; k++) {
          vst(out + s * KD + k * VW, vld(out + s * KD + k * VW) + f[k] * vld(tb + (s - j) * KD + k * VW));
          f[k] = vdecay(f[k], vld(eg + s * KD + k * VW));
        }
    }
    for (int s = j; s < je; s++) {
      vf acc[KD / VW], f[KD / VW];
      const vf ms = vset(M[s * CH + s]);
      _Pragma("GCC unroll 16") for (int k = 0; k < KD / VW; k++) { f[k] = vset(1.0f); acc[k] = ms * vld(x + s * KD + k * VW); }
      for (int t = s + 1; t < je; t++) {
        const vf mt = vset(M[t * CH + s]);
        _Pragma("GCC unroll 16") for (int k = 0; k < KD / VW; k++) {
          f[k] *= vld(eg + t * KD + k * VW);
          acc[k] += mt * vld(x + t * KD + k * VW) * f[k];
        }
      }
      _Pragma("GCC unroll 16") for (int k = 0; k < KD / VW; k++) vst(out + s * KD + k * VW, vld(out + s * KD + k * VW) + acc[k]);
    }
  }
}
@ end

/* u' (V, CH): the rows written into the main state, transposed (rows >= Lr zero). With an erase they are
 * the WY/UT pseudo-values the state pass kept (us); else c v. */
static void bw_values(float *ws, const float *us, int Lr) {
@ if m.delta then
  (void)Lr;
  transpose(ws + BW_UT, CH, us, VD, CH, VD);
@ else
  const float *vc = ws + WS_IN${m.val}, *ew = ws + WS_EW;
  float *u = ws + BW_U;
  (void)us;
  for (int t = 0; t < Lr; t++) {
    const vf cw = vset(ew[t]);
    for (int j = 0; j < VD; j += VW) vst(u + t * VD + j, cw * vld(vc + t * VD + j));
  }
  zero(u + Lr * VD, (CH - Lr) * VD);
  transpose(ws + BW_UT, CH, u, VD, CH, VD);
@ end
}

/* dU = Kdt dZ + A' dY (CH, V), the adjoint of the written rows; with an erase dW = ti' dU and dwe = -e dW.
 * Per token: dv and the write coefficient's gradient. */
static void bw_value_grads(float *ws, int L, int Lr) {
  float *du = ws + BW_DU;
  const float *dz = ws + BW_DZ, *dy = ws + BW_DY;
@ if diag then
  mm(du, VD, 0.0f, ws + WS_KDT, KD, dz, VD, Lr, VD, KD, FULL);
@ else
  mm_at(du, VD, 0.0f, ws + WS_KDT, CH, dz, VD, Lr, VD, KD, FULL);
@ end
  mm_at(du, VD, 1.0f, ws + WS_A, CH, dy, VD, Lr, VD, Lr, TRI_UP);
@ if m.delta then
  float *dw = ws + BW_DW, *dwe = ws + BW_DWE, *dce = ws + BW_DCE;
  mm_at(dw, VD, 0.0f, ws + WS_TI, CH, du, VD, Lr, VD, Lr, TRI_UP);
@ else
  const float *dw = du;
@ end
  float *in[SSMC_MAX_IO], *din[SSMC_MAX_IO];
  bind_inputs(in, ws);
  bw_bind_din(din, ws);
  const float *ew = ws + WS_EW, *vc = ws + WS_IN${m.val};
  for (int t_ = 0; t_ < L; t_++) {
    const float *dwt = dw + t_ * VD, *vt = vc + t_ * VD;
    float *dv = din[${m.val}] + t_ * VD;
    const vf cw = vset(ew[t_]);
    vf sw = vset(0.0f);
    for (int j = 0; j < VD; j += VW) {
      const vf g = vld(dwt + j);
      vst(dv + j, vld(dv + j) + cw * g);
      sw += vld(vt + j) * g;
    }
    const float dcw = hsum(sw);
    (void)dcw;
@ for _, dd in ipairs(m.dwrite) do
    din[${dd.idx}][t_] += dcw * ${dd.d};
@ end
  }
@ if m.delta then
  for (int t = 0; t < Lr; t++) {
    const vf ce = vset(-ws[WS_EE + t]);
    for (int j = 0; j < VD; j += VW) vst(dwe + t * VD + j, ce * vld(dw + t * VD + j));
    dce[t] = 0.0f;
  }
@ end
}

/* The intra-chunk products. dA = dY u' (lower, with the decays): dq~ = e^{b_t} (dY Z0') + dA k and
 * dk (column) = dA' q~. With an erase, dAkk = -dW u' (strictly lower, with the decays): with
 * p = (dW u') k, de = -k.p, dk (row) = -e p, dk (column) -= (dW u')' (e k); and w0 = kd0 Z0 (kd0 = e^{b_t} k)
 * in w = c v - e w0: with y = dW Z0', de -= kd0.y, dk (row) -= e e^{b_t} y. */
static void bw_causal_grads(float *ws, int Lr) {
  float *da = ws + BW_DA, *dq = ws + BW_DQ, *dkr = ws + BW_DKR, *dkc = ws + BW_DKC;
  const float *dy = ws + BW_DY, *ut = ws + BW_UT, *z0t = ws + BW_Z0T, *kc = ws + WS_IN${m.key}, *qt = ws + WS_QT;
  mm(da, CH, 0.0f, dy, VD, ut, CH, Lr, CH, VD, TRI_OUT); /* (CH, CH) */
  mm(dq, KD, 0.0f, dy, VD, z0t, KD, Lr, KD, VD, FULL);   /* (CH, K) */
@ if diag then
  const float *ebk = ws + WS_EB;
  bw_causal_mask(da, Lr, 0);
  for (int t = 0; t < Lr; t++)
    for (int k = 0; k < KD; k += VW) vst(dq + t * KD + k, vld(dq + t * KD + k) * vld(ebk + t * KD + k));
  bw_diag_lo(dq, da, kc, ws, Lr);
  zero(dkc, Lr * KD);
  bw_diag_up(dkc, da, qt, ws, Lr);
@ else
  const float *b = ws + WS_B;
  decay_mask(da, b, 0, Lr, 0);
  bw_scale_rows(dq, KD, ws + WS_EB, Lr, KD);
  mm(dq, KD, 1.0f, da, CH, kc, KD, Lr, KD, Lr, TRI_RED);
  mm_at(dkc, KD, 0.0f, da, CH, qt, KD, Lr, KD, Lr, TRI_UP);
@ end
@ if m.delta then
  float *dg = ws + BW_DG, *ke = ws + BW_KE, *dce = ws + BW_DCE, *tmp = ws + BW_TMP;
  const float *ee = ws + WS_EE;
  mm(dg, CH, 0.0f, ws + BW_DW, VD, ut, CH, Lr, CH, VD, TRI_OUT);
@   if diag then
  bw_causal_mask(dg, Lr, 1);
  zero(tmp, Lr * KD);
  bw_diag_lo(tmp, dg, kc, ws, Lr);
@   else
  decay_mask(dg, b, 0, Lr, 1);
  mm(tmp, KD, 0.0f, dg, CH, kc, KD, Lr, KD, Lr, TRI_RED);
@   end
  for (int t = 0; t < Lr; t++) {
    const vf ce = vset(-ee[t]);
    vf s = vset(0.0f);
    for (int k = 0; k < KD; k += VW) {
      const vf p = vld(tmp + t * KD + k), kk = vld(kc + t * KD + k);
      s += kk * p;
      vst(dkr + t * KD + k, ce * p);
      vst(ke + t * KD + k, ce * kk);
    }
    dce[t] -= hsum(s);
  }
@   if diag then
  bw_diag_up(dkc, dg, ke, ws, Lr);
@   else
  mm_at(dkc, KD, 1.0f, dg, CH, ke, KD, Lr, KD, Lr, TRI_UP);
@   end
  mm(tmp, KD, 0.0f, ws + BW_DW, VD, z0t, KD, Lr, KD, VD, FULL);
  const float *kd0 = ws + WS_KD0;
  for (int t = 0; t < Lr; t++) {
    vf s = vset(0.0f);
    for (int k = 0; k < KD; k += VW) {
@   if diag then
      const vf e = vset(-ee[t]) * vld(ebk + t * KD + k);
@   else
      const vf e = vset(-ee[t] * ws[WS_EB + t]);
@   end
      const vf y = vld(tmp + t * KD + k);
      s += vld(kd0 + t * KD + k) * y;
      vst(dkr + t * KD + k, vld(dkr + t * KD + k) + e * y);
    }
    dce[t] -= hsum(s);
  }
@ else
  zero(dkr, Lr * KD);
@ end
}

/* Through the chunk-end state Z_L = e^{b_L} Z0 + Kdt' u: dk (column) += e^{b_L - b_s} (dZ u')', the decay's
 * chunk-end term zld = rows of Z_L . dZ; then dZ becomes the adjoint of Z0: e^{b_L} dZ + qd' dY (- kd0' e dW). */
static void bw_state_grads(float *ws, const float *zl, int Lr) {
  float *dz = ws + BW_DZ, *tmpt = ws + BW_TMPT, *tmp = ws + BW_TMP, *dkc = ws + BW_DKC;
  const int Lv = (Lr + 7) / 8 * 8;
  mm(tmpt, CH, 0.0f, dz, VD, ws + BW_UT, CH, KD, CH, VD, FULL); /* (K, CH) */
  transpose(tmp, KD, tmpt, CH, KD, Lv);                        /* (CH, K) */
  for (int s = 0; s < Lr; s++)
    for (int k = 0; k < KD; k += VW) {
@ if diag then
      const vf e = vld(ws + WS_ES + s * KD + k);
@ else
      const vf e = vset(ws[WS_ES + s]);
@ end
      vst(dkc + s * KD + k, vld(dkc + s * KD + k) + e * vld(tmp + s * KD + k));
    }
@ if want_db then
  for (int k = 0; k < KD; k++) ws[BW_ZLD + k] = dot(zl + k * VD, dz + k * VD, VD);
@ else
  (void)zl;
@ end
@ if diag then
  bw_scale_rows(dz, VD, ws + WS_ZDEC, KD, VD);
  mm_at(dz, VD, 1.0f, ws + WS_QD, KD, ws + BW_DY, VD, KD, VD, Lr, FULL);
@ else
  mm_at(dz, VD, ws[WS_ZDEC], ws + WS_QD, KD, ws + BW_DY, VD, KD, VD, Lr, FULL);
@ end
@ if m.delta then
  mm_at(dz, VD, 1.0f, ws + WS_KD0, KD, ws + BW_DWE, VD, KD, VD, Lr, FULL);
@ end
}

@ if want_db then
/* The log decay's gradient: d/db_t = q~.dq~ + k.dk(row) - k.dk(column) (per key with per-key decays), plus
 * the chunk-end term at the last token, summed from the end of the chunk. */
static void bw_decay_grads(float *ws, int L) {
  const float *qt = ws + WS_QT, *dq = ws + BW_DQ, *kc = ws + WS_IN${m.key}, *dkr = ws + BW_DKR, *dkc = ws + BW_DKC;
  float *in[SSMC_MAX_IO], *din[SSMC_MAX_IO];
  bind_inputs(in, ws);
  bw_bind_din(din, ws);
@   if diag then
  float *dgk = din[${m.diag_in}];
  (void)in;
  for (int k = 0; k < KD; k += VW) {
    vf acc = vld(ws + BW_ZLD + k);
    for (int t = L - 1; t >= 0; t--) {
      const int o = t * KD + k;
      acc += vld(qt + o) * vld(dq + o) + vld(kc + o) * (vld(dkr + o) - vld(dkc + o));
      vst(dgk + o, vld(dgk + o) + acc);
    }
  }
@   else
  double acc = 0.0; /* the running sum cancels terms of the chunk-end term's size down to ~0: in double */
  for (int k = 0; k < KD; k++) acc += ws[BW_ZLD + k];
  for (int t_ = L - 1; t_ >= 0; t_--) {
    vf s = vset(0.0f);
    for (int k = 0; k < KD; k += VW) {
      const int o = t_ * KD + k;
      s += vld(qt + o) * vld(dq + o) + vld(kc + o) * (vld(dkr + o) - vld(dkc + o));
    }
    acc += hsum(s);
@     for _, x in ipairs(m.dlog) do
    din[${x.idx}][t_] += (float)acc * ${x.d};
@     end
  }
@   end
}
@ end

/* dk = dk(row) + dk(column); q~ = sum c_i src_i: dsrc_i += c_i dq~, dc_i = src_i . dq~; the erase
 * coefficient's gradient (DCE). */
static void bw_input_grads(float *ws, int L) {
  float *in[SSMC_MAX_IO], *din[SSMC_MAX_IO];
  bind_inputs(in, ws);
  bw_bind_din(din, ws);
  const float *dq = ws + BW_DQ, *dkr = ws + BW_DKR, *dkc = ws + BW_DKC;
  (void)in;
  for (int t_ = 0; t_ < L; t_++) {
    float *dk = din[${m.key}] + t_ * KD;
    const float *dqt = dq + t_ * KD;
    for (int k = 0; k < KD; k += VW) vst(dk + k, vld(dk + k) + vld(dkr + t_ * KD + k) + vld(dkc + t_ * KD + k));
@ for _, q in ipairs(P.q) do
@   local src = q.src == 'X' and 'ws + BW_XS' or ('in[' .. q.src .. ']')
@   local dsrc = q.src == 'X' and 'ws + BW_DX' or ('din[' .. q.src .. ']')
    {
      const float *s = ${src} + t_ * KD;
      float *ds = ${dsrc} + t_ * KD;
      const vf c = vset(${q.coef});
      vf acc = vset(0.0f);
      for (int k = 0; k < KD; k += VW) {
        const vf g = vld(dqt + k);
        acc += vld(s + k) * g;
        vst(ds + k, vld(ds + k) + c * g);
      }
      const float dc = hsum(acc);
      (void)dc;
@   for _, dd in ipairs(q.dcoef) do
      din[${dd.idx}][t_] += dc * ${dd.d};
@   end
    }
@ end
@ for _, dd in ipairs(m.derase) do
    din[${dd.idx}][t_] += ws[BW_DCE + t_] * ${dd.d};
@ end
  }
}

/* The main state's backward over one chunk: the chunk's inputs, query and prepared coefficients
 * (chunk_prepare) and dY rows are in ws; z0 (K, V) is the state at the chunk start, zl at its end; DZ, the
 * adjoint of zl on entry, becomes the adjoint of z0. Input gradients go into the DIN buffers (and DX). */
static void bw_main(float *ws, const float *z0, const float *zl, int L, int Lr) {
  transpose(ws + BW_Z0T, KD, z0, VD, KD, VD);
  bw_values(ws, z0 + BW_U_AT, Lr);
  bw_value_grads(ws, L, Lr);
  bw_causal_grads(ws, Lr);
  bw_state_grads(ws, zl, Lr);
@ if want_db then
  bw_decay_grads(ws, L);
@ end
  bw_input_grads(ws, L);
}

@ if sv then
/* The solve's backward over one chunk (after solve_coefs / solve_norms with H0 of the chunk in HF, x in XS,
 * dx in DX); hl (K, K) is H at the chunk end, DH its adjoint on entry and H0's on return.
 * g = CH_r(H_t + lambda_t I, dx_t) (implicit differentiation, the forward's solver); the direct adjoint of
 * H_t is E_t = -(g x' + x g')/2 + cn_t H_t with cn_t = a dlambda_t / ||H_t||_F, dlambda_t = -g.x. With
 * R_t = sum_{s>=t} cn_s e^{2(hb_s - hb_t)}, the full adjoint times k_t is
 *   Q_t = e^{hb_L - hb_t} dH_L k_t + e^{hb_t} R_t H0 k_t - 1/2 sum_{s>=t} e^{hb_s - hb_t} (g_s (x_s.k_t) + x_s (g_s.k_t))
 *       + sum_j R_m e^{(hb_m - hb_t) + (hb_m - hb_j)} hw_j (k_j.k_t) k_j   (m = max(t, j)),
 * so dk += 2 hw_t Q_t, dhw_t = k_t.Q_t, d/dhb_t = -g.H_t x_t + cn_t ||H_t||^2 - hw_t dhw_t (+ <dH_L, H_L> at the
 * end), and dH0 = e^{hb_L} dH_L + e^{2 hb_0} R_0 H0 - sym(g' e^{hb} x) + k' diag(hw e^{hb} R) k. */
static void bw_solve(float *ws, const float *hl, int L, int Lr, int iters) {
  float *in[SSMC_MAX_IO], *din[SSMC_MAX_IO];
  bind_inputs(in, ws);
  bw_bind_din(din, ws);
  const float *xs = ws + BW_XS, *kc = ws + WS_IN${sv.key}, *kt = ws + WS_KTS, *hb = ws + WS_HB, *hw = ws + WS_HW;
  const float *et = ws + WS_ET, *nrm = ws + WS_NRM, *step = ws + WS_STEP, *hf = ws + WS_HF;
  float *gs = ws + BW_GS, *gh = ws + BW_GH, *hx = ws + BW_HX, *cn = ws + BW_CN, *dhb = ws + BW_DHB, *rr = ws + BW_RR;
  float *qv = ws + BW_QV, *tmp = ws + BW_TMP, *dh = ws + BW_DH;
  solve_cheb(ws, ws + BW_DX, gs, Lr, iters); /* g = CH_r(H_t + lambda_t I, dx_t) */
  solve_apply(ws, xs, hx, Lr);               /* H_t x_t */
  for (int t = 0; t < Lr; t++) {
    const int live = t < L && step[t] > 0.0f; /* else x_t = b_t: no dependence on H */
    if (t < L)
      for (int k = 0; k < KD; k += VW) vst(din[${sv.rhs}] + t * KD + k, vld(din[${sv.rhs}] + t * KD + k) + vld(gs + t * KD + k));
    for (int k = 0; k < KD; k += VW) vst(gh + t * KD + k, live ? vld(gs + t * KD + k) : vset(0.0f));
    const float dl = -dot(gh + t * KD, xs + t * KD, KD);
    cn[t] = live && nrm[t] > 0.0f ? ${f32(sv.lam_a)} * dl / nrm[t] : 0.0f;
    dhb[t] = -dot(gh + t * KD, hx + t * KD, KD) + cn[t] * nrm[t] * nrm[t];
  }
  float r = 0.0f;
  for (int t = Lr; t < CH; t++) rr[t] = 0.0f;
  for (int t = Lr - 1; t >= 0; t--) {
    r = cn[t] + (t + 1 < Lr ? ex(2.0f * (hb[t + 1] - hb[t])) * r : 0.0f);
    rr[t] = r;
  }
  /* Q: the chunk-end adjoint and H0 */
  const float hle = hb[CH - 1];
  mm(qv, KD, 0.0f, kc, KD, dh, KD, Lr, KD, KD, FULL);
  mm(tmp, KD, 0.0f, kc, KD, hf, KD, Lr, KD, KD, FULL);
  for (int t = 0; t < Lr; t++) {
    const vf a = vset(ex(hle - hb[t])), c = vset(et[t] * rr[t]);
    for (int k = 0; k < KD; k += VW) vst(qv + t * KD + k, a * vld(qv + t * KD + k) + c * vld(tmp + t * KD + k));
  }
  /* Q: the rank-2 terms of the later tokens */
  float *mx = ws + BW_MX, *mg = ws + BW_MG, *nm = ws + BW_NM, *nh = ws + BW_NH;
  for (int t = 0; t < CH; t++) nh[t] = -0.5f;
  mm(mx, CH, 0.0f, xs, KD, kt, CH, Lr, CH, KD, TRI_OUT);
  decay_mask(mx, hb, nh, Lr, 0);
  mm(mg, CH, 0.0f, gh, KD, kt, CH, Lr, CH, KD, TRI_OUT);
  decay_mask(mg, hb, nh, Lr, 0);
  mm_at(qv, KD, 1.0f, mx, CH, gh, KD, Lr, KD, Lr, TRI_UP);
  mm_at(qv, KD, 1.0f, mg, CH, xs, KD, Lr, KD, Lr, TRI_UP);
  /* Q: the cn_s H_s terms through the keys of the chunk */
  mm(nm, CH, 0.0f, kc, KD, kt, CH, Lr, CH, KD, FULL);
  vi lane;
  for (int l = 0; l < VW; l++) lane[l] = l;
  for (int t = 0; t < Lr; t++) { /* e^{-|hb_j - hb_t|} (R_t for j < t, else R_j) hw_j */
    const vf hbt = vset(hb[t]), rt = vset(rr[t]);
    const vi tv = viset(t);
    for (int j = 0; j < CH; j += VW) {
      const vf d = vld(hb + j) - hbt;
      const vi lo = lane + j < tv;
      const vf f = (vf)(((vi)rt & lo) | ((vi)vld(rr + j) & ~lo));
      vst(nm + t * CH + j, vld(nm + t * CH + j) * vld(hw + j) * f * vexp(vmin(d, -d)));
    }
  }
  mm(qv, KD, 1.0f, nm, CH, kc, KD, Lr, KD, Lr, FULL);
  /* dk, the write of H, the log decay of H */
  for (int t_ = 0; t_ < L; t_++) {
    const float dhw = dot(kc + t_ * KD, qv + t_ * KD, KD);
    const vf c = vset(2.0f * hw[t_]);
    float *dk = din[${sv.key}] + t_ * KD;
    for (int k = 0; k < KD; k += VW) vst(dk + k, vld(dk + k) + c * vld(qv + t_ * KD + k));
@   for _, dd in ipairs(sv.dwrite) do
    din[${dd.idx}][t_] += dhw * ${dd.d};
@   end
    dhb[t_] -= hw[t_] * dhw;
  }
@   if #sv.dlog > 0 then
  {
    float acc = dot(dh, hl, KD * KD);
    for (int t_ = L - 1; t_ >= 0; t_--) {
      acc += dhb[t_];
@     for _, x in ipairs(sv.dlog) do
      din[${x.idx}][t_] += acc * ${x.d};
@     end
    }
  }
@   else
  (void)hl;
@   end
  /* dH0 */
  float *xe = ws + BW_XE, *kr = ws + BW_KR, *mt = ws + BW_MT;
  for (int t = 0; t < Lr; t++) {
    const vf e = vset(et[t]), c = vset(hw[t] * et[t] * rr[t]);
    for (int k = 0; k < KD; k += VW) {
      vst(xe + t * KD + k, e * vld(xs + t * KD + k));
      vst(kr + t * KD + k, c * vld(kc + t * KD + k));
    }
  }
  mm_at(mt, KD, 0.0f, gh, KD, xe, KD, KD, KD, Lr, FULL);
  const float el = ex(hle), c0 = et[0] * et[0] * rr[0];
  for (int i = 0; i < KD; i++)
    for (int j = 0; j < KD; j++)
      dh[i * KD + j] = el * dh[i * KD + j] + c0 * hf[i * KD + j] - 0.5f * (mt[i * KD + j] + mt[j * KD + i]);
  mm_at(dh, KD, 1.0f, kc, KD, kr, KD, KD, KD, Lr, FULL);
}
@ end

/* The state at every chunk start (and the final one) of one sequence and value head into zs. */
static void bw_state_pass(const ssmc_bwd_args *a, int64_t t0, int64_t T, int h, int hq, float *ws, float *zs) {
  const int64_t nch = (T + CH - 1) / CH;
  for (int k = 0; k < KD; k++)
    for (int j = 0; j < VD; j += VW) vst(zs + k * VD + j, vld(ws + WS_Z + k * VD + j));
@ if sv then
  for (int i = 0; i < KD * KD; i += VW) vst(zs + KD * VD + i, vld(ws + WS_HF + i));
@ end
  for (int64_t c = 0; c < nch; c++) {
    const int L = (int)(T - c * CH < CH ? T - c * CH : CH), Lr = (L + MR - 1) / MR * MR;
    load_chunk(a->in, t0 + c * CH, L, h, hq, a->h_v, a->h_qk, ws, 2);
    if (c + 1 < nch) prefetch_chunk(a->in, t0 + (c + 1) * CH, (int)(T - (c + 1) * CH < CH ? T - (c + 1) * CH : CH), h, hq, a->h_v, a->h_qk, 2);
    chunk_prepare(ws, L, Lr, 0);
@ if m.delta then
    for (int i = 0; i < Lr * CH; i += VW) vst(zs + c * BW_PER_CHUNK + BW_TI_AT + i, vld(ws + WS_TI + i));
@ end
    for (int v0 = 0; v0 < VD; v0 += BV) {
      chunk_tile(ws, L, Lr, v0, 0, 0, h, a->h_v);
@ if m.delta then
      float *us = zs + c * BW_PER_CHUNK + BW_U_AT + v0; /* the pseudo-values of this tile (CH, BV) */
      for (int t = 0; t < Lr; t++)
        for (int j = 0; j < BV; j += VW) vst(us + t * VD + j, vld(ws + WS_U + t * BV + j));
@ end
    }
@ if m.delta then
    zero(zs + c * BW_PER_CHUNK + BW_U_AT + Lr * VD, (CH - Lr) * VD);
@ end
    float *zn = zs + (c + 1) * BW_PER_CHUNK;
    for (int k = 0; k < KD; k++)
      for (int j = 0; j < VD; j += VW) vst(zn + k * VD + j, vld(ws + WS_Z + k * VD + j));
@ if sv then
    solve_coefs(ws, L);
    solve_advance(ws, Lr);
    for (int i = 0; i < KD * KD; i += VW) vst(zn + KD * VD + i, vld(ws + WS_HF + i));
@ end
  }
}

/* Chunk c of one sequence and value head, differentiated; its input gradients written (q/k ones summed over
 * the value heads of a group: first = the group's first head). */
static void bw_chunk(const ssmc_bwd_args *a, int64_t t0, int64_t T, int64_t c, int h, int hq, int first, int iters,
                     float *ws, const float *zs) {
  const int L = (int)(T - c * CH < CH ? T - c * CH : CH), Lr = (L + MR - 1) / MR * MR;
  const int64_t tok0 = t0 + c * CH;
  (void)iters;
  load_chunk(a->in, tok0, L, h, hq, a->h_v, a->h_qk, ws, 1);
  if (c > 0) { /* the previous chunk, visited next: full, CH tokens; its stored start state (and the rest) */
    prefetch_chunk(a->in, tok0 - CH, CH, h, hq, a->h_v, a->h_qk, 1);
    bw_prefetch_dy(a, tok0 - CH, CH, h);
    const char *p = (const char *)(zs + (c - 1) * BW_PER_CHUNK);
    for (int64_t i = 0; i < (int64_t)BW_PER_CHUNK * 4; i += 64) __builtin_prefetch(p + i);
  }
@ if sv then
  for (int i = 0; i < KD * KD; i += VW) vst(ws + WS_HF + i, vld(zs + c * BW_PER_CHUNK + KD * VD + i));
  solve_coefs(ws, L);
  solve_norms(ws, L, Lr);
  if (a->aux_in[0]) { /* the forward's x */
    for (int t = 0; t < L; t++)
      for (int k = 0; k < KD; k++) ws[WS_X + t * KD + k] = a->aux_in[0][((tok0 + t) * a->h_v + h) * KD + k];
    zero(ws + WS_X + L * KD, (CH - L) * KD);
  } else {
    solve_cheb(ws, ws + WS_IN${sv.rhs}, ws + WS_X, Lr, iters);
    zero(ws + WS_X + Lr * KD, (CH - Lr) * KD);
  }
  for (int i = 0; i < CH * KD; i += VW) vst(ws + BW_XS + i, vld(ws + WS_X + i));
  zero(ws + BW_DX, CH * KD);
@ end
  build_query(ws, L, Lr);
@ if m.delta then
  for (int i = 0; i < Lr * CH; i += VW) vst(ws + WS_TI + i, vld(zs + c * BW_PER_CHUNK + BW_TI_AT + i));
  chunk_prepare(ws, L, Lr, PREP_READ | PREP_HAVE_TI);
@ else
  chunk_prepare(ws, L, Lr, PREP_READ);
@ end
  bw_load_dy(a, tok0, L, h, ws + BW_DY);
@ for _, x in ipairs(P.inputs) do
  zero(ws + BW_DIN${x.idx}, CH * ${x.D});
@ end
  bw_main(ws, zs + c * BW_PER_CHUNK, zs + (c + 1) * BW_PER_CHUNK, L, Lr);
@ if sv then
  bw_solve(ws, zs + (c + 1) * BW_PER_CHUNK + KD * VD, L, Lr, iters);
@ end
@ for _, x in ipairs(P.inputs) do
@   local H = x.heads == 'qk' and 'a->h_qk' or 'a->h_v'
@   local hh = x.heads == 'qk' and 'hq' or 'h'
  if (a->din[${x.idx}]) { /* ${x.name}: (T, ${H}, ${x.D}) */
    const float *s = ws + BW_DIN${x.idx};
    const int nt = ((uintptr_t)a->din[${x.idx}] & 63) == 0; /* rows of a multiple of 16 floats: all aligned */
    (void)nt;
    for (int t = 0; t < L; t++) {
      float *p = a->din[${x.idx}] + ((tok0 + t) * ${H} + ${hh}) * ${x.D};
@   if x.D % 16 == 0 and x.heads == 'qk' then
      if (first && nt) bw_stream_row(p, s + t * ${x.D}, ${x.D});
      else if (first) for (int d = 0; d < ${x.D}; d += VW) vst(p + d, vld(s + t * ${x.D} + d));
      else for (int d = 0; d < ${x.D}; d += VW) vst(p + d, vld(p + d) + vld(s + t * ${x.D} + d));
@   elseif x.D % 16 == 0 then
      if (nt) bw_stream_row(p, s + t * ${x.D}, ${x.D});
      else for (int d = 0; d < ${x.D}; d += VW) vst(p + d, vld(s + t * ${x.D} + d));
@   elseif x.heads == 'qk' then
      if (first) for (int d = 0; d < ${x.D}; d++) p[d] = s[t * ${x.D} + d];
      else for (int d = 0; d < ${x.D}; d++) p[d] += s[t * ${x.D} + d];
@   else
      for (int d = 0; d < ${x.D}; d++) p[d] = s[t * ${x.D} + d];
@   end
    }
  }
@ end
  __builtin_ia32_sfence(); /* the streamed rows before anything later */
  (void)first;
}

static void bwd_impl(const ssmc_bwd_args *a, int64_t item_begin, int64_t item_end, float *ws) {
  const int iters = a->iters > 0 ? a->iters : ${sv and sv.iters or 0};
  const int64_t KV = (int64_t)KD * VD;
  const int G = a->h_v / a->h_qk;
  float *zs = ws + BW_FIXED; /* (n_chunks + 1, per chunk): Z (K, V), then H (K, K) in full */
  for (int64_t it = item_begin; it < item_end; it++) {
    const int64_t n = it / a->h_qk;
    const int hq = (int)(it % a->h_qk);
    const int64_t t0 = a->cu_seqlens ? a->cu_seqlens[n] : n * a->t_len;
    const int64_t T = a->cu_seqlens ? a->cu_seqlens[n + 1] - t0 : a->t_len;
    const int64_t nch = (T + CH - 1) / CH;
    for (int gi = 0; gi < G; gi++) {
      const int h = hq * G + gi;
      const int64_t slot = n * a->h_v + h;
      const float *z0 = a->state_in[${m.state}];
      for (int k = 0; k < KD; k++) /* (K, V) */
        for (int j = 0; j < VD; j += VW) vst(ws + WS_Z + k * VD + j, z0 ? vld(z0 + slot * KV + k * VD + j) : vset(0.0f));
@ if sv then
      const float *h0 = a->state_in[${sv.state}];
      if (h0) unpack_sym(ws + WS_HF, h0 + slot * ${K * (K + 1) // 2});
      else zero(ws + WS_HF, KD * KD);
@ end
      bw_state_pass(a, t0, T, h, hq, ws, zs);
      /* the adjoints of the final states */
      float *dz = ws + BW_DZ;
      const float *dzo = a->dstate_out[${m.state}];
      for (int64_t i = 0; i < KV; i++) dz[i] = dzo ? dzo[slot * KV + i] : 0.0f;
@ if sv then
      {
        const float *dho = a->dstate_out[${sv.state}];
        float *dh = ws + BW_DH;
        for (int i = 0; i < KD; i++)
          for (int j = 0; j <= i; j++) { /* a packed off-diagonal element stands for (i,j) and (j,i) */
            const float p = dho ? dho[slot * ${K * (K + 1) // 2} + i * (i + 1) / 2 + j] : 0.0f;
            dh[i * KD + j] = dh[j * KD + i] = i == j ? p : 0.5f * p;
          }
      }
@ end
      for (int64_t c = nch - 1; c >= 0; c--) bw_chunk(a, t0, T, c, h, hq, gi == 0, iters, ws, zs);
      if (a->dstate_in[${m.state}])
        for (int64_t i = 0; i < KV; i++) a->dstate_in[${m.state}][slot * KV + i] = dz[i];
@ if sv then
      if (a->dstate_in[${sv.state}]) {
        const float *dh = ws + BW_DH;
        float *p = a->dstate_in[${sv.state}] + slot * ${K * (K + 1) // 2};
        for (int i = 0; i < KD; i++)
          for (int j = 0; j <= i; j++) p[i * (i + 1) / 2 + j] = i == j ? dh[i * KD + i] : dh[i * KD + j] + dh[j * KD + i];
      }
@ end
    }
  }
}

#if defined(SSMC_ISA_SUFFIX)
void SSMC_PASTE(${P.name}_bwd, SSMC_ISA_SUFFIX)(const ssmc_bwd_args *a, int64_t item_begin, int64_t item_end, float *ws) {
  bwd_impl(a, item_begin, item_end, ws);
}
#else
#if defined(SSMC_ISA_DISPATCH)
void ${P.name}_bwd_v4(const ssmc_bwd_args *a, int64_t item_begin, int64_t item_end, float *ws);
#endif

void ${P.name}_bwd(const ssmc_bwd_args *a, int64_t item_begin, int64_t item_end, float *ws) {
#if defined(SSMC_ISA_DISPATCH)
  if (ssmc_cpu_isa() >= 4) { ${P.name}_bwd_v4(a, item_begin, item_end, ws); return; }
#endif
  bwd_impl(a, item_begin, item_end, ws);
}

int64_t ${P.name}_bwd_ws(int64_t max_len) {
  const int64_t nch = max_len > 0 ? (max_len + CH - 1) / CH : 0;
  return BW_FIXED + (nch + 1) * BW_PER_CHUNK;
}
#endif
