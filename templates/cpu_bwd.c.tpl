@ --[[ Template cpu_bwd.c.tpl — CPU chunkwise BACKWARD of one spec and dtype.
@ Appended by compiler/emb.c to the output of cpu_kernel.c.tpl (same C file),
@ but self-contained: every name here starts with bw_ / BW_ and it needs only
@ ssmc_kernel.h. Parameters (table P, built by compiler/emb.c):
@   name, K, V, C, dtype, inputs[i] = {idx, name, D, heads, gate}
@   main = {decay ('none'|'scalar'|'diag'), logdecay, dlog, diag_in, delta, erase, derase,
@           write, dwrite, key, val}
@   q[i] = {coef, dcoef, src}        q~ = sum coef * src; y = S q~
@   solve = nil | {logdecay, dlog, write, dwrite, key, lam_a, lam_b, iters, rhs}
@   d-lists: {{idx = j, d = "C expr"}}: partial derivative of the coefficient w.r.t. scalar input j.
@ Coefficient strings are C expressions of in[j][t_] (t_ the token in the chunk).
@ Algorithm per (sequence, value head): a forward sweep keeps the state at every
@ chunk start; then chunks are visited last to first: the chunk's per-token
@ states are recomputed from its start state into a chunk-local buffer, and the
@ tokens are differentiated last to first (state adjoints dZ, dH carried across).
@ The solve's gradient is implicit: g = CH_r(H + lambda I, dx), dA = -g x',
@ dlambda = -g.x, lambda = a ||H||_F + b. ]]
@ local K, V, C = P.K, P.V, P.C
@ local m, sv = P.main, P.solve
@ local fix, per = 0, 0
@ local ws = {}
@ local function alloc(name, n) ws[#ws + 1] = {name, fix}; fix = fix + math.ceil(n / 16) * 16 end
@ for _, x in ipairs(P.inputs) do alloc('IN' .. x.idx, C * x.D); alloc('DIN' .. x.idx, C * x.D) end
@ alloc('DY', C * V); alloc('ZB', (C + 1) * K * V); alloc('DZ', K * V); alloc('WB', C * V); alloc('UB', C * V)
@ alloc('DEC', C * K); alloc('EW', C); alloc('EE', C); alloc('QT', K); alloc('DQ', K); alloc('DW', V); alloc('DU', V)
@ alloc('DK', K); alloc('DD', K); alloc('DX', K)
@ if sv then alloc('HB', (C + 1) * K * K); alloc('DH', K * K); alloc('X', C * K); alloc('NRM', C); alloc('HW', C)
@   alloc('HD', C); alloc('CA', K); alloc('CB', K); alloc('CC', K); alloc('CHX', K); alloc('GV', K) end
@ per = K * V + (sv and K * K or 0)
#if !defined(SSMC_ISA_SUFFIX) /* an ISA variant compilation (CMakeLists.txt) defines forward and decode only */

/* ---------------------------------------------------------------------------
 * Backward (template cpu_bwd.c.tpl): ${P.name}
 * Recognized: ${P.summary}
 * Chunk ${C}: chunk-start states of one sequence (${per} floats per chunk) and
 * the per-token states of one chunk live in the per-thread workspace; nothing
 * per token is stored beyond one chunk. Gradients are fp32.
 * ------------------------------------------------------------------------- */
#define BW_K ${K}
#define BW_V ${V}
#define BW_C ${C}

enum {
@ for _, w in ipairs(ws) do
  BW_${w[1]} = ${w[2]},
@ end
  BW_FIXED = ${fix},
  BW_PER_CHUNK = ${per}
};

@ if P.dtype == 'bf16' then
static inline float bw_ld(const uint16_t *p) {
  union { uint32_t u; float f; } x;
  x.u = (uint32_t)*p << 16;
  return x.f;
}
#define BW_ELEM uint16_t
@ else
static inline float bw_ld(const float *p) { return *p; }
#define BW_ELEM float
@ end

typedef float bw_v8 __attribute__((vector_size(32)));
typedef float bw_v8u __attribute__((vector_size(32), aligned(4), may_alias)); /* unaligned access */
static inline bw_v8 bw_vl(const float *p) { return *(const bw_v8u *)p; }
static inline void bw_vs(float *p, bw_v8 v) { *(bw_v8u *)p = v; }
static inline bw_v8 bw_vb(float x) { return (bw_v8){x, x, x, x, x, x, x, x}; }
static inline float bw_vsum(bw_v8 v) { return ((v[0] + v[4]) + (v[1] + v[5])) + ((v[2] + v[6]) + (v[3] + v[7])); }

static void bw_zero(float *p, int n) { for (int i = 0; i < n; i++) p[i] = 0.0f; }
static void bw_copy(float *restrict d, const float *restrict s, int n) { for (int i = 0; i < n; i++) d[i] = s[i]; }
__attribute__((unused)) static float bw_dot(const float *a, const float *b, int n) {
  float s = 0.0f;
  for (int i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

static void bw_bind(float **in, float *ws) {
@ for _, x in ipairs(P.inputs) do
  in[${x.idx}] = ws + BW_IN${x.idx};
@ end
}

/* Tokens tok0 .. tok0+L-1 of every input and of dy into fp32 chunk buffers. */
static void bw_load(const ssmc_bwd_args *a, int64_t tok0, int L, int h, int hq, float *ws) {
@ for _, x in ipairs(P.inputs) do
@   local H = x.heads == 'qk' and 'a->h_qk' or 'a->h_v'
@   local hh = x.heads == 'qk' and 'hq' or 'h'
@   local T = x.gate and 'float' or 'BW_ELEM'
  { /* ${x.name}: (T, ${H}, ${x.D}) */
    const ${T} *src = (const ${T} *)a->in[${x.idx}];
    float *dst = ws + BW_IN${x.idx};
    for (int t = 0; t < L; t++) {
      const ${T} *p = src + ((tok0 + t) * ${H} + ${hh}) * ${x.D};
@   if x.gate then
      for (int d = 0; d < ${x.D}; d++) dst[t * ${x.D} + d] = p[d];
@   else
      for (int d = 0; d < ${x.D}; d++) dst[t * ${x.D} + d] = bw_ld(p + d);
@   end
    }
  }
@ end
  const BW_ELEM *dy = (const BW_ELEM *)a->dout;
  for (int t = 0; t < L; t++)
    for (int j = 0; j < BW_V; j++) ws[BW_DY + t * BW_V + j] = bw_ld(dy + ((tok0 + t) * a->h_v + h) * BW_V + j);
}

/* Per-token decays and write/erase coefficients of the chunk. */
static void bw_coefs(float *ws, int L) {
  float *in[SSMC_MAX_IO];
  bw_bind(in, ws);
  for (int t_ = 0; t_ < L; t_++) {
    float *d = ws + BW_DEC + t_ * BW_K;
@ if m.decay == 'diag' then
    for (int i = 0; i < BW_K; i++) d[i] = __builtin_expf(in[${m.diag_in}][t_ * BW_K + i]);
@ elseif m.logdecay then
    const float e = __builtin_expf(${m.logdecay});
    for (int i = 0; i < BW_K; i++) d[i] = e;
@ else
    for (int i = 0; i < BW_K; i++) d[i] = 1.0f;
@ end
    ws[BW_EW + t_] = ${m.write};
@ if m.delta then
    ws[BW_EE + t_] = ${m.erase};
@ else
    ws[BW_EE + t_] = 0.0f;
@ end
@ if sv then
    ws[BW_HW + t_] = ${sv.write};
@   if sv.logdecay then
    ws[BW_HD + t_] = __builtin_expf(${sv.logdecay});
@   else
    ws[BW_HD + t_] = 1.0f;
@   end
@ end
  }
}

/* States after each token of the chunk: ZB[t+1] from ZB[t] (and HB), with the
 * write vectors w_t = c v - e u (u = (D Z)' k) in WB and u_t in UB. With
 * inplace, every token updates ZB[0] (and HB[0]) itself: the chunk-start sweep. */
static void bw_recompute(float *ws, int L, int inplace) {
  const float *kc = ws + BW_IN${m.key}, *vc = ws + BW_IN${m.val};
  for (int t = 0; t < L; t++) {
    const float *zp = ws + BW_ZB + (inplace ? 0 : (int64_t)t * BW_K * BW_V);
    float *zn = ws + BW_ZB + (inplace ? 0 : (int64_t)(t + 1) * BW_K * BW_V);
    const float *d = ws + BW_DEC + t * BW_K, *k = kc + t * BW_K, *v = vc + t * BW_V;
    float *w = ws + BW_WB + t * BW_V, *u = ws + BW_UB + t * BW_V;
    const float cw = ws[BW_EW + t], ce = ws[BW_EE + t];
    bw_zero(u, BW_V);
@ if m.delta then
    for (int i = 0; i < BW_K; i++) {
      const bw_v8 c = bw_vb(d[i] * k[i]);
      for (int j = 0; j < BW_V; j += 8) bw_vs(u + j, bw_vl(u + j) + c * bw_vl(zp + i * BW_V + j));
    }
@ end
    for (int j = 0; j < BW_V; j++) w[j] = cw * v[j] - ce * u[j];
    for (int i = 0; i < BW_K; i++) {
      const bw_v8 di = bw_vb(d[i]), ki = bw_vb(k[i]);
      for (int j = 0; j < BW_V; j += 8) bw_vs(zn + i * BW_V + j, di * bw_vl(zp + i * BW_V + j) + ki * bw_vl(w + j));
    }
@ if sv then
    {
      const float *hp = ws + BW_HB + (inplace ? 0 : (int64_t)t * BW_K * BW_K);
      float *hn = ws + BW_HB + (inplace ? 0 : (int64_t)(t + 1) * BW_K * BW_K);
      const float *kh = ws + BW_IN${sv.key} + t * BW_K;
      const bw_v8 hd = bw_vb(ws[BW_HD + t]);
      const float hw = ws[BW_HW + t];
      bw_v8 n2 = bw_vb(0.0f);
      for (int i = 0; i < BW_K; i++) {
        const bw_v8 c = bw_vb(hw * kh[i]);
        for (int j = 0; j < BW_K; j += 8) {
          const bw_v8 x = hd * bw_vl(hp + i * BW_K + j) + c * bw_vl(kh + j);
          bw_vs(hn + i * BW_K + j, x);
          n2 += x * x;
        }
      }
      ws[BW_NRM + t] = __builtin_sqrtf(bw_vsum(n2));
    }
@ end
  }
}

@ if sv then
/* r Chebyshev iterations for (H + l I) x = b with L = nrm + l, mu = l, omega_0 = 2
 * (the forward's solver); nrm = 0 and l = 0: x = b. */
static void bw_cheb(const float *restrict hm, float nrm, float l, const float *b, float *x, int iters, float *ws) {
  const float up = nrm + l, sum = up + l;
  if (!(sum > 0.0f)) {
    bw_copy(x, b, BW_K);
    return;
  }
  float *xc = ws + BW_CA, *xp = ws + BW_CB, *xn = ws + BW_CC, *hx = ws + BW_CHX;
  const float step = 2.0f / sum, rho2 = (up - l) / sum * ((up - l) / sum);
  float om = 2.0f;
  for (int k = 0; k < BW_K; k++) { xp[k] = 0.0f; xc[k] = step * b[k]; }
  for (int r = 0; r < iters; r++) {
    for (int i = 0; i < BW_K; i++) {
      bw_v8 acc = bw_vb(0.0f);
      for (int j = 0; j < BW_K; j += 8) acc += bw_vl(hm + i * BW_K + j) * bw_vl(xc + j);
      hx[i] = bw_vsum(acc);
    }
    om = 4.0f / (4.0f - rho2 * om);
    const float cs = step * om, mo = om - 1.0f;
    for (int k = 0; k < BW_K; k++) xn[k] = xc[k] - cs * (hx[k] + l * xc[k] - b[k]) + mo * (xc[k] - xp[k]);
    float *tmp = xp; xp = xc; xc = xn; xn = tmp;
  }
  bw_copy(x, xc, BW_K);
}
@ end

/* Gradients of token t_ of the chunk: dZ (adjoint of Z_t) becomes the adjoint
 * of Z_{t-1}; dH likewise; DIN rows of token t_ get the input gradients. */
static void bw_token(float *ws, int t_, int iters) {
  float *in[SSMC_MAX_IO], *din[SSMC_MAX_IO];
  bw_bind(in, ws);
@ for _, x in ipairs(P.inputs) do
  din[${x.idx}] = ws + BW_DIN${x.idx};
@ end
  (void)iters;
  const int64_t KV = (int64_t)BW_K * BW_V;
  const float *restrict zt = ws + BW_ZB + (t_ + 1) * KV, *restrict zp = ws + BW_ZB + t_ * KV;
  float *restrict dz = ws + BW_DZ;
  const float *dy = ws + BW_DY + t_ * BW_V;
  float *qt = ws + BW_QT, *dq = ws + BW_DQ, *dx = ws + BW_DX;
  /* q~ = sum coef * src */
  bw_zero(qt, BW_K);
  bw_zero(dx, BW_K);
@ for _, q in ipairs(P.q) do
@   local src = q.src == 'X' and ('ws + BW_X + t_ * BW_K') or ('in[' .. q.src .. '] + t_ * BW_K')
  { const float c = ${q.coef}, *s = ${src}; for (int k = 0; k < BW_K; k++) qt[k] += c * s[k]; }
@ end
  /* One pass over the rows of Z_t, Z_{t-1} and dZ. y = Z_t' q~: dq~ = Z_t dy, dZ += q~ dy'.
   * Z_t = D Z_{t-1} + k w' (w = c v - e u, u = (D Z_{t-1})' k): dw = dZ' k, dk += dZ w;
   * without an erase also dD = rows of Z_{t-1} . dZ and dZ <- D dZ in the same pass. */
  const float *km = in[${m.key}] + t_ * BW_K, *dm = ws + BW_DEC + t_ * BW_K, *wm = ws + BW_WB + t_ * BW_V;
  float *dw = ws + BW_DW, *dkm = din[${m.key}] + t_ * BW_K, *ddm = ws + BW_DD;
  bw_zero(dw, BW_V);
  for (int i = 0; i < BW_K; i++) {
    const bw_v8 qi = bw_vb(qt[i]), ki = bw_vb(km[i]), di = bw_vb(dm[i]);
    bw_v8 aq = bw_vb(0.0f), ak = bw_vb(0.0f), ad = bw_vb(0.0f);
    const float *zti = zt + i * BW_V, *zpi = zp + i * BW_V;
    float *dzi = dz + i * BW_V;
    for (int j = 0; j < BW_V; j += 8) {
      const bw_v8 y = bw_vl(dy + j), g = bw_vl(dzi + j) + qi * y;
      aq += bw_vl(zti + j) * y;
      bw_vs(dw + j, bw_vl(dw + j) + ki * g);
      ak += g * bw_vl(wm + j);
@ if m.delta then
      bw_vs(dzi + j, g);
@ else
      ad += bw_vl(zpi + j) * g;
      bw_vs(dzi + j, di * g);
@ end
    }
    dq[i] = bw_vsum(aq);
    dkm[i] += bw_vsum(ak);
    ddm[i] = ${m.delta and '0.0f' or 'dm[i] * bw_vsum(ad)'};
    (void)zpi; (void)di; (void)ad;
  }
@ for _, q in ipairs(P.q) do
@   local src = q.src == 'X' and ('ws + BW_X + t_ * BW_K') or ('in[' .. q.src .. '] + t_ * BW_K')
@   local dsrc = q.src == 'X' and 'dx' or ('din[' .. q.src .. '] + t_ * BW_K')
  {
    const float c = ${q.coef}, *s = ${src};
    float *ds = ${dsrc}, dc = 0.0f;
    for (int k = 0; k < BW_K; k++) { dc += dq[k] * s[k]; ds[k] += c * dq[k]; }
@   for _, dd in ipairs(q.dcoef) do
    din[${dd.idx}][t_] += dc * ${dd.d};
@   end
    (void)dc;
  }
@ end
@ if sv then
  { /* the solve: x = (H_t + l I)^-1 b, l = a ||H_t||_F + b0 */
    const float *restrict ht = ws + BW_HB + (t_ + 1) * (int64_t)BW_K * BW_K;
    const float *restrict hp = ws + BW_HB + t_ * (int64_t)BW_K * BW_K;
    float *restrict dh = ws + BW_DH;
    const float nrm = ws[BW_NRM + t_], l = ${f32(sv.lam_a)} * nrm + ${f32(sv.lam_b)};
    const float *x = ws + BW_X + t_ * BW_K;
    float *db = din[${sv.rhs}] + t_ * BW_K, *g = ws + BW_GV;
    /* dH is kept symmetric (everything downstream of H sees only its symmetric part):
     * dA = -(g x' + x g') / 2 */
    float cn = 0.0f, gs = 0.0f;
    const float *xs = x;
    if (nrm + 2.0f * l > 0.0f) {
      bw_cheb(ht, nrm, l, dx, g, iters, ws); /* implicit differentiation: g = CH_r(H + l I, dx) */
      const float dl = -bw_dot(g, x, BW_K);
      cn = nrm > 0.0f ? ${f32(sv.lam_a)} * dl / nrm : 0.0f;
      gs = 0.5f;
      for (int i = 0; i < BW_K; i++) db[i] += g[i];
    } else {
      for (int i = 0; i < BW_K; i++) { db[i] += dx[i]; g[i] = 0.0f; }
    }
    /* H_t = hd H_{t-1} + hw k k': dk += 2 hw dH k, dhw = k' dH k, dhd = <H_{t-1}, dH>, dH <- hd dH;
     * one pass over the rows of dH, H_t and H_{t-1} */
    const float *kh = in[${sv.key}] + t_ * BW_K, hd = ws[BW_HD + t_], hw = ws[BW_HW + t_];
    float *dkh = din[${sv.key}] + t_ * BW_K, dhw = 0.0f, dhd = 0.0f;
    const bw_v8 vcn = bw_vb(cn), vhd = bw_vb(hd);
    bw_v8 ahd = bw_vb(0.0f);
    for (int i = 0; i < BW_K; i++) {
      const bw_v8 gi = bw_vb(gs * g[i]), xi = bw_vb(gs * xs[i]);
      bw_v8 ar = bw_vb(0.0f);
      float *dhi = dh + i * BW_K;
      const float *hti = ht + i * BW_K, *hpi = hp + i * BW_K;
      for (int j = 0; j < BW_K; j += 8) {
        const bw_v8 e = bw_vl(dhi + j) + vcn * bw_vl(hti + j) - gi * bw_vl(xs + j) - xi * bw_vl(g + j);
        ar += e * bw_vl(kh + j);
        ahd += bw_vl(hpi + j) * e;
        bw_vs(dhi + j, vhd * e);
      }
      const float r1 = bw_vsum(ar);
      dkh[i] += 2.0f * hw * r1;
      dhw += kh[i] * r1;
    }
    dhd = hd * bw_vsum(ahd);
    (void)dhw; (void)dhd;
@   for _, dd in ipairs(sv.dwrite) do
    din[${dd.idx}][t_] += dhw * ${dd.d};
@   end
@   for _, dd in ipairs(sv.dlog) do
    din[${dd.idx}][t_] += dhd * ${dd.d};
@   end
  }
@ end
  { /* the write and erase coefficients; with an erase the second pass */
    const float *v = in[${m.val}] + t_ * BW_V;
    const float *u = ws + BW_UB + t_ * BW_V;
    float *du = ws + BW_DU, *dv = din[${m.val}] + t_ * BW_V;
    const float cw = ws[BW_EW + t_], ce = ws[BW_EE + t_];
    (void)u; (void)ce; (void)du;
    float dcw = 0.0f, dce = 0.0f;
    for (int j = 0; j < BW_V; j++) {
      dv[j] += cw * dw[j];
      dcw += v[j] * dw[j];
      du[j] = -ce * dw[j];
      dce -= u[j] * dw[j];
    }
    (void)dcw; (void)dce;
@ for _, dd in ipairs(m.dwrite) do
    din[${dd.idx}][t_] += dcw * ${dd.d};
@ end
@ for _, dd in ipairs(m.derase) do
    din[${dd.idx}][t_] += dce * ${dd.d};
@ end
@ if m.delta then
    /* u = (D Z_{t-1})' k: dP = dZ + k du', dk += D Z_{t-1} du, dD = rows of Z_{t-1} . dP, dZ <- D dP */
    for (int i = 0; i < BW_K; i++) {
      const bw_v8 ki = bw_vb(km[i]), di = bw_vb(dm[i]);
      bw_v8 ad = bw_vb(0.0f), ab = bw_vb(0.0f);
      const float *zpi = zp + i * BW_V;
      float *dzi = dz + i * BW_V;
      for (int j = 0; j < BW_V; j += 8) {
        const bw_v8 z = bw_vl(zpi + j), uu = bw_vl(du + j), p = bw_vl(dzi + j) + ki * uu;
        ab += z * uu;
        ad += z * p;
        bw_vs(dzi + j, di * p);
      }
      ddm[i] = dm[i] * bw_vsum(ad);
      dkm[i] += dm[i] * bw_vsum(ab);
    }
@ end
@ if m.decay == 'diag' then
    for (int i = 0; i < BW_K; i++) din[${m.diag_in}][t_ * BW_K + i] += ddm[i];
@ elseif m.logdecay then
    {
      float dl = 0.0f;
      for (int i = 0; i < BW_K; i++) dl += ddm[i];
@   for _, x in ipairs(m.dlog) do
      din[${x.idx}][t_] += dl * ${x.d};
@   end
      (void)dl;
    }
@ end
  }
}

int64_t ${P.name}_bwd_ws(int64_t max_len) {
  const int64_t nch = max_len > 0 ? (max_len + BW_C - 1) / BW_C : 1;
  return BW_FIXED + nch * BW_PER_CHUNK;
}

void ${P.name}_bwd(const ssmc_bwd_args *a, int64_t item_begin, int64_t item_end, float *ws) {
  const int iters = a->iters > 0 ? a->iters : ${sv and sv.iters or 0};
  const int64_t KV = (int64_t)BW_K * BW_V;
  const int G = a->h_v / a->h_qk;
  float *zc = ws + BW_FIXED; /* (n_chunks, per chunk): Z (K, V) then H (K, K) full */
  (void)iters;
  for (int64_t it = item_begin; it < item_end; it++) {
    const int64_t n = it / a->h_qk;
    const int hq = (int)(it % a->h_qk);
    const int64_t t0 = a->cu_seqlens ? a->cu_seqlens[n] : n * a->t_len;
    const int64_t T = a->cu_seqlens ? a->cu_seqlens[n + 1] - t0 : a->t_len;
    const int64_t nch = (T + BW_C - 1) / BW_C;
    for (int gi = 0; gi < G; gi++) {
      const int h = hq * G + gi;
      const int64_t slot = n * a->h_v + h;
      /* forward sweep: the state at every chunk start */
      const float *z0 = a->state_in[${m.state}];
      for (int64_t i = 0; i < KV; i++) zc[i] = z0 ? z0[slot * KV + i] : 0.0f;
@ if sv then
      {
        const float *h0 = a->state_in[${sv.state}];
        float *hf = zc + KV;
        for (int i = 0; i < BW_K; i++)
          for (int j = 0; j <= i; j++)
            hf[i * BW_K + j] = hf[j * BW_K + i] = h0 ? h0[slot * ${K * (K + 1) // 2} + i * (i + 1) / 2 + j] : 0.0f;
      }
@ end
      bw_copy(ws + BW_ZB, zc, (int)KV); /* stepped in place, token by token */
@ if sv then
      bw_copy(ws + BW_HB, zc + KV, BW_K * BW_K);
@ end
      for (int64_t c = 0; c + 1 < nch; c++) {
        const int L = BW_C;
        bw_load(a, t0 + c * BW_C, L, h, hq, ws);
        bw_coefs(ws, L);
        bw_recompute(ws, L, 1);
        bw_copy(zc + (c + 1) * BW_PER_CHUNK, ws + BW_ZB, (int)KV);
@ if sv then
        bw_copy(zc + (c + 1) * BW_PER_CHUNK + KV, ws + BW_HB, BW_K * BW_K);
@ end
      }
      /* the adjoints of the final states */
      float *dz = ws + BW_DZ;
      const float *dzo = a->dstate_out[${m.state}];
      for (int64_t i = 0; i < KV; i++) dz[i] = dzo ? dzo[slot * KV + i] : 0.0f;
@ if sv then
      {
        const float *dho = a->dstate_out[${sv.state}];
        float *dh = ws + BW_DH;
        for (int i = 0; i < BW_K; i++)
          for (int j = 0; j <= i; j++) { /* a packed off-diagonal element stands for (i,j) and (j,i) */
            const float p = dho ? dho[slot * ${K * (K + 1) // 2} + i * (i + 1) / 2 + j] : 0.0f;
            dh[i * BW_K + j] = dh[j * BW_K + i] = i == j ? p : 0.5f * p;
          }
      }
@ end
      /* reverse sweep */
      for (int64_t c = nch - 1; c >= 0; c--) {
        const int L = (int)(T - c * BW_C < BW_C ? T - c * BW_C : BW_C);
        const int64_t tok0 = t0 + c * BW_C;
        bw_load(a, tok0, L, h, hq, ws);
        bw_coefs(ws, L);
        bw_copy(ws + BW_ZB, zc + c * BW_PER_CHUNK, (int)KV);
@ if sv then
        bw_copy(ws + BW_HB, zc + c * BW_PER_CHUNK + KV, BW_K * BW_K);
@ end
        bw_recompute(ws, L, 0);
@ if sv then
        for (int t = 0; t < L; t++) { /* x: the forward's, or the same Chebyshev again */
          float *x = ws + BW_X + t * BW_K;
          if (a->aux_in[0]) {
            bw_copy(x, a->aux_in[0] + ((tok0 + t) * a->h_v + h) * BW_K, BW_K);
          } else {
            const float nrm = ws[BW_NRM + t], l = ${f32(sv.lam_a)} * nrm + ${f32(sv.lam_b)};
            bw_cheb(ws + BW_HB + (t + 1) * (int64_t)BW_K * BW_K, nrm, l, ws + BW_IN${sv.rhs} + t * BW_K, x, iters, ws);
          }
        }
@ end
@ for _, x in ipairs(P.inputs) do
        bw_zero(ws + BW_DIN${x.idx}, L * ${x.D});
@ end
        for (int t = L - 1; t >= 0; t--) bw_token(ws, t, iters);
@ for _, x in ipairs(P.inputs) do
@   local H = x.heads == 'qk' and 'a->h_qk' or 'a->h_v'
@   local hh = x.heads == 'qk' and 'hq' or 'h'
        if (a->din[${x.idx}]) { /* ${x.name}: (T, ${H}, ${x.D}) */
          const float *s = ws + BW_DIN${x.idx};
          for (int t = 0; t < L; t++) {
            float *p = a->din[${x.idx}] + ((tok0 + t) * ${H} + ${hh}) * ${x.D};
@   if x.heads == 'qk' then
            if (gi == 0) for (int d = 0; d < ${x.D}; d++) p[d] = s[t * ${x.D} + d];
            else for (int d = 0; d < ${x.D}; d++) p[d] += s[t * ${x.D} + d];
@   else
            for (int d = 0; d < ${x.D}; d++) p[d] = s[t * ${x.D} + d];
@   end
          }
        }
@ end
      }
      if (a->dstate_in[${m.state}])
        for (int64_t i = 0; i < KV; i++) a->dstate_in[${m.state}][slot * KV + i] = dz[i];
@ if sv then
      if (a->dstate_in[${sv.state}]) {
        const float *dh = ws + BW_DH;
        float *p = a->dstate_in[${sv.state}] + slot * ${K * (K + 1) // 2};
        for (int i = 0; i < BW_K; i++)
          for (int j = 0; j <= i; j++) p[i * (i + 1) / 2 + j] = i == j ? dh[i * BW_K + i] : dh[i * BW_K + j] + dh[j * BW_K + i];
      }
@ end
    }
  }
}
#endif
