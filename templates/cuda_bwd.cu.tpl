@ --[[ Template cuda_bwd.cu.tpl — the CUDA chunkwise BACKWARD of one spec and dtype (NVRTC, sm_80 and sm_90).
@ Appended by compiler/emb.c to the output of cuda_kernel.cu.tpl (same module): it reuses the forward's
@ device helpers (tile_in/tile_out, mm, chunk_of, item_of, unit_lower_inverse) and its macros (KD, VD,
@ CH, KP, CP, WS_*) and the forward's prep and state or scan bodies (prep_body, state_body, scan_body),
@ which it runs first.
@ Every tile product is mmb: about fp32-accurate (the gradients cancel, the decay's most), or one tf32 product where
@ the oracle rows show that enough (MM_BWD).
@ Parameters: the table P of cpu_bwd.c.tpl (compiler/emb.c) plus CC (the module's chunk) and CBV.
@ With y = (q~ e^b) Z0 + A u and Z_L = diag(e^{b_L}) Z0 + kd' u per chunk (u = U + W Z0 with a rank-1
@ erase), the adjoints are du = A' dY + kd dZ_L and dZ0 = diag(e^{b_L}) dZ_L + (q~ e^b)' dY + W' du;
@ the rest is the chunk-local differentiation of cpu_bwd.c.tpl. Stages, in order:
@   fprep, fstate (with a rank-1 erase): the forward's prep and state again (chunk-start states, kd, W,
@          u, and T's rows for bval), fp32-accurate with f32 inputs, the forward's one tf32 product with bf16 ones (MM_FREC).
@          With bf16 inputs every forward variant can leave these in the workspace instead (P.KEEP:
@          rt_cuda_fwd_save, the keep forms); a backward with fwd_saved then skips them.
@   fprep, fscan (without one): the forward's prep (all chunks: each chunk's dZ = kd' U into its slot,
@          and with per-key decays kd, U = diag(w) V per token) and its elementwise scan (the chunk-start
@          states in place of dZ), with the backward's tile products (MM_BWD: with bf16 inputs the forward's, so its
@          variants can keep these too, P.KEEP, and fwd_saved skips them).
@   bprep  (chunks): q~, the masked scores A; A' dY into the workspace (du's chunk-local part) and
@          (q~ e^b)' dY (dZ0's), for all chunks at once.
@   bstate (with an erase; sequence, value head, value tile): the only sequential pass, last chunk to
@          first: stores each chunk's end adjoint dZ_L, du = A' dY + kd dZ_L,
@          dZ <- e^{b_L} dZ + (q~e^b)'dY + W' du.
@   bscan  (without one; grid: blocks of 4 x 128 state elements per (sequence, value head)): the only
@          sequential pass, elementwise, last chunk to first: stores each chunk's end adjoint dZ_L,
@          dZ <- e^{b_L} dZ + (q~e^b)'dY; du's state term is bval's.
@   bval   (chunks): without an erase du = A' dY + kd dZ_L (= dr); with one dr = T' du (T = (I - NAKK)^-1
@          as fprep or the keep form of prep left it); dv = w dr, the write coefficient's gradient v . dr.
@   bgrad  (chunks, key tiles): dY Z0', u dZ_L', dr Z0' over all value columns and dA = dY u',
@          dG = dr u' (on sm_90a on wgmma: BGW); then dq~, dk (row and column parts), the per-key decay's
@          gradient; partial row sums for the scalar gradients.
@   brows  (chunks): the scalar inputs' gradients (the scalar log decay's by its cumulative sum from
@          the chunk end, in double).
@   breduce (chunks): with grouped value heads, the q/k gradients summed over each group.
@ With a solve readout x = CH_r(H_t + lambda_t I, b_t) (GKA; 002 §4.2.2, App. B.2), implicit
@ differentiation as cpu_bwd.c.tpl's bw_solve, seven more stages around the ones above (15 in all):
@   bhdelta, bhscan (chunks; sequence, value head, elements): H's recurrence alone, chunk-parallel as the forward's
@          hdelta (on sm_90a bhdelta90) and hscan, each chunk-start H (fp32, K x K) into the workspace.
@   xsolve (chunks): x from the chunk-start H (the forward's solve pieces: norms, r Chebyshev steps), all
@          chunks at once, into the forward's per-token workspace; the main state's stages read it as a
@          query source (bgrad writes dx = coef dq~). On sm_90a its form xsolve90 (psolve90's body) where the module has
@          one.
@   gcheb  (chunks, after brows): g = CH_r(H_t + lambda_t I, dx_t) in place of dx, all chunks at once; on sm_90a
@          its form gcheb90 (psolve90's body) where the module has one.
@   gsolve (chunks): db += g; the per-token scalars
@          (R_t, the log decay's direct term, hb, hw) and the chunk's local adjoint of its start H:
@          D = e^{2 hb_0} R_0 H0 - sym(g' e^{hb} x) + k' diag(hw e^{hb} R) k.
@   hadj   (sequence, value head, elements): the only sequential pass of the solve, last chunk to first, elementwise:
@          stores each chunk's end adjoint dH_L (over D), dH <- e^{hb_L} dH_L + D.
@   sgrad  (chunks): Q_t (the adjoint of H times k_t, closed form), dk += 2 hw Q, <dH_L, H_L>, the write's and the
@          log decay's gradients of H (added to brows's). ]]
@ local K, V, C = P.K, P.V, P.CC
@ local m, sv = P.main, P.solve
@ local diag = m.decay == 'diag'
@ -- KDU_B (as cuda_kernel.cu.tpl's): without an erase or per-key decays bprep writes the chunks' decays for bscan,
@ -- from the inputs (the forward's keep forms do not); bval forms kd = K e^{b_L - b} from the keys and bgrad reads V
@ -- for U = diag(w) V, neither stored (bprep storing an fp32 U for bgrad: H200 Mamba-2 B8 T4096 H16 bprep 0.528 ms,
@ -- bgrad 1.204; without it 0.405 and 1.173, fwd+bwd-saved 3.185 -> 3.015: bench/2026-12-02-gpu-h200-s61 call 1)
@ local KDU_B = not m.delta and not diag
@ local scalar_db = not diag and #m.dlog > 0
@ do
@ local NT = 512
@ local NTS = 128 -- bscan (no erase): four state elements a thread, as the forward's scan
@ local NTG = diag and 256 or nil -- bprep, bval, bgrad: their per-key decay loops want up to ~190 registers a thread
@ local BWD_TF1 = P.dtype == 'bf16' and not m.delta and not sv
@ -- operands exact in tf32 (mmb's XA, XB): dY and an input's rows loaded as given (bf16, not a gate)
@ local function xin(x) return (P.dtype == 'bf16' and not x.gate) and 'true' or 'false' end
@ local DYX, KX = P.dtype == 'bf16' and 'true' or 'false', xin(P.inputs[m.key + 1])
@ local SKX = sv and xin(P.inputs[sv.key + 1]) -- the solve's keys
@ -- Q1: the [K] input of the one query term where there is one and it is an input (not the solve's x)
@ local Q1 = #P.q == 1 and P.q[1].src ~= 'X' and P.inputs[tonumber(P.q[1].src) + 1]
@ -- every stage declares its blocks an SM in __launch_bounds__ (one, or two where two()): ptxas otherwise aims
@ -- at more and spills
@ local function ld4(n) return n + (4 - n) % 32 end -- row-major operands and results
@ local function ld8(n) return n + (8 - n) % 32 end -- [k][j] operands
@ local KPn, CPn = K + 4, C + 4
@ local VPFn = V + 8
@ local function new_layout(budget) -- budget: bytes for L.second (160 KiB: one block an SM)
@   local L = {off = 0, budget = budget or 160 * 1024}
@   function L.alloc(name, n) L[#L + 1] = {name, L.off}; L.off = L.off + math.ceil(n / 32) * 32 end
@   -- second buffers NAME2 of tiles {NAME, floats}, where all fit in the budget; else each NAME2 is NAME
@   function L.second(tiles)
@     local n = 0
@     for _, t in ipairs(tiles) do n = n + math.ceil(t[2] / 32) * 32 end
@     local fit = (L.off + n) * 4 <= L.budget
@     for _, t in ipairs(tiles) do
@       if fit then L.alloc(t[1] .. '2', t[2])
@       else for _, e in ipairs(L) do if e[1] == t[1] then L[#L + 1] = {t[1] .. '2', e[2]} end end end
@     end
@   end
@   return L
@ end
@ local scalars = {}
@ for _, x in ipairs(P.inputs) do if x.D == 1 then scalars[#scalars + 1] = x end end
@ local function alloc_scalars(L) for _, x in ipairs(scalars) do L.alloc('IN' .. x.idx, C) end end
@ -- the [K] vectors with q/k heads (their gradients are summed over a group of value heads)
@ local kin = {}
@ for _, x in ipairs(P.inputs) do if x.D == K and x.heads == 'qk' then kin[#kin + 1] = x end end
@ -- row partial sums of bgrad, per token, value head and key tile: [S (decay identity)] [dce] [dc of each q term]
@ local NR, R_S, R_CE = 0, nil, nil
@ if scalar_db then R_S = NR; NR = NR + 1 end
@ if m.delta then R_CE = NR; NR = NR + 1 end
@ local R_Q = {}
@ for i, q in ipairs(P.q) do if #q.dcoef > 0 then R_Q[i] = NR; NR = NR + 1 end end
@ local function rup(n, m) return math.ceil(n / m) * m end
@ -- tiles: the key tile BK of bgrad, its value loop BVG, bprep's value loop BV2, bstate's value tile BVB
@ local function divisor(n, list) for _, d in ipairs(list) do if n % d == 0 then return d end end end
@ local BK = divisor(K, {64, 32, 16})
@ local NKT = K // BK
@ local BV2 = divisor(V, {32, 16, 8})
@ local BVG = BV2
@ local BT_DU, BT_DCW, BT_PART = 0, V, V + 1
@ local BW_TOK = rup(V + 1 + NKT * NR, 4)
@ -- BS_KF (a rank-1 erase with scalar decays): bstate forms kd = diag(f) K and the erase's keys ke = diag(g) K (W = T ke)
@ -- from the keys as loaded and two factors a token, f = e^{b_L - b}, g = -e e^b (bprep's, at BT_KF: 16 bytes a token), so
@ -- a forward leaves it neither kd nor W
@ local BS_KF = m.delta and not diag and K % 8 == 0
@ -- BSQ (BS_KF, bf16 keys and one query term from an input exact in bf16): dZ0's chunk-local part (q~ e^b)' dY is
@ -- bstate's, q' (s dY) with s = coef e^b a token (bprep's, beside f and g), not bprep's product stored (K x V floats a
@ -- chunk) for bstate to read again. H200 GDN B8 T4096 H16: without that product and its reads bprep 0.776 -> 0.517 ms,
@ -- bstate 1.174 -> 1.083 (bench/2026-11-30-gpu-h200-s54/ call 1, a diagnostic)
@ local BSQ = BS_KF and Q1 and xin(Q1) == 'true' and KX == 'true'
@ -- BQS (KDU_B: no erase, no per-key decays; one query term from a bf16 input): the same for bscan, which becomes a tile
@ -- pass a value tile BQV at a time, dZ <- e^{b_L} dZ + q' (s dY) (s: bprep's, at BT_S), in place of the elementwise scan
@ -- over bprep's stored part (H200 Mamba-2 B8 T4096 H16: bprep 0.812 -> 0.514 ms without it, s54 call 1; bscan 0.348)
@ local BQS = KDU_B and Q1 and xin(Q1) == 'true' and K % 16 == 0 and C % 16 == 0 and V % 16 == 0
@ local BQV = V % 32 == 0 and 32 or 16
@ -- BQS's pick (ssmc_cuda_narrow, with the forward's value tile bv): H200 Mamba-2 H16 (bv 64) B2 T16384 the tile pass
@ -- 2.99 ms against 3.15, B1 T32768 3.40 against 3.12 (s54 calls 4, 5): between 64 and 32 tiles of bv on 132 SMs
@ local BQS_PCT = 40
@ local DZQ = BSQ or BQS -- dZ0's chunk-local part not bprep's
@ local QH, QHH = Q1 and Q1.heads == 'qk' and 'a.h_qk' or 'a.h_v', Q1 and Q1.heads == 'qk' and 'it.hq' or 'it.h' -- BSQ's, BQS's query rows
@ local BT_KF = BW_TOK -- f, g, s (BSQ), e^{b_L}
@ if BS_KF then BW_TOK = BW_TOK + 4 end
@ local BT_S = BSQ and BT_KF + 2 or BW_TOK -- s = coef e^b (BSQ, BQS)
@ if BQS then BW_TOK = BW_TOK + 4 end
@ local BT_DXG, BT_SC = BW_TOK, BW_TOK + K -- a solve: dx, then g (K); R_t, the log decay's direct term, hb, hw
@ if sv then BW_TOK = BW_TOK + K + 4 end
@ -- a token's row and a chunk slot's start on a 128-byte line: GDN's row of 140 floats put every other value head's du
@ -- rows 16 bytes off a 32-byte sector, its slot of K V + 4 every other slot's dZ rows. H200 bf16 B8 T4096 H16
@ -- fwd+bwd-saved (bench/2026-12-01-gpu-h200-s59 call 2, against 4b42701): GDN 5.355 -> 5.142 ms (bprep 0.495 -> 0.423,
@ -- bstate 1.118 -> 1.010 under ncu), B1 T32768 6.60 -> 6.41; DeltaNet 4.885 -> 4.815; Mamba-2 3.454 -> 3.233 (bscan 0.490
@ -- -> 0.339, a slot of 2 K V + 4); rows of 8 floats (32 bytes) in the same call 5.165, 4.828, 3.246
@ BW_TOK = rup(BW_TOK, 32)
@ local BC_DZLOC, BC_DZEND = 0, BSQ and 0 or K * V -- (BSQ: no chunk-local part stored; BQS: only its narrow form's)
@ local BC_ZLDP = BC_DZEND + K * V
@ local BW_CHUNK = rup(BC_ZLDP + NKT, 32)
@ local BC_H0, BC_DH, BC_HLE = BW_CHUNK, BW_CHUNK + K * K, BW_CHUNK + 2 * K * K
@ if sv then BW_CHUNK = BW_CHUNK + rup(2 * K * K + 1, 32) end
@ local NPK = K * (K + 1) // 2
@ local BW_SEQ = K * V + (sv and NPK or 0) -- the final states, every state's (runtime/rt_cuda.c)
@ local BW_QK = #kin * K
@ local function bprep_layout()
@   local L = new_layout()
@   alloc_scalars(L)
@   L.alloc('B', diag and C * KPn or C); L.alloc('QT', C * KPn); L.alloc('A', C * CPn)
@   -- the key tile is spent once the scores are formed: the value loop's tiles in its place
@   local kc = L.off
@   L.alloc('KC', math.max(C * KPn, (2 * C + K) * ld8(BV2)))
@   L[#L + 1] = {'DY', kc}; L[#L + 1] = {'OU', kc + C * ld8(BV2)}; L[#L + 1] = {'OZ', kc + 2 * C * ld8(BV2)}
@   return L
@ end
@ -- bstate's key tile with BS_KF: the keys as loaded (KB_T), rows of KBP elements (16-byte rows, conflict-free
@ -- fragment loads either way)
@ local KB_T = P.inputs[m.key + 1].gate and 'float' or 'elem_t'
@ local KB16 = KB_T == 'elem_t' and P.dtype == 'bf16'
@ local KBP = KB16 and K + 8 or KPn
@ local KBF, KBD = KB16 and KBP // 2 or KBP, KB16 and K // 2 or K -- floats a row, of them the keys'
@ local KB_H, KB_HH = P.inputs[m.key + 1].heads == 'qk' and 'a.h_qk' or 'a.h_v', P.inputs[m.key + 1].heads == 'qk' and 'it.hq' or 'it.h'
@ -- BS16 (the wide form with bf16 keys; BS16N the narrow form's): dZ in registers across the chain (a warp a 16 x NB16 tile of the value tile bv)
@ -- and in shared memory only as bf16 hi and lo tiles, g dr the same; the products with the keys as two exact bf16 ones
@ -- a k16 step (mma.sync m16n8k16, fragments by ldmatrix) in place of tf32 ones splitting dZ and g dr at every fragment
@ -- (s44: ~40% of bstate's instructions). The operand to ~2^-17 relative (the tf32 split's ~2^-21); dZ's chain in fp32.
@ -- The narrow form's (K = 128, nbv 16: eight warps' 16 x 16 tiles), dropped in s52 (2.03 -> 2.08 ms) before BSQ gave the
@ -- pass a third key-sized product: H200 GDN B1 T32768 H16 bstate_n 2.06 -> 1.75 ms (bench/2026-11-30-gpu-h200-s56 call 3)
@ local function bs16_nb(bv, nt) -- the register tile's width where the warps of nt threads (NT_BWD) tile (K, bv) exactly
@   if not (BS_KF and KB16) or K % 16 ~= 0 or C % 16 ~= 0 or bv % 16 ~= 0 then return nil end
@   for _, nb in ipairs({32, 16}) do if bv % nb == 0 and (K // 16) * (bv // nb) == (nt or NT) // 32 then return nb end end -- mm_b16: NB % 16 == 0
@ end
@ -- ring (the narrow form's, BSQ): T and the query rows in two buffers as well (T2, Q2), so that every tile of step j + 1
@ -- loads while all of step j runs (steps<RING>; chain_steps' loads each have a part of a step), where they fit an
@ -- sm_80 block (163 KiB). H200 GDN bf16 B1 T32768 H16: bstate_n 2.14 ms, 1.78 without its step loads, 2.06 with the
@ -- ring (bench/2026-11-30-gpu-h200-s56 calls 1, 2)
@ local function bstate_layout(bv, r16, ring, budget)
@   local L = new_layout(budget)
@   if r16 then L.alloc('ZH', K * ld8(bv) // 2); L.alloc('ZL', K * ld8(bv) // 2) else L.alloc('DZ', K * ld8(bv)) end
@   L.alloc('DU', C * ld8(bv))
@   if BS_KF then -- the keys and their factors in two buffers (both products read them), g dr (C, ld8(bv)), T (C, CP);
@     -- BSQ: the query rows as loaded (C, KBP), read by a step's first part only (the chunk's decay: the factors')
@     L.alloc('KB', C * KBF); L.alloc('KB2', C * KBF); L.alloc('FG', 4 * C); L.alloc('FG2', 4 * C)
@     if r16 then L.alloc('GH', C * ld8(bv) // 2); L.alloc('GL', C * ld8(bv) // 2) else L.alloc('DRG', C * ld8(bv)) end
@     L.alloc('T', C * CPn)
@     if BSQ then L.alloc('Q', C * KBF) end
@   else -- kd and W as the forward left them, dZ_L's chunk-local part (K, ld8(bv))
@     L.alloc('KD', C * KPn); if m.delta then L.alloc('W', C * KPn) end; L.alloc('DZL', K * ld8(bv))
@   end
@   if not BSQ then L.alloc('ZDEC', K) end -- the chunk's decay (BSQ: the keys' factors')
@   L.second({{'DU', C * ld8(bv)}}) -- du in two buffers where they fit (bstate_body)
@   if BS_KF then
@     local ext = BSQ and {{'T', C * CPn}, {'Q', C * KBF}} or {{'T', C * CPn}}
@     local off = {}
@     for _, e in ipairs(L) do off[e[1]] = e[2] end
@     L.ring = BSQ and ring and off.DU2 ~= off.DU and (L.off + C * (CPn + KBF) + 64) * 4 <= 163 * 1024
@     for _, t in ipairs(ext) do -- (without the ring the one buffer)
@       if L.ring then L.alloc(t[1] .. '2', t[2]) else
@         for _, e in ipairs(L) do if e[1] == t[1] then L[#L + 1] = {t[1] .. '2', e[2]} end end
@       end
@     end
@   end
@   return L
@ end
@ local function bval_layout(bvl)
@   local L = new_layout()
@   alloc_scalars(L)
@   if BS_KF then -- R1: dr (C, VPF), bstate's
@     L.alloc('R1', C * VPFn)
@   elseif m.delta then -- R1: du and dr (C, VPF) each; T (C, CP), the forward's (WS_T)
@     L.alloc('R1', 2 * C * VPFn); L.alloc('T', C * CPn)
@   else -- R1: du (C, VPF); kd (C, KP); dZ_L (K, ld8(bvl)) a value tile at a time
@     L.alloc('R1', C * VPFn); L.alloc('KD', C * KPn); L.alloc('DZL', K * ld8(bvl))
@   end
@   if not diag and not m.delta then L.alloc('B', C) end
@   L.alloc('EW', C)
@   return L
@ end
@ -- BKP: bgrad's P1..P3 and dk's row tile at a pitch of 8 mod 32 floats (as KCP, the [k][j] operands'): the wgmma accumulators' float2 stores (a half
@ -- warp's four rows of 8 floats) fall in distinct banks, 2-way conflicted at 4 mod 32. H200 B8 T4096 H16 bf16
@ -- fwd+bwd-saved (bench/2026-12-02-gpu-h200-s60 call 1): GDN 5.15 -> 5.07 ms (bgrad 2.518 -> 2.441), DeltaNet 4.82 ->
@ -- 4.74, GDN B1 T32768 6.41 -> 6.33; Mamba-2 unchanged. dA and dG keep C + 4 (BG3's ldmatrix rows)
@ local BKP, KCP = ld8(BK), ld8(BK)
@ -- BG3: bgrad's four tile products after its loop on bf16 (mma.sync m16n8k16, every fragment one ldmatrix) where the
@ -- keys and the query are exact in bf16 (q~ = c q, c constant) and there is an erase: dA and dG parted into three bf16
@ -- parts each (hi and mid in place of the fp32 row, lo in a tile of their own), about fp32's precision, so three
@ -- products a k16 step with k or q as loaded (dA' q~ = c dA' q), each step's from zero, then added (as MM_TF3P); in
@ -- place of split tf32 products (MM_TF3P) that part both operands at every fragment. Two parts (~2^-17) took the
@ -- emulated edge dg of emu_bgw_delta 9.8e-4 -> 1.46e-2 (bound 1e-2): the decay identity's cancellation
@ -- (bench/2026-11-30-gpu-h200-s53). Without an erase the products are one tf32 product (BWD_TF1), cheaper
@ local BG3 = m.delta and P.dtype == 'bf16' and KX == 'true' and not diag and not sv and Q1 and not Q1.gate and #P.q[1].dcoef == 0
@   and BK % 16 == 0 and C % 16 == 0
@ local KGP = BK + 8 -- BG3's bf16 key and query tiles' pitch (elements): rows 16-byte aligned, ldmatrix without bank conflicts
@ local BVPG = ld4(BVG)
@ local ZDOT = scalar_db or diag -- bgrad sums Z_L . dZ_L per key row
@ -- bgrad's value-loop tiles (racc: one buffer of two, with Z_L's): dY, u, [dr] (C rows), Z0, dZ_L, [Z_L] (BK rows)
@ local function vtiles(racc) return ((m.delta and 3 or 2) * C + ((racc and ZDOT) and 3 or 2) * BK) * BVPG end
@ -- bgrad's value loop on sm_90a (BGW, its width WBV): the products on wgmma (m64 over the chunk, tf32 from shared
@ -- memory, no register fragments), products that share their A operand as one (dY [Z0; u]', dr [Z0; u]', u dZ_L'),
@ -- each on a warpgroup of its own; the tiles in two buffers of K-major core matrices, each operand as a tf32 hi
@ -- part and (MM_TF3) the rest, its lo part (an exact one: no lo), parted once as it is stored. The core matrices
@ -- along k are lbo(wbv) floats apart (not 32), so the four-float row stores of a quarter warp (wbv / 4 threads a
@ -- row) fall in distinct banks. The tiles come through registers (tile_regs), fetched before a step's products
@ -- and stored while they run; Z_L . dZ_L from the same registers.
@ local function lbo(wbv) return 32 + 128 // wbv end
@ local BGW_NS = BWD_TF1 and 1 or 2
@ local function wgb_buf(wbv) -- a buffer's tiles: offsets (floats) of their hi and lo parts, SBO, LBO, size
@   local sbo = wbv // 4 * lbo(wbv)
@   local o, B = 0, {sbo = sbo, lbo = lbo(wbv)}
@   local function tile(name, rows, parts)
@     B[name] = o; o = o + rows // 8 * sbo
@     if parts == 2 then B[name .. '_lo'] = o; o = o + rows // 8 * sbo end
@   end
@   tile('dy', C, DYX == 'true' and 1 or BGW_NS)
@   tile('zu', BK + C, BGW_NS) -- [Z0; u]: Z0's BK rows, then u's C rows (u dZ_L's A operand)
@   tile('dz', BK, BGW_NS)
@   if m.delta then tile('dr', C, BGW_NS) end
@   B.size = o
@   return B
@ end
@ local function bgrad_layout(racc, wbv)
@   local L = new_layout()
@   alloc_scalars(L)
@   -- after the loop: k and q~ (C, KCP) each, then the per-key decays (diag: and mm_pairs' operand, C - 16 rows) or dk's
@   -- row part (an erase)
@   -- (BG3: k and q as loaded (C, KGP) each, dk's row part, the lo parts of dA and dG (C, CP))
@   local post = BG3 and C * KGP + C * BKP + C * CPn or 2 * C * KCP + ((diag or m.delta) and C * BKP or 0) + (diag and (C - 16) * KCP or 0)
@   local r0 = L.off
@   L.alloc('R', math.max(vtiles(racc), post))
@   -- DA: dA (C, CPn), then with an erase and per-key decays dk's row part (C, BKP) in its place (wider when
@   -- the chunk is shorter than the key tile); racc: the second buffer of the value loop's tiles in P1 .. DA/DG;
@   -- wbv: BGW's two buffers from R on
@   local p0 = L.off
@   L.alloc('P1', C * BKP); L.alloc('P2', C * BKP); L.alloc('DA', C * math.max(CPn, (m.delta and diag) and BKP or 0))
@   if m.delta then L.alloc('P3', C * BKP); L.alloc('DG', C * CPn) end
@   if racc and L.off - p0 < vtiles(racc) then L.alloc('PAD', vtiles(racc) - (L.off - p0)) end
@   if wbv and L.off - r0 < 2 * wgb_buf(wbv).size then L.alloc('PADW', 2 * wgb_buf(wbv).size - (L.off - r0)) end
@   if not diag then L.alloc('B', C) end
@   L.alloc('EW', C); L.alloc('EE', C); L.alloc('ZLD', BK)
@   if wbv and ZDOT then L.alloc('ZS', 16) end -- BGW: kd' u . dZ_L, a sum a warp (the stage's 512 threads at most)
@   return L
@ end
@ local function brows_layout()
@   local L = new_layout()
@   alloc_scalars(L)
@   L.alloc('DB', C)
@   return L
@ end
@ local TWO_SMEM = 113 * 1024 -- two blocks an SM
@ local BVB = math.min(V, P.CBV)
@ while BVB > 8 and bstate_layout(BVB).off * 4 > 160 * 1024 do BVB = BVB // 2 end
@ -- bstate's wide form in two blocks an SM (BS2: 256 threads, R16's warps a 16 x 32 tile each, value tile 32) where
@ -- its layout fits half an SM (du in one buffer): two chains of steps interleaved, each block's barriers over 8 warps,
@ -- not one block's over 16. H200 GDN bf16 B8 T4096 H16: bstate 1.361 -> 1.114 ms, fwd+bwd (kept) 5.59 -> 5.34
@ -- (bench/2026-12-01-gpu-h200-s58 call 1)
@ -- The backward's narrow pick then its own (BS2_PCT, the forward's NARROW_PCT 75 before): GDN bf16 B2 T16384 H16 (the
@ -- wide grid at 48% of the SMs) BS2's wide form 1.443 ms, the narrow bstate_n 1.617 (fwd+bwd 6.60 -> 6.43; s58 call 2);
@ -- bwd-saved wide / narrow (call 5): 24% (B2 H8) 3.13 / 2.51 ms, 36% (B2 H12) 3.98 / 4.05, (B1 H24) 7.93 / 8.20, 48%
@ -- (B1 H32) 9.70 / 10.06, 55% (B3 T8192 H12) 3.09 / 3.08: the turn between 24% and 36%
@ local BS_NT, BS_MINB, BS2_PCT = NT, 1, 30
@ if BVB > 32 and bs16_nb(32, 256) == 32 and bstate_layout(32, 32, false, TWO_SMEM).off * 4 <= TWO_SMEM then
@   BVB, BS_NT, BS_MINB = 32, 256, 2
@ end
@ local BVPB = ld8(BVB)
@ local BVL = V -- bval's value tile of dZ_L (no erase)
@ while BVL > 8 and BVL % 16 == 0 and bval_layout(BVL).off * 4 > (not diag and TWO_SMEM or 160 * 1024) do BVL = BVL // 2 end
@ local BS16 = bs16_nb(BVB, BS_NT)
@ local PL, SL, VL, RL = bprep_layout(), bstate_layout(BVB, BS16, false, BS_MINB == 2 and TWO_SMEM or nil), bval_layout(BVL), brows_layout()
@ -- bstate's narrow form (the forward's state pass's: cuda_kernel.cu.tpl's NBV, NNT), where the forward has one
@ local NS = P.FSTATE_N
@ local BS16N = NS and m.delta and BVB > NS.nbv and bs16_nb(NS.nbv, NS.threads)
@ local SLN = NS and m.delta and BVB > NS.nbv and bstate_layout(NS.nbv, BS16N, true)
@ -- bprep, bval, bgrad: two blocks an SM of 256 threads where their shared memory allows (one block's loads
@ -- and barriers under the other's products) and no per-key decay loop wants more than 128 registers
@ local function two(lay)
@   if not diag and lay.off * 4 <= TWO_SMEM then return 256, 2 end
@   return NTG, 1
@ end
@ local NTP, BP_MINB = two(PL)
@ -- BPW: bprep's value loop on wgmma (sm_90a): A' dY and (q~ e^b)' dY, A' and (q~ e^b)' as the register operand A (tf32
@ -- hi and lo parts from their row-major tiles), dY (exact) as B in the spent key tile, a warpgroup for each half of
@ -- the values, m64 units over the tokens and the key blocks of 64; the results from the accumulators to global memory.
@ -- Delta-rule modules only: at B8 T4096 H16 on an H200 it took GDN's bprep 0.84 -> 0.79 ms but Mamba-2's fwd+bwd
@ -- 3.616 -> 3.634 (bench/2026-11-30-gpu-h200-s52, call 1)
@ local BPW = m.delta and P.dtype == 'bf16' and C == 64 and not diag and not sv and V % 16 == 0 and K % 64 == 0 and NTP == 256
@   and (V // 8) * (8 * C + 4) <= math.max(C * KPn, (2 * C + K) * ld8(BV2)) -- dY's B operand in the key tile's place
@ -- DYA: bprep's value loop (not BPW) with every value tile of dY in registers, all fetched at its start (in flight under
@ -- the keys and the scores), where they take at most 16 registers (32 spilled GKA's f32 bprep at sm_80: 32 B); else
@ -- one tile fetched a step ahead (waited on at each step: the loop's products are small). H200 B8 T4096 H16 bf16:
@ -- bprep Mamba-2 0.403 -> 0.368 ms, GLA 3.71 -> 3.16 (bench/2026-12-02-gpu-h200-s61 call 2)
@ local DYA = V // BV2 > 1 and (V // BV2) * math.ceil(C * BV2 // 4 / (NTP or NT)) * (P.dtype == 'bf16' and 2 or 4) <= 16
@ local NTV, BV_MINB = two(VL)
@ -- bgrad's value loop (RACC): its products in registers across the loop (mm_acc) and its tiles in two
@ -- buffers filled by cp.async (one barrier a step), where the accumulators take at most half of a
@ -- thread's registers, 5/16 with the split products' hi and lo fragments (NVRTC 13, 128 registers:
@ -- Mamba-2 bf16's 48 do not spill, its f32 module's and GKA's 48 in the split form spill 64-96 B,
@ -- GDN's 40 at most 16); else the products through shared memory, the tiles through registers (ptile)
@ local function acc_regs(M, N, nt) -- mm_acc's tiles: 16 x NB (mm_nb's rule), TPW a warp
@   local W = nt // 32
@   local NB = (N % 32 == 0 and (M // 16) * (N // 32) >= W) and 32 or (N % 16 == 0 and (M // 16) * (N // 16) >= W) and 16 or 8
@   return math.ceil((M // 16) * (N // NB) / W) * NB // 2
@ end
@ local RACC, GL = true, bgrad_layout(true)
@ local NTB, BG_MINB = two(GL)
@ do
@   local nt = NTB or NT
@   local regs = (m.delta and 3 or 2) * acc_regs(C, BK, nt) + (m.delta and 2 or 1) * acc_regs(C, C, nt)
@   if regs > math.min(255, 65536 // (nt * (BG_MINB or 1))) * (BWD_TF1 and 8 or 5) // 16 then
@     RACC, GL = false, bgrad_layout(false)
@     NTB, BG_MINB = two(GL)
@   end
@ end
@ -- BGW where a chunk is wgmma's m (64) and no per-key decay or solve has the loop's registers; WBV the widest value
@ -- tile whose buffers keep the stage's blocks an SM and fit 160 KiB (a block's most on every GPU: compiler/cuc.c)
@ local BGW, WBV = C == 64 and not diag and not sv, nil
@ if BGW then
@   local nt, minb = two(GL)
@   for _, w in ipairs({32, 16, 8}) do
@     if V % w == 0 and not WBV then
@       local lay = bgrad_layout(RACC, w)
@       local nt2, minb2 = two(lay)
@       if nt2 == nt and minb2 == minb and lay.off * 4 <= 160 * 1024 then WBV, GL = w, lay end
@     end
@   end
@   BGW = WBV ~= nil
@ end
@ -- BGE: the split products' lo terms in accumulators of their own in bgrad (its wgmma loop's, and its mmb products
@ -- after the loop: SEP), so that the big sums are truncated by the tensor cores a third as often: each mma truncates
@ -- its fp32 sum toward zero, and the decay identity's cancellation (log decays near -20, beta = 1 with repeated keys)
@ -- turned that bias into an edge dg over its 1e-2 bound on an H200 (K = 32 f32 2.0e-2; K = 96 f32 1.7e-2, bf16
@ -- 1.19e-2). The emulation's model of the accumulation (SSMC_EMU_TC=3) reproduces it and gives K = 32 f32 7.4e-3,
@ -- K = 96 f32 7.1e-3, bf16 3.6e-3 with both (1.13e-2 with the loop's alone, 1.68e-2 with every mmb's alone, which
@ -- spilled GDN's bprep and bgrad at sm_80): bench/, the s41 and s42 records. Where their accumulators fit, at the
@ -- cost of bgrad's second block an SM: every thread loads (no producer warpgroup, whose consumers have 128
@ -- registers at most) and warpgroup 0's groups, (BK + C) + BK columns, twice over, take at most 128 (NVRTC 13,
@ -- sm_90a, one block an SM: the K = 32 and K = 96 fixtures' bgrad 211 registers, no spills; GDN's, BK = 64 with a
@ -- producer, spilled 1712 B). So BK <= 32 at chunk 64: no built-in spec's module (K = 128, 64) is changed.
@ local BGE = BGW and BGW_NS == 2 and (NTB or NT) // 128 <= (m.delta and 3 or 2) and 2 * BK + C <= 128
@ if BGE then BG_MINB = 1 end
@ -- bgrad's mmb products after the loop: SEP with BGE, and on sm_90 (one more accumulator pair a warp: sm_80's
@ -- 128 registers spilled)
@ local SEPB = BGE and 'true' or 'SSMC_SM90'
@ local function layout_enum(prefix, lay)
enum {
@   for _, w in ipairs(lay) do
  ${prefix}${w[1]} = ${w[2]},
@   end
  ${prefix}TOTAL = ${lay.off}
};
@ end

/* ================================================================ chunkwise backward (cuda_bwd.cu.tpl) */
#define BK ${BK}
#define NKT ${NKT}
#define BV2 ${BV2}
#define BVG ${BVG}
#define BW_TOK ${BW_TOK}     /* backward workspace per token and value head: du / dr (V), dcw, row partials */
#define BT_DU ${BT_DU}
#define BT_DCW ${BT_DCW}
#define BT_PART ${BT_PART}
@ if BS_KF then
#define BT_KF ${BT_KF}       /* bstate's factors a token: f = e^{b_L - b} (kd), g = -e e^b (the erase's), s = coef e^b (BSQ), e^{b_L} */
#define KBP ${KBP}           /* bstate's key tile: elements a row */
@ end
#define NR ${NR}
#define BW_CHUNK ${BW_CHUNK} /* per chunk slot and value head: [(q~e^b)'dY (K, V)], dZ_L (K, V), Z_L.dZ_L partials */
@ if not BSQ then
#define BC_DZLOC ${BC_DZLOC}
@ end
@ if DZQ then
#define BT_S ${BT_S}         /* s = coef e^b a token (bprep's): y = diag(s) dY, dZ0's chunk-local part q' y */
@ end
#define BC_DZEND ${BC_DZEND}
#define BC_ZLDP ${BC_ZLDP}
#define BW_SEQ ${BW_SEQ}     /* per (sequence, value head): the forward's final states */
@ if sv then
#define BT_DXG ${BT_DXG}     /* a solve, per token: dx (bgrad), then g = CH_r(H_t + lambda_t I, dx_t) masked (gsolve) */
#define BT_SC ${BT_SC}       /* R_t, the log decay's direct term, hb_t, hw_t (gsolve) */
#define BC_H0 ${BC_H0}       /* per chunk slot: the chunk-start H (K, K) (bhscan) */
#define BC_DH ${BC_DH}       /* the chunk's local adjoint of H0 (gsolve), then dH at the chunk end (hadj) */
#define BC_HLE ${BC_HLE}     /* hb at the chunk end (gsolve) */
#define BW_WSX 0             /* x: the first K floats of the forward's per-token workspace (cuda_kernel.cu.tpl) */
@ end
#define BW_QK ${BW_QK}       /* per token and value head with grouped heads: the q/k gradients before their sum */
@ layout_enum('BP_', PL)
@ layout_enum('BS_', SL)
@ if SLN then layout_enum('BN_', SLN) end
@ layout_enum('BV_', VL)
@ layout_enum('BG_', GL)
@ layout_enum('BR_', RL)

/* The workspace of a backward call: the forward's (per token, per chunk slot), then the backward's. */
struct bws_t { float *ftok, *fchunk, *btok, *bchunk, *bseq, *bqk; };
__device__ __forceinline__ bws_t bws_of(const ssmc_fwd_args &a, float *ws) {
  const long long slots = a.cu_seqlens ? a.t_total / CH + a.n_seqs : (long long)a.n_seqs * ((a.t_len + CH - 1) / CH);
  bws_t w;
  w.ftok = ws;
  w.fchunk = w.ftok + a.t_total * a.h_v * WS_TOK;
  w.btok = w.fchunk + slots * a.h_v * WS_CHUNK;
  w.bchunk = w.btok + a.t_total * a.h_v * BW_TOK;
  w.bseq = w.bchunk + slots * a.h_v * BW_CHUNK;
  w.bqk = w.bseq + (long long)a.n_seqs * a.h_v * BW_SEQ;
  return w;
}

@ -- in[] bound to the stage's scalar columns, loaded for the chunk's L tokens
@ local function load_scalars(prefix)
  float *in[SSMC_MAX_IO];
  (void)in;
@   for _, x in ipairs(scalars) do
  in[${x.idx}] = sm + ${prefix}IN${x.idx};
  for (int t = threadIdx.x; t < CH; t += NT) in[${x.idx}][t] = t < L ? ((const float *)a.in[${x.idx}])[(tok + t) * a.h_v + it.h] : 0.0f;
@   end
@ end
@ -- a loop's tiles through registers (tile_regs): ptiles_fetch issues every load of a step and returns,
@ -- so the loads fly under the products of the step before; ptiles_put writes them to shared memory
@ -- (dst, ld; a tile without dst stays in registers). src(s): the C address of step s, as ptiles_fetch's
@ -- caller names it (a value column; bstate: the suffix of the next chunk's tok_ and cs_; none for one step).
@ local function ptile(name, rows, D, T, dst, ld, src, rs, L)
@   return {name = name, rows = rows, D = D, T = T, dst = dst, ld = ld, src = src, rs = rs, L = L or 'L'}
@ end
@ local function ptiles_decl(l)
@   for _, c in ipairs(l) do
    tile_regs<NT, ${c.rows}, ${c.D}, ${c.T}> ${c.name};
@   end
@ end
@ local function ptiles_fetch(l, v0)
@   for _, c in ipairs(l) do
    ${c.name}.fetch(${c.src(v0)}, ${c.rs}, ${c.L});
@   end
@ end
@ local function ptiles_put(l)
@   for _, c in ipairs(l) do
@     if c.dst then
    ${c.name}.put(${c.dst}, ${c.ld}, ${c.L}, one_t(), false);
@     end
@   end
@ end
@ -- rows of [K] input x from token tok, key columns k0 .. k0 + n, into dst (ld), scaled by coef (a C
@ -- expression of t_) and added (acc)
@ -- the rows of [K] input x from token tok as C text: element type, address (at key column k0 where given), row stride
@ local function krows(x, k0)
@   local H = x.heads == 'qk' and 'a.h_qk' or 'a.h_v'
@   local hh = x.heads == 'qk' and 'it.hq' or 'it.h'
@   local T = x.gate and 'float' or 'elem_t'
@   return T, '(const ' .. T .. ' *)a.in[' .. x.idx .. '] + (tok * ' .. H .. ' + ' .. hh .. ') * KD' .. (k0 and (' + ' .. k0) or ''),
@          '(long long)' .. H .. ' * KD'
@ end
@ local function load_k(x, dst, ld, k0, n, coef, acc)
@   local _, src, rs = krows(x, k0)
  tile_in<NT, CH, ${n}>(${dst}, ${ld}, ${src}, ${rs}, L,
                        ${coef and ('[&](int t_) { return (float)(' .. coef .. '); }') or 'one_t()'}, ${acc and 'true' or 'false'});
@ end
@ -- q~ = sum of coefficient * source over key columns k0 .. k0 + n (after the scalars and a barrier)
@ local function build_qt(dst, ld, k0, n)
@   for i, q in ipairs(P.q) do
@     if q.src == 'X' then -- the solve's x (xsolve), v heads
  tile_in<NT, CH, ${n}>(${dst}, ${ld}, w.ftok + (tok * a.h_v + it.h) * WS_TOK + BW_WSX + ${k0}, (long long)a.h_v * WS_TOK, L,
                        [&](int t_) { return (float)(${q.coef}); }, ${i > 1 and 'true' or 'false'});
@     else
@     load_k(P.inputs[tonumber(q.src) + 1], dst, ld, k0, n, q.coef, i > 1)
@     end
@     if i < #P.q then
  __syncthreads();
@     end
@   end
@ end
@ -- write / erase coefficients and the cumulative log decays: scalar b[t] (C), or per key b[t * ld + k]
@ -- for key columns k0 .. k0 + n (diag); rows past L keep the chunk's last value
@ local function coefs(ew, ee, b, ld, k0, n)
@   if ew then
  for (int t_ = threadIdx.x; t_ < CH; t_ += NT) {
    ${ew}[t_] = t_ < L ? ${m.write} : 0.0f;
    ${ee}[t_] = t_ < L ? ${m.delta and m.erase or '0.0f'} : 0.0f;
  }
@   end
@   if diag then
  for (int k = threadIdx.x; k < ${n}; k += NT) {
    const float *gk = (const float *)a.in[${m.diag_in}] + (tok * a.h_v + it.h) * KD + ${k0} + k;
    float acc = 0.0f;
    for (int t = 0; t < CH; t++) { if (t < L) acc += gk[(long long)t * a.h_v * KD]; ${b}[t * ${ld} + k] = acc; }
  }
@   else
  if (threadIdx.x < 32) { /* inclusive prefix sum of the log decays: warp 0 */
    float carry = 0.0f;
    for (int c = 0; c < CH; c += 32) {
      const int t_ = c + (int)threadIdx.x;
      float v = 0.0f;
@     if m.logdecay then
      if (t_ < L) v = ${m.logdecay};
@     end
      for (int o = 1; o < 32; o <<= 1) {
        const float up_ = __shfl_up_sync(0xffffffffu, v, o);
        if ((int)threadIdx.x >= o) v += up_;
      }
      if (t_ < CH) ${b}[t_] = carry + v;
      carry += __shfl_sync(0xffffffffu, v, 31);
    }
  }
@   end
  __syncthreads();
@ end
@ -- kt_fast (bgrad's grid of chunks x heads x key tiles): the block's place taken with the key tile varying fastest, so
@ -- that a chunk's key tiles run side by side and read its dY, u and dr rows once from memory (then from L2). With an
@ -- erase only: H200 B8 T4096 H16 bwd-saved GDN 4.905 -> 4.864 ms, DeltaNet 4.482 -> 4.425; Mamba-2 3.124 -> 3.118
@ -- with its bf16 bgrad spilling 32 B at sm_90a (bench/2026-11-30-gpu-h200-s54/ call 1)
@ local function stage_head(name, grid_chunks, nt, minb, kt_fast)
extern "C" __global__ void __launch_bounds__(${nt or 'NT_BWD'}, ${minb or 1}) ${P.name}_${name}(ssmc_fwd_args a, ssmc_bwd_args g, float *ws) {
  constexpr int NT = ${nt or 'NT_BWD'};
  extern __shared__ float sm[];
  const bws_t w = bws_of(a, ws);
  (void)g; (void)w;
@   if kt_fast then
  const unsigned lin_ = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z), rest_ = lin_ / gridDim.z;
  const int kt = (int)(lin_ % gridDim.z), gx_ = (int)(rest_ % gridDim.x); /* key tile, chunk slot */
  chunk_t ch;
  if (!chunk_of(a, ch, gx_, (int)(rest_ / gridDim.x))) return;
@   elseif grid_chunks then
  chunk_t ch;
  if (!chunk_of(a, ch)) return;
@   end
@   if grid_chunks then
  const item_t it = ch.it;
  const int L = ch.L;
  const long long tok = it.t0 + ch.c0;
  const long long cs = (long long)${kt_fast and 'gx_' or 'blockIdx.x'} * a.h_v + it.h; /* the chunk slot's row of this head */
  (void)cs;
@   end
@ end
#define NT_BWD ${NT}
/* The backward's tile products: about fp32-accurate (MM_TF3) where the gradients cancel by more than tf32 can
 * carry: f32 inputs, a solve, and a rank-1 erase (GDN's edge dg through the decay identity: 8.7 relative with
 * one tf32 product, and past its bound even with MM_BF3's 2^-17). One tf32 product for bf16 modules without
 * either (Mamba-2, GLA: every row within ~1/3 of its bound; bench/, the gpu-h200-bwd-tf32 record). On sm_90
 * MM_TF3P: each k step's products summed from zero, then added, as the tensor cores truncate each sum toward zero
 * and the chains over many chunks (fstate, bstate) and long sums lost bits to the running total (GDN at chunk 16:
 * edge dg 2.85e-2 on the H200, 2.2e-2 under the emulation's model, 1.9e-3 with it; bench/, the s42 record). Not on
 * sm_80, whose 128-register cap it cost spills (GDN bf16 bval 36 B, bgrad 44 B), and only with an erase (the edge
 * rows of the others passed without it; on sm_90a it spilled GKA's bf16 bgrad 28 B, examples/my_ssm's f32 52 B). */
#define MM_BWD ${BWD_TF1 and 'MM_TF32' or (m.delta and not sv) and '(SSMC_SM90 ? MM_TF3P : MM_TF3)' or 'MM_TF3'}
/* Row dots of two ROWS x D tiles over the steps of a loop: acc[i] += a(t, d..d+3) . b(t, d..d+3), t and d the
 * row and columns of the thread's i-th four elements (tile_regs's row_of; the same every step); row_dots_put
 * sums the D/4 threads of a row (neighbouring lanes) by shuffles once at the end (ncu: shuffling every step
 * was ~7% of Mamba-2's bgrad samples) and writes dst[t] (the row's first thread). row_dots: the tiles in the
 * same threads' registers; row_dots_sm: in shared memory (leading dimension ld). */
__device__ __forceinline__ float dot4(float4 x, float4 y) { return x.x * y.x + x.y * y.y + x.z * y.z + x.w * y.w; }
template <int NTH, int ROWS, int D, int T0>
__device__ __forceinline__ void row_dots(float *acc, const tile_regs<NTH, ROWS, D, float, false, T0> &a,
                                         const tile_regs<NTH, ROWS, D, float, false, T0> &b) {
#pragma unroll
  for (int i = 0; i < tile_regs<NTH, ROWS, D, float>::PER; i++) acc[i] += dot4(a.r[i].f(), b.r[i].f());
}
template <int NTH, int ROWS, int D, int T0 = 0> __device__ __forceinline__ void row_dots_sm(float *acc, const float *a, const float *b, int ld) {
#pragma unroll
  for (int i = 0; i < tile_regs<NTH, ROWS, D, float>::PER; i++) {
    int d;
    const int t = tile_regs<NTH, ROWS, D, float, false, T0>::row_of(i, d);
    if ((int)threadIdx.x - T0 + i * NTH < ROWS * D / 4) acc[i] += dot4(*(const float4 *)(a + t * ld + d), *(const float4 *)(b + t * ld + d));
  }
}
template <int NTH, int ROWS, int D, int T0 = 0> __device__ __forceinline__ void row_dots_put(float *dst, const float *acc) {
  static_assert(D / 4 <= 32 && ((D / 4) & (D / 4 - 1)) == 0, "a row within a warp");
#pragma unroll
  for (int i = 0; i < tile_regs<NTH, ROWS, D, float>::PER; i++) {
    int d;
    const int v = (int)threadIdx.x - T0 + i * NTH, t = tile_regs<NTH, ROWS, D, float, false, T0>::row_of(i, d);
    float s = acc[i];
    for (int o = 1; o < D / 4; o <<= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (v < ROWS * D / 4 && d == 0) dst[t] = s;
  }
}
@ if BGW then
#if SSMC_SM90
/* bgrad's staged value loop (STG): the producer's copies of a step's tile, rows t < L of F floats (row stride rs
 * floats) into a stage (pitch F), rows past L zero, by cp.async from NTH threads from T0 on; the consumers' turn of a
 * stage's tile (ROWS rows of W values: floats, or bf16 with B16) into wgmma's K-major operand as put_core_hl leaves
 * it (hi rounded to tf32; LO: the rest), from NTH threads (tile_regs's row_of: row_dots_sm reads the same pieces) */
template <int NTH, int T0, int ROWS, int F> __device__ __forceinline__ void stage_cp(float *dst, const float *src, long long rs, int L) {
  constexpr int PR = F / 4, NV = ROWS * PR;
#pragma unroll
  for (int i = 0; i < (NV + NTH - 1) / NTH; i++) {
    const int v = (int)threadIdx.x - T0 + i * NTH, t = v / PR, d = (v - t * PR) * 4;
    if (NV % NTH == 0 || v < NV) cp_async16_z(dst + t * F + d, t < L ? src + t * rs + d : src, t < L);
  }
}
template <int NTH, int ROWS, int W, bool B16, bool LO>
__device__ __forceinline__ void stage_put(float *hi, float *lo, const float *src, int sbo, int lbo) {
  constexpr int PR = W / 4, NV = ROWS * PR;
#pragma unroll
  for (int i = 0; i < (NV + NTH - 1) / NTH; i++) {
    const int v = (int)threadIdx.x + i * NTH, t = v / PR, d = (v - t * PR) * 4;
    if (NV % NTH != 0 && v >= NV) continue;
    const float4 x = B16 ? raw4<unsigned short>{*(const uint2 *)((const unsigned short *)src + t * W + d)}.f() : *(const float4 *)(src + t * W + d);
    const float4 h = make_float4(tf32_rna(x.x), tf32_rna(x.y), tf32_rna(x.z), tf32_rna(x.w));
    const int o = core_at(t, d, sbo, lbo);
    *(float4 *)(hi + o) = h;
    if (LO) *(float4 *)(lo + o) = make_float4(x.x - h.x, x.y - h.y, x.z - h.z, x.w - h.w);
  }
}
#endif
@ end
/* every 128-byte line of rows r < n of a (n, VD) tile of T (row stride rs elements) into L2, no register held:
 * a loop over the value columns then finds its tiles there. bgrad's wgmma value loop (BGW) waited on its loads
 * (ncu); H200 GDN B8 T4096 H16 bwd-saved 6.33 -> 6.09 ms with it (6aade2b: 6.16), Mamba-2 bwd 4.08 -> 3.88
 * (4.00); the mma.sync loop (cp.async, a step ahead) lost with it: GDN 6.16 -> 6.45 (bench/, the gpu-h200-bgw record) */
template <int NTH, int N = VD, int T0 = 0, typename T> __device__ __forceinline__ void rows_l2(const T *p, long long rs, int n) {
  constexpr int LPR = (N * (int)sizeof(T) + 127) / 128; /* rows of N elements, from thread T0 on */
  for (int e = (int)threadIdx.x - T0; e < n * LPR; e += NTH) {
    const int r = e / LPR;
    prefetch_l2((const char *)(p + r * rs) + (e - r * LPR) * 128);
  }
}
/* XA, XB: operands exact in tf32 (dY and the keys, rows of bf16 inputs as given): no rounding at each use,
 * and no lo product (MM_TF3: two products instead of three) */
template <int ldc, int ars, int acs, int brs, int bcs, bool XA = false, bool XB = false, bool SYNC = true, bool SEP = false>
__device__ __forceinline__ void mmb(float *c, const float *a, const float *b, int m, int n, int kd, bool acc) {
  mm<ldc, ars, acs, brs, bcs, MM_BWD, SEP, XA, XB, SYNC>(c, a, b, m, n, kd, acc);
}
@ if BS16 or BS16N or BG3 or BQS then
/* f(row, column, pair) over this lane's pairs of a warp's 16 x 8 NS tile of mma fragments d at (i0, j0) */
template <int NS, typename F> __device__ __forceinline__ void frag_pairs(float (*d)[4], int i0, int j0, F f) {
  const int g = (threadIdx.x & 31) >> 2, q = threadIdx.x & 3;
#pragma unroll
  for (int s = 0; s < NS; s++) {
    f(i0 + g, j0 + 8 * s + 2 * q, d[s]);
    f(i0 + g + 8, j0 + 8 * s + 2 * q, d[s] + 2);
  }
}
/* A tile product on bf16 mma16 (BS16's bstate, BG3's bgrad): d (a warp's 16 x NB tile at row i0, column j0, fragments
 * as mma16's) += (a0 + a1 + ..) (b0 + b1) over kd, k16 steps, every fragment one ldmatrix, without the products of two
 * lower parts: a's NA parts (m x kd) with k contiguous (AT false, pitch LDA) or m contiguous (AT: stored (kd x m)), b's
 * NBP parts (kd x n, n contiguous, pitch LDB), the larger first (one part: exact in bf16); the smaller terms summed
 * first. Z: each k16 step's products summed from zero, then added times sc (as MM_TF3P: the tensor cores truncate each
 * sum toward zero), else accumulated in d */
template <int NB, bool AT, int LDA, int LDB, int NA, int NBP, bool Z>
__device__ __forceinline__ void mm_b16(float (*d)[4], const unsigned short *a0, const unsigned short *a1, const unsigned short *a2,
                                       const unsigned short *b0, const unsigned short *b1, int i0, int j0, int kd, float sc = 1.0f) {
  const int lane = threadIdx.x & 31, r = (lane & 7) + (lane & 8), c = (lane >> 4) * 8;
  const unsigned short *ap[3] = {a0, a1, a2}, *bp[2] = {b0, b1};
  /* matrix i of ldmatrix from lanes 8 i ..: a's fragment blocks (rows +8, k +8), transposed from rows k */
  int ao = AT ? ((lane & 7) + c) * LDA + i0 + (lane & 8) : (i0 + r) * LDA + c, bo = r * LDB + j0 + c;
#pragma unroll 2
  for (int k0 = 0; k0 < kd; k0 += 16, ao += AT ? 16 * LDA : 16, bo += 16 * LDB) {
    unsigned fa[NA][4];
#pragma unroll
    for (int p = 0; p < NA; p++) {
      if (AT) ldsm4t(fa[p], ap[p] + ao);
      else ldsm4(fa[p], (const float *)(ap[p] + ao));
    }
#pragma unroll
    for (int s = 0; s < NB / 16; s++) {
      unsigned fb[NBP][4];
#pragma unroll
      for (int p = 0; p < NBP; p++) ldsm4t(fb[p], bp[p] + bo + 16 * s);
#pragma unroll
      for (int h = 0; h < 2; h++) {
        float t[4] = {0.0f, 0.0f, 0.0f, 0.0f}, *x = Z ? t : d[2 * s + h];
#pragma unroll
        for (int p = NA - 1; p > 0; p--) mma16(x, fa[p], fb[0] + 2 * h);
#pragma unroll
        for (int p = NBP - 1; p > 0; p--) mma16(x, fa[0], fb[p] + 2 * h);
        mma16(x, fa[0], fb[0] + 2 * h);
        if (Z)
#pragma unroll
          for (int e = 0; e < 4; e++) d[2 * s + h][e] += sc * t[e];
      }
    }
  }
}
@ end
@ if BS16 or BS16N or BQS then
/* a pair of values at (i, j), (i, j + 1) of a (rows, LDB) tile as its bf16 hi and lo parts */
template <int LDB> __device__ __forceinline__ void put_hl(unsigned short *h, unsigned short *l, int i, int j, float x, float y) {
  unsigned ph, pl;
  hl_pair(x, y, ph, pl);
  *(unsigned *)(h + i * LDB + j) = ph;
  *(unsigned *)(l + i * LDB + j) = pl;
}
@ end
@ if BSQ or BQS then
/* BSQ, BQS: a chunk's rows of dY (C, NC) and each row's factor s (bprep's, at BT_KF + 2) in the registers of NTH threads
 * (fetched a step ahead), then y = diag(s) dY (rows past L: 0) through each's f(row, column, columns .. + 3) */
template <int NTH, int NC> struct dy_rows {
  using R = tile_regs<NTH, CH, NC, elem_t>;
  R r;
  float s[R::PER];
  __device__ __forceinline__ void fetch(const elem_t *dy, long long rs, const float *fs, long long fss, int L) {
    r.fetch(dy, rs, L);
#pragma unroll
    for (int i = 0; i < R::PER; i++) {
      int d;
      const int t = R::row_of(i, d);
      s[i] = t < L ? fs[t * fss] : 0.0f;
    }
  }
  template <typename F> __device__ __forceinline__ void each(F f) const {
#pragma unroll
    for (int i = 0; i < R::PER; i++) {
      int d;
      const int v = (int)threadIdx.x + i * NTH, t = R::row_of(i, d);
      if (v >= R::NV) continue;
      const float4 x = r.r[i].f();
      f(t, d, make_float4(s[i] * x.x, s[i] * x.y, s[i] * x.z, s[i] * x.w));
    }
  }
};
@ end
@ if BG3 then
/* BG3: a pair of floats as three bf16 pairs (hi, mid, lo: each the rounded rest of the ones before, ~fp32's precision) */
__device__ __forceinline__ void split3_pair(float x0, float x1, unsigned &h, unsigned &m, unsigned &l) {
  h = bf2(x0, x1);
  hl_pair(x0 - __uint_as_float(h << 16), x1 - __uint_as_float(h & 0xffff0000u), m, l);
}
__device__ __forceinline__ float2 join3_pair(unsigned h, unsigned m, unsigned l) {
  return make_float2(__uint_as_float(h << 16) + (__uint_as_float(m << 16) + __uint_as_float(l << 16)),
                     __uint_as_float(h & 0xffff0000u) + (__uint_as_float(m & 0xffff0000u) + __uint_as_float(l & 0xffff0000u)));
}
/* pair_decay's mask and decays (STRICT: s < t) of a C x C tile x (pitch ld floats), then each row as three bf16 parts:
 * hi and mid in place (the row's first 2 C bytes, the next 2 C), lo in row t of lo (pitch 2 ld bf16); a warp a row,
 * each lane's pairs read before any lane's writes */
template <int NTH, bool STRICT> __device__ __forceinline__ void pair_decay3(float *x, int ld, unsigned short *lo, const float *b, int L) {
  constexpr int S = STRICT ? 1 : 0, NP = (CH / 2 + 31) / 32;
  const int lane = threadIdx.x & 31;
  for (int t = threadIdx.x >> 5; t < CH; t += NTH / 32) {
    float2 v[NP];
#pragma unroll
    for (int i = 0; i < NP; i++) {
      const int s = 2 * (lane + 32 * i);
      v[i] = make_float2(0.0f, 0.0f);
      if (s < CH && t < L && s + S <= t) {
        const float2 xv = *(const float2 *)(x + t * ld + s);
        v[i].x = xv.x * fexp(b[t] - b[s]);
        if (s + 1 + S <= t) v[i].y = xv.y * fexp(b[t] - b[s + 1]);
      }
    }
    __syncwarp();
    unsigned *u = (unsigned *)(x + t * ld), *ul = (unsigned *)(lo + t * 2 * ld);
#pragma unroll
    for (int i = 0; i < NP; i++) {
      const int p = lane + 32 * i;
      if (p < CH / 2) split3_pair(v[i].x, v[i].y, u[p], u[CH / 2 + p], ul[p]);
    }
  }
}
/* such a parted tile's rows times f(t), parted again (each thread its own pairs) */
template <int NTH, typename F> __device__ __forceinline__ void rows_scale3(float *x, int ld, unsigned short *lo, F f) {
  for (int e = threadIdx.x; e < CH * (CH / 2); e += NTH) {
    const int t = e / (CH / 2), p = e - t * (CH / 2);
    unsigned *u = (unsigned *)(x + t * ld), *ul = (unsigned *)(lo + t * 2 * ld);
    const float2 v = join3_pair(u[p], u[CH / 2 + p], ul[p]);
    const float c = f(t);
    split3_pair(c * v.x, c * v.y, u[p], u[CH / 2 + p], ul[p]);
  }
}
@ end

@ if m.delta then
/* ---------------------------------------------------------------- stages fprep, fstate */
/* The forward's prep and state, recomputed: chunk-start states, kd, W and the pseudo-values u into the
 * forward's part of the workspace, the final state into the backward's (a.state_out, set by the runtime).
 * Their tile products (MM_FREC): with bf16 inputs the forward's one tf32 product (the inputs' rows are exact
 * in tf32); with f32 inputs about fp32-accurate (the forward's bf16 hi + lo split, 2^-17, took the emulated
 * delta fixture's edge dg to 3.9e-2 against 1e-2: beta = 1 with repeated keys amplifies it). */
#define MM_FREC ${P.dtype == 'bf16' and 'MM_TF32' or '(SSMC_SM90 ? MM_TF3P : MM_TF3)'} /* MM_TF3P: as MM_BWD */
extern "C" __global__ void __launch_bounds__(${P.FPREP.threads}, 1) ${P.name}_fprep(ssmc_fwd_args a, ssmc_bwd_args g, float *ws) {
  (void)g;
  prep_body<MM_FREC, false, true, true, false, true>(a, ws); /* and T's rows (TK), for bval */
}
extern "C" __global__ void __launch_bounds__(${P.FSTATE.threads}, 1) ${P.name}_fstate(ssmc_fwd_args a, ssmc_bwd_args g, float *ws) {
  (void)g;
  state_body<MM_FREC, st_wide>(a, ws);
}
@ if NS then
extern "C" __global__ void __launch_bounds__(${NS.threads}, 1) ${P.name}_fstate_n(ssmc_fwd_args a, ssmc_bwd_args g, float *ws) {
  (void)g;
  state_body<MM_FREC, st_narrow>(a, ws);
}
@ end
@ else
/* ---------------------------------------------------------------- stages fprep, fscan */
/* The forward's prep and scan, recomputed with the backward's tile products (MM_BWD):
 * fprep, all chunks at once: each chunk's own part of the next chunk-start state dZ = kd' U (K, V) into
 * its slot, and kd (C, K), U = diag(w) V (C, V) per token (bval and bgrad read them); fscan: the
 * elementwise pass that puts the chunk-start states in place of dZ, the final state into the
 * backward's part of the workspace (a.state_out, set by the runtime). */
extern "C" __global__ void __launch_bounds__(${P.FPREP.threads}) ${P.name}_fprep(ssmc_fwd_args a, ssmc_bwd_args g, float *ws) {
  (void)g;
  prep_body<MM_BWD, true, ${KDU_B and 'false' or 'true'}>(a, ws);
}
extern "C" __global__ void __launch_bounds__(${P.FST.scan.threads}) ${P.name}_fscan(ssmc_fwd_args a, ssmc_bwd_args g, float *ws) {
  (void)g;
  scan_body(a, ws);
}
@ end

/* ---------------------------------------------------------------- stage bprep */
@ -- bprep(name, dzq): dzq, dZ0's chunk-local part not stored (BSQ's; BQS's wide form: bscan's tile pass forms it)
@ local function bprep_stage(name, dzq)
@ stage_head(name, true, NTP, BP_MINB)
  float *b = sm + BP_B, *qt = sm + BP_QT, *kc = sm + BP_KC, *am = sm + BP_A, *dy = sm + BP_DY, *ou = sm + BP_OU, *oz = sm + BP_OZ;
@ local pt = {ptile('r_dy', 'CH', 'BV2', 'elem_t', 'dy', ld8(BV2), function(v) return '(const elem_t *)g.dout + (tok * a.h_v + it.h) * VD + ' .. v end, '(long long)a.h_v * VD')}
@ if BPW then
#if SSMC_SM90
  tile_regs<NT, CH, VD, elem_t> r_dya; /* all of dY, its loads flying while the scores are formed */
  r_dya.fetch((const elem_t *)g.dout + (tok * a.h_v + it.h) * VD, (long long)a.h_v * VD, L);
#else
@ end
@ if DYA then
  tile_regs<NT, CH, BV2, elem_t> r_dy[VD / BV2]; /* every value tile of dY (DYA), their loads flying while the scores are formed */
#pragma unroll
  for (int i = 0; i < VD / BV2; i++) r_dy[i].fetch(${pt[1].src('i * BV2')}, ${pt[1].rs}, L);
@ else
@ ptiles_decl(pt)
@ ptiles_fetch(pt, '0') -- the first value tile's loads fly while the scores are formed
@ end
@ if BPW then
#endif
@ end
@ -- one query term from an input (Q1): its rows' loads issued before the keys' (in flight under them and the prefix sum
@ -- of the log decays), put with the coefficient after the barrier; else build_qt after the keys
@ if Q1 then
@   local T, src, rs = krows(Q1)
  tile_regs<NT, CH, KD, ${T}> r_q;
  r_q.fetch(${src}, ${rs}, L);
@ end
@ load_scalars('BP_')
@ load_k(P.inputs[m.key + 1], 'kc', 'KP', '0', 'KD')
  __syncthreads();
@ coefs(nil, nil, 'b', 'KP', '0', 'KD')
@ if Q1 then
  r_q.put(qt, KP, L, [&](int t_) { return (float)(${P.q[1].coef}); }, false);
@ else
@ build_qt('qt', 'KP', '0', 'KD')
@ end
  __syncthreads();
@ if BS_KF then
  for (int t_ = threadIdx.x; t_ < L; t_ += NT) { /* bstate's: kd = diag(f) K, ke = diag(g) K; BSQ's y = diag(s) dY, e^{b_L} */
    const float eb = fexp(b[t_]);
    *(float4 *)(w.btok + ((tok + t_) * a.h_v + it.h) * BW_TOK + BT_KF) =
        make_float4(fexp(b[L - 1] - b[t_]), -(${m.erase}) * eb, ${BSQ and ('(float)(' .. P.q[1].coef .. ') * eb') or '0.0f'}, expf(b[L - 1]));
  }
@ end
@ if KDU_B then
  /* the chunk's decay, for bscan (KDU_B: kd = K e^{b_L - b} is bval's to form from the keys, U = diag(w) V bgrad's
   * from the values) */
  for (int k = threadIdx.x; k < KD; k += NT) w.fchunk[cs * WS_CHUNK + WS_ZD + k] = expf(b[L - 1]);
@ end
@ if BQS and dzq then
  for (int t_ = threadIdx.x; t_ < L; t_ += NT) /* bscan's y = diag(s) dY */
    w.btok[((tok + t_) * a.h_v + it.h) * BW_TOK + BT_S] = (float)(${P.q[1].coef}) * fexp(b[t_]);
@ end
  /* A(t, s) = q~_t . (k_s decayed from s to t), s <= t < L */
@ if diag then
  diag_scores<NT, KP, CP, MM_TF3>(am, qt, kc, b, L); /* and q~ e^b; the key tile is spent */
@ else
  mmb<CP, KP, 1, 1, KP, false, ${KX}>(am, qt, kc, CH, CH, KD, false);
  pair_decay<NT, false>(am, CP, b, L, one_t());
@   if not dzq then
  rows_scale<NT, CH, KD>(qt, KP, [&](int t) { return fexp(b[t]); });
@   end
@ end
  __syncthreads();
@ if BPW then
#if SSMC_SM90
  { /* A' dY (du's chunk-local part, per token) and (q~ e^b)' dY (dZ0's, per chunk) on wgmma (BPW): warpgroup wg the values
     * v0 .. v0 + VD / 2; unit u = 0 A' (the tokens), u > 0 the keys 64 (u - 1) on (not BSQ), A(row, t) = src[t * ld + row] */
    constexpr int SB = 8 * CH + 4; /* dY's SBO: (V, C) core matrices, rows padded (its stores across banks) */
    float *dyt = kc; /* the key tile is spent */
    r_dya.put_core(dyt, 0, SB, L, one_t());
    fence_async_smem();
    __syncthreads();
    const int wg = threadIdx.x >> 7, r0 = 16 * ((threadIdx.x >> 5) & 3) + ((threadIdx.x & 31) >> 2), q = threadIdx.x & 3;
    const int v0 = wg * (VD / 2);
    const unsigned long long db = wg_desc(dyt + (v0 / 8) * SB, SB);
    const unsigned bl = (unsigned)db, bh = (unsigned)(db >> 32);
    for (int u = 0; u <= ${BSQ and '0' or 'KD / 64'}; u++) {
      const float *src = u == 0 ? am : qt + 64 * (u - 1);
      const int ld = u == 0 ? CP : KP;
      unsigned ah[CH / 2], al[CH / 2]; /* A's tf32 hi and lo parts: k step j's fragment at 4 j */
#pragma unroll
      for (int j = 0; j < CH / 8; j++)
#pragma unroll
        for (int m = 0; m < 4; m++) { /* {A(r0, q), A(r0 + 8, q), A(r0, q + 4), A(r0 + 8, q + 4)} of k step j */
          const float x = src[(8 * j + q + 4 * (m >> 1)) * ld + r0 + 8 * (m & 1)], h = tf32_rna(x);
          ah[4 * j + m] = __float_as_uint(h);
          al[4 * j + m] = __float_as_uint(x - h);
        }
      float d[VD / 4];
#pragma unroll
      for (int i = 0; i < VD / 4; i++) d[i] = 0.0f;
      wg_fence();
#pragma unroll
      for (int j = 0; j < CH / 8; j++) wg_mmar<VD / 2>(d, al + 4 * j, bl + 16 * j, bh); /* the lo terms first */
#pragma unroll
      for (int j = 0; j < CH / 8; j++) wg_mmar<VD / 2>(d, ah + 4 * j, bl + 16 * j, bh);
      wg_commit();
      wg_wait0();
      /* rows r0, r0 + 8 of the unit, columns v0 + 8 i + 2 q (+ 1) */
      float *dst = u == 0 ? w.btok + (tok * a.h_v + it.h) * BW_TOK + BT_DU : ${BSQ and 'nullptr' or 'w.bchunk + cs * BW_CHUNK + BC_DZLOC + 64 * (u - 1) * VD'};
      const long long rs = u == 0 ? (long long)a.h_v * BW_TOK : VD;
      const int rows = u == 0 ? L : 64;
#pragma unroll
      for (int i = 0; i < VD / 16; i++)
#pragma unroll
        for (int h = 0; h < 2; h++)
          if (r0 + 8 * h < rows) *(float2 *)(dst + (r0 + 8 * h) * rs + v0 + 8 * i + 2 * q) = make_float2(d[4 * i + 2 * h], d[4 * i + 2 * h + 1]);
    }
  }
#else
@ end
  /* per value tile: A' dY (du's chunk-local part, per token) and (q~ e^b)' dY (dZ0's, per chunk) */
@ if DYA then
#pragma unroll
  for (int i = 0; i < VD / BV2; i++) {
    const int v0 = i * BV2;
    r_dy[i].put(dy, ${ld8(BV2)}, L, one_t(), false);
    __syncthreads();
@ else
  for (int v0 = 0; v0 < VD; v0 += BV2) {
@ ptiles_put(pt)
    __syncthreads();
    if (v0 + BV2 < VD) {
@ ptiles_fetch(pt, 'v0 + BV2')
    }
@ end
@ if dzq then
    mmb<${ld8(BV2)}, 1, CP, ${ld8(BV2)}, 1, false, ${DYX}>(ou, am, dy, CH, BV2, CH, false);
    tile_out<NT, CH, BV2>(w.btok + (tok * a.h_v + it.h) * BW_TOK + BT_DU + v0, (long long)a.h_v * BW_TOK, ou, ${ld8(BV2)}, L);
@ else
    mmb<${ld8(BV2)}, 1, CP, ${ld8(BV2)}, 1, false, ${DYX}, false>(ou, am, dy, CH, BV2, CH, false); /* (the next one's barrier) */
    mmb<${ld8(BV2)}, 1, KP, ${ld8(BV2)}, 1, false, ${DYX}>(oz, qt, dy, KD, BV2, CH, false);
    tile_out<NT, CH, BV2>(w.btok + (tok * a.h_v + it.h) * BW_TOK + BT_DU + v0, (long long)a.h_v * BW_TOK, ou, ${ld8(BV2)}, L);
    tile_out<NT, KD, BV2>(w.bchunk + cs * BW_CHUNK + BC_DZLOC + v0, VD, oz, ${ld8(BV2)}, KD);
@ end
    __syncthreads();
  }
@ if BPW then
#endif
@ end
}
@ end
@ bprep_stage('bprep', DZQ)
@ if BQS then bprep_stage('bprep_n', false) end -- BQS's narrow form: the elementwise bscan reads the stored part

@ if m.delta then
/* ---------------------------------------------------------------- stage bstate */
@ if BS_KF then
/* bstate's product targets (mm_to's, never accumulated into but cmat_dec): c(i, j) += f[FS i] (a b')(i, j) */
template <int ldc, int FS> struct rsadd {
  float *p;
  const float *f;
  __device__ __forceinline__ float2 load2(int, int) const { return make_float2(0.0f, 0.0f); }
  __device__ __forceinline__ void store2(int i, int j, float x, float y) const {
    float2 *c = (float2 *)(p + i * ldc + j);
    const float2 o = *c;
    const float r = f[FS * i];
    *c = make_float2(o.x + r * x, o.y + r * y);
  }
};
/* rows i < rows into a global matrix (o) and, times g[GS i], every row into a shared tile s (ldc) */
template <int ldc, int GS> struct gmat_rs {
  gmat<float> o;
  float *s;
  const float *g;
  __device__ __forceinline__ float2 load2(int, int) const { return make_float2(0.0f, 0.0f); }
  __device__ __forceinline__ void store2(int i, int j, float x, float y) const {
    o.store2(i, j, x, y);
    const float r = g[GS * i];
    *(float2 *)(s + i * ldc + j) = make_float2(r * x, r * y);
  }
};
/* c = diag(dec) c + ad + a b' (dec[DS i]; ad: rows ldd apart, in global memory; ldd 0: none) */
template <int ldc, int ldd, int DS = 1> struct cmat_dec {
  float *p;
  const float *dec, *ad;
  __device__ __forceinline__ float2 load2(int i, int j) const {
    const float2 c = *(const float2 *)(p + i * ldc + j), d = ldd ? *(const float2 *)(ad + i * ldd + j) : make_float2(0.0f, 0.0f);
    return make_float2(dec[DS * i] * c.x + d.x, dec[DS * i] * c.y + d.y);
  }
  __device__ __forceinline__ void store2(int i, int j, float x, float y) const { *(float2 *)(p + i * ldc + j) = make_float2(x, y); }
};
@ if BS16 or BS16N then
/* rows i < rows into a global matrix (o) and, times g[GS i], every row as bf16 hi and lo parts (pitch LDB) */
template <int LDB, int GS> struct gmat_hl {
  gmat<float> o;
  unsigned short *h, *l;
  const float *g;
  __device__ __forceinline__ float2 load2(int, int) const { return make_float2(0.0f, 0.0f); }
  __device__ __forceinline__ void store2(int i, int j, float x, float y) const {
    o.store2(i, j, x, y);
    const float r = g[GS * i];
    put_hl<LDB>(h, l, i, j, r * x, r * y);
  }
};
@ end
@ end
@ if BS_KF then
/* A chain of nc steps as chain_steps (its arguments), or with RING every tile of a step (gs, g1, g2: each into buffer
 * j % 2) loaded while the whole step before it runs: a step's tiles are one group, issued after the barrier that
 * follows the wait for the step's own (every thread past step j - 1, whose buffers they take), two groups in flight
 * at most. p1 and p2 end with a barrier (their products'). */
template <bool RING, bool DB, typename GS, typename G1, typename G2, typename I, typename T, typename P1, typename P2>
__device__ __forceinline__ void steps(long long nc, GS gs, G1 g1, G2 g2, I init, T top, P1 p1, P2 p2) {
  if constexpr (!RING) {
    chain_steps<DB>(nc, gs, g1, g2, init, top, p1, p2);
  } else {
    auto group = [&](long long j) {
      if (j < nc) gs(j), g1(j), g2(j);
      cp_async_commit();
    };
    group(0);
    init();
    __syncthreads();
    for (long long j = 0; j < nc; j++) {
      top(j);
      cp_async_wait<0>(); /* step j's tiles */
      __syncthreads();
      group(j + 1); /* (into step j - 1's buffers) */
      p1(j);
      p2(j);
    }
  }
}
@ end
/* The chunk-to-chunk adjoint in the state pass's two forms (LY: wide, value tile BVB, or narrow; see
 * cuda_kernel.cu.tpl's state_body) */
template <typename LY> __device__ __forceinline__ void bstate_body(const ssmc_fwd_args &a, const ssmc_bwd_args &g, float *ws) {
  constexpr int NT = LY::NTT, BVB = LY::BVT, BVPB = LY::BVPT;
  constexpr bool DB = LY::oDU2 != LY::oDU;
  extern __shared__ float sm[];
  const bws_t w = bws_of(a, ws);
  const item_t it = item_of<VD / BVB>(a);
  const int v0 = it.vt * BVB;
  const long long slot = it.n * a.h_v + it.h, s0 = slot0_of(a, it.n), nc = (it.T + CH - 1) / CH;
  const float *dzo = g.dstate_out[${m.state}];
  const long long trs = (long long)a.h_v * WS_TOK, brs = (long long)a.h_v * BW_TOK;
  /* step j: chunk nc - 1 - j, its first token and slot */
  auto tok_of = [&](long long j) { return it.t0 + (nc - 1 - j) * CH; };
  auto cs_of = [&](long long j) { return (s0 + nc - 1 - j) * a.h_v + it.h; };
  auto len = [&](long long j) { return (int)(j == 0 ? it.T - (nc - 1) * CH : CH); };
  auto du_of = [&](long long j) { return sm + (j & 1 ? LY::oDU2 : LY::oDU); };
@ if not BSQ then
  /* dZ_L's chunk-local part (K, V), read where it is by the update */
  auto dzl_of = [&](long long j) { return w.bchunk + cs_of(j) * BW_CHUNK + BC_DZLOC + v0; };
@ end
@ if BS_KF then
  /* tiles: dz (K, BVPB) the adjoint of the chunk-end state (R16: in registers, as bf16 hi and lo tiles), the chunk's
   * decay zdec (K; BSQ: fg[3] of the first token); du (C, BVPB) in two buffers (DB; else one) */
@   if not BSQ then
  float *zdec = sm + LY::oZDEC;
@   end
  /* T (C, CP), the forward's (WS_T); RING: in two buffers */
  auto tm_of = [&](long long j) { return sm + (j & 1 ? LY::oT2 : LY::oT); };
  /* kd = diag(f) K and ke = diag(g) K from the keys as loaded (kb: (C, KBP) ${KB_T}, with their factors fg (C, 4)) in
   * two buffers, as both products read them: du's state term diag(f) (K dZ) (f on the product's rows), and W' du =
   * ke' T' du = K' (g dr) with dr = T' du (into the workspace, and g dr into drg (C, BVPB)). The loads: the keys'
   * 16 KB (bf16) a step where kd and W took 64 */
  const ${KB_T} *kin = (const ${KB_T} *)a.in[${P.inputs[m.key + 1].idx}] + ${KB_HH} * KD; /* (T, ${KB_H}, K) */
  const long long krs = (long long)${KB_H} * KD * (long long)sizeof(${KB_T}) / 4; /* token to token, in floats */
  auto kb_of = [&](long long j) { return (const ${KB_T} *)(sm + (j & 1 ? LY::oKB2 : LY::oKB)); };
  auto fg_of = [&](long long j) { return sm + (j & 1 ? LY::oFG2 : LY::oFG); };
@   if BSQ then
  /* BSQ: dZ <- e^{b_L} dZ + q' y (y = diag(s) dY, a step's first part, after du's product) + K' (g dr) (its second):
   * the query rows as loaded in qb (C, KBP), y in the third product's operand tiles (free until its second part),
   * from dY's rows in registers fetched a step ahead (dyr) */
  const elem_t *qin = (const elem_t *)a.in[${Q1.idx}] + ${QHH} * KD; /* (T, ${QH}, K) */
  const long long qrs = (long long)${QH} * KD / 2; /* token to token, in floats */
  auto q_of = [&](long long j) { return (const elem_t *)(sm + (j & 1 ? LY::oQ2 : LY::oQ)); }; /* (RING: two buffers) */
  dy_rows<NT, BVB> dyr;
  auto dy_fetch = [&](long long j) {
    if (j < nc)
      dyr.fetch((const elem_t *)g.dout + (tok_of(j) * a.h_v + it.h) * VD + v0, (long long)a.h_v * VD,
                w.btok + (tok_of(j) * a.h_v + it.h) * BW_TOK + BT_S, brs, len(j));
  };
@   end
  /* a step's tiles (chain_steps): du, then the keys and factors (both products') [and the query rows (the first's)], T
   * (the second's) */
  auto gs = [&](long long j) { tile_cp<NT, CH, BVB>(du_of(j), BVPB, w.btok + (tok_of(j) * a.h_v + it.h) * BW_TOK + BT_DU + v0, brs, len(j)); };
  auto g1 = [&](long long j) {
    tile_cp<NT, CH, ${KBD}>((float *)kb_of(j), ${KBF}, (const float *)(kin + tok_of(j) * ${KB_H} * KD), krs, len(j));
    tile_cp<NT, CH, 4>(fg_of(j), 4, w.btok + (tok_of(j) * a.h_v + it.h) * BW_TOK + BT_KF, brs, len(j));
@   if BSQ then
    tile_cp<NT, CH, ${KBD}>((float *)q_of(j), ${KBF}, (const float *)(qin + tok_of(j) * ${QH} * KD), qrs, len(j));
@   end
  };
  auto g2 = [&](long long j) {
@   if not BSQ then
    rows_l2<NT>(dzl_of(j), VD, KD);
    tile_cp<NT, 1, KD>(zdec, KD, w.fchunk + cs_of(j) * WS_CHUNK + WS_ZD, 0, 1);
@   end
    tile_cp<NT, CH, CH>(tm_of(j), CP, w.ftok + (tok_of(j) * a.h_v + it.h) * WS_TOK + WS_T, trs, len(j));
  };
  /* dr = T' du into the workspace (bgrad's, in du's place) */
  auto dr_of = [&](long long j) { return gmat<float>{w.btok + (tok_of(j) * a.h_v + it.h) * BW_TOK + BT_DU + v0, brs, len(j)}; };
@   if BS16 or BS16N then
  if constexpr (LY::R16) {
    /* dZ in registers: this warp's 16 x NB tile (rows i0 + g (+ 8), columns j0 + 8 s + 2 q (+ 1)), and its bf16 hi and
     * lo parts in zh, zl (K, BVPB) for the first product; g dr's in gh, gl (C, BVPB) for the third (BSQ: y's before) */
    constexpr int NB = LY::NB16, TN = BVB / NB;
    static_assert((KD / 16) * TN == NT / 32 && NB % 16 == 0, "a warp a tile of dZ, 16 columns a step of mm_b16");
    unsigned short *zh = (unsigned short *)(sm + LY::oZH), *zl = (unsigned short *)(sm + LY::oZL);
    unsigned short *gh = (unsigned short *)(sm + LY::oGH), *gl = (unsigned short *)(sm + LY::oGL);
    const int wp = (int)threadIdx.x >> 5, ti = 16 * (wp / TN), tj = NB * (wp % TN);
    float z[NB / 8][4];
    auto pairs = [&](auto f) { frag_pairs<NB / 8>(z, ti, tj, f); }; /* f(row, column, pair) over this thread's pairs of dZ */
    auto put_z = [&] { pairs([&](int i, int j, float *p) { put_hl<BVPB>(zh, zl, i, j, p[0], p[1]); }); };
    auto store_z = [&](float *o) { pairs([&](int i, int j, float *p) { *(float2 *)(o + i * VD + j) = make_float2(p[0], p[1]); }); };
@     if BSQ then
    auto put_y = [&] {
      dyr.each([&](int t, int d, float4 y) {
        put_hl<BVPB>(gh, gl, t, d, y.x, y.y);
        put_hl<BVPB>(gh, gl, t, d + 2, y.z, y.w);
      });
    };
@     end
    steps<LY::RING, DB>(
        nc, gs, g1, g2,
        [&] {
          pairs([&](int i, int j, float *p) {
            const float2 x = dzo ? *(const float2 *)(dzo + slot * ${K * V} + i * VD + v0 + j) : make_float2(0.0f, 0.0f);
            p[0] = x.x;
            p[1] = x.y;
          });
          put_z();
@     if BSQ then
          dy_fetch(0);
          put_y();
@     end
        },
        [](long long) {},
        [&](long long j) { /* du = A' dY + diag(f) (K dZ_L) */
          float *du = du_of(j);
          const float *fg = fg_of(j);
          for (int tile = wp; tile < (CH / 16) * (BVB / 16); tile += NT / 32) {
            const int i0 = 16 * (tile / (BVB / 16)), j0 = 16 * (tile % (BVB / 16));
            float d[2][4] = {};
            mm_b16<16, false, KBP, BVPB, 1, 2, false>(d, kb_of(j), nullptr, nullptr, zh, zl, i0, j0, KD);
            frag_pairs<2>(d, i0, j0, [&](int i, int c, float *p) {
              float2 *o = (float2 *)(du + i * BVPB + c);
              *o = make_float2(o->x + fg[4 * i] * p[0], o->y + fg[4 * i] * p[1]);
            });
          }
          /* dZ_L out under du's product (a warp without a tile of it at once): stored at the step's start, before its
           * wait, the stores held up the step (GDN B1 bstate_n 1.75 ms, 1.51 without them: bench/, the s56 record
           * call 4) */
          store_z(w.bchunk + cs_of(j) * BW_CHUNK + BC_DZEND + v0);
@     if BSQ then
          /* dZ <- e^{b_L} dZ + q' y */
          pairs([&](int, int, float *p) {
            p[0] *= fg[3];
            p[1] *= fg[3];
          });
          mm_b16<NB, true, KBP, BVPB, 1, 2, false>(z, (const unsigned short *)q_of(j), nullptr, nullptr, gh, gl, ti, tj, CH);
@     end
          __syncthreads();
        },
        [&](long long j) {
@     if BSQ then
          dy_fetch(j + 1);
@     end
          mm_to<1, CP, BVPB, 1, MM_BWD, LY::SEP16>(gmat_hl<BVPB, 4>{dr_of(j), gh, gl, fg_of(j) + 1}, tm_of(j), du_of(j), CH, BVB, CH, false);
@     if not BSQ then
          /* dZ <- e^{b_L} dZ + dZ_L's chunk-local part + K' (g dr) */
          const float *zloc = dzl_of(j);
          pairs([&](int i, int c, float *p) {
            const float2 x = *(const float2 *)(zloc + i * VD + c);
            p[0] = zdec[i] * p[0] + x.x;
            p[1] = zdec[i] * p[1] + x.y;
          });
@     end
          mm_b16<NB, true, KBP, BVPB, 1, 2, false>(z, kb_of(j), nullptr, nullptr, gh, gl, ti, tj, CH);
          put_z();
          __syncthreads();
@     if BSQ then
          if (j + 1 < nc) put_y(); /* (the next step's barrier before its first part) */
@     end
        });
    float *dzi = g.dstate_in[${m.state}];
    if (dzi) store_z(dzi + slot * ${K * V} + v0);
    return;
  }
@   end
  float *dz = sm + LY::oDZ, *drg = sm + LY::oDRG;
@   if BSQ then
  auto put_y = [&] { dyr.each([&](int t, int d, float4 y) { *(float4 *)(drg + t * BVPB + d) = y; }); };
@   end
  steps<LY::RING, DB>(
      nc, gs, g1, g2,
      [&] {
        tile_in<NT, KD, BVB>(dz, BVPB, dzo + slot * ${K * V} + v0, VD, dzo ? KD : 0, one_t(), false);
@   if BSQ then
        dy_fetch(0);
        put_y();
@   end
      },
      [&](long long j) { tile_out<NT, KD, BVB>(w.bchunk + cs_of(j) * BW_CHUNK + BC_DZEND + v0, VD, dz, BVPB, KD); },
      [&](long long j) { /* du = A' dY + diag(f) (K dZ_L) */
        mm_to<KBP, 1, BVPB, 1, MM_BWD, LY::SEPT>(rsadd<BVPB, 4>{du_of(j), fg_of(j)}, kb_of(j), dz, CH, BVB, KD, false);
@   if BSQ then
        /* dZ <- e^{b_L} dZ + q' y (a warp reads and writes only its tiles of dZ) */
        mm_to<1, KBP, BVPB, 1, MM_BWD, LY::SEPT>(cmat_dec<BVPB, 0, 0>{dz, fg_of(j) + 3, nullptr}, q_of(j), drg, KD, BVB, CH, true);
@   end
      },
      [&](long long j) {
@   if BSQ then
        dy_fetch(j + 1);
@   end
        /* dr into the workspace and g dr into drg */
        mm_to<1, CP, BVPB, 1, MM_BWD, LY::SEPT>(gmat_rs<BVPB, 4>{dr_of(j), drg, fg_of(j) + 1}, tm_of(j), du_of(j), CH, BVB, CH, false);
@   if BSQ then
        /* dZ += K' (g dr) */
        mm_to<1, KBP, BVPB, 1, MM_BWD, LY::SEPT>(cmat<BVPB>{dz}, kb_of(j), drg, KD, BVB, CH, true);
        if (j + 1 < nc) put_y(); /* (the next step's barrier before its first part) */
@   else
        /* dZ <- e^{b_L} dZ + dZ_L's chunk-local part + K' (g dr) (a warp reads and writes only its tiles of dZ) */
        mm_to<1, KBP, BVPB, 1, MM_BWD, LY::SEPT>(cmat_dec<BVPB, VD>{dz, zdec, dzl_of(j)}, kb_of(j), drg, KD, BVB, CH, true);
@   end
      });
@ else
  /* kd, wt (C, KP) as the forward left them (per-key decays), dZ_L's chunk-local part dzl (K, BVPB), the chunk's decay
   * zdec (K); du is bval's to turn into dr = T' du (here its third product in the chain spilled at 128 registers) */
  float *dz = sm + LY::oDZ, *kd = sm + LY::oKD, *wt = sm + LY::oW, *dzl = sm + LY::oDZL, *zdec = sm + LY::oZDEC;
  /* a step's tiles (chain_steps): du, then W, dZ_L's local part and the decay (the second product's), kd (the first's) */
  chain_steps<DB>(
      nc, [&](long long j) { tile_cp<NT, CH, BVB>(du_of(j), BVPB, w.btok + (tok_of(j) * a.h_v + it.h) * BW_TOK + BT_DU + v0, brs, len(j)); },
      [&](long long j) { tile_cp<NT, CH, KD>(kd, KP, w.ftok + (tok_of(j) * a.h_v + it.h) * WS_TOK + WS_KD, trs, len(j)); },
      [&](long long j) {
        tile_cp<NT, CH, KD>(wt, KP, w.ftok + (tok_of(j) * a.h_v + it.h) * WS_TOK + WS_W, trs, len(j));
        tile_cp<NT, KD, BVB>(dzl, BVPB, dzl_of(j), VD, KD);
        tile_cp<NT, 1, KD>(zdec, KD, w.fchunk + cs_of(j) * WS_CHUNK + WS_ZD, 0, 1);
      },
      [&] { tile_in<NT, KD, BVB>(dz, BVPB, dzo + slot * ${K * V} + v0, VD, dzo ? KD : 0, one_t(), false); },
      [&](long long j) { tile_out<NT, KD, BVB>(w.bchunk + cs_of(j) * BW_CHUNK + BC_DZEND + v0, VD, dz, BVPB, KD); },
      [&](long long j) {
        mm<BVPB, KP, 1, BVPB, 1, MM_BWD, LY::SEPT>(du_of(j), kd, dz, CH, BVB, KD, true); /* du = A' dY + kd dZ_L */
        tile_out<NT, CH, BVB>(w.btok + (tok_of(j) * a.h_v + it.h) * BW_TOK + BT_DU + v0, brs, du_of(j), BVPB, len(j));
      },
      /* dZ <- e^{b_L} dZ + dZ_L's chunk-local part + W' du (a warp reads and writes only its tiles of dZ) */
      [&](long long j) { mm<BVPB, 1, KP, BVPB, 1, MM_BWD, LY::SEPT>(dz, wt, du_of(j), KD, BVB, CH, true, zdec, dzl); });
@ end
  float *dzi = g.dstate_in[${m.state}];
  if (dzi) {
    __syncthreads();
    tile_out<NT, KD, BVB>(dzi + slot * ${K * V} + v0, VD, dz, BVPB, KD);
  }
}
@ local function bs_tiles(pre, r16) -- a layout's tiles, as bstate_body names them (R16: dz's and drg's places their hi tiles)
@   local t = {'oDZ', 'oDU', 'oDU2'}
@   for _, n in ipairs(BS_KF and {'oKB', 'oKB2', 'oFG', 'oFG2', 'oDRG', 'oT', 'oT2'} or {'oKD', 'oW', 'oDZL'}) do t[#t + 1] = n end
@   for _, n in ipairs(BSQ and {'oQ', 'oQ2'} or {'oZDEC'}) do t[#t + 1] = n end
@   if r16 then for _, n in ipairs({'oZH', 'oZL', 'oGH', 'oGL'}) do t[#t + 1] = n end end
@   local alias = r16 and {oDZ = 'ZH', oDRG = 'GH'} or {}
@   for i, n in ipairs(t) do t[i] = n .. ' = ' .. pre .. (alias[n] or n:sub(2)) end
@   return 'R16 = ' .. (r16 and 1 or 0) .. ', ' .. table.concat(t, ', ')
@ end
/* a form's constants: its value tile, threads, SEPT (SEP of the float path's products), SEP16 (of the R16 path's dr
 * product), NB16 (R16's register tile width), RING (steps<RING>), R16 and its tiles' offsets */
struct bs_wide { enum { BVT = ${BVB}, BVPT = ${BVPB}, NTT = ${BS_NT == NT and 'NT_BWD' or BS_NT}, SEPT = SSMC_SM90, SEP16 = 0, NB16 = ${BS16 or 0}, RING = ${SL.ring and 1 or 0}, ${bs_tiles('BS_', BS16)} }; };
extern "C" __global__ void __launch_bounds__(${BS_NT == NT and 'NT_BWD' or BS_NT}, ${BS_MINB}) ${P.name}_bstate(ssmc_fwd_args a, ssmc_bwd_args g, float *ws) {
  bstate_body<bs_wide>(a, g, ws);
}
@   if SLN then
struct bs_narrow { enum { BVT = ${NS.nbv}, BVPT = ${ld8(NS.nbv)}, NTT = ${NS.threads}, SEPT = 1, SEP16 = 1, NB16 = ${BS16N or 0}, RING = ${SLN.ring and 1 or 0}, ${bs_tiles('BN_', BS16N)} }; };
extern "C" __global__ void __launch_bounds__(${NS.threads}, 1) ${P.name}_bstate_n(ssmc_fwd_args a, ssmc_bwd_args g, float *ws) {
  bstate_body<bs_narrow>(a, g, ws);
}
@   end
@ else
/* ---------------------------------------------------------------- stage bscan */
@ if BQS then
/* Without an erase the chunk-to-chunk adjoint, dZ0_c = e^{b_L,c} dZ_L,c + q_c' (s dY)_c and dZ_L,c-1 = dZ0_c, here with
 * dZ0's chunk-local part formed on the way (BQS): one pass over a sequence's chunks, last to first, from dstate_out, a
 * value tile of BQV columns a block; it stores each chunk's end adjoint dZ_L (BC_DZEND) and ends in dstate_in. dZ in
 * registers, a warp a 16 x BQV tile of it; the query rows as loaded and y = diag(s) dY as bf16 hi and lo parts (~fp32's
 * precision with the exact query: bprep's product had one tf32 part) in two buffers, the next chunk's copied and
 * fetched while this one's product runs; mm_b16 (mma.sync m16n8k16). du's state term kd dZ_L is bval's. */
extern "C" __global__ void __launch_bounds__(${2 * K}, 2) ${P.name}_bscan(ssmc_fwd_args a, ssmc_bwd_args g, float *ws) {
  constexpr int NT = ${2 * K}, BQ = ${BQV}, BQP = BQ + 8, QP = KD + 8;
  extern __shared__ float sm[];
  const bws_t w = bws_of(a, ws);
  const item_t it = item_of<VD / BQ>(a);
  const int v0 = it.vt * BQ;
  const long long slot = it.n * a.h_v + it.h, s0 = slot0_of(a, it.n), nc = (it.T + CH - 1) / CH;
  const long long brs = (long long)a.h_v * BW_TOK;
  /* step j: chunk nc - 1 - j, its first token, slot and length */
  auto tok_of = [&](long long j) { return it.t0 + (nc - 1 - j) * CH; };
  auto cs_of = [&](long long j) { return (s0 + nc - 1 - j) * a.h_v + it.h; };
  auto len = [&](long long j) { return (int)(j == 0 ? it.T - (nc - 1) * CH : CH); };
  /* the buffers of step j: the query rows (C, QP), y's hi and lo parts (C, BQP) each */
  auto qb_of = [&](long long j) { return (unsigned short *)sm + (j & 1) * CH * QP; };
  auto yh_of = [&](long long j) { return (unsigned short *)sm + 2 * CH * QP + (j & 1) * 2 * CH * BQP; };
  const elem_t *qin = (const elem_t *)a.in[${Q1.idx}] + ${QHH} * KD; /* (T, ${QH}, K) */
  auto q_cp = [&](long long j) {
    tile_cp<NT, CH, KD / 2>((float *)qb_of(j), QP / 2, (const float *)(qin + tok_of(j) * ${QH} * KD), (long long)${QH} * KD / 2, len(j));
    cp_async_commit();
  };
  dy_rows<NT, BQ> dyr;
  auto dy_fetch = [&](long long j) {
    dyr.fetch((const elem_t *)g.dout + (tok_of(j) * a.h_v + it.h) * VD + v0, (long long)a.h_v * VD,
              w.btok + (tok_of(j) * a.h_v + it.h) * BW_TOK + BT_S, brs, len(j));
  };
  auto put_y = [&](long long j) {
    unsigned short *yh = yh_of(j), *yl = yh + CH * BQP;
    dyr.each([&](int t, int d, float4 y) {
      put_hl<BQP>(yh, yl, t, d, y.x, y.y);
      put_hl<BQP>(yh, yl, t, d + 2, y.z, y.w);
    });
  };
  const int ti = 16 * ((int)threadIdx.x >> 5);
  float z[BQ / 8][4];
  auto pairs = [&](auto f) { frag_pairs<BQ / 8>(z, ti, 0, f); }; /* f(row, column, pair) over this thread's pairs of dZ */
  const float *dzo = g.dstate_out[${m.state}];
  pairs([&](int i, int c, float *p) {
    const float2 x = dzo ? *(const float2 *)(dzo + slot * ${K * V} + i * VD + v0 + c) : make_float2(0.0f, 0.0f);
    p[0] = x.x;
    p[1] = x.y;
  });
  q_cp(0);
  dy_fetch(0);
  put_y(0);
  for (long long j = 0; j < nc; j++) {
    const float zd = w.fchunk[cs_of(j) * WS_CHUNK + WS_ZD]; /* the chunk's decay (bprep's) */
    cp_async_wait<0>();
    __syncthreads(); /* step j's tiles in; step j - 1's product done with the other buffers */
    if (j + 1 < nc) {
      q_cp(j + 1);
      dy_fetch(j + 1);
    }
    float *dze = w.bchunk + cs_of(j) * BW_CHUNK + BC_DZEND + v0;
    pairs([&](int i, int c, float *p) {
      *(float2 *)(dze + i * VD + c) = make_float2(p[0], p[1]);
      p[0] *= zd;
      p[1] *= zd;
    });
    mm_b16<BQ, true, QP, BQP, 1, 2, false>(z, qb_of(j), nullptr, nullptr, yh_of(j), yh_of(j) + CH * BQP, ti, 0, CH);
    if (j + 1 < nc) put_y(j + 1);
  }
  float *dzi = g.dstate_in[${m.state}];
  if (dzi) pairs([&](int i, int c, float *p) { *(float2 *)(dzi + slot * ${K * V} + i * VD + v0 + c) = make_float2(p[0], p[1]); });
}
@ end
/* Without an erase the chunk-to-chunk adjoint is elementwise, dZ0_c = diag(e^{b_L,c}) dZ_L,c + (q~e^b)'dY_c
 * and dZ_L,c-1 = dZ0_c: one pass over a sequence's chunks, last to first, from dstate_out; it stores
 * each chunk's end adjoint dZ_L (BC_DZEND) and ends in dstate_in. Four elements of the (K, V) state a
 * thread, the chunk-local adjoints (bprep's) and decays (fprep's) loaded BSCAN_PF chunks ahead. du's
 * state term kd dZ_L is bval's (all chunks at once). With BQS its narrow form, after bprep_n: few work items leave
 * the tile pass's blocks too few (H200 Mamba-2 B1 T32768 H16: 64 blocks, bwd-saved 3.40 ms against 3.12 with this). */
#define BSCAN_PF 8
extern "C" __global__ void __launch_bounds__(${NTS}) ${P.name}_${BQS and 'bscan_n' or 'bscan'}(ssmc_fwd_args a, ssmc_bwd_args g, float *ws) {
  const bws_t w = bws_of(a, ws);
  const item_t it = item_of(a);
  const int e = (it.vt * ${NTS} + (int)threadIdx.x) * 4, k = e / VD; /* elements e .. e + 3 of row k */
  if (e >= KD * VD) return;
  const long long slot = it.n * a.h_v + it.h, s0 = slot0_of(a, it.n);
  const long long bs = (long long)a.h_v * BW_CHUNK, fs = (long long)a.h_v * WS_CHUNK; /* chunk to chunk */
  float *bc = w.bchunk + (s0 * a.h_v + it.h) * BW_CHUNK + e;                 /* (chunks, h_v, BW_CHUNK) from slot0 */
  const float *zd = w.fchunk + (s0 * a.h_v + it.h) * WS_CHUNK + WS_ZD + k; /* the chunk's decay of row k */
  const float *dzo = g.dstate_out[${m.state}];
  float4 dz = dzo ? *(const float4 *)(dzo + slot * ${K * V} + e) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  const long long nc = (it.T + CH - 1) / CH;
  for (long long c1 = nc - 1; c1 >= 0; c1 -= BSCAN_PF) { /* chunks c1, c1 - 1, ..., c1 - BSCAN_PF + 1 */
    float4 dl[BSCAN_PF];
    float gd[BSCAN_PF];
#pragma unroll
    for (int i = 0; i < BSCAN_PF; i++)
      if (c1 - i >= 0) {
        dl[i] = __ldcs((const float4 *)(bc + (c1 - i) * bs + BC_DZLOC));
        gd[i] = zd[(c1 - i) * fs];
      }
#pragma unroll
    for (int i = 0; i < BSCAN_PF; i++)
      if (c1 - i >= 0) {
        *(float4 *)(bc + (c1 - i) * bs + BC_DZEND) = dz;
        dz = make_float4(gd[i] * dz.x + dl[i].x, gd[i] * dz.y + dl[i].y, gd[i] * dz.z + dl[i].z, gd[i] * dz.w + dl[i].w);
      }
  }
  float *dzi = g.dstate_in[${m.state}];
  if (dzi) *(float4 *)(dzi + slot * ${K * V} + e) = dz;
}
@ end

/* ---------------------------------------------------------------- stage bval */
@ stage_head('bval', true, NTV, BV_MINB)
  float *ew = sm + BV_EW, *r1 = sm + BV_R1;
@ load_scalars('BV_')
@ if BS_KF then
  /* dr = T' du is bstate's (in du's place) */
  float *dr = r1;
@   local dt = {ptile('r_dr', 'CH', 'VD', 'float', 'dr', 'VPF', function() return 'w.btok + (tok * a.h_v + it.h) * BW_TOK + BT_DU' end, '(long long)a.h_v * BW_TOK')}
@   ptiles_decl(dt)
@   ptiles_fetch(dt)
  for (int t_ = threadIdx.x; t_ < CH; t_ += NT) ew[t_] = t_ < L ? ${m.write} : 0.0f;
@   ptiles_put(dt)
  __syncthreads();
@ elseif m.delta then
  /* dr = T' du (C, V), in place of du for bgrad; T = (I - NAKK)^-1 (C, C) as the forward's prep left it (its keep
   * form, or fprep: WS_T). Formed here again (the keys, the decays' sums, the NAKK product and the inverse) it took a
   * quarter of GDN's bval (H200 B8 T4096 H16, ncu: 724 -> 530 us), KDA's per-key scores more (bench/, the s49 record). */
  float *tm = sm + BV_T, *du = r1, *dr = r1 + CH * VPF;
@   local dt = {ptile('r_du', 'CH', 'VD', 'float', 'du', 'VPF', function() return 'w.btok + (tok * a.h_v + it.h) * BW_TOK + BT_DU' end, '(long long)a.h_v * BW_TOK'),
@               ptile('r_t', 'CH', 'CH', 'float', 'tm', 'CP', function() return 'w.ftok + (tok * a.h_v + it.h) * WS_TOK + WS_T' end, '(long long)a.h_v * WS_TOK')}
@   ptiles_decl(dt)
@   ptiles_fetch(dt)
  for (int t_ = threadIdx.x; t_ < CH; t_ += NT) ew[t_] = t_ < L ? ${m.write} : 0.0f;
@   ptiles_put(dt)
  __syncthreads();
  mmb<VPF, 1, CP, VPF, 1>(dr, tm, du, CH, VD, CH, false);
  tile_out<NT, CH, VD>(w.btok + (tok * a.h_v + it.h) * BW_TOK + BT_DU, (long long)a.h_v * BW_TOK, dr, VPF, L);
@ else
  for (int t_ = threadIdx.x; t_ < CH; t_ += NT) ew[t_] = t_ < L ? ${m.write} : 0.0f;
  /* without an erase the written rows are w v: dr = du = A' dY + kd dZ_L (C, V); kd (C, KP) = K e^{b_L - b}
   * (KDU_B: formed here from the keys; else fprep's), dZ_L (K, ${ld8(BVL)}) from bscan, a value tile of ${BVL} columns
   * at a time */
  float *dr = r1, *kd = sm + BV_KD, *dzl = sm + BV_DZL;
  {
@   local rt = {ptile('r_dr', 'CH', 'VD', 'float', 'dr', 'VPF', function() return 'w.btok + (tok * a.h_v + it.h) * BW_TOK + BT_DU' end, '(long long)a.h_v * BW_TOK')}
@   if not KDU_B then
@     rt[2] = ptile('r_kd', 'CH', 'KD', 'float', 'kd', 'KP', function() return 'w.ftok + (tok * a.h_v + it.h) * WS_TOK + WS_KD' end, '(long long)a.h_v * WS_TOK')
@   end
@   ptiles_decl(rt)
@   ptiles_fetch(rt)
@   if KDU_B then -- (the loads of du fly while the log decays are summed)
    float *b = sm + BV_B;
    __syncthreads(); /* the scalars in (warp 0 sums every token's log decay) */
@     coefs(nil, nil, 'b', 'KP', '0', 'KD')
@     load_k(P.inputs[m.key + 1], 'kd', 'KP', '0', 'KD', 'fexp(b[L - 1] - b[t_])')
@   end
@   ptiles_put(rt)
  }
@   local zt = {ptile('r_dzl', 'KD', BVL, 'float', 'dzl', ld8(BVL), function(v) return 'w.bchunk + cs * BW_CHUNK + BC_DZEND + ' .. v end, 'VD', 'KD')}
@   ptiles_decl(zt)
@   ptiles_fetch(zt, '0')
  for (int v0 = 0; v0 < VD; v0 += ${BVL}) {
@   ptiles_put(zt)
    __syncthreads();
    if (v0 + ${BVL} < VD) {
@   ptiles_fetch(zt, 'v0 + ' .. BVL)
    }
    mmb<VPF, KP, 1, ${ld8(BVL)}, 1>(dr + v0, kd, dzl, CH, ${BVL}, KD, true);
  }
@ end
@ -- dv = w dr and v . dr: a warp a token, four columns a lane, the v rows of TG of a warp's tokens loaded before the
@ -- first sum (8 registers of rows a thread). One two-byte load a lane at a time, each waited on before its sum, was 30%
@ -- of Mamba-2's bval samples. H200 B8 T4096 H16 bf16 (bench/2026-12-02-gpu-h200-s60 calls 2, 3): ncu bval Mamba-2
@ -- 0.557 -> 0.517 ms, GDN 0.232 -> 0.216; fwd+bwd-saved Mamba-2 3.24 -> 3.20, GDN 5.07 -> 5.05; with 16 registers of
@ -- rows (GDN's bval 63 -> 72 registers, three blocks an SM where it ran four) 0.523 and 0.230
@ local JW = (V // 4 + 31) // 32 -- a lane's four-column groups of a row
@ local TG = math.max(1, math.min(math.ceil(C / ((NTV or NT) // 32)), 8 // (JW * (P.dtype == 'bf16' and 2 or 4))))
  /* dv = w dr; the write coefficient's gradient v . dr (a warp per token, four columns a lane) */
  {
    float *dv = g.din[${m.val}];
    const elem_t *vv = (const elem_t *)a.in[${m.val}];
    const int lane = threadIdx.x & 31;
    for (int t0 = threadIdx.x >> 5; t0 < L; t0 += ${TG} * (NT / 32)) {
      raw4<elem_t> vr[${TG}][${JW}];
#pragma unroll
      for (int i = 0; i < ${TG}; i++) {
        const int t = t0 + i * (NT / 32);
#pragma unroll
        for (int jj = 0; jj < ${JW}; jj++) {
          const int j = 4 * (lane + 32 * jj);
          if (t < L && j < VD) vr[i][jj].load(vv + ((tok + t) * a.h_v + it.h) * VD + j);
          else vr[i][jj].zero();
        }
      }
#pragma unroll
      for (int i = 0; i < ${TG}; i++) {
        const int t = t0 + i * (NT / 32);
        if (t >= L) break;
        float s = 0.0f;
#pragma unroll
        for (int jj = 0; jj < ${JW}; jj++) {
          const int j = 4 * (lane + 32 * jj);
          if (j < VD) {
            const float4 d = *(const float4 *)(dr + t * VPF + j);
            s += dot4(vr[i][jj].f(), d);
            if (dv) *(float4 *)(dv + ((tok + t) * a.h_v + it.h) * VD + j) = make_float4(ew[t] * d.x, ew[t] * d.y, ew[t] * d.z, ew[t] * d.w);
          }
        }
        s = warp_sum(s);
        if (lane == 0) w.btok[((tok + t) * a.h_v + it.h) * BW_TOK + BT_DCW] = s;
      }
    }
  }
@ for _, x in ipairs(P.inputs) do
@   if not x.gate and x.heads == 'v' and x.idx ~= m.val then
  if (g.din[${x.idx}]) /* ${x.name}: not read by the recurrence */
    for (int e = threadIdx.x; e < L * VD; e += NT) g.din[${x.idx}][((tok + e / VD) * a.h_v + it.h) * VD + e % VD] = 0.0f;
@   end
@ end
}

@ if diag and C > 16 then
/* Per-key decays: bgrad's pair sums over the blocks off the 16-token diagonal, on the tensor cores (the forward's
 * diag_scores split, by blocks). For each 16-row block I of c (16 x n) and each block J of the pair index (J < I; UP:
 * J > I), c_I += f(I, J) o (a_IJ x_J): a(i, j) = a[i * ars + j * acs], x's rows those of the tokens xt0 on (ldx), each
 * block J's rows rescaled by the caller to a reference inside the block, f(I, J, k) the per-key factor between the
 * two blocks' references. First (INIT) c_I = 0 (0), f0(I, k) o c_I (1) or c_I as it is (2). Tokens from L on add
 * nothing (their rows of x are zero). A warp owns 16 x 8 tiles; split products (MM_TF3) one J at a time, each
 * scaled into the tile's accumulators. */
template <bool UP, int INIT, int ldc, int ars, int acs, int ldx, typename F, typename F0>
__device__ __forceinline__ void mm_pairs(float *c, const float *a, const float *x, int xt0, int n, int L, F f, F0 f0) {
  const int lane = threadIdx.x & 31, g = lane >> 2, q = lane & 3, tn = n / 8, nb = (L + 15) >> 4;
  for (int tile = threadIdx.x >> 5; tile < nb * tn; tile += blockDim.x >> 5) {
    const int I = tile / tn, col = (tile % tn) * 8 + 2 * q;
    float2 *c0 = (float2 *)(c + (16 * I + g) * ldc + col), *c1 = c0 + 4 * ldc;
    float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    if (INIT) {
      const float2 p0 = *c0, p1 = *c1;
      const float s0 = INIT == 1 ? f0(I, col) : 1.0f, s1 = INIT == 1 ? f0(I, col + 1) : 1.0f;
      d[0] = s0 * p0.x; d[1] = s1 * p0.y; d[2] = s0 * p1.x; d[3] = s1 * p1.y;
    }
    for (int J = UP ? I + 1 : 0; J < (UP ? nb : I); J++) {
      float e[4] = {0.0f, 0.0f, 0.0f, 0.0f};
      const float *ap = a + (16 * I + g) * ars + (16 * J + q) * acs, *bp = x + (16 * J - xt0 + q) * ldx + col - 2 * q + g;
#pragma unroll
      for (int k8 = 0; k8 < 2; k8++, ap += 8 * acs, bp += 8 * ldx) {
        const float af[4] = {ap[0], ap[8 * ars], ap[4 * acs], ap[8 * ars + 4 * acs]}, bf[2] = {bp[0], bp[4 * ldx]};
        unsigned ah[4], al[4], bh[2], bl[2];
#pragma unroll
        for (int r = 0; r < 4; r++) tf32_hl<false, MM_RL>(af[r], ah[r], al[r]);
        tf32_hl<false, MM_RL>(bf[0], bh[0], bl[0]);
        tf32_hl<false, MM_RL>(bf[1], bh[1], bl[1]);
        mma8_step<MM_TF3, false, false>(e, ah, al, bh, bl);
      }
      const float s0 = f(I, J, col), s1 = f(I, J, col + 1);
      d[0] += s0 * e[0]; d[1] += s1 * e[1]; d[2] += s0 * e[2]; d[3] += s1 * e[3];
    }
    *c0 = make_float2(d[0], d[1]);
    *c1 = make_float2(d[2], d[3]);
  }
}
@ end
/* ---------------------------------------------------------------- stage bgrad */
@ stage_head('bgrad', true, NTB, BG_MINB, m.delta)
@ local KT = m.delta and 'kt' or 'blockIdx.z' -- (a variable live to the end spilled Mamba-2's bf16 bgrad at sm_90a)
  const int k0 = ${KT} * BK;
  float *p1 = sm + BG_P1, *p2 = sm + BG_P2, *da = sm + BG_DA, *zld = sm + BG_ZLD, *ew = sm + BG_EW, *ee = sm + BG_EE;
@ if m.delta then
  float *p3 = sm + BG_P3, *dg = sm + BG_DG;
@ end
@ load_scalars('BG_')
  /* over all value columns: P1 = dY Z0', P2 = u dZ_L' (this key tile's columns), dA = dY u'; with an
   * erase P3 = dr Z0', dG = dr u'; Z_L . dZ_L per key row. The next value tile's loads are issued
   * before this one's products, so their latency hides under them. */
  {
@ -- the loop's tiles: name, rows, element type, source at value column v, row stride, rows loaded. KDU_B: u = diag(w) V
@ -- as V itself (the input's elements), w applied to the products after the loop (dA's columns, P2's rows): bprep
@ -- stores no fp32 copy of U for it
@ local vt = {
@   {'dy', 'CH', 'elem_t', function(v) return '(const elem_t *)g.dout + (tok * a.h_v + it.h) * VD + ' .. v end, '(long long)a.h_v * VD', 'L'},
@   KDU_B and {'uu', 'CH', 'elem_t', function(v) return '(const elem_t *)a.in[' .. m.val .. '] + (tok * a.h_v + it.h) * VD + ' .. v end, '(long long)a.h_v * VD', 'L'}
@          or {'uu', 'CH', 'float', function(v) return 'w.ftok + (tok * a.h_v + it.h) * WS_TOK + WS_U + ' .. v end, '(long long)a.h_v * WS_TOK', 'L'},
@   {'z0', 'BK', 'float', function(v) return 'w.fchunk + cs * WS_CHUNK + k0 * VD + ' .. v end, 'VD', 'BK'},
@   {'dz', 'BK', 'float', function(v) return 'w.bchunk + cs * BW_CHUNK + BC_DZEND + k0 * VD + ' .. v end, 'VD', 'BK'},
@ }
@ if m.delta then
@   vt[#vt + 1] = {'dr', 'CH', 'float', function(v) return 'w.btok + (tok * a.h_v + it.h) * BW_TOK + BT_DU + ' .. v end, '(long long)a.h_v * BW_TOK', 'L'}
@ end
@ if ZDOT then
    const float *zlg = ch.c0 + CH >= it.T ? a.state_out[${m.state}] + (it.n * a.h_v + it.h) * (long long)${K * V} /* the final state */
                                          : w.fchunk + (cs + a.h_v) * WS_CHUNK;            /* the next chunk's start */
@   vt[#vt + 1] = {'zl', 'BK', 'float', function(v) return 'zlg + k0 * VD + ' .. v end, 'VD', 'BK'}
@ end
@ -- the loop's products c (ldc) += x y' over the value tile (x, y: rows of it; xa: x exact in tf32); a
@ -- step's products only read its tiles
@ -- u dZ_L' (P2, the key's column part) as split products (MM_TF3) in a one-product module where the decay's gradient
@ -- reads Z_L . dZ_L (ZDOT): k . dk_col cancels that sum in the identity, and one tf32 product left the T = 1 row's dg
@ -- of a bf16 Mamba-2 form at K = 32, V = 80, chunk 32 at 1.24e-2 relative (bound 1e-2; split: 1.4e-3; the f32 module
@ -- 1.4e-5) in the emulation (bench/, the s43 record). Not in the sm_90a wgmma loop (BGW: its tiles carry no lo part
@ -- in a one-product module; the H200's T = 1 rows there 4.3e-3)
@ local P2S = (BWD_TF1 and ZDOT) and 'MM_TF3' or nil
@ local vp = {{'p1', BKP, 'dy', 'z0', 'CH', 'BK', DYX}, {'p2', BKP, 'uu', 'dz', 'CH', 'BK', nil, P2S}, {'da', 'CP', 'dy', 'uu', 'CH', 'CH', DYX}}
@ if m.delta then
@   vp[#vp + 1] = {'p3', BKP, 'dr', 'z0', 'CH', 'BK'}; vp[#vp + 1] = {'dg', 'CP', 'dr', 'uu', 'CH', 'CH'}
@ end
@ if BGW then
#if SSMC_SM90
    /* the products on wgmma (BGW), a warpgroup each: dY [Z0; u]' (P1 | dA)${m.delta and ', dr [Z0; u]\' (P3 | dG)' or ''}, u dZ_L' (P2) */
@   local B = wgb_buf(WBV)
@   local nwg = (NTB or NT) // 128
@   -- each loop tile's place in a buffer (a part of it: u in [Z0; u] after Z0's rows), and whether it has a lo part
@   local dst = {dy = {'dy', 0}, z0 = {'zu', 0}, uu = {'zu', BK}, dz = {'dz', 0}, dr = {'dr', 0}}
@   local function at(name, row, lo) return B[name .. (lo and '_lo' or '')] + row // 8 * B.sbo end
@   local groups = {{a = 'dy', b = 'zu', arow = 0, n = BK + C, ax = DYX == 'true', out = {{'p1', BKP}, {'da', 'CP'}}}}
@   if m.delta then groups[#groups + 1] = {a = 'dr', b = 'zu', arow = 0, n = BK + C, out = {{'p3', BKP}, {'dg', 'CP'}}} end
@   groups[#groups + 1] = {a = 'zu', b = 'dz', arow = BK, n = BK, out = {{'p2', BKP}}}
@   -- STG: a warpgroup over the products' (GDN's fourth: the producer) only copies a step's tiles as they are
@   -- (cp.async) into NS stages after two buffers; the others (the consumers) turn a stage into its step's buffer (the
@   -- tf32 hi / lo parting, 384 threads where the producer's 128 did it from its registers in s56's form: their loop
@   -- waited on the producer ~83% of its time, bench/2026-12-01-gpu-h200-s57 call 1), then multiply: a step's parting
@   -- overlaps the step before's products (asynchronous). Z0 . dZ_L: the producer's, from the stages (on the consumers
@   -- it ate the gain). H200 B8 T4096 H16 bf16 fwd+bwd-saved: DeltaNet 5.166 -> 5.090 ms, GDN 5.617 -> 5.623 (its bgrad
@   -- 2.54 -> 2.52); B1 T32768 GDN 6.58 -> 6.59 (s57 calls 5, 6); the register form before it against every thread
@   -- loading: GDN bwd-saved 6.09 -> 5.91 ms. Else (no warpgroup beyond the products', or no room for two stages:
@   -- no K x V of a GDN-like spec from 32 to 256 at chunk 64) every thread loads (one step ahead, through its registers)
@   -- and two buffers take turns under one barrier a step
@   local NC, PT = #groups * 128, (nwg - #groups) * 128
@   local region = 0
@   for _, e in ipairs(GL) do if e[1] == 'R' then region = -e[2] elseif e[1] == 'B' then region = region + e[2] end end
@   -- the loop's tiles without Z_L: Z_L . dZ_L = e^{b_L} Z0 . dZ_L + kd' u . dZ_L (Z_L = e^{b_L} Z0 + kd' u), the first
@   -- from the loop's own Z0 and dZ_L, the second from P2 = u dZ_L' after the loop (ZS): a sixth of GDN's loads
@   local vtw = {}
@   for _, t in ipairs(vt) do if t[1] ~= 'zl' then vtw[#vtw + 1] = t end end
@   local SS, so = 0, {}
@   local function sfl(t) return (t[3] == 'elem_t' and P.dtype == 'bf16') and WBV // 2 or WBV end -- a stage row's floats
@   for _, t in ipairs(vtw) do so[t[1]] = SS; SS = SS + (t[2] == 'CH' and C or BK) * sfl(t) end
@   local NS = nwg > #groups and math.min(3, (region - 2 * B.size) // SS) or 0
@   local STG = NS >= 2
@   if ZDOT then
    (void)zlg;
@   end
@   for _, t in ipairs(vtw) do
    rows_l2<NT>(${t[4]('0')}, ${t[5]}, ${t[6]});
@   end
@   if ZDOT and not STG then
    float zacc[tile_regs<NT, BK, ${WBV}, float, false, 0>::PER] = {};
@   end
@   local function decl()
@     for _, t in ipairs(vtw) do
    tile_regs<NT, ${t[2]}, ${WBV}, ${t[3]}, false, 0> w_${t[1]};
@     end
@   end
@   local function fetch(v)
@     for _, t in ipairs(vtw) do
          w_${t[1]}.fetch(${t[4](v)}, ${t[5]}, ${t[6]});
@     end
@   end
@   local function put(buf)
@     for _, t in ipairs(vtw) do
@       local d = dst[t[1]]
@       if d then
@         local lo = B[d[1] .. '_lo'] ~= nil
          w_${t[1]}.put_core_hl<${lo and 'true' or 'false'}>(${buf} + ${at(d[1], d[2])}, ${lo and (buf .. ' + ' .. at(d[1], d[2], true)) or 'nullptr'}, ${B.sbo}, ${B.lbo});
@       end
@     end
@     if ZDOT then
          row_dots(zacc, w_z0, w_dz);
@     end
@   end
@   local function issue(mine)
        wg_fence();
@     for j, gr in ipairs(mine) do
@       local terms = {{false, false}}
@       if BGW_NS == 2 then terms[2] = {false, true}; if not gr.ax then terms[3] = {true, false} end end
@       for ti, tm in ipairs(terms) do
        wg_issue<${gr.n}, ${WBV // 8}, ${B.lbo}>(${(ti > 1 and BGE) and 'e' or 'd'}${j}, wg_desc(bw + ${at(gr.a, gr.arow, tm[1])}, ${B.sbo}, ${B.lbo}), wg_desc(bw + ${at(gr.b, 0, tm[2])}, ${B.sbo}, ${B.lbo}));
@       end
@     end
        wg_commit();
@   end
@   local function accs(mine) -- the groups' accumulators: d, and with BGE e for the lo terms' products
@     for j, gr in ipairs(mine) do
      float d${j}[${gr.n // 2}] = {};
@       if BGE then
      float e${j}[${gr.n // 2}] = {};
@       end
@     end
@   end
@   local function store(mine)
@     for j, gr in ipairs(mine) do
@       if BGE then
#pragma unroll
      for (int i = 0; i < ${gr.n // 2}; i++) d${j}[i] += e${j}[i];
@       end
      { /* rows 16 w + g (+ 8) of the warpgroup's warp w, columns 8 i + 2 q (+ 1) */
        const int r0 = 16 * (((int)threadIdx.x >> 5) & 3) + (((int)threadIdx.x & 31) >> 2), c0 = 2 * ((int)threadIdx.x & 3);
        wg_store<${gr.out[2] and BK or gr.n}>(cmat<${gr.out[1][2]}>{${gr.out[1][1]}}, d${j}, r0, c0);
@       if gr.out[2] then
        wg_store<${C}>(cmat<${gr.out[2][2]}>{${gr.out[2][1]}}, d${j} + ${BK // 2}, r0, c0);
@       end
      }
@     end
@   end
@   if m.delta then
    const int wg = (int)threadIdx.x >> 7;
@   else
    /* warp-uniform as ptxas sees it: without it ptxas serialized the wgmma at V = 64 with a small key (C7520,
     * K = 16 and 32); with it an erase's module at K = 32 V = 128 spilled (emu_f90_delta: 80 B) */
    const int wg = __shfl_sync(0xffffffffu, (int)threadIdx.x >> 7, 0);
@   end
@   if STG then
    /* ${NS} stages (${SS} floats each) after two buffers; named barriers 1 + b (stage b full), ${1 + NS} + b (stage b free)
     * of all ${NTB or NT} threads, ${1 + 2 * NS} of the ${NC} consumers (a step's buffer parted); the non-aligned forms */
    constexpr int NSTEP = VD / ${WBV};
    float *stg = sm + BG_R + ${2 * B.size};
    if (wg >= ${#groups}) { /* the producer: cp.async only, NS - 1 steps in flight (and Z0 . dZ_L from the stages) */
@     if ZDOT then
      float zst[tile_regs<${PT}, BK, ${WBV}, float>::PER] = {};
@     end
      for (int s = 0; s < NSTEP + ${NS - 1}; s++) {
        if (s < NSTEP) {
          const int b = s % ${NS}, v0 = s * ${WBV};
          float *sb = stg + b * ${SS};
          if (s >= ${NS}) bar_wait_na(${1 + NS} + b, ${NTB or NT});
@     for _, t in ipairs(vtw) do
@       local f32 = sfl(t) == WBV
          stage_cp<${PT}, ${NC}, ${t[2]}, ${sfl(t)}>(sb + ${so[t[1]]}, (const float *)(${t[4]('v0')}), ${f32 and t[5] or ('(' .. t[5] .. ') / 2')}, ${t[6]});
@     end
        }
        cp_async_commit();
        if (s >= ${NS - 1}) {
          cp_async_wait<${NS - 1}>();
          bar_arrive_na(1 + (s - ${NS - 1}) % ${NS}, ${NTB or NT});
@     if ZDOT then
          { /* (read before this thread's copies into the stage, NS steps on) */
            const float *sb = stg + (s - ${NS - 1}) % ${NS} * ${SS};
            row_dots_sm<${PT}, BK, ${WBV}, ${NC}>(zst, sb + ${so.z0}, sb + ${so.dz}, ${WBV});
          }
@     end
        }
      }
@     if ZDOT then
      row_dots_put<${PT}, BK, ${WBV}, ${NC}>(zld, zst);
@     end
@     -- the key tile's k and q rows into L2 for after the loop, by the producer once its copies are issued (with the
@     -- per-token pass's LPT: H200 GDN B8 bgrad 2.450 -> 2.368 ms, bench/2026-12-02-gpu-h200-s62 call 2; the same in
@     -- the last step of the loop without a producer spilled Mamba-2's bgrad, 96 B at sm_90a)
@     for _, x in ipairs({P.inputs[m.key + 1], Q1 or nil}) do
@       local _, src, rs = krows(x, 'k0')
      rows_l2<${PT}, BK, ${NC}>(${src}, ${rs}, L);
@     end
    } else {
@     for bi = 1, #groups do
      ${bi < #groups and ('if (wg == ' .. (bi - 1) .. ') ') or ''}{
@       local mine = {groups[bi]}
@       accs(mine)
        for (int st = 0; st < NSTEP; st++) {
          const int b = st % ${NS};
          const float *sb = stg + b * ${SS};
          float *bw = sm + BG_R + (st & 1) * ${B.size};
          bar_wait_na(1 + b, ${NTB or NT}); /* (every consumer past its wait for the step before last: that buffer free) */
@       for _, t in ipairs(vtw) do
@         local d = dst[t[1]]
@         local lo = B[d[1] .. '_lo'] ~= nil
          stage_put<${NC}, ${t[2]}, ${WBV}, ${sfl(t) == WBV and 'false' or 'true'}, ${lo and 'true' or 'false'}>(bw + ${at(d[1], d[2])}, ${lo and ('bw + ' .. at(d[1], d[2], true)) or 'nullptr'}, sb + ${so[t[1]]}, ${B.sbo}, ${B.lbo});
@       end
          if (st + ${NS} < NSTEP) bar_arrive_na(${1 + NS} + b, ${NTB or NT});
          fence_async_smem();
          bar_wait_na(${1 + 2 * NS}, ${NC});
@       issue(mine)
          wg_wait1(); /* the step before done */
        }
        wg_wait0();
        bar_all_na(); /* every product done: the buffers free for the results */
@       store(mine)
      }${bi < #groups and ' else' or ''}
@     end
    }
    if (wg >= ${#groups}) bar_all_na();
@   else
@     decl()
    {
@     fetch('0')
@     put('sm + BG_R')
    }
    fence_async_smem();
    __syncthreads();
@     local branches = {}
@     for w = 0, nwg - 1 do
@       local mine = {}
@       for gi, gr in ipairs(groups) do if (gi - 1) % nwg == w then mine[#mine + 1] = gr end end
@       if #mine > 0 or w == nwg - 1 then branches[#branches + 1] = {w = w, mine = mine} end
@     end
@     for bi, br in ipairs(branches) do
    ${bi == 1 and '' or '} else '}${bi < #branches and ('if (wg == ' .. br.w .. ') ') or ''}{${#br.mine == 0 and ' /* the loads alone */' or ''}
@       accs(br.mine)
      for (int v0 = 0, i = 0; v0 < VD; v0 += ${WBV}, i ^= 1) {
        float *bw = sm + BG_R + i * ${B.size}, *bn = sm + BG_R + (i ^ 1) * ${B.size};
        (void)bw;
        const bool nx = v0 + ${WBV} < VD;
        if (nx) {
@       fetch('v0 + ' .. WBV)
        }
@       if #br.mine > 0 then
@         issue(br.mine)
@       end
        if (nx) {
@       put('bn')
        }
@       if #br.mine > 0 then
        wg_wait0();
@       end
        fence_async_smem();
        __syncthreads(); /* this step's products done (the buffer free), the next step's tiles in */
      }
@       store(br.mine)
@     end
    }
@     if ZDOT then
    row_dots_put<NT, BK, ${WBV}>(zld, zacc);
@     end
@   end
#else
@ end
@ if ZDOT then
    float zacc[tile_regs<NT, BK, BVG, float>::PER] = {};
@ end
@ if RACC then
    /* the products in registers (mm_acc); the tiles in two buffers (R's, and P1's while the
     * accumulators are in registers), filled by cp.async except the inputs' (elem_t: converted in registers) */
@   local off, vo = 0, {}
@   for _, t in ipairs(vt) do vo[t[1]] = off; off = off + (t[2] == 'CH' and C or BK) * BVPG end
@   for _, c in ipairs(vp) do
    mm_acc<NT, ${c[5]}, ${c[6]}, ${c[8] or 'MM_BWD'}, ${c[7] or 'false'}> acc_${c[1]};
    acc_${c[1]}.zero();
@   end
@   local function fill(v, b)
@     for _, t in ipairs(vt) do
@       if t[3] == 'elem_t' then
      r_${t[1]}.fetch(${t[4](v)}, ${t[5]}, ${t[6]});
@       else
      tile_cp<NT, ${t[2]}, BVG>(${b} + ${vo[t[1]]}, ${BVPG}, ${t[4](v)}, ${t[5]}, ${t[6]});
@       end
@     end
      cp_async_commit();
@   end
@   for _, t in ipairs(vt) do
@     if t[3] == 'elem_t' then
    tile_regs<NT, ${t[2]}, BVG, elem_t> r_${t[1]};
@     end
@   end
    {
@   fill('0', 'sm + BG_R')
    }
    for (int v0 = 0, i = 0; v0 < VD; v0 += BVG, i ^= 1) {
@   for _, t in ipairs(vt) do
      float *${t[1]} = sm + (i ? BG_P1 : BG_R) + ${vo[t[1]]};
@   end
@   for _, t in ipairs(vt) do
@     if t[3] == 'elem_t' then
      r_${t[1]}.put(${t[1]}, ${BVPG}, L, one_t(), false);
@     end
@   end
      cp_async_wait<0>();
      __syncthreads(); /* this step's tiles are in; the other buffer's step (the last) has every thread's products done */
      if (v0 + BVG < VD) {
@   fill('v0 + BVG', '(sm + (i ? BG_R : BG_P1))')
      }
@   if ZDOT then
      row_dots_sm<NT, BK, BVG>(zacc, zl, dz, ${BVPG});
@   end
@   for _, c in ipairs(vp) do
      acc_${c[1]}.step<${BVPG}, ${BVPG}>(${c[3]}, ${c[4]}, BVG);
@   end
    }
    __syncthreads();
@   for _, c in ipairs(vp) do
    acc_${c[1]}.store(${c[1]}, ${c[2]});
@   end
@ else
    /* the products through shared memory (mmb); the tiles through registers (ptile) */
@   local off, ptl = 0, {}
@   for _, t in ipairs(vt) do
@     if t[1] == 'zl' then -- Z_L's rows stay in registers: their dot with dZ_L's is summed there
@       ptl[#ptl + 1] = ptile('r_zl', t[2], 'BVG', t[3], nil, nil, t[4], t[5], t[6])
@     else
    float *${t[1]} = sm + BG_R + ${off};
@       ptl[#ptl + 1] = ptile('r_' .. t[1], t[2], 'BVG', t[3], t[1], BVPG, t[4], t[5], t[6])
@       off = off + (t[2] == 'CH' and C or BK) * BVPG
@     end
@   end
@   ptiles_decl(ptl)
@   ptiles_fetch(ptl, '0')
    for (int v0 = 0; v0 < VD; v0 += BVG) {
@   ptiles_put(ptl)
@   if ZDOT then
      row_dots(zacc, r_zl, r_dz);
@   end
      __syncthreads();
      if (v0 + BVG < VD) {
@   ptiles_fetch(ptl, 'v0 + BVG')
      }
@   for _, c in ipairs(vp) do
@     if c[8] then
      mm<${c[2]}, ${BVPG}, 1, 1, ${BVPG}, ${c[8]}, false, ${c[7] or 'false'}, false, false>(${c[1]}, ${c[3]}, ${c[4]}, ${c[5]}, ${c[6]}, BVG, v0 > 0);
@     else
      mmb<${c[2]}, ${BVPG}, 1, 1, ${BVPG}, ${c[7] or 'false'}, false, false>(${c[1]}, ${c[3]}, ${c[4]}, ${c[5]}, ${c[6]}, BVG, v0 > 0);
@     end
@   end
      __syncthreads(); /* one barrier after a step's products */
    }
@ end
@ if ZDOT then
    row_dots_put<NT, BK, BVG>(zld, zacc);
@ end
@ if BGW then
#endif
@ end
  }
@ if BG3 then
  /* this key tile of k and q as loaded (kb, qb (C, ${KGP}) bf16), dk's row part dkr (C, BKP), the lo parts of dA and dG
   * (lo (C, 2 CP) bf16: dA's in a row's first C, dG's in the next C) */
  unsigned short *kb = (unsigned short *)(sm + BG_R), *qb = kb + CH * ${KGP};
  float *dkr = (float *)(qb + CH * ${KGP}), *b = sm + BG_B;
  unsigned short *lo = (unsigned short *)(dkr + CH * ${BKP});
@   for _, x in ipairs({{'kb', P.inputs[m.key + 1]}, {'qb', Q1}}) do
@     local _, src, rs = krows(x[2], 'k0')
  tile_cp<NT, CH, BK / 2>((float *)${x[1]}, ${KGP // 2}, (const float *)(${src}), (${rs}) / 2, L);
@   end
  cp_async_commit();
  cp_async_wait<0>();
  __syncthreads();
@ coefs('ew', 'ee', 'b', BKP, 'k0', 'BK')
@ else
  /* this key tile of k and q~ (over the value loop's tiles) */
  float *kc = sm + BG_R, *qt = kc + CH * ${KCP};
@   if diag then
  float *b = qt + CH * ${KCP};
@   else
  float *b = sm + BG_B;
@   end
@   if Q1 then
  { /* k's and q's rows fetched together, in flight under the scalars (k's loaded and waited on, then q's after the
     * scalars, before: H200 Mamba-2 B8 bgrad 1.176 -> 1.108 ms, bench/, the s62 record, call 3) */
@     local kT, ksrc, krs = krows(P.inputs[m.key + 1], 'k0')
@     local qT, qsrc, qrs = krows(Q1, 'k0')
    tile_regs<NT, CH, BK, ${kT}> r_k;
    tile_regs<NT, CH, BK, ${qT}> r_q;
    r_k.fetch(${ksrc}, ${krs}, L);
    r_q.fetch(${qsrc}, ${qrs}, L);
    r_k.put(kc, ${KCP}, L, one_t(), false);
    __syncthreads();
@     coefs('ew', 'ee', 'b', BKP, 'k0', 'BK')
    r_q.put(qt, ${KCP}, L, [&](int t_) { return (float)(${P.q[1].coef}); }, false);
  }
@   else
@ load_k(P.inputs[m.key + 1], 'kc', KCP, 'k0', 'BK')
  __syncthreads();
@ coefs('ew', 'ee', 'b', BKP, 'k0', 'BK')
@ build_qt('qt', KCP, 'k0', 'BK')
@   end
  __syncthreads();
@ end
  /* dq~ (in p1), dk's column part (in p2), with an erase dk's row part (dkr: with per-key decays in da once dA is
   * spent, else a tile of its own after q~) */
@ if m.delta and diag then
  float *dkr = da;
@ elseif m.delta and not BG3 then
  float *dkr = qt + CH * ${KCP};
@ end
@ if diag then
#define BT(t, k) b[(t) * ${BKP} + (k)]
  /* The pair sums with the per-key decays e^{b_t - b_s}: the blocks off the 16-token diagonal as tile products
   * (mm_pairs) of operands rescaled to a reference in each block, then the diagonal blocks pair by pair with the
   * references' factors. Per token block I (i0 = 16 I): dq~'s reference b_{i0-1} (0 for the first), P1 taken to it
   * by e^{b_{i0-1}}; dk's column part's b_{i0+15} (the chunk's last b from L on), P2 taken to it by
   * e^{b_{C-1} - b_{i0+15}}. Factors <= 1 both sides: log decays near -20 neither overflow nor lose the pairs
   * near the diagonal. (Every pair with an exponential a term before, ~C (C + 1) / 2 BK a sum: H200 B8 T4096 H16 bf16
   * bwd GLA 10.77 -> 10.17 ms, KDA 19.70 -> 18.17; bench/, the s45 record) */
@   if C > 16 then
  float *xw = b + CH * ${BKP}; /* (C - 16, KCP): the rescaled operand */
  auto low_ref = [&](int I, int k) { return I > 0 ? BT(16 * I - 1, k) : 0.0f; };
  auto low_x = [&](const float *src) { /* x_s = e^{b_end - b_s} src_s, b_end the last of s's block: tokens 0 .. C - 17 */
    for (int e = threadIdx.x; e < (CH - 16) * BK; e += NT) {
      const int s = e / BK, k = e - s * BK;
      xw[s * ${KCP} + k] = s < L ? fexp(BT(s | 15, k) - BT(s, k)) * src[s * ${KCP} + k] : 0.0f;
    }
  };
  auto low_f = [&](int I, int J, int k) { return fexp(BT(16 * I - 1, k) - BT(16 * J + 15, k)); };
  auto low_f0 = [&](int I, int k) { return I > 0 ? fexp(BT(16 * I - 1, k)) : 1.0f; };
  auto up_x = [&](const float *src, auto co) { /* x_r = co(r) e^{b_r - b_start} src_r, b_start the one before r's block: tokens 16 .. C - 1 */
    for (int e = threadIdx.x; e < (CH - 16) * BK; e += NT) {
      const int r = 16 + e / BK, k = e % BK;
      xw[(r - 16) * ${KCP} + k] = r < L ? co(r) * fexp(BT(r, k) - BT((r & ~15) - 1, k)) * src[r * ${KCP} + k] : 0.0f;
    }
  };
  auto up_f = [&](int I, int J, int k) { return fexp(BT(16 * J - 1, k) - BT(16 * I + 15, k)); };
  auto up_f0 = [&](int I, int k) { return fexp(BT(CH - 1, k) - BT(16 * I + 15, k)); };
  low_x(kc);
  __syncthreads();
  mm_pairs<false, 1, ${BKP}, CP, 1, ${KCP}>(p1, da, xw, 0, BK, L, low_f, low_f0); /* e^{b_{i0-1}} dY Z0' + dA k off the diagonal */
  __syncthreads();
@   else
  auto low_ref = [&](int, int) { return 0.0f; };
@   end
  /* c = e^{b_t - ref} c (with from_c, else 0) + the diagonal block's pairs m(t, s) e^{b_t - b_s} k_s, s <= t - strict */
  auto low_diag = [&](float *c, const float *m, int strict, bool from_c) {
    for (int e = threadIdx.x; e < CH * BK; e += NT) {
      const int t = e / BK, k = e - t * BK;
      float acc = 0.0f;
      if (t < L) {
        if (from_c) acc = fexp(BT(t, k) - low_ref(t >> 4, k)) * c[t * ${BKP} + k];
        for (int s = t & ~15; s <= t - strict; s++) acc += m[t * CP + s] * fexp(BT(t, k) - BT(s, k)) * kc[s * ${KCP} + k];
      }
      c[t * ${BKP} + k] = acc;
    }
  };
  low_diag(p1, da, 0, true); /* dq~ */
@   if C > 16 then
  up_x(qt, one_t()); /* beside the pass above: distinct tiles */
  __syncthreads();
  mm_pairs<true, 1, ${BKP}, 1, CP, ${KCP}>(p2, da, xw, 16, BK, L, up_f, up_f0); /* e^{b_L - b_{i0+15}} u dZ_L' + dA' q~ off the diagonal */
  __syncthreads();
@     if m.delta then
  up_x(kc, [&](int r) { return -ee[r]; });
  __syncthreads();
  mm_pairs<true, 2, ${BKP}, 1, CP, ${KCP}>(p2, dg, xw, 16, BK, L, up_f, up_f0); /* + dG' (-e k) off the diagonal */
  __syncthreads();
@     end
@   end
  for (int e = threadIdx.x; e < CH * BK; e += NT) { /* dk's column part: the diagonal blocks */
    const int t = e / BK, k = e - t * BK, r1 = (t | 15) < L ? (t | 15) : L - 1;
    float dkc = 0.0f;
    if (t < L) {
      dkc = fexp(BT(t | 15, k) - BT(t, k)) * p2[t * ${BKP} + k] + da[t * CP + t] * qt[t * ${KCP} + k];
      for (int r = t + 1; r <= r1; r++)
        dkc += (da[r * CP + t] * qt[r * ${KCP} + k]${m.delta and (' - dg[r * CP + t] * ee[r] * kc[r * ' .. KCP .. ' + k]') or ''}) * fexp(BT(r, k) - BT(t, k));
    }
    p2[t * ${BKP} + k] = dkc;
  }
@   if m.delta then
@     if C > 16 then
  low_x(kc); /* beside the pass above */
@     end
  __syncthreads(); /* dA spent: dk's row part in its place */
@     if C > 16 then
  mm_pairs<false, 0, ${BKP}, CP, 1, ${KCP}>(dkr, dg, xw, 0, BK, L, low_f, low_f0); /* dG k off the diagonal */
  __syncthreads();
@     end
  low_diag(dkr, dg, 1, ${C > 16 and 'true' or 'false'}); /* dG k with the decays */
@   end
  __syncthreads();
#define EB(t, k) fexp(BT(t, k))
@ elseif BG3 then
  pair_decay3<NT, false>(da, CP, lo, b, L);
  pair_decay3<NT, true>(dg, CP, lo + CH, b, L);
@ else
@   if KDU_B then
  pair_decay<NT, false>(da, CP, b, L, one_t(), [&](int s) { return ew[s]; }); /* dA = dY V' diag(w) */
@   else
  pair_decay<NT, false>(da, CP, b, L, one_t());
@   end
@   if m.delta then
  pair_decay<NT, true>(dg, CP, b, L, one_t());
@   end
@ end
@ if not diag then
  rows_scale<NT, CH, BK>(p1, ${BKP}, [&](int t) { return t < L ? fexp(b[t]) : 0.0f; });
@   if BGW and ZDOT then
#if SSMC_SM90
  { /* P2's rows times e^{b_L - b_t}, and kd' u . dZ_L over this key tile = the sum over t of k_t . that row: BGW's loop
     * read no Z_L (Z_L . dZ_L = e^{b_L} Z0 . dZ_L + kd' u . dZ_L); a sum a warp, added in order (deterministic) */
    float zs_ = 0.0f;
    for (int v = threadIdx.x; v < CH * BK / 4; v += NT) {
      const int t = v / (BK / 4), d = (v - t * (BK / 4)) * 4;
      float4 *p = (float4 *)(p2 + t * ${BKP} + d), y = *p;
      const float c = t < L ? ${KDU_B and 'ew[t] * ' or ''}fexp(b[CH - 1] - b[t]) : 0.0f;
      y.x *= c; y.y *= c; y.z *= c; y.w *= c;
      *p = y;
      zs_ += dot4(y, ${BG3 and ('raw4<elem_t>{*(const uint2 *)(kb + t * ' .. KGP .. ' + d)}.f()') or ('*(const float4 *)(kc + t * ' .. KCP .. ' + d)')});
    }
    zs_ = warp_sum(zs_);
    if ((threadIdx.x & 31) == 0) sm[BG_ZS + (threadIdx.x >> 5)] = zs_;
  }
#else
@   end
  rows_scale<NT, CH, BK>(p2, ${BKP}, [&](int t) { return t < L ? ${KDU_B and 'ew[t] * ' or ''}fexp(b[CH - 1] - b[t]) : 0.0f; });
@   if BGW and ZDOT then
#endif
@   end
  __syncthreads();
@   if BG3 then
  { /* a warp a 16 x 16 tile of each product at a time; dA and dG as three parts: hi and mid in their rows (pitch 2 CP
     * bf16), lo in lo's */
    const unsigned short *dah = (const unsigned short *)da, *dgh = (const unsigned short *)dg;
    /* d (mma16 fragments) <- the tile of c (BKP) at (i0, j0), or (st) d into it */
    auto tile_io = [&](float *c, int i0, int j0, float (*d)[4], bool st) {
      frag_pairs<2>(d, i0, j0, [&](int i, int j, float *p) {
        float2 *o = (float2 *)(c + i * ${BKP} + j);
        if (st) *o = make_float2(p[0], p[1]);
        else { p[0] = o->x; p[1] = o->y; }
      });
    };
    for (int tile = threadIdx.x >> 5; tile < (CH / 16) * (BK / 16); tile += NT / 32) {
      const int i0 = 16 * (tile / (BK / 16)), j0 = 16 * (tile % (BK / 16));
      float d[2][4];
      tile_io(p1, i0, j0, d, false); /* dq~ = e^b dY Z0' + dA k */
      mm_b16<16, false, 2 * CP, ${KGP}, 3, 1, true>(d, dah, dah + CH, lo, kb, nullptr, i0, j0, CH);
      tile_io(p1, i0, j0, d, true);
      tile_io(p2, i0, j0, d, false); /* dk (column) = e^{b_L - b} u dZ_L' + dA' q~, q~ = c q */
      mm_b16<16, true, 2 * CP, ${KGP}, 3, 1, true>(d, dah, dah + CH, lo, qb, nullptr, i0, j0, CH, (float)(${P.q[1].coef}));
      tile_io(p2, i0, j0, d, true);
      for (int s = 0; s < 2; s++) d[s][0] = d[s][1] = d[s][2] = d[s][3] = 0.0f; /* dG k */
      mm_b16<16, false, 2 * CP, ${KGP}, 3, 1, true>(d, dgh, dgh + CH, lo + CH, kb, nullptr, i0, j0, CH);
      tile_io(dkr, i0, j0, d, true);
    }
    __syncthreads();
    rows_scale3<NT>(dg, CP, lo + CH, [&](int t) { return -ee[t]; });
    __syncthreads();
    for (int tile = threadIdx.x >> 5; tile < (CH / 16) * (BK / 16); tile += NT / 32) {
      const int i0 = 16 * (tile / (BK / 16)), j0 = 16 * (tile % (BK / 16));
      float d[2][4];
      tile_io(p2, i0, j0, d, false); /* + dG' (-e k) */
      mm_b16<16, true, 2 * CP, ${KGP}, 3, 1, true>(d, dgh, dgh + CH, lo + CH, kb, nullptr, i0, j0, CH);
      tile_io(p2, i0, j0, d, true);
    }
  }
  __syncthreads();
@   else
  /* the products into distinct tiles from the same operands: one barrier after the last (a warp's tiles follow
   * the next product's while the tensor cores run its own) */
  mmb<${BKP}, CP, 1, ${KCP}, 1, false, ${KX}, false, ${SEPB}>(p1, da, kc, CH, BK, CH, true); /* dq~ = e^b dY Z0' + dA k */
  mmb<${BKP}, 1, CP, ${KCP}, 1, false, false, ${m.delta and 'false' or 'true'}, ${SEPB}>(p2, da, qt, CH, BK, CH, true); /* dk (column) = e^{b_L - b} u dZ_L' + dA' q~ */
@   if m.delta then
  mmb<${BKP}, CP, 1, ${KCP}, 1, false, ${KX}, true, ${SEPB}>(dkr, dg, kc, CH, BK, CH, false); /* dG k */
  for (int e = threadIdx.x; e < CH * CH; e += NT) dg[e + (e / CH) * (CP - CH)] *= -ee[e / CH];
  __syncthreads();
  mmb<${BKP}, 1, CP, ${KCP}, 1, false, ${KX}, true, ${SEPB}>(p2, dg, kc, CH, BK, CH, true); /* + dG' (-e k) */
@     end
@   end
#define EB(t, k) fexp(b[t])
@ end
  /* per token (a warp each): dk (row part) and the erase coefficient's gradient (with an erase), the row
   * partial sums of this key tile (the decay identity q~.dq~ + k.(dkr - dkc), dce, dc of each q term);
   * the [K] inputs' gradients */
  const int G = a.h_v / a.h_qk;
  /* LPT lanes a token (about eight key columns a lane), 32 / LPT tokens a warp at a time: a token's sums over LPT lanes,
   * log2(LPT) shuffles (a warp a token and its 32-lane sum before: ~7% of Mamba-2's bgrad samples short-scoreboard at
   * the shuffles; bench/, the s62 record, call 2) */
  constexpr int LPT = BK >= 256 ? 32 : BK >= 128 ? 16 : BK >= 64 ? 8 : BK >= 32 ? 4 : BK >= 16 ? 2 : 1; /* a power of two */
  for (int t0 = (threadIdx.x >> 5) * (32 / LPT); t0 < L; t0 += NT / LPT) {
    const int t = t0 + (int)(threadIdx.x & 31) / LPT, t_ = t;
    (void)t_;
    float rs[NR > 0 ? NR : 1] = {};
    if (t < L)
    for (int k = threadIdx.x % LPT; k < BK; k += LPT) {
      const float kk = ${BG3 and ('ld1(kb + t * ' .. KGP .. ' + k)') or ('kc[t * ' .. KCP .. ' + k]')}, dq = p1[t * ${BKP} + k];
      float dkr_ = 0.0f;
@ if m.delta then
      { /* dk (row) = -e (dG k + e^b dr Z0'); dce = -k.(dG k) - (e^b k).(dr Z0') */
        const float y = p3[t * ${BKP} + k], eb = EB(t, k), tk = dkr[t * ${BKP} + k];
        rs[${R_CE}] -= kk * tk + eb * kk * y;
        dkr_ = -ee[t] * (tk + eb * y);
        dkr[t * ${BKP} + k] = dkr_;
      }
@ end
      const float dk = dkr_ + p2[t * ${BKP} + k];
@ if scalar_db then
      rs[${R_S}] += ${BG3 and ('(float)(' .. P.q[1].coef .. ') * ld1(qb + t * ' .. KGP .. ' + k)') or ('qt[t * ' .. KCP .. ' + k]')} * dq + kk * (dkr_ - p2[t * ${BKP} + k]);
@ end
@ for i, q in ipairs(P.q) do
@   if R_Q[i] and q.src == 'X' then
      rs[${R_Q[i]}] += w.ftok[((tok + t) * a.h_v + it.h) * WS_TOK + BW_WSX + k0 + k] * dq;
@   elseif R_Q[i] then
@     local x = P.inputs[tonumber(q.src) + 1]
@     local H = x.heads == 'qk' and 'a.h_qk' or 'a.h_v'
@     local hh = x.heads == 'qk' and 'it.hq' or 'it.h'
      rs[${R_Q[i]}] += ${x.gate and '' or 'ld1'}(${x.gate and '*' or ''}((const ${x.gate and 'float' or 'elem_t'} *)a.in[${q.src}] + ((tok + t) * ${H} + ${hh}) * KD + k0 + k)) * dq;
@   end
@ end
@ for r, x in ipairs(kin) do
      { /* ${x.name} */
        float gk = ${x.idx == m.key and 'dk' or '0.0f'};
@   for _, q in ipairs(P.q) do
@     if tonumber(q.src) == x.idx then
        gk += (${q.coef}) * dq;
@     end
@   end
        if (G == 1) { if (g.din[${x.idx}]) g.din[${x.idx}][((tok + t) * a.h_qk + it.hq) * KD + k0 + k] = gk; }
        else w.bqk[((tok + t) * a.h_v + it.h) * BW_QK + ${(r - 1) * K} + k0 + k] = gk;
      }
@ end
@ local xc = {}
@ for _, q in ipairs(P.q) do if q.src == 'X' then xc[#xc + 1] = '(' .. q.coef .. ')' end end
@ if #xc > 0 then
      w.btok[((tok + t) * a.h_v + it.h) * BW_TOK + BT_DXG + k0 + k] = (${table.concat(xc, ' + ')}) * dq; /* dx */
@ end
      (void)dk;
    }
#pragma unroll
    for (int r = 0; r < NR; r++) {
      float s = rs[r];
      for (int o = 1; o < LPT; o <<= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
      if (threadIdx.x % LPT == 0 && t < L) w.btok[((tok + t) * a.h_v + it.h) * BW_TOK + BT_PART + ${KT} * NR + r] = s;
    }
  }
@ if diag then
  __syncthreads();
  /* the per-key log decay: d/db_t = q~.dq~ + k.(dkr - dkc) per key, summed from the chunk end (+ Z_L . dZ_L) */
  if (g.din[${m.diag_in}])
    for (int k = threadIdx.x; k < BK; k += NT) {
      float acc = zld[k];
      for (int t = L - 1; t >= 0; t--) {
        acc += qt[t * ${KCP} + k] * p1[t * ${BKP} + k] +
               kc[t * ${KCP} + k] * (${m.delta and 'dkr[t * ' .. BKP .. ' + k]' or '0.0f'} - p2[t * ${BKP} + k]);
        g.din[${m.diag_in}][((tok + t) * a.h_v + it.h) * KD + k0 + k] = acc;
      }
    }
@ elseif scalar_db then
  if (threadIdx.x == 0) {
    float s = 0.0f;
    for (int k = 0; k < BK; k++) s += zld[k];
@   if BGW then
#if SSMC_SM90
    float u_ = 0.0f;
    for (int i = 0; i < NT / 32; i++) u_ += sm[BG_ZS + i];
    s = fexp(b[CH - 1]) * s + u_; /* Z_L . dZ_L = e^{b_L} Z0 . dZ_L + kd' u . dZ_L */
#endif
@   end
    w.bchunk[cs * BW_CHUNK + BC_ZLDP + ${KT}] = s;
  }
@ end
@ for _, x in ipairs(P.inputs) do
@   if x.gate and x.D == K and x.D > 1 and not (diag and x.idx == m.diag_in) then
  if (g.din[${x.idx}]) /* ${x.name}: not read by the recurrence */
    for (int e = threadIdx.x; e < L * BK; e += NT) g.din[${x.idx}][((tok + e / BK) * a.h_v + it.h) * KD + k0 + e % BK] = 0.0f;
@   end
@ end
#undef EB
@ if diag then
#undef BT
@ end
}

/* ---------------------------------------------------------------- stage brows */
@ stage_head('brows', true)
  float *db = sm + BR_DB;
  (void)db;
@ load_scalars('BR_')
@ if scalar_db then
  for (int t = threadIdx.x; t < CH; t += NT) {
    float s = 0.0f;
    for (int kt = 0; t < L && kt < NKT; kt++) s += w.btok[((tok + t) * a.h_v + it.h) * BW_TOK + BT_PART + kt * NR + ${R_S}];
    db[t] = s;
  }
  __syncthreads();
  if (threadIdx.x == 0) { /* the running sum cancels terms of the chunk-end term's size down to ~0: in double */
    double acc = 0.0;
    for (int kt = 0; kt < NKT; kt++) acc += w.bchunk[cs * BW_CHUNK + BC_ZLDP + kt];
    for (int t = L - 1; t >= 0; t--) { acc += db[t]; db[t] = (float)acc; }
  }
@ end
  __syncthreads();
  for (int t_ = threadIdx.x; t_ < L; t_ += NT) {
    const float *pt = w.btok + ((tok + t_) * a.h_v + it.h) * BW_TOK;
    const float dcw = pt[BT_DCW];
    float rs[NR > 0 ? NR : 1] = {};
    for (int kt = 0; kt < NKT; kt++)
      for (int r = 0; r < NR; r++) rs[r] += pt[BT_PART + kt * NR + r];
    (void)dcw; (void)rs;
@ for _, x in ipairs(scalars) do
    if (g.din[${x.idx}]) { /* ${x.name} */
      float d = 0.0f;
@   for _, dd in ipairs(m.dlog) do
@     if dd.idx == x.idx then
      d += db[t_] * ${dd.d};
@     end
@   end
@   for _, dd in ipairs(m.dwrite) do
@     if dd.idx == x.idx then
      d += dcw * ${dd.d};
@     end
@   end
@   for _, dd in ipairs(m.derase) do
@     if dd.idx == x.idx then
      d += rs[${R_CE}] * ${dd.d};
@     end
@   end
@   for i, q in ipairs(P.q) do
@     for _, dd in ipairs(q.dcoef) do
@       if dd.idx == x.idx then
      d += rs[${R_Q[i]}] * ${dd.d};
@       end
@     end
@   end
      g.din[${x.idx}][(tok + t_) * a.h_v + it.h] = d;
    }
@ end
  }
}

/* ---------------------------------------------------------------- stage breduce */
@ stage_head('breduce', true)
  if (a.h_v == a.h_qk || it.h >= a.h_qk) return; /* h: the q/k head here */
  const int G = a.h_v / a.h_qk;
@ for r, x in ipairs(kin) do
  if (g.din[${x.idx}]) /* ${x.name} */
    for (int e = threadIdx.x; e < L * KD; e += NT) {
      const long long t = tok + e / KD;
      const int k = e % KD;
      float s = 0.0f;
      for (int gi = 0; gi < G; gi++) s += w.bqk[(t * a.h_v + it.h * G + gi) * BW_QK + ${(r - 1) * K} + k];
      g.din[${x.idx}][(t * a.h_qk + it.h) * KD + k] = s;
    }
@ end
}

@ -- ================================================================ a solve readout's stages
@ local SL2, GL2, QR, SL9, GL9
@ if sv then
@   local GS = 16 -- the forward's solve group (cuda_kernel.cu.tpl)
@   local function r32(n) return math.ceil(n / 32) * 32 end
@   -- gsolve's second phase reuses the solve layout's big buffers (X_HF .. X_XB) for D: two (C, K)
@   -- operands, the keys, k scaled, and QR rows of D at a time; the per-token scalars after them stay
@   local XRH = r32(K * (K + 4)) + r32(C * (K + 4)) + r32(C * (C + 4)) + r32(math.max(C, 64) * (K + 4))
@   -- (rows padded by 4 floats, G2P, where they fit: the tf32 fragments' loads without bank conflicts; ncu had 52% of
@   -- gsolve's shared wavefronts excessive with rows of K floats)
@   local G2P = (4 * C + 16) * (K + 4) <= XRH and K + 4 or K
@   -- QR: the largest multiple of 16 (the products' row tiles) that divides K and fits (K = 96: 16, where halving
@   -- gave 12 and products of no row tile, a D of zeros: the GPU's dH0 was 99% off, s42)
@   QR = 16
@   for q = K - K % 16, 16, -16 do
@     if K % q == 0 and (4 * C + q) * G2P <= XRH then QR = q; break end
@   end
@   GL2 = new_layout()
@   GL2.alloc('A', C * G2P); GL2.alloc('B', C * G2P); GL2.alloc('K', C * G2P); GL2.alloc('KR', C * G2P); GL2.alloc('OUT', QR * G2P)
@   assert(GL2.off <= XRH, 'gsolve: D does not fit the solve layout')
@   -- sgrad
@   SL2 = new_layout()
@   alloc_scalars(SL2)
@   -- rows padded by 4 floats (SKP, SCP, SHP: the tf32 fragments' loads without bank conflicts; ncu had 77% of sgrad's
@   -- shared wavefronts excessive with rows of K and C floats); XS also holds (K, K / 2) halves of H0 and dH_L
@   SL2.alloc('KC', C * (K + 4)); SL2.alloc('XS', math.max(C * (K + 4), K * (K // 2 + 4))); SL2.alloc('GH', C * (K + 4))
@   SL2.alloc('Q', C * (K + 4)); SL2.alloc('M', C * (C + 4))
@   SL2.alloc('HB', C); SL2.alloc('HW', C); SL2.alloc('RR', C); SL2.alloc('DB', C); SL2.alloc('DW', C + 1); SL2.alloc('RED', 32)
@   -- sgrad90 (the solve's sm_90a forms): the keys (C, K) as loaded, then x's and g's bf16 hi and lo parts (C, K) each,
@   -- dH_L's and H0's (K, K) each over them once spent (in bf16 elements; the offsets in floats)
@   if P.FST.psolve90 then
@     SL9 = new_layout()
@     SL9.alloc('KT', C * K // 2); SL9.alloc('X', math.max(4 * C * K, 2 * K * K) // 2)
@     alloc_scalars(SL9)
@     SL9.alloc('HB', C); SL9.alloc('HW', C); SL9.alloc('RR', C); SL9.alloc('DB', C); SL9.alloc('DW', C + 1); SL9.alloc('RED', 32)
@     assert(SL9.off * 4 <= 113 * 1024, 'sgrad90: two blocks an SM')
@     -- gsolve90: H0's hi and lo parts (K, K) each, then D's operands over them (-g/2 and e^{hb} x, then the scaled
@     -- keys: hi and lo parts (C, K) each); the keys; XR: ps90_setup's scalars, then x's hi and lo parts (C, K) each
@     -- (the round's A operand), then cn, db, R and the steps (C each); hb, hw
@     GL9 = new_layout()
@     GL9.alloc('A', math.max(2 * K * K, 4 * C * K) // 2); GL9.alloc('KT', C * K // 2); GL9.alloc('XR', math.max(C * K, 7 * C + 32))
@     GL9.alloc('HB', C); GL9.alloc('HW', C)
@     assert(GL9.off * 4 <= 113 * 1024, 'gsolve90: two blocks an SM')
@   end
@   layout_enum('G2_', GL2)
@   layout_enum('SG_', SL2)
@   if SL9 then layout_enum('S9_', SL9); layout_enum('G9_', GL9) end
@   local kin_at = {}
@   for r, x in ipairs(kin) do kin_at[x.idx] = r - 1 end
@   -- the row (K floats) of token row tr of [K] input x's gradient (NULL: not wanted): the gradient itself with
@   -- one value head a q/k head, else this value head's part (breduce sums them)
@   local function kgrad_row(x, tr)
@     assert(x.heads == 'qk' and kin_at[x.idx], 'a solve reads q/k-head [K] vectors')
@     return string.format('(a.h_v == a.h_qk ? (g.din[%d] ? g.din[%d] + ((%s) * a.h_qk + it.hq) * KD : (float *)0) : w.bqk + ((%s) * a.h_v + it.h) * BW_QK + %d)',
@                          x.idx, x.idx, tr, tr, kin_at[x.idx] * K)
@   end
@   -- adds val to element kk of that row
@   local function add_kgrad(x, tr, kk, val)
  { float *kr_ = ${kgrad_row(x, tr)}; if (kr_) kr_[${kk}] += ${val}; }
@   end
#define QR ${QR}
#define G2P ${G2P} /* gsolve's row pitch of D's operands */
#define SHP (KD / 2 + 4) /* sgrad's row pitch of half rows */
static_assert(G2_TOTAL <= X_RH, "gsolve: D over the per-token scalars of the solve layout");
#define G2_CN X_LAM /* gsolve's per-token scalars, over the ones its Chebyshev steps are done with: cn_t, */
#define G2_DB X_RHO2 /* the log decay's direct term, R_t */
#define G2_RR X_OM
/* ---------------------------------------------------------------- stages bhdelta, bhscan */
/* H's recurrence alone, chunk-parallel as the forward's hdelta[90] and hscan: each chunk's D_c and decay into its slot
 * (BC_H0, the decay at BC_HLE until gsolve), then the chain over the chunks, each chunk-start H in place of D_c and
 * the final H into the backward's (a.state_out). */
#define BC_HD (BC_HLE - BC_H0)
extern "C" __global__ void __launch_bounds__(SNT, 1) ${P.name}_bhdelta(ssmc_fwd_args a, ssmc_bwd_args g, float *ws) {
  extern __shared__ float sm[];
  (void)g;
  const bws_t w = bws_of(a, ws);
  chunk_t ch;
  if (!chunk_of(a, ch)) return;
  hdelta_body(a, ch, sm, w.bchunk + ((long long)blockIdx.x * a.h_v + ch.it.h) * BW_CHUNK + BC_H0, BC_HD);
}
@ if P.FST.hdelta90 then
extern "C" __global__ void __launch_bounds__(128, 1) ${P.name}_bhdelta90(ssmc_fwd_args a, ssmc_bwd_args g, float *ws) {
#if SSMC_SM90
  extern __shared__ float sm[];
  (void)g;
  const bws_t w = bws_of(a, ws);
  chunk_t ch;
  if (!chunk_of(a, ch)) return;
  hdelta90_body(a, ch, sm, w.bchunk + ((long long)blockIdx.x * a.h_v + ch.it.h) * BW_CHUNK + BC_H0, BC_HD);
#endif
}
@ end
extern "C" __global__ void __launch_bounds__(${P.FST.hscan.threads}) ${P.name}_bhscan(ssmc_fwd_args a, ssmc_bwd_args g, float *ws) {
  (void)g;
  const bws_t w = bws_of(a, ws);
  const item_t it = item_of(a);
  hscan_body(a, it, w.bchunk + (slot0_of(a, it.n) * a.h_v + it.h) * BW_CHUNK + BC_H0, (long long)a.h_v * BW_CHUNK, BC_HD);
}

/* A kept forward (rt_fwd_plan: the backward's first stages, then the chunk stages after the solve) asking for x
 * (a.aux_out[0]: the backward's own calls never do): the chunk's x from the workspace there too, once the block
 * wrote it */
__device__ __forceinline__ void x_to_aux(const ssmc_fwd_args &a, const item_t &it, long long tok, int L, const float *xw) {
  if (!a.aux_out[0]) return;
  __syncthreads();
  for (int e = threadIdx.x; e < L * KD; e += blockDim.x) {
    const long long r = (tok + e / KD) * a.h_v + it.h;
    ((float *)a.aux_out[0])[r * KD + e % KD] = xw[r * WS_TOK + BW_WSX + e % KD];
  }
}

/* ---------------------------------------------------------------- stage xsolve */
/* x = CH_r(H_t + lambda_t I, b_t) of a chunk from its start H, all chunks at once (the forward's pieces). */
extern "C" __global__ void __launch_bounds__(SNT, 1) ${P.name}_xsolve(ssmc_fwd_args a, ssmc_bwd_args g, float *ws) {
  extern __shared__ float sm[];
  (void)g;
  const bws_t w = bws_of(a, ws);
  chunk_t ch;
  if (!chunk_of(a, ch)) return;
  float *hs = w.bchunk + ((long long)blockIdx.x * a.h_v + ch.it.h) * BW_CHUNK + BC_H0;
  solve_chunk(a, ch.it, ch.it.t0 + ch.c0, ch.L, sm, solve_load(sm, hs), w.ftok + BW_WSX, WS_TOK, hs);
  x_to_aux(a, ch.it, ch.it.t0 + ch.c0, ch.L, w.ftok);
}
@ if P.FST.psolve90 then
/* its sm_90a form (when=sm90): psolve90's body (cuda_kernel.cu.tpl) */
extern "C" __global__ void __launch_bounds__(128, 1) ${P.name}_xsolve90(ssmc_fwd_args a, ssmc_bwd_args g, float *ws) {
#if SSMC_SM90
  extern __shared__ float sm[];
  (void)g;
  const bws_t w = bws_of(a, ws);
  chunk_t ch;
  if (!chunk_of(a, ch)) return;
  const item_t &it = ch.it;
  psolve90_body(a, it, it.t0 + ch.c0, ch.L, sm, w.bchunk + ((long long)blockIdx.x * a.h_v + it.h) * BW_CHUNK + BC_H0,
                SOLVE_RHS(it.t0 + ch.c0), SOLVE_RRS, w.ftok + BW_WSX, WS_TOK);
  x_to_aux(a, it, it.t0 + ch.c0, ch.L, w.ftok);
#endif
}
@ end
@ local rx = P.inputs[sv.rhs + 1]

/* a chunk's solve layout from its start H at h0: H, the per-token coefficients and norms (gcheb's, gsolve's) */
__device__ __forceinline__ void solve_setup(const ssmc_fwd_args &a, const item_t &it, long long tok, int L, float *sm,
                                            const float *h0) {
  const float n2 = solve_load(sm, h0);
  solve_coefs(a, it, tok, L, sm);
  solve_norms(L, sm, n2);
}

/* ---------------------------------------------------------------- stage gcheb */
/* g = CH_r(H_t + lambda_t I, dx_t) (implicit differentiation: the forward's solver on dx), in place of dx (brows
 * leaves it at BT_DXG), all chunks at once from bhscan's chunk-start H. */
extern "C" __global__ void __launch_bounds__(SNT, 1) ${P.name}_gcheb(ssmc_fwd_args a, ssmc_bwd_args g, float *ws) {
  extern __shared__ float sm[];
  (void)g;
  const bws_t w = bws_of(a, ws);
  chunk_t ch;
  if (!chunk_of(a, ch)) return;
  const item_t &it = ch.it;
  const long long tok = it.t0 + ch.c0;
  float *hs = w.bchunk + ((long long)blockIdx.x * a.h_v + it.h) * BW_CHUNK + BC_H0;
  float *dxg = w.btok + (tok * a.h_v + it.h) * BW_TOK + BT_DXG;
  solve_setup(a, it, tok, ch.L, sm, hs);
  solve_steps(a, it, tok, ch.L, sm, (const float *)dxg, (long long)a.h_v * BW_TOK, w.btok + BT_DXG, BW_TOK, hs);
}
@ if P.FST.psolve90 then
/* its sm_90a form (when=sm90): psolve90's body on dx */
extern "C" __global__ void __launch_bounds__(128, 1) ${P.name}_gcheb90(ssmc_fwd_args a, ssmc_bwd_args g, float *ws) {
#if SSMC_SM90
  extern __shared__ float sm[];
  (void)g;
  const bws_t w = bws_of(a, ws);
  chunk_t ch;
  if (!chunk_of(a, ch)) return;
  const item_t &it = ch.it;
  const long long tok = it.t0 + ch.c0;
  psolve90_body(a, it, tok, ch.L, sm, w.bchunk + ((long long)blockIdx.x * a.h_v + it.h) * BW_CHUNK + BC_H0,
                (const float *)(w.btok + (tok * a.h_v + it.h) * BW_TOK + BT_DXG), (long long)a.h_v * BW_TOK, w.btok + BT_DXG, BW_TOK);
#endif
}
@ end

@ -- gsolve's per-token part (either form; after cn[t] and db[t] for every t < CH): R_t by its suffix sum, the
@ -- scalars to the workspace (sgrad's), the right-hand side's gradient += g, g masked (0 where x_t = b_t) for the rest
@ local function gsolve_tokens()
  if (threadIdx.x == 0) {
    float r = 0.0f;
    for (int t = CH - 1; t >= 0; t--) {
      r = cn[t] + (t + 1 < CH ? expf(2.0f * (hb[t + 1] - hb[t])) * r : 0.0f);
      rr[t] = r;
    }
    bc[BC_HLE] = hb[CH - 1];
  }
  __syncthreads();
  for (int t = threadIdx.x; t < L; t += NT) {
    float *sc = w.btok + ((tok + t) * a.h_v + it.h) * BW_TOK + BT_SC;
    sc[0] = rr[t]; sc[1] = db[t]; sc[2] = hb[t]; sc[3] = hw[t];
  }
  /* the right-hand side's gradient += g; g masked (0 where x_t = b_t) for the rest: four elements a thread at a time,
   * U of them loaded before any store (which may alias them, as far as the compiler knows) */
  constexpr int U = 4;
  for (int e0 = threadIdx.x; e0 < L * KD / 4; e0 += U * NT) {
    float4 gv[U], ov[U];
    float *orow[U];
#pragma unroll
    for (int i = 0; i < U; i++) {
      const int e = e0 + i * NT, t = e / (KD / 4), k = (e - t * (KD / 4)) * 4;
      orow[i] = e < L * KD / 4 ? ${kgrad_row(rx, 'tok + t')} : (float *)0;
      if (e < L * KD / 4) gv[i] = *(const float4 *)(dxg + t * gs + k);
      if (orow[i]) ov[i] = *(const float4 *)(orow[i] + k);
    }
#pragma unroll
    for (int i = 0; i < U; i++) {
      const int e = e0 + i * NT, t = e / (KD / 4), k = (e - t * (KD / 4)) * 4;
      if (e >= L * KD / 4) break;
      if (orow[i]) *(float4 *)(orow[i] + k) = make_float4(ov[i].x + gv[i].x, ov[i].y + gv[i].y, ov[i].z + gv[i].z, ov[i].w + gv[i].w);
      if (!(step[t] > 0.0f)) *(float4 *)(dxg + t * gs + k) = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
  }
  __syncthreads();
@ end
/* ---------------------------------------------------------------- stage gsolve */
/* With g from gcheb: the right-hand side's gradient += g; with g masked to the tokens whose x depends on H
 * (||H_t|| or lambda_t > 0): cn_t = a dlambda_t / ||H_t||_F (dlambda_t = -g.x), the log decay's direct term
 * -g.H_t x_t + cn_t ||H_t||^2, R_t = sum_{s>=t} cn_s e^{2(hb_s - hb_t)}; the chunk's local adjoint of its start H
 * D = e^{2 hb_0} R_0 H0 - (g' e^{hb} x + (e^{hb} x)' g)/2 + k' diag(hw e^{hb} R) k. */
extern "C" __global__ void __launch_bounds__(SNT, 1) ${P.name}_gsolve(ssmc_fwd_args a, ssmc_bwd_args g, float *ws) {
  constexpr int NT = SNT;
  extern __shared__ float sm[];
  const bws_t w = bws_of(a, ws);
  chunk_t ch;
  if (!chunk_of(a, ch)) return;
  const item_t it = ch.it;
  const int L = ch.L;
  const long long tok = it.t0 + ch.c0, cs = (long long)blockIdx.x * a.h_v + it.h;
  float *bc = w.bchunk + cs * BW_CHUNK;
  const float *hb = sm + X_HB, *hw = sm + X_HW, *nrm = sm + X_NRM, *step = sm + X_STEP;
  float *cn = sm + G2_CN, *db = sm + G2_DB, *rr = sm + G2_RR;
  solve_setup(a, it, tok, L, sm, bc + BC_H0);
  float *dxg = w.btok + (tok * a.h_v + it.h) * BW_TOK + BT_DXG; /* g (rows t * a.h_v * BW_TOK) */
  const long long gs = (long long)a.h_v * BW_TOK, xs = (long long)a.h_v * WS_TOK;
  const float *xw = w.ftok + (tok * a.h_v + it.h) * WS_TOK + BW_WSX;
  /* per token (a warp each, GS at a time): g.x and g.H_t x_t */
  for (int t = threadIdx.x; t < CH; t += NT) { cn[t] = 0.0f; db[t] = 0.0f; }
  {
    float *xg = sm + X_XB, *pg = xg + ${GS} * SKP, *gg = pg + ${GS} * SKP; /* pitch SKP */
    for (int g0 = 0; g0 < L; g0 += ${GS}) {
      const int Lg = L - g0 < ${GS} ? L - g0 : ${GS};
      tile_in<NT, ${GS}, KD>(xg, SKP, xw + g0 * xs, xs, Lg, one_t(), false);
      tile_in<NT, ${GS}, KD>(gg, SKP, dxg + g0 * gs, gs, Lg, one_t(), false);
      solve_mask(g0, L, sm);
      solve_hx(sm, xg, pg);
      for (int t = threadIdx.x >> 5; t < Lg; t += NT / 32) {
        float gx = 0.0f, ghx = 0.0f;
        for (int k = threadIdx.x & 31; k < KD; k += 32) {
          gx += gg[t * SKP + k] * xg[t * SKP + k];
          ghx += gg[t * SKP + k] * pg[t * SKP + k];
        }
        gx = warp_sum(gx);
        ghx = warp_sum(ghx);
        if ((threadIdx.x & 31) == 0) {
          const int tc = g0 + t;
          const bool live = step[tc] > 0.0f; /* else x_t = b_t: no dependence on H */
          const float c = live && nrm[tc] > 0.0f ? ${f32(sv.lam_a)} * -gx / nrm[tc] : 0.0f;
          cn[tc] = c;
          db[tc] = live ? -ghx + c * nrm[tc] * nrm[tc] : 0.0f;
        }
      }
      __syncthreads();
    }
  }
@ gsolve_tokens()
  /* D, QR rows at a time, over the solve layout's buffers (only the per-token scalars stay) */
  float *ga = sm + G2_A, *gb = sm + G2_B, *kk = sm + G2_K, *kr = sm + G2_KR, *out = sm + G2_OUT;
  tile_in<NT, CH, KD>(ga, G2P, (const float *)dxg, gs, L, [&](int) { return -0.5f; }, false);
  tile_in<NT, CH, KD>(gb, G2P, xw, xs, L, [&](int t_) { return expf(hb[t_]); }, false);
@   load_k(P.inputs[sv.key + 1], 'kk', 'G2P', '0', 'KD')
@   load_k(P.inputs[sv.key + 1], 'kr', 'G2P', '0', 'KD', 'hw[t_] * expf(hb[t_]) * rr[t_]')
  __syncthreads();
  const float c0 = expf(2.0f * hb[0]) * rr[0];
  for (int i0 = 0; i0 < KD; i0 += QR) {
    mmb<G2P, 1, G2P, G2P, 1>(out, ga + i0, gb, QR, KD, CH, false);
    mmb<G2P, 1, G2P, G2P, 1>(out, gb + i0, ga, QR, KD, CH, true);
    mmb<G2P, 1, G2P, G2P, 1, false, ${SKX}>(out, kr + i0, kk, QR, KD, CH, true);
    for (int e = threadIdx.x; e < QR * KD; e += NT)
      bc[BC_DH + i0 * KD + e] = c0 * bc[BC_H0 + i0 * KD + e] + out[(e / KD) * G2P + e % KD];
    __syncthreads();
  }
}

@ if GL9 then
/* its sm_90a form (when=sm90, beside psolve90): one warpgroup a chunk on wgmma, two blocks an SM. psolve90's setup
 * (ps90_setup: the keys, H0's parts, the norms), then one of its rounds on the forward's x: H_t x_t = e^{hb_t} x H0 +
 * (x K' masked) K, x's bf16 hi + lo parts in shared memory (in registers, as psolve90 keeps its iterate, ptxas spilled
 * here); g.x and g.H_t x_t from the accumulators' rows (four lanes a row). D from -g/2 and e^{hb} x as hi + lo parts
 * (MN-major, k = t) over H0's, then the keys scaled by hw e^{hb} R over them: D's lower (64, 64) blocks in the
 * accumulators throughout, each written to both halves. */
extern "C" __global__ void __launch_bounds__(128, 2) ${P.name}_gsolve90(ssmc_fwd_args a, ssmc_bwd_args g, float *ws) {
#if SSMC_SM90
  constexpr int NT = 128;
  extern __shared__ float sm[];
  const bws_t w = bws_of(a, ws);
  chunk_t ch;
  if (!chunk_of(a, ch)) return;
  const item_t it = ch.it;
  const int L = ch.L;
  const long long tok = it.t0 + ch.c0, cs = (long long)blockIdx.x * a.h_v + it.h;
  float *bc = w.bchunk + cs * BW_CHUNK;
  unsigned short *hh = (unsigned short *)(sm + G9_A), *hl = hh + KD * KD, *kt = (unsigned short *)(sm + G9_KT);
  unsigned short *xh = (unsigned short *)(sm + G9_XR), *xl = xh + CH * KD;
  float *hb = sm + G9_HB, *hw = sm + G9_HW, *cn = sm + G9_XR, *db = cn + CH, *rr = db + CH, *step = rr + CH;
  ps90_setup(a, it, tok, L, bc + BC_H0, hh, hl, kt, hb, hw, sm + G9_XR);
  __syncthreads();
  float *dxg = w.btok + (tok * a.h_v + it.h) * BW_TOK + BT_DXG; /* g (rows t * a.h_v * BW_TOK) */
  const long long gs = (long long)a.h_v * BW_TOK, xs = (long long)a.h_v * WS_TOK;
  const float *xw = w.ftok + (tok * a.h_v + it.h) * WS_TOK + BW_WSX;
  const int wi = threadIdx.x >> 5, lane = threadIdx.x & 31, q = lane & 3, r0 = 16 * wi + (lane >> 2);
  float stp[2], nr[2]; /* the rows' steps and norms (ps90_setup's), x's parts over them */
#pragma unroll
  for (int i = 0; i < 2; i++) {
    stp[i] = r0 + 8 * i < L ? sm[G9_XR + CH + r0 + 8 * i] : 0.0f;
    nr[i] = r0 + 8 * i < L ? sm[G9_XR + 5 * CH + r0 + 8 * i] : 0.0f;
  }
  __syncthreads();
  ps_split<NT>(xh, xl, xw, xs, CH, L);
  fence_async_smem();
  __syncthreads();
  const unsigned long long dka = wg16_desc(kt, 8 * KD, 64), dkm = wg16_desc(kt, 64, 8 * KD);
  const unsigned km = (unsigned)dkm, kmh = (unsigned)(dkm >> 32);
  {
    /* S = x K' and P = x H0, x from shared memory (in registers, as psolve90 keeps it, ptxas spilled) */
    float p[KD / 2], sc[CH / 2];
#pragma unroll
    for (int e = 0; e < KD / 2; e++) p[e] = 0.0f;
#pragma unroll
    for (int e = 0; e < CH / 2; e++) sc[e] = 0.0f;
    const unsigned long long dxh = wg16_desc(xh, 8 * KD, 64), dxl = wg16_desc(xl, 8 * KD, 64);
    const unsigned long long dhh = wg16_desc(hh, 8 * KD, 64), dhl = wg16_desc(hl, 8 * KD, 64);
    wg_fence();
    wg16_issue<CH, KD / 16, 0, 0, 16, 16>(sc, dxh, dka);
    wg16_issue<CH, KD / 16, 0, 0, 16, 16>(sc, dxl, dka);
    wg16_issue<KD, KD / 16, 0, 0, 16, 16>(p, dxh, dhh);
    wg16_issue<KD, KD / 16, 0, 0, 16, 16>(p, dxh, dhl);
    wg16_issue<KD, KD / 16, 0, 0, 16, 16>(p, dxl, dhh);
    wg_commit();
    wg_wait0();
    /* the scores masked, e^{hb_t - hb_s} hw_s (s <= t), as the A pairs of P += S K; P's rows times e^{hb_t} first */
    unsigned sh[CH / 4], sl[CH / 4];
#pragma unroll
    for (int j = 0; j < CH / 8; j++)
#pragma unroll
      for (int i = 0; i < 2; i++) {
        const int t = r0 + 8 * i, c = 8 * j + 2 * q;
        const float m0 = c > t ? 0.0f : expf(hb[t] - hb[c]) * hw[c], m1 = c + 1 > t ? 0.0f : expf(hb[t] - hb[c + 1]) * hw[c + 1];
        hl_pair(sc[4 * j + 2 * i] * m0, sc[4 * j + 2 * i + 1] * m1, sh[2 * j + i], sl[2 * j + i]);
      }
    const float eb[2] = {expf(hb[r0]), expf(hb[r0 + 8])};
#pragma unroll
    for (int e = 0; e < KD / 2; e++) p[e] *= eb[(e >> 1) & 1];
    wg_fence();
#pragma unroll
    for (int k = 0; k < CH / 16; k++) {
      wg_mma16r<KD, 1>(p, sh + 4 * k, km + 2 * KD * k, kmh);
      wg_mma16r<KD, 1>(p, sl + 4 * k, km + 2 * KD * k, kmh);
    }
    wg_commit();
    wg_wait0();
    /* g.x and g.H_t x_t (x as given), then the row's four lanes */
    float gx[2] = {0.0f, 0.0f}, ghx[2] = {0.0f, 0.0f};
#pragma unroll
    for (int j = 0; j < KD / 8; j++)
#pragma unroll
      for (int i = 0; i < 2; i++) {
        const int t = r0 + 8 * i;
        if (t >= L) continue;
        const float2 gv = ld_pair(dxg + t * gs + 8 * j + 2 * q), xv = ld_pair(xw + t * xs + 8 * j + 2 * q);
        gx[i] += gv.x * xv.x + gv.y * xv.y;
        ghx[i] += gv.x * p[4 * j + 2 * i] + gv.y * p[4 * j + 2 * i + 1];
      }
    __syncthreads(); /* every warp's products done with x's parts: cn, db, R and the steps over them */
#pragma unroll
    for (int i = 0; i < 2; i++) {
      float u = gx[i], v = ghx[i];
      u += __shfl_xor_sync(0xffffffffu, u, 1);
      u += __shfl_xor_sync(0xffffffffu, u, 2);
      v += __shfl_xor_sync(0xffffffffu, v, 1);
      v += __shfl_xor_sync(0xffffffffu, v, 2);
      const int t = r0 + 8 * i;
      if (q == 0) {
        const bool live = stp[i] > 0.0f; /* else x_t = b_t: no dependence on H (rows past L: 0) */
        const float c = live && nr[i] > 0.0f ? ${f32(sv.lam_a)} * -u / nr[i] : 0.0f;
        cn[t] = c;
        db[t] = live ? -v + c * nr[i] * nr[i] : 0.0f;
        step[t] = stp[i];
      }
    }
  }
  __syncthreads();
@ gsolve_tokens()
  /* D = e^{2 hb_0} R_0 H0 - (g' e^{hb} x + (e^{hb} x)' g) / 2 + k' diag(hw e^{hb} R) k: the operands (rows t) */
  unsigned short *ah = hh, *al = ah + CH * KD, *bh = al + CH * KD, *bl = bh + CH * KD;
  ps_split<NT>(ah, al, dxg, gs, CH, L, [](int) { return -0.5f; });
  ps_split<NT>(bh, bl, xw, xs, CH, L, [&](int t) { return expf(hb[t]); });
  fence_async_smem();
  __syncthreads();
  /* D is symmetric: its lower (64, 64) blocks (mi, ni <= mi) in the accumulators, written to both halves */
  constexpr int MH = KD / 64, NQ = MH * (MH + 1) / 2;
  float d[NQ][32];
#pragma unroll
  for (int b = 0; b < NQ; b++)
#pragma unroll
    for (int e = 0; e < 32; e++) d[b][e] = 0.0f;
  {
    const unsigned long long dbh = wg16_desc(bh, 64, 8 * KD), dbl = wg16_desc(bl, 64, 8 * KD);
    const unsigned long long dah = wg16_desc(ah, 64, 8 * KD), dal = wg16_desc(al, 64, 8 * KD);
    wg_fence();
#pragma unroll
    for (int mi = 0; mi < MH; mi++)
#pragma unroll
      for (int ni = 0; ni <= mi; ni++) {
        const int b = mi * (mi + 1) / 2 + ni;
        const unsigned long long om = 64 * mi, on = 64 * ni; /* 64 rows or columns on: 512 bf16 elements */
        wg16_issue<64, CH / 16, 1, 1, 2 * KD, 2 * KD>(d[b], dah + om, dbh + on);
        wg16_issue<64, CH / 16, 1, 1, 2 * KD, 2 * KD>(d[b], dah + om, dbl + on);
        wg16_issue<64, CH / 16, 1, 1, 2 * KD, 2 * KD>(d[b], dal + om, dbh + on);
        wg16_issue<64, CH / 16, 1, 1, 2 * KD, 2 * KD>(d[b], dbh + om, dah + on);
        wg16_issue<64, CH / 16, 1, 1, 2 * KD, 2 * KD>(d[b], dbh + om, dal + on);
        wg16_issue<64, CH / 16, 1, 1, 2 * KD, 2 * KD>(d[b], dbl + om, dah + on);
      }
    wg_commit();
    wg_wait0();
  }
  __syncthreads(); /* every warp's products done with them: the scaled keys' parts over -g/2's */
  ps_scale_keys<NT>(kt, ah, al, [&](int t) { return t < L ? hw[t] * expf(hb[t]) * rr[t] : 0.0f; });
  fence_async_smem();
  __syncthreads();
  {
    const unsigned long long dah = wg16_desc(ah, 64, 8 * KD), dal = wg16_desc(al, 64, 8 * KD);
    wg_fence();
#pragma unroll
    for (int mi = 0; mi < MH; mi++)
#pragma unroll
      for (int ni = 0; ni <= mi; ni++) {
        const int b = mi * (mi + 1) / 2 + ni;
        const unsigned long long om = 64 * mi, on = 64 * ni;
        wg16_issue<64, CH / 16, 1, 1, 2 * KD, 2 * KD>(d[b], dah + om, dkm + on);
        wg16_issue<64, CH / 16, 1, 1, 2 * KD, 2 * KD>(d[b], dal + om, dkm + on);
      }
    wg_commit();
    wg_wait0();
  }
  /* + c0 H0, each block's H0 loaded before its stores; an off-diagonal block also to its mirror */
  const float c0 = expf(2.0f * hb[0]) * rr[0];
#pragma unroll
  for (int mi = 0; mi < MH; mi++)
#pragma unroll
    for (int ni = 0; ni <= mi; ni++) {
      const int b = mi * (mi + 1) / 2 + ni;
#pragma unroll
      for (int u = 0; u < 2; u++) {
        const int i = 64 * mi + r0 + 8 * u;
        float2 h[8], m[8];
#pragma unroll
        for (int j = 0; j < 8; j++) {
          const int c = 64 * ni + 8 * j + 2 * q;
          h[j] = *(const float2 *)(bc + BC_H0 + i * KD + c);
          if (ni < mi) m[j] = make_float2(bc[BC_H0 + c * KD + i], bc[BC_H0 + (c + 1) * KD + i]);
        }
#pragma unroll
        for (int j = 0; j < 8; j++) {
          const int c = 64 * ni + 8 * j + 2 * q;
          const float v0 = d[b][4 * j + 2 * u], v1 = d[b][4 * j + 2 * u + 1];
          *(float2 *)(bc + BC_DH + i * KD + c) = make_float2(c0 * h[j].x + v0, c0 * h[j].y + v1);
          if (ni < mi) {
            bc[BC_DH + c * KD + i] = c0 * m[j].x + v0;
            bc[BC_DH + (c + 1) * KD + i] = c0 * m[j].y + v1;
          }
        }
      }
    }
#endif
}
@ end

/* ---------------------------------------------------------------- stage hadj */
/* The solve's only sequential pass, last chunk to first, as an elementwise chain (bhscan's, reversed; items x
 * elements, four elements a thread, the loads 8 chunks ahead): dH from the final H's adjoint; per chunk dH_L (the
 * chunk-end adjoint) in place of D, then dH <- e^{hb_L} dH_L + D. D and so dH are symmetric (gsolve's sym(), the
 * packed adjoint's halves): the initial state's packed gradient takes the lower element twice. */
extern "C" __global__ void __launch_bounds__(${P.FST.hscan.threads}) ${P.name}_hadj(ssmc_fwd_args a, ssmc_bwd_args g, float *ws) {
  constexpr int NT = ${P.FST.hscan.threads};
  const bws_t w = bws_of(a, ws);
  const item_t it = item_of(a);
  const long long slot = it.n * a.h_v + it.h, cs = (long long)a.h_v * BW_CHUNK, nc = (it.T + CH - 1) / CH;
  float *b0 = w.bchunk + (slot0_of(a, it.n) * a.h_v + it.h) * BW_CHUNK;
  const float *dho = g.dstate_out[${sv.state}];
  float *dhi = g.dstate_in[${sv.state}];
  for (int e = (it.vt * NT + (int)threadIdx.x) * 4; e < KD * KD; e += (int)gridDim.y * NT * 4) {
    float z[4];
#pragma unroll
    for (int i = 0; i < 4; i++) { /* a packed off-diagonal element stands for (i,j) and (j,i) */
      const int r = (e + i) / KD, c = (e + i) % KD, pr = r > c ? r : c, pc = r > c ? c : r;
      const float p = dho ? dho[slot * ${NPK} + pr * (pr + 1) / 2 + pc] : 0.0f;
      z[i] = r == c ? p : 0.5f * p;
    }
    for (long long c0 = nc - 1; c0 >= 0; c0 -= 8) {
      float4 d[8];
      float el[8];
#pragma unroll
      for (int i = 0; i < 8; i++)
        if (c0 - i >= 0) {
          d[i] = __ldcs((const float4 *)(b0 + (c0 - i) * cs + BC_DH + e));
          el[i] = expf(b0[(c0 - i) * cs + BC_HLE]);
        }
#pragma unroll
      for (int i = 0; i < 8; i++)
        if (c0 - i >= 0) {
          *(float4 *)(b0 + (c0 - i) * cs + BC_DH + e) = make_float4(z[0], z[1], z[2], z[3]);
          z[0] = el[i] * z[0] + d[i].x; z[1] = el[i] * z[1] + d[i].y; z[2] = el[i] * z[2] + d[i].z; z[3] = el[i] * z[3] + d[i].w;
        }
    }
    if (dhi)
#pragma unroll
      for (int i = 0; i < 4; i++) {
        const int r = (e + i) / KD, c = (e + i) % KD;
        if (r >= c) dhi[slot * ${NPK} + r * (r + 1) / 2 + c] = r == c ? z[i] : 2.0f * z[i];
      }
  }
}

@ -- sgrad's per-token scalars from gsolve's (either form): R_t, the log decay's direct term, hb, hw
@ local function sgrad_scalars()
  for (int t = threadIdx.x; t < CH; t += NT) { /* rows past L: the chunk's last hb, nothing else */
    const float *sc = w.btok + ((tok + (t < L ? t : L - 1)) * a.h_v + it.h) * BW_TOK + BT_SC;
    rr[t] = t < L ? sc[0] : 0.0f;
    db[t] = t < L ? sc[1] : 0.0f;
    hb[t] = sc[2];
    hw[t] = t < L ? sc[3] : 0.0f;
  }
@ end
@ -- sgrad's last part (either form; after dw[t] and db[t] per token): <dH_L, H_L> into dw[CH], then the scalars of
@ -- H's write and log decay, summed from the chunk end, added to brows's gradients
@ local function sgrad_tail(pre)
  { /* <dH_L, H_L>: H_L the next chunk's start H, or the sequence's final H (packed) */
    const bool last = ch.c0 + CH >= it.T;
    const float *hn = bc + (long long)a.h_v * BW_CHUNK + BC_H0, *hf = a.state_out[${sv.state}] + (it.n * a.h_v + it.h) * ${NPK};
    float s = 0.0f;
    if (!last) {
      /* eight pieces' loads in flight (one at a time, each waited for, this had been a quarter of sgrad90's time:
       * H200 ncu, the gpu-h200-s33 record) */
#pragma unroll 8
      for (int e = threadIdx.x * 4; e < KD * KD; e += NT * 4) {
        const float4 d = *(const float4 *)(bc + BC_DH + e), h = *(const float4 *)(hn + e);
        s += d.x * h.x + d.y * h.y + d.z * h.z + d.w * h.w;
      }
    } else
      for (int e = threadIdx.x * 4; e < KD * KD; e += NT * 4) {
        const float4 d = *(const float4 *)(bc + BC_DH + e);
        float hv[4];
        for (int u = 0; u < 4; u++) {
          const int i = (e + u) / KD, j = (e + u) % KD, r = i > j ? i : j, q = i > j ? j : i;
          hv[u] = hf[r * (r + 1) / 2 + q];
        }
        s += d.x * hv[0] + d.y * hv[1] + d.z * hv[2] + d.w * hv[3];
      }
    s = block_sum(s, sm + ${pre}RED, NT);
    if (threadIdx.x == 0) dw[CH] = s; /* past the tokens' */
  }
  if (threadIdx.x == 0) { /* the log decay's direct terms summed from the chunk end (in double), in place */
    double acc = dw[CH];
    for (int t_ = L - 1; t_ >= 0; t_--) {
      acc += db[t_];
      db[t_] = (float)acc;
    }
  }
  __syncthreads();
  for (int t_ = threadIdx.x; t_ < L; t_ += NT) { /* the scalars of H's write and log decay, added to brows's */
    {
      const float acc = db[t_];
      (void)acc;
@   for _, x in ipairs(scalars) do
@     local terms = {}
@     for _, dd in ipairs(sv.dlog) do if dd.idx == x.idx then terms[#terms + 1] = 'acc * ' .. dd.d end end
@     for _, dd in ipairs(sv.dwrite) do if dd.idx == x.idx then terms[#terms + 1] = 'dw[t_] * ' .. dd.d end end
@     if #terms > 0 then
      if (g.din[${x.idx}]) g.din[${x.idx}][(tok + t_) * a.h_v + it.h] += ${table.concat(terms, ' + ')}; /* ${x.name} */
@     end
@   end
    }
  }
@ end
/* ---------------------------------------------------------------- stage sgrad */
/* With R_t, cn_t from gsolve and dH_L from hadj, the adjoint of H times k_t (cpu_bwd.c.tpl, bw_solve):
 *   Q_t = e^{hb_L - hb_t} dH_L k_t + e^{hb_t} R_t H0 k_t - 1/2 sum_{s>=t} e^{hb_s - hb_t} (g_s (x_s.k_t) + x_s (g_s.k_t))
 *       + sum_j R_m e^{-|hb_j - hb_t|} hw_j (k_j.k_t) k_j   (m = max(t, j));
 * dk += 2 hw_t Q_t, dhw_t = k_t.Q_t, d/dhb_t = (the direct term) - hw_t dhw_t, summed from the chunk end with
 * <dH_L, H_L>; added to brows's gradients of the scalars. */
extern "C" __global__ void __launch_bounds__(SNT, 1) ${P.name}_sgrad(ssmc_fwd_args a, ssmc_bwd_args g, float *ws) {
  constexpr int NT = SNT;
  extern __shared__ float sm[];
  const bws_t w = bws_of(a, ws);
  chunk_t ch;
  if (!chunk_of(a, ch)) return;
  const item_t it = ch.it;
  const int L = ch.L;
  const long long tok = it.t0 + ch.c0, cs = (long long)blockIdx.x * a.h_v + it.h;
  const float *bc = w.bchunk + cs * BW_CHUNK;
  float *kc = sm + SG_KC, *xs = sm + SG_XS, *gh = sm + SG_GH, *qv = sm + SG_Q, *mt = sm + SG_M;
  float *hb = sm + SG_HB, *hw = sm + SG_HW, *rr = sm + SG_RR, *db = sm + SG_DB, *dw = sm + SG_DW;
@   load_scalars('SG_')
@   load_k(P.inputs[sv.key + 1], 'kc', 'SKP', '0', 'KD')
  const long long gs = (long long)a.h_v * BW_TOK, xrs = (long long)a.h_v * WS_TOK;
  tile_in<NT, CH, KD>(xs, SKP, w.ftok + (tok * a.h_v + it.h) * WS_TOK + BW_WSX, xrs, L, one_t(), false);
  tile_in<NT, CH, KD>(gh, SKP, w.btok + (tok * a.h_v + it.h) * BW_TOK + BT_DXG, gs, L, one_t(), false);
@ sgrad_scalars()
  __syncthreads();
  const float hle = hb[CH - 1];
  /* the rank-2 terms of the later tokens: M = (x K') masked, Q = M' g; M = (g K') masked, Q += M' x */
  for (int pass = 0; pass < 2; pass++) {
    mmb<SCP, SKP, 1, 1, SKP, false, ${SKX}>(mt, pass ? gh : xs, kc, CH, CH, KD, false);
    for (int e = threadIdx.x; e < CH * CH; e += NT) {
      const int t = e / CH, s = e - t * CH;
      mt[t * SCP + s] *= (s <= t && t < L) ? -0.5f * expf(hb[t] - hb[s]) : 0.0f;
    }
    __syncthreads();
    mmb<SKP, 1, SCP, SKP, 1>(qv, mt, pass ? xs : gh, CH, KD, CH, pass > 0);
  }
  /* the cn_s H_s terms through the chunk's keys */
  mmb<SCP, SKP, 1, 1, SKP, ${SKX}, ${SKX}>(mt, kc, kc, CH, CH, KD, false);
  for (int e = threadIdx.x; e < CH * CH; e += NT) {
    const int t = e / CH, j = e - t * CH;
    mt[t * SCP + j] *= hw[j] * (j < t ? rr[t] : rr[j]) * expf(-fabsf(hb[j] - hb[t]));
  }
  __syncthreads();
  mmb<SKP, SCP, 1, SKP, 1, false, ${SKX}>(qv, mt, kc, CH, KD, CH, true);
  /* the chunk-end adjoint and H0, half the columns at a time (over xs and gh, spent) */
  for (int half = 0; half < 2; half++)
    for (int which = 0; which < 2; which++) {
      tile_in<NT, KD, KD / 2>(xs, SHP, bc + (which ? BC_H0 : BC_DH) + half * (KD / 2), KD, KD, one_t(), false);
      __syncthreads();
      mmb<SHP, SKP, 1, SHP, 1, ${SKX}>(gh, kc, xs, CH, KD / 2, KD, false);
      for (int e = threadIdx.x; e < CH * (KD / 2); e += NT) {
        const int t = e / (KD / 2), j = e - t * (KD / 2);
        qv[t * SKP + half * (KD / 2) + j] += (which ? expf(hb[t]) * rr[t] : expf(hle - hb[t])) * gh[t * SHP + j];
      }
      __syncthreads();
    }
  /* dk += 2 hw Q; dhw = k.Q; the log decay's per-token term (a warp per token) */
  for (int t = threadIdx.x >> 5; t < L; t += NT / 32) {
    float s = 0.0f;
    for (int k = threadIdx.x & 31; k < KD; k += 32) {
      const float q = qv[t * SKP + k];
      s += kc[t * SKP + k] * q;
@   add_kgrad(P.inputs[sv.key + 1], 'tok + t', 'k', '2.0f * hw[t] * q')
    }
    s = warp_sum(s);
    if ((threadIdx.x & 31) == 0) { dw[t] = s; db[t] -= hw[t] * s; }
  }
  __syncthreads();
@ sgrad_tail('SG_')
}
@ if SL9 then
/* its sm_90a form (when=sm90, beside psolve90): every product on wgmma m64nNk16 bf16, one warpgroup a chunk, two blocks
 * an SM. x and g as bf16 hi + lo parts, the keys exact (K-major rows t; MN-major, k = t). The score tiles from the
 * accumulators (rows t, warp w's 16), masked, as the register operand A of their products: M'(t, s) = k_t.x_s and
 * k_t.g_s (-1/2 e^{hb_s - hb_t}, t <= s < L) times g_s and x_s, the keys' coefficients k_t.k_j times k_j. Then K dH_L
 * and K H0 (symmetric: their rows are B's K-major rows), each split over x's and g's parts, spent. Q stays in the
 * accumulators to the end. */
extern "C" __global__ void __launch_bounds__(128, 2) ${P.name}_sgrad90(ssmc_fwd_args a, ssmc_bwd_args g, float *ws) {
#if SSMC_SM90
  constexpr int NT = 128;
  extern __shared__ float sm[];
  const bws_t w = bws_of(a, ws);
  chunk_t ch;
  if (!chunk_of(a, ch)) return;
  const item_t it = ch.it;
  const int L = ch.L;
  const long long tok = it.t0 + ch.c0, cs = (long long)blockIdx.x * a.h_v + it.h;
  const float *bc = w.bchunk + cs * BW_CHUNK;
  unsigned short *kt = (unsigned short *)(sm + S9_KT), *xh = (unsigned short *)(sm + S9_X), *xl = xh + CH * KD;
  unsigned short *gh = xl + CH * KD, *gl = gh + CH * KD, *hh = xh, *hl = xh + KD * KD; /* (K, K) parts over x and g */
  float *hb = sm + S9_HB, *hw = sm + S9_HW, *rr = sm + S9_RR, *db = sm + S9_DB, *dw = sm + S9_DW;
@   load_scalars('S9_')
  ps_keys(a, it, tok, L, kt);
  ps_split<NT>(xh, xl, w.ftok + (tok * a.h_v + it.h) * WS_TOK + BW_WSX, (long long)a.h_v * WS_TOK, CH, L);
  ps_split<NT>(gh, gl, w.btok + (tok * a.h_v + it.h) * BW_TOK + BT_DXG, (long long)a.h_v * BW_TOK, CH, L);
@ sgrad_scalars()
  cp_async_wait<0>();
  fence_async_smem();
  __syncthreads();
  const float hle = hb[CH - 1];
  const int lane = threadIdx.x & 31, q = lane & 3, r0 = 16 * (threadIdx.x >> 5) + (lane >> 2);
  /* K-major descriptors (rows t or s; one high half) and MN-major ones (k = s: B of the score tiles' products) as
   * their low halves, the MN-major high half */
  const unsigned long long dka = wg16_desc(kt, 8 * KD, 64), dkm = wg16_desc(kt, 64, 8 * KD);
  const unsigned mh = (unsigned)(dkm >> 32), km = (unsigned)dkm;
  const unsigned xm = (unsigned)wg16_desc(xh, 64, 8 * KD), xlm = (unsigned)wg16_desc(xl, 64, 8 * KD);
  const unsigned gm = (unsigned)wg16_desc(gh, 64, 8 * KD), glm = (unsigned)wg16_desc(gl, 64, 8 * KD);
  float qv[KD / 2];
#pragma unroll
  for (int e = 0; e < KD / 2; e++) qv[e] = 0.0f;
  {
    float m1[CH / 2], m2[CH / 2], m3[CH / 2];
#pragma unroll
    for (int e = 0; e < CH / 2; e++) m1[e] = m2[e] = m3[e] = 0.0f;
    wg_fence();
    wg16_issue<CH, KD / 16, 0, 0, 16, 16>(m1, dka, wg16_desc(xh, 8 * KD, 64));
    wg16_issue<CH, KD / 16, 0, 0, 16, 16>(m1, dka, wg16_desc(xl, 8 * KD, 64));
    wg16_issue<CH, KD / 16, 0, 0, 16, 16>(m2, dka, wg16_desc(gh, 8 * KD, 64));
    wg16_issue<CH, KD / 16, 0, 0, 16, 16>(m2, dka, wg16_desc(gl, 8 * KD, 64));
    wg16_issue<CH, KD / 16, 0, 0, 16, 16>(m3, dka, dka);
    wg_commit();
    wg_wait0();
    /* masked into hi + lo pairs (pair 2 j + i: the accumulators 4 j + 2 i, + 1) */
    unsigned ah[3][CH / 4], al[3][CH / 4];
#pragma unroll
    for (int j = 0; j < CH / 8; j++)
#pragma unroll
      for (int i = 0; i < 2; i++) {
        const int t = r0 + 8 * i, e = 4 * j + 2 * i, pi = 2 * j + i;
        float f[2], c[2];
#pragma unroll
        for (int u = 0; u < 2; u++) {
          const int s = 8 * j + 2 * q + u;
          f[u] = t <= s && s < L ? -0.5f * expf(hb[s] - hb[t]) : 0.0f;
          c[u] = hw[s] * (s < t ? rr[t] : rr[s]) * expf(-fabsf(hb[s] - hb[t]));
        }
        hl_pair(m1[e] * f[0], m1[e + 1] * f[1], ah[0][pi], al[0][pi]);
        hl_pair(m2[e] * f[0], m2[e + 1] * f[1], ah[1][pi], al[1][pi]);
        hl_pair(m3[e] * c[0], m3[e + 1] * c[1], ah[2][pi], al[2][pi]);
      }
    /* Q = M1' g + M2' x + (the keys' coefficients) K */
    wg_fence();
#pragma unroll
    for (int k = 0; k < CH / 16; k++) {
      wg_mma16r<KD, 1>(qv, ah[0] + 4 * k, gm + 2 * KD * k, mh);
      wg_mma16r<KD, 1>(qv, ah[0] + 4 * k, glm + 2 * KD * k, mh);
      wg_mma16r<KD, 1>(qv, al[0] + 4 * k, gm + 2 * KD * k, mh);
      wg_mma16r<KD, 1>(qv, ah[1] + 4 * k, xm + 2 * KD * k, mh);
      wg_mma16r<KD, 1>(qv, ah[1] + 4 * k, xlm + 2 * KD * k, mh);
      wg_mma16r<KD, 1>(qv, al[1] + 4 * k, xm + 2 * KD * k, mh);
      wg_mma16r<KD, 1>(qv, ah[2] + 4 * k, km + 2 * KD * k, mh);
      wg_mma16r<KD, 1>(qv, al[2] + 4 * k, km + 2 * KD * k, mh);
    }
    wg_commit();
    wg_wait0();
  }
  /* the chunk-end adjoint and H0 terms: Q_t += e^{hle - hb_t} k_t dH_L + e^{hb_t} R_t k_t H0 */
  for (int which = 0; which < 2; which++) {
    __syncthreads(); /* every warp's products done with x and g (dH_L's parts) */
    ps_split<NT>(hh, hl, bc + (which ? BC_H0 : BC_DH), KD, KD, KD);
    fence_async_smem();
    __syncthreads();
    float tv[KD / 2];
#pragma unroll
    for (int e = 0; e < KD / 2; e++) tv[e] = 0.0f;
    wg_fence();
    wg16_issue<KD, KD / 16, 0, 0, 16, 16>(tv, dka, wg16_desc(hh, 8 * KD, 64));
    wg16_issue<KD, KD / 16, 0, 0, 16, 16>(tv, dka, wg16_desc(hl, 8 * KD, 64));
    wg_commit();
    wg_wait0();
#pragma unroll
    for (int i = 0; i < 2; i++) {
      const int t = r0 + 8 * i;
      const float f = which ? expf(hb[t]) * rr[t] : expf(hle - hb[t]);
#pragma unroll
      for (int j = 0; j < KD / 8; j++) {
        qv[4 * j + 2 * i] += f * tv[4 * j + 2 * i];
        qv[4 * j + 2 * i + 1] += f * tv[4 * j + 2 * i + 1];
      }
    }
  }
  /* dk += 2 hw Q (a row's pairs loaded before any store); dhw = k.Q (the row's four lanes); the log decay's per-token
   * term */
#pragma unroll
  for (int i = 0; i < 2; i++) {
    const int t = r0 + 8 * i;
    float *dkr = t < L ? ${kgrad_row(P.inputs[sv.key + 1], 'tok + t')} : (float *)0;
    float2 o[KD / 8];
    if (dkr)
#pragma unroll
      for (int j = 0; j < KD / 8; j++) o[j] = *(const float2 *)(dkr + 8 * j + 2 * q);
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < KD / 8; j++) {
      const float2 k2 = ld_pair(kt + PS_AT(t, 8 * j + 2 * q));
      const float q0 = qv[4 * j + 2 * i], q1 = qv[4 * j + 2 * i + 1];
      s += k2.x * q0 + k2.y * q1;
      o[j].x += 2.0f * hw[t] * q0;
      o[j].y += 2.0f * hw[t] * q1;
    }
    if (dkr)
#pragma unroll
      for (int j = 0; j < KD / 8; j++) *(float2 *)(dkr + 8 * j + 2 * q) = o[j];
    s += __shfl_xor_sync(0xffffffffu, s, 1);
    s += __shfl_xor_sync(0xffffffffu, s, 2);
    if (q == 0 && t < L) { dw[t] = s; db[t] -= hw[t] * s; }
  }
  __syncthreads();
@   sgrad_tail('S9_')
#endif
}
@ end
@ end

@ local st = {}
@ local function stage(name, grid, lay, nt, form) -- form: ' when=wide' / ' when=narrow' / ' when=grouped' or nil
@   st[#st + 1] = string.format('%s grid=%s threads=%d smem=%d%s', name, grid, nt or NT, lay.off * 4, form or '')
@ end
@ st[#st + 1] = string.format('fprep grid=chunks threads=%d smem=%d', P.FPREP.threads, P.FPREP.smem)
@ if m.delta then
@   st[#st + 1] = string.format('fstate grid=items_vtiles threads=%d smem=%d%s', P.FSTATE.threads, P.FSTATE.smem, NS and ' when=wide' or '')
@   if NS then
@     st[#st + 1] = string.format('fstate_n grid=items_ntiles threads=%d smem=%d when=narrow', NS.threads, NS.smem)
@   end
@ else
@   st[#st + 1] = string.format('fscan grid=items_elems threads=%d smem=0', P.FST.scan.threads)
@ end
@ if BQS then
@   stage('bprep', 'chunks', PL, NTP or NT, ' when=wide')
@   stage('bprep_n', 'chunks', PL, NTP or NT, string.format(' when=narrow nbv=%d below_pct=%d', BQV, BQS_PCT))
@ else
@   stage('bprep', 'chunks', PL, NTP or NT)
@ end
@ if m.delta then
@   stage('bstate', 'items_bvtiles', SL, BS_NT, SLN and ' when=wide')
@   if SLN then stage('bstate_n', 'items_ntiles', SLN, NS.threads, ' when=narrow' .. (BS_MINB == 2 and string.format(' nbv=%d below_pct=%d', NS.nbv, BS2_PCT) or '')) end
@ else
@   if BQS then -- the tile pass where its value tiles fill BQS_PCT percent of the SMs, else bprep_n and the elementwise scan
@     local BQP = BQV + 8
@     stage('bscan', 'items_bvtiles', {off = (2 * C * (K + 8) + 4 * C * BQP) // 2}, 2 * K, ' when=wide')
@     stage('bscan_n', 'items_elems', {off = 0}, NTS, ' when=narrow')
@   else
@     stage('bscan', 'items_elems', {off = 0}, NTS)
@   end
@ end
@ stage('bval', 'chunks', VL, NTV or NT)
@ stage('bgrad', 'chunks_ktiles', GL, NTB or NT); stage('brows', 'chunks', RL)
@ if sv then
@   local XS = P.FST.psolve.smem
@   local F, lead = P.FST, {}
@   lead[#lead + 1] = string.format('bhdelta grid=chunks threads=%d smem=%d', F.hdelta.threads, F.hdelta.smem)
@   if F.hdelta90 then lead[#lead + 1] = string.format('bhdelta90 grid=chunks threads=128 smem=%d when=sm90', F.hdelta90.smem) end
@   lead[#lead + 1] = string.format('bhscan grid=items_elems threads=%d smem=0', F.hscan.threads)
@   lead[#lead + 1] = string.format('xsolve grid=chunks threads=%d smem=%d', P.FST.psolve.threads, XS)
@   if F.psolve90 then lead[#lead + 1] = string.format('xsolve90 grid=chunks threads=128 smem=%d when=sm90', F.psolve90.smem) end
@   for i = #lead, 1, -1 do table.insert(st, 1, lead[i]) end
@   st[#st + 1] = string.format('gcheb grid=chunks threads=%d smem=%d', P.FST.psolve.threads, XS)
@   if F.psolve90 then st[#st + 1] = string.format('gcheb90 grid=chunks threads=128 smem=%d when=sm90', F.psolve90.smem) end
@   st[#st + 1] = string.format('gsolve grid=chunks threads=%d smem=%d', P.FST.psolve.threads, XS)
@   if GL9 then st[#st + 1] = string.format('gsolve90 grid=chunks threads=128 smem=%d when=sm90', GL9.off * 4) end
@   st[#st + 1] = string.format('hadj grid=items_elems threads=%d smem=0', F.hscan.threads)
@   stage('sgrad', 'chunks', SL2, P.FST.psolve.threads)
@   if SL9 then st[#st + 1] = string.format('sgrad90 grid=chunks threads=128 smem=%d when=sm90', SL9.off * 4) end
@ end
@ stage('breduce', 'chunks', {off = 0}, nil, ' when=grouped') -- not launched without grouped heads (~28 us of empty blocks at B8 T4096 H16)
@ -- the leading stages a forward kept for the backward replaces (ssmc_cuda_kernel.bwd_saved): fprep and fstate[_n];
@ -- with a solve (lead: the kept forward runs them itself) bhdelta, bhscan and xsolve as a device runs them
@ local SAVED = sv and 3 or P.KEEP and (NS and 3 or 2) or 0
// ssmc-launch-bwd fwd=0 saved=${SAVED} ${sv and 'lead ' or ''}bk=${BK} bv=${BQS and BQV or BVB} ws_tok=${BW_TOK} ws_chunk=${BW_CHUNK} ws_seq=${BW_SEQ} ws_qk=${BW_QK} ${table.concat(st, '; ')}
@ end
