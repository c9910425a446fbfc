@ --[[ Template cuda_kernel.cu.tpl — the CUDA module of one spec and dtype (NVRTC, sm_80 and sm_90).
@ Parameters: the same table P as cpu_kernel.c.tpl (compiler/emit.c, build_context).
@ Stages (declared in the launch line at the end of the file, read back by the compiler), run in order:
@   solve   (only with a solve; grid: one block per (sequence, value head)): chunk by chunk, the
@           symmetric state H in fp32 on chip, per-token ||H_t||_F of a whole chunk from the
@           chunk-start H (GKA Eq. 5), r Chebyshev iterations for all the chunk's tokens at once as
@           tile products against H and the chunk's keys (a bf16 module: bf16 m16n8k16 on hi + lo
@           parts, solve_cheb_bf); writes x (aux_out, or workspace).
@   prep    (grid: one block per (chunk, value head), all chunks at once): decay prefix sums,
@           the chunk's decay, kd = K e^{b_L - b}, U = diag(w) V; with a rank-1 erase the WY/UT
@           form T = (I - NAKK)^-1 (16 x 16 diagonal inverses, then tensor-core products),
@           W = -T diag(e) (K e^b) and U = T diag(w) V; all into the workspace. Without an erase
@           also the chunk's own part of the next chunk-start state, dZ = kd' U, for the scan.
@   scan    (without an erase, in place of state; grid: blocks of 4 x 128 state elements per
@           (sequence, value head)): the only sequential pass, elementwise: Z_{c+1} = e^{b_L} Z_c + dZ_c.
@   state   (with an erase; grid: one block per (sequence, value head, value tile)): the only sequential pass,
@           chunk by chunk with the state tile on chip, reading only prep's tiles: stores the
@           chunk-start state, the pseudo-values u = U + W Z (rank-1 erase; in place of U), and
@           Z <- diag(e^{b_L}) Z + kd' u.
@   out     (grid: one block per (chunk, value head), all chunks at once): the readout
@           y = (q~ e^b) Z_chunk-start + A u with the decay-masked scores A formed once, value tile
@           by value tile (the next tile's Z and u fetched during the current one's products); reads
@           x when the query uses it.
@   decode, decode_large (without a solve): one token, the state read once and written once in
@           16-byte pieces (R key rows x 4 value columns a thread). decode (grid: one block per
@           (sequence, value head, 16-column tile)) for small batches; decode_large (grid: one block
@           per (sequence, value head)) from 300% of the SM count in work items on, its state held
@           in registers, or with a rank-1 erase staged in shared memory by cp.async (three blocks
@           an SM) between the sums S k, S q and the update.
@   decode, decode_large (with a solve; grid: one block per (sequence, value head)): H and U staged
@           in shared memory by cp.async, H updated and held in registers for the r matvecs (full
@           symmetric blocks, the upper half from the packed lower triangle), U updated and read from
@           shared memory. decode: U in flight from the start (latency, small batches); decode_large:
@           U in H's place once H is written back (a smaller block, one more an SM: large batches).
@           The launch line says from which batch decode_large runs (from_pct: percent of the SM count
@           in work items). Where U (then also H) does not fit 112 KiB (K V large, e.g. K = 128,
@           V = 256), it is read and updated in place in global memory instead (not timed on a GPU).
@ Dynamic shared memory of each stage is laid out here and stated in the launch line.
@ Constraints: no headers (NVRTC); the classification arrives ready-made. ]]
@ local K, V, C = P.K, P.V, P.C
@ assert(K % 16 == 0 and V % 8 == 0 and C % 16 == 0, 'the CUDA kernels need K % 16 == 0, V % 8 == 0 and chunk % 16 == 0')
@ local m, sv = P.main, P.solve
@ local NT = {prep = 512, state = 512, out = 512, scan = 128} -- threads of the chunk stages (their loops read NT)
@ local SNT = 256 -- the solve stage: 128 registers a thread leave room for 256 threads only
@ local diag = m.decay == 'diag'
@ -- padded leading dimensions of the forward's tiles (see mm): [C][K] and [C][C] tiles 4 (mod 32),
@ -- [K][bv] and [C][bv] tiles 8 (mod 32)
@ local KP, CP = K + 4, C + 4 -- CP and C: see the search for a chunk that fits below
@ local function vpad(bv) return bv + 8 end
@ -- the chunk stages stage [K] vectors other than the key only into q~ (read from global memory there)
@ for _, x in ipairs(P.inputs) do x.smem = x.gate or x.dimsym ~= 1 or x.idx == m.key end
@ local function new_layout()
@   local L = {off = 0}
@   function L.alloc(name, n) L[#L + 1] = {name, L.off}; L.off = L.off + math.ceil(n / 32) * 32 end
@   -- second buffers NAME2 of tiles {NAME, floats}, where all fit in 160 KiB; else each NAME2 is NAME
@   function L.second(tiles)
@     local n = 0
@     for _, t in ipairs(tiles) do n = n + math.ceil(t[2] / 32) * 32 end
@     local fit = (L.off + n) * 4 <= 160 * 1024
@     for _, t in ipairs(tiles) do
@       if fit then L.alloc(t[1] .. '2', t[2])
@       else for _, e in ipairs(L) do if e[1] == t[1] then L[#L + 1] = {t[1] .. '2', e[2]} end end end
@     end
@   end
@   return L
@ end
@ -- the inputs a stage keeps on chip (want(x)), value vectors as a tile of vcols columns; raw(x): kept
@ -- as loaded (elem_t: half the floats in a bf16 module), else as float
@ local EB = P.dtype == 'bf16' and 2 or 4
@ -- prep's W and U products with bf16 inputs (WU16, mm_hl16): T's scaled columns as bf16 hi and lo tiles (rows of
@ -- C + 8), the key as loaded in rows of PKP = K + 8 and the value in rows of V + 8 (VPF): rows of an odd number
@ -- of 16 bytes, each fragment one conflict-free ldmatrix
@ local WU16 = m.delta and EB == 2 and K % 16 == 0 and V % 16 == 0
@ local PKP = (WU16 and not diag) and K + 8 or KP
@ -- kp: the pitch of a [K] input kept as loaded (default KP)
@ local function alloc_inputs(L, want, vcols, raw, kp)
@   for _, x in ipairs(P.inputs) do
@     if x.smem and want(x) then
@       local n = C * (x.dimsym == 2 and vpad(vcols) or x.D == 1 and 1 or (raw and raw(x) and kp) or KP)
@       L.alloc('IN' .. x.idx, raw and raw(x) and math.ceil(n * EB / 4) or n)
@     end
@   end
@ end
@ -- the key tile of the out stage stays as loaded (its only uses are tile-product operands and reads);
@ -- not with a per-key decay, whose loops over k read rows of float tiles four at a time (H200: GLA's
@ -- out 3.15 -> 3.50 ms at B8 with a bf16 key tile there)
@ local function raw_key(x) return x.idx == m.key and not diag end
@ local function not_val(x) return x.dimsym ~= 2 end
@ local function any(x) return true end
@ -- the out stage's [q~ e^b | A] tile (C, QAP): one operand of y = [q~ e^b | A] [Z; u]
@ local function qa_pitch() return K + C + (4 - K - C) % 32 end
@ -- the out stage's layout for the value tile obv: qa, zu = [Z; u] (K + C, obv + 8), the raw key
@ local function out_layout(obv)
@   local O = new_layout()
@   alloc_inputs(O, not_val, obv, raw_key)
@   O.alloc('QA', C * qa_pitch()); O.alloc('ZU', (K + C) * vpad(obv))
@   if not diag then O.alloc('B', C) end
@   O.alloc('EW', C); O.alloc('EE', C); O.alloc('ZDEC', K); O.alloc('F', C)
@   return O
@ end
@ -- per-stage layouts for the chunk C (an upvalue) and value tile bv
@ local function layouts(bv)
@   local S = new_layout()
@   -- the state pass reads only what the prep stage made: kd, U, W (a rank-1 erase), the chunk's decay; U in
@   -- two buffers where they fit (state_body)
@   if m.delta then S.alloc('W', C * KP) end
@   S.alloc('KD', C * KP); S.alloc('Z', K * vpad(bv)); S.alloc('U', C * vpad(bv)); S.alloc('ZDEC', K)
@   if m.delta then S.second({{'U', C * vpad(bv)}}) end
@   return S, out_layout(bv)
@ end
@ -- prep: the chunk's whole value width. With a rank-1 erase key and value as loaded, A is NAKK, then
@ -- T's columns scaled (T diag(c): W and U are products of it with the raw key and value), T its
@ -- inverse (I - NAKK)^-1, O (per-key decays) the key scaled per element for W. Without an erase key
@ -- and value as float, scaled in place (H200, Mamba-2 prep: 396 us, 439 us with raw tiles and a
@ -- scaled copy of the key)
@ local VPF = vpad(V)
@ local KEY_T = raw_key(P.inputs[m.key + 1]) and 'elem_t' or 'float'
@ local function raw_kv(x) return m.delta and (x.idx == m.val or raw_key(x)) end
@ local function prep_layout()
@   local PL = new_layout()
@   alloc_inputs(PL, any, V, raw_kv, PKP)
@   if m.delta then
@     PL.alloc('T', C * CP); PL.alloc('R', 16 * CP)
@     if diag then -- NAKK until T is formed, then the scaled key, then T diag(w)
@       PL.alloc('O', C * math.max(KP, CP)); PL[#PL + 1] = {'A', 'P_O'}
@     else PL.alloc('A', C * CP) end
@     -- WU16: T's scaled columns as bf16 hi and lo tiles (C, C + 8) each from R on, over R and A (16 CP + C CP
@     -- floats; R, the inverse's scratch, and NAKK are spent by then): GDN's prep keeps three blocks an SM
@     PL[#PL + 1] = {'AH', 'P_R'}
@   end
@   if not diag then PL.alloc('B', C) end
@   PL.alloc('EW', C); PL.alloc('EE', C); PL.alloc('ZDEC', K); PL.alloc('F', C)
@   return PL
@ end
@ local GS = 16
@ local function solve_layout()
@   local XL = new_layout()
@   if sv then
@     -- XB holds the group iterates X, XP, XN, P (GS x K each), and K weighted by the write at the chunk end (C x K);
@     -- row pitches SKP = K + 4 and SCP = C + 4 (4 mod 32: the tile products' fragment loads free of bank
@     -- conflicts; H is read as its transpose, symmetric); AX (GS x C) over G (C x C), which only the norms read
@     XL.alloc('HF', K * (K + 4)); XL.alloc('KC', C * (K + 4)); XL.alloc('G', C * (C + 4))
@     XL.alloc('XB', math.max(C, 4 * GS) * (K + 4)); XL.alloc('RH', GS * K)
@     -- over G (where it is large enough): AX (GS x C) and the group's decay mask MK (GS x C), its e^{hb} EB (GS)
@     if C * (C + 4) >= 2 * GS * (C + 4) + GS then
@       XL[#XL + 1] = {'AX', 'X_G'}; XL[#XL + 1] = {'MK', 'X_G + ' .. GS * (C + 4)}; XL[#XL + 1] = {'EB', 'X_G + ' .. 2 * GS * (C + 4)}
@     else -- a short chunk: G is smaller than a group's tiles
@       XL.alloc('AX', GS * (C + 4)); XL.alloc('MK', GS * (C + 4)); XL.alloc('EB', GS)
@     end
@     XL.alloc('HB', C); XL.alloc('HW', C)
@     XL.alloc('NRM', C); XL.alloc('LAM', C); XL.alloc('STEP', C); XL.alloc('RHO2', C); XL.alloc('OM', C); XL.alloc('RED', 32)
@     XL.alloc('IN' .. sv.key .. '_G', C)
@   end
@   return XL
@ end
@ -- The CUDA module's chunk and value tile: the spec's (or P.CMAX, where the backward's blocks did not fit at the
@ -- spec's: compiler/emit.c), the value tile halved (down to 16) and then the
@ -- chunk (while a multiple of 16) until every stage fits in 160 KiB (A100-safe); the chunk is a
@ -- blocking of the same recurrence, so only rounding can tell them apart. The kernel ABI carries it
@ -- (ssmc_cuda_kernel.chunk) for the chunk grids.
@ local BV, SL, OL, PL, XL
@ local function try(c, bv)
@   C, CP, BV = c, c + 4, bv
@   SL, OL = layouts(bv)
@   PL, XL = prep_layout(), solve_layout()
@   return math.max(SL.off, OL.off, PL.off, XL.off) * 4 <= 160 * 1024
@ end
@ do
@   local c, done = math.min(P.C, P.CMAX or P.C), false
@   while not done do
@     local bv = P.BV
@     while not done and bv >= 16 do done = try(c, bv); bv = bv // 2 end
@     if done or c // 2 < 16 or (c // 2) % 16 ~= 0 then break end
@     c = c // 2
@   end
@   -- nothing fits 160 KiB: the smallest tried stays (the launch says what the device allows)
@ end
@ local XOFF = XL.off
@ -- The state pass's narrow form (state_body): NBV value columns a block, NNT threads, for few work items: the
@ -- runtime runs it in place of the wide one where the wide grid, (sequences x value heads x V / BV) blocks,
@ -- is below NARROW_PCT percent of the SM count. H200, GDN bf16 (bench/, the gpu-h200-narrow record): B1
@ -- T32768 H16 (32 wide blocks) fwd 4.79 -> 3.10 ms, bwd 15.83 -> 10.71; B2 T16384 even; B4 T8192 (128)
@ -- wide 26% ahead. Of 8 / 16 columns and 128 / 256 / 512 threads, 16 and 256 (or 512) the fastest; again with
@ -- the copies by cp.async (the gpu-h200-cpasync record, B1 fwd-narrow): 16 and 256 2.53 ms, 8 columns 3.30, 512
@ -- threads 2.76 (against 2.63 in that call).
@ -- SNL: its layout (nil: no narrow form).
@ local NBV, NNT, NARROW_PCT = 16, 256, 75
@ local SNL = m.delta and BV > NBV and V % NBV == 0 and (layouts(NBV))
@ -- The out stage's value tile: the widest (from BV down to 16) whose layout lets two blocks share an
@ -- SM (228 KiB on sm_90: up to 110 KiB a block); else BV, one block an SM. Two blocks overlap one's
@ -- loads and barriers with the other's products (one 512-thread block an SM left them exposed). Not
@ -- for a solve's f32 module: its three-product form needs more than 128 registers a thread there (sm_80).
@ local OBV, OUT_MINB = BV, 1
@ do
@   local obv = BV
@   while obv >= 16 do
@     if V % obv == 0 and out_layout(obv).off * 4 <= 110 * 1024 and not (sv and P.dtype == 'f32') then OBV, OUT_MINB = obv, 2; break end
@     obv = obv // 2
@   end
@   OL = out_layout(OBV)
@   if OUT_MINB == 2 then NT.out = 256 end
@ end
@ -- The out stage's product y = [q~ e^b | A] [Z; u] on sm_90a: wgmma (m64 N k8 tf32, both operands
@ -- in shared memory as K-major core matrices, no register fragments), each warpgroup a WGN-column
@ -- slice of the value tile. Where it is the single-tf32 product anyway (a bf16 module without a
@ -- solve), A's scores are a plain tile product (no per-key decay) and a chunk is 64 tokens
@ -- (wgmma's m); elsewhere, and on sm_80, mma.sync as above.
@ local WGN = OBV // (NT.out // 128)
@ local WG = P.dtype == 'bf16' and not sv and not diag and C == 64 and WGN % 8 == 0 and WGN >= 8 and WGN <= 256
@ -- stage fused90 (sm_90a): the whole forward of a scalar decay (with a rank-1 erase: after prep) in one
@ -- pass per (sequence, value head), every product on wgmma, the state in the accumulators of the update's
@ -- product (fp32; each warpgroup half the value width) and, rounded to tf32, in shared memory as the
@ -- readout's operand. Where every query source comes from global memory, a bf16 module, chunk 64
@ -- (wgmma's m), and its K-major operands fit 227 KiB: q~ and the key (C, K), the key again (K, C)
@ -- for the update, u' (V, C), A (C, C), the state (V, K); SBO 8 (k extent) + 4 floats each.
@ -- The update's m (64) runs over the value rows: V = 128, one half a warpgroup, or V = 64, the keys
@ -- halved between the warpgroups (HZN: the update's n, the keys of a warpgroup's state).
@ local HZN = V == 128 and K or K // 2
@ -- With an erase at V = 64 too since its T form: H200 GDN K = V = 64 B8 T4096 H32, fused90 1.325 ms against the
@ -- fused pass's 1.513 (mma.sync, two blocks an SM), B4 0.672 vs staged 0.888 (bench/2026-11-26-gpu-h200-s35 call 4;
@ -- two blocks an SM of fused90 were 1.310, with 272 B spilled at 128 registers: one kept). Before the T form the
@ -- fused pass was the faster (fused90 1.950 ms, fused 1.86; bench/2026-11-23-gpu-h200-fused90).
@ local HF = P.dtype == 'bf16' and not sv and not diag and C == 64 and (V == 128 or V == 64)
@              and HZN % 8 == 0 and HZN <= 256
@ for _, q in ipairs(P.q) do
@   local x = q.src ~= 'X' and P.inputs[tonumber(q.src) + 1]
@   if not x or x.smem then HF = false end
@ end
@ local HL
@ if HF then
@   HL = new_layout()
@   alloc_inputs(HL, function(x) return x.dimsym ~= 2 and x.idx ~= m.key end, V)
@   HL.alloc('QT', C // 8 * (8 * K + 4)); HL.alloc('KS', C // 8 * (8 * K + 4)); HL.alloc('KT', K // 8 * (8 * C + 4))
@   HL.alloc('UT', V // 8 * (8 * C + 4)); HL.alloc('AM', C // 8 * (8 * C + 4)); HL.alloc('ST', V // 8 * (8 * K + 4))
@   HL.alloc('B', C); HL.alloc('EW', C); HL.alloc('EE', C); HL.alloc('ZDEC', K); HL.alloc('F', C)
@   HF = HL.off * 4 <= 227 * 1024
@ end
@ -- fused90's bf16 form (HB; a scalar decay without an erase, one query term): q, the key and the value as loaded
@ -- (bf16), by cp.async a chunk ahead into two buffers of core matrices that are the wgmma operands as they are
@ -- (K-major, or MN-major: the transposed operand), no register staging; the state, the masked scores and the
@ -- update's scaled keys as bf16 hi + lo pairs (~2^-16 relative where the tf32 form rounds them to 2^-11), every
@ -- product m64nNk16 bf16 (twice tf32's rate: a hi + lo pair costs one tf32 product); the query term's coefficient
@ -- and the write's are row and column factors of the scores and the update.
@ local HB
@ if HF and not m.delta and #P.q == 1 then
@   HB = new_layout()
@   alloc_inputs(HB, function(x) return x.dimsym ~= 2 and x.idx ~= m.key end, V)
@   -- two buffers each of q and the key (C, K) and the value (C, V), bf16 (half a float an element)
@   HB.alloc('QB', C * K); HB.alloc('KB', C * K); HB.alloc('VB', C * V)
@   HB.alloc('STH', V * K // 2); HB.alloc('STL', V * K // 2); HB.alloc('AMH', C * C // 2); HB.alloc('AML', C * C // 2)
@   HB.alloc('KFH', C * K // 2); HB.alloc('KFL', C * K // 2)
@   HB.alloc('B', C); HB.alloc('EW', C); HB.alloc('QC', C)
@   -- the consumers' per-chunk factors, two buffers (by the chunk's parity): the chunk's decay, c e^b, w e^{b_L - b}
@   HB.alloc('ZDEC', 2 * K); HB.alloc('YC', 2 * C); HB.alloc('F', 2 * C)
@   if HB.off * 4 > 227 * 1024 then HB = nil end
@ end
@ -- fused90's bf16 form with an erase (HD; one query term, V = 64 or 128: a consumer warpgroup each 64 value rows):
@ -- q, the key and the value as loaded (bf16) as HB's, T's rows (prep_fused's) and the masked scores as bf16 hi + lo
@ -- pairs; the state (the A operand of X' = Z K' and y' = Z q') as hi + lo pairs in shared memory, or at K <= 64 from
@ -- the accumulators as register fragments (HD_SREG: 32 registers beside them); every other operand of the chain in
@ -- registers. Two blocks an SM where they fit (HD_MINB: K = V = 64, one consumer warpgroup and the producer), the
@ -- registers split HD_REGS (the producer's, a consumer's; setmaxnreg within the launch's: 64512 a block of 384,
@ -- 32768 of 256 at two blocks an SM)
@ local HD, HD_SREG, HD_MINB, HD_REGS
@ if HF and m.delta and #P.q == 1 and (V == 64 or V == 128) and K <= 128 and K % 16 == 0 then
@   HD_SREG = K <= 64
@   HD = new_layout()
@   alloc_inputs(HD, function(x) return x.dimsym ~= 2 and x.idx ~= m.key end, V)
@   -- two buffers each of q and the key (C, K), the value (C, V) and T's hi and lo parts (C, C), bf16
@   HD.alloc('QB', C * K); HD.alloc('KB', C * K); HD.alloc('VB', C * V); HD.alloc('TH', C * C); HD.alloc('TL', C * C)
@   if not HD_SREG then HD.alloc('STH', V * K // 2); HD.alloc('STL', V * K // 2) end
@   HD.alloc('AMH', C * C // 2); HD.alloc('AML', C * C // 2)
@   HD.alloc('B', C); HD.alloc('QC', C)
@   -- the consumers' per-chunk factors, two buffers (by the chunk's parity): e^{b_L}, w, e e^b, c e^b, e^{b_L - b}
@   HD.alloc('ZDEC', 2); HD.alloc('W', 2 * C); HD.alloc('E', 2 * C); HD.alloc('YC', 2 * C); HD.alloc('F', 2 * C)
@   HD_MINB = (V == 64 and HD.off * 4 <= 113 * 1024) and 2 or 1
@   -- setmaxnreg {producer, consumers}: at V = 64 with one block an SM (K > 64: one consumer warpgroup, 256 threads)
@   -- 160 / 240, not 120 / 192 (292 B spilled in fused90 at K = 128, 380 in fused90_split; 8 B now): H200 bf16
@   -- B8 T4096 H16 fused90 0.535 -> 0.494 ms, split 0.972 -> 0.945 (bench/2026-11-29-gpu-h200-s47, call 1)
@   HD_REGS = HD_MINB == 2 and {96, 160} or V == 64 and {160, 240} or {120, 192}
@   if HD.off * 4 > 227 * 1024 then HD = nil end
@ end
@ -- the split forward's segment pass (fused90_seg: each segment's state alone, from zero) lays out its own: the scalar
@ -- inputs (C each: every input it reads besides the key and the value must be a scalar, which warp 0 alone reads),
@ -- SG_NB buffers of the key (C, K) and the value tile (C, V), bf16 core matrices (tile_cp16), filled by cp.async
@ -- SG_NB - 2 chunks ahead, two buffers of the update's keys (hi and lo, (C, K) each) and of their factors (C); four
@ -- tile buffers where they fit 227 KiB, else three; without the room, no split forward
@ local SG, SG_NB
@ local function sg_scalars()
@   for _, x in ipairs(P.inputs) do
@     if x.smem and x.dimsym ~= 2 and x.idx ~= m.key and x.D > 1 then return false end
@   end
@   return true
@ end
@ if HB and sg_scalars() then
@   for _, nb in ipairs({4, 3}) do
@     local L = new_layout()
@     alloc_inputs(L, function(x) return x.dimsym ~= 2 and x.idx ~= m.key end, V)
@     L.alloc('KR', nb * C * K // 2); L.alloc('VR', nb * C * V // 2); L.alloc('KF', 2 * C * K); L.alloc('FR', 2 * C)
@     if not SG and L.off * 4 <= 227 * 1024 then SG, SG_NB = L, nb end
@   end
@ end
@ local SPLIT = SG
@ -- two blocks an SM where their shared memory fits (H200: 228 KB an SM, 1 KB of it each block's) and 80 registers
@ -- hold a consumer's accumulators, V / 4 of the readout and HZN / 2 of the state, at most 48 of them (NVRTC 13,
@ -- sm_90a: K = V = 64 32, none spilled; K = 32 V = 128 48, none; K = 48 V = 128 56, 348 bytes spilled)
@ -- (fused90's blocks an SM: HD's own rule, above; the bf16 form without an erase by this one)
@ local F90_MINB = HD and HD_MINB or (HB and 2 * (HB.off * 4 + 1024) <= 228 * 1024 and V // 4 + HZN // 2 <= 48) and 2 or 1
@ local F90_NT = HB and 384 or HD and 128 * (V // 64 + 1) or 256 -- fused90's threads
@ -- Picked from (sequences x value heads) >= 50% of the SMs on: its time is one chunk chain (flat until the
@ -- blocks exceed the SMs), the staged forward's grows with the batch. H200, bf16, T = 4096, fused90 vs
@ -- staged, ms (bench/2026-11-23-gpu-h200-fused90): Mamba-2 H16 B2 0.678 vs 0.392, B4 0.685 vs 0.734, B8
@ -- 0.690 vs 1.439, B16 1.372 vs 2.840; GDN B4 1.313 vs 1.161, B8 1.665 vs 2.285; Mamba-2 K = V = 64 H32
@ -- B2 0.382 vs 0.345, B4 0.383 vs 0.670; B1 T32768 (16 blocks) 5.40 vs 1.50.
@ -- The bf16 form (HB) at V = 128 from 24% on, at K = V = 64 (two blocks an SM) from 30%: H200 T4096, staged vs
@ -- fused90 ms (bench/2026-11-25-gpu-h200-producer call 3), Mamba-2 H16 B2 (24%) 0.368 vs 0.365, B3 (36%) 0.542
@ -- vs 0.366, B4 0.728 vs 0.367; K = V = 64 H32 B1 (24%) 0.163 vs 0.198, B2 (48%) 0.311 vs 0.199 (the staged
@ -- forward's time grows with the batch: even at ~30%)
@ -- With an erase (the T form) from 42% on: H200 T4096 GDN H16, staged vs fused90 ms (bench/2026-11-26-gpu-h200-s35 call 3),
@ -- B2 (24%) 0.689 vs 0.925, B3 (36%) 0.844 vs 0.950, B4 (48%) 0.988 vs 0.972, B5 1.483 vs 1.000, B6 1.637 vs 1.027
@ -- Its bf16 form (HD) from 24% on: H200 T4096 GDN H16, staged vs fused90 ms (bench/2026-11-26-gpu-h200-s36 call 1),
@ -- B2 (24%) 0.682 vs 0.621, B3 0.833 vs 0.651, B4 0.976 vs 0.681, B6 1.616 vs 0.745
@ -- At V = 64 (two blocks an SM) from 30%: H200 GDN K = V = 64 H32, the narrow staged forward vs fused90 ms
@ -- (bench/2026-11-26-gpu-h200-s37 call 5), B1 (24%) T4096 0.300 vs 0.390, T32768 2.206 vs 3.017; B2 (48%) T4096 0.526
@ -- vs 0.443 (the wide one 0.580; call 1: B4 0.892 vs 0.528)
@ local HF_FROM_PCT = (HB or HD) and (V == 128 and 24 or 30) or m.delta and 42 or 50
@ -- the wgmma widths the module's products use: the forward's, and the backward's bgrad value loop (cuda_bwd.cu.tpl's
@ -- BGW: m64 over the chunk, n = its key tile BK and BK + C; an unused width costs nothing)
@ local WG_NS = {}
@ local function add_width(l, n)
@   for _, o in ipairs(l) do if o == n then return end end
@   l[#l + 1] = n
@ end
@ local function wg_width(n) add_width(WG_NS, n) end
@ if WG then wg_width(WGN) end
@ if HF then -- (with HB, fused90_keep's: the tf32 form)
@   for _, n in ipairs({C // 2, V // 2, HZN}) do wg_width(n) end
@ end
@ local WGR_NS = {} -- the widths of the tf32 register-A form (fused90's T form: u = T r)
@ if HF and m.delta then add_width(WGR_NS, V // 2) end
@ -- the bf16 wgmma widths (HB's products)
@ local WG16_NS = {}
@ if HB then -- the producer's scores (n = C), the consumers' readout (V / 2) and update (HZN)
@   for _, n in ipairs({C, V // 2, HZN}) do add_width(WG16_NS, n) end
@ end
@ if HD then -- the scores, X' and y' (n = C); the register-A form's u', A u' (C) and the update (K)
@   add_width(WG16_NS, C)
@ end
@ -- psolve90 (PS90): psolve's sm_90a form for a solve of bf16 keys, chunk 64, K = 64 or 128. One warpgroup a chunk
@ -- (128 threads, two blocks an SM), every product on wgmma m64nNk16 bf16: the iterate x as bf16 hi + lo parts in
@ -- registers, the register operand A (a product's accumulators are A's fragments, paired), H0's hi + lo parts and
@ -- the keys in shared memory. Shared memory (bf16 elements): H0's hi and lo parts (K, K) each and the keys (C, K) as
@ -- core matrices (tile_cp16's rows), then floats: x - x_{r-1} (C, K: float pairs, thread-private; the norms' scalars
@ -- over it before), the decays hb, hw and the folded mask's column factor (C each). 113 KiB at K = 128: two blocks an
@ -- SM (x - x_{r-1} in bf16 pairs, 16 KiB less, had x 5e-4 off the fp64 Chebyshev at 8 iterations: its rounding
@ -- carries into x undamped while the steps are large)
@ local PS90 = sv and P.dtype == 'bf16' and C == 64 and (K == 64 or K == 128) and not P.inputs[sv.key + 1].gate and
@   P.inputs[sv.key + 1].D == K
@ local PSF = PS90 and (2 * K * K + C * K) // 2 + C * K -- the floats' offset (in floats)
@ local PSOFF = PS90 and PSF + 3 * C
@ local WG16R_NS = {} -- the widths of the register-A form
@ if PS90 or HD then
@   for _, n in ipairs({K, C}) do add_width(WG16_NS, n); add_width(WG16R_NS, n) end
@ end
@ if C == 64 and not diag and not sv then
@   local BKB = K % 64 == 0 and 64 or K % 32 == 0 and 32 or 16 -- cuda_bwd.cu.tpl's BK
@   wg_width(BKB); wg_width(BKB + C)
@   -- bprep's value loop on wgmma (cuda_bwd.cu.tpl's BPW): A from registers, n = half the values
@   if P.dtype == 'bf16' and V % 16 == 0 then add_width(WGR_NS, V // 2) end
@ end
@ -- prep with an erase: 256-thread blocks, as many an SM as the shared memory allows up to 3, where
@ -- that is 2 or more (H200, GDN prep at B8: 721 us with three of 256 threads, 839 us with two of
@ -- 512, 1180 us with one of 512 and float tiles); else (and without an erase) 512 threads
@ local PREP_LB = tostring(NT.prep)
@ if m.delta and PL.off * 4 <= 110 * 1024 then
@   NT.prep = 256
@   PREP_LB = string.format('256, %d', math.min(3, 227 * 1024 // (PL.off * 4 + 1024)))
@ end
@ -- stage fused (the chunk-to-chunk pass and the readout in one): without a solve. The chunk update is
@ -- K' (diag(e^{b_L - b}) u), one tile product with the key as loaded, or with a per-key decay kd' u with
@ -- kd = K e^{b_L - b} formed in the key tile diag_scores leaves rescaled. The out stage's layout, with a
@ -- rank-1 erase prep's W (C, K) too. Its value tile FBV: the widest whose layout
@ -- lets two blocks share an SM (up to 110 KiB; not for an f32 module, whose three-product form wants
@ -- more than 128 registers a thread), else the widest in 160 KiB, one block an SM. FUSED_PRE: the
@ -- forward's stages that run before it (prep, with an erase). FUSED_FROM_PCT: the runtime runs it
@ -- from (sequences x value heads x V / FBV) >= this percent of the SM count on; 0: never by itself
@ -- (check and bench run it as a variant). Measured on an H200 (bf16, T = 4096; staged vs fused, ms;
@ -- bench/2026-11-23-gpu-h200-fused): where FBV = V (A formed once a chunk) fused is faster from
@ -- about 1.5 blocks an SM on: K = V = 64 h_v = 32, Mamba-2 B2 0.33 vs 0.61, B4 0.64 vs 0.61, B8 1.25
@ -- vs 0.81, B16 2.47 vs 1.61; GDN B4 1.06 vs 1.13, B8 2.08 vs 1.86, B16 4.15 vs 3.68. Where FBV < V it
@ -- forms A once per value tile and was slower at every size tried: K = V = 128 (FBV 32) Mamba-2 B8
@ -- 1.47 vs 1.70, B16 2.89 vs 3.38, GDN B16 4.53 vs 4.97; GLA (FBV 32) 3.30 vs 11.4. An f32 module (one
@ -- block an SM) is not measured: not picked.
@ local FUSED = not sv
@ local function fused_layout(fbv)
@   local l = out_layout(fbv)
@   if m.delta then l.alloc('W', C * KP) end
@   return l
@ end
@ local FBV, FUSED_MINB, FUSED_PRE, FUSED_FROM_PCT, FL = nil, 1, m.delta and 1 or 0, 0, nil
@ NT.fused = 256
@ if FUSED then
@   for _, want2 in ipairs({P.dtype ~= 'f32', false}) do
@     local fbv = BV
@     while not FBV and fbv >= 16 do
@       if V % fbv == 0 and fused_layout(fbv).off * 4 <= (want2 and 110 or 160) * 1024 then FBV, FUSED_MINB = fbv, want2 and 2 or 1 end
@       fbv = fbv // 2
@     end
@   end
@   FUSED = FBV ~= nil -- none where no value tile fits (KDA: the per-key key and log decays in float, and W)
@   FL = FUSED and fused_layout(FBV)
@   FUSED_FROM_PCT = FBV == V and FUSED_MINB == 2 and 150 or 0 -- as measured: bf16, two blocks an SM
@ end
@ -- stage seq, in the fused slot where the fused pass would form A again per value tile (FBV < V) and the
@ -- chunk update needs nothing from prep (no erase, a scalar decay, no solve): the chunk-to-chunk pass
@ -- alone, in order, writing every chunk-start state into its chunk slot for the out stage, in place of
@ -- prep and scan (fla's chunk_fwd_h: half their traffic, one pass over the key and value). Its value
@ -- tile: the widest whose layout lets two blocks share an SM. Measured on an H200 (Mamba-2 bf16 K = V = 128,
@ -- T = 4096 H16, staged vs seq, ms; bench/2026-11-24-gpu-h200-seq): B2 0.39 vs 0.57, B4 0.75 vs 0.77,
@ -- B8 1.45 vs 1.22, B16 2.86 vs 2.42; B1 T32768 1.51 vs 3.68 (32 blocks). Picked as fused is: bf16,
@ -- from 150% of the SM count in blocks on (an f32 module is not measured: not picked).
@ local SEQ = FUSED and FBV < V and not m.delta and not diag
@ local function seq_layout(sbv)
@   local l = new_layout()
@   alloc_inputs(l, not_val, sbv, raw_key)
@   l.alloc('ZU', (K + C) * vpad(sbv)); l.alloc('B', C); l.alloc('EW', C); l.alloc('EE', C); l.alloc('ZDEC', K); l.alloc('F', C)
@   return l
@ end
@ if SEQ then
@   local sbv = V
@   while sbv >= 16 and not (V % sbv == 0 and seq_layout(sbv).off * 4 <= 110 * 1024) do sbv = sbv // 2 end
@   FBV, FUSED_MINB, FUSED_PRE, FUSED_FROM_PCT = math.max(sbv, 16), 2, 0, P.dtype ~= 'f32' and 150 or 0
@   FL = seq_layout(FBV)
@ end
@ local BVP, OBVP, QAP = vpad(BV), vpad(OBV), qa_pitch()
@ -- the workspace per token and value head: [x (a solve without aux_out)] [W (K, a rank-1 erase)]
@ -- U (V) KD (K); per chunk slot and value head: the chunk-start state (K x V), the chunk's decay (K)
@ -- KEEP: every forward variant can leave in a backward's workspace (rt_cuda_fwd_save) what the backward would
@ -- recompute first: with an erase its fprep and fstate (the chunk-start states, kd, W, the pseudo-values u), which
@ -- the staged stages leave anyway; without one its fprep and fscan (the chunk-start states, kd, U = diag(w) V), the
@ -- scan's chunk-start states, the prep's keep form (entry _prep_keep) kd and U too. The fused passes in their _keep
@ -- entries (the fused slot's keep forms). With bf16 inputs only, where that recomputation runs the forward's own
@ -- products (MM_FREC, MM_BWD = MM_SPLIT). With f32 inputs the forward's bf16 hi + lo products are less accurate
@ -- than the backward wants there (cuda_bwd.cu.tpl); a solve recomputes.
@ local KEEP = P.dtype == 'bf16' and not sv
@ -- KDU_B: without an erase or per-key decays, U = diag(w) V and the chunks' decays are the backward's bprep's to
@ -- write (from the inputs, all chunks at once: cuda_bwd.cu.tpl) and kd = K e^{b_L - b} its bval's to form, not a
@ -- keep form's (nor kd and U fprep's): in the fused pass they were fp32 stores on its chain (H200 Mamba-2 bf16
@ -- B8 T4096 H16: fused90_keep 1.004 ms with them, 0.486 without, under ncu, bench/2026-11-29-gpu-h200-s47 call
@ -- 7); a keep form leaves the chunk-start states
@ local KDU_B = not m.delta and not diag
@ local WS_X, WS_W = 0, sv and K or 0
@ local WS_U = WS_W + (m.delta and K or 0)
@ local WS_KD = WS_U + (KDU_B and 0 or V) -- (KDU_B: no U per token, bgrad reads V)
@ -- WS_T (with an erase): T = (I - NAKK)^-1's rows (C floats a token), from the keep forms of prep (prep_keep,
@ -- prep_fused_keep) and from the backward's fprep, for the backward's dr = T' du (bstate's with scalar decays, else
@ -- bval's), which then need not form T again
@ local WS_T = WS_KD + (KDU_B and 0 or K) -- (KDU_B: no kd per token)
@ local WS_TOK = WS_T + (m.delta and C or 0)
@ local WS_ZD = K * V
@ -- a solve's: the chunk's part of H's advance, then its chunk-start H (K x K) first, the chunk's decay after (WS_HD)
@ local WS_CHUNK = math.max(WS_ZD + K, sv and K * K + 4 or 0)
@ -- the split forward with an erase (DSPLIT: on HD's body, K a multiple of V). Its segment pass (fused90_seg: HD's body
@ -- as SEGP) runs 1 + K / V blocks a segment: the value rows from zero (the segment's state alone, into its slot) and
@ -- the rows of the segment's transition P (K x K: the chain's map of a state, rows from the identity, no values),
@ -- left in the per-token workspace of the segment's first chunk past T's rows (WS_P on, DS_PR rows of P a token: every
@ -- segment but the last, which needs none, has whole chunks). The scan (fused90_scan: DS_NT threads, a float4 of the
@ -- state each, all K rows a block) chains them; HD's pass (fused90_split) then runs every segment from its start state
@ -- (the last one's end the final state).
@ local DSPLIT, DS_PR, WS_P, DS_NT = false, 0, WS_W + C, 256 -- DS_NT: the scan's threads (a float4 of Z each)
@ if HD and K % V == 0 and 4 * DS_NT % K == 0 and not sv then
@   DS_PR = (WS_TOK - WS_P) // K
@   DSPLIT = DS_PR >= 1 and (K + DS_PR - 1) // DS_PR <= C
@ end
@ if DSPLIT then SPLIT = true end
@ local SOLVE_SEQ_PCT = 95 -- the sequential solve from this percent of the SM count in work items on (H200, bf16 K = V = 128: B8 H16 (97%) 25.4 ms vs psolve 25.8; B4 (48%) 24.5 vs 13.5); with psolve90 (PS90) never by itself
@ -- decode without a solve (two stages, the same body): each thread holds R key rows x 4 consecutive
@ -- value columns of the state in registers, read and written in 16-byte pieces; a block covers dbv
@ -- columns (cg = dbv / 4 column groups) and all K rows: nrp = threads / cg row parts, row part rp
@ -- holding rows rp + i nrp, so one warp instruction covers 32 / cg consecutive rows (whole lines).
@ -- The sums over the keys (S k, S q, k . q, or the readout) go over the row parts: shuffles inside
@ -- a warp, then one partial per warp and column in shared memory (ns of them).
@ --   decode        (small batches: latency) 16 columns a block, (sequence, value head, value
@ --                 tile) blocks: the state of one layer at B1 streams through 8 x h_v SMs
@ --   decode_large  (large batches: streaming) the whole value width a block, one per (sequence,
@ --                 value head): 64 KiB contiguous at K = V = 128, no input staged twice. With a
@ --                 rank-1 erase every store waits for the sums over all rows: the state is staged
@ --                 in shared memory instead of registers (80 registers), three blocks an SM keep
@ --                 loads in flight while one reduces (H200: 89.1% of the copy floor at B512 H16,
@ --                 88.1% from registers, two blocks an SM), in DL_PARTS column parts (below)
@ -- The block index runs over the value tiles of one item first, so blocks that run together read
@ -- neighbouring memory. decode_large from PLAIN_LARGE_PCT percent of the SM count in work items on.
@ local function plain_cfg(dbv, nt, minb, pre, smem, parts)
@   local c = {dbv = dbv, cg = dbv // 4, pre = pre, minb = minb, smem = smem, parts = parts or 1}
@   -- row parts: the most that divide K within nt threads (halving skipped divisors: K = 32, V = 80 went from 12 to
@   -- 1 row part, a block of 20 threads, where 8 divide 32)
@   c.nrp = math.max(1, math.min(nt // c.cg, K))
@   while K % c.nrp ~= 0 do c.nrp = c.nrp - 1 end
@   c.nt, c.r = c.nrp * c.cg, K // c.nrp
@   c.shfl = 32 % c.cg == 0 and c.nt % 32 == 0 -- lanes of one column group in one warp: reduce there first
@   c.rpw = c.shfl and 32 // c.cg or 1 -- row parts a warp (after the shuffles: one partial a warp)
@   c.ns = c.nrp // c.rpw
@   c.na = m.delta and 9 or 4 -- sums a thread carries: S k and S q of 4 columns and k . q, or y of 4
@   c.lay = new_layout()
@   local alloc = c.lay.alloc
@   if c.smem then -- the whole state of the item, copied in by cp.async (registers free: 3 blocks an SM)
@     alloc('ST', K * dbv * c.parts); c.minb = 3
@   end
@   for _, x in ipairs(P.inputs) do alloc('IN' .. x.idx, x.D) end
@   c.ng = m.delta and 2 or 1 -- float4 groups of those sums
@   alloc('PS', c.ng * c.ns * c.cg * 4 + c.ns) -- [group][partial][column group] float4, then k . q [partial]
@   c.off = c.lay.off
@   return c
@ end
@ -- measured on an H200 (132 SMs, K = V = 128, h_v = 16): decode faster at B8 (1 item an SM), decode_large
@ -- from B32 on (3.9 items an SM: GDN 25.4 vs 26.5 us, Mamba-2 22.9 vs 24.4 us); bench/2026-11-23-gpu-h200-decode
@ local PLAIN_LARGE_PCT = 300
@ -- decode_large with an erase: the item's columns in DL_PARTS parts, one cp.async group each, each part summed
@ -- and written while the next one arrives (H200, bf16 B512 H16, bench/, the gpu-h200-narrow record: GDN
@ -- 0.2885 -> 0.2789 ms, 88.9% -> 91.9% of the copy floor; DeltaNet 92.2%, KDA 90.0%; four parts 82.7%)
@ local DL_PARTS = 2
@ local DSM, DLP
@ if not sv then
@   DSM = plain_cfg(V % 16 == 0 and 16 or 8, 128, 1, 'D_')
@   -- whole items up to 32 K floats of state (16 float4 a thread); a larger one takes decode's tiles
@   local parts = m.delta and DL_PARTS or 1
@   if K * V <= 16384 then DLP = plain_cfg(V // parts, 256, 2, 'DL_', m.delta, parts)
@   elseif K * V <= 32768 then DLP = plain_cfg(V, 512, 1, 'DL_')
@   else DLP = plain_cfg(DSM.dbv, 128, 1, 'DL_'); DLP.tiles = true end
@ end
@ local DBV = sv and V or DSM.dbv
@ -- A solve's decode stages (one block per (sequence, value head)): H held in registers for the r
@ -- matvecs as the full symmetric matrix, rb rows x cb columns a thread (columns interleaved in
@ -- float4 groups: 4 (col + ncb s) + e), filled from the packed lower triangle staged in shared
@ -- memory by cp.async (the upper half from the mirror elements) and written back from there in
@ -- 16-byte pieces; one thread per row after a transposing shuffle reduction over the ncb threads of
@ -- a row block; U staged by cp.async and updated and read from shared memory. Two configurations:
@ --   decode        (small batches: latency) U copied in from the start, beside H: it arrives
@ --                 during the whole step; a larger block (two an SM on an H200)
@ --   decode_large  (large batches: concurrency) U copied into H's place once H is back in global
@ --                 memory, while the solve runs: a smaller block, one more an SM
@ -- decode_large runs from LARGE_FROM_PCT percent of the SM count in work items on (the measured
@ -- crossover). rb: the first of 8, 4, 2 with the fewest ncb giving at most 128 registers of H a
@ -- thread, whole warps and float4 column groups; over: registers a thread besides H's, which sets
@ -- the blocks an SM the launch bounds ask for (minb); none where U and H do not fit in 112 KiB.
@ local NPK = K * (K + 1) // 2 -- packed H, a multiple of 8 floats (K % 16 == 0)
@ local function solve_cfg(want, pre)
@   local c = {pre = pre, share = want.share}
@   for _, rb in ipairs(want.rb and {want.rb} or {8, 4, 2}) do
@     local ncb = want.ncb or 1
@     while not c.nt and ncb <= 32 do
@       local cb, nt = K // ncb, (K // rb) * ncb
@       if K % (4 * ncb) == 0 and rb * cb <= 128 and nt % 32 == 0 and nt <= 1024 and (V % nt == 0 or nt % V == 0) then
@         c.rb, c.ncb, c.cb, c.nt = rb, ncb, cb, nt
@       end
@       ncb = ncb * 2
@     end
@   end
@   if not c.nt then return nil end
@   c.lay = new_layout()
@   local alloc = c.lay.alloc
@   -- U and H staged where they fit (the cp.async destinations are 16-byte aligned); else read and
@   -- written in place in global memory (uglob: U, hglob: H too), each element by one thread
@   c.uglob, c.hglob = want.uglob, want.hglob
@   -- (shared: U's place holds the packed H first, larger where V < (K + 1) / 2: at K = 128, V = 64 it overran into
@   -- the inputs' vectors and decode_large's y was garbage, s42)
@   if not c.uglob then alloc('U', (c.share and not c.hglob) and math.max(K * V, NPK) or K * V) end
@   if c.hglob then -- no staged H
@   elseif c.share and not c.uglob then c.lay[#c.lay + 1] = {'HP', 0}
@   else alloc('HP', NPK) end
@   for _, x in ipairs(P.inputs) do alloc('IN' .. x.idx, x.D) end
@   alloc('QT', K); alloc('DK', K); alloc('RED', 32); alloc('XS', 2 * K); alloc('X', K)
@   if c.nt > V then alloc('PS', 2 * (c.nt // V) * V) end
@   c.off = c.lay.off
@   if c.off * 4 > 112 * 1024 then return nil end
@   c.minb = math.min(228 * 1024 // (c.off * 4 + 1024), 2048 // c.nt, 16)
@   while c.minb > 1 and 65536 // (c.nt * c.minb) < c.rb * c.cb + want.over do c.minb = c.minb - 1 end
@   return c
@ end
@ local SMALL_CFG = {share = false, over = 64}
@ local LARGE_CFG = {share = true, over = 40}
@ -- the first configuration of want that fits: U and H staged, U in global memory, both there
@ local function solve_pick(want, pre)
@   local c = solve_cfg(want, pre)
@   for _, g in ipairs({{uglob = true}, {uglob = true, hglob = true}}) do
@     if c then break end
@     local w = {}
@     for key, val in pairs(want) do w[key] = val end
@     w.uglob, w.hglob = g.uglob, g.hglob
@     c = solve_cfg(w, pre)
@   end
@   return c
@ end
@ -- measured on an H200 (132 SMs, K = V = 128, h_v = 16): decode faster up to 3.9 work items an SM
@ -- (B32), decode_large from 7.8 on (B64); bench/2026-11-23-gpu-h200-gka-decode.md
@ local LARGE_FROM_PCT = 400
@ local DS = sv and solve_pick(SMALL_CFG, 'DS_')
@ local DLG = sv and solve_pick(LARGE_CFG, 'DL_')
@ assert(not sv or (DS and DLG), 'the decode of a solve needs its inputs and vectors in 112 KiB of shared memory')
// Generated by ssmc ${P.version} from template cuda_kernel.cu.tpl. DO NOT EDIT.
// Kernel   ${P.name}
// Family   ${P.family} (spec hash ${P.hash})
// Recognized: ${P.summary}
// CUDA module: ${sv and 'solve, ' or ''}chunkwise forward (chunk ${C}, value tile ${BV}) and decode, ${P.dtype} inputs, fp32 states.
#include "ssmc_kernel.h"

#define KD ${K}
#define VD ${V}
#define CH ${C}
#define BV ${BV}
#define SNT ${SNT}
#define SKP (KD + 4) /* row pitch of the solve stage's [.][K] tiles */
#define SCP (CH + 4) /* and of its [.][C] tiles */
@ if sv then
#define DNT ${math.min(1024, V * math.max(1, K // 32))}
#define PARTS ${math.max(1, K // 32)}
#define DBV ${DBV}
@ end
/* tile products' precision (mm's SPLIT): one tf32 product; bf16 hi + lo parts, three products (about
 * 2^-17 relative, where kd % 16 == 0, else as MM_TF3); tf32 hi + lo parts, three products (about fp32) */
#define MM_TF32 0
#define MM_BF3 1
#define MM_TF3 2
/* MM_TF3 with each k step's three products summed from zero and added to the accumulator in fp32 (round to nearest):
 * each mma truncates its sum toward zero (the tensor cores' accumulation), so a long sum accumulated in place loses
 * bits to the running total at every step; this way only to the step's own products (mm_acc, mm_tiles_f) */
#define MM_TF3P 3
#define MM_SPLIT ${(P.dtype == 'f32' or sv) and 'MM_BF3' or 'MM_TF32'} /* f32 inputs, and a solve's x (its readout cancels) */
/* the generic mm's (mm_tiles_f) split lo part passed as it is (see tf32_lo) only in its SEP form (the narrow
 * state passes, with registers to spare) of a module without per-key decays: rounded to tf32 elsewhere, NVRTC 13
 * spilled the wide state passes (GDN, DeltaNet: 148 B at sm_80) and KDA's (140-300 B) without it */
#define MM_RL ${diag and 1 or 0}
/* SSMC_WG: the out stage's product through wgmma on sm_90a (H200, Mamba-2 B8 T4096 H16: out 676 us
 * against 705 with mma.sync; bench/, the gpu-h200-wgmma record), and in the CPU emulation of sm_90a */
#if defined(SSMC_EMU) ? defined(SSMC_EMU_WG) : defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define SSMC_SM90 1
#else
#define SSMC_SM90 0
#endif
#define SSMC_WG (SSMC_SM90 && ${WG and 1 or 0})
#define KP ${KP}
#define BVP ${BVP}
#define CP ${CP}
#define PKP ${PKP} /* prep's key tile as loaded (WU16: rows of K + 8) */
#define VPF ${VPF}
#define OBV ${OBV} /* the out stage's value tile */
#define OBVP ${OBVP}
@ if WG then
#define WGN ${WGN} /* the columns of a warpgroup's share of the out stage's wgmma product */
@ end
@ if FUSED then
#define FBV ${FBV} /* the fused stage's value tile */
#define FBVP ${vpad(FBV)}
@ end
#define QAP ${QAP}
#define WS_TOK ${WS_TOK} /* workspace floats per token and value head: [x] [W] [U] [kd] [T] */
#define WS_W ${WS_W}
@ if not KDU_B then
#define WS_U ${WS_U}
#define WS_KD ${WS_KD}
@ end
@ if m.delta then
#define WS_T ${WS_T}
@ end
#define WS_ZD ${WS_ZD}
@ if DSPLIT then
#define WS_P ${WS_P} /* a split forward's segment transition rows (DSPLIT), DS_PR a token */
#define DS_PR ${DS_PR}
@ end
#define WS_CHUNK ${WS_CHUNK} /* per chunk slot and value head: the chunk-start state */
@ if sv then
#define WS_HD ${K * K} /* a solve's chunk decay e^{hb_L} (hdelta, hscan), after H */
@ end
#define __builtin_expf expf
#define __builtin_logf logf
#define __builtin_sqrtf sqrtf

__device__ __forceinline__ void st1b(unsigned short *p, float f) { /* round to nearest even, NaN kept */
  unsigned u = __float_as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) { *p = (unsigned short)((u >> 16) | 0x40u); return; }
  u += 0x7fffu + ((u >> 16) & 1u);
  *p = (unsigned short)(u >> 16);
}
@ if P.dtype == 'bf16' then
typedef unsigned short elem_t;
__device__ __forceinline__ float ld1(const elem_t *p) { return __uint_as_float((unsigned)*p << 16); }
__device__ __forceinline__ void st1(elem_t *p, float f) { st1b(p, f); }
@ else
typedef float elem_t;
__device__ __forceinline__ float ld1(const elem_t *p) { return *p; }
__device__ __forceinline__ void st1(elem_t *p, float f) { *p = f; }
@ end

/* Four consecutive elements (16-byte aligned rows for f32, 8-byte for bf16: every device pointer of
 * the ABI is 16-byte aligned and every row offset a multiple of 4 elements). */
/* raw4<T>: four elements as loaded (converted to float only when put, so a fetch does not wait) */
template <typename T> struct raw4;
template <> struct raw4<float> {
  float4 v;
  __device__ __forceinline__ void load(const float *p) { v = *(const float4 *)p; }
  __device__ __forceinline__ void zero() { v = make_float4(0.0f, 0.0f, 0.0f, 0.0f); }
  __device__ __forceinline__ void store(float *p) const { *(float4 *)p = v; }
  __device__ __forceinline__ float4 f() const { return v; }
};
template <> struct raw4<unsigned short> {
  uint2 v;
  __device__ __forceinline__ void load(const unsigned short *p) { v = *(const uint2 *)p; }
  __device__ __forceinline__ void zero() { v = make_uint2(0u, 0u); }
  __device__ __forceinline__ void store(unsigned short *p) const { *(uint2 *)p = v; }
  __device__ __forceinline__ float4 f() const {
    return make_float4(__uint_as_float(v.x << 16), __uint_as_float(v.x & 0xffff0000u), __uint_as_float(v.y << 16),
                       __uint_as_float(v.y & 0xffff0000u));
  }
};
__device__ __forceinline__ void st4(float *p, float4 v) { *(float4 *)p = v; }
__device__ __forceinline__ void st4(unsigned short *p, float4 v) {
  unsigned short h[4];
  st1b(h, v.x); st1b(h + 1, v.y); st1b(h + 2, v.z); st1b(h + 3, v.w);
  *(uint2 *)p = make_uint2((unsigned)h[0] | (unsigned)h[1] << 16, (unsigned)h[2] | (unsigned)h[3] << 16);
}
struct one_t { __device__ float operator()(int) const { return 1.0f; } };
/* x rounded to tf32 (to nearest, ties away: cvt.rna.tf32.f32 in two integer operations), as a float */
__device__ __forceinline__ float tf32_rna(float x) { return __uint_as_float((__float_as_uint(x) + 0x1000u) & 0xffffe000u); }
/* wgmma's K-major operand without swizzle, 32-bit elements: 8 x 4 core matrices of 128 contiguous
 * bytes (row n % 8, k % 4), the next along k lbo floats on (LBO: 32, contiguous, or padded), the next
 * along n sbo floats on (SBO): element (n, k) at core_at(n, k, sbo, lbo) */
__device__ __forceinline__ int core_at(int n, int k, int sbo, int lbo = 32) { return (n >> 3) * sbo + (k >> 2) * lbo + (n & 7) * 4 + (k & 3); }
/* A ROWS x D tile on its way from global to shared memory, in the registers of NTH threads (threads
 * T0 .. T0 + NTH - 1; four elements a thread at a time): fetch issues every load of the thread and returns, so the
 * loads of several tiles (or of the next chunk) are in flight together; put writes
 * dst[t * ld + d] (+)= coef(t) * src[t * rs + d] for t < L (rows past L: 0, or kept with acc).
 * D % 4 == 0. */
template <int NTH, int ROWS, int D, typename T, bool G8 = false, int T0 = 0> struct tile_regs {
  static constexpr int NV = ROWS * D / 4, PER = (NV + NTH - 1) / NTH;
  static_assert(!G8 || ROWS % 8 == 0, "G8 tiles are groups of 8 rows");
  raw4<T> r[PER];
  /* the row t and column d of the thread's i-th four elements: row by row, or with G8 eight rows at a
   * time, consecutive threads down the rows (a warp: 8 rows x 16 columns; into wgmma's operands) */
  __device__ __forceinline__ static int row_of(int i, int &d) {
    const int v = (int)threadIdx.x - T0 + i * NTH;
    if (!G8) { const int t = v / (D / 4); d = (v - t * (D / 4)) * 4; return t; }
    const int w = v % (2 * D);
    d = (w >> 3) * 4;
    return v / (2 * D) * 8 + (w & 7);
  }
  __device__ __forceinline__ void fetch(const T *src, long long rs, int L) {
#pragma unroll
    for (int i = 0; i < PER; i++) {
      int d;
      const int v = (int)threadIdx.x - T0 + i * NTH, t = row_of(i, d);
      if (v < NV && t < L) r[i].load(src + t * rs + d);
      else r[i].zero();
    }
  }
  template <typename F> __device__ __forceinline__ void put(float *dst, int ld, int L, F coef, bool acc) const {
#pragma unroll
    for (int i = 0; i < PER; i++) {
      int d;
      const int v = (int)threadIdx.x - T0 + i * NTH, t = row_of(i, d);
      if (v >= NV || (acc && t >= L)) continue;
      float4 *o = (float4 *)(dst + t * ld + d), x = r[i].f();
      if (t < L) {
        const float c = coef(t);
        x.x *= c; x.y *= c; x.z *= c; x.w *= c;
        if (acc) { const float4 p = *o; x.x += p.x; x.y += p.y; x.z += p.z; x.w += p.w; }
      }
      *o = x;
    }
  }
  /* into wgmma's K-major operand (core_at): element (t, d) at n = d, k = k0 + t, times coef(t),
   * rounded to tf32 (rows past L: 0) */
  template <typename F> __device__ __forceinline__ void put_core(float *dst, int k0, int sbo, int L, F coef) const {
#pragma unroll
    for (int i = 0; i < PER; i++) {
      int d;
      const int v = (int)threadIdx.x - T0 + i * NTH, t = row_of(i, d);
      if (v >= NV) continue;
      const float4 x = r[i].f();
      const float c = t < L ? coef(t) : 0.0f;
      float *o = dst + core_at(d, k0 + t, sbo); /* d % 4 == 0: n = d..d + 3 in one core matrix, 4 floats apart */
      o[0] = tf32_rna(x.x * c);
      o[4] = tf32_rna(x.y * c);
      o[8] = tf32_rna(x.z * c);
      o[12] = tf32_rna(x.w * c);
    }
  }
  /* into wgmma's K-major operand untransposed: element (t, d) at n = t, k = d (+)= coef(t) times it,
   * rounded to tf32 (rows past L: 0, or kept with acc) */
  template <typename F> __device__ __forceinline__ void put_core_rows(float *dst, int sbo, int L, F coef, bool acc) const {
#pragma unroll
    for (int i = 0; i < PER; i++) {
      int d;
      const int v = (int)threadIdx.x - T0 + i * NTH, t = row_of(i, d);
      if (v >= NV || (acc && t >= L)) continue;
      float4 x = r[i].f();
      float4 *o = (float4 *)(dst + core_at(t, d, sbo)); /* k = d..d + 3: one row of a core matrix */
      const float c = t < L ? coef(t) : 0.0f;
      x.x *= c; x.y *= c; x.z *= c; x.w *= c;
      if (acc) { const float4 p = *o; x.x += p.x; x.y += p.y; x.z += p.z; x.w += p.w; }
      *o = make_float4(tf32_rna(x.x), tf32_rna(x.y), tf32_rna(x.z), tf32_rna(x.w));
    }
  }
  /* into wgmma's K-major operand untransposed (core_at with lbo): element (t, d) at n = t, k = d as its tf32
   * hi part (rounded) in hi and, with LO, the rest in lo (passed as it is: see tf32_lo); rows past L: 0 */
  template <bool LO> __device__ __forceinline__ void put_core_hl(float *hi, float *lo, int sbo, int lbo) const {
#pragma unroll
    for (int i = 0; i < PER; i++) {
      int d;
      const int v = (int)threadIdx.x - T0 + i * NTH, t = row_of(i, d);
      if (v >= NV) continue;
      const float4 x = r[i].f(), h = make_float4(tf32_rna(x.x), tf32_rna(x.y), tf32_rna(x.z), tf32_rna(x.w));
      const int o = core_at(t, d, sbo, lbo); /* k = d..d + 3: one row of a core matrix */
      *(float4 *)(hi + o) = h;
      if (LO) *(float4 *)(lo + o) = make_float4(x.x - h.x, x.y - h.y, x.z - h.z, x.w - h.w);
    }
  }
  /* dst[t * rs + d] = coef(t) times the elements, rows t < L only (into global memory); rs % 4 == 0 */
  template <typename F> __device__ __forceinline__ void store(float *dst, long long rs, int L, F coef) const {
#pragma unroll
    for (int i = 0; i < PER; i++) {
      int d;
      const int v = (int)threadIdx.x - T0 + i * NTH, t = row_of(i, d);
      if (v >= NV || t >= L) continue;
      float4 x = r[i].f();
      const float c = coef(t);
      x.x *= c; x.y *= c; x.z *= c; x.w *= c;
      *(float4 *)(dst + t * rs + d) = x;
    }
  }
  /* dst[t * ld + d] = the elements as loaded (rows past L: 0); ld % 4 == 0 */
  __device__ __forceinline__ void put_raw(T *dst, int ld) const {
#pragma unroll
    for (int i = 0; i < PER; i++) {
      int d;
      const int v = (int)threadIdx.x - T0 + i * NTH, t = row_of(i, d);
      if (v < NV) r[i].store(dst + t * ld + d);
    }
  }
};
/* A column of ROWS scalars (one per token, row stride rs), one a thread (threads T0 ..). */
template <int NTH, int ROWS, int T0 = 0> struct col_regs {
  static_assert(ROWS <= NTH, "a column needs a thread per row");
  float r;
  __device__ __forceinline__ void fetch(const float *src, long long rs, int L) {
    const int t = (int)threadIdx.x - T0;
    r = t < L && t < ROWS ? src[t * rs] : 0.0f;
  }
  __device__ __forceinline__ void put(float *dst, int ld) const {
    const int t = (int)threadIdx.x - T0;
    if (t < ROWS) dst[t * ld] = r;
  }
};
template <int NTH, int ROWS, int D, typename T, typename F>
__device__ __forceinline__ void tile_in(float *dst, int ld, const T *src, long long rs, int L, F coef, bool acc) {
  tile_regs<NTH, ROWS, D, T> r;
  r.fetch(src, rs, L);
  r.put(dst, ld, L, coef, acc);
}
/* dst[t * rs + d] = src[t * ld + d] for t < L, d < D; D % 4 == 0. */
template <int NTH, int ROWS, int D, typename T>
__device__ __forceinline__ void tile_out(T *dst, long long rs, const float *src, int ld, int L) {
  for (int v = threadIdx.x; v < ROWS * D / 4; v += NTH) {
    const int t = v / (D / 4), d = (v - t * (D / 4)) * 4;
    if (t < L) st4(dst + t * rs + d, *(const float4 *)(src + t * ld + d));
  }
}

/* c (m x n) = [c +] a . b over kd, a(i, k) = a[i*ars + k*acs], b(k, j) = b[k*brs + j*bcs] (mm<ldc, ars, acs, brs, bcs>);
 * a and b in shared memory, as float or as bf16 (exact in tf32), c a float tile there (leading
 * dimension ldc) or in global memory (8-byte aligned, ldc even), aliasing neither, or any target
 * of mm_to (see gmat); m % 16 == 0, n % 8 == 0, kd % 8 == 0; ends with a block barrier. Tensor
 * cores (mma.sync m16n8k8 tf32, fp32 accumulation); split forms (SPLIT: MM_BF3, MM_TF3) part each
 * float operand into hi + lo (bf16 in mma.sync m16n8k16, or tf32) and sum three products (a bf16
 * operand has no lo part).
 * Each warp owns 16 x NB tiles of c. Leading dimensions = 4 (mod 32) for row-major float operands
 * and = 8 (mod 32) for [k][j] ones keep the fragment loads free of bank conflicts (for bf16 ones:
 * = 4 (mod 64) and = 8 (mod 64)). */
__device__ __forceinline__ unsigned tf32(float x) { return __float_as_uint(tf32_rna(x)); } /* a tf32 operand's bits */
/* x parted into a tf32 hi part (with X, x exact in tf32: its bits as they are) and the rest (exact in fp32).
 * tf32_lo passes the rest as it is: mma.sync reads a tf32 operand's upper 19 bits, so it is truncated there
 * (2^-10 of a part <= 2^-11 x: ~2^-21 x; rounding it first took two integer operations a fragment element,
 * ~10% of GDN's bgrad instructions; unrounded in the generic mm_tiles_f on sm_90 too, GDN B8 bwd 5.89 -> 5.76 ms
 * on an H200, session 45). RL: rounded (mm_tiles_f off sm_90 unless its lo terms are summed apart, and where
 * MM_RL says; the solve's cheb_mm, not timed) */
__device__ __forceinline__ unsigned tf32_lo(float x, unsigned h) { return __float_as_uint(x - __uint_as_float(h)); }
template <bool X = false, bool RL = false> __device__ __forceinline__ void tf32_hl(float x, unsigned &h, unsigned &l) {
  h = X ? __float_as_uint(x) : tf32(x);
  l = RL ? tf32(x - __uint_as_float(h)) : tf32_lo(x, h);
}
/* the widest tiles of c, 16 x mm_nb, that still give every one of the warps one (mm_to's and mm_f's rule) */
__device__ __forceinline__ constexpr int mm_nb(int m, int n, int warps) {
  return n % 32 == 0 && (m / 16) * (n / 32) >= warps ? 32 : n % 16 == 0 && (m / 16) * (n / 16) >= warps ? 16 : 8;
}
__device__ __forceinline__ float ldop(const float *p) { return *p; }
__device__ __forceinline__ float ldop(const unsigned short *p) { return __uint_as_float((unsigned)*p << 16); }
/* The module's inline PTX is in mma8 and the helpers below it; SSMC_EMU (the CPU emulation of
 * ssmc check --backend cuda-emu, compiler/emu_cuda.h) gives them C++ bodies. */
#ifndef SSMC_EMU
__device__ __forceinline__ void mma8(float *d, const unsigned *a, const unsigned *b) {
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
/* mma.sync m16n8k16 bf16 (fp32 accumulation): a and b hold bf16 pairs, the lower half the even k */
__device__ __forceinline__ void mma16(float *d, const unsigned *a, const unsigned *b) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
/* ldmatrix of 32-bit elements: an 8 x 4 block of them is an 8 x 8 block of b16 ones, so lane 4 g + q gets
 * element (g, q) of each block, mma8's fragment layout; block i's 8 row addresses (16-byte aligned) from
 * lanes 8 i .. 8 i + 7 (x2: lanes 0 .. 15) */
__device__ __forceinline__ void ldsm4(unsigned *r, const float *p) {
  const unsigned s = (unsigned)__cvta_generic_to_shared(p);
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(s));
}
__device__ __forceinline__ void ldsm2(unsigned *r, const float *p) {
  const unsigned s = (unsigned)__cvta_generic_to_shared(p);
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(s));
}
/* the same transposed, of b16 elements: lane 4 g + q gets elements (2q, g) and (2q + 1, g) of block i (rows
 * from lanes 8 i ..), mma16's b fragment of a tile stored with n contiguous */
__device__ __forceinline__ void ldsm4t(unsigned *r, const unsigned short *p) {
  const unsigned s = (unsigned)__cvta_generic_to_shared(p);
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(s));
}
/* stmatrix, transposed, of b16 pairs: matrix i's memory row j (16 bytes from lane 8 i + j's p) gets column j of the
 * 8 x 8 block whose row g, columns 2 q and 2 q + 1 lane 4 g + q holds in r[i] (an accumulator fragment's pair) */
__device__ __forceinline__ void stsm4t(unsigned short *p, const unsigned *r) {
  const unsigned s = (unsigned)__cvta_generic_to_shared(p);
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1,%2,%3,%4};" ::"r"(s), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3])
               : "memory");
}
/* The state streams through once: evict-first loads and stores (nothing reads it again this step). */
__device__ __forceinline__ float4 ld_state4(const float *p) {
  float4 v;
  asm volatile("ld.global.cs.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p));
  return v;
}
__device__ __forceinline__ void st_state4(float *p, float4 v) {
  asm volatile("st.global.cs.v4.f32 [%0], {%1,%2,%3,%4};" ::"l"(p), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w) : "memory");
}
/* The decay masks and factors e^{b_t - b_s} (b: cumulative log decays): fexp, __expf = ex2.approx of x log2(e),
 * three instructions for expf's ten, relative error ~2^-22 + |x| 2^-24 (a tf32 product's: 2^-11). H200 B8
 * T4096 H16 bf16: GLA forward 3.28 -> 2.97 ms (its per-key decay loops take C^2 K of them a chunk), Mamba-2 and
 * GDN within 1% (bench/, the gpu-h200-expf-prefetch record). */
__device__ __forceinline__ float fexp(float x) { return __expf(x); }
/* the 128-byte line at p into L2 (no register, nothing waits for it) */
__device__ __forceinline__ void prefetch_l2(const void *p) { asm volatile("prefetch.global.L2 [%0];" ::"l"(p)); }
/* 16 bytes from global to shared memory, asynchronously; _hint: with an L2 policy (evict_first) */
__device__ __forceinline__ void cp_async16(float *dst, const float *src) {
  const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d), "l"(src) : "memory");
}
/* the same, or 16 zero bytes where !ok (src is not read) */
__device__ __forceinline__ void cp_async16_z(float *dst, const float *src, bool ok) {
  const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(d), "l"(src), "r"(ok ? 16 : 0) : "memory");
}
__device__ __forceinline__ unsigned long long evict_first() {
  unsigned long long pol;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
  return pol;
}
__device__ __forceinline__ void cp_async16_hint(float *dst, const float *src, unsigned long long pol) {
  const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2;" ::"r"(d), "l"(src), "l"(pol) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N> __device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory"); }
/* named barrier id (1 .. 15) of n threads (whole warps): wait at it, or arrive without waiting */
__device__ __forceinline__ void bar_wait(int id, int n) { asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(n) : "memory"); }
__device__ __forceinline__ void bar_arrive(int id, int n) { asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(n) : "memory"); }
/* the same, and the block's barrier 0, in their non-aligned forms (barrier.sync / barrier.arrive): for barriers that
 * warps reach from different places in the code (bar.sync and __syncthreads are barrier.sync.aligned: every thread of
 * the block at the same instruction) */
__device__ __forceinline__ void bar_wait_na(int id, int n) { asm volatile("barrier.sync %0, %1;" ::"r"(id), "r"(n) : "memory"); }
__device__ __forceinline__ void bar_arrive_na(int id, int n) { asm volatile("barrier.arrive %0, %1;" ::"r"(id), "r"(n) : "memory"); }
__device__ __forceinline__ void bar_all_na() { asm volatile("barrier.sync 0;" ::: "memory"); }
@ if #WG_NS > 0 or #WG16_NS > 0 then
#if SSMC_SM90
/* wgmma (sm_90a), issued by a whole warpgroup: d (64 x N, the m16n8 fragments of warp w of the group
 * at rows 16 w..) += A (64 x 8) B (N x 8)', both tf32 in shared memory (descriptors: wg_desc);
 * asynchronous until wg_wait0. Generic stores to the operands need fence_async_smem before the
 * barrier that precedes the product. */
__device__ __forceinline__ void wg_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wg_wait0() { asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory"); }
__device__ __forceinline__ void wg_wait1() { asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory"); } /* all but the last group */
/* x as ptxas cannot see through: a value formed where it is used, not hoisted and held (psolve90's descriptors) */
__device__ __forceinline__ unsigned opaque(unsigned x) {
  asm volatile("mov.b32 %0, %0;" : "+r"(x));
  return x;
}
__device__ __forceinline__ void fence_async_smem() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }
/* a warpgroup's registers a thread from here on: fewer (a producer's) or more (its consumers') */
template <int N> __device__ __forceinline__ void regs_dec() { asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(N)); }
template <int N> __device__ __forceinline__ void regs_inc() { asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(N)); }
/* the descriptors as their 32-bit halves (al, ah; bl, bh), paired inside: see wg_product */
template <int N> __device__ __forceinline__ void wg_mma(float *d, unsigned al, unsigned ah, unsigned bl, unsigned bh);
@   for _, n in ipairs(WG_NS) do
@     local regs, outs = {}, {}
@     for i = 0, n // 2 - 1 do regs[#regs + 1] = '%' .. i; outs[#outs + 1] = '"+f"(d[' .. i .. '])' end
template <> __device__ __forceinline__ void wg_mma<${n}>(float *d, unsigned al, unsigned ah, unsigned bl, unsigned bh) {
  asm volatile("{\n.reg .pred p;\n.reg .b64 da, db;\nsetp.ne.b32 p, %${n // 2 + 4}, 0;\n"
               "mov.b64 da, {%${n // 2}, %${n // 2 + 1}};\nmov.b64 db, {%${n // 2 + 2}, %${n // 2 + 3}};\n"
               "wgmma.mma_async.sync.aligned.m64n${n}k8.f32.tf32.tf32 {${table.concat(regs, ', ')}}, da, db, p, 1, 1;\n}"
               : ${table.concat(outs, ', ')}
               : "r"(al), "r"(ah), "r"(bl), "r"(bh), "r"(1));
}
@   end
@   if #WGR_NS > 0 then
/* the same with A from registers (fused90's T form): a, the warp's 16 rows of A as m16n8k8's tf32 A fragment
 * ({A(g, q), A(g + 8, q), A(g, q + 4), A(g + 8, q + 4)}); B from its descriptor (K-major) */
template <int N> __device__ __forceinline__ void wg_mmar(float *d, const unsigned *a, unsigned bl, unsigned bh);
@     for _, n in ipairs(WGR_NS) do
@       local regs, outs = {}, {}
@       for i = 0, n // 2 - 1 do regs[#regs + 1] = '%' .. i; outs[#outs + 1] = '"+f"(d[' .. i .. '])' end
@       local b = n // 2
template <> __device__ __forceinline__ void wg_mmar<${n}>(float *d, const unsigned *a, unsigned bl, unsigned bh) {
  asm volatile("{\n.reg .pred p;\n.reg .b64 db;\nsetp.ne.b32 p, %${b + 6}, 0;\nmov.b64 db, {%${b + 4}, %${b + 5}};\n"
               "wgmma.mma_async.sync.aligned.m64n${n}k8.f32.tf32.tf32 {${table.concat(regs, ', ')}}, {%${b}, %${b + 1}, %${b + 2}, %${b + 3}}, db, p, 1, 1;\n}"
               : ${table.concat(outs, ', ')}
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(bl), "r"(bh), "r"(1));
}
@     end
@   end
@   if #WG16_NS > 0 then
/* the bf16 product m64nNk16 (fused90's bf16 form): d += A B' from the descriptors (wg16_desc), A and B each
 * K-major (TA / TB 0) or MN-major (1: the transposed operand) */
template <int N, int TA, int TB> __device__ __forceinline__ void wg_mma16(float *d, unsigned al, unsigned ah, unsigned bl, unsigned bh) {
@     for j, n in ipairs(WG16_NS) do
@       local regs, outs = {}, {}
@       for i = 0, n // 2 - 1 do regs[#regs + 1] = '%' .. i; outs[#outs + 1] = '"+f"(d[' .. i .. '])' end
  ${j > 1 and 'else ' or ''}if constexpr (N == ${n})
    asm volatile("{\n.reg .pred p;\n.reg .b64 da, db;\nsetp.ne.b32 p, %${n // 2 + 4}, 0;\n"
                 "mov.b64 da, {%${n // 2}, %${n // 2 + 1}};\nmov.b64 db, {%${n // 2 + 2}, %${n // 2 + 3}};\n"
                 "wgmma.mma_async.sync.aligned.m64n${n}k16.f32.bf16.bf16 {${table.concat(regs, ', ')}}, da, db, p, 1, 1, %${n // 2 + 5}, %${n // 2 + 6};\n}"
                 : ${table.concat(outs, ', ')}
                 : "r"(al), "r"(ah), "r"(bl), "r"(bh), "r"(1), "n"(TA), "n"(TB));
@     end
}
@   end
@   if #WG16R_NS > 0 then
/* the same with A from registers (psolve90): a, the warp's 16 rows of A (m16n8k16's A fragment: the accumulators of
 * a product over those rows give it, paired: d[8 j + 2 m], d[8 j + 2 m + 1] -> a[4 j + m] of k step j); B from its
 * descriptor, K-major (TB 0) or MN-major (1) */
template <int N, int TB> __device__ __forceinline__ void wg_mma16r(float *d, const unsigned *a, unsigned bl, unsigned bh) {
@     for j, n in ipairs(WG16R_NS) do
@       local regs, outs = {}, {}
@       for i = 0, n // 2 - 1 do regs[#regs + 1] = '%' .. i; outs[#outs + 1] = '"+f"(d[' .. i .. '])' end
@       local b = n // 2
  ${j > 1 and 'else ' or ''}if constexpr (N == ${n})
    asm volatile("{\n.reg .pred p;\n.reg .b64 db;\nsetp.ne.b32 p, %${b + 6}, 0;\nmov.b64 db, {%${b + 4}, %${b + 5}};\n"
                 "wgmma.mma_async.sync.aligned.m64n${n}k16.f32.bf16.bf16 {${table.concat(regs, ', ')}}, {%${b}, %${b + 1}, %${b + 2}, %${b + 3}}, db, p, 1, 1, %${b + 7};\n}"
                 : ${table.concat(outs, ', ')}
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(bl), "r"(bh), "r"(1), "n"(TB));
@     end
}
@   end
#endif
@ end
#endif
@ if #WG_NS > 0 or #WG16_NS > 0 then
#if SSMC_SM90
/* a wgmma operand's descriptor: K-major core matrices without swizzle (core_at), LBO lbo floats (along
 * k; 32: contiguous), SBO sbo floats (along m or n); adding lbo / 2 moves it 2 lbo floats on: the next 8 k */
__device__ __forceinline__ unsigned long long wg_desc(const float *p, int sbo, int lbo = 32) {
  const unsigned long long a = (unsigned)__cvta_generic_to_shared(p);
  return (a >> 4 & 0x3fffu) | (unsigned long long)(lbo * 4 >> 4 & 0x3fff) << 16 | (unsigned long long)(sbo * 4 >> 4 & 0x3fff) << 32;
}
/* d (64 x N, wg_mma's fragments) += A B' over KS steps of 8 k from the descriptors da, db on (LBO lbo floats),
 * issued only: between wg_fence and wg_commit. A step moves only the start address, the low 14 bits (shared
 * memory ends below 256 KiB: no carry out of them): a 32-bit add to the low words, the high words as they are
 * (the 64-bit adds, register moves and copies into uniform registers took ~20 instructions between two wgmma:
 * H200 ncu, the gpu-h200-expf-prefetch record) */
template <int N, int KS, int LBO = 32> __device__ __forceinline__ void wg_issue(float *d, unsigned long long da, unsigned long long db) {
  const unsigned al = (unsigned)da, ah = (unsigned)(da >> 32), bl = (unsigned)db, bh = (unsigned)(db >> 32);
#pragma unroll 4
  for (int k = 0; k < KS; k++)
    wg_mma<N>(d, al + (LBO / 2) * k, ah, bl + (LBO / 2) * k, bh);
}
/* the same, issued and waited for */
template <int N, int KS> __device__ __forceinline__ void wg_product(float *d, unsigned long long da, unsigned long long db) {
  wg_fence();
  wg_issue<N, KS>(d, da, db);
  wg_commit();
  wg_wait0();
}
@   if #WG16_NS > 0 then
/* bf16 operands in core matrices without swizzle: element (r, c) at core16(r, c, sbo, lbo) (bf16 elements): a
 * K-major operand's (row r, k = c), an MN-major one's (k = r, row c) with its SBO and LBO swapped */
__device__ __forceinline__ int core16(int r, int c, int sbo, int lbo) { return (r >> 3) * sbo + (c >> 3) * lbo + (r & 7) * 8 + (c & 7); }
/* their descriptor: SBO (along m or n) and LBO (along k) in bf16 elements */
__device__ __forceinline__ unsigned long long wg16_desc(const unsigned short *p, int sbo, int lbo) {
  const unsigned long long a = (unsigned)__cvta_generic_to_shared(p);
  return (a >> 4 & 0x3fffu) | (unsigned long long)(lbo * 2 >> 4 & 0x3fff) << 16 | (unsigned long long)(sbo * 2 >> 4 & 0x3fff) << 32;
}
/* a descriptor whose start address ptxas cannot see through (opaque) */
__device__ __forceinline__ unsigned long long op_desc(unsigned long long d) { return (d & ~0xffffffffull) | opaque((unsigned)d); }
/* d += A B' over KS steps of 16 k, a step moving A's start SA and B's SB 16-byte units (two LBO); issued only */
template <int N, int KS, int TA, int TB, int SA, int SB>
__device__ __forceinline__ void wg16_issue(float *d, unsigned long long da, unsigned long long db) {
  const unsigned al = (unsigned)da, ah = (unsigned)(da >> 32), bl = (unsigned)db, bh = (unsigned)(db >> 32);
#pragma unroll
  for (int k = 0; k < KS; k++) wg_mma16<N, TA, TB>(d, al + SA * k, ah, bl + SB * k, bh);
}
/* rows t < L of a (CH, D) bf16 tile at src (row stride rs) into core matrices, rows past L zero, by cp.async:
 * row t's 8-element piece j at (t / 8) 8 D + 64 j + 8 (t % 8), a K-major operand with rows t (core16 with SBO
 * 8 D, LBO 64) or an MN-major one with k = t (SBO 64, LBO 8 D). Thread i copies piece i % (D / 8) of rows
 * i / (D / 8) + RI s: pointer steps, no branch (ncu, the first form's per-piece index arithmetic and bounds
 * branch had each copy wait on the last one's address registers: ~12% of fused90's samples) */
template <int NTH, int D, int T0 = 0> __device__ __forceinline__ void tile_cp16(unsigned short *dst, const unsigned short *src, long long rs, int L) {
  constexpr int PR = D / 8, RI = NTH / PR; /* pieces a row, rows an iteration */
  const int tx = (int)threadIdx.x - T0; /* the copying threads T0 .. T0 + NTH - 1 */
  if constexpr (NTH % PR == 0 && RI % 8 == 0) {
    const int t0 = tx / PR, j = tx % PR;
    const unsigned short *s = src + t0 * rs + 8 * j;
    unsigned short *o = dst + (t0 >> 3) * 8 * D + 64 * j + 8 * (t0 & 7);
    if (L == CH) { /* a whole chunk: no zero rows */
#pragma unroll
      for (int i = 0; i < (CH + RI - 1) / RI; i++, s += RI * rs, o += RI * D) /* t % 8 stays */
        if (CH % RI == 0 || t0 + i * RI < CH) cp_async16((float *)o, (const float *)s);
      return;
    }
#pragma unroll
    for (int i = 0; i < (CH + RI - 1) / RI; i++, s += RI * rs, o += RI * D)
      if (CH % RI == 0 || t0 + i * RI < CH) cp_async16_z((float *)o, (const float *)(t0 + i * RI < L ? s : src), t0 + i * RI < L);
  } else {
#pragma unroll
    for (int i = 0; i < (CH * PR + NTH - 1) / NTH; i++) {
      const int v = tx + i * NTH, t = v / PR, j = v - t * PR;
      if (v < CH * PR) cp_async16_z((float *)(dst + (t >> 3) * 8 * D + 64 * j + 8 * (t & 7)), (const float *)(t < L ? src + t * rs + 8 * j : src), t < L);
    }
  }
}
@   end
/* such a product's accumulators into y: the warp's rows r0 and r0 + 8, columns c0 + 8 i (and + 1) */
template <int N, typename G> __device__ __forceinline__ void wg_store(const G &y, const float *d, int r0, int c0) {
#pragma unroll
  for (int i = 0; i < N / 8; i++) {
    y.store2(r0, c0 + 8 * i, d[4 * i], d[4 * i + 1]);
    y.store2(r0 + 8, c0 + 8 * i, d[4 * i + 2], d[4 * i + 3]);
  }
}
#endif
@ end
/* The scalar decay's mask of a pairwise C x C tile x (rows 16-byte aligned, ld % 4 == 0, b too): x(t, s) *=
 * r(t) cc(s) e^{b_t - b_s} where s <= t (STRICT: s < t) and t < L, else 0. Four columns a thread at a time, and
 * no exponential above the diagonal (ncu: the per-element form was 10% of Mamba-2's bprep samples). */
template <int NTH, bool STRICT, typename R, typename Cc = one_t>
__device__ __forceinline__ void pair_decay(float *x, int ld, const float *b, int L, R r, Cc cc = Cc()) {
  constexpr int S = STRICT ? 1 : 0;
  for (int v = threadIdx.x; v < CH * CH / 4; v += NTH) {
    const int t = v / (CH / 4), s = (v - t * (CH / 4)) * 4;
    float4 *p = (float4 *)(x + t * ld + s), y = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (t < L && s + S <= t) {
      const float4 xv = *p, bv = *(const float4 *)(b + s);
      const float bt = b[t], c = r(t);
      y.x = c * (xv.x * cc(s)) * fexp(bt - bv.x);
      if (s + 1 + S <= t) y.y = c * (xv.y * cc(s + 1)) * fexp(bt - bv.y);
      if (s + 2 + S <= t) y.z = c * (xv.z * cc(s + 2)) * fexp(bt - bv.z);
      if (s + 3 + S <= t) y.w = c * (xv.w * cc(s + 3)) * fexp(bt - bv.w);
    }
    *p = y;
  }
}
/* Rows of a ROWS x D tile x (rows 16-byte aligned, ld % 4 == 0): x(t, .) *= f(t), f once per four elements. */
template <int NTH, int ROWS, int D, typename F> __device__ __forceinline__ void rows_scale(float *x, int ld, F f) {
  static_assert(D % 4 == 0, "rows of float4");
  for (int v = threadIdx.x; v < ROWS * D / 4; v += NTH) {
    const int t = v / (D / 4), d = (v - t * (D / 4)) * 4;
    float4 *p = (float4 *)(x + t * ld + d), y = *p;
    const float c = f(t);
    y.x *= c; y.y *= c; y.z *= c; y.w *= c;
    *p = y;
  }
}
/* dst[t * ld + d] = src[t * rs + d] for t < L (rows past L: 0) by cp.async (complete at cp_async_wait);
 * D % 4 == 0, rows 16-byte aligned. Where the threads cover whole rows of 16-byte pieces, each thread copies one
 * column of pieces: its index arithmetic once, then pointer steps (ncu, H200 GDN's narrow state pass: the
 * per-piece divisions and 64-bit products were most of its integer instructions). */
template <int NTH, int ROWS, int D>
__device__ __forceinline__ void tile_cp(float *dst, int ld, const float *src, long long rs, int L) {
  constexpr int PR = D / 4; /* pieces a row */
  if constexpr (NTH % PR == 0) {
    constexpr int RI = NTH / PR; /* rows an iteration */
    const int t0 = (int)threadIdx.x / PR, d = ((int)threadIdx.x % PR) * 4;
    const float *s = src + t0 * rs + d;
    float *o = dst + t0 * ld + d;
#pragma unroll
    for (int i = 0; i < (ROWS + RI - 1) / RI; i++, s += RI * rs, o += RI * ld) {
      const int t = t0 + i * RI;
      if (ROWS % RI == 0 || t < ROWS) cp_async16_z(o, t < L ? s : src, t < L);
    }
  } else {
#pragma unroll
    for (int i = 0; i < (ROWS * PR + NTH - 1) / NTH; i++) {
      const int v = (int)threadIdx.x + i * NTH, t = v / PR, d = (v - t * PR) * 4;
      if (v < ROWS * PR) cp_async16_z(dst + t * ld + d, t < L ? src + t * rs + d : src, t < L);
    }
  }
}
/* a bf16 pair (x0 the lower half), each rounded to nearest even (the emulation: st1b's rounding) */
__device__ __forceinline__ unsigned bf2(float x0, float x1) {
#ifdef SSMC_EMU
  unsigned short h[2];
  st1b(h, x0);
  st1b(h + 1, x1);
  return (unsigned)h[0] | (unsigned)h[1] << 16;
#else
  unsigned d;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(x1), "f"(x0));
  return d;
#endif
}
/* The split form's k16 step (mm_tiles with SPLIT, kd % 16 == 0): mma16 on bf16 hi + lo parts, three
 * products (about 2^-17 relative; a bf16 operand exact, no lo part) where tf32 takes six. Its k slots
 * are permuted alike in a and b (slots 2q, 2q+1 hold k = q, q + 4; slots 2q + 8, 2q + 9 hold q + 8,
 * q + 12), so every fragment element is read from the address of the tf32 layout (the same banks). */
__device__ __forceinline__ void hl_pair(float x0, float x1, unsigned &h, unsigned &l) {
  h = bf2(x0, x1);
  l = bf2(x0 - __uint_as_float(h << 16), x1 - __uint_as_float(h & 0xffff0000u));
}
__device__ __forceinline__ void hl_pair(const unsigned short *p0, const unsigned short *p1, unsigned &h, unsigned &l) {
  h = (unsigned)*p0 | (unsigned)*p1 << 16;
  l = 0u;
}
__device__ __forceinline__ void hl_pair(const float *p0, const float *p1, unsigned &h, unsigned &l) { hl_pair(*p0, *p1, h, l); }
/* one k16 step of a 16 x 8*NS tile: a(i, k) at ap[i*ars + k*acs], b(k, j) at bp[k*brs + j*bcs] (lane offsets applied) */
template <int NS, int ars, int acs, int brs, int bcs, bool SE, typename TA, typename TB>
__device__ __forceinline__ void mm_k16(float (*d)[4], float (*e)[4], float (*f)[4], const TA *ap, const TB *bp) {
  constexpr bool SA = sizeof(TA) == 4, SB = sizeof(TB) == 4;
  if constexpr (!SA && !SB && acs == 1 && brs == 1) {
    /* both operands bf16 with k contiguous (prep's K K'): PTX's own slots (2q, 2q + 1: lane offset 2q, one 32-bit
     * load a register) in place of the permuted ones, which take two 16-bit loads; exact, one product (ncu: as
     * tf32 k8 steps, their 16-bit loads and conversions held ~19% of GDN's prep samples) */
    const int q = threadIdx.x & 3;
    unsigned a2[4];
#pragma unroll
    for (int r = 0; r < 4; r++) a2[r] = *(const unsigned *)(ap + q + (r & 1) * 8 * ars + (r >> 1) * 8);
#pragma unroll
    for (int s = 0; s < NS; s++) {
      const unsigned b2[2] = {*(const unsigned *)(bp + q + s * 8 * bcs), *(const unsigned *)(bp + q + s * 8 * bcs + 8)};
      mma16(d[s], a2, b2);
    }
    return;
  }
  unsigned ah[4], al[4];
#pragma unroll
  for (int r = 0; r < 4; r++) /* r: row g + 8 (r & 1), k q + 8 (r >> 1), and + 4 */
    hl_pair(ap + (r & 1) * 8 * ars + (r >> 1) * 8 * acs, ap + (r & 1) * 8 * ars + ((r >> 1) * 8 + 4) * acs, ah[r], al[r]);
#pragma unroll
  for (int s = 0; s < NS; s++) {
    unsigned bh[2], bl[2];
    hl_pair(bp + s * 8 * bcs, bp + s * 8 * bcs + 4 * brs, bh[0], bl[0]);
    hl_pair(bp + s * 8 * bcs + 8 * brs, bp + s * 8 * bcs + 12 * brs, bh[1], bl[1]);
    if (SA) mma16(SE ? e[SE ? s : 0] : d[s], al, bh);
    if (SB) mma16(SE ? f[SE ? s : 0] : d[s], ah, bl);
    mma16(d[s], ah, bh);
  }
}
/* Targets of a tile product: a float tile with a constant leading dimension (smem or global) */
template <int ldc> struct cmat {
  float *p;
  __device__ __forceinline__ float2 load2(int i, int j) const { return *(const float2 *)(p + i * ldc + j); }
  __device__ __forceinline__ void store2(int i, int j, float x, float y) const { *(float2 *)(p + i * ldc + j) = make_float2(x, y); }
};
/* rows i < rows of a global (rows, .) matrix of T with row stride ld (the chunk's tokens of a head) */
__device__ __forceinline__ void st2(float *p, float x, float y) { *(float2 *)p = make_float2(x, y); }
__device__ __forceinline__ void st2(unsigned short *p, float x, float y) {
  unsigned short h[2];
  st1b(h, x); st1b(h + 1, y);
  *(unsigned *)p = (unsigned)h[0] | (unsigned)h[1] << 16;
}
template <typename T> struct gmat {
  T *p;
  long long ld;
  int rows;
  __device__ __forceinline__ float2 load2(int, int) const { return make_float2(0.0f, 0.0f); } /* never accumulated into */
  __device__ __forceinline__ void store2(int i, int j, float x, float y) const { if (i < rows) st2(p + i * ld + j, x, y); }
};
/* a split product's k step into d: lo x hi (but where a is exact: XA), hi x lo (XB), hi x hi; with MM_TF3P from zero,
 * then added to d */
template <int SPLIT, bool XA, bool XB>
__device__ __forceinline__ void mma8_step(float *d, const unsigned *ah, const unsigned *al, const unsigned *bh, const unsigned *bl) {
  if (SPLIT == MM_TF3P) {
    float t[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    if (!XA) mma8(t, al, bh);
    if (!XB) mma8(t, ah, bl);
    mma8(t, ah, bh);
#pragma unroll
    for (int r = 0; r < 4; r++) d[r] += t[r];
  } else {
    if (SPLIT && !XA) mma8(d, al, bh);
    if (SPLIT && !XB) mma8(d, ah, bl);
    mma8(d, ah, bh);
  }
}
/* SEP (with SPLIT): the two correction products into accumulators of their own, summed at the end: three
 * independent chains of mma instead of one (the solve's small products are bound by their latency) */
template <int NB, int ars, int acs, int brs, int bcs, int SPLIT, bool SEP = false, typename Cm, typename TA, typename TB>
__device__ __forceinline__ void mm_tiles(Cm c, const TA *a, const TB *b, int m, int n, int kd, bool acc) {
  constexpr bool SA = SPLIT && sizeof(TA) == 4, SB = SPLIT && sizeof(TB) == 4, SE = SEP && (SA || SB);
  const int lane = threadIdx.x & 31, g = lane >> 2, q = lane & 3, tn = n / NB;
  for (int tile = threadIdx.x >> 5; tile < (m / 16) * tn; tile += blockDim.x >> 5) {
    const int i0 = (tile / tn) * 16, j0 = (tile % tn) * NB;
    float d[NB / 8][4], e[SE ? NB / 8 : 1][4] = {}, f[SE ? NB / 8 : 1][4] = {};
#pragma unroll
    for (int s = 0; s < NB / 8; s++) {
      const float2 p0 = acc ? c.load2(i0 + g, j0 + s * 8 + 2 * q) : make_float2(0.0f, 0.0f);
      const float2 p1 = acc ? c.load2(i0 + g + 8, j0 + s * 8 + 2 * q) : make_float2(0.0f, 0.0f);
      d[s][0] = p0.x; d[s][1] = p0.y; d[s][2] = p1.x; d[s][3] = p1.y;
    }
    const TA *ap = a + (i0 + g) * ars + q * acs;
    const TB *bp = b + q * brs + (j0 + g) * bcs;
    /* k16 steps for the split form, and for two bf16 operands (exact either way: one bf16 product) */
    const bool k16 = (SPLIT == MM_BF3 || (sizeof(TA) == 2 && sizeof(TB) == 2)) && kd % 16 == 0;
    if (k16)
      for (int k0 = 0; k0 < kd; k0 += 16, ap += 16 * acs, bp += 16 * brs)
        mm_k16<NB / 8, ars, acs, brs, bcs, SE>(d, e, f, ap, bp);
    for (int k0 = k16 ? kd : 0; k0 < kd; k0 += 8, ap += 8 * acs, bp += 8 * brs) {
      const float af[4] = {ldop(ap), ldop(ap + 8 * ars), ldop(ap + 4 * acs), ldop(ap + 8 * ars + 4 * acs)};
      unsigned ah[4], al[4];
#pragma unroll
      for (int r = 0; r < 4; r++) tf32_hl(af[r], ah[r], al[r]);
#pragma unroll
      for (int s = 0; s < NB / 8; s++) {
        const float bf[2] = {ldop(bp + s * 8 * bcs), ldop(bp + s * 8 * bcs + 4 * brs)};
        unsigned bh[2], bl[2];
        tf32_hl(bf[0], bh[0], bl[0]);
        tf32_hl(bf[1], bh[1], bl[1]);
        if (SA) mma8(SE ? e[SE ? s : 0] : d[s], al, bh);
        if (SB) mma8(SE ? f[SE ? s : 0] : d[s], ah, bl);
        mma8(d[s], ah, bh);
      }
    }
#pragma unroll
    for (int s = 0; s < NB / 8; s++) {
      if (SE)
        for (int r = 0; r < 4; r++) d[s][r] += e[SE ? s : 0][r] + f[SE ? s : 0][r];
      c.store2(i0 + g, j0 + s * 8 + 2 * q, d[s][0], d[s][1]);
      c.store2(i0 + g + 8, j0 + s * 8 + 2 * q, d[s][2], d[s][3]);
    }
  }
}
/* the strides are constants (immediate offsets); SPLIT: the precision (MM_TF32, MM_BF3, MM_TF3); SEP: see mm_tiles */
template <int ars, int acs, int brs, int bcs, int SPLIT = MM_SPLIT, bool SEP = false, typename Cm, typename TA, typename TB>
__device__ __forceinline__ void mm_to(Cm c, const TA *a, const TB *b, int m, int n, int kd, bool acc) {
  /* the widest tiles that still give every warp one */
  const int warps = (int)(blockDim.x >> 5);
  if (n % 32 == 0 && (m / 16) * (n / 32) >= warps) mm_tiles<32, ars, acs, brs, bcs, SPLIT, SEP>(c, a, b, m, n, kd, acc);
  else if (n % 16 == 0 && (m / 16) * (n / 16) >= warps) mm_tiles<16, ars, acs, brs, bcs, SPLIT, SEP>(c, a, b, m, n, kd, acc);
  else mm_tiles<8, ars, acs, brs, bcs, SPLIT, SEP>(c, a, b, m, n, kd, acc);
  __syncthreads();
}
/* c (m x n, a tile product's target) = (ah + al) b (WU16: prep's W and U): ah, al the bf16 hi and lo parts of a
 * float operand (m x kd, k contiguous, pitch LDA), b bf16 (kd x n, n contiguous, pitch LDB), rows 16-byte aligned:
 * two exact bf16 products a k16 step (the float operand to ~2^-17 where a tf32 product keeps 2^-11, at the same
 * tensor-core time), every fragment one ldmatrix (b's transposed). ncu: as tf32 k8 steps, their 16-bit loads of
 * b held ~24% of GDN's prep samples; H200 GDN B8 T4096 H16 forward (fused90) 1.42 -> 1.35 ms (the gpu-h200-tiles
 * record). Ends with a block barrier. */
template <int NB, int LDA, int LDB, typename Cm>
__device__ __forceinline__ void mm_hl16_tiles(Cm c, const unsigned short *ah, const unsigned short *al, const unsigned short *b, int m, int n, int kd) {
  static_assert(LDA % 8 == 0 && LDB % 8 == 0, "16-byte rows");
  const int lane = threadIdx.x & 31, g = lane >> 2, q = lane & 3, tn = n / NB;
  /* this lane's ldmatrix row: 8 rows a block, blocks (rows +8, k +8) for a, (k +8, columns +8) for b */
  const int ra = (lane & 7) + (lane & 8), ca = (lane >> 4) * 8;
  for (int tile = threadIdx.x >> 5; tile < (m / 16) * tn; tile += blockDim.x >> 5) {
    const int i0 = (tile / tn) * 16, j0 = (tile % tn) * NB;
    float d[NB / 8][4] = {};
    const unsigned short *ap = ah + (i0 + ra) * LDA + ca, *lp = al + (i0 + ra) * LDA + ca, *bp = b + ra * LDB + j0 + ca;
    for (int k0 = 0; k0 < kd; k0 += 16, ap += 16, lp += 16, bp += 16 * LDB) {
      unsigned fh[4], fl[4];
      ldsm4(fh, (const float *)ap);
      ldsm4(fl, (const float *)lp);
#pragma unroll
      for (int s = 0; s < NB / 16; s++) {
        unsigned fb[4];
        ldsm4t(fb, bp + 16 * s);
        mma16(d[2 * s], fl, fb);
        mma16(d[2 * s], fh, fb);
        mma16(d[2 * s + 1], fl, fb + 2);
        mma16(d[2 * s + 1], fh, fb + 2);
      }
    }
#pragma unroll
    for (int s = 0; s < NB / 8; s++) {
      c.store2(i0 + g, j0 + s * 8 + 2 * q, d[s][0], d[s][1]);
      c.store2(i0 + g + 8, j0 + s * 8 + 2 * q, d[s][2], d[s][3]);
    }
  }
}
template <int LDA, int LDB, typename Cm>
__device__ void mm_hl16(Cm c, const unsigned short *ah, const unsigned short *al, const unsigned short *b, int m, int n, int kd) {
  if (n % 32 == 0) mm_hl16_tiles<32, LDA, LDB>(c, ah, al, b, m, n, kd);
  else mm_hl16_tiles<16, LDA, LDB>(c, ah, al, b, m, n, kd);
  __syncthreads();
}
/* Float operands into a float tile (smem or global) take this form: the same products as mm_tiles
 * with plain pointers. Through mm_tiles' target object, Mamba-2's prep (dZ from the accumulators to
 * global memory) took 536 us instead of 396 at B8 on an H200, with the same instruction count, DRAM
 * bytes and occupancy (ncu; bench/, the gpu-h200-fwd3 record). */
template <int NB, int ldc, int ars, int acs, int brs, int bcs, int SPLIT, bool SEP = false, bool XA = false, bool XB = false>
__device__ __forceinline__ void mm_tiles_f(float *c, const float *a, const float *b, int m, int n, int kd, bool acc,
                                           const float *crs, const float *cad) {
  constexpr bool RL = MM_RL || (!SEP && !SSMC_SM90);
  const int lane = threadIdx.x & 31, g = lane >> 2, q = lane & 3, tn = n / NB;
  for (int tile = threadIdx.x >> 5; tile < (m / 16) * tn; tile += blockDim.x >> 5) {
    const int i0 = (tile / tn) * 16, j0 = (tile % tn) * NB;
    float d[NB / 8][4], e[SEP ? NB / 8 : 1][4] = {}, f[SEP ? NB / 8 : 1][4] = {};
    const float r0 = crs ? crs[i0 + g] : 1.0f, r1 = crs ? crs[i0 + g + 8] : 1.0f;
#pragma unroll
    for (int s = 0; s < NB / 8; s++) {
      const int o = (i0 + g) * ldc + j0 + s * 8 + 2 * q;
      const float2 *c0 = (const float2 *)(c + o), *c1 = c0 + 4 * ldc;
      const float2 p0 = acc ? *c0 : make_float2(0.0f, 0.0f), p1 = acc ? *c1 : make_float2(0.0f, 0.0f);
      const float2 a0 = cad ? *(const float2 *)(cad + o) : make_float2(0.0f, 0.0f);
      const float2 a1 = cad ? *(const float2 *)(cad + o + 8 * ldc) : make_float2(0.0f, 0.0f);
      d[s][0] = r0 * p0.x + a0.x; d[s][1] = r0 * p0.y + a0.y; d[s][2] = r1 * p1.x + a1.x; d[s][3] = r1 * p1.y + a1.y;
    }
    const float *ap = a + (i0 + g) * ars + q * acs, *bp = b + q * brs + (j0 + g) * bcs;
    const bool k16 = SPLIT == MM_BF3 && kd % 16 == 0;
    if (k16)
      for (int k0 = 0; k0 < kd; k0 += 16, ap += 16 * acs, bp += 16 * brs)
        mm_k16<NB / 8, ars, acs, brs, bcs, SEP>(d, e, f, ap, bp);
    for (int k0 = k16 ? kd : 0; k0 < kd; k0 += 8, ap += 8 * acs, bp += 8 * brs) {
      const float af[4] = {ap[0], ap[8 * ars], ap[4 * acs], ap[8 * ars + 4 * acs]};
      unsigned ah[4], al[4];
#pragma unroll
      for (int r = 0; r < 4; r++) tf32_hl<XA, RL>(af[r], ah[r], al[r]);
#pragma unroll
      for (int s = 0; s < NB / 8; s++) {
        const float bf[2] = {bp[s * 8 * bcs], bp[s * 8 * bcs + 4 * brs]};
        unsigned bh[2], bl[2];
        tf32_hl<XB, RL>(bf[0], bh[0], bl[0]);
        tf32_hl<XB, RL>(bf[1], bh[1], bl[1]);
        if (SEP) {
          if (SPLIT && !XA) mma8(e[SEP ? s : 0], al, bh);
          if (SPLIT && !XB) mma8(f[SEP ? s : 0], ah, bl);
          mma8(d[s], ah, bh);
        } else {
          mma8_step<SPLIT, XA, XB>(d[s], ah, al, bh, bl);
        }
      }
    }
#pragma unroll
    for (int s = 0; s < NB / 8; s++) {
      if (SEP)
        for (int r = 0; r < 4; r++) d[s][r] += e[SEP ? s : 0][r] + f[SEP ? s : 0][r];
      float2 *c0 = (float2 *)(c + (i0 + g) * ldc + j0 + s * 8 + 2 * q), *c1 = c0 + 4 * ldc;
      *c0 = make_float2(d[s][0], d[s][1]);
      *c1 = make_float2(d[s][2], d[s][3]);
    }
  }
}
template <int ldc, int ars, int acs, int brs, int bcs, int SPLIT, bool SEP, bool XA = false, bool XB = false, bool SYNC = true>
__device__ __forceinline__ void mm_f(float *c, const float *a, const float *b, int m, int n, int kd, bool acc,
                                     const float *crs = nullptr, const float *cad = nullptr) {
  const int warps = (int)(blockDim.x >> 5);
  if (n % 32 == 0 && (m / 16) * (n / 32) >= warps) mm_tiles_f<32, ldc, ars, acs, brs, bcs, SPLIT, SEP, XA, XB>(c, a, b, m, n, kd, acc, crs, cad);
  else if (n % 16 == 0 && (m / 16) * (n / 16) >= warps) mm_tiles_f<16, ldc, ars, acs, brs, bcs, SPLIT, SEP, XA, XB>(c, a, b, m, n, kd, acc, crs, cad);
  else mm_tiles_f<8, ldc, ars, acs, brs, bcs, SPLIT, SEP, XA, XB>(c, a, b, m, n, kd, acc, crs, cad);
  if (SYNC) __syncthreads();
}
/* XA, XB: float operands whose every element is exact in tf32 (rows of bf16 inputs): no rounding at each
 * use, no lo part. SYNC = false: no barrier at the end (the caller's, after products that only read the
 * same operands; a warp owns the same tiles of c in every call of the same shape). With acc, crs and cad
 * (optional): c = diag(crs) c + cad + a b' (cad: a tile like c), folded into the accumulators' load (the
 * chunk-to-chunk passes' decay: an elementwise pass and a barrier less a chunk) */
template <int ldc, int ars, int acs, int brs, int bcs, int SPLIT = MM_SPLIT, bool SEP = false, bool XA = false, bool XB = false,
          bool SYNC = true>
__device__ __forceinline__ void mm(float *c, const float *a, const float *b, int m, int n, int kd, bool acc,
                                   const float *crs = nullptr, const float *cad = nullptr) {
  mm_f<ldc, ars, acs, brs, bcs, SPLIT, SEP, XA, XB, SYNC>(c, a, b, m, n, kd, acc, crs, cad);
}
template <int ldc, int ars, int acs, int brs, int bcs, int SPLIT = MM_SPLIT, bool SEP = false, typename TA, typename TB>
__device__ __forceinline__ void mm(float *c, const TA *a, const TB *b, int m, int n, int kd, bool acc) {
  mm_to<ars, acs, brs, bcs, SPLIT, SEP>(cmat<ldc>{c}, a, b, m, n, kd, acc);
}

/* sm_80: the split form's fragments one k step at a time (NVRTC 13 spills 16-32 B of GDN's and DeltaNet's
 * bgrad at 128 registers otherwise); sm_90: four (H200 GDN B8 bwd: 8.6 ms, 9.1 one at a time) */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define MM_ACC_SPLIT_UNROLL 1
#else
#define MM_ACC_SPLIT_UNROLL 4
#endif
/* A tile product accumulated in registers over the steps of a loop: c (M x N) += a b' over kd each step,
 * a(i, k) = a[i * LDA + k], b(j, k) = b[j * LDB + k], float tiles in shared memory with k contiguous
 * (16-byte aligned; LDA, LDB = 4 (mod 32): conflict-free), so each fragment is one ldmatrix (ldsm4).
 * Each warp owns the same TPW tiles of 16 x NB (NB as mm_f picks it) in every step: no accumulator
 * goes through shared memory and a step needs no barrier of its own; store writes c to a float tile.
 * SPLIT (MM_TF32, MM_TF3 or MM_TF3P), XA, XB as mm. */
template <int NTH, int M, int N, int SPLIT, bool XA = false, bool XB = false> struct mm_acc {
  static_assert(SPLIT != MM_BF3 && M % 16 == 0 && N % 8 == 0, "tf32 products of 16 x 8 tiles");
  static constexpr int W = NTH / 32;
  static constexpr int NB = mm_nb(M, N, W);
  static constexpr int TN = N / NB, TILES = (M / 16) * TN, TPW = (TILES + W - 1) / W;
  float d[TPW][NB / 8][4];
  __device__ __forceinline__ void zero() {
#pragma unroll
    for (int u = 0; u < TPW; u++)
#pragma unroll
      for (int s = 0; s < NB / 8; s++) d[u][s][0] = d[u][s][1] = d[u][s][2] = d[u][s][3] = 0.0f;
  }
  template <int LDA, int LDB> __device__ __forceinline__ void step(const float *a, const float *b, int kd) {
    static_assert(LDA % 4 == 0 && LDB % 4 == 0, "16-byte rows");
    const int lane = threadIdx.x & 31, mi = lane >> 3, r = lane & 7;
#pragma unroll
    for (int u = 0; u < TPW; u++) {
      const int tile = (int)(threadIdx.x >> 5) + u * W;
      if (TILES % W && tile >= TILES) break;
      const int i0 = tile / TN * 16, j0 = tile % TN * NB;
      /* ldmatrix blocks: a's rows i0 (+ 8), k + 0 (+ 4): {A[g][q], A[g+8][q], A[g][q+4], A[g+8][q+4]};
       * b's rows j0 + 8 s (+ 8), k + 0 (+ 4): the fragments of two n tiles */
      const float *ap = a + (i0 + r + (mi & 1) * 8) * LDA + (mi >> 1) * 4;
      const float *bp = b + (j0 + r + (mi >> 1) * 8) * LDB + (mi & 1) * 4;
#pragma unroll(SPLIT ? MM_ACC_SPLIT_UNROLL : 4)
      for (int k0 = 0; k0 < kd; k0 += 8) {
        unsigned ah[4], al[4];
        ldsm4(ah, ap + k0);
#pragma unroll
        for (int e = 0; e < 4; e++) tf32_hl<XA>(__uint_as_float(ah[e]), ah[e], al[e]);
#pragma unroll
        for (int s = 0; s < NB / 8; s += 2) {
          unsigned bb[4];
          if (s + 1 < NB / 8) ldsm4(bb, bp + s * 8 * LDB + k0);
          else ldsm2(bb, bp + s * 8 * LDB + k0);
#pragma unroll
          for (int h = 0; h < 2 && s + h < NB / 8; h++) {
            unsigned bh[2], bl[2];
#pragma unroll
            for (int e = 0; e < 2; e++) tf32_hl<XB>(__uint_as_float(bb[2 * h + e]), bh[e], bl[e]);
            mma8_step<SPLIT, XA, XB>(d[u][s + h], ah, al, bh, bl);
          }
        }
      }
    }
  }
  __device__ __forceinline__ void store(float *c, int ldc) const {
    const int lane = threadIdx.x & 31, g = lane >> 2, q = lane & 3;
#pragma unroll
    for (int u = 0; u < TPW; u++) {
      const int tile = (int)(threadIdx.x >> 5) + u * W;
      if (TILES % W && tile >= TILES) break;
      const int i0 = tile / TN * 16, j0 = tile % TN * NB;
#pragma unroll
      for (int s = 0; s < NB / 8; s++) {
        float *c0 = c + (i0 + g) * ldc + j0 + s * 8 + 2 * q;
        *(float2 *)c0 = make_float2(d[u][s][0], d[u][s][1]);
        *(float2 *)(c0 + 8 * ldc) = make_float2(d[u][s][2], d[u][s][3]);
      }
    }
  }
};

/* Sum over the 32 lanes of a warp (every lane gets it). */
__device__ __forceinline__ float warp_sum(float v) {
  for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
/* Sum of v over the block of nt threads (every thread gets it); red: 32 floats of shared memory. */
__device__ float block_sum(float v, float *red, int nt) {
  v = warp_sum(v);
  __syncthreads();
  if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = v;
  __syncthreads();
  float s = 0.0f;
  for (int w = 0; w < nt / 32; w++) s += red[w];
  __syncthreads();
  return s;
}

/* The work of an item-grid block (N * h_v, tiles): sequence n, value head h, and vt, the block's tile along
 * the grid's second dimension (a value tile, a block of state elements): blockIdx.y. With NTILE (the stage's
 * count of tiles, gridDim.y) the tiles of one item are neighbouring blocks instead (vt the fast part of the
 * linear block index): they start together and walk the chunks at one pace, so what they share (each chunk's
 * key, W, kd, decays) comes from the L2 after the first one's read, where with items slowest they fell into
 * different waves and each read it from DRAM. The fused passes and bstate take it; NVRTC spilled the f32 state
 * stages (44 B at sm_80) with it (H200, with it in every item stage: GDN B8 staged forward 2.07 -> 2.04 ms,
 * bwd-narrow 9.1 -> 8.8; bench/, the gpu-h200-tiles record, call 1). */
struct item_t { long long n, t0, T; int h, hq, vt; };
/* the block's item, and its tile as the return, where an item's NTILE tiles are neighbouring blocks (the tile the
 * fast part of the linear block index; decode's tiles too). I: the index type (32-bit for the chunk passes: a
 * 64-bit division is a call; decode's 64-bit) */
template <typename I, unsigned NTILE> __device__ __forceinline__ int near_tile(I &item) {
  const I blk = (I)blockIdx.y * gridDim.x + blockIdx.x;
  item = blk / NTILE;
  return (int)(blk - item * NTILE);
}
template <unsigned NTILE = 0> __device__ __forceinline__ item_t item_of(const ssmc_fwd_args &a) {
  item_t it;
  unsigned item = blockIdx.x;
  if constexpr (NTILE > 0) it.vt = near_tile<unsigned, NTILE>(item);
  else it.vt = (int)blockIdx.y;
  it.n = item / a.h_v;
  it.h = (int)(item % a.h_v);
  it.hq = it.h / (a.h_v / a.h_qk);
  it.t0 = a.cu_seqlens ? a.cu_seqlens[it.n] : it.n * a.t_len;
  it.T = a.cu_seqlens ? a.cu_seqlens[it.n + 1] - it.t0 : a.t_len;
  return it;
}
/* The first chunk slot of sequence n (ssmc_chunk_slots in ssmc_kernel.h). */
__device__ __forceinline__ long long slot0_of(const ssmc_fwd_args &a, long long n) {
  return a.cu_seqlens ? a.cu_seqlens[n] / CH + n : n * ((a.t_len + CH - 1) / CH);
}
/* whether item it's tokens end its sequence (a split forward's last segment that is not empty, or a whole sequence) */
__device__ __forceinline__ bool seg_last(const ssmc_fwd_args &a, const item_t &it) {
  return it.t0 + it.T == (a.cu_seqlens ? a.cu_seqlens[it.n + 1] : (it.n + 1) * a.t_len);
}
@ if SPLIT then -- (the split forward's; its stages only)
/* A split forward's segments (ssmc_kernel.h) of a sequence of T tokens: per chunks each (the last ones shorter or
 * empty); the segments that are not empty, at most the sequence's chunks, have its first chunk slots. */
__device__ __forceinline__ long long seg_chunks(long long T, int split) {
  const long long per = ((T + CH - 1) / CH + split - 1) / split;
  return per > 0 ? per : 1;
}
/* The item of a block of a split forward's ITEMS_FTILES grid (item (n * split + s) * h_v + h): sequence n, value head h
 * and the tokens of segment s, and as the return the segment's chunk slot, that of its first chunk (so a kept forward's
 * segment writes only its own chunks' slots, the first one with the start state it read). Elsewhere (split < 2)
 * item_of's, and -1. */
__device__ __forceinline__ item_t seg_item_of(const ssmc_fwd_args &a, long long &seg) {
  if (a.split < 2) {
    seg = -1;
    return item_of(a);
  }
  item_t it;
  seg = blockIdx.x / a.h_v;
  it.vt = (int)blockIdx.y;
  it.h = (int)(blockIdx.x - seg * a.h_v);
  it.hq = it.h / (a.h_v / a.h_qk);
  it.n = seg / a.split;
  const long long s = seg - it.n * a.split;
  const long long t0 = a.cu_seqlens ? a.cu_seqlens[it.n] : it.n * a.t_len;
  const long long T = a.cu_seqlens ? a.cu_seqlens[it.n + 1] - t0 : a.t_len;
  const long long per = seg_chunks(T, a.split) * CH;
  const long long b = s * per < T ? s * per : T, e = b + per < T ? b + per : T;
  it.t0 = t0 + b;
  it.T = e - b;
  seg = slot0_of(a, it.n) + b / CH;
  return it;
}
@ end
/* the chunk slot of item it's first chunk: a split forward's segment slot seg (seg_item_of), else (seg < 0) its
 * sequence's first */
__device__ __forceinline__ long long first_slot(const ssmc_fwd_args &a, const item_t &it, long long seg) {
  return seg >= 0 ? seg : slot0_of(a, it.n);
}
/* the workspace's part of chunk slot `slot` and value head h (WS_CHUNK floats, after the per-token part) */
__device__ __forceinline__ float *ws_chunk(const ssmc_fwd_args &a, float *ws, long long slot, int h) {
  return ws + a.t_total * a.h_v * WS_TOK + (slot * a.h_v + h) * (long long)WS_CHUNK;
}
@ if HF then
/* fused90's state accumulators z[4 i + o] (i < ZN / 8) into a (K, V) state at p, each at p[at(i, o)] (the bodies' z_at):
 * the final state, and with KEEP_T each chunk-start state where the state stage puts it */
template <int ZN, typename F> __device__ __forceinline__ void z_store(float *p, const float *z, F at) {
#pragma unroll
  for (int i = 0; i < ZN / 8; i++)
#pragma unroll
    for (int o = 0; o < 4; o++) p[at(i, o)] = z[4 * i + o];
}
@ end
/* The work of a chunk-grid block: chunk slot blockIdx.x of value head blockIdx.y, as the item of
 * its sequence plus the chunk's first token c0 and length L; false for an idle slot. */
struct chunk_t { item_t it; long long c0; int L; };
__device__ __forceinline__ bool chunk_of(const ssmc_fwd_args &a, chunk_t &c, unsigned gx = blockIdx.x, unsigned gy = blockIdx.y) {
  const long long g = gx;
  long long n;
  if (!a.cu_seqlens) { /* (a 32-bit division where the chunk count fits: ncu saw the 64-bit one at ~2% of prep_fused) */
    const long long nch = (a.t_len + CH - 1) / CH;
    n = nch <= 0x7fffffffLL ? (long long)((unsigned)g / (unsigned)nch) : g / nch;
  }
  else { /* the last sequence whose first slot is <= g: slot0_of increases with n */
    long long lo = 0, hi = a.n_seqs - 1;
    while (lo < hi) {
      const long long mid = (lo + hi + 1) / 2;
      if (slot0_of(a, mid) <= g) lo = mid; else hi = mid - 1;
    }
    n = lo;
  }
  c.it.n = n;
  c.it.h = (int)gy;
  c.it.hq = c.it.h / (a.h_v / a.h_qk);
  c.it.t0 = a.cu_seqlens ? a.cu_seqlens[n] : n * a.t_len;
  c.it.T = a.cu_seqlens ? a.cu_seqlens[n + 1] - c.it.t0 : a.t_len;
  c.c0 = (g - slot0_of(a, n)) * CH;
  if (c.c0 >= c.it.T) return false;
  c.L = (int)(c.it.T - c.c0 < CH ? c.it.T - c.c0 : CH);
  return true;
}

@ local function layout_enum(prefix, lay, total)
enum {
@   for _, w in ipairs(lay) do
  ${prefix}${w[1]} = ${w[2]},
@   end
  ${prefix}TOTAL = ${total}
};
@ end
@ for _, st in ipairs({{'P_', PL}, {'S_', SL}, {'SN_', SNL or {}}, {'O_', OL}, {'F_', FL or {}}}) do
@   if #st[2] > 0 then
@     local has = false
@     for _, w in ipairs(st[2]) do has = has or w[1] == 'IN' .. m.diag_in end
@     if diag and has then st[2][#st[2] + 1] = {'B', st[1] .. 'IN' .. m.diag_in} end
@     layout_enum(st[1], st[2], st[2].off)
@   end
@ end
@ if sv then layout_enum('X_', XL, XL.off) end
@ if HF then layout_enum('H_', HL, HL.off) end
@ if HB then layout_enum('HB_', HB, HB.off) end
@ if HD then layout_enum('HD_', HD, HD.off) end
@ if SG then layout_enum('SG_', SG, SG.off) end
@ if not sv then layout_enum('D_', DSM.lay, DSM.off); layout_enum('DL_', DLP.lay, DLP.off) end

@ -- rows x D of input x from token tok on, columns col0.., into buf with row stride ld (0 past L)
@ local function load_input(x, buf, D, tok, col0, rows, ld, nt)
@   ld, nt = ld or D, nt or 'NT'
@   local H = x.heads == 'qk' and 'a.h_qk' or 'a.h_v'
@   local hh = x.heads == 'qk' and 'it.hq' or 'it.h'
@   local T = x.gate and 'float' or 'elem_t'
@   if x.D == 1 then
  { /* ${x.name}: (T, ${H}) -> ${rows} */
    const float *src = (const float *)a.in[${x.idx}] + (${tok}) * ${H} + ${hh};
    for (int t = threadIdx.x; t < ${rows}; t += ${nt}) (${buf})[t * ${ld}] = t < L ? src[(long long)t * ${H}] : 0.0f;
  }
@   else
  /* ${x.name}: (T, ${H}, ${x.D}) -> ${rows} x ${D} */
  tile_in<${nt}, ${rows}, ${D}>(${buf}, ${ld}, (const ${T} *)a.in[${x.idx}] + ((${tok}) * ${H} + ${hh}) * ${x.D} + ${col0},
                          (long long)${H} * ${x.D}, L, one_t(), false);
@   end
@ end

@ if sv then
/* ---------------------------------------------------------------- stage solve */
/* The pieces of the solve for one chunk (tok: its first token, L tokens), shared with the backward
 * (cuda_bwd.cu.tpl): solve_coefs (the chunk's keys kc (C, K), cumulative log decays hb and write
 * coefficients hw of H), solve_norms (||H_t||_F from the chunk-start H in hf, n2 = ||hf||^2; lambda,
 * Chebyshev's step and rho^2 per token), solve_hx (H_t X for a group of GS tokens), solve_cheb
 * (x = CH_r(H_t + lambda_t I, b_t) for the chunk, GS tokens at a time), solve_advance (hf to the
 * chunk end). SNT threads, the X_ layout. */
/* each token's scalars, log decay hb (then summed in order) and write hw (C each, 0 past L), a thread a token */
template <int NTH>
__device__ __forceinline__ void solve_scalars(const ssmc_fwd_args &a, const item_t &it, long long tok, int L, float *hb, float *hw) {
  for (int t_ = threadIdx.x; t_ < CH; t_ += NTH) {
    if (t_ >= L) { hb[t_] = 0.0f; hw[t_] = 0.0f; continue; }
    float *in[SSMC_MAX_IO];
    float gv[SSMC_MAX_IO][1];
    (void)gv;
@   for _, x in ipairs(P.inputs) do
@     if x.D == 1 then
    in[${x.idx}] = gv[${x.idx}];
    gv[${x.idx}][0] = ((const float *)a.in[${x.idx}])[(tok + t_) * a.h_v + it.h];
@     end
@   end
@   local function tok0(e) return (e:gsub('%[t_%]', '[0]')) end
    hb[t_] = ${sv.logdecay and tok0(sv.logdecay) or '0.0f'};
    hw[t_] = ${tok0(sv.write)};
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    float acc = 0.0f;
    for (int t_ = 0; t_ < CH; t_++) { acc += hb[t_]; hb[t_] = acc; }
  }
  __syncthreads();
}
__device__ __forceinline__ void solve_coefs(const ssmc_fwd_args &a, const item_t &it, long long tok, int L, float *sm) {
  float *kc = sm + X_KC, *hb = sm + X_HB, *hw = sm + X_HW;
@   for _, x in ipairs(P.inputs) do
@     if x.idx == sv.key then load_input(x, 'kc', K, 'tok', '0', 'CH', 'SKP', 'SNT') end
@   end
  solve_scalars<SNT>(a, it, tok, L, hb, hw);
}
/* The norms' recurrence (Eq. 5), ||H_t||_F^2 = e1_t^2 ||H_{t-1}||_F^2 + c_t (e1_t = e^{hb_t - hb_{t-1}}), from n2 =
 * ||H0||_F^2 and the chunk's khk_t (k_t' H_{t-1} k_t, the decay of H_{t-1} left out) and (k_t.k_t)^2 (gtt[t gs]
 * squared); per token the norm, lambda_t, the step 2 / (L + 2 mu) and rho^2. One whole warp: each lane composes its
 * tokens' (e1^2, c) and a shuffle scan gives it the norm before them (one thread walking the tokens had the other
 * warps wait ~5% of psolve90's time) */
__device__ __forceinline__ void solve_eq5(int L, const float *hb, const float *hw, const float *khk, const float *gtt, int gs,
                                          float n2, float *nrm, float *lam, float *step, float *rho2) {
  constexpr int TL = (CH + 31) / 32;
  const int lane = threadIdx.x & 31, t0 = lane * TL;
  auto term = [&](int t, float &e2, float &c) {
    const float e1 = expf(hb[t] - (t ? hb[t - 1] : 0.0f)), gt = gtt[t * gs];
    e2 = e1 * e1;
    c = 2.0f * e1 * hw[t] * khk[t] + hw[t] * hw[t] * gt * gt;
  };
  float A = 1.0f, C = 0.0f; /* the lane's tokens: n2 -> A n2 + C */
#pragma unroll
  for (int u = 0; u < TL; u++)
    if (t0 + u < L) {
      float e2, c;
      term(t0 + u, e2, c);
      A *= e2;
      C = e2 * C + c;
    }
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const float Ab = __shfl_up_sync(0xffffffffu, A, o), Cb = __shfl_up_sync(0xffffffffu, C, o);
    if (lane >= o) {
      C = A * Cb + C;
      A *= Ab;
    }
  }
  const float Ab = __shfl_up_sync(0xffffffffu, A, 1), Cb = __shfl_up_sync(0xffffffffu, C, 1);
  float n = lane ? Ab * n2 + Cb : n2;
#pragma unroll
  for (int u = 0; u < TL; u++) {
    const int t = t0 + u;
    if (t >= L) break;
    float e2, c;
    term(t, e2, c);
    n = e2 * n + c;
    const float nr = sqrtf(n > 0.0f ? n : 0.0f), l = ${f32(sv.lam_a)} * nr + ${f32(sv.lam_b)};
    const float up = nr + l, sum = up + l;
    nrm[t] = nr;
    lam[t] = l;
    step[t] = sum > 0.0f ? 2.0f / sum : 0.0f;
    rho2[t] = sum > 0.0f ? (up - l) / sum * ((up - l) / sum) : 0.0f;
  }
}
__device__ __forceinline__ void solve_norms(int L, float *sm, float n2) {
  float *hf = sm + X_HF, *kc = sm + X_KC, *g = sm + X_G, *hb = sm + X_HB, *hw = sm + X_HW, *nrm = sm + X_NRM;
  float *lam = sm + X_LAM, *step = sm + X_STEP, *rho2 = sm + X_RHO2;
  mm<SCP, SKP, 1, 1, SKP>(g, kc, kc, CH, CH, KD, false); /* G = K K' */
  /* per-token norms: k_t' H0 k_t (a warp a token), q_t = e^{hb_{t-1}} k_t' H0 k_t + sum_{j<t}
   * e^{hb_{t-1} - hb_j} hw_j (k_t.k_j)^2 over khk, then the Eq. 5 recurrence alone in order */
  float *p = sm + X_XB; /* (CH, K) */
  float *khk = sm + X_IN${sv.key}_G;
  mm<SKP, SKP, 1, 1, SKP>(p, kc, hf, CH, KD, KD, false);
  for (int t = threadIdx.x >> 5; t < L; t += SNT / 32) {
    const int lane = threadIdx.x & 31;
    const float prev = t ? hb[t - 1] : 0.0f;
    float s = 0.0f;
    for (int k = lane; k < KD; k += 32) s += expf(prev) * p[t * SKP + k] * kc[t * SKP + k];
    for (int j = lane; j < t; j += 32) s += expf(prev - hb[j]) * hw[j] * g[t * SCP + j] * g[t * SCP + j];
    s = warp_sum(s);
    if (lane == 0) khk[t] = s;
  }
  __syncthreads();
  if (threadIdx.x < 32) solve_eq5(L, hb, hw, khk, g, SCP + 1, n2, nrm, lam, step, rho2);
  __syncthreads();
}
/* The decay mask M_t(s) = e^{hb_t - hb_s} hw_s (s <= t, s < L) of the tokens g0 .. g0 + GS (MK, pitch SCP) and
 * their e^{hb_t} (EB), for solve_hx: once a group (G, which only the norms read, holds them after AX) */
__device__ __forceinline__ void solve_mask(int g0, int L, float *sm) {
  const float *hb = sm + X_HB, *hw = sm + X_HW;
  float *mk = sm + X_MK, *eb = sm + X_EB;
  for (int e = threadIdx.x; e < ${GS} * CH; e += SNT) {
    const int t = g0 + e / CH, s = e - (e / CH) * CH;
    mk[(e / CH) * SCP + s] = (s <= t && s < L) ? expf(hb[t] - hb[s]) * hw[s] : 0.0f;
  }
  for (int t = threadIdx.x; t < ${GS}; t += SNT) eb[t] = expf(hb[g0 + t]);
  __syncthreads();
}
/* p (GS, K, pitch SKP) = H_t x_t for the tokens g0 .. g0 + GS of the chunk (x: pitch SKP; after solve_mask):
 * e^{hb_t} x H0 + ((x K') * M_t) K */
__device__ __forceinline__ void solve_hx(float *sm, const float *x, float *p) {
  const float *hf = sm + X_HF, *kc = sm + X_KC, *mk = sm + X_MK, *eb = sm + X_EB;
  float *ax = sm + X_AX;
  mm<SKP, SKP, 1, 1, SKP, MM_SPLIT, true>(p, x, hf, ${GS}, KD, KD, false); /* H0 read as its transpose */
  mm<SCP, SKP, 1, 1, SKP, MM_SPLIT, true>(ax, x, kc, ${GS}, CH, KD, false);
  for (int e = threadIdx.x; e < ${GS} * CH; e += SNT) ax[(e / CH) * SCP + e % CH] *= mk[(e / CH) * SCP + e % CH];
  for (int e = threadIdx.x; e < ${GS} * KD; e += SNT) p[(e / KD) * SKP + e % KD] *= eb[e / KD];
  __syncthreads();
  mm<SKP, SCP, 1, SKP, 1, MM_SPLIT, true>(p, ax, kc, ${GS}, KD, CH, true);
}
@ -- solve_cheb: all the chunk's tokens at once where a warp's share of H_t x, x_{r-1} and b fits its
@ -- registers (CNP 8-column tiles each), else GS tokens at a time through shared memory. Warp w owns
@ -- the 16 tokens of row tile w / CWPR and every CWPR-th 8-column tile of P = H_t x (and of the scores
@ -- x K'): a round is two barriers of a row tile's warps, not of the block.
@ local CW, CRT = SNT // 32, C // 16
@ local CWPR = CRT <= CW and CW % CRT == 0 and CW // CRT or nil
@ local CNP = CWPR and math.ceil(K // 8 / CWPR)
@ local CNA = CWPR and math.ceil(C // 8 / CWPR)
@ local CHEB_REG = CWPR and CNP <= 8
@ local CHEB_BF = false
@ if CHEB_REG then
#define CWPR ${CWPR} /* solve_cheb: warps a row tile */
#define CNP ${CNP} /* its 8-column tiles of P (H_t x) a warp */
#define CNA ${CNA} /* and of the scores x K' */
/* a barrier of the row tile rt's CWPR warps */
__device__ __forceinline__ void bar_rows(int rt) { bar_wait(rt + 1, CWPR * 32); }
/* The Chebyshev scalars of a lane's two tokens t0 + 8 i (none past L: their x stays 0), from
 * solve_norms: lambda_t, the step 2 / (L + 2 mu), rho^2, e^{hb_t}; w: a round's weight from omega. */
struct cheb_rows {
  float lam[2], step[2], rho2[2], eb[2];
  __device__ cheb_rows(const float *lams, const float *steps, const float *rho2s, const float *hb, int L, int t0) {
#pragma unroll
    for (int i = 0; i < 2; i++) {
      const int t = t0 + 8 * i;
      const bool live = t < L;
      lam[i] = live ? lams[t] : 0.0f;
      step[i] = live ? steps[t] : 0.0f;
      rho2[i] = live ? rho2s[t] : 0.0f;
      eb[i] = live ? expf(hb[t]) : 0.0f;
    }
  }
  __device__ cheb_rows(const float *sm, int L, int t0) : cheb_rows(sm + X_LAM, sm + X_STEP, sm + X_RHO2, sm + X_HB, L, t0) {}
  __device__ float w(int i, float om) const { return step[i] > 0.0f ? __fdividef(4.0f, 4.0f - rho2[i] * om) : 1.0f; }
};
/* x_t to xo + t * xrs for the lane's tokens t < L and columns (the accumulator layout); xat(t, col):
 * the pair x_t[col], x_t[col + 1] */
template <typename F>
__device__ __forceinline__ void cheb_out(float *xo, long long xrs, int L, int r0, int wj, F xat) {
  const int g = (threadIdx.x & 31) >> 2, q = threadIdx.x & 3;
#pragma unroll
  for (int s = 0; s < CNP; s++) {
    const int col = (wj + s * CWPR) * 8 + 2 * q;
    if (col >= KD) break;
#pragma unroll
    for (int i = 0; i < 2; i++) {
      const int t = r0 + g + 8 * i;
      if (t < L) { const float2 v = xat(t, col); xo[t * xrs + col] = v.x; xo[t * xrs + col + 1] = v.y; }
    }
  }
}
/* c[NS][4] += the tf32 three-product a . b over kd for this warp's 8-column tiles j = wj + s CWPR < nj
 * (a row-major at ap (pitch lda, the lane's row and column already added), b(k, j) at bp[k brs + j bcs]) */
template <int NS, int lda, int brs, int bcs>
__device__ __forceinline__ void cheb_mm(float (*c)[4], const float *ap, const float *b, int wj, int nj, int kd) {
  const int lane = threadIdx.x & 31, g = lane >> 2, q = lane & 3;
  for (int k0 = 0; k0 < kd; k0 += 8, ap += 8) {
    const float af[4] = {ap[0], ap[8 * lda], ap[4], ap[8 * lda + 4]};
    unsigned ah[4], al[4];
#pragma unroll
    for (int r = 0; r < 4; r++) tf32_hl<false, true>(af[r], ah[r], al[r]);
    const float *bp = b + (k0 + q) * brs + g * bcs;
#pragma unroll
    for (int s = 0; s < NS; s++) {
      const int j = wj + s * CWPR;
      if (j >= nj) break;
      const float bf[2] = {bp[j * 8 * bcs], bp[j * 8 * bcs + 4 * brs]};
      unsigned bh[2], bl[2];
      tf32_hl<false, true>(bf[0], bh[0], bl[0]);
      tf32_hl<false, true>(bf[1], bh[1], bl[1]);
      mma8(c[s], al, bh);
      mma8(c[s], ah, bl);
      mma8(c[s], ah, bh);
    }
  }
}
/* x_t = CH_r(H_t + lambda_t I, b_t) for the chunk's tokens (after solve_coefs and solve_norms): b_t at
 * rhs + t * rrs (T: elem_t or float), x_t to xo + t * xrs; r iterations, all tokens at once. Per round:
 * P = e^{hb_t} x H0 and the scores AX = (x K') * M_t in one pass over x's row tile, AX to shared memory
 * (over G), P += AX K, then the Chebyshev step in registers; x in shared memory (XB) is the products'
 * operand, x_{r-1} and b stay in registers in the accumulator layout. */
template <typename T>
__device__ __forceinline__ void solve_cheb(int L, float *sm, int iters, const T *rhs, long long rrs, float *xo, long long xrs) {
  const float *hf = sm + X_HF, *kc = sm + X_KC, *hb = sm + X_HB, *hw = sm + X_HW;
  float *x = sm + X_XB, *ax = sm + X_G; /* (CH, K) pitch SKP; (CH, CH) pitch SCP */
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, q = lane & 3;
  const int rt = warp / CWPR, wj = warp - rt * CWPR, r0 = rt * 16;
  const cheb_rows cr(sm, L, r0 + g);
  float om[2] = {2.0f, 2.0f};
  float rh[CNP][4], xp[CNP][4], mk[CNA][4];
#pragma unroll
  for (int s = 0; s < CNP; s++) {
    const int col = (wj + s * CWPR) * 8 + 2 * q;
#pragma unroll
    for (int i = 0; i < 2; i++) {
      const int t = r0 + g + 8 * i;
      const bool in = t < L && col < KD;
      const float b0 = in ? ldop(rhs + t * rrs + col) : 0.0f, b1 = in ? ldop(rhs + t * rrs + col + 1) : 0.0f;
      rh[s][2 * i] = b0;
      rh[s][2 * i + 1] = b1;
      xp[s][2 * i] = xp[s][2 * i + 1] = 0.0f;
      if (col < KD) { /* ||H_t|| = lambda_t = 0: x_t = b_t */
        x[t * SKP + col] = cr.step[i] > 0.0f ? cr.step[i] * b0 : b0;
        x[t * SKP + col + 1] = cr.step[i] > 0.0f ? cr.step[i] * b1 : b1;
      }
    }
  }
  /* the decay mask M_t(s) = e^{hb_t - hb_s} hw_s (s <= t, s < L) of the lane's scores */
#pragma unroll
  for (int s = 0; s < CNA; s++)
#pragma unroll
    for (int e = 0; e < 4; e++) {
      const int t = r0 + g + 8 * (e >> 1), c = (wj + s * CWPR) * 8 + 2 * q + (e & 1);
      mk[s][e] = c <= t && c < L && c < CH ? expf(hb[t] - hb[c]) * hw[c] : 0.0f;
    }
  bar_rows(rt);
  for (int r = 0; r < iters; r++) {
    float p[CNP][4] = {}, sc[CNA][4] = {};
    const float *xr = x + (r0 + g) * SKP + q;
    cheb_mm<CNP, SKP, 1, SKP>(p, xr, hf, wj, KD / 8, KD); /* H0 read as its transpose */
    cheb_mm<CNA, SKP, 1, SKP>(sc, xr, kc, wj, CH / 8, KD);
#pragma unroll
    for (int s = 0; s < CNA; s++) {
      const int c = (wj + s * CWPR) * 8 + 2 * q;
      if (c >= CH) break;
      st2(ax + (r0 + g) * SCP + c, sc[s][0] * mk[s][0], sc[s][1] * mk[s][1]);
      st2(ax + (r0 + g + 8) * SCP + c, sc[s][2] * mk[s][2], sc[s][3] * mk[s][3]);
    }
#pragma unroll
    for (int s = 0; s < CNP; s++)
#pragma unroll
      for (int e = 0; e < 4; e++) p[s][e] *= cr.eb[e >> 1];
    bar_rows(rt); /* the row tile's scores are in; every read of its x is done */
    cheb_mm<CNP, SCP, SKP, 1>(p, ax + (r0 + g) * SCP + q, kc, wj, KD / 8, CH);
    const float w[2] = {cr.w(0, om[0]), cr.w(1, om[1])};
#pragma unroll
    for (int s = 0; s < CNP; s++) {
      const int col = (wj + s * CWPR) * 8 + 2 * q;
      if (col >= KD) break;
#pragma unroll
      for (int e = 0; e < 4; e++) {
        const int i = e >> 1, o = (r0 + g + 8 * i) * SKP + col + (e & 1);
        const float xc = x[o], cs = cr.step[i] * w[i], mo = w[i] - 1.0f;
        x[o] = xc - cs * (p[s][e] + cr.lam[i] * xc - rh[s][e]) + mo * (xc - xp[s][e]);
        xp[s][e] = xc;
      }
    }
#pragma unroll
    for (int i = 0; i < 2; i++) if (cr.step[i] > 0.0f) om[i] = w[i];
    bar_rows(rt); /* the new x is in; every read of the scores is done */
  }
  cheb_out(xo, xrs, L, r0, wj, [&](int t, int col) { return make_float2(x[t * SKP + col], x[t * SKP + col + 1]); });
  __syncthreads();
}
@ -- the forward's bf16 form of it (CHEB_BF): the products in bf16 m16n8k16 on three products of hi + lo
@ -- bf16 parts (about 2^-17 relative; the keys exact), the operands split once where they are made and
@ -- read as pairs, not split per fragment: H0 for the chunk (its fp32 copy out to the workspace meanwhile),
@ -- x and the scores each round. Needs 64 | K, 64 | C (the swizzle) and V >= K (the copy).
@ CHEB_BF = CHEB_REG and P.dtype == 'bf16' and K % 64 == 0 and C % 64 == 0 and V >= K
@ if CHEB_BF then
/* Tiles of bf16 pairs for solve_cheb_bf, rows of np pairs, no padding: the pair index XOR (row & 7) * 4
 * keeps a warp's fragment loads (8 rows x 4 pairs) free of bank conflicts. hl: hi and lo interleaved
 * (a 64-bit word a pair), else the hi part alone (a 32-bit word). */
__device__ __forceinline__ int bsw(int row, int pair) { return pair ^ ((row & 7) << 2); }
__device__ __forceinline__ uint2 ld_hl(const unsigned *t, int np, int row, int pair) {
  return *(const uint2 *)(t + 2 * (row * np + bsw(row, pair)));
}
__device__ __forceinline__ uint2 split_hl(float x0, float x1) { /* hi and lo bf16 pairs of (x0, x1) */
  const unsigned h = bf2(x0, x1);
  return make_uint2(h, bf2(x0 - __uint_as_float(h << 16), x1 - __uint_as_float(h & 0xffff0000u)));
}
__device__ __forceinline__ void st_hl(unsigned *t, int np, int row, int pair, float x0, float x1) {
  *(uint2 *)(t + 2 * (row * np + bsw(row, pair))) = split_hl(x0, x1);
}
/* a float pair of a float tile of the same swizzled form */
__device__ __forceinline__ float2 *at_f2(float *t, int np, int row, int pair) { return (float2 *)(t + 2 * (row * np + bsw(row, pair))); }
__device__ __forceinline__ unsigned ld_h(const unsigned *t, int np, int row, int pair) { return t[row * np + bsw(row, pair)]; }
/* c[NS][4] += a . b over kd (k16 steps) for the warp's 8-column tiles j = wj + s CWPR < nj: a's rows r0 + g
 * (+ 8) of an hl tile, or (AF) of a float tile split here (npa pairs a row); b(k, j) row j of an hl tile
 * (BHL: three products) or of a hi tile (two: b exact) of npb pairs a row */
template <bool AF>
__device__ __forceinline__ uint2 cheb_a(const unsigned *a, int npa, int row, int pair) {
  if (!AF) return ld_hl(a, npa, row, pair);
  const float2 v = *at_f2((float *)a, npa, row, pair);
  return split_hl(v.x, v.y);
}
template <int NS, bool AF, bool BHL>
__device__ __forceinline__ void cheb_mm16(float (*c)[4], const unsigned *a, int npa, int r0, const unsigned *b, int npb, int wj,
                                          int nj, int kd) {
  const int lane = threadIdx.x & 31, g = lane >> 2, q = lane & 3;
#pragma unroll 1
  for (int p0 = 0; p0 < kd / 2; p0 += 8) {
    const uint2 a0 = cheb_a<AF>(a, npa, r0 + g, p0 + q), a1 = cheb_a<AF>(a, npa, r0 + g + 8, p0 + q);
    const uint2 a2 = cheb_a<AF>(a, npa, r0 + g, p0 + q + 4), a3 = cheb_a<AF>(a, npa, r0 + g + 8, p0 + q + 4);
    const unsigned ah[4] = {a0.x, a1.x, a2.x, a3.x}, al[4] = {a0.y, a1.y, a2.y, a3.y};
#pragma unroll
    for (int s = 0; s < NS; s++) {
      const int j = wj + s * CWPR, n = j * 8 + g;
      if (j >= nj) break;
      if (BHL) {
        const uint2 b0 = ld_hl(b, npb, n, p0 + q), b1 = ld_hl(b, npb, n, p0 + q + 4);
        const unsigned bh[2] = {b0.x, b1.x}, bl[2] = {b0.y, b1.y};
        mma16(c[s], al, bh);
        mma16(c[s], ah, bl);
        mma16(c[s], ah, bh);
      } else {
        const unsigned bh[2] = {ld_h(b, npb, n, p0 + q), ld_h(b, npb, n, p0 + q + 4)};
        mma16(c[s], al, bh);
        mma16(c[s], ah, bh);
      }
    }
  }
}
/* solve_cheb (same arguments and result) with the products in bf16 (CHEB_BF), for the forward's solve
 * stage: hsave (K x K floats of global memory) keeps H0 while its shared memory holds H0's bf16 parts;
 * on return hf and kc hold H0 and the keys again. Shared memory: H0's hi/lo tile over HF; the keys
 * (C, K) and their transpose (K, C) as hi tiles over KC (exact: bf16 inputs); x as a float tile over XB;
 * the scores' over G. */
template <typename T>
__device__ __forceinline__ void solve_cheb_bf(int L, float *sm, int iters, const T *rhs, long long rrs, float *xo, long long xrs,
                                              float *hsave) {
  float *hf = sm + X_HF, *kc = sm + X_KC;
  const float *hb = sm + X_HB, *hw = sm + X_HW;
  unsigned *hhl = (unsigned *)hf, *kb = (unsigned *)kc, *kt = kb + CH * KD / 2, *ahl = (unsigned *)(sm + X_G);
  /* H0 out to hsave, then its parts in; the keys through registers into their hi tiles */
  for (int e = threadIdx.x * 4; e < KD * KD; e += SNT * 4)
    *(float4 *)(hsave + e) = *(const float4 *)(hf + (e / KD) * SKP + e % KD);
  float kr[CH * KD / SNT];
#pragma unroll
  for (int i = 0; i < CH * KD / SNT; i++) { const int e = threadIdx.x + i * SNT; kr[i] = kc[(e / KD) * SKP + e % KD]; }
  __syncthreads();
  for (int e = threadIdx.x; e < KD * KD / 2; e += SNT) {
    const int r = e / (KD / 2), p = e - r * (KD / 2);
    const float2 v = *(const float2 *)(hsave + r * KD + 2 * p);
    st_hl(hhl, KD / 2, r, p, v.x, v.y);
  }
  unsigned short *kbs = (unsigned short *)kb, *kts = (unsigned short *)kt;
#pragma unroll
  for (int i = 0; i < CH * KD / SNT; i++) {
    const int e = threadIdx.x + i * SNT, s = e / KD, k = e - s * KD;
    const unsigned short v = (unsigned short)(__float_as_uint(kr[i]) >> 16); /* exact */
    kbs[2 * (s * (KD / 2) + bsw(s, k >> 1)) + (k & 1)] = v;
    kts[2 * (k * (CH / 2) + bsw(k, s >> 1)) + (s & 1)] = v;
  }
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, q = lane & 3;
  const int rt = warp / CWPR, wj = warp - rt * CWPR, r0 = rt * 16;
  const cheb_rows cr(sm, L, r0 + g);
  float om[2] = {2.0f, 2.0f};
  /* x_{r-1} in the accumulator layout: the lane's rows r0 + g (+ 8), columns 8 j + 2 q (+ 1); x in a float
   * tile (split into hi and lo for each product); b read again each round (from the cache: in registers
   * it would spill) */
  float *xf = sm + X_XB;
  float xp[CNP][4];
#pragma unroll
  for (int s = 0; s < CNP; s++) {
    const int col = (wj + s * CWPR) * 8 + 2 * q;
#pragma unroll
    for (int i = 0; i < 2; i++) {
      const int t = r0 + g + 8 * i;
      const bool in = t < L && col < KD;
      const float b0 = in ? ldop(rhs + t * rrs + col) : 0.0f, b1 = in ? ldop(rhs + t * rrs + col + 1) : 0.0f;
      xp[s][2 * i] = xp[s][2 * i + 1] = 0.0f;
      if (col < KD) /* ||H_t|| = lambda_t = 0: x_t = b_t */
        *at_f2(xf, KD / 2, t, col >> 1) = cr.step[i] > 0.0f ? make_float2(cr.step[i] * b0, cr.step[i] * b1) : make_float2(b0, b1);
    }
  }
  __syncthreads();
  for (int r = 0; r < iters; r++) {
    float p[CNP][4] = {}, sc[CNA][4] = {};
    cheb_mm16<CNP, true, true>(p, (const unsigned *)xf, KD / 2, r0, hhl, KD / 2, wj, KD / 8, KD); /* H0 symmetric: row j is column j */
    cheb_mm16<CNA, true, false>(sc, (const unsigned *)xf, KD / 2, r0, kb, KD / 2, wj, CH / 8, KD);
#pragma unroll
    for (int s = 0; s < CNA; s++) {
      const int c = (wj + s * CWPR) * 8 + 2 * q;
      if (c >= CH) break;
      float m[4]; /* the decay mask M_t(s) = e^{hb_t - hb_s} hw_s (s <= t, s < L) */
#pragma unroll
      for (int e = 0; e < 4; e++) {
        const int t = r0 + g + 8 * (e >> 1), cc = c + (e & 1);
        m[e] = cc <= t && cc < L ? expf(hb[t] - hb[cc]) * hw[cc] : 0.0f;
      }
      st_hl(ahl, CH / 2, r0 + g, c >> 1, sc[s][0] * m[0], sc[s][1] * m[1]);
      st_hl(ahl, CH / 2, r0 + g + 8, c >> 1, sc[s][2] * m[2], sc[s][3] * m[3]);
    }
#pragma unroll
    for (int s = 0; s < CNP; s++)
#pragma unroll
      for (int e = 0; e < 4; e++) p[s][e] *= cr.eb[e >> 1];
    bar_rows(rt); /* the row tile's scores are in; every read of its x is done */
    cheb_mm16<CNP, false, false>(p, ahl, CH / 2, r0, kt, CH / 2, wj, KD / 8, CH);
    const float w[2] = {cr.w(0, om[0]), cr.w(1, om[1])};
#pragma unroll
    for (int s = 0; s < CNP; s++) {
      const int col = (wj + s * CWPR) * 8 + 2 * q;
      if (col >= KD) break;
#pragma unroll
      for (int i = 0; i < 2; i++) {
        const int t = r0 + g + 8 * i;
        float2 *xa = at_f2(xf, KD / 2, t, col >> 1);
        const float2 xc = *xa;
        const float b0 = t < L ? ldop(rhs + t * rrs + col) : 0.0f, b1 = t < L ? ldop(rhs + t * rrs + col + 1) : 0.0f;
        const float cs = cr.step[i] * w[i], mo = w[i] - 1.0f;
        *xa = make_float2(xc.x - cs * (p[s][2 * i] + cr.lam[i] * xc.x - b0) + mo * (xc.x - xp[s][2 * i]),
                          xc.y - cs * (p[s][2 * i + 1] + cr.lam[i] * xc.y - b1) + mo * (xc.y - xp[s][2 * i + 1]));
        xp[s][2 * i] = xc.x;
        xp[s][2 * i + 1] = xc.y;
      }
    }
#pragma unroll
    for (int i = 0; i < 2; i++) if (cr.step[i] > 0.0f) om[i] = w[i];
    bar_rows(rt); /* the new x is in; every read of the scores is done */
  }
  cheb_out(xo, xrs, L, r0, wj, [&](int t, int col) { return *at_f2(xf, KD / 2, t, col >> 1); });
  /* H0 and the keys back (the keys from their hi tile, exact) */
  __syncthreads();
#pragma unroll
  for (int i = 0; i < CH * KD / SNT; i++) {
    const int e = threadIdx.x + i * SNT, s = e / KD, k = e - s * KD;
    kr[i] = __uint_as_float((unsigned)kbs[2 * (s * (KD / 2) + bsw(s, k >> 1)) + (k & 1)] << 16);
  }
  __syncthreads();
  for (int e = threadIdx.x * 4; e < KD * KD; e += SNT * 4)
    *(float4 *)(hf + (e / KD) * SKP + e % KD) = *(const float4 *)(hsave + e);
#pragma unroll
  for (int i = 0; i < CH * KD / SNT; i++) { const int e = threadIdx.x + i * SNT; kc[(e / KD) * SKP + e % KD] = kr[i]; }
  __syncthreads();
}
@ end
@ else
/* x_t = CH_r(H_t + lambda_t I, b_t) for the chunk's tokens (after solve_coefs and solve_norms): b_t at
 * rhs + t * rrs (T: elem_t or float), x_t to xo + t * xrs; r iterations, GS tokens at a time */
template <typename T>
__device__ __forceinline__ void solve_cheb(int L, float *sm, int iters, const T *rhs, long long rrs, float *xo, long long xrs) {
  const float *lam = sm + X_LAM, *step = sm + X_STEP, *rho2 = sm + X_RHO2;
  float *om = sm + X_OM, *rh = sm + X_RH;
  float *x = sm + X_XB, *xp = x + ${GS} * SKP, *xn = xp + ${GS} * SKP, *p = xn + ${GS} * SKP; /* pitch SKP */
  for (int g0 = 0; g0 < L; g0 += ${GS}) {
    /* the right-hand sides of the group's tokens */
    tile_in<SNT, ${GS}, KD>(rh, KD, rhs + g0 * rrs, rrs, L - g0 < ${GS} ? L - g0 : ${GS}, one_t(), false);
    solve_mask(g0, L, sm);
    for (int e = threadIdx.x; e < ${GS} * KD; e += SNT) {
      const int t = g0 + e / KD, o = (e / KD) * SKP + e % KD;
      xp[o] = 0.0f;
      x[o] = step[t] > 0.0f ? step[t] * rh[e] : rh[e]; /* ||H_t|| = lambda_t = 0: x_t = b_t */
      om[t] = 2.0f;
    }
    __syncthreads();
    for (int r = 0; r < iters; r++) {
      solve_hx(sm, x, p);
      for (int e = threadIdx.x; e < ${GS} * KD; e += SNT) {
        const int t = g0 + e / KD, o = (e / KD) * SKP + e % KD;
        const float w = step[t] > 0.0f ? 4.0f / (4.0f - rho2[t] * om[t]) : 1.0f;
        const float cs = step[t] * w, mo = w - 1.0f;
        xn[o] = x[o] - cs * (p[o] + lam[t] * x[o] - rh[e]) + mo * (x[o] - xp[o]);
      }
      __syncthreads();
      for (int t = threadIdx.x; t < ${GS}; t += SNT)
        if (step[g0 + t] > 0.0f) om[g0 + t] = 4.0f / (4.0f - rho2[g0 + t] * om[g0 + t]);
      float *tmp = xp; xp = x; x = xn; xn = tmp;
      __syncthreads();
    }
    for (int e = threadIdx.x; e < ${GS} * KD; e += SNT) {
      const int t = e / KD, k = e - t * KD;
      if (g0 + t < L) xo[(g0 + t) * xrs + k] = x[t * SKP + k];
    }
    __syncthreads();
  }
}
@ end
#define SOLVE_CHEB_BF ${CHEB_BF and 1 or 0} /* the backward's solves use solve_cheb_bf too */
/* H at the chunk end: e^{hb_L} H0 + (K * w)' K, w_s = e^{hb_L - hb_s} hw_s; returns its ||.||_F^2 */
__device__ float solve_advance(int L, float *sm) {
  float *hf = sm + X_HF, *kc = sm + X_KC, *hb = sm + X_HB, *hw = sm + X_HW, *kw = sm + X_XB;
  const float hl = hb[L - 1], eh = expf(hl);
  for (int e = threadIdx.x; e < CH * KD; e += SNT) {
    const int s = e / KD, o = s * SKP + e % KD;
    kw[o] = s < L ? kc[o] * expf(hl - hb[s]) * hw[s] : 0.0f;
  }
  for (int e = threadIdx.x; e < KD * KD; e += SNT) hf[(e / KD) * SKP + e % KD] *= eh;
  __syncthreads();
  mm<SKP, 1, SKP, SKP, 1>(hf, kw, kc, KD, KD, CH, true);
  float s = 0.0f;
  for (int e = threadIdx.x; e < KD * KD; e += SNT) { const float v = hf[(e / KD) * SKP + e % KD]; s += v * v; }
  return block_sum(s, sm + X_RED, SNT);
}
/* hf (pitch SKP) = H (packed lower triangle at hp, or 0); returns ||H||_F^2 */
__device__ float solve_unpack(float *sm, const float *hp) {
  float *hf = sm + X_HF;
  for (int e = threadIdx.x; e < KD * KD; e += SNT) {
    const int i = e / KD, j = e - i * KD, r = i > j ? i : j, c = i > j ? j : i;
    hf[i * SKP + j] = hp ? hp[r * (r + 1) / 2 + c] : 0.0f;
  }
  __syncthreads();
  float s = 0.0f;
  for (int e = threadIdx.x; e < KD * KD; e += SNT) { const float v = hf[(e / KD) * SKP + e % KD]; s += v * v; }
  return block_sum(s, sm + X_RED, SNT);
}
/* the packed lower triangle of hf to hp */
__device__ void solve_pack(float *hp, const float *sm) {
  const float *hf = sm + X_HF;
  for (int e = threadIdx.x; e < ${K * (K + 1) // 2}; e += SNT) {
    int i = (int)((sqrtf(8.0f * e + 1.0f) - 1.0f) * 0.5f);
    while (i * (i + 1) / 2 > e) i--;
    while ((i + 1) * (i + 2) / 2 <= e) i++;
    hp[e] = hf[i * SKP + (e - i * (i + 1) / 2)];
  }
}
@ local rx = P.inputs[sv.rhs + 1]
/* the forward's right-hand side b (input ${rx.name}): its row at token tok of item it, rows SOLVE_RRS apart */
#define SOLVE_RHS(tok) ((const ${rx.gate and 'float' or 'elem_t'} *)a.in[${sv.rhs}] + ((tok) * ${rx.heads == 'qk' and 'a.h_qk' or 'a.h_v'} + ${rx.heads == 'qk' and 'it.hq' or 'it.h'}) * KD)
#define SOLVE_RRS ((long long)${rx.heads == 'qk' and 'a.h_qk' or 'a.h_v'} * KD)
/* x of a chunk (tokens tok .. tok + L - 1 of item it) once hf holds its start H and n2 = ||H||_F^2: the
 * per-token coefficients and norms (solve_chunk), then r Chebyshev steps (solve_steps) on the right-hand side b_t at
 * rhs + t rrs (the forward's SOLVE_RHS; the backward's dx); x_t to xo + (t a.h_v + h) xs (which may be b's rows);
 * hsave: K x K floats of global memory for solve_cheb_bf */
template <typename R>
__device__ __forceinline__ void solve_steps(const ssmc_fwd_args &a, const item_t &it, long long tok, int L, float *sm,
                                            const R *rhs, long long rrs, float *xo, int xs, float *hsave) {
  (void)hsave;
  const int iters = a.iters > 0 ? a.iters : ${sv.iters};
@ if CHEB_BF then
  solve_cheb_bf(L, sm, iters, rhs, rrs, xo + (tok * a.h_v + it.h) * xs, (long long)a.h_v * xs, hsave);
@ else
  solve_cheb(L, sm, iters, rhs, rrs, xo + (tok * a.h_v + it.h) * xs, (long long)a.h_v * xs);
@ end
}
/* all of it on the forward's right-hand side */
__device__ __forceinline__ void solve_chunk(const ssmc_fwd_args &a, const item_t &it, long long tok, int L, float *sm, float n2,
                                            float *xo, int xs, float *hsave) {
  solve_coefs(a, it, tok, L, sm);
  solve_norms(L, sm, n2);
  solve_steps(a, it, tok, L, sm, SOLVE_RHS(tok), SOLVE_RRS, xo, xs, hsave);
}
/* hf (pitch SKP) = the full K x K matrix at src; returns its ||.||_F^2 */
__device__ float solve_load(float *sm, const float *src) {
  float *hf = sm + X_HF;
  float s = 0.0f;
  for (int e = threadIdx.x * 4; e < KD * KD; e += SNT * 4) {
    const float4 v = *(const float4 *)(src + e);
    *(float4 *)(hf + (e / KD) * SKP + e % KD) = v;
    s += v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w;
  }
  __syncthreads();
  return block_sum(s, sm + X_RED, SNT);
}
/* H's recurrence for item it: per chunk each(c0, L, n2) with hf its start H (n2 = ||H||_F^2), which
 * leaves the chunk's coefficients in sm (solve_coefs), then H's advance; the final H (packed) to state_out */
template <typename F> __device__ __forceinline__ void solve_chain(const ssmc_fwd_args &a, const item_t &it, float *sm, F each) {
  const long long slot = it.n * a.h_v + it.h;
  const float *h0 = a.state_in[${sv.state}];
  float n2 = solve_unpack(sm, h0 ? h0 + slot * ${K * (K + 1) // 2} : nullptr);
  for (long long c0 = 0; c0 < it.T; c0 += CH) {
    const int L = (int)(it.T - c0 < CH ? it.T - c0 : CH);
    each(c0, L, n2);
    n2 = solve_advance(L, sm);
  }
  float *ho = a.state_out[${sv.state}];
  if (ho) solve_pack(ho + slot * ${K * (K + 1) // 2}, sm);
}
/* the solve's x: to aux_out[0] (T_total, h_v, K) when given, else into the workspace */
#define SOLVE_XO (a.aux_out[0] ? (float *)a.aux_out[0] : ws)
#define SOLVE_XS (a.aux_out[0] ? KD : WS_TOK)
/* The forward's solve, two forms. solve (items): one block walks a sequence's chunks in order, H on chip
 * (the forward's `fused` slot, picked by itself from enough work items on where the module has no psolve90).
 * hdelta and hscan (below), then psolve (chunks): H's recurrence alone, each chunk-start H into its chunk slot of
 * the workspace (the chunk stages after psolve overwrite it), then every chunk's x at once. */
extern "C" __global__ void __launch_bounds__(SNT, 1) ${P.name}_solve(ssmc_fwd_args a, float *ws) {
  extern __shared__ float sm[];
  const item_t it = item_of(a);
  /* H0's fp32 copy while the Chebyshev steps run (solve_cheb_bf): the workspace of the item's first chunk
   * slot (the chunk stages fill it after this stage) */
  float *hsave = ws_chunk(a, ws, slot0_of(a, it.n), it.h);
  solve_chain(a, it, sm, [&](long long c0, int L, float n2) { solve_chunk(a, it, it.t0 + c0, L, sm, n2, SOLVE_XO, SOLVE_XS, hsave); });
}
/* H's chain in two chunk-parallel stages. hdelta (chunks): the chunk's own part of H's advance, D_c = sum_s
 * e^{hb_L - hb_s} hw_s k_s k_s' (K, K), and its decay e^{hb_L} into its chunk slot; hscan (items, elements): the
 * elementwise chain H_{c+1} = e^{hb_L} H_c + D_c over a sequence's chunks, each chunk-start H in place of D_c, the
 * final H (packed) to state_out. (A block walking a sequence's chunks left the SMs idle with few sequences: GKA
 * B1 T32768 H16 had 16 blocks for 512 chunks.) */
/* the bodies write D_c to h (K x K floats) and e^{hb_L} to h[hd]: the forward's chunk slot (hd WS_HD), the
 * backward's (its bhdelta, bhscan) */
__device__ __forceinline__ void hdelta_body(const ssmc_fwd_args &a, const chunk_t &ch, float *sm, float *h, int hd) {
  solve_coefs(a, ch.it, ch.it.t0 + ch.c0, ch.L, sm);
  for (int e = threadIdx.x; e < KD * KD; e += SNT) sm[X_HF + (e / KD) * SKP + e % KD] = 0.0f;
  __syncthreads();
  solve_advance(ch.L, sm);
  for (int e = threadIdx.x * 4; e < KD * KD; e += SNT * 4)
    *(float4 *)(h + e) = *(const float4 *)(sm + X_HF + (e / KD) * SKP + e % KD);
  if (threadIdx.x == 0) h[hd] = expf(sm[X_HB + ch.L - 1]);
}
extern "C" __global__ void __launch_bounds__(SNT, 1) ${P.name}_hdelta(ssmc_fwd_args a, float *ws) {
  extern __shared__ float sm[];
  chunk_t ch;
  if (!chunk_of(a, ch)) return;
  hdelta_body(a, ch, sm, ws_chunk(a, ws, blockIdx.x, ch.it.h), WS_HD);
}
/* hs: the sequence's first chunk's D_c (as hdelta_body's h), chunk c's cs floats on */
__device__ __forceinline__ void hscan_body(const ssmc_fwd_args &a, const item_t &it, float *hs, long long cs, int hd) {
  const long long slot = it.n * a.h_v + it.h, nc = (it.T + CH - 1) / CH;
  const float *h0 = a.state_in[${sv.state}];
  float *ho = a.state_out[${sv.state}];
  /* elements e of (K, K), the grid's K V / 4 a thread four at a time */
  for (int e = (it.vt * ${NT.scan} + (int)threadIdx.x) * 4; e < KD * KD; e += (int)gridDim.y * ${NT.scan} * 4) {
    float z[4];
#pragma unroll
    for (int i = 0; i < 4; i++) {
      const int r = (e + i) / KD, c = (e + i) % KD, pr = r > c ? r : c, pc = r > c ? c : r;
      z[i] = h0 ? h0[slot * ${K * (K + 1) // 2} + pr * (pr + 1) / 2 + pc] : 0.0f;
    }
    for (long long c0 = 0; c0 < nc; c0 += 8) { /* the loads 8 chunks ahead */
      float4 d[8];
      float g[8];
#pragma unroll
      for (int i = 0; i < 8; i++)
        if (c0 + i < nc) {
          d[i] = __ldcs((const float4 *)(hs + (c0 + i) * cs + e));
          g[i] = hs[(c0 + i) * cs + hd];
        }
#pragma unroll
      for (int i = 0; i < 8; i++)
        if (c0 + i < nc) {
          *(float4 *)(hs + (c0 + i) * cs + e) = make_float4(z[0], z[1], z[2], z[3]);
          z[0] = g[i] * z[0] + d[i].x; z[1] = g[i] * z[1] + d[i].y; z[2] = g[i] * z[2] + d[i].z; z[3] = g[i] * z[3] + d[i].w;
        }
    }
    if (ho)
#pragma unroll
      for (int i = 0; i < 4; i++) {
        const int r = (e + i) / KD, c = (e + i) % KD;
        if (r >= c) ho[slot * ${K * (K + 1) // 2} + r * (r + 1) / 2 + c] = z[i];
      }
  }
}
extern "C" __global__ void __launch_bounds__(${NT.scan}) ${P.name}_hscan(ssmc_fwd_args a, float *ws) {
  const item_t it = item_of(a);
  hscan_body(a, it, ws_chunk(a, ws, slot0_of(a, it.n), it.h), (long long)a.h_v * WS_CHUNK, WS_HD);
}
extern "C" __global__ void __launch_bounds__(SNT, 1) ${P.name}_psolve(ssmc_fwd_args a, float *ws) {
  extern __shared__ float sm[];
  chunk_t ch;
  if (!chunk_of(a, ch)) return;
  float *hs = ws_chunk(a, ws, blockIdx.x, ch.it.h);
  solve_chunk(a, ch.it, ch.it.t0 + ch.c0, ch.L, sm, solve_load(sm, hs), SOLVE_XO, SOLVE_XS, hs);
}
@ if PS90 then
@   local kx = P.inputs[sv.key + 1]
@   local KHN, kh = kx.heads == 'qk' and 'a.h_qk' or 'a.h_v', kx.heads == 'qk' and 'it.hq' or 'it.h'
/* psolve's sm_90a form (PS90; the launch line's when=sm90): the chunk's x from hscan's H0 as psolve computes it, one
 * warpgroup a chunk and every product on wgmma m64nNk16 bf16. Warp w holds the rows 16 w + g (+ 8) of every product
 * in its accumulators (columns 8 j + 2 q (+ 1)); the iterate x is kept as bf16 hi + lo pairs in that layout, which is
 * the register operand A of the next round's products as it is. Per round: S = x K' (the keys exact: two products)
 * and P = x H0 (H0's hi and lo parts: three), then S masked into its hi + lo pairs, P += S K (two), and the Chebyshev
 * step (e^{hb_t} applied in it); x - x_{r-1} waits in shared memory as float pairs. The rounds are pipelined (below):
 * 7.03 -> 5.83 ms at B8 T4096 H16 (H200, ncu: the gpu-h200-s33 record). Shared memory: PS90's layout above, PSOFF
 * floats. */
/* the two floats of a bf16 pair (bf2's) */
__device__ __forceinline__ float2 bf_pair(unsigned u) { return make_float2(__uint_as_float(u << 16), __uint_as_float(u & 0xffff0000u)); }
__device__ __forceinline__ float2 ld_pair(const unsigned short *p) { return bf_pair(*(const unsigned *)p); }
__device__ __forceinline__ float2 ld_pair(const float *p) { return *(const float2 *)p; }
/* the float pair of a hi + lo pair */
__device__ __forceinline__ float2 hl_val(unsigned h, unsigned l) {
  const float2 a = bf_pair(h), b = bf_pair(l);
  return make_float2(a.x + b.x, a.y + b.y);
}
/* element (t, d) of a (CH, KD) tile of core matrices as tile_cp16 puts them (K-major with rows t) */
#define PS_AT(t, d) core16((t), (d), 8 * KD, 64)
#if SSMC_SM90
/* the chunk's keys (C, K) as loaded into such a tile at kt by cp.async, 128 threads (committed) */
__device__ __forceinline__ void ps_keys(const ssmc_fwd_args &a, const item_t &it, long long tok, int L, unsigned short *kt) {
  tile_cp16<128, KD>(kt, (const unsigned short *)a.in[${sv.key}] + (tok * ${KHN} + ${kh}) * KD, (long long)${KHN} * KD, L);
  cp_async_commit();
}
/* the keys kt (a (C, K) tile as ps_keys loads it), row t times f(t), into bf16 hi and lo parts in the same core
 * matrices, a row's 8-element piece at a time (hdelta90's w k, gsolve90's scaled keys) */
template <int NTH, typename F>
__device__ __forceinline__ void ps_scale_keys(const unsigned short *kt, unsigned short *hi, unsigned short *lo, F f) {
  for (int e = threadIdx.x; e < CH * KD / 8; e += NTH) {
    const int t = e / (KD / 8), o = PS_AT(t, (e - t * (KD / 8)) * 8);
    const float w = f(t);
    const uint4 k8 = *(const uint4 *)(kt + o);
    const unsigned kw[4] = {k8.x, k8.y, k8.z, k8.w};
    unsigned h[4], l[4];
#pragma unroll
    for (int i = 0; i < 4; i++) {
      const float2 k2 = bf_pair(kw[i]);
      hl_pair(w * k2.x, w * k2.y, h[i], l[i]);
    }
    *(uint4 *)(hi + o) = make_uint4(h[0], h[1], h[2], h[3]);
    *(uint4 *)(lo + o) = make_uint4(l[0], l[1], l[2], l[3]);
  }
}
/* rows r < n of a (n, K) fp32 tile at src (row stride rs; rows L .. n - 1 zero), row r times f(r), into bf16 hi and lo
 * parts in such core matrices (element (r, d) at PS_AT(r, d)), a row's 8-element piece at a time; returns the thread's
 * part of the (scaled) tile's sum of squares */
template <int NTH, typename F = one_t>
__device__ __forceinline__ float ps_split(unsigned short *hi, unsigned short *lo, const float *src, long long rs, int n, int L, F f = F()) {
  constexpr int U = 8; /* pieces a thread in flight: their loads before any store (which may alias them, as far as the
                          compiler knows: one piece at a time, each load waited for; with the stages' other loads so,
                          gsolve90 and sgrad90 took ~100 us a block, H200 ncu: the gpu-h200-sgrad90 record; 4 in
                          flight still left them waiting, the gpu-h200-s33 record) */
  float s2 = 0.0f;
  for (int e0 = threadIdx.x; e0 < n * KD / 8; e0 += U * NTH) {
    float4 u[U], v[U];
#pragma unroll
    for (int i = 0; i < U; i++) {
      const int e = e0 + i * NTH, r = e / (KD / 8), j = e - r * (KD / 8);
      u[i] = v[i] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      if (e < n * KD / 8 && r < L) {
        u[i] = *(const float4 *)(src + r * rs + 8 * j);
        v[i] = *(const float4 *)(src + r * rs + 8 * j + 4);
      }
    }
#pragma unroll
    for (int i = 0; i < U; i++) {
      const int e = e0 + i * NTH, r = e / (KD / 8), j = e - r * (KD / 8);
      if (e >= n * KD / 8) break;
      const float c = r < L ? f(r) : 0.0f;
      float4 x = u[i], y = v[i];
      x.x *= c; x.y *= c; x.z *= c; x.w *= c; y.x *= c; y.y *= c; y.z *= c; y.w *= c;
      s2 += x.x * x.x + x.y * x.y + x.z * x.z + x.w * x.w + y.x * y.x + y.y * y.y + y.z * y.z + y.w * y.w;
      uint4 h, l;
      hl_pair(x.x, x.y, h.x, l.x);
      hl_pair(x.z, x.w, h.y, l.y);
      hl_pair(y.x, y.y, h.z, l.z);
      hl_pair(y.z, y.w, h.w, l.w);
      *(uint4 *)(hi + PS_AT(r, 8 * j)) = h;
      *(uint4 *)(lo + PS_AT(r, 8 * j)) = l;
    }
  }
  return s2;
}
/* psolve90's setup (and gsolve90's), 128 threads: the chunk's keys by cp.async into kt (PS_AT), H0 (K x K floats at h0)
 * into its hi and lo parts hh, hl, the decays hb, hw (C each) and, from K H0 and K K' on wgmma, the norms' scalars
 * (solve_eq5) at sc: lambda_t, the step, rho^2, (khk, gtt: scratch), the norm, then 32 floats of scratch; the last by
 * one warp after a barrier (the caller's next barrier publishes them) */
__device__ __forceinline__ void ps90_setup(const ssmc_fwd_args &a, const item_t &it, long long tok, int L, const float *h0,
                                           unsigned short *hh, unsigned short *hl, unsigned short *kt, float *hb, float *hw, float *sc) {
  float *lam = sc, *step = lam + CH, *rho2 = step + CH, *khk = rho2 + CH, *gtt = khk + CH, *nrm = gtt + CH, *red = nrm + CH;
  /* the keys (bf16, as loaded) by cp.async */
  ps_keys(a, it, tok, L, kt);
  /* H0 into its hi and lo parts (its rows as a key tile's); n2 = ||H0||_F^2 */
  const float n2 = block_sum(ps_split<128>(hh, hl, h0, KD, KD, KD), red, 128);
  solve_scalars<128>(a, it, tok, L, hb, hw);
  cp_async_wait<0>();
  fence_async_smem();
  __syncthreads();
  const int lane = threadIdx.x & 31, q = lane & 3, r0 = 16 * (threadIdx.x >> 5) + (lane >> 2);
  /* the keys K-major (rows t: the B of K K', the A of K H0), H0's parts K-major (rows n) */
  const unsigned long long dka = wg16_desc(kt, 8 * KD, 64), dhh = wg16_desc(hh, 8 * KD, 64), dhl = wg16_desc(hl, 8 * KD, 64);
  {
    /* the norms' terms (solve_norms): k_t' H0 k_t from K H0 (two products) and the scores K K' */
    float p[KD / 2] = {}, kk2[CH / 2] = {};
    wg_fence();
    wg16_issue<KD, KD / 16, 0, 0, 16, 16>(p, dka, dhh);
    wg16_issue<KD, KD / 16, 0, 0, 16, 16>(p, dka, dhl);
    wg16_issue<CH, KD / 16, 0, 0, 16, 16>(kk2, dka, dka);
    wg_commit();
    wg_wait0();
    float kk[2] = {0.0f, 0.0f}, gs[2] = {0.0f, 0.0f};
#pragma unroll
    for (int j = 0; j < KD / 8; j++)
#pragma unroll
      for (int i = 0; i < 2; i++) {
        const float2 k2 = ld_pair(kt + PS_AT(r0 + 8 * i, 8 * j + 2 * q));
        kk[i] += p[4 * j + 2 * i] * k2.x + p[4 * j + 2 * i + 1] * k2.y;
      }
#pragma unroll
    for (int j = 0; j < CH / 8; j++)
#pragma unroll
      for (int e = 0; e < 4; e++) {
        const int t = r0 + 8 * (e >> 1), c = 8 * j + 2 * q + (e & 1);
        const float v = kk2[4 * j + e];
        if (c == t) gtt[t] = v;
        if (c < t) gs[e >> 1] += expf(hb[t - 1] - hb[c]) * hw[c] * v * v;
      }
#pragma unroll
    for (int i = 0; i < 2; i++) {
      const int t = r0 + 8 * i;
      float v = expf(t ? hb[t - 1] : 0.0f) * kk[i] + gs[i];
      v += __shfl_xor_sync(0xffffffffu, v, 1);
      v += __shfl_xor_sync(0xffffffffu, v, 2);
      if (q == 0) khk[t] = v;
    }
  }
  __syncthreads();
  if (threadIdx.x < 32) solve_eq5(L, hb, hw, khk, gtt, 1, n2, nrm, lam, step, rho2);
}
/* x of a chunk (tokens tok .. tok + L - 1 of item it) from its start H at h0 (K x K floats) and the right-hand side
 * b_t at rhs + t rrs (as solve_chunk's) to xo0 + (t a.h_v + h) xs (b's rows may be x's: each thread reads and writes
 * its own elements), 128 threads, PSOFF floats of shared memory at sm: psolve90's and the backward's xsolve90's and
 * gcheb90's */
/* a compile-time flag as a value (a generic lambda's instantiations) */
template <bool B> struct bool_c { static constexpr bool value = B; };
template <typename R>
__device__ __forceinline__ void psolve90_body(const ssmc_fwd_args &a, const item_t &it, long long tok, int L, float *sm,
                                              const float *h0, const R *rhs, long long rrs, float *xo0, int xs) {
  unsigned short *hh = (unsigned short *)sm, *hl = hh + KD * KD, *kt = hl + KD * KD;
  float2 *dx = (float2 *)(kt + CH * KD); /* pair i of thread x at i 128 + x */
  float *hb = sm + ${PSF}, *hw = hb + CH, *mc = hw + CH;
  /* the norms' scalars (ps90_setup's) over x - x_{r-1} (spent once the rows' Chebyshev scalars are in registers) */
  float *lam = (float *)dx, *step = lam + CH, *rho2 = step + CH;
  ps90_setup(a, it, tok, L, h0, hh, hl, kt, hb, hw, lam);
  const int w = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, q = lane & 3, r0 = 16 * w + g;
  /* descriptors: the keys K-major (rows t: the B of x K') and MN-major (k = t: the B of S K); H0's parts K-major (rows n) */
  const unsigned long long dkm = wg16_desc(kt, 64, 8 * KD), dhh = wg16_desc(hh, 8 * KD, 64);
  /* as 32-bit halves, from one register: the operands lie at fixed offsets (16-byte units) from hh, and the K-major
   * ones share their high half (SBO) */
  const unsigned hhl0 = (unsigned)dhh, dh = (unsigned)(dhh >> 32), kmh = (unsigned)(dkm >> 32);
  unsigned hhl = hhl0;
  constexpr unsigned HLO = KD * KD * 2 / 16, KAO = 2 * HLO, LBO_M = 8 * KD * 2 / 16 - 64 * 2 / 16;
#define PS_HL (hhl + HLO)
#define PS_KA (hhl + KAO)
#define PS_KM (hhl + KAO + (LBO_M << 16))
  /* fold: where every |hb_t| < 40 the decay mask splits into a row factor e^{hb_t} and a column factor
   * mc_s = e^{-hb_s} hw_s (over the norms, spent), and P += S K follows x H0 without waiting for it, the row factor
   * applied after both (the products' magnitudes stay below e^40 of their values); else S waits for P. Through a
   * shuffle, as ptxas sees it warp-uniform (in a branch it thinks divergent it serializes the wgmma) */
  bool fold = true;
  for (int t = 0; t < CH; t++) fold = fold && fabsf(hb[t]) < 40.0f;
  fold = __shfl_sync(0xffffffffu, fold, 0);
  __syncthreads();
  for (int t = threadIdx.x; t < CH; t += 128) mc[t] = fold ? expf(-hb[t]) * hw[t] : 0.0f;
  __syncthreads();
  const cheb_rows cr(lam, step, rho2, hb, L, r0);
  __syncthreads(); /* every row's scalars read: x - x_{r-1} over them from here */
  const int iters = a.iters > 0 ? a.iters : ${sv.iters};
  /* x_0 = step_t b_t (b_t where ||H_t|| = lambda_t = 0), x_{-1} = 0: pair 2 j + i holds the accumulators 4 j + 2 i (+ 1) */
  unsigned xh[KD / 4], xl[KD / 4];
#pragma unroll
  for (int j = 0; j < KD / 8; j++)
#pragma unroll
    for (int i = 0; i < 2; i++) {
      const int t = r0 + 8 * i;
      const float2 b = t < L ? ld_pair(rhs + t * rrs + 8 * j + 2 * q) : make_float2(0.0f, 0.0f);
      const float f = cr.step[i] > 0.0f ? cr.step[i] : 1.0f;
      hl_pair(f * b.x, f * b.y, xh[2 * j + i], xl[2 * j + i]);
      dx[(2 * j + i) * 128 + threadIdx.x] = make_float2(f * b.x, f * b.y);
    }
  float om[2] = {2.0f, 2.0f};
  /* The rounds, pipelined: round r + 1's scores S = x K' are issued beside round r's Chebyshev step, 16 columns of x
   * at a time as they are formed, and S is masked between round r + 1's products P = x H0, so that the tensor cores
   * work through both elementwise passes (issued back to back, a warpgroup's products hold up its issue until they
   * are nearly done: the passes had waited behind them, ncu's source counters) */
  float sc[CH / 2];
#pragma unroll
  for (int e = 0; e < CH / 2; e++) sc[e] = 0.0f;
  wg_fence();
#pragma unroll
  for (int k = 0; k < KD / 16; k++) {
    wg_mma16r<CH, 0>(sc, xh + 4 * k, PS_KA + 16 * k, dh);
    wg_mma16r<CH, 0>(sc, xl + 4 * k, PS_KA + 16 * k, dh);
  }
  wg_commit();
  auto rounds = [&](auto fold_c) {
    /* folded: the mask's column factor mc_s, e^{hb_t} applied in the step; else e^{hb_t - hb_s} hw_s, P scaled
     * before P += S K */
    constexpr bool FOLD = decltype(fold_c)::value;
    for (int r = 0; r < iters; r++) {
      /* the descriptors' low words formed anew each round (held across it, ptxas spilled them) */
      hhl = opaque(hhl0);
      float p[KD / 2];
#pragma unroll
      for (int e = 0; e < KD / 2; e++) p[e] = 0.0f;
      /* the scores masked, M_t(s) = e^{hb_t - hb_s} hw_s (s <= t, s < L; folded: mc_s), as the A pairs of P += S K */
      unsigned sh[CH / 4], sl[CH / 4];
      wg_wait0(); /* S in */
      wg_fence();
#pragma unroll
      for (int k = 0; k < KD / 16; k++) {
        wg_mma16r<KD, 0>(p, xh + 4 * k, hhl + 16 * k, dh);
        wg_mma16r<KD, 0>(p, xh + 4 * k, PS_HL + 16 * k, dh);
        wg_mma16r<KD, 0>(p, xl + 4 * k, hhl + 16 * k, dh);
        constexpr int JK = (CH / 8) / (KD / 16);
#pragma unroll
        for (int j = JK * k; j < JK * (k + 1); j++)
#pragma unroll
          for (int i = 0; i < 2; i++) {
            const int t = r0 + 8 * i, c = 8 * j + 2 * q;
            float m0, m1;
            if constexpr (FOLD) {
              const float2 m = *(const float2 *)(mc + c);
              m0 = c > t ? 0.0f : m.x;
              m1 = c + 1 > t ? 0.0f : m.y;
            } else {
              m0 = c > t ? 0.0f : expf(hb[t] - hb[c]) * hw[c];
              m1 = c + 1 > t ? 0.0f : expf(hb[t] - hb[c + 1]) * hw[c + 1];
            }
            hl_pair(sc[4 * j + 2 * i] * m0, sc[4 * j + 2 * i + 1] * m1, sh[2 * j + i], sl[2 * j + i]);
          }
      }
      if constexpr (!FOLD) {
        wg_commit();
        wg_wait0();
#pragma unroll
        for (int e = 0; e < KD / 2; e++) p[e] *= cr.eb[(e >> 1) & 1];
      }
      wg_fence();
#pragma unroll
      for (int k = 0; k < CH / 16; k++) wg_mma16r<KD, 1>(p, sh + 4 * k, PS_KM + 2 * KD * k, kmh);
#pragma unroll
      for (int k = 0; k < CH / 16; k++) wg_mma16r<KD, 1>(p, sl + 4 * k, PS_KM + 2 * KD * k, kmh);
      wg_commit();
      /* the bf16 right-hand side's words, loaded before P += S K is waited for (a float one in the step). Its time is
       * neutral (the gpu-h200-s33 record, call 2), but without it ptxas gave psolve90 251 registers, not 233, and
       * xsolve90 spills */
      unsigned bw[sizeof(R) == 2 ? KD / 4 : 1];
      if constexpr (sizeof(R) == 2) {
#pragma unroll
        for (int pi = 0; pi < KD / 4; pi++) {
          const int t = r0 + 8 * (pi & 1);
          bw[pi] = t < L ? *(const unsigned *)(rhs + t * rrs + 8 * (pi >> 1) + 2 * q) : 0u;
        }
      }
      wg_wait0();
      const float wr[2] = {cr.w(0, om[0]), cr.w(1, om[1])};
#pragma unroll
      for (int e = 0; e < CH / 2; e++) sc[e] = 0.0f;
#pragma unroll
      for (int k = 0; k < KD / 16; k++) {
#pragma unroll
        for (int j = 2 * k; j < 2 * k + 2; j++)
#pragma unroll
          for (int i = 0; i < 2; i++) {
            const int t = r0 + 8 * i, pi = 2 * j + i;
            float2 b;
            if constexpr (sizeof(R) == 2) b = bf_pair(bw[pi]);
            else b = t < L ? ld_pair(rhs + t * rrs + 8 * j + 2 * q) : make_float2(0.0f, 0.0f);
            const float2 x = hl_val(xh[pi], xl[pi]);
            const float2 d = dx[pi * 128 + threadIdx.x];
            const float cs = cr.step[i] * wr[i], mo = wr[i] - 1.0f, pe = FOLD ? cr.eb[i] : 1.0f;
            const float n0 = x.x - cs * (pe * p[4 * j + 2 * i] + cr.lam[i] * x.x - b.x) + mo * d.x;
            const float n1 = x.y - cs * (pe * p[4 * j + 2 * i + 1] + cr.lam[i] * x.y - b.y) + mo * d.y;
            dx[pi * 128 + threadIdx.x] = make_float2(n0 - x.x, n1 - x.y);
            hl_pair(n0, n1, xh[pi], xl[pi]);
          }
        /* the next round's S on these 16 columns (after the last round: spent) */
        wg_fence();
        wg_mma16r<CH, 0>(sc, xh + 4 * k, PS_KA + 16 * k, dh);
        wg_mma16r<CH, 0>(sc, xl + 4 * k, PS_KA + 16 * k, dh);
      }
      wg_commit();
#pragma unroll
      for (int i = 0; i < 2; i++) if (cr.step[i] > 0.0f) om[i] = wr[i];
    }
  };
  if (fold) rounds(bool_c<true>());
  else rounds(bool_c<false>());
  wg_wait0();
  float *xo = xo0 + (tok * a.h_v + it.h) * xs;
  const long long xrs = (long long)a.h_v * xs;
#pragma unroll
  for (int j = 0; j < KD / 8; j++)
#pragma unroll
    for (int i = 0; i < 2; i++) {
      const int t = r0 + 8 * i;
      if (t >= L) continue;
      const float2 x = hl_val(xh[2 * j + i], xl[2 * j + i]);
      xo[t * xrs + 8 * j + 2 * q] = x.x;
      xo[t * xrs + 8 * j + 2 * q + 1] = x.y;
    }
#undef PS_HL
#undef PS_KA
#undef PS_KM
}
#endif
extern "C" __global__ void __launch_bounds__(128, 1) ${P.name}_psolve90(ssmc_fwd_args a, float *ws) {
#if SSMC_SM90
  extern __shared__ float sm[];
  chunk_t ch;
  if (!chunk_of(a, ch)) return;
  const item_t &it = ch.it;
  psolve90_body(a, it, it.t0 + ch.c0, ch.L, sm, ws_chunk(a, ws, blockIdx.x, it.h), SOLVE_RHS(it.t0 + ch.c0), SOLVE_RRS, SOLVE_XO, SOLVE_XS);
#endif
}
/* hdelta's sm_90a form (when=sm90): D_c = (w k)' k on wgmma, 128 threads, two products (w k as bf16 hi + lo, the keys
 * exact), 64 rows of D at a time from the accumulators to the chunk slot. The keys (C, K) by cp.async as loaded, w k's
 * parts in the same core matrices: for D's rows (the features, m) and columns (n) both operands are MN-major (k = t).
 * Shared memory: the keys and w k's two parts (C, K) bf16 each, hb and hw (C floats each). */
#if SSMC_SM90
__device__ __forceinline__ void hdelta90_body(const ssmc_fwd_args &a, const chunk_t &ch, float *sm, float *d0, int hd) {
  const item_t &it = ch.it;
  const long long tok = it.t0 + ch.c0;
  const int L = ch.L;
  unsigned short *kt = (unsigned short *)sm, *wh = kt + CH * KD, *wl = wh + CH * KD;
  float *hb = sm + 3 * CH * KD / 2, *hw = hb + CH;
  ps_keys(a, it, tok, L, kt);
  solve_scalars<128>(a, it, tok, L, hb, hw);
  cp_async_wait<0>();
  __syncthreads();
  /* w_s k_s, w_s = e^{hb_L - hb_s} hw_s, as hi + lo parts */
  const float hl = hb[L - 1];
  ps_scale_keys<128>(kt, wh, wl, [&](int t) { return t < L ? expf(hl - hb[t]) * hw[t] : 0.0f; });
  fence_async_smem();
  __syncthreads();
  const int w = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, q = lane & 3;
  /* MN-major (k = t) descriptors: SBO along the features (a core matrix's 8), LBO along the tokens; a k step of 16
   * tokens is two LBO (2 KD 16-byte units) */
  const unsigned long long dk = wg16_desc(kt, 64, 8 * KD);
  for (int mh = 0; mh < KD / 64; mh++) {
    const unsigned long long dwh = wg16_desc(wh + 512 * mh, 64, 8 * KD), dwl = wg16_desc(wl + 512 * mh, 64, 8 * KD);
    float d[KD / 2] = {};
    wg_fence();
    wg16_issue<KD, CH / 16, 1, 1, 2 * KD, 2 * KD>(d, dwh, dk);
    wg16_issue<KD, CH / 16, 1, 1, 2 * KD, 2 * KD>(d, dwl, dk);
    wg_commit();
    wg_wait0();
    float *row = d0 + (64 * mh + 16 * w + g) * KD + 2 * q;
#pragma unroll
    for (int j = 0; j < KD / 8; j++) {
      *(float2 *)(row + 8 * j) = make_float2(d[4 * j], d[4 * j + 1]);
      *(float2 *)(row + 8 * KD + 8 * j) = make_float2(d[4 * j + 2], d[4 * j + 3]);
    }
  }
  if (threadIdx.x == 0) d0[hd] = expf(hl);
}
#endif
extern "C" __global__ void __launch_bounds__(128, 1) ${P.name}_hdelta90(ssmc_fwd_args a, float *ws) {
#if SSMC_SM90
  extern __shared__ float sm[];
  chunk_t ch;
  if (!chunk_of(a, ch)) return;
  hdelta90_body(a, ch, sm, ws_chunk(a, ws, blockIdx.x, ch.it.h), WS_HD);
#endif
}
@ end
@ end

/* ---------------------------------------------------------------- chunk stages: shared pieces */
@ -- in[] bound to a stage's on-chip inputs
@ local function bind_inputs(prefix, want, raw)
  float *in[SSMC_MAX_IO];
@   for _, x in ipairs(P.inputs) do
@     if x.smem and want(x) and not (raw and raw(x)) then
  in[${x.idx}] = sm + ${prefix}IN${x.idx};
@     end
@   end
  (void)in;
@ end
@ -- A stage's copies from global to shared memory: each {name, rows, D (nil: a column of scalars),
@ -- dst, ld, src = function(tok) -> pointer, rs (row stride), L (rows; default: the chunk's L),
@ -- coef, acc}; fetched into registers together (copies_fetch), then put (copies_put).
@ local function input_copies(prefix, want, vw, vld, v0, raw, kld)
@   local l = {}
@   for _, x in ipairs(P.inputs) do
@     if x.smem and want(x) then
@       local H = x.heads == 'qk' and 'a.h_qk' or 'a.h_v'
@       local hh = x.heads == 'qk' and 'it.hq' or 'it.h'
@       local T = x.gate and 'float' or 'elem_t'
@       local val = x.dimsym == 2
@       l[#l + 1] = {name = 'r_in' .. x.idx, rows = 'CH', D = x.D > 1 and (val and vw or x.D) or nil, T = T,
@                    raw = x.D > 1 and raw and raw(x),
@                    dst = 'sm + ' .. prefix .. 'IN' .. x.idx, ld = val and vld or (x.D == 1 and 1 or (raw and raw(x) and kld) or 'KP'),
@                    src = function(tok) return string.format('(const %s *)a.in[%d] + ((%s) * %s + %s) * %d + %s', T,
@                                                              x.idx, tok, H, hh, x.D, val and v0 or '0') end,
@                    rs = '(long long)' .. H .. ' * ' .. x.D}
@     end
@   end
@   return l
@ end
@ -- rows of the per-token workspace from column col on
@ local function ws_copy(name, D, dst, ld, col)
@   return {name = name, rows = 'CH', D = D, T = 'float', dst = dst, ld = ld, rs = '(long long)a.h_v * WS_TOK',
@           src = function(tok) return '(const float *)ws + ((' .. tok .. ') * a.h_v + it.h) * WS_TOK + ' .. col end}
@ end
@ -- (nth, t0: by the threads t0 .. t0 + nth - 1; default all NT)
@ local function copies_decl(l, nth, t0)
@   for _, c in ipairs(l) do
@     if c.D then
  tile_regs<${nth or 'NT'}, ${c.rows}, ${c.D}, ${c.T}${c.g8 and ', true' or t0 and ', false' or ''}${t0 and ', ' .. t0 or ''}> ${c.name};
@     else
  col_regs<${nth or 'NT'}, ${c.rows}${t0 and ', ' .. t0 or ''}> ${c.name};
@     end
@   end
@ end
@ local function copies_fetch(l, tok, L)
@   for _, c in ipairs(l) do
  ${c.name}.fetch(${c.src(tok)}, ${c.rs}, ${c.L or L});
@   end
@ end
@ local function copies_put(l)
@   for _, c in ipairs(l) do
@     if c.raw then
  ${c.name}.put_raw((${c.T} *)(${c.dst}), ${c.ld});
@     elseif c.D then
  ${c.name}.put(${c.dst}, ${c.ld}, ${c.L or 'L'}, ${c.coef or 'one_t()'}, ${c.acc and 'true' or 'false'});
@     else
  ${c.name}.put(${c.dst}, ${c.ld});
@     end
@   end
@ end
@ local BT = diag and function(t, k) return 'b[(' .. t .. ') * KP + ' .. k .. ']' end or function(t, k) return 'b[' .. t .. ']' end
@ -- tile[t * KP + k] = t < L ? tile[t * KP + k] * e^{BT(hi) - BT(lo)} * pre : 0, one exp per row for
@ -- a scalar decay (rows_scale), per element for a per-key one; lo/hi nil: 0
@ local function scale_rows(tile, pre, hi, lo, pitch)
@   pitch = pitch or 'KP'
@   local function ex(t, k)
@     local e = (hi and BT(hi(t), k) or '0.0f') .. (lo and (' - ' .. BT(lo(t), k)) or '')
@     return 'expf(' .. e .. ')'
@   end
@   if diag then
    for (int e = threadIdx.x; e < CH * KD; e += NT) {
      const int t = e / KD, k = e - t * KD;
      ${tile}[t * ${pitch} + k] = t < L ? ${tile}[t * ${pitch} + k] * ${ex('t', 'k')} * ${pre} : 0.0f;
    }
@   else
    rows_scale<NT, CH, KD>(${tile}, ${pitch}, [&](int t) { return t < L ? ${ex('t', '0')} * ${pre} : 0.0f; });
@   end
    __syncthreads();
@ end
@ -- write and erase coefficients ew, ee; cumulative log decays b; the whole chunk's decay zdec
@ local function coefs()
    for (int t_ = threadIdx.x; t_ < CH; t_ += NT) {
      ew[t_] = t_ < L ? ${m.write} : 0.0f;
@   if m.delta then
      ee[t_] = t_ < L ? ${m.erase} : 0.0f;
@   else
      ee[t_] = 0.0f;
@   end
    }
@   if diag then
    for (int k = threadIdx.x; k < KD; k += NT) { /* prefix sums in place of the log decays */
      float acc = 0.0f;
      for (int t = 0; t < CH; t++) { if (t < L) acc += in[${m.diag_in}][t * KP + k]; b[t * KP + k] = acc; }
      zdec[k] = expf(acc);
    }
@   else
    if (threadIdx.x < 32) { /* inclusive prefix sum of the log decays: warp 0, CH / 32 tokens a lane */
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
        if (t_ < CH) b[t_] = carry + v;
        carry += __shfl_sync(0xffffffffu, v, 31);
      }
    }
    __syncthreads();
    for (int k = threadIdx.x; k < KD; k += NT) zdec[k] = expf(b[CH - 1]);
@   end
    __syncthreads();
@ end

@ if HF then
/* a chunk's cumulative log decays by one warp: bl[c] = b_t of token t = 32 c + tp (lane tp; L tokens, ld(t) the log
 * decay of token t < L), bL = b_L */
template <typename F> __device__ __forceinline__ void hb_cumdecay(int L, int tp, F ld, float (&bl)[CH / 32], float &bL) {
  float carry = 0.0f;
  bL = 0.0f;
#pragma unroll
  for (int c = 0; c < CH / 32; c++) {
    const int t_ = 32 * c + tp;
    float v = 0.0f;
    if (t_ < L) v = ld(t_);
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const float up_ = __shfl_up_sync(0xffffffffu, v, o);
      if (tp >= o) v += up_;
    }
    bl[c] = carry + v;
    carry += __shfl_sync(0xffffffffu, v, 31);
  }
#pragma unroll
  for (int c = 0; c < CH / 32; c++) { /* b_L = b_{L - 1} (no decay past L) */
    const float x = __shfl_sync(0xffffffffu, bl[c], (L - 1) & 31);
    if (c == (L - 1) >> 5) bL = x;
  }
}
@ end
@ if m.delta then
/* tm = (I - am)^-1 for a strictly lower triangular am (C, CP), in 16-row blocks: the inverses D_i of
 * all diagonal blocks at once (forward substitution, four threads a column: thread q of column j holds
 * rows 4 s + q of it in registers, sums its part of each row's dot and the four add by shuffles; ncu
 * saw a thread a column, its chain of shared-memory loads, hold GDN's prep ~20% of its samples, most
 * of the block waiting at the next barrier), then block row by block row T_i,<i = D_i am_i,<i T_<i,<i
 * on tensor cores (T_ii = D_i; T is lower triangular); rr: (16, CP) scratch. Ends with a block barrier. */
template <int NT, int S = MM_SPLIT> __device__ void unit_lower_inverse(float *tm, const float *am, float *rr) {
  static_assert(CH % 16 == 0 && NT % 32 == 0, "16-row blocks, whole warps");
  for (int e = threadIdx.x; e < CH * CH; e += NT)
    if ((e / CH) >> 4 != (e % CH) >> 4) tm[(e / CH) * CP + e % CH] = 0.0f; /* the diagonal blocks: below */
  __syncthreads(); /* am as its writers left it */
  for (int v = threadIdx.x; v < CH * 4; v += NT) { /* a warp: eight columns of one diagonal block */
    const int q = v & 3, c = (v >> 2) & 15, r0 = v >> 6 << 4;
    const float *ar = am + r0 * CP + r0 + q; /* row t of the block's am at ar[t * CP + 4 s] */
    float x[4];
#pragma unroll
    for (int s_ = 0; s_ < 4; s_++) x[s_] = 4 * s_ + q == c ? 1.0f : 0.0f;
#pragma unroll
    for (int t = 1; t < 16; t++) {
      float p = 0.0f;
#pragma unroll
      for (int s_ = 0; s_ < (t + 3) / 4; s_++)
        if (4 * s_ + q < t) p += ar[t * CP + 4 * s_] * x[s_];
      p += __shfl_xor_sync(0xffffffffu, p, 1);
      p += __shfl_xor_sync(0xffffffffu, p, 2);
      if (q == (t & 3) && t > c) x[t >> 2] = p;
    }
#pragma unroll
    for (int s_ = 0; s_ < 4; s_++) tm[(r0 + 4 * s_ + q) * CP + r0 + c] = x[s_];
  }
  __syncthreads();
  for (int r0 = 16; r0 < CH; r0 += 16) {
    mm<CP, CP, 1, CP, 1, S>(rr, am + r0 * CP, tm, 16, r0, r0, false);
    mm<CP, CP, 1, CP, 1, S>(tm + r0 * CP, tm + r0 * CP + r0, rr, 16, r0, 16, false);
  }
}
@   if HF then
/* quad u of a product o (+)= a b over KS, o(r, c4..c4 + 3) with W / 4 quads a row: a's rows of pitch CP (16-byte
 * aligned), b's rows of pitch CP; a float4 of a and four of b a step of four (five shared-memory loads a sixteen FMA) */
template <int KS, int W>
__device__ __forceinline__ void t_quad(const float *a, const float *b, float *o, int u, bool acc = false) {
  const int r = u / (W / 4), c4 = 4 * (u % (W / 4));
  a += r * CP;
  b += c4;
  float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
  for (int s = 0; s < KS; s += 4) {
    const float4 x = *(const float4 *)(a + s);
    const float xs[4] = {x.x, x.y, x.z, x.w};
#pragma unroll
    for (int j = 0; j < 4; j++) {
      const float4 y = *(const float4 *)(b + (s + j) * CP);
      v.x += xs[j] * y.x; v.y += xs[j] * y.y; v.z += xs[j] * y.z; v.w += xs[j] * y.w;
    }
  }
  float4 *p = (float4 *)(o + r * CP + c4);
  if (acc) { const float4 w = *p; v.x += w.x; v.y += w.y; v.z += w.z; v.w += w.w; }
  *p = v;
}
/* fused90's T form (prep_fused on sm_90a): T = (I - N)^-1 of the chunk, N(t, s) = -e_t e^{b_t - b_s} k_t . k_s
 * (s < t < L), its rows (rows t < L, C floats each) to wo (row stride wrs), and the chunk's decay to zd (KD). kc: the
 * key as loaded (C, PKP), the scalar inputs in[] (C each) on chip; b, ee: (C) each; am, tm: (C, CP) each.
 * N's lower 16 x 16 blocks by mma16 (ldmatrix fragments) while warp 0 forms e_t and the cumulative log decays b_t,
 * masked in the accumulators; then the diagonal blocks' inverses D_i (forward substitution, a thread a column, its
 * rows in registers) and the doubling in 16- then 32-row blocks, [[A, 0], [-C, B]]^-1 = [[A^-1, 0], [B^-1 C A^-1,
 * B^-1]] (with I - N: C = N's block), as three rounds of fp32 dots whose operands and results stay in the upper
 * blocks of am and tm, where N and T are zero:
 *   P10 = N10 D0, P32 = N32 D2 (am's blocks (0, 1), (2, 3)), X = N_BA [D0 0; 0 D1] (tm's rows 0-31, cols 32-63);
 *   T10 = D1 P10, T32 = D3 P32, X0 += X1 P10 (X = N_BA T_A);
 *   T_BA = [D2 0; T32 D3] X.
 * (prep_body's generic form: 15.2 K warp instructions a chunk, 287 us under ncu at GDN B8 T4096 H16; the pair mask's
 * pass, the inverse's small generic products and their barriers, bench/, the s37 record, call 3) */
template <int NT>
__device__ __forceinline__ void t_form(float *const *in, const unsigned short *kc, float *b, float *ee, float *am, float *tm,
                                       int L, float *wo, long long wrs, float *zd, int tcol) {
  static_assert(CH == 64 && KD % 16 == 0, "four 16-row blocks, k16 steps (the key's rows in 16-byte pieces)");
  const int lane = threadIdx.x & 31, g = lane >> 2, q = lane & 3, mi = lane >> 3, mr = lane & 7;
  (void)in;
  /* N's block (i, j) of rows 16 i.., columns 16 j.., unmasked, into d: A's fragments rows 16 i + mr (+ 8 for mi
   * odd), k 8 (mi / 2)..; B's (the key's rows 16 j..) rows + 8 (mi / 2), k 8 (mi % 2): {0, 1} its first 8 columns */
  auto kk = [&](int i, int j, float (*d)[4]) {
    const unsigned short *pa = kc + (16 * i + mr + 8 * (mi & 1)) * PKP + 8 * (mi >> 1);
    const unsigned short *pb = kc + (16 * j + mr + 8 * (mi >> 1)) * PKP + 8 * (mi & 1);
#pragma unroll
    for (int k0 = 0; k0 < KD; k0 += 16) {
      unsigned fa[4], fb[4];
      ldsm4(fa, (const float *)(pa + k0));
      ldsm4(fb, (const float *)(pb + k0));
      mma16(d[0], fa, fb);
      mma16(d[1], fa, fb + 2);
    }
  };
  auto masked = [&](int i, int j, const float (*d)[4]) {
#pragma unroll
    for (int h = 0; h < 2; h++) {
      const int t = 16 * i + g + 8 * h;
      const float bt = b[t], c = -ee[t];
#pragma unroll
      for (int n = 0; n < 2; n++) {
        const int s = 16 * j + 8 * n + 2 * q;
        const float2 bs = *(const float2 *)(b + s);
        const float v0 = s < t && t < L ? c * fexp(bt - bs.x) * d[n][2 * h] : 0.0f;
        const float v1 = s + 1 < t && t < L ? c * fexp(bt - bs.y) * d[n][2 * h + 1] : 0.0f;
        *(float2 *)(am + t * CP + s) = make_float2(v0, v1);
      }
    }
  };
  /* warps 0-5: the blocks below the diagonal, (1, 0), (2, 0), (2, 1), (3, 0), (3, 1), (3, 2); 6 and 7 two diagonal
   * ones each; warp 0 first the scalars, a lane two tokens */
  const int w = threadIdx.x >> 5;
  if (w == 0) {
    float bl[CH / 32], bL;
    hb_cumdecay(L, lane, [&](int t_) { return ${m.logdecay or '0.0f'}; }, bl, bL);
#pragma unroll
    for (int c = 0; c < CH / 32; c++) {
      const int t_ = 32 * c + lane;
      b[t_] = bl[c];
      ee[t_] = t_ < L ? ${m.erase} : 0.0f;
    }
  }
  const int bi = w < 6 ? (w < 1 ? 1 : w < 3 ? 2 : 3) : 2 * (w - 6), bj = w < 6 ? w - bi * (bi - 1) / 2 : bi;
  float d0[2][4] = {}, d1[2][4] = {};
  if (w < 8) kk(bi, bj, d0);
  if (w >= 6 && w < 8) kk(bi + 1, bi + 1, d1);
  __syncthreads();
  if (w < 8) masked(bi, bj, d0);
  if (w >= 6 && w < 8) masked(bi + 1, bi + 1, d1);
  for (int k = threadIdx.x; k < KD; k += NT) zd[k] = expf(b[CH - 1]); /* the chunk's decay */
  __syncthreads();
  if (threadIdx.x < 64) { /* D_i's column c: x_r = [r == c] + sum_{s < r} N(r, s) x_s */
    const int i = threadIdx.x >> 4, c = threadIdx.x & 15;
    const float *nb = am + 16 * i * (CP + 1);
    float x[16];
#pragma unroll
    for (int r = 0; r < 16; r++) {
      float acc = 0.0f;
#pragma unroll
      for (int s = 0; s < r; s += 4) {
        const float4 n4 = *(const float4 *)(nb + r * CP + s);
        acc += n4.x * x[s];
        if (s + 1 < r) acc += n4.y * x[s + 1];
        if (s + 2 < r) acc += n4.z * x[s + 2];
        if (s + 3 < r) acc += n4.w * x[s + 3];
      }
      x[r] = r == c ? 1.0f : acc;
    }
    float *o = tm + 16 * i * (CP + 1) + c;
#pragma unroll
    for (int r = 0; r < 16; r++) o[r * CP] = x[r];
  }
  __syncthreads();
  /* P10 = N10 D0, P32 = N32 D2 (64 quads each), X1 = N_B1 D1, X0 = N_B0 D0 (128 each) */
  for (int p = threadIdx.x; p < 384; p += NT) {
    if (p < 64) t_quad<16, 16>(am + 16 * CP, tm, am + 16, p);
    else if (p < 128) t_quad<16, 16>(am + 48 * CP + 32, tm + 32 * CP + 32, am + 32 * CP + 48, p - 64);
    else if (p < 256) t_quad<16, 16>(am + 32 * CP + 16, tm + 16 * CP + 16, tm + 48, p - 128);
    else t_quad<16, 16>(am + 32 * CP, tm, tm + 32, p - 256);
  }
  __syncthreads();
  /* T10 = D1 P10, T32 = D3 P32, X0 += X1 P10 */
  for (int p = threadIdx.x; p < 256; p += NT) {
    if (p < 64) t_quad<16, 16>(tm + 16 * CP + 16, am + 16, tm + 16 * CP, p);
    else if (p < 128) t_quad<16, 16>(tm + 48 * CP + 48, am + 32 * CP + 48, tm + 48 * CP + 32, p - 64);
    else t_quad<16, 16>(tm + 48, am + 16, tm + 32, p - 128, true);
  }
  __syncthreads();
  /* T_BA: rows 32-47 = D2 X's rows 0-15, rows 48-63 = [T32 D3] X (X: tm's rows 0-31, columns 32-63) */
  for (int p = threadIdx.x; p < 256; p += NT) {
    if (p < 128) t_quad<16, 32>(tm + 32 * CP + 32, tm + 32, tm + 32 * CP, p);
    else t_quad<32, 32>(tm + 48 * CP + 32, tm + 32, tm + 48 * CP, p - 128);
  }
  __syncthreads();
  /* T's rows t < L, zero above the diagonal blocks */
  for (int e = threadIdx.x; e < L * (CH / 4); e += NT) {
    const int t = e >> 4, s = 4 * (e & 15);
    *(float4 *)(wo + t * wrs + tcol + s) = s >> 4 > t >> 4 ? make_float4(0.0f, 0.0f, 0.0f, 0.0f) : *(const float4 *)(tm + t * CP + s);
  }
}
@   end

@ end
/* ---------------------------------------------------------------- stage prep */
/* S: the tile products' precision (MM_SPLIT in the forward; the backward's recomputation runs MM_TF3).
 * FWD: for the forward's scan (no erase): the chunk's own part of the next chunk-start state,
 * dZ = kd' U (K, V), into the chunk's slot, and neither kd nor U (only a state pass reads them; out reads V).
 * KU: kd and U into the workspace too (the backward's scan: its later stages read them).
 * KDO (with an erase): kd too (the state pass reads it, and a kept forward's backward).
 * TO (with an erase; before fused90's T form): T's rows alone (C floats a token at WS_W), neither W nor U.
 * TK (with an erase; the keep forms and the backward's fprep): T's rows at WS_T as well, for the backward, the
 * inverse's products about fp32-accurate (MM_TF3: the backward's precision, not the forward's S); with TO (before
 * fused90's keep form on HD) T's rows at WS_T alone, from the T form's products.
 * Every product goes from the accumulators to global memory (rows < L). */
template <int S, bool FWD, bool KU = !FWD, bool KDO = true, bool TO = false, bool TK = false>
__device__ __forceinline__ void prep_body(const ssmc_fwd_args &a, float *ws) {
  constexpr int NT = ${NT.prep};
  extern __shared__ float sm[];
  chunk_t ch;
  if (!chunk_of(a, ch)) return;
  const item_t it = ch.it;
  const int L = ch.L;
  const long long tok = it.t0 + ch.c0;
  /* tiles: kc (C, PKP), vc (C, VPF): with a rank-1 erase as loaded, and tm, am (C, CP), [o (C, KP)];
   * without, as float */
  float *b = sm + P_B, *ew = sm + P_EW, *ee = sm + P_EE, *zdec = sm + P_ZDEC, *fr = sm + P_F;
@   if m.delta then
  const ${KEY_T} *kc = (const ${KEY_T} *)(sm + P_IN${m.key});
  const elem_t *vc = (const elem_t *)(sm + P_IN${m.val});
@   else
  float *kc = sm + P_IN${m.key}, *vc = sm + P_IN${m.val};
@   end
  float *wo = ws + (tok * a.h_v + it.h) * WS_TOK; /* (L, h_v, WS_TOK) rows of this head */
  const long long wrs = (long long)a.h_v * WS_TOK; /* token to token */
@   bind_inputs('P_', any, raw_kv)
@   local PC = input_copies('P_', any, 'VD', 'VPF', '0', raw_kv, 'PKP')
@   -- (T's form reads no value tile)
@   local PCV, PCO = {}, {}
@   for _, c in ipairs(PC) do
@     if c.name == 'r_in' .. m.val then PCV[#PCV + 1] = c else PCO[#PCO + 1] = c end
@   end
@   copies_decl(PC)
@   if HF and m.delta then
@     local PCK, PCS = nil, {} -- the key's copy, the scalars'
@     for _, c in ipairs(PCO) do
@       if c.name == 'r_in' .. m.key then PCK = c else PCS[#PCS + 1] = c end
@     end
  if (TO) { /* fused90's T form: T's rows alone; the key as loaded by cp.async (no register staging), the scalars */
    static_assert(WS_W + CH <= WS_TOK, "T's rows fit a token's workspace row");
    tile_cp<NT, CH, KD / 2>((float *)kc, PKP / 2, (const float *)(${PCK.src('tok')}), (${PCK.rs}) / 2, L);
@     copies_fetch(PCS, 'tok', 'L')
@     copies_put(PCS)
    cp_async_commit();
    cp_async_wait<0>();
    __syncthreads();
    t_form<NT>(in, kc, b, ee, sm + P_A, sm + P_T, L, wo, wrs, ws_chunk(a, ws, blockIdx.x, it.h) + WS_ZD, TK ? WS_T : WS_W);
    return;
  }
@   end
@   copies_fetch(PCO, 'tok', 'L')
@   copies_fetch(PCV, 'tok', 'L')
@   copies_put(PCO)
@   copies_put(PCV)
  __syncthreads();
@   coefs()
  /* the chunk's decay, for the state pass */
  float *zd = ws_chunk(a, ws, blockIdx.x, it.h) + WS_ZD;
  for (int k = threadIdx.x; k < KD; k += NT) zd[k] = zdec[k];
@   if m.delta then
@     -- am = T diag(f(s)) (C, C), f a C expression of the column s; WU16: as bf16 hi and lo tiles (amh, aml)
@     local function scale_cols(f)
@       if WU16 then
  for (int e = threadIdx.x; e < CH * CH / 2; e += NT) {
    const int t = e / (CH / 2), s0 = 2 * (e - t * (CH / 2));
    auto f_ = [&](int s) { return ${f}; };
    unsigned h, l;
    hl_pair(tm[t * CP + s0] * f_(s0), tm[t * CP + s0 + 1] * f_(s0 + 1), h, l);
    *(unsigned *)(amh + t * (CH + 8) + s0) = h;
    *(unsigned *)(aml + t * (CH + 8) + s0) = l;
  }
@       else
  for (int e = threadIdx.x; e < CH * CH; e += NT) {
    const int t = e / CH, s = e - t * CH;
    am[t * CP + s] = tm[t * CP + s] * ${f};
  }
@       end
  __syncthreads();
@     end
@     -- the W or U product: c = am b (C, n) into the workspace's column col
@     local function wu_product(col, b, ld, n)
@       if WU16 then
  mm_hl16<CH + 8, ${ld}>(gmat<float>{wo + ${col}, wrs, L}, amh, aml, ${b}, CH, ${n}, CH);
@       else
  mm_to<CP, 1, ${ld}, 1, S>(gmat<float>{wo + ${col}, wrs, L}, am, ${b}, CH, ${n}, CH, false);
@       end
@     end
  float *am = sm + P_A, *tm = sm + P_T;
@     if WU16 then
  /* bf16: S is MM_TF32 (the forward and its recomputation alike); T's scaled columns as bf16 hi and lo parts */
  unsigned short *amh = (unsigned short *)(sm + P_AH), *aml = amh + CH * (CH + 8);
@     end
  /* kd = K e^{b_L - b} (C, K), for the state pass (KDO; not before the fused slot's pass, which reads the key) */
  if (KDO) {
@     if diag then
    for (int e = threadIdx.x; e < L * KD; e += NT) {
      const int t = e / KD, k = e - t * KD;
      wo[t * wrs + WS_KD + k] = ldop(kc + t * KP + k) * fexp(b[(L - 1) * KP + k] - b[t * KP + k]);
    }
@     else
    for (int t = threadIdx.x; t < CH; t += NT) fr[t] = t < L ? fexp(b[L - 1] - b[t]) : 0.0f;
    __syncthreads();
    for (int e = threadIdx.x; e < L * KD; e += NT) wo[(e / KD) * wrs + WS_KD + e % KD] = ldop(kc + (e / KD) * PKP + e % KD) * fr[e / KD];
@     end
  }
  /* NAKK(t, s) = -e_t k_t . (k_s decayed from s to t), s < t */
@   if diag then
  for (int e = threadIdx.x; e < CH * CH; e += NT) {
    const int t = e / CH, s = e - t * CH;
    float acck = 0.0f;
    if (s < t && t < L)
      for (int k = 0; k < KD; k++) acck += ldop(kc + t * KP + k) * fexp(b[t * KP + k] - b[s * KP + k]) * ldop(kc + s * KP + k);
    am[t * CP + s] = -ee[t] * acck;
  }
@   else
  mm<CP, PKP, 1, 1, PKP, S>(am, kc, kc, CH, CH, KD, false);
  pair_decay<NT, true>(am, CP, b, L, [&](int t) { return -ee[t]; });
@   end
  unit_lower_inverse<NT, TK ? MM_TF3 : S>(tm, am, sm + P_R);
  if (TK) tile_out<NT, CH, CH>(wo + WS_T, wrs, tm, CP, L);
  /* W = -T diag(e) (K e^b) (C, K): with a scalar decay (T diag(-e e^b)) K, else T (-e K e^b) */
@   if diag then
  float *o = sm + P_O;
  for (int e = threadIdx.x; e < CH * KD; e += NT) {
    const int t = e / KD, k = e - t * KD;
    o[t * KP + k] = t < L ? -ee[t] * ldop(kc + t * KP + k) * fexp(b[t * KP + k]) : 0.0f;
  }
  __syncthreads();
  mm_to<CP, 1, KP, 1, S>(gmat<float>{wo + WS_W, wrs, L}, tm, o, CH, KD, CH, false);
@   else
@     scale_cols('(s < L ? -ee[s] * fexp(b[s]) : 0.0f)')
@     wu_product('WS_W', 'kc', 'PKP', 'KD')
@   end
  /* U = (T diag(w)) V (C, V) */
@   scale_cols('ew[s]')
@   wu_product('WS_U', 'vc', 'VPF', 'VD')
@   else
  /* kd = K e^{b_L - b} (C, K) and U = diag(w) V (C, V), for the state pass (the backward's), or dZ for the scan */
@     scale_rows('kc', '1.0f', function(t) return 'L - 1' end, function(t) return t end)
@     if KDU_B then
  static_assert(!KU, "KDU_B: neither U nor kd is stored (the backward's bgrad reads V, its bval forms kd)");
@     else
  if (KU) tile_out<NT, CH, KD>(wo + WS_KD, wrs, kc, KP, L);
@     end
  for (int e = threadIdx.x; e < CH * VD; e += NT) vc[(e / VD) * VPF + e % VD] *= ew[e / VD];
  __syncthreads();
@     if not KDU_B then
  if (KU) tile_out<NT, CH, VD>(wo + WS_U, wrs, vc, VPF, L); /* the out stage reads V itself */
@     end
  if (FWD) mm<VD, 1, KP, VPF, 1, S>(zd - WS_ZD, kc, vc, KD, VD, CH, false); /* dZ (K, V), straight to global memory */
@   end
}

/* ---------------------------------------------------------------- stage state */
/* The chunk-to-chunk pass of a rank-1 erase in one of two forms (LY): wide (the module's value tile BV,
 * NT.state threads) and, where few (sequence, value head) pairs leave most SMs idle along the sequential
 * chain, narrow: NBV value columns a block, fewer threads, its small products latency-bound (SEP: three
 * independent mma chains). The runtime picks one by the work items (ssmc_kernel.h: ssmc_cuda_narrow). */
/* The chunk-to-chunk passes' copy schedule (state_body, bstate_body): nc steps, each top(j), then its first product
 * p1(j) and its second p2(j) (each ending with a block barrier); their tiles by cp.async in three groups, each
 * issued once its buffer is free: gs(j), the tile both products read, as step j - 1 starts (DB: in two buffers)
 * or else as step j starts; g2(j), the second product's, as step j starts (under the first product); g1(j), the
 * first product's, after step j - 1's first product. One commit a group (empty past the last step), so the waits
 * count fixed numbers. init: before the first step, while the first loads fly. */
template <bool DB, typename GS, typename G1, typename G2, typename I, typename T, typename P1, typename P2>
__device__ __forceinline__ void chain_steps(long long nc, GS gs, G1 g1, G2 g2, I init, T top, P1 p1, P2 p2) {
  auto group = [&](auto g, long long j) {
    if (j < nc) g(j);
    cp_async_commit();
  };
  if (DB) group(gs, 0);
  group(g1, 0);
  init();
  __syncthreads();
  for (long long j = 0; j < nc; j++) {
    top(j);
    group(gs, DB ? j + 1 : j);
    group(g2, j);
    cp_async_wait<DB ? 2 : 1>(); /* gs(j), g1(j) */
    __syncthreads();
    p1(j);
    group(g1, j + 1);
    cp_async_wait<1>(); /* g2(j) */
    __syncthreads();
    p2(j);
  }
  cp_async_wait<0>();
}
@ if m.delta then -- (a rank-1 erase's pass alone)
template <int S, typename LY> __device__ __forceinline__ void state_body(const ssmc_fwd_args &a, float *ws) {
  constexpr int NT = LY::NTT, SBV = LY::BVT, SBVP = LY::BVPT;
  constexpr bool SEP = LY::SEPT, DB = LY::oU2 != LY::oU;
  extern __shared__ float sm[];
  const item_t it = item_of(a);
  const int v0 = it.vt * SBV;
  const long long slot = it.n * a.h_v + it.h, nc = (it.T + CH - 1) / CH;
  /* tiles: z (K, SBVP); w, kd (C, KP), the chunk's decay zdec (K); u (C, SBVP) in two buffers (DB; else one) */
  float *z = sm + LY::oZ, *wt = sm + LY::oW, *kd = sm + LY::oKD, *zdec = sm + LY::oZDEC;
  /* the chunk-start states (and decays) of this sequence and head: (chunks, h_v, WS_CHUNK) from slot0 */
  float *zs = ws_chunk(a, ws, slot0_of(a, it.n), it.h);
  const float *z0 = a.state_in[${m.state}];
  const long long wrs = (long long)a.h_v * WS_TOK; /* token to token */
  auto rows = [&](long long j, int col) { return (const float *)ws + ((it.t0 + j * CH) * a.h_v + it.h) * WS_TOK + col; };
  auto len = [&](long long j) { return (int)(it.T - j * CH < CH ? it.T - j * CH : CH); };
  /* chunk j's tiles (chain_steps): U, then kd and the decay (the second product's), W (the first's). H200, GDN bf16
   * B1 T32768 H16: through registers (the next chunk's loads in flight under this one's products) the narrow pass
   * was bound by instruction issue, ~28% of its samples the copies' index arithmetic and stores (ncu; bench/, the
   * gpu-h200-tiles record). Tried and dropped: the products' B operands (Z, u) rounded to tf32 once into copies as
   * they are stored, in place of every reading warp's rounding: slower (B1 fwd-narrow 2.58 vs 2.52 ms, the
   * gpu-h200-cpasync record's call 6); the narrow pass's products on wgmma (sm_90a, 1653481's state90n_body: Z in
   * the accumulators, W and kd through registers into K-major core matrices, rounded): 2.56-3.10 ms against 2.50
   * (the gpu-h200-sn90 record; every form slower, whether ptxas serialized its wgmma or not). */
  auto u_of = [&](long long j) { return sm + (j & 1 ? LY::oU2 : LY::oU); };
  chain_steps<DB>(
      nc, [&](long long j) { tile_cp<NT, CH, SBV>(u_of(j), SBVP, rows(j, WS_U + v0), wrs, len(j)); },
      [&](long long j) { tile_cp<NT, CH, KD>(wt, KP, rows(j, WS_W), wrs, len(j)); },
      [&](long long j) {
        tile_cp<NT, CH, KD>(kd, KP, rows(j, WS_KD), wrs, len(j));
        tile_cp<NT, 1, KD>(zdec, KD, zs + j * a.h_v * WS_CHUNK + WS_ZD, 0, 1);
      },
      [&] { tile_in<NT, KD, SBV>(z, SBVP, z0 + slot * ${K * V} + v0, VD, z0 ? KD : 0, one_t(), false); },
      [&](long long j) { tile_out<NT, KD, SBV>(zs + j * a.h_v * WS_CHUNK + v0, VD, z, SBVP, KD); },
      [&](long long j) {
        /* pseudo-values u = U + W Z, in place of U for the out stage */
        mm<SBVP, KP, 1, SBVP, 1, S, SEP>(u_of(j), wt, z, CH, SBV, KD, true);
        tile_out<NT, CH, SBV>(ws + ((it.t0 + j * CH) * a.h_v + it.h) * WS_TOK + WS_U + v0, wrs, u_of(j), SBVP, len(j));
      },
      /* Z = diag(e^{b_L}) Z + kd' u (a warp reads and writes only its tiles of Z) */
      [&](long long j) { mm<SBVP, 1, KP, SBVP, 1, S, SEP>(z, kd, u_of(j), KD, SBV, CH, true, zdec); });
  float *zo = a.state_out[${m.state}];
  if (zo) {
    __syncthreads();
    tile_out<NT, KD, SBV>(zo + slot * ${K * V} + v0, VD, z, SBVP, KD);
  }
}
struct st_wide { enum { BVT = BV, BVPT = BVP, NTT = ${NT.state}, SEPT = 0, oW = S_W, oKD = S_KD, oZ = S_Z, oU = S_U, oZDEC = S_ZDEC, oU2 = S_U2 }; };
@   if SNL then
struct st_narrow { enum { BVT = ${NBV}, BVPT = ${vpad(NBV)}, NTT = ${NNT}, SEPT = 1, oW = SN_W, oKD = SN_KD, oZ = SN_Z, oU = SN_U, oZDEC = SN_ZDEC, oU2 = SN_U2 }; };
@   end
@ end

extern "C" __global__ void __launch_bounds__(${PREP_LB}) ${P.name}_prep(ssmc_fwd_args a, float *ws) {
  prep_body<MM_SPLIT, ${m.delta and 'false' or 'true'}>(a, ws);
}
@ if m.delta and (FUSED or HF) then
/* the form run before the fused slot's pass (not keeping the forward): without kd, which only a state pass reads
 * (a third of the stage's stores) */
extern "C" __global__ void __launch_bounds__(${PREP_LB}) ${P.name}_prep_fused(ssmc_fwd_args a, float *ws) {
@   if HF then
  /* on sm_90a before fused90 (ssmc_cuda_for_device: there the fused slot), T alone for its T form */
#if SSMC_SM90
  prep_body<MM_SPLIT, false, true, false, true>(a, ws);
#else
  prep_body<MM_SPLIT, false, true, false>(a, ws);
#endif
@   else
  prep_body<MM_SPLIT, false, true, false>(a, ws);
@   end
}
@ end
@ if KEEP and HD then
/* prep_fused's keep form (rt_cuda_fwd_save, before fused90's keep form on sm_90: ssmc_cuda_for_device): T's rows at
 * WS_T, where the backward reads them (and that keep form) */
extern "C" __global__ void __launch_bounds__(${PREP_LB}) ${P.name}_prep_fused_keep(ssmc_fwd_args a, float *ws) {
#if SSMC_SM90
  prep_body<MM_SPLIT, false, true, false, true, true>(a, ws);
#else
  (void)a;
  (void)ws;
#endif
}
@ end
@ if KEEP and not KDU_B then
/* the keep form (rt_cuda_fwd_save): what the backward's fprep leaves too; without an erase kd and U as well, with
 * one T's rows */
extern "C" __global__ void __launch_bounds__(${PREP_LB}) ${P.name}_prep_keep(ssmc_fwd_args a, float *ws) {
@   if m.delta then
  prep_body<MM_SPLIT, false, true, true, false, true>(a, ws);
@   else
  prep_body<MM_SPLIT, true, true>(a, ws);
@   end
}
@ end
@ if m.delta then
extern "C" __global__ void __launch_bounds__(${NT.state}) ${P.name}_state(ssmc_fwd_args a, float *ws) { state_body<MM_SPLIT, st_wide>(a, ws); }
@   if SNL then
extern "C" __global__ void __launch_bounds__(${NNT}, 1) ${P.name}_state_n(ssmc_fwd_args a, float *ws) { state_body<MM_SPLIT, st_narrow>(a, ws); }
@   end
@ else

/* ---------------------------------------------------------------- stage scan */
/* Without an erase the chunk-to-chunk recurrence is elementwise, Z_{c+1} = diag(e^{b_L}) Z_c + dZ_c,
 * with every dZ_c made by prep at once (in chunk c's slot): one pass over a sequence's chunks that
 * puts the chunk-start state Z_c in place of dZ_c, four elements of the (K, V) state a thread, the
 * loads SCAN_PF chunks ahead; the final state to state_out. */
#define SCAN_PF 8
__device__ __forceinline__ void scan_body(const ssmc_fwd_args &a, float *ws) {
  const item_t it = item_of(a);
  const int e = (it.vt * ${NT.scan} + (int)threadIdx.x) * 4, k = e / VD; /* elements e .. e + 3 of row k */
  if (e >= KD * VD) return;
  const long long slot = it.n * a.h_v + it.h;
  float *zs = ws_chunk(a, ws, slot0_of(a, it.n), it.h) + e;
  const float *z0 = a.state_in[${m.state}];
  float4 z = z0 ? *(const float4 *)(z0 + slot * ${K * V} + e) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
@ if SPLIT then
  /* the chunks, or a split forward's segments that are not empty (each one's state and decay in the slot of its first
   * chunk, per chunks apart) */
  const long long chunks = (it.T + CH - 1) / CH, per = a.split > 1 ? seg_chunks(it.T, a.split) : 1;
  const long long nc = (chunks + per - 1) / per, cs = per * a.h_v * WS_CHUNK; /* chunk (segment) to chunk */
@ else
  const long long nc = (it.T + CH - 1) / CH, cs = (long long)a.h_v * WS_CHUNK;
@ end
  for (long long c0 = 0; c0 < nc; c0 += SCAN_PF) {
    float4 dz[SCAN_PF];
    float g[SCAN_PF];
#pragma unroll
    for (int i = 0; i < SCAN_PF; i++)
      if (c0 + i < nc) {
        dz[i] = __ldcs((const float4 *)(zs + (c0 + i) * cs));
        g[i] = zs[(c0 + i) * cs + WS_ZD + k - e];
      }
#pragma unroll
    for (int i = 0; i < SCAN_PF; i++)
      if (c0 + i < nc) {
        *(float4 *)(zs + (c0 + i) * cs) = z;
        z = make_float4(g[i] * z.x + dz[i].x, g[i] * z.y + dz[i].y, g[i] * z.z + dz[i].z, g[i] * z.w + dz[i].w);
      }
  }
  float *zo = a.state_out[${m.state}];
  if (zo) *(float4 *)(zo + slot * ${K * V} + e) = z;
}
extern "C" __global__ void __launch_bounds__(${NT.scan}) ${P.name}_scan(ssmc_fwd_args a, float *ws) { scan_body(a, ws); }
@ end

@ -- the out stage's and the fused pass's key tile: as loaded, or a float tile the per-key scores rescale
@ local KEY_PTR = diag and 'float' or 'const ' .. KEY_T
@ -- the value input's tile (vw columns from v0, pitch vld) for u = w v
@ local function value_copy(vw, vld)
@   local xv = P.inputs[m.val + 1]
@   local H, hh = xv.heads == 'qk' and 'a.h_qk' or 'a.h_v', xv.heads == 'qk' and 'it.hq' or 'it.h'
@   return {name = 'r_u', rows = 'CH', D = vw, T = 'elem_t', dst = 'u', ld = vld, rs = '(long long)' .. H .. ' * VD',
@           src = function(tok) return string.format('(const elem_t *)a.in[%d] + (%s * %s + %s) * VD + v0', m.val, tok, H, hh) end}
@ end
@ -- the copy of query term i (coefficient times an input in global memory) into qt's rows (pitch QAP)
@ local function query_copy(i, q)
@   local x = P.inputs[tonumber(q.src) + 1]
@   local H = x.heads == 'qk' and 'a.h_qk' or 'a.h_v'
@   local hh = x.heads == 'qk' and 'it.hq' or 'it.h'
@   return {name = 'r_q' .. i, rows = 'CH', D = 'KD', T = 'elem_t', dst = 'qt', ld = 'QAP', acc = i > 1,
@           coef = '[&](int t_) { return (float)(' .. q.coef .. '); }',
@           src = function(tok) return string.format('(const elem_t *)a.in[%s] + (%s * %s + %s) * KD', q.src, tok, H, hh) end,
@           rs = '(long long)' .. H .. ' * KD'}
@ end
@ -- qa's q~ (C, K) = sum of coefficient * source: a source kept on chip read there (the raw key through
@ -- ldop), another put from its copy in registers (puts[i]); a block barrier between terms
@ local function build_qa_qt(puts)
@   for i, q in ipairs(P.q) do
@     local x = q.src ~= 'X' and P.inputs[tonumber(q.src) + 1]
@     if i > 1 then
  __syncthreads();
@     end
@     if puts[i] then
@       copies_put({puts[i]})
@     else
@       local src = raw_key(x) and 'ldop(kc + t_ * KP + k)' or 'in[' .. q.src .. '][t_ * KP + k]'
  for (int e = threadIdx.x; e < CH * KD; e += NT) {
    const int t_ = e / KD, k = e - t_ * KD;
    const float s = t_ < L ? (${q.coef}) * ${src} : 0.0f;
    qt[t_ * QAP + k] = ${i > 1 and 'qt[t_ * QAP + k] + ' or ''}s;
  }
@     end
@   end
@ end
@ -- qa's scores A(t, s) = q~_t . (k_s decayed from s to t), s <= t (C, C), after q~ and a barrier; then
@ -- q~ decayed from the chunk start (q~ e^b, for y's state term); per-key decays: diag_scores
@ local function qa_scores()
@   if diag then
  diag_scores<NT, QAP, QAP, MM_SPLIT>(am, qt, kc, b, L);
@   else
  mm<QAP, QAP, 1, 1, KP>(am, qt, kc, CH, CH, KD, false);
  pair_decay<NT, false>(am, QAP, b, L, one_t());
  __syncthreads();
@     scale_rows('qt', '1.0f', function(t) return t end, nil, 'QAP')
@   end
@ end
@ if diag then
/* Scores with per-key decays b (C, KP; cumulative log decays, rows past L keep the last):
 * am(t, s) = q~_t . (k_s e^{b_t - b_s}) for s <= t < L, else 0 (pitch ALD), then q~ <- q~ e^b (pitch
 * QLD). The diagonal 16 x 16 blocks pair by pair (an exponential per key); everything left of them
 * one tile product a block row through the reference point r = b_{i0-1}, where both factors are at
 * most 1: A_I,<I = (q~ e^{b - r}) (k e^{r - b})', the key rows rescaled in place from one block
 * row's r to the next (afterwards kc's rows s < C - 16 hold k_s e^{b_{C-17} - b_s}, the rest is as
 * loaded: the fused pass forms kd from that), the query rows then times e^r. S: the products'
 * precision. Ends with a block barrier. */
template <int NT, int QLD, int ALD, int S>
__device__ void diag_scores(float *am, float *qt, float *kc, const float *b, int L) {
  for (int e = threadIdx.x; e < CH * CH; e += NT) {
    const int t = e / CH, s = e - t * CH;
    if (s < (t & ~15)) continue; /* left of the diagonal block: the products below */
    float acc = 0.0f;
    if (s <= t && t < L)
      for (int k = 0; k < KD; k++) acc += qt[t * QLD + k] * fexp(b[t * KP + k] - b[s * KP + k]) * kc[s * KP + k];
    am[t * ALD + s] = acc;
  }
  __syncthreads();
  for (int i0 = 16; i0 < CH; i0 += 16) {
    for (int e = threadIdx.x; e < i0 * KD; e += NT) { /* key rows s < i0: from b_s (or the last r) to r */
      const int s = e / KD, k = e - s * KD;
      kc[s * KP + k] *= fexp(b[(i0 - 1) * KP + k] - b[(s < i0 - 16 ? i0 - 17 : s) * KP + k]);
    }
    for (int e = threadIdx.x; e < 16 * KD; e += NT) { /* query rows of the block: e^{b - r} */
      const int t = i0 + e / KD, k = e % KD;
      qt[t * QLD + k] *= fexp(b[t * KP + k] - b[(i0 - 1) * KP + k]);
    }
    __syncthreads();
    mm<ALD, QLD, 1, 1, KP, S>(am + i0 * ALD, qt + i0 * QLD, kc, 16, i0, KD, false);
    for (int e = threadIdx.x; e < 16 * KD; e += NT) { /* e^{b - r} e^r */
      const int t = i0 + e / KD, k = e % KD;
      qt[t * QLD + k] *= fexp(b[(i0 - 1) * KP + k]);
    }
  }
  for (int e = threadIdx.x; e < 16 * KD; e += NT) qt[(e / KD) * QLD + e % KD] *= fexp(b[(e / KD) * KP + e % KD]);
  __syncthreads();
}
@ end
/* ---------------------------------------------------------------- stage out */
/* y = [q~ e^b | A] [Z; u] as one tile product per value tile, written from the accumulators */
extern "C" __global__ void __launch_bounds__(${NT.out}, ${OUT_MINB}) ${P.name}_out(ssmc_fwd_args a, float *ws) {
  constexpr int NT = ${NT.out};
  extern __shared__ float sm[];
  chunk_t ch;
  if (!chunk_of(a, ch)) return;
  const item_t it = ch.it;
  const int L = ch.L;
  const long long tok = it.t0 + ch.c0;
  int v0 = 0; /* the value tile: every one of the chunk's in turn, A formed once */
  /* tiles: qa = [q~ e^b | A] (C, QAP); zu = [Z; u] (K + C, OBVP): the chunk-start state's value tile
   * over the tile's (pseudo-)values; kc (C, KP) the key as loaded */
  float *qa = sm + O_QA, *zu = sm + O_ZU, *b = sm + O_B, *ew = sm + O_EW, *ee = sm + O_EE;
  float *zdec = sm + O_ZDEC, *fr = sm + O_F, *qt = qa, *am = qa + KD, *z = zu, *u = zu + KD * OBVP;
@ if WG then
#if SSMC_WG
  /* the product's k; zu's SBO in floats, 4 (mod 32): put_core's stores (8 columns of 4 rows a warp) free
   * of bank conflicts */
  constexpr int WK = KD + CH, WSB = 8 * WK + 4;
  static_assert((OBV / 8) * WSB <= WK * OBVP, "zu holds the product's operand B");
  (void)z; (void)u;
#endif
@ end
  ${KEY_PTR} *kc = (${KEY_PTR} *)(sm + O_IN${m.key});
  (void)zdec;
@ bind_inputs('O_', not_val, raw_key)
  /* every copy of the block in flight at once: the chunk-start state tile and u (pseudo-values, or
   * w v) of the state stage, the inputs, the query's sources in global memory */
  const float *zs = ws_chunk(a, ws, slot0_of(a, it.n) + ch.c0 / CH, it.h);
@ if sv then
  const float *xsrc = a.aux_out[0] ? (const float *)a.aux_out[0] : ws; /* the solve stage's x */
  const int xs = a.aux_out[0] ? KD : WS_TOK;
@ end
@ local OC = input_copies('O_', not_val, 'OBV', 'OBVP', 'v0', raw_key)
@ OC[#OC + 1] = {name = 'r_z', rows = 'KD', D = 'OBV', T = 'float', dst = 'z', ld = 'OBVP', src = function() return 'zs + v0' end, rs = 'VD', L = 'KD'}
@ if m.delta then
@   OC[#OC + 1] = ws_copy('r_u', 'OBV', 'u', 'OBVP', 'WS_U + v0') -- the state stage's pseudo-values
@ else -- without an erase u = diag(w) V from the input (scaled once w is known)
@   OC[#OC + 1] = value_copy('OBV', 'OBVP')
@ end
@ local QC = {}
@ for i, q in ipairs(P.q) do
@   local x = q.src ~= 'X' and P.inputs[tonumber(q.src) + 1]
@   if not (x and x.smem) then
@     local H = x and x.heads == 'qk' and 'a.h_qk' or 'a.h_v'
@     local hh = x and x.heads == 'qk' and 'it.hq' or 'it.h'
@     QC[i] = {name = 'r_q' .. i, rows = 'CH', D = 'KD', T = q.src == 'X' and 'float' or 'elem_t', dst = 'qt', ld = 'QAP', acc = i > 1,
@              coef = '[&](int t_) { return (float)(' .. q.coef .. '); }',
@              src = q.src == 'X' and function(tok) return 'xsrc + (' .. tok .. ' * a.h_v + it.h) * xs' end
@                or function(tok) return string.format('(const elem_t *)a.in[%s] + (%s * %s + %s) * KD', q.src, tok, H, hh) end,
@              rs = q.src == 'X' and '(long long)a.h_v * xs' or '(long long)' .. H .. ' * KD'}
@     copies_decl({QC[i]})
@     copies_fetch({QC[i]}, 'tok', 'L')
@   end
@ end
@ copies_decl(OC)
@ copies_fetch(OC, 'tok', 'L')
@ local ZC = {OC[#OC - 1], OC[#OC]}
@ local ru = setmetatable({coef = not m.delta and '[&](int t_) { return ew[t_]; }' or nil}, {__index = OC[#OC]})
@ table.remove(OC); table.remove(OC)
@ copies_put(OC)
@ -- [Z; u] into zu: as rows (K + C, OBVP), or with wgmma as its K-major operand (n = value column,
@ -- k = the row; SBO WSB floats); ws: the coefficients of u
@ local function put_zu(ws)
@   if WG then
#if SSMC_WG
  r_z.put_core(zu, 0, WSB, KD, one_t());
  ${ZC[2].name}.put_core(zu, KD, WSB, L, ${ws and ru.coef or 'one_t()'});
#else
@   end
@ copies_put({ZC[1], ws and ru or ZC[2]})
@   if WG then
#endif
@   end
@ end
@ put_zu(false)
  __syncthreads();
@ coefs()
@ if not m.delta then
@   if WG then
#if SSMC_WG
  for (int e = threadIdx.x; e < CH * OBV; e += NT) { /* u's core matrices: (e / 32) % (CH / 4), n / 8 = e / (8 CH) */
    const int n = (e >> 5) / (CH / 4) * 8 + (e >> 2 & 7), t = (e >> 5) % (CH / 4) * 4 + (e & 3);
    float *p = zu + core_at(n, KD + t, WSB);
    *p = tf32_rna(*p * ew[t]);
  }
#else
@   end
  for (int e = threadIdx.x; e < CH * OBV; e += NT) u[(e / OBV) * OBVP + e % OBV] *= ew[e / OBV];
@   if WG then
#endif
@   end
@ end
  /* q~ = sum of coefficient * source; A(t, s) = q~_t . (k_s decayed from s to t), s <= t */
@ build_qa_qt(QC)
  __syncthreads();
@ qa_scores()
@ if WG then
#if SSMC_WG
  /* qa into wgmma's K-major operand, in place and rounded to tf32: each warp one group of 8 rows,
   * which keep their space (SBO 8 QAP floats) */
  for (int rg = threadIdx.x >> 5; rg < CH / 8; rg += NT / 32) {
    float *base = qa + rg * 8 * QAP;
    const int lane = threadIdx.x & 31;
    float4 x[WK / 16];
#pragma unroll
    for (int i = 0; i < WK / 16; i++) {
      const int e = lane + 32 * i; /* float4 e: row e % 8, columns 4 (e / 8).. */
      x[i] = *(const float4 *)(base + (e & 7) * QAP + (e >> 3) * 4);
    }
    __syncwarp();
#pragma unroll
    for (int i = 0; i < WK / 16; i++)
      *(float4 *)(base + 4 * (lane + 32 * i)) = make_float4(tf32_rna(x[i].x), tf32_rna(x[i].y), tf32_rna(x[i].z), tf32_rna(x[i].w));
  }
#endif
@ end
  /* y = (q~ * e^b) Z + A u */
  for (;;) {
    const bool next = v0 + OBV < VD;
    if (next) { /* the next value tile's state and u, in flight during this one's products */
      v0 += OBV;
@ copies_fetch(ZC, 'tok', 'L')
      v0 -= OBV;
    }
    const gmat<elem_t> yo{(elem_t *)a.out + (tok * a.h_v + it.h) * VD + v0, (long long)a.h_v * VD, L};
@ if WG then
#if SSMC_WG
    fence_async_smem();
    __syncthreads();
    { /* warpgroup w: columns w WGN.. of the tile, 64 x WGN x (K + C) */
      const int w = threadIdx.x >> 7, lane = threadIdx.x & 31, r0 = 16 * ((threadIdx.x >> 5) & 3) + (lane >> 2), c0 = w * WGN + 2 * (lane & 3);
      const unsigned long long da = wg_desc(qa, 8 * QAP), db = wg_desc(zu + w * (WGN / 8) * WSB, WSB);
      float d[WGN / 2];
#pragma unroll
      for (int i = 0; i < WGN / 2; i++) d[i] = 0.0f;
      wg_product<WGN, WK / 8>(d, da, db);
      wg_store<WGN>(yo, d, r0, c0);
    }
    __syncthreads();
#else
@ end
    mm_to<QAP, 1, OBVP, 1>(yo, qa, zu, CH, OBV, KD + CH, false);
@ if WG then
#endif
@ end
    if (!next) break;
    v0 += OBV;
@ put_zu(true)
    __syncthreads();
  }
}
@ -- the fused and seq passes' state tile z (K, FBVP) on chip: a chunk's update Z <- diag(zdec) Z + kc' u
@ -- (kc and u as the chunk left them), and the final state to state_out
@ local function z_step()
    for (int e = threadIdx.x; e < KD * FBV; e += NT) z[(e / FBV) * FBVP + e % FBV] *= zdec[e / FBV];
    __syncthreads();
    mm<FBVP, 1, KP, FBVP, 1>(z, kc, u, KD, FBV, CH, true);
@ end
@ local function z_final()
  float *zo = a.state_out[${m.state}];
  if (zo) {
    __syncthreads();
    tile_out<NT, KD, FBV>(zo + slot * ${K * V} + v0, VD, z, FBVP, KD);
  }
@ end
@ -- the keep forms without an erase (rt_cuda_fwd_save): the chunk's decay where the backward's fprep puts it
@ local function keep_zd()
      float *zk = ws_chunk(a, ws, slot0_of(a, it.n) + c0 / CH, it.h) + WS_ZD;
      for (int k = threadIdx.x; k < KD; k += NT) zk[k] = zdec[k];
@ end
@ -- and kd (a C expression of t and k, after a barrier that orders what it reads), by the first value tile's block
@ local function keep_kd(kd)
    if (KEEP_T && v0 == 0) { /* for the backward: kd = K e^{b_L - b} and the chunk's decay, where its fprep puts them */
@ keep_zd()
      for (int e = threadIdx.x; e < L * KD; e += NT) {
        const int t = e / KD, k = e - t * KD;
        ws[((tok + t) * a.h_v + it.h) * WS_TOK + WS_KD + k] = ${kd};
      }
    }
@ end
@ if FUSED and not SEQ then

/* ---------------------------------------------------------------- stage fused */
/* The chunk-to-chunk pass and the readout in one, for many work items: one block per (sequence, value
 * head, value tile of FBV columns) walks its sequence's chunks in order with the state tile Z (K, FBV)
 * on chip in fp32; per chunk the written values u (w v, or with a rank-1 erase the pseudo-values
 * u = U + W Z from prep's U and W), the out stage's product y = [q~ e^b | A] [Z; u] (A formed again
 * per value tile), then Z <- e^{b_L} Z + K' (diag(e^{b_L - b}) u). No chunk state goes through global
 * memory. Without an erase it is the whole forward (no workspace); with one it runs after prep. The
 * recurrence leaves SMs idle when (sequences x heads x V / FBV) is small: there the staged forward
 * runs instead (ssmc_cuda_fwd_fused says which). */
@ if KEEP then
/* KEEP_T (the entry _fused_keep, rt_cuda_fwd_save): also each chunk-start state and u into the workspace, where the
 * state stage puts them[, without an erase kd and the chunk's decay where prep does] (for the backward:
 * ssmc_cuda_kernel.fused_keep) */
@ end
template <bool KEEP_T> __device__ __forceinline__ void fused_body(const ssmc_fwd_args &a, float *ws) {
  constexpr int NT = ${NT.fused};
  extern __shared__ float sm[];
  (void)ws;
  const item_t it = item_of<VD / FBV>(a);
  const int v0 = it.vt * FBV;
  const long long slot = it.n * a.h_v + it.h;
  /* tiles: qa = [q~ e^b | A] (C, QAP); zu = [Z; u] (K + C, FBVP): the state tile over the chunk's
   * written values; kc (C, KP) the key as loaded[; w (C, KP) prep's W] */
  float *qa = sm + F_QA, *zu = sm + F_ZU, *b = sm + F_B, *ew = sm + F_EW, *ee = sm + F_EE;
  float *zdec = sm + F_ZDEC, *fr = sm + F_F, *qt = qa, *am = qa + KD, *z = zu, *u = zu + KD * FBVP;
  ${KEY_PTR} *kc = (${KEY_PTR} *)(sm + F_IN${m.key});
@ bind_inputs('F_', not_val, raw_key)
  const float *z0 = a.state_in[${m.state}];
  tile_in<NT, KD, FBV>(z, FBVP, z0 + slot * ${K * V} + v0, VD, z0 ? KD : 0, one_t(), false);
@ local FC = input_copies('F_', not_val, 'FBV', 'FBVP', 'v0', raw_key)
@ if m.delta then -- prep's U and W
@   FC[#FC + 1] = ws_copy('r_u', 'FBV', 'u', 'FBVP', 'WS_U + v0')
@   FC[#FC + 1] = ws_copy('r_w', 'KD', 'sm + F_W', 'KP', 'WS_W')
@ else -- the value input (scaled by the write once w is known)
@   FC[#FC + 1] = value_copy('FBV', 'FBVP')
@ end
@ local FQ = {}
@ for i, q in ipairs(P.q) do
@   if not P.inputs[tonumber(q.src) + 1].smem then FQ[i] = query_copy(i, q) end
@ end
  for (long long c0 = 0; c0 < it.T; c0 += CH) {
    const int L = (int)(it.T - c0 < CH ? it.T - c0 : CH);
    const long long tok = it.t0 + c0;
    {
@ for i = 1, #P.q do if FQ[i] then copies_decl({FQ[i]}) end end
@ copies_decl(FC)
@ for i = 1, #P.q do if FQ[i] then copies_fetch({FQ[i]}, 'tok', 'L') end end
@ copies_fetch(FC, 'tok', 'L')
@ copies_put(FC)
      __syncthreads();
@ if KEEP then
      if (KEEP_T) /* for the backward: the chunk-start state where the state stage puts it */
        tile_out<NT, KD, FBV>(ws_chunk(a, ws, slot0_of(a, it.n) + c0 / CH, it.h) + v0, VD, z, FBVP, KD);
@ end
@ coefs()
@ if not m.delta then
      for (int e = threadIdx.x; e < CH * FBV; e += NT) u[(e / FBV) * FBVP + e % FBV] *= ew[e / FBV];
@ end
      /* q~ = sum of coefficient * source (the coefficients read the scalars put above) */
@ build_qa_qt(FQ)
    }
    __syncthreads();
@ if m.delta then
    /* pseudo-values u = U + W Z */
    mm<FBVP, KP, 1, FBVP, 1>(u, sm + F_W, z, CH, FBV, KD, true);
@ end
@ if KEEP and not KDU_B then
    if (KEEP_T) tile_out<NT, CH, FBV>(ws + (tok * a.h_v + it.h) * WS_TOK + WS_U + v0, (long long)a.h_v * WS_TOK, u, FBVP, L);
@ end
    /* A(t, s) = q~_t . (k_s decayed from s to t), s <= t; then q~ decayed from the chunk start */
@ qa_scores()
    /* y = (q~ e^b) Z + A u */
    mm_to<QAP, 1, FBVP, 1>(gmat<elem_t>{(elem_t *)a.out + (tok * a.h_v + it.h) * VD + v0, (long long)a.h_v * VD, L}, qa, zu,
                           CH, FBV, KD + CH, false);
@ if diag then
    /* Z <- diag(e^{b_L}) Z + kd' u, kd = K e^{b_L - b} per key: in the key tile, whose rows below the last
     * block row diag_scores left at k e^{b_{C-17} - b} */
    for (int e = threadIdx.x; e < CH * KD; e += NT) {
      const int t = e / KD, k = e - t * KD;
      kc[t * KP + k] *= fexp(b[(L - 1) * KP + k] - b[(CH >= 32 && t < CH - 16 ? CH - 17 : t) * KP + k]);
    }
@   if KEEP and not m.delta then
    if (KEEP_T) __syncthreads();
@     keep_kd('kc[t * KP + k]')
@   end
@ else
    /* Z <- e^{b_L} Z + K' (diag(e^{b_L - b}) u) */
    for (int t = threadIdx.x; t < CH; t += NT) fr[t] = t < L ? fexp(b[L - 1] - b[t]) : 0.0f;
    __syncthreads();
@   if KEEP and not m.delta and not KDU_B then
@     keep_kd('ldop(kc + t * KP + k) * fr[t]')
@   end
    for (int e = threadIdx.x; e < CH * FBV; e += NT) u[(e / FBV) * FBVP + e % FBV] *= fr[e / FBV];
@ end
@ z_step()
  }
@ z_final()
}
extern "C" __global__ void __launch_bounds__(${NT.fused}, ${FUSED_MINB}) ${P.name}_fused(ssmc_fwd_args a, float *ws) { fused_body<false>(a, ws); }
@ if KEEP then
extern "C" __global__ void __launch_bounds__(${NT.fused}, ${FUSED_MINB}) ${P.name}_fused_keep(ssmc_fwd_args a, float *ws) { fused_body<true>(a, ws); }
@ end
@ elseif SEQ then

/* ---------------------------------------------------------------- stage seq */
/* The chunk-to-chunk pass alone, for the out stage: one block per (sequence, value head, value tile of
 * FBV columns) walks its sequence's chunks in order with the state tile Z (K, FBV) on chip in fp32,
 * writes each chunk-start Z into the chunk's slot (where scan would) and updates it,
 * Z <- e^{b_L} Z + K' (diag(w e^{b_L - b}) V), from the key and value as loaded. */
@ if KEEP then
/* KEEP_T (the entry _seq_keep, rt_cuda_fwd_save): [kd, U and the chunk's decay where the backward's fprep puts them
 * (KDU_B: U and the decay its bprep's, kd its bval's);] the chunk-start states are this pass's anyway */
@ end
template <bool KEEP_T> __device__ __forceinline__ void seq_body(const ssmc_fwd_args &a, float *ws) {
  constexpr int NT = ${NT.fused};
  extern __shared__ float sm[];
  const item_t it = item_of<VD / FBV>(a);
  const int v0 = it.vt * FBV;
  const long long slot = it.n * a.h_v + it.h;
  /* tiles: z (K, FBVP) the state tile, then u (C, FBVP) the chunk's written values; kc (C, KP) the key */
  float *b = sm + F_B, *ew = sm + F_EW, *ee = sm + F_EE, *zdec = sm + F_ZDEC, *fr = sm + F_F, *z = sm + F_ZU;
  float *u = z + KD * FBVP;
  ${KEY_PTR} *kc = (${KEY_PTR} *)(sm + F_IN${m.key});
  (void)ee;
@ bind_inputs('F_', not_val, raw_key)
  /* the chunk-start states of this sequence and head: (chunks, h_v, WS_CHUNK) from slot0 */
  float *zs = ws_chunk(a, ws, slot0_of(a, it.n), it.h);
  const float *z0 = a.state_in[${m.state}];
  tile_in<NT, KD, FBV>(z, FBVP, z0 + slot * ${K * V} + v0, VD, z0 ? KD : 0, one_t(), false);
@ local QC = input_copies('F_', not_val, 'FBV', 'FBVP', 'v0', raw_key)
@ QC[#QC + 1] = value_copy('FBV', 'FBVP')
  for (long long c0 = 0; c0 < it.T; c0 += CH) {
    const int L = (int)(it.T - c0 < CH ? it.T - c0 : CH);
    const long long tok = it.t0 + c0;
    __syncthreads();
    tile_out<NT, KD, FBV>(zs + (c0 / CH) * a.h_v * WS_CHUNK + v0, VD, z, FBVP, KD);
    {
@ copies_decl(QC)
@ copies_fetch(QC, 'tok', 'L')
@ copies_put(QC)
    }
    __syncthreads();
@ coefs()
    /* Z <- e^{b_L} Z + K' (diag(w e^{b_L - b}) V) */
    for (int t = threadIdx.x; t < CH; t += NT) fr[t] = t < L ? ew[t] * fexp(b[L - 1] - b[t]) : 0.0f;
    __syncthreads();
@ if KEEP and not KDU_B then
    if (KEEP_T) /* for the backward: U = diag(w) V, where its fprep puts it */
      for (int e = threadIdx.x; e < L * FBV; e += NT) {
        const int t = e / FBV, j = e - t * FBV;
        ws[((tok + t) * a.h_v + it.h) * WS_TOK + WS_U + v0 + j] = ew[t] * u[t * FBVP + j];
      }
@   keep_kd('ldop(kc + t * KP + k) * fexp(b[L - 1] - b[t])')
    if (KEEP_T) __syncthreads(); /* u is read above */
@ end
    for (int e = threadIdx.x; e < CH * FBV; e += NT) u[(e / FBV) * FBVP + e % FBV] *= fr[e / FBV];
@ z_step()
  }
@ z_final()
}
extern "C" __global__ void __launch_bounds__(${NT.fused}, ${FUSED_MINB}) ${P.name}_seq(ssmc_fwd_args a, float *ws) { seq_body<false>(a, ws); }
@ if KEEP then
extern "C" __global__ void __launch_bounds__(${NT.fused}, ${FUSED_MINB}) ${P.name}_seq_keep(ssmc_fwd_args a, float *ws) { seq_body<true>(a, ws); }
@ end
@ end

@ if HF then

/* ---------------------------------------------------------------- stage fused90 */
/* sm_90a: the forward (with a rank-1 erase: after prep) in one pass, one block per (sequence, value
 * head), two warpgroups, every product on wgmma (tf32, operands in shared memory as K-major core matrices: core_at). The state
 * lives in the update's accumulators (fp32; warpgroup w: at V = 128 value rows 64 w.. and every key, at
 * V = 64 every value row and keys w K/2..) and, rounded
 * to tf32, in st (V, K) as the readout's operand. Per chunk: the scores q~ k' (warpgroup w: key rows
 * w C/2..) masked with e^{b_t - b_s} in registers into am; [with an erase the pseudo-values u = T r,
 * r = diag(w) v - diag(e e^b) (K Z) (into ut: the B operand), T from prep_fused's sm_90a form as the register operand
 * A (fetch_t; the T form: prep leaves T, 16 KiB a chunk, where W and U took 64, and runs in half the time: H200 GDN
 * B8 T4096 H16 1.326 -> 1.072 ms, bench/, the s35 record), or in the keep form u = U + W Z from prep's U
 * and W, W in ks's place once the scores are done;] y = diag(e^b) (q~ Z) + A u (warpgroup w:
 * its value columns); Z' <- e^{b_L} Z' + u' (k e^{b_L - b}) (u = w v). The next chunk's inputs are
 * in flight in registers meanwhile. Elsewhere (sm_80) the body is empty: the runtime runs this stage
 * on devices of compute capability 9 only (ssmc_cuda_for_device). */
@ if m.delta then
/* fused90's T form (with an erase, not keeping the forward): u = T r, T from prep_fused's sm_90a form as the
 * product's register operand A (tf32), the warp's rows r0 and r0 + 8 (rows at or past L: 0) of T (C, C; row t at
 * p + t rs), its columns permuted so that each pair is one load: k step j holds ta[4 j ..] = {T(r0, 8 j + 2 q),
 * T(r0 + 8, 8 j + 2 q), T(r0, 8 j + 2 q + 1), T(r0 + 8, 8 j + 2 q + 1)} where the tensor cores read m16n8k8's
 * {A(g, q), A(g + 8, q), A(g, q + 4), A(g + 8, q + 4)}: B's row t (r's) goes to k = t_perm(t). Raw (rounded to
 * tf32 where the product takes them: the loads stay in flight until then). */
__device__ __forceinline__ void fetch_t(unsigned *ta, const float *p, long long rs, int r0, int q, int L) {
#pragma unroll
  for (int h = 0; h < 2; h++) {
    const int t = r0 + 8 * h;
#pragma unroll
    for (int j = 0; j < CH / 8; j++) {
      const float2 x = t < L ? *(const float2 *)(p + t * rs + 8 * j + 2 * q) : make_float2(0.0f, 0.0f);
      ta[4 * j + h] = __float_as_uint(x.x);
      ta[4 * j + 2 + h] = __float_as_uint(x.y);
    }
  }
}
__device__ __forceinline__ int t_perm(int t) { return (t & ~7) | (t & 1) << 2 | (t & 7) >> 1; }
@ end
@ if KEEP then
/* KEEP_T (the entry _fused90_keep, rt_cuda_fwd_save): also each chunk-start state and u (fp32, from the accumulators)
 * into the workspace, where the state stage puts them[, without an erase kd, U and the chunk's decay where the
 * backward's fprep does] (for the backward; its stores' registers spill: a separate entry keeps the plain pass as it
 * was) */
@ end
template <bool KEEP_T> __device__ __forceinline__ void fused90_body(const ssmc_fwd_args &a, float *ws) {
#if SSMC_SM90
  constexpr int NT = 256, SQ = 8 * KD + 4, SC = 8 * CH + 4; /* SBO of the (., K) and (., C) operands */
  extern __shared__ float sm[];
  (void)ws;
  const item_t it = item_of(a);
  const long long slot = it.n * a.h_v + it.h;
  const int v0 = 0; /* the value input's copies: the whole width */
  /* qt, ks (C, K): q~ and the key; kt (K, C): the key times e^{b_L - b}; ut (V, C): u = w v; am (C, C):
   * the masked scores; st (V, K): the chunk-start state */
  float *qt = sm + H_QT, *ks = sm + H_KS, *kt = sm + H_KT, *ut = sm + H_UT, *am = sm + H_AM, *st = sm + H_ST;
  float *b = sm + H_B, *ew = sm + H_EW, *ee = sm + H_EE, *zdec = sm + H_ZDEC, *fr = sm + H_F;
  (void)ee; (void)ew; (void)v0;
@ bind_inputs('H_', function(x) return x.dimsym ~= 2 and x.idx ~= m.key end)
  const int w = threadIdx.x >> 7, w4 = (threadIdx.x >> 5) & 3, lane = threadIdx.x & 31, g = lane >> 2, q = lane & 3;
  const int r0 = 16 * w4 + g;  /* the accumulators' rows r0, r0 + 8 (of the warpgroup's 64) */
  /* the state's part of the warpgroup: z[4 i + o] = Z'(zv0 + r0 + 8 (o / 2), zk0 + 8 i + 2 q + o % 2) (value,
   * key), from and to the (K, V) states in global memory, and into st (tf32) */
  constexpr int ZN = ${HZN};
  const int zv0 = VD == 128 ? 64 * w : 0, zk0 = VD == 128 ? 0 : w * ZN;
  float z[ZN / 2];
  auto z_at = [&](int i, int o) { /* z[4 i + o]'s place in a (K, V) state */
    return (long long)(zk0 + 8 * i + 2 * q + (o & 1)) * VD + zv0 + r0 + (o >> 1) * 8;
  };
  const float *z0 = a.state_in[${m.state}];
#pragma unroll
  for (int i = 0; i < ZN / 8; i++)
#pragma unroll
    for (int o = 0; o < 4; o++) z[4 * i + o] = z0 ? z0[slot * ${K * V} + z_at(i, o)] : 0.0f;
  auto put_state = [&]() {
#pragma unroll
    for (int i = 0; i < ZN / 8; i++)
#pragma unroll
      for (int h = 0; h < 2; h++)
        *(float2 *)(st + core_at(zv0 + r0 + 8 * h, zk0 + 8 * i + 2 * q, SQ)) =
            make_float2(tf32_rna(z[4 * i + 2 * h]), tf32_rna(z[4 * i + 2 * h + 1]));
  };
  put_state();
@ local HC = input_copies('H_', function(x) return x.dimsym ~= 2 and x.idx ~= m.key end, 'VD', 'VD', '0')
@ local KC = input_copies('H_', function(x) return x.idx == m.key end, 'VD', 'VD', '0')[1]
@ KC.name, KC.g8 = 'r_key', true
@ local VC = m.delta and ws_copy('r_w', 'KD', 'ks', 'SQ', 'WS_W') or value_copy('VD', 'VD') -- prep's W, or the value
@ local hv_src = value_copy('VD', 'VD').src -- the value row of a token (fused90's T form reads it itself)
@ VC.g8 = true
@ local HQ = {}
@ for i, q in ipairs(P.q) do
@   HQ[i] = query_copy(i, q)
@   HQ[i].g8 = true -- put into qt's core matrices (put_core_rows)
@ end
@ -- HALL: the copies in flight during the last chunk's products; prep's W (VC with an erase) is fetched at
@ -- the chunk's start instead (put after the scores: its registers stay free during the readout), and so are the
@ -- query's terms after the first (HQX; a two-term query at K = V = 128 in flight spilled 32 B, its keep form 116 B)
@ local HALL, HQX = {KC}, {}
@ if not m.delta then HALL[#HALL + 1] = VC end
@ for i, c in ipairs(HQ) do if i == 1 then HALL[#HALL + 1] = c else HQX[#HQX + 1] = c end end
@ for _, c in ipairs(HC) do HALL[#HALL + 1] = c end
@ copies_decl(HALL)
@ if m.delta then copies_decl({VC}) end
@ copies_decl(HQX)
  const int L0 = (int)(it.T < CH ? it.T : CH);
@ copies_fetch(HALL, 'it.t0', 'L0')
  for (long long c0 = 0; c0 < it.T; c0 += CH) {
    const int L = (int)(it.T - c0 < CH ? it.T - c0 : CH);
    const long long tok = it.t0 + c0;
@ if KEEP then
    if (KEEP_T) z_store<ZN>(ws_chunk(a, ws, slot0_of(a, it.n) + c0 / CH, it.h), z, z_at); /* for the backward */
@ end
@ if m.delta then
    unsigned ta[CH / 2]; /* the T form's: T's rows r0, r0 + 8 as the u product's register operand (tf32) */
    if (KEEP_T) {
@   copies_fetch({VC}, 'tok', 'L')
    } else {
      fetch_t(ta, (const float *)ws + (tok * a.h_v + it.h) * WS_TOK + WS_W, (long long)a.h_v * WS_TOK, r0, q, L);
    }
@ end
@ copies_fetch(HQX, 'tok', 'L')
    __syncthreads(); /* the last chunk's products are done with every operand */
@ copies_put(HC)
    __syncthreads();
@ coefs()
    for (int t = threadIdx.x; t < CH; t += NT) fr[t] = t < L ? fexp(b[L - 1] - b[t]) : 0.0f;
    __syncthreads();
    r_key.put_core_rows(ks, SQ, L, one_t(), false);
    r_key.put_core(kt, 0, SC, L, [&](int t_) { return fr[t_]; });
@ if not m.delta then
    r_u.put_core(ut, 0, SC, L, [&](int t_) { return ew[t_]; });
@   if KEEP and not KDU_B then
    if (KEEP_T) { /* for the backward: kd, U and the chunk's decay, where its fprep puts them */
      float *wt = ws + (tok * a.h_v + it.h) * WS_TOK;
      r_key.store(wt + WS_KD, (long long)a.h_v * WS_TOK, L, [&](int t_) { return fr[t_]; });
      r_u.store(wt + WS_U, (long long)a.h_v * WS_TOK, L, [&](int t_) { return ew[t_]; });
@     keep_zd()
    }
@   end
@ end
@ for i, c in ipairs(HQ) do
@   if i > 1 then
    __syncthreads();
@   end
    ${c.name}.put_core_rows(qt, SQ, L, ${c.coef}, ${i > 1 and 'true' or 'false'});
@ end
    const bool next = c0 + CH < it.T;
    const long long tn = tok + CH;
    const int Ln = (int)(it.T - c0 - CH < CH ? it.T - c0 - CH : CH);
@ if not m.delta then
    if (next) { /* the next chunk's inputs, in flight during this one's products */
@ copies_fetch(HALL, 'tn', 'Ln')
    }
@ else
    /* the next chunk's rows of prep's W and U (the T form: of T and the value) into L2 (prep's written a stage
     * ago: from DRAM), which it loads at its start (W, T) and before its u product (U, the value: into the
     * accumulators; ncu saw ~6% of the stage's warps wait there); H200 GDN B8 T4096 H16 bf16 1.647 -> 1.583 ms */
    if (KEEP_T)
      for (int i = threadIdx.x; next && i < Ln * ((KD + VD) / 32); i += NT) {
        const int t = i / ((KD + VD) / 32), l = i - t * ((KD + VD) / 32);
        prefetch_l2((const float *)ws + ((tn + t) * a.h_v + it.h) * WS_TOK + (l < KD / 32 ? WS_W + 32 * l : WS_U + 32 * (l - KD / 32)));
      }
    else
      for (int i = threadIdx.x; next && i < Ln * (CH / 32 + VD / 64); i += NT) {
        const int t = i / (CH / 32 + VD / 64), l = i - t * (CH / 32 + VD / 64);
        prefetch_l2(l < CH / 32 ? (const void *)((const float *)ws + ((tn + t) * a.h_v + it.h) * WS_TOK + WS_W + 32 * l)
                                : (const void *)(${hv_src('(tn + t)')} + 64 * (l - CH / 32)));
      }
@ end
    fence_async_smem();
    __syncthreads();
    { /* A = q~ k' (warpgroup w: columns s = w C/2..), masked: e^{b_t - b_s} for s <= t < L, else 0 */
      float d[CH / 4];
#pragma unroll
      for (int i = 0; i < CH / 4; i++) d[i] = 0.0f;
      const unsigned long long da = wg_desc(qt, SQ), db = wg_desc(ks + w * (CH / 16) * SQ, SQ);
      wg_product<CH / 2, KD / 8>(d, da, db);
#pragma unroll
      for (int i = 0; i < CH / 16; i++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
          const int t = r0 + 8 * h, s = w * (CH / 2) + 8 * i + 2 * q;
          const float x0 = s <= t && t < L ? d[4 * i + 2 * h] * fexp(b[t] - b[s]) : 0.0f;
          const float x1 = s + 1 <= t && t < L ? d[4 * i + 2 * h + 1] * fexp(b[t] - b[s + 1]) : 0.0f;
          *(float2 *)(am + core_at(t, s, SC)) = make_float2(tf32_rna(x0), tf32_rna(x1));
        }
    }
@ if m.delta then
    float du[VD / 4]; /* u's accumulators (warpgroup w's value columns) */
    if (!KEEP_T) { /* the T form: r = diag(w) v - diag(e e^b) (K Z), then u = T r */
      unsigned vv[VD / 8]; /* the value at the accumulators' places, bf16 pairs */
#pragma unroll
      for (int i = 0; i < VD / 16; i++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
          const int t = r0 + 8 * h;
          vv[2 * i + h] = t < L ? *(const unsigned *)(${hv_src('(tok + t)')} + w * (VD / 2) + 8 * i + 2 * q) : 0u;
          du[4 * i + 2 * h] = du[4 * i + 2 * h + 1] = 0.0f;
        }
      /* K Z (the scores only read ks: no barrier) */
      wg_product<VD / 2, KD / 8>(du, wg_desc(ks, SQ), wg_desc(st + w * (VD / 16) * SQ, SQ));
      /* r into ut, its rows permuted as fetch_t's columns: row t at k = t_perm(t) */
#pragma unroll
      for (int i = 0; i < VD / 16; i++)
#pragma unroll
        for (int o = 0; o < 4; o++) {
          const int t = r0 + 8 * (o >> 1);
          const unsigned x = vv[2 * i + (o >> 1)];
          const float v_ = __uint_as_float(o & 1 ? x & 0xffff0000u : x << 16);
          ut[core_at(w * (VD / 2) + 8 * i + 2 * q + (o & 1), t_perm(t), SC)] = tf32_rna(ew[t] * v_ - ee[t] * fexp(b[t]) * du[4 * i + o]);
        }
      fence_async_smem();
      bar_wait(1 + w, 128); /* the warpgroup's r in (its rows: every warp's) */
#pragma unroll
      for (int i = 0; i < VD / 4; i++) du[i] = 0.0f;
#pragma unroll
      for (int i = 0; i < CH / 2; i++) ta[i] = __float_as_uint(tf32_rna(__uint_as_float(ta[i])));
      const unsigned long long db = wg_desc(ut + w * (VD / 16) * SC, SC);
      const unsigned bl = (unsigned)db, bh = (unsigned)(db >> 32);
      wg_fence();
#pragma unroll
      for (int j = 0; j < CH / 8; j++) wg_mmar<VD / 2>(du, ta + 4 * j, bl + 16 * j, bh);
      wg_commit();
      wg_wait0();
      bar_wait(1 + w, 128); /* every warp of the warpgroup is done with r */
#pragma unroll
      for (int i = 0; i < VD / 16; i++)
#pragma unroll
        for (int o = 0; o < 4; o++)
          ut[core_at(w * (VD / 2) + 8 * i + 2 * q + (o & 1), r0 + 8 * (o >> 1), SC)] = tf32_rna(du[4 * i + o]);
    } else { /* the keep form: u = U + W Z from prep's U and W, W in ks's place once the scores are done */
      __syncthreads();
      r_w.put_core_rows(ks, SQ, L, one_t(), false);
      /* prep's U (warpgroup w's value columns), the accumulators */
#pragma unroll
      for (int i = 0; i < VD / 16; i++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
          const int t = r0 + 8 * h;
          const float2 x = t < L ? *(const float2 *)((const float *)ws + ((tok + t) * a.h_v + it.h) * WS_TOK + WS_U + w * (VD / 2) + 8 * i + 2 * q)
                                 : make_float2(0.0f, 0.0f);
          du[4 * i + 2 * h] = x.x;
          du[4 * i + 2 * h + 1] = x.y;
        }
      fence_async_smem();
      __syncthreads();
      wg_product<VD / 2, KD / 8>(du, wg_desc(ks, SQ), wg_desc(st + w * (VD / 16) * SQ, SQ));
      /* u into ut as the readout's and the update's operand, and for the backward where the state stage puts it,
       * in place of prep's U (read above) */
#pragma unroll
      for (int i = 0; i < VD / 16; i++)
#pragma unroll
        for (int o = 0; o < 4; o++)
          ut[core_at(w * (VD / 2) + 8 * i + 2 * q + (o & 1), r0 + 8 * (o >> 1), SC)] = tf32_rna(du[4 * i + o]);
#pragma unroll
      for (int i = 0; i < VD / 16; i++)
#pragma unroll
        for (int h = 0; h < 2; h++)
          if (r0 + 8 * h < L)
            *(float2 *)(ws + ((tok + r0 + 8 * h) * a.h_v + it.h) * WS_TOK + WS_U + w * (VD / 2) + 8 * i + 2 * q) =
                make_float2(du[4 * i + 2 * h], du[4 * i + 2 * h + 1]);
    }
    if (next) { /* the next chunk's inputs (W among them), in flight during this one's readout and update */
@ copies_fetch(HALL, 'tn', 'Ln')
    }
@ end
    fence_async_smem();
    __syncthreads();
    { /* y = diag(e^b) (q~ Z) + A u: warpgroup w's value columns */
      float d[VD / 4];
#pragma unroll
      for (int i = 0; i < VD / 4; i++) d[i] = 0.0f;
      unsigned long long da = wg_desc(qt, SQ), db = wg_desc(st + w * (VD / 16) * SQ, SQ);
      wg_product<VD / 2, KD / 8>(d, da, db);
      const float e0 = r0 < L ? fexp(b[r0]) : 0.0f, e1 = r0 + 8 < L ? fexp(b[r0 + 8]) : 0.0f;
#pragma unroll
      for (int i = 0; i < VD / 16; i++) { d[4 * i] *= e0; d[4 * i + 1] *= e0; d[4 * i + 2] *= e1; d[4 * i + 3] *= e1; }
      da = wg_desc(am, SC);
      db = wg_desc(ut + w * (VD / 16) * SC, SC);
      wg_product<VD / 2, CH / 8>(d, da, db);
      const gmat<elem_t> yo{(elem_t *)a.out + (tok * a.h_v + it.h) * VD + w * (VD / 2), (long long)a.h_v * VD, L};
      wg_store<VD / 2>(yo, d, r0, 2 * q);
    }
    { /* Z' <- e^{b_L} Z' + u' (k e^{b_L - b}) */
      const float zd = zdec[0];
#pragma unroll
      for (int i = 0; i < ZN / 2; i++) z[i] *= zd;
      const unsigned long long da = wg_desc(ut + (zv0 / 8) * SC, SC), db = wg_desc(kt + (zk0 / 8) * SC, SC);
      wg_product<ZN, CH / 8>(z, da, db);
    }
    __syncthreads(); /* every warp's readout is done with st (at V = 64 another warpgroup's rows too) */
    put_state();     /* for the next chunk's readout */
  }
  float *zo = a.state_out[${m.state}];
  if (zo) z_store<ZN>(zo + slot * ${K * V}, z, z_at);
#else
  (void)a; (void)ws;
#endif
}
@ local hb_scan, hb_load -- (their lines, for the bf16 forms below)
@ if HB or HD then
@ -- the producer's tile copies: load(c0, buf), the chunk at c0 (Ln of its tokens; none past the sequence): q, the
@ -- key, the value into buffer buf (qring, kring, vring) by the NP threads from P0; one commit group a chunk (qif, HD's:
@ -- q where the C condition qif holds, the value but in the segment pass's transition rows: H200 GDN B1 T32768 H16
@ -- split 1.327 -> 1.294 ms, bench/2026-11-26-gpu-h200-s38 call 5)
@ function hb_load(qif)
@   local hk = input_copies('', function(x) return x.idx == m.key end, 'VD', 'VD', '0')[1]
@   local hv, hq = value_copy('VD', 'VD'), query_copy(1, P.q[1])
    auto load = [&](long long c0, int buf) {
      const int Ln = (int)(it.T - c0 < CH ? it.T - c0 : CH);
      const long long tok = it.t0 + c0;
      if (Ln > 0) {
@   if qif then
        if (${qif})
@   end
        tile_cp16<NP, KD, P0>(qring + buf * CH * KD, (const unsigned short *)(${hq.src('tok')}), ${hq.rs}, Ln);
        tile_cp16<NP, KD, P0>(kring + buf * CH * KD, (const unsigned short *)(${hk.src('tok')}), ${hk.rs}, Ln);
@   if qif then
        if (!SEGP || it.vt == 0) /* (the segment pass's transition rows read no values) */
@   end
        tile_cp16<NP, VD, P0>(vring + buf * CH * VD, (const unsigned short *)(${hv.src('tok')}), ${hv.rs}, Ln);
      }
      cp_async_commit();
    };
@ end
@ function hb_scan()
      float bl[CH / 32], bL;
      hb_cumdecay(L, tp, [&](int t_) { return ${m.logdecay or '0.0f'}; }, bl, bL);
@ end
@ end
@ if HB then
/* the update's keys fr(t) k(t) as hi + lo pairs (kh, kl) from the key tile kb (tile_cp16's core matrices), piece p
 * (8 elements) at a time by the NTH threads from T0 */
template <int NTH, int T0 = 0>
__device__ __forceinline__ void hb_keys(const unsigned short *kb, const float *fr, unsigned short *kh, unsigned short *kl) {
  for (int p = (int)threadIdx.x - T0; p < CH * KD / 8; p += NTH) {
    const float f = fr[(p / KD) * 8 + (p & 7)];
    const unsigned *x = (const unsigned *)(kb + 8 * p);
    unsigned h[4], l[4];
#pragma unroll
    for (int j = 0; j < 4; j++) hl_pair(f * __uint_as_float(x[j] << 16), f * __uint_as_float(x[j] & 0xffff0000u), h[j], l[j]);
    *(uint4 *)(kh + 8 * p) = make_uint4(h[0], h[1], h[2], h[3]);
    *(uint4 *)(kl + 8 * p) = make_uint4(l[0], l[1], l[2], l[3]);
  }
}
/* sm_90a, fused90's bf16 form (HB: a scalar decay without an erase, one query term): fused90_body's pass with
 * q, the key and the value as loaded (bf16), by cp.async a chunk ahead into two buffers of core matrices
 * (tile_cp16), which the products read as they are: q and the key K-major (rows t) for the scores and q Z, the
 * value MN-major (k = t) for A' v and the update. The state (sth / stl: V x K, K-major), the masked scores A' =
 * diag(c) A diag(w) (amh / aml: C x C) and the update's keys diag(w e^{b_L - b}) k (kfh / kfl: the key tile's
 * layout, MN-major) as bf16 hi + lo pairs; c the query term's coefficient, w the write's.
 * Three warpgroups. The producer (warpgroup 2) runs a chunk ahead: the tiles' copies, the coefficients, the
 * scores q k' (m64n C) masked into A'; the consumers (warpgroups 0, 1) keep the state in their accumulators and
 * per chunk run y = diag(c e^b) (q Z) + A' v (their value columns) and Z' <- e^{b_L} Z' + v' diag(w e^{b_L - b}) k
 * (value rows zv0.., keys zk0..), the update's keys made under q Z. Named barriers: RDY (all NT threads; the
 * producer arrives) the chunk's operands are in place; AM (all; the consumers arrive) their products are done
 * with amh / aml and the chunk's tiles (the producer then copies the chunk after next into them); PB the
 * producer's own; KB the consumers' once the keys are in place; CB (+ w) the consumers' before they put the state
 * (a warpgroup's, or at V = 64 both: each reads the other's state keys).
 * In a split forward (ssmc_kernel.h) it starts each segment from the state the scan left in that segment's slot.
 * KEEP_T (the entry _fused90_keep, rt_cuda_fwd_save, split or not): also each chunk-start state (from the consumers'
 * accumulators) where the backward's fscan would leave it; U and the chunks' decays are its bprep's, kd its bval's
 * (KDU_B). */
template <bool KEEP_T> __device__ __forceinline__ void fused90b_body(const ssmc_fwd_args &a, float *ws) {
#if SSMC_SM90
  constexpr int NT = 384, NP = 128, P0 = 2 * NP, RDY = 1, KB = 2, AM = 3, PB = 4, CB = 5;
  extern __shared__ float sm[];
@ if SPLIT then
  long long seg; /* a split forward's segment slot, else -1 */
  const item_t it = seg_item_of(a, seg);
@ else
  const long long seg = -1;
  const item_t it = item_of(a);
@ end
  if (seg >= 0 && !it.T) return; /* an empty segment (its sequence's final state is the scan's) */
  const long long slot = it.n * a.h_v + it.h;
  const int v0 = 0; /* the value input's copies: the whole width */
  (void)v0;
  unsigned short *sth = (unsigned short *)(sm + HB_STH), *stl = (unsigned short *)(sm + HB_STL);
  unsigned short *amh = (unsigned short *)(sm + HB_AMH), *aml = (unsigned short *)(sm + HB_AML);
  /* the tiles' buffers (chunk c in buffer c % NB): q's, the key's, the value's */
  constexpr int NB = 2;
  unsigned short *const kring = (unsigned short *)(sm + HB_KB), *const vring = (unsigned short *)(sm + HB_VB);
  unsigned short *const qring = (unsigned short *)(sm + HB_QB);
  unsigned short *kfh = (unsigned short *)(sm + HB_KFH), *kfl = (unsigned short *)(sm + HB_KFL);
  /* (2, K) and (2, C): the chunk's decay e^{b_L}, the readout's row factors c e^b and the update's w e^{b_L - b}, by
   * the chunk's parity */
  float *zdec2 = sm + HB_ZDEC, *yc2 = sm + HB_YC, *fr2 = sm + HB_F;
  /* (w by a shuffle: warp-uniform as ptxas sees it, else it serializes the wgmma in the warpgroups' branches) */
  const int w = __shfl_sync(0xffffffffu, (int)threadIdx.x >> 7, 0), w4 = (threadIdx.x >> 5) & 3, lane = threadIdx.x & 31;
  const int g = lane >> 2, q = lane & 3, r0 = 16 * w4 + g; /* the accumulators' rows r0, r0 + 8 (of the warpgroup's 64) */
  if (w == 2) { /* ---- the producer */
    float *b = sm + HB_B, *ew = sm + HB_EW, *qc = sm + HB_QC;
    const int tp = (int)threadIdx.x - P0;
@ bind_inputs('HB_', function(x) return x.dimsym ~= 2 and x.idx ~= m.key end)
@ local HBC = input_copies('HB_', function(x) return x.dimsym ~= 2 and x.idx ~= m.key end, 'VD', 'VD', '0')
@ hb_load()
    /* the chunk's coefficients (its scalars in in[]) by the producer's first warp, CH / 32 tokens a lane: the
     * cumulative log decays b, the write w, the query coefficient c; into buffer cur the consumers' e^{b_L}, c e^b
     * and w e^{b_L - b} */
    auto coefs = [&](int L, int cur) {
      if (tp >= 32) return;
@ hb_scan()
#pragma unroll
      for (int c = 0; c < CH / 32; c++) {
        const int t_ = 32 * c + tp;
        const float w_ = t_ < L ? ${m.write} : 0.0f, c_ = t_ < L ? (float)(${P.q[1].coef}) : 0.0f;
        b[t_] = bl[c];
        ew[t_] = w_;
        fr2[cur * CH + t_] = w_ * fexp(bL - bl[c]);
        qc[t_] = c_;
        yc2[cur * CH + t_] = c_ * fexp(bl[c]);
      }
      for (int k = tp; k < KD; k += 32) zdec2[cur * KD + k] = expf(bL);
    };
    const int L0 = (int)(it.T < CH ? it.T : CH);
    load(0, 0);
@ copies_decl(HBC, 'NP', '2 * NP')
@ copies_fetch(HBC, 'it.t0', 'L0')
@ copies_put(HBC)
    bar_wait(PB, NP);
    coefs(L0, 0);
    for (long long c0 = 0; c0 < it.T; c0 += CH) {
      const int L = (int)(it.T - c0 < CH ? it.T - c0 : CH);
      const long long tok = it.t0 + c0;
      const int cur = (int)(c0 / CH) & 1, buf = (int)(c0 / CH) % NB;
      const unsigned short *qb = qring + cur * CH * KD, *kb = kring + buf * CH * KD;
      const bool next = c0 + CH < it.T;
      const long long tn = tok + CH;
      const int Ln = (int)(it.T - c0 - CH < CH ? it.T - c0 - CH : CH);
      if (next) { /* the next chunk's scalars into registers */
@ copies_fetch(HBC, 'tn', 'Ln')
      }
      cp_async_wait<0>(); /* this chunk's tiles */
      fence_async_smem();
      bar_wait(PB, NP); /* and its coefficients */
      /* A' = q k' times c_t e^{b_t - b_s} w_s for s <= t, else 0 (c_t = w_s = 0 past L) */
      float d[CH / 2];
#pragma unroll
      for (int i = 0; i < CH / 2; i++) d[i] = 0.0f;
      wg_fence();
      wg16_issue<CH, KD / 16, 0, 0, 16, 16>(d, wg16_desc(qb, 8 * KD, 64), wg16_desc(kb, 8 * KD, 64));
      wg_commit();
      wg_wait0();
      const float bt[2] = {b[r0], b[r0 + 8]}, ct[2] = {qc[r0], qc[r0 + 8]};
#pragma unroll
      for (int i = 0; i < CH / 8; i++)
#pragma unroll
        for (int o = 0; o < 4; o++) {
          const int h = o >> 1, s = 8 * i + 2 * q + (o & 1);
          d[4 * i + o] *= ct[h] * ew[s] * fexp(s <= r0 + 8 * h ? bt[h] - b[s] : __uint_as_float(0xff800000u)); /* (e^-inf = 0) */
        }
      if (c0 > 0) bar_wait(AM, NT); /* the last chunk's readout is done with amh / aml and its tiles */
      load(c0 + CH, cur ^ 1);
#pragma unroll
      for (int i = 0; i < CH / 8; i++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
          unsigned hi, lo;
          hl_pair(d[4 * i + 2 * h], d[4 * i + 2 * h + 1], hi, lo);
          const int o = core16(r0 + 8 * h, 8 * i + 2 * q, 8 * CH, 64);
          *(unsigned *)(amh + o) = hi;
          *(unsigned *)(aml + o) = lo;
        }
      fence_async_smem();
      bar_arrive(RDY, NT);
      if (next) { /* the next chunk's coefficients (every warp is past this one's) */
@ copies_put(HBC)
        bar_wait(PB, NP);
        coefs(Ln, cur ^ 1);
      }
    }
    return;
  }
  /* ---- the consumers: the state's part of the warpgroup, as fused90_body's */
  constexpr int ZN = ${HZN};
  const int zv0 = VD == 128 ? 64 * w : 0, zk0 = VD == 128 ? 0 : w * ZN, n0 = w * (VD / 2);
  float z[ZN / 2];
  auto z_at = [&](int i, int o) { return (long long)(zk0 + 8 * i + 2 * q + (o & 1)) * VD + zv0 + r0 + (o >> 1) * 8; };
  /* the start state: a segment's from the split forward's scan, or state_in */
  const float *z0 = seg >= 0 ? ws_chunk(a, ws, seg, it.h) : a.state_in[${m.state}] ? a.state_in[${m.state}] + slot * ${K * V} : nullptr;
#pragma unroll
  for (int i = 0; i < ZN / 8; i++)
#pragma unroll
    for (int o = 0; o < 4; o++) z[4 * i + o] = z0 ? z0[z_at(i, o)] : 0.0f;
  auto put_state = [&]() { /* z into sth / stl (rows the values, k the keys) */
#pragma unroll
    for (int i = 0; i < ZN / 8; i++)
#pragma unroll
      for (int h = 0; h < 2; h++) {
        const int o = core16(zv0 + r0 + 8 * h, zk0 + 8 * i + 2 * q, 8 * KD, 64);
        unsigned hi, lo;
        hl_pair(z[4 * i + 2 * h], z[4 * i + 2 * h + 1], hi, lo);
        *(unsigned *)(sth + o) = hi;
        *(unsigned *)(stl + o) = lo;
      }
    fence_async_smem();
  };
  put_state();
  for (long long c0 = 0; c0 < it.T; c0 += CH) {
    const int L = (int)(it.T - c0 < CH ? it.T - c0 : CH);
    const long long tok = it.t0 + c0;
    const int cur = (int)(c0 / CH) & 1, buf = (int)(c0 / CH) % NB;
    const bool next = c0 + CH < it.T;
    const unsigned short *qb = qring + cur * CH * KD, *vb = vring + buf * CH * VD;
@ if KEEP then
    if (KEEP_T) z_store<ZN>(ws_chunk(a, ws, first_slot(a, it, seg) + c0 / CH, it.h), z, z_at); /* for the backward */
@ end
    bar_wait(RDY, NT); /* the chunk's operands; every consumer's state in sth / stl */
    const float zd = zdec2[cur * KD], e0 = yc2[cur * CH + r0], e1 = yc2[cur * CH + r0 + 8];
    float d[VD / 4];
#pragma unroll
    for (int i = 0; i < VD / 4; i++) d[i] = 0.0f;
    const unsigned long long dq = wg16_desc(qb, 8 * KD, 64), dz = wg16_desc(vb + (zv0 / 8) * 64, 64, 8 * VD);
    wg_fence();
    wg16_issue<VD / 2, KD / 16, 0, 0, 16, 16>(d, dq, wg16_desc(sth + (n0 / 8) * 8 * KD, 8 * KD, 64));
    wg16_issue<VD / 2, KD / 16, 0, 0, 16, 16>(d, dq, wg16_desc(stl + (n0 / 8) * 8 * KD, 8 * KD, 64));
    wg_commit();
    hb_keys<2 * NP>(kring + buf * CH * KD, fr2 + cur * CH, kfh, kfl); /* under q Z */
    fence_async_smem();
    bar_wait(KB, 2 * NP); /* every consumer's keys */
#pragma unroll
    for (int i = 0; i < ZN / 2; i++) z[i] *= zd;
    wg_fence();
    wg16_issue<ZN, CH / 16, 1, 1, 2 * VD, 2 * KD>(z, dz, wg16_desc(kfh + (zk0 / 8) * 64, 64, 8 * KD));
    wg16_issue<ZN, CH / 16, 1, 1, 2 * VD, 2 * KD>(z, dz, wg16_desc(kfl + (zk0 / 8) * 64, 64, 8 * KD));
    wg_commit();
    wg_wait1(); /* q Z done; the update runs on */
#pragma unroll
    for (int i = 0; i < VD / 16; i++) { d[4 * i] *= e0; d[4 * i + 1] *= e0; d[4 * i + 2] *= e1; d[4 * i + 3] *= e1; }
    const unsigned long long dv = wg16_desc(vb + (n0 / 8) * 64, 64, 8 * VD);
    wg_fence();
    wg16_issue<VD / 2, CH / 16, 0, 1, 16, 2 * VD>(d, wg16_desc(amh, 8 * CH, 64), dv);
    wg16_issue<VD / 2, CH / 16, 0, 1, 16, 2 * VD>(d, wg16_desc(aml, 8 * CH, 64), dv);
    wg_commit();
    wg_wait0();
    if (next) bar_arrive(AM, NT); /* amh / aml and the chunk's tiles free */
    const gmat<elem_t> yo{(elem_t *)a.out + (tok * a.h_v + it.h) * VD + n0, (long long)a.h_v * VD, L};
    wg_store<VD / 2>(yo, d, r0, 2 * q);
    /* the warpgroup's q Z is done with its state rows (each warp's product reads all of them); at V = 64 the other
     * warpgroup's with this one's state keys */
    if (VD == 128) bar_wait(CB + w, NP);
    else bar_wait(CB, 2 * NP);
    put_state(); /* for the next chunk's readout */
  }
  /* the final state (in a split forward the scan wrote it) */
  float *zo = seg >= 0 || !a.state_out[${m.state}] ? nullptr : a.state_out[${m.state}] + slot * ${K * V};
  if (zo) z_store<ZN>(zo, z, z_at);
#else
  (void)a;
  (void)ws;
#endif
}
@   if SPLIT then
/* The split forward's segment pass (ssmc_kernel.h; SG): each segment's state from zero, Z = sum_t f_t v_t k_t' with
 * f_t = w_t e^{b_end - b_t} (b the cumulative log decay, b_end the segment's), and its decay e^{b_end}, into the
 * segment's chunk slot. A reduction over the segment's tokens: its chunks from the last to the first, so f_t is the
 * chunk's w_t e^{b_L - b_t} times e^{sfx}, sfx the log decay of the chunks after it (at most 1: no overflow), and the
 * accumulators are never rescaled: each chunk's two products (the keys' hi + lo parts) are waited for one chunk later.
 * 256 threads, each warpgroup half the value rows (V = 128) or half the keys (V = 64), as fused90's consumers; the
 * key and value tiles by cp.async NB - 2 chunks ahead into NB buffers; a chunk's factors made by warp 0 a chunk ahead
 * (its scan of the log decays is a chain of shuffles: in line, the other warps waited on it for 30% of the pass),
 * its keys by the other warps into two buffers.
 * (fused90's own segment form, a producer warpgroup a chunk ahead of two consumer warpgroups, ran at 23% SM and 26%
 * DRAM throughput: bench/, the gpu-h200-split record) */
extern "C" __global__ void __launch_bounds__(256, 1) ${P.name}_fused90_seg(ssmc_fwd_args a, float *ws) {
#if SSMC_SM90
  constexpr int NT = 256, NB = ${SG_NB};
  extern __shared__ float sm[];
  long long seg;
  const item_t it = seg_item_of(a, seg);
  if (!it.T) return; /* an empty segment (its sequence's final state is the scan's) */
  const int v0 = 0; /* the value input's copies: the whole width */
  (void)v0;
@     bind_inputs('SG_', function(x) return x.dimsym ~= 2 and x.idx ~= m.key end)
@     local SGC = input_copies('SG_', function(x) return x.dimsym ~= 2 and x.idx ~= m.key end, 'VD', 'VD', '0')
@     local hk = input_copies('SG_', function(x) return x.idx == m.key end, 'VD', 'VD', '0')[1]
@     local hv = value_copy('VD', 'VD')
  unsigned short *const kring = (unsigned short *)(sm + SG_KR), *const vring = (unsigned short *)(sm + SG_VR);
  unsigned short *const kf = (unsigned short *)(sm + SG_KF); /* buffer j: hi at 2 j CH K, lo after it */
  float *const fr = sm + SG_FR; /* (2, C): f_t of a chunk, by the loop chunk's parity */
  const int w = __shfl_sync(0xffffffffu, (int)threadIdx.x >> 7, 0), lane = threadIdx.x & 31;
  const int g = lane >> 2, q = lane & 3, r0 = 16 * ((threadIdx.x >> 5) & 3) + g;
  constexpr int ZN = ${HZN};
  const int zv0 = VD == 128 ? 64 * w : 0, zk0 = VD == 128 ? 0 : w * ZN;
  const long long nch = (it.T + CH - 1) / CH;
  /* chunk i of the loop is the segment's chunk nch - 1 - i: its first token and length */
  auto c0_of = [&](long long i) { return (nch - 1 - i) * CH; };
  auto len_of = [&](long long i) { const long long r = it.T - c0_of(i); return (int)(r < CH ? r : CH); };
  /* loop chunk i's key and value tiles into buffer i % NB (none past the segment's first chunk); one commit group */
  auto load = [&](long long i) {
    if (i < nch) {
      const long long tok = it.t0 + c0_of(i);
      const int Ln = len_of(i);
      tile_cp16<NT, KD>(kring + (i % NB) * CH * KD, (const unsigned short *)(${hk.src('tok')}), ${hk.rs}, Ln);
      tile_cp16<NT, VD>(vring + (i % NB) * CH * VD, (const unsigned short *)(${hv.src('tok')}), ${hv.rs}, Ln);
    }
    cp_async_commit();
  };
  float sfx = 0.0f; /* warp 0's: the log decay of the chunks done */
  /* warp 0: f_t = w_t e^{b_L - b_t + sfx} of loop chunk j (its scalars in in[]) into f, then sfx += b_L */
  auto factors = [&](long long j, float *f) {
    const int L = len_of(j), tp = lane;
@     hb_scan()
#pragma unroll
    for (int c = 0; c < CH / 32; c++) {
      const int t_ = 32 * c + tp;
      f[t_] = t_ < L ? (${m.write}) * fexp(bL - bl[c] + sfx) : 0.0f;
    }
    sfx += bL;
  };
@     copies_decl(SGC, 'NT')
  for (int i = 0; i < NB - 2; i++) load(i);
  { /* chunk 0's factors */
    const int L = len_of(0);
@     copies_fetch(SGC, 'it.t0 + c0_of(0)', 'L')
@     copies_put(SGC)
  }
  if (nch > 1) {
@     copies_fetch(SGC, 'it.t0 + c0_of(1)', 'len_of(1)')
  }
  __syncthreads();
  if (threadIdx.x < 32) factors(0, fr);
  __syncthreads(); /* (chunk 1's scalars go where chunk 0's were) */
  float z[ZN / 2];
#pragma unroll
  for (int i = 0; i < ZN / 2; i++) z[i] = 0.0f;
  /* loop chunk i: its factors in fr[i % 2] (warp 0 made them in the loop before), the next chunk's scalars in[] */
  for (long long i = 0; i < nch; i++) {
    if (i + 1 < nch) { /* (scalars only: SG) */
@     copies_put(SGC)
    }
    if (i + 2 < nch) { /* the scalars of the chunk after into registers */
@     copies_fetch(SGC, 'it.t0 + c0_of(i + 2)', 'len_of(i + 2)')
    }
    cp_async_wait<NB - 3>(); /* this chunk's tiles (the next ones' may be in flight) */
    fence_async_smem();
    __syncthreads(); /* the tiles and the next chunk's scalars in; chunk i - 2's products (on kf[i % 2]) done */
    unsigned short *kh = kf + (i & 1) * 2 * CH * KD;
    if (threadIdx.x < 32) { /* warp 0: the next chunk's factors */
      if (i + 1 < nch) factors(i + 1, fr + ((i + 1) & 1) * CH);
    } else { /* the others: this chunk's keys */
      hb_keys<NT - 32, 32>(kring + (i % NB) * CH * KD, fr + (i & 1) * CH, kh, kh + CH * KD);
    }
    fence_async_smem();
    __syncthreads(); /* every key made */
    const unsigned long long dz = wg16_desc(vring + (i % NB) * CH * VD + (zv0 / 8) * 64, 64, 8 * VD);
    wg_fence();
    wg16_issue<ZN, CH / 16, 1, 1, 2 * VD, 2 * KD>(z, dz, wg16_desc(kh + (zk0 / 8) * 64, 64, 8 * KD));
    wg16_issue<ZN, CH / 16, 1, 1, 2 * VD, 2 * KD>(z, dz, wg16_desc(kh + CH * KD + (zk0 / 8) * 64, 64, 8 * KD));
    wg_commit();
    wg_wait1(); /* chunk i - 1's: its buffers free (once every warpgroup is past this) */
    load(i + NB - 2); /* into chunk i - 2's buffer (free: both warpgroups waited for its products before the barrier) */
  }
  wg_wait0();
  float *zo = ws_chunk(a, ws, seg, it.h);
#pragma unroll
  for (int i = 0; i < ZN / 8; i++)
#pragma unroll
    for (int o = 0; o < 4; o++) zo[(long long)(zk0 + 8 * i + 2 * q + (o & 1)) * VD + zv0 + r0 + (o >> 1) * 8] = z[4 * i + o];
  if (threadIdx.x < 32)
    for (int k = lane; k < KD; k += 32) zo[WS_ZD + k] = expf(sfx);
#else
  (void)a;
  (void)ws;
#endif
}
@   end
@ end
@ if HD then
/* sm_90a, fused90's bf16 form with an erase (HD: one query term, V = 64 or 128): the T form's pass (fused90_body)
 * with q, the key and the value as loaded (bf16, by cp.async a chunk ahead into two buffers of core matrices:
 * tile_cp16), T (prep_fused's sm_90a form) and the masked scores as bf16 hi + lo pairs, every product m64nNk16 bf16.
 * Consumer warpgroup w (of NCW = V / 64) keeps the state of value rows 64 w.. (Z_w: rows the values, every key) in its
 * accumulators and works with the values as rows: X' = Z_w K' and y' = Z_w q' (A the state, hi + lo: in shared
 * memory, or at K <= 64 (HD_SREG) from the accumulators as register fragments; B the key and q tiles as loaded),
 * r'(v, t) = w_t v(t, v) - e_t e^{b_t} X'(v, t), u' = r' T' (A r' from the accumulators, hi + lo: three products),
 * y' = diag(c e^b) y' + u' A' and Z_w <- e^{b_L} Z_w + u' diag(e^{b_L - b}) K (A from u's accumulators, hi + lo; B the
 * key tile as loaded, MN-major): the chain's operands stay in registers but the state's. The producer (warpgroup
 * NCW) runs a chunk ahead: the tiles' and T's rows' copies (T fp32 into its buffer's place, put as hi + lo parts
 * there), the coefficients, the scores c_t q k' e^{b_t - b_s} (s <= t) into amh / aml. y leaves through the value
 * tile's place (stmatrix, transposed). Named barriers: RDY (all NT threads; the producer arrives) the chunk's
 * operands in place; AM (all; the consumers arrive) their products are done with amh / aml and T's buffer; TB (all)
 * their y is out of the chunk's tiles (the producer then copies the chunk after next into them, and its T); PB the
 * producer's own; CB + w a consumer warpgroup's (its y rows in place, its state rows free to put).
 * SPL: the split forward's form (DSPLIT; fused90_split, its own entry: the segment's item and slot cost fused90
 * registers, spilled), every segment from the start state the scan left in its slot, the last one's end the final
 * state. SEGP (with SPL): the split forward's segment pass (fused90_seg), block row it.vt of a segment: 0 the value
 * rows from zero, into the segment's slot; j > 0 rows (j - 1) V.. of its transition P (rows from the identity, no
 * values) into its first chunk's per-token workspace (WS_P); neither q, the scores nor y.
 * KEEP_T (the entries _fused90_keep and, with SPL, _fused90_split_keep, rt_cuda_fwd_save; after prep_fused_keep, whose
 * T's rows it reads at WS_T): also each chunk-start state and u (fp32, from the consumers' accumulators: rows the
 * values, so each warp's store is 8 values of 4 keys or tokens, whole 32-byte sectors) where the backward reads them. */
template <bool SEGP, bool SPL = SEGP, bool KEEP_T = false>
__device__ __forceinline__ void fused90d_body(const ssmc_fwd_args &a, float *ws) {
#if SSMC_SM90
  /* NCW consumer warpgroups (64 value rows each), then the producer */
  constexpr int NCW = VD / 64, NP = 128, P0 = NCW * NP, NT = P0 + NP;
  constexpr int RDY = 1, TB = 2, AM = 3, PB = 4, CB = 5;
  extern __shared__ float sm[];
@ if DSPLIT then
  long long seg = -1; /* a split forward's segment slot, else -1 */
  const item_t it = SPL ? seg_item_of(a, seg) : item_of(a);
  if (seg >= 0 && (!it.T || (SEGP && seg_last(a, it)))) return; /* empty; the last segment's transition is not wanted */
@ else
  const item_t it = item_of(a);
  constexpr long long seg = -1;
@ end
  const long long slot = it.n * a.h_v + it.h;
  const int v0 = 0; /* the value input's copies: the whole width */
  (void)v0;
@ if not HD_SREG then
  unsigned short *sth = (unsigned short *)(sm + HD_STH), *stl = (unsigned short *)(sm + HD_STL);
@ end
  unsigned short *amh = (unsigned short *)(sm + HD_AMH), *aml = (unsigned short *)(sm + HD_AML);
  /* the buffers (chunk c in buffer c % 2): q's, the key's, the value's tiles, T's hi and lo parts */
  unsigned short *const qring = (unsigned short *)(sm + HD_QB), *const kring = (unsigned short *)(sm + HD_KB);
  unsigned short *const vring = (unsigned short *)(sm + HD_VB);
  unsigned short *const thring = (unsigned short *)(sm + HD_TH), *const tlring = (unsigned short *)(sm + HD_TL);
  /* (2), (2, C) each, by the chunk's parity: e^{b_L}, the write w, the erase's e e^b, the readout's c e^b, the update's
   * e^{b_L - b} */
  float *zdec2 = sm + HD_ZDEC, *w2 = sm + HD_W, *e2 = sm + HD_E, *yc2 = sm + HD_YC, *fr2 = sm + HD_F;
  /* (w by a shuffle: warp-uniform as ptxas sees it) */
  const int w = __shfl_sync(0xffffffffu, (int)threadIdx.x >> 7, 0), w4 = (threadIdx.x >> 5) & 3, lane = threadIdx.x & 31;
  const int g = lane >> 2, q = lane & 3, r0 = 16 * w4 + g; /* the accumulators' rows r0, r0 + 8 (of the warpgroup's 64) */
  /* registers (setmaxnreg): the producer's ${HD_REGS[1]}, the consumers' ${HD_REGS[2]} (V = 128: the state 64, y' 32 and A's
   * fragments 64 while the last products run; at the launch's 168 ptxas spilled 448 bytes, at these 224 of the
   * producer's and the entry's words) */
  if (w == NCW) { /* ---- the producer */
    regs_dec<${HD_REGS[1]}>();
    float *b = sm + HD_B, *qc = sm + HD_QC;
    const int tp = (int)threadIdx.x - P0;
@ bind_inputs('HD_', function(x) return x.dimsym ~= 2 and x.idx ~= m.key end)
@ local HDC = input_copies('HD_', function(x) return x.dimsym ~= 2 and x.idx ~= m.key end, 'VD', 'VD', '0')
@ hb_load('!SEGP')
    /* the chunk's coefficients (its scalars in in[]) by the producer's first warp, CH / 32 tokens a lane: the
     * cumulative log decays b and the query coefficient c for the scores; into buffer cur the consumers' factors */
    auto coefs = [&](int L, int cur) {
      if (tp >= 32) return;
@ hb_scan()
#pragma unroll
      for (int c = 0; c < CH / 32; c++) {
        const int t_ = 32 * c + tp;
        const bool in_ = t_ < L;
        const float eb = fexp(bl[c]), c_ = in_ ? (float)(${P.q[1].coef}) : 0.0f;
        b[t_] = bl[c];
        qc[t_] = c_;
        w2[cur * CH + t_] = in_ ? ${m.write} : 0.0f;
        e2[cur * CH + t_] = in_ ? (${m.erase}) * eb : 0.0f;
        yc2[cur * CH + t_] = c_ * eb;
        fr2[cur * CH + t_] = in_ ? fexp(bL - bl[c]) : 0.0f;
      }
      if (tp == 0) zdec2[cur] = expf(bL);
    };
    /* T's rows of the chunk at c0 (C, C fp32 at prep's WS_W; rows past its length zero) by cp.async into buffer buf's
     * hi and lo places (rows < C / 2 in TH's, the rest in TL's: 16 KiB), a chunk ahead as the tiles (its global loads
     * had held the producer: long scoreboard 19% of fused90's samples, bench/, the s37 record, call 3); float4
     * j of the thread at row tp / 16 + 8 j, columns 4 (tp % 16).. (put as hi + lo parts in place once in) */
    auto load_t = [&](long long c0, int buf) {
      const int Ln = (int)(it.T - c0 < CH ? it.T - c0 : CH);
      if (Ln > 0) {
        const long long ts = (long long)a.h_v * WS_TOK;
        const float *src = (const float *)ws + ((it.t0 + c0) * a.h_v + it.h) * WS_TOK + (KEEP_T ? WS_T : WS_W);
        float *d0 = (float *)(thring + buf * CH * CH) + 4 * (tp & 15), *d1 = (float *)(tlring + buf * CH * CH) + 4 * (tp & 15);
#pragma unroll
        for (int j = 0; j < CH / 8; j++) {
          const int t = (tp >> 4) + 8 * j;
          cp_async16_z((j < CH / 16 ? d0 : d1) + (t % (CH / 2)) * CH, t < Ln ? src + t * ts + 4 * (tp & 15) : src, t < Ln);
        }
      }
      cp_async_commit();
    };
    const int L0 = (int)(it.T < CH ? it.T : CH);
    load(0, 0);
    load_t(0, 0);
@ copies_decl(HDC, 'NP', 'P0')
@ copies_fetch(HDC, 'it.t0', 'L0')
@ copies_put(HDC)
    bar_wait(PB, NP);
    coefs(L0, 0);
    for (long long c0 = 0; c0 < it.T; c0 += CH) {
      const int L = (int)(it.T - c0 < CH ? it.T - c0 : CH);
      const long long tok = it.t0 + c0;
      const int cur = (int)(c0 / CH) & 1;
      const unsigned short *qb = qring + cur * CH * KD, *kb = kring + cur * CH * KD;
      const bool next = c0 + CH < it.T;
      const long long tn = tok + CH;
      const int Ln = (int)(it.T - c0 - CH < CH ? it.T - c0 - CH : CH);
      if (next) { /* the next chunk's scalars into registers */
@ copies_fetch(HDC, 'tn', 'Ln')
      }
      cp_async_wait<0>(); /* this chunk's tiles and T's rows (the thread's own copies) */
      /* T as hi + lo parts in place (buffer cur), K-major as the B operand of u' = r' T' (rows t, k = s): every
       * producer thread's rows read before any is overwritten; before the scores, whose accumulators would hold T's
       * registers beside them. (Row + 8 j: + j SBO; the pointers formed first, the offsets immediates, not an
       * address register each) */
      {
        const int tx = (int)opaque((unsigned)tp); /* (the addresses formed each chunk: hoisted, they were spilled) */
        float4 tr[CH / 8];
        const float *f0 = (const float *)(thring + cur * CH * CH) + 4 * (tx & 15) + (tx >> 4) * CH;
        const float *f1 = (const float *)(tlring + cur * CH * CH) + 4 * (tx & 15) + (tx >> 4) * CH;
#pragma unroll
        for (int j = 0; j < CH / 8; j++) tr[j] = *(const float4 *)((j < CH / 16 ? f0 : f1) + 8 * (j % (CH / 16)) * CH);
        fence_async_smem();
        bar_wait(PB, NP); /* (and the chunk's tiles and coefficients) */
        const int o0 = core16(tx >> 4, 4 * (tx & 15), 8 * CH, 64);
        unsigned short *th = thring + cur * CH * CH + o0, *tl = tlring + cur * CH * CH + o0;
#pragma unroll
        for (int j = 0; j < CH / 8; j++) {
          unsigned h0, l0, h1, l1;
          hl_pair(tr[j].x, tr[j].y, h0, l0);
          hl_pair(tr[j].z, tr[j].w, h1, l1);
          *(uint2 *)(th + 8 * CH * j) = make_uint2(h0, h1);
          *(uint2 *)(tl + 8 * CH * j) = make_uint2(l0, l1);
        }
      }
      if constexpr (!SEGP) {
        float d[CH / 2];
#pragma unroll
        for (int i = 0; i < CH / 2; i++) d[i] = 0.0f;
        wg_fence();
        wg16_issue<CH, KD / 16, 0, 0, 16, 16>(d, wg16_desc(qb, 8 * KD, 64), wg16_desc(kb, 8 * KD, 64));
        wg_commit();
        wg_wait0();
        /* A = q k' times c_t e^{b_t - b_s} for s <= t, else 0 (c_t = 0 past L) */
        const float bt[2] = {b[r0], b[r0 + 8]}, ct[2] = {qc[r0], qc[r0 + 8]};
#pragma unroll
        for (int i = 0; i < CH / 8; i++)
#pragma unroll
          for (int o = 0; o < 4; o++) {
            const int h = o >> 1, s = 8 * i + 2 * q + (o & 1);
            d[4 * i + o] *= ct[h] * fexp(s <= r0 + 8 * h ? bt[h] - b[s] : __uint_as_float(0xff800000u)); /* (e^-inf = 0) */
          }
        if (c0 > 0) bar_wait(AM, NT); /* the last chunk's products are done with amh / aml */
        unsigned short *const ah0 = amh + core16(r0, 2 * q, 8 * CH, 64), *const al0 = aml + core16(r0, 2 * q, 8 * CH, 64);
#pragma unroll
        for (int i = 0; i < CH / 8; i++)
#pragma unroll
          for (int h = 0; h < 2; h++) {
            unsigned hi, lo;
            hl_pair(d[4 * i + 2 * h], d[4 * i + 2 * h + 1], hi, lo);
            *(unsigned *)(ah0 + 8 * CH * h + 64 * i) = hi; /* core16(r0 + 8 h, 8 i + 2 q, ..) */
            *(unsigned *)(al0 + 8 * CH * h + 64 * i) = lo;
          }
        fence_async_smem();
      } else if (c0 > 0) bar_wait(AM, NT); /* (no scores: T's buffer alone) */
      bar_arrive(RDY, NT);
      if (c0 > 0) bar_wait(TB, NT); /* and with its tiles (its y out of the value tile's place) */
      load(c0 + CH, cur ^ 1);
      load_t(c0 + CH, cur ^ 1);
      if (next) { /* the next chunk's coefficients (every warp is past this one's) */
@ copies_put(HDC)
        bar_wait(PB, NP);
        coefs(Ln, cur ^ 1);
      }
    }
    return;
  }
  /* ---- the consumers: z[4 i + o] = Z'(zv0 + r0 + 8 (o / 2), 8 i + 2 q + o % 2) (value, key) */
  regs_inc<${HD_REGS[2]}>();
  constexpr int ZN = KD;
  const int zv0 = 64 * w;
  float z[ZN / 2];
  auto z_at = [&](int i, int o) { return (long long)(8 * i + 2 * q + (o & 1)) * VD + zv0 + r0 + (o >> 1) * 8; };
  /* the start state: a segment's from the split forward's scan, or state_in; the segment pass's from zero, its
   * transition rows (row pr: P's (it.vt - 1) V + zv0 + r0 + 8 (o / 2)) from the identity */
  const float *z0 = SEGP      ? nullptr
                    : seg >= 0 ? ws_chunk(a, ws, seg, it.h)
                    : a.state_in[${m.state}] ? a.state_in[${m.state}] + slot * ${K * V} : nullptr;
  const int pr = (it.vt - 1) * VD + zv0 + r0; /* (SEGP, it.vt > 0) */
#pragma unroll
  for (int i = 0; i < ZN / 8; i++)
#pragma unroll
    for (int o = 0; o < 4; o++)
      z[4 * i + o] = z0 ? z0[z_at(i, o)] : SEGP && it.vt > 0 && 8 * i + 2 * q + (o & 1) == pr + (o >> 1) * 8 ? 1.0f : 0.0f;
@ if HD_SREG then
  /* the state's hi + lo parts as the A operand's fragments (pair 2 i + h holds z[4 i + 2 h], + 1), formed each chunk */
  auto put_state = [&]() {};
@ else
  auto put_state = [&]() { /* z into sth / stl (rows the values, k the keys) */
#pragma unroll
    for (int i = 0; i < ZN / 8; i++)
#pragma unroll
      for (int h = 0; h < 2; h++) {
        const int o = core16(zv0 + r0 + 8 * h, 8 * i + 2 * q, 8 * KD, 64);
        unsigned hi, lo;
        hl_pair(z[4 * i + 2 * h], z[4 * i + 2 * h + 1], hi, lo);
        *(unsigned *)(sth + o) = hi;
        *(unsigned *)(stl + o) = lo;
      }
    fence_async_smem();
  };
  put_state();
  const unsigned long long dsh = wg16_desc(sth + (zv0 / 8) * 8 * KD, 8 * KD, 64), dsl = wg16_desc(stl + (zv0 / 8) * 8 * KD, 8 * KD, 64);
@ end
  for (long long c0 = 0; c0 < it.T; c0 += CH) {
    const int L = (int)(it.T - c0 < CH ? it.T - c0 : CH);
    const long long tok = it.t0 + c0;
    const int cur = (int)(c0 / CH) & 1;
    const bool next = c0 + CH < it.T;
    const unsigned short *qb = qring + cur * CH * KD, *kb = kring + cur * CH * KD, *vb = vring + cur * CH * VD;
    const float *wc = w2 + cur * CH, *ec = e2 + cur * CH, *yc = yc2 + cur * CH, *fc = fr2 + cur * CH;
    if (KEEP_T) z_store<ZN>(ws_chunk(a, ws, first_slot(a, it, seg) + c0 / CH, it.h), z, z_at); /* for the backward */
    bar_wait(RDY, NT); /* the chunk's operands; the warpgroup's state in sth / stl (without HD_SREG) */
    const float zd = zdec2[cur];
    /* X' = Z_w K' (x): m64 (the value rows) n C (the tokens) */
    float x[CH / 2], d[CH / 2];
#pragma unroll
    for (int i = 0; i < CH / 2; i++) x[i] = d[i] = 0.0f;
@ if HD_SREG then
    {
      /* with y' = Z_w q' (d): zh Kb + zl Kb, zh Qb + zl Qb (B the key and q tiles as loaded, K-major) */
      unsigned zh[ZN / 4], zl[ZN / 4];
#pragma unroll
      for (int i = 0; i < ZN / 8; i++)
#pragma unroll
        for (int h = 0; h < 2; h++) hl_pair(z[4 * i + 2 * h], z[4 * i + 2 * h + 1], zh[2 * i + h], zl[2 * i + h]);
      const unsigned long long kd = op_desc(wg16_desc(kb, 8 * KD, 64)), qd = op_desc(wg16_desc(qb, 8 * KD, 64));
      const unsigned kh = (unsigned)(kd >> 32), qh = (unsigned)(qd >> 32);
      wg_fence();
#pragma unroll
      for (int k = 0; k < KD / 16; k++) wg_mma16r<CH, 0>(x, zh + 4 * k, (unsigned)kd + 16 * k, kh);
#pragma unroll
      for (int k = 0; k < KD / 16; k++) wg_mma16r<CH, 0>(x, zl + 4 * k, (unsigned)kd + 16 * k, kh);
      if constexpr (!SEGP) {
#pragma unroll
        for (int k = 0; k < KD / 16; k++) wg_mma16r<CH, 0>(d, zh + 4 * k, (unsigned)qd + 16 * k, qh);
#pragma unroll
        for (int k = 0; k < KD / 16; k++) wg_mma16r<CH, 0>(d, zl + 4 * k, (unsigned)qd + 16 * k, qh);
      }
      wg_commit();
      wg_wait0();
    }
@ else
    /* (the descriptors formed each chunk, opaque: hoisted out of the loop, every k step's held a register) */
    wg_fence();
    wg16_issue<CH, KD / 16, 0, 0, 16, 16>(x, op_desc(dsh), op_desc(wg16_desc(kb, 8 * KD, 64)));
    wg16_issue<CH, KD / 16, 0, 0, 16, 16>(x, op_desc(dsl), op_desc(wg16_desc(kb, 8 * KD, 64)));
    wg_commit();
    wg_wait0();
@ end
    /* r' = w v' - (e e^b) X' (columns t) as the A operand's hi + lo fragments: pair 2 i + h holds x[4 i + 2 h], + 1;
     * v' at the accumulators' places by ldmatrix, transposed (the value tile's rows t; 64 two-byte loads a thread
     * had been ~7% of the consumers' samples, call 5) */
    unsigned rh[CH / 4], rl[CH / 4];
#pragma unroll
    for (int k = 0; k < CH / 16; k++) {
      unsigned vv[4] = {0u, 0u, 0u, 0u}; /* matrix m: the token block 2 k + m / 2, value rows + 8 (m % 2), as stsm4t's below */
      const int m = lane >> 3;
      if (!SEGP || it.vt == 0) /* (the transition's rows: no values) */
        ldsm4t(vv, vb + core16(16 * k + 8 * (m >> 1) + (lane & 7), zv0 + 16 * w4 + 8 * (m & 1), 8 * VD, 64));
#pragma unroll
      for (int mm = 0; mm < 4; mm++) {
        const int i = 2 * k + (mm >> 1), h = mm & 1, t = 8 * i + 2 * q;
        const float v0_ = __uint_as_float(vv[mm] << 16), v1_ = __uint_as_float(vv[mm] & 0xffff0000u);
        hl_pair(wc[t] * v0_ - ec[t] * x[4 * i + 2 * h], wc[t + 1] * v1_ - ec[t + 1] * x[4 * i + 2 * h + 1], rh[2 * i + h], rl[2 * i + h]);
      }
    }
    /* u' = r' T' (m64 the value rows, n C the tokens t, k the tokens s): rh Th + rl Th + rh Tl; beside it y' = Z_w q'
     * (d; issued after r' is formed: X', y' and r' at once held 32 registers too many) */
    float u[CH / 2];
#pragma unroll
    for (int i = 0; i < CH / 2; i++) u[i] = 0.0f;
    {
@ if not HD_SREG then
      const unsigned long long dq = op_desc(wg16_desc(qb, 8 * KD, 64));
      wg_fence();
      if constexpr (!SEGP) {
        wg16_issue<CH, KD / 16, 0, 0, 16, 16>(d, op_desc(dsh), dq);
        wg16_issue<CH, KD / 16, 0, 0, 16, 16>(d, op_desc(dsl), dq);
        wg_commit();
      }
@ else
      wg_fence();
@ end
      const unsigned long long th = op_desc(wg16_desc(thring + cur * CH * CH, 8 * CH, 64)), tl = op_desc(wg16_desc(tlring + cur * CH * CH, 8 * CH, 64));
      const unsigned hh = (unsigned)(th >> 32);
#pragma unroll
      for (int k = 0; k < CH / 16; k++) wg_mma16r<CH, 0>(u, rh + 4 * k, (unsigned)th + 16 * k, hh);
#pragma unroll
      for (int k = 0; k < CH / 16; k++) wg_mma16r<CH, 0>(u, rl + 4 * k, (unsigned)th + 16 * k, hh);
#pragma unroll
      for (int k = 0; k < CH / 16; k++) wg_mma16r<CH, 0>(u, rh + 4 * k, (unsigned)tl + 16 * k, hh);
      wg_commit();
      wg_wait0();
    }
    if (KEEP_T) { /* for the backward: u (t, v) at WS_U, tokens t < L */
      float *uo = ws + (tok * a.h_v + it.h) * WS_TOK + WS_U + zv0 + r0;
      const long long us = (long long)a.h_v * WS_TOK;
#pragma unroll
      for (int i = 0; i < CH / 8; i++)
#pragma unroll
        for (int o = 0; o < 4; o++) {
          const int t = 8 * i + 2 * q + (o & 1);
          if (t < L) uo[t * us + (o >> 1) * 8] = u[4 * i + o];
        }
    }
    /* y' times c e^b (columns t); u' as A's hi + lo fragments, for A u' as it is and for the update times
     * e^{b_L - b} */
    unsigned uh[CH / 4], ul[CH / 4], fh[CH / 4], fl[CH / 4];
#pragma unroll
    for (int i = 0; i < CH / 8; i++)
#pragma unroll
      for (int h = 0; h < 2; h++) {
        const int t = 8 * i + 2 * q, p = 4 * i + 2 * h;
        if constexpr (!SEGP) {
          d[p] *= yc[t];
          d[p + 1] *= yc[t + 1];
          hl_pair(u[p], u[p + 1], uh[2 * i + h], ul[2 * i + h]);
        }
        hl_pair(fc[t] * u[p], fc[t + 1] * u[p + 1], fh[2 * i + h], fl[2 * i + h]);
      }
#pragma unroll
    for (int i = 0; i < ZN / 2; i++) z[i] *= zd;
    {
      /* y' += u' A' (B = A as the producer left it: rows t, k = s): uh Ah + ul Ah + uh Al; Z_w += (u' diag(f)) K (B the
       * key tile MN-major: k = t, n the keys) */
      const unsigned long long ah = op_desc(wg16_desc(amh, 8 * CH, 64)), al = op_desc(wg16_desc(aml, 8 * CH, 64)), km = op_desc(wg16_desc(kb, 64, 8 * KD));
      const unsigned ahh = (unsigned)(ah >> 32), kmh = (unsigned)(km >> 32);
      wg_fence();
      if constexpr (!SEGP) {
#pragma unroll
        for (int k = 0; k < CH / 16; k++) wg_mma16r<CH, 0>(d, uh + 4 * k, (unsigned)ah + 16 * k, ahh);
#pragma unroll
        for (int k = 0; k < CH / 16; k++) wg_mma16r<CH, 0>(d, ul + 4 * k, (unsigned)ah + 16 * k, ahh);
#pragma unroll
        for (int k = 0; k < CH / 16; k++) wg_mma16r<CH, 0>(d, uh + 4 * k, (unsigned)al + 16 * k, ahh);
      }
#pragma unroll
      for (int k = 0; k < CH / 16; k++) wg_mma16r<ZN, 1>(z, fh + 4 * k, (unsigned)km + 2 * KD * k, kmh);
#pragma unroll
      for (int k = 0; k < CH / 16; k++) wg_mma16r<ZN, 1>(z, fl + 4 * k, (unsigned)km + 2 * KD * k, kmh);
      wg_commit();
      wg_wait0();
    }
    if (next) bar_arrive(AM, NT); /* amh / aml and T's buffer free */
    /* y (t, v) from y'(v, t) through the value tile's place (each warp's own value columns, which only its r' read):
     * transposed by stmatrix into its core matrices (row t of a block: 16 bytes, 8 values), then rows t < L out
     * in 16-byte pieces (the direct stores of y', 32 two-value stores and shuffles a thread, held ~40% of the
     * consumers' samples: bench/, the s36 record, call 3) */
    unsigned short *yb = (unsigned short *)vb;
    if constexpr (!SEGP) {
#pragma unroll
      for (int k = 0; k < CH / 16; k++) {
        unsigned pr[4]; /* matrix m: the token block 2 k + m / 2, value rows + 8 (m % 2) */
#pragma unroll
        for (int m = 0; m < 4; m++) pr[m] = bf2(d[8 * k + 2 * m], d[8 * k + 2 * m + 1]);
        const int m = lane >> 3;
        stsm4t(yb + core16(16 * k + 8 * (m >> 1) + (lane & 7), zv0 + 16 * w4 + 8 * (m & 1), 8 * VD, 64), pr);
      }
    }
    bar_wait(CB + w, NP); /* the warpgroup's y rows in place; its X' and y' are done with its state rows */
    if constexpr (!SEGP) {
      elem_t *yo = (elem_t *)a.out + (tok * a.h_v + it.h) * VD + zv0;
      const long long ys = (long long)opaque((unsigned)a.h_v * VD);
      const int x0 = (int)opaque(threadIdx.x - w * NP); /* (formed each chunk: the pieces' offsets, hoisted, had been
                                                         * spilled and reloaded, ~11% of the consumers' samples) */
#pragma unroll
      for (int j = 0; j < CH * 8 / NP; j++) { /* piece j of thread x: row 8 (x / 64) + x % 8, value block (x / 8) % 8 */
        const int x = x0 + j * NP, t = 8 * (x >> 6) + (x & 7), vb8 = (x >> 3) & 7;
        if (t < L) *(uint4 *)(yo + t * ys + 8 * vb8) = *(const uint4 *)(yb + core16(t, zv0 + 8 * vb8, 8 * VD, 64));
      }
    }
    if (next) bar_arrive(TB, NT); /* the chunk's tiles free */
    put_state(); /* for the next chunk */
  }
@ if DSPLIT then
  if (SEGP && it.vt > 0) { /* the transition's rows pr (+ 8): P(pr, k) at WS_P + (pr % DS_PR) KD + k of token pr / DS_PR */
    float *po = ws + (it.t0 * a.h_v + it.h) * WS_TOK + WS_P;
    const long long ts = (long long)a.h_v * WS_TOK;
#pragma unroll
    for (int i = 0; i < ZN / 8; i++)
#pragma unroll
      for (int o = 0; o < 4; o++) {
        const int r = pr + (o >> 1) * 8;
        po[(r / DS_PR) * ts + (r % DS_PR) * KD + 8 * i + 2 * q + (o & 1)] = z[4 * i + o];
      }
    return;
  }
@ end
  /* the segment's own state (SEGP), or the final state (in a split forward the last segment's) */
  float *zo = SEGP                                  ? ws_chunk(a, ws, seg, it.h)
              : !a.state_out[${m.state}]            ? nullptr
              : seg < 0 || seg_last(a, it) ? a.state_out[${m.state}] + slot * ${K * V}
                                                    : nullptr;
  if (zo) z_store<ZN>(zo, z, z_at);
#else
  (void)a;
  (void)ws;
#endif
}
@ end
extern "C" __global__ void __launch_bounds__(${F90_NT}, ${F90_MINB}) ${P.name}_fused90(ssmc_fwd_args a, float *ws) { ${HB and 'fused90b_body<false>(a, ws);' or HD and 'fused90d_body<false>(a, ws);' or 'fused90_body<false>(a, ws);'} }
@   if DSPLIT then
extern "C" __global__ void __launch_bounds__(${F90_NT}, ${F90_MINB}) ${P.name}_fused90_split(ssmc_fwd_args a, float *ws) { fused90d_body<false, true>(a, ws); }
extern "C" __global__ void __launch_bounds__(${F90_NT}, ${F90_MINB}) ${P.name}_fused90_seg(ssmc_fwd_args a, float *ws) { fused90d_body<true>(a, ws); }
@     if KEEP then
extern "C" __global__ void __launch_bounds__(${F90_NT}, ${F90_MINB}) ${P.name}_fused90_split_keep(ssmc_fwd_args a, float *ws) { fused90d_body<false, true, true>(a, ws); }
@     end
/* The split forward's scan with an erase (DSPLIT; grid ITEMS_ELEMS: block it.vt of a sequence and value head takes
 * SV value columns and all K rows, a float4 a thread): from the initial state, segment by segment, the segment's
 * start state Z_s into its slot (over its own state L_s, read first), then Z_{s+1}(k, v) = sum_i P_s(i, k) Z_s(i, v) +
 * L_s(k, v), P_s the segment's transition (K x K, rows i) from the per-token workspace of its first chunk, by cp.async
 * a segment ahead (two buffers: only Z is a chain). The last segment's pass (fused90_split) leaves the final state;
 * a sequence without tokens has it here. (H200 GDN B1 T32768 H16, a block a value tile of 64 and P loaded each step:
 * 146 us under ncu, bench/, the s38 record, call 3) */
extern "C" __global__ void __launch_bounds__(${DS_NT}) ${P.name}_fused90_scan(ssmc_fwd_args a, float *ws) {
  constexpr int NT = ${DS_NT}, SV = 4 * NT / KD, CG = SV / 4;
  static_assert(KD * SV == 4 * NT && VD % SV == 0, "a float4 of Z a thread");
  extern __shared__ float sm[];
  float *zs = sm, *pb = sm + KD * SV; /* Z (K, SV); P_s (K, K) in two buffers */
  const item_t it = item_of(a);
  const int v0 = it.vt * SV, k = (int)threadIdx.x / CG, c = 4 * ((int)threadIdx.x % CG);
  const long long slot = it.n * a.h_v + it.h, ts = (long long)a.h_v * WS_TOK;
  const float *z0 = a.state_in[${m.state}];
  float4 z = z0 ? *(const float4 *)(z0 + slot * ${K * V} + k * VD + v0 + c) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  const long long chunks = (it.T + CH - 1) / CH, per = seg_chunks(it.T, a.split), nseg = (chunks + per - 1) / per;
  auto fetch_p = [&](long long s) { /* P_s into buffer s % 2 (one commit group) */
    const float *pg = ws + ((it.t0 + s * per * CH) * a.h_v + it.h) * WS_TOK + WS_P;
    float *d = pb + (s & 1) * KD * KD;
    for (int e = 4 * (int)threadIdx.x; e < KD * KD; e += 4 * NT) {
      const int i = e / KD;
      cp_async16(d + e, pg + (i / DS_PR) * ts + (i % DS_PR) * KD + e % KD);
    }
    cp_async_commit();
  };
  if (nseg > 1) fetch_p(0);
  for (long long s = 0; s < nseg; s++) {
    float *zc = ws_chunk(a, ws, slot0_of(a, it.n) + s * per, it.h) + k * VD + v0 + c;
    float4 l = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (s + 1 < nseg) l = *(const float4 *)zc; /* L_s */
    *(float4 *)zc = z;
    if (s + 1 == nseg) break;
    if (s + 2 < nseg) fetch_p(s + 1);
    else cp_async_commit(); /* (an empty group: the wait below counts one) */
    *(float4 *)(zs + k * SV + c) = z;
    cp_async_wait<1>(); /* P_s */
    __syncthreads();
    const float *p = pb + (s & 1) * KD * KD + k;
#pragma unroll 8
    for (int i = 0; i < KD; i++) {
      const float pik = p[i * KD];
      const float4 zi = *(const float4 *)(zs + i * SV + c);
      l.x += pik * zi.x, l.y += pik * zi.y, l.z += pik * zi.z, l.w += pik * zi.w;
    }
    z = l;
    __syncthreads(); /* every thread past Z_s and P_s's buffer */
  }
  cp_async_wait<0>();
  float *zo = a.state_out[${m.state}];
  if (zo && !nseg) *(float4 *)(zo + slot * ${K * V} + k * VD + v0 + c) = z;
}
@   end
@   if KEEP and HB then
extern "C" __global__ void __launch_bounds__(${F90_NT}, 1) ${P.name}_fused90_keep(ssmc_fwd_args a, float *ws) { fused90b_body<true>(a, ws); }
@   elseif KEEP and HD then
extern "C" __global__ void __launch_bounds__(${F90_NT}, ${F90_MINB}) ${P.name}_fused90_keep(ssmc_fwd_args a, float *ws) { fused90d_body<false, false, true>(a, ws); }
@   elseif KEEP then
extern "C" __global__ void __launch_bounds__(256, 1) ${P.name}_fused90_keep(ssmc_fwd_args a, float *ws) { fused90_body<true>(a, ws); }
@   end
@ end

/* ---------------------------------------------------------------- decode stages: shared pieces */
@ -- the token's inputs into shared memory (prefix: the stage's layout, nt: its threads)
@ local function decode_inputs(prefix, nt)
  float *in[SSMC_MAX_IO];
@   for _, x in ipairs(P.inputs) do
@     local H = x.heads == 'qk' and 'a.h_qk' or 'a.h_v'
@     local hh = x.heads == 'qk' and 'hq' or 'h'
  in[${x.idx}] = sm + ${prefix}IN${x.idx};
  for (int d = threadIdx.x; d < ${x.D}; d += ${nt})
@     if x.gate then
    in[${x.idx}][d] = ((const float *)a.in[${x.idx}])[(n * ${H} + ${hh}) * ${x.D} + d];
@     else
    in[${x.idx}][d] = ld1((const elem_t *)a.in[${x.idx}] + (n * ${H} + ${hh}) * ${x.D} + d);
@     end
@   end
@ end
@ -- the readout's query q~ (reading x at prefix X) and the main state's per-key decay
@ local function decode_qt(prefix, nt)
  float *qt = sm + ${prefix}QT, *dk = sm + ${prefix}DK;
  for (int k = threadIdx.x; k < KD; k += ${nt}) {
    float s = 0.0f;
@   for _, q in ipairs(P.q) do
@     local src = q.src == 'X' and ('sm[' .. prefix .. 'X + k]') or ('in[' .. q.src .. '][k]')
    s += (${q.coef}) * ${src};
@   end
    qt[k] = s;
@   if m.decay == 'diag' then
    dk[k] = expf(in[${m.diag_in}][k]);
@   elseif m.logdecay then
    dk[k] = expf(${m.logdecay});
@   else
    dk[k] = 1.0f;
@   end
  }
@ end

@ if not sv then
/* ---------------------------------------------------------------- stages decode, decode_large */
@ -- q~ and the main state's decay at key row k (a C expression of k; in[] staged, t_ = 0)
@ local function row_q()
@   local t = {}
@   for _, q in ipairs(P.q) do t[#t + 1] = '(' .. q.coef .. ') * in[' .. q.src .. '][k]' end
@   return #t > 0 and table.concat(t, ' + ') or '0.0f'
@ end
@ local function row_decay()
@   if m.decay == 'diag' then return 'expf(in[' .. m.diag_in .. '][k])'
@   elseif m.logdecay then return 'expf(' .. m.logdecay .. ')'
@   else return '1.0f' end
@ end
@ local function plain_decode(stage, c, tiles)
@   local pre, NP = c.pre, c.parts or 1
extern "C" __global__ void __launch_bounds__(${c.nt}, ${c.minb}) ${P.name}_${stage}(ssmc_decode_args a, float *ws) {
  extern __shared__ float sm[];
  constexpr int CG = ${c.cg}, NRP = ${c.nrp}, R = ${c.r}, NS = ${c.ns}, NA = ${c.na};
@   if tiles then
  /* the value tiles of one item are neighbouring blocks */
  long long item;
  const int tile = near_tile<long long, ${V // c.dbv}>(item);
@   else
  const long long item = blockIdx.x;
  const int tile = 0;
@   end
  const long long n = item / a.h_v;
  const int h = (int)(item - n * a.h_v), hq = h / (a.h_v / a.h_qk);
  (void)ws;
  const int cg = (int)threadIdx.x % CG, rp = (int)threadIdx.x / CG;
  float *zi = a.state[${m.state}] + ((a.slots ? a.slots[n] : n) * a.h_v + h) * ${K * V};
@   local zin = 'z[i]'
@   if c.smem then
@     zin = '(*(const float4 *)(st + k * VD + j0))'
  /* the item's state into shared memory (16-byte cp.async, evict-first in the L2), read from there
   * twice: for the sums, then for the update${NP > 1 and string.format('; in %d parts of %d columns, one copy group each, a part\n   * summed and written while the next arrives', NP, c.dbv) or ''} */
  float *st = sm + ${pre}ST;
  {
    const unsigned long long pol = evict_first();
@     for p = 0, NP - 1 do
    for (int q = threadIdx.x; q < ${K * c.dbv // 4}; q += ${c.nt}) {
      const int o = (q / CG) * VD + ${p * c.dbv} + 4 * (q % CG);
      cp_async16_hint(st + o, zi + o, pol);
    }
    cp_async_commit();
@     end
  }
@     decode_inputs(pre, c.nt)
@   else
  /* this thread's R rows x 4 columns of the state, all loads issued before anything waits */
  float4 z[R];
#pragma unroll
  for (int i = 0; i < R; i++) z[i] = ld_state4(zi + tile * ${c.dbv} + 4 * cg + (rp + i * NRP) * VD);
@     decode_inputs(pre, c.nt)
  __syncthreads();
@   end
  const int t_ = 0;
  (void)t_;
  const float *kv = in[${m.key}], *vv = in[${m.val}];
  float4 *ps4 = (float4 *)(sm + ${pre}PS);
  float *ps1 = sm + ${pre}PS + ${c.ng * c.ns * c.cg * 4};
  (void)ps1;
@   for p = 0, NP - 1 do
  {
    const int j0 = tile * ${c.dbv} + ${p * c.dbv} + 4 * cg;
    float *zg = zi + j0;
@     if c.smem then
@       if p > 0 then
    __syncthreads(); /* the partials of the part before are read */
@       end
    cp_async_wait<${NP - 1 - p}>();
    __syncthreads(); /* and the staged inputs: nothing reads them before */
@     end
    const float w = ${m.write};
    float acc[NA];
#pragma unroll
    for (int q = 0; q < NA; q++) acc[q] = 0.0f;
@     if m.delta then
    /* one read: S k and S q of the decayed state (acc 0-3, 4-7) and k . q (acc 8), then
     * u = w v - e S k, y = S q + u (k . q), and the write of diag(d) S + k u' */
    const float e = ${m.erase};
    float dd[R];
#pragma unroll
    for (int i = 0; i < R; i++) {
      const int k = rp + i * NRP;
      const float d = ${row_decay()}, qk = ${row_q()}, kk = kv[k], dkk = d * kk, dqk = d * qk;
      const float4 zv = ${zin};
      dd[i] = d;
      acc[0] += dkk * zv.x; acc[1] += dkk * zv.y; acc[2] += dkk * zv.z; acc[3] += dkk * zv.w;
      acc[4] += dqk * zv.x; acc[5] += dqk * zv.y; acc[6] += dqk * zv.z; acc[7] += dqk * zv.w;
      acc[8] += kk * qk;
    }
@     else
    /* one pass: update each row and read it: z' = diag(d) z + k (w v)', y = q~' z' */
    const float4 wv = make_float4(w * vv[j0], w * vv[j0 + 1], w * vv[j0 + 2], w * vv[j0 + 3]);
#pragma unroll
    for (int i = 0; i < R; i++) {
      const int k = rp + i * NRP;
      const float d = ${row_decay()}, qk = ${row_q()}, kk = kv[k];
      float4 zn;
      zn.x = d * z[i].x + kk * wv.x; zn.y = d * z[i].y + kk * wv.y; zn.z = d * z[i].z + kk * wv.z; zn.w = d * z[i].w + kk * wv.w;
      st_state4(zg + k * VD, zn);
      acc[0] += qk * zn.x; acc[1] += qk * zn.y; acc[2] += qk * zn.z; acc[3] += qk * zn.w;
    }
@     end
    /* the sums over the row parts: ${c.shfl and c.rpw > 1 and 'the lanes of a column group in a warp, then ' or ''}NS partials a column in shared memory,
     * as float4 groups (one 16-byte read a group and partial) */
@     if c.shfl and c.rpw > 1 then
#pragma unroll
    for (int o = CG; o < 32; o <<= 1)
#pragma unroll
      for (int q = 0; q < NA; q++) acc[q] += __shfl_xor_sync(0xffffffffu, acc[q], o);
    if (rp % ${c.rpw} == 0) {
      const int s = rp / ${c.rpw};
@     else
    {
      const int s = rp;
@     end
#pragma unroll
      for (int g = 0; g < ${c.ng}; g++) ps4[(g * NS + s) * CG + cg] = make_float4(acc[4 * g], acc[4 * g + 1], acc[4 * g + 2], acc[4 * g + 3]);
@     if m.delta then
      if (cg == 0) ps1[s] = acc[8];
@     end
    }
    __syncthreads();
#pragma unroll
    for (int q = 0; q < NA; q++) acc[q] = 0.0f;
#pragma unroll
    for (int p = 0; p < NS; p++) {
#pragma unroll
      for (int g = 0; g < ${c.ng}; g++) {
        const float4 v = ps4[(g * NS + p) * CG + cg];
        acc[4 * g] += v.x; acc[4 * g + 1] += v.y; acc[4 * g + 2] += v.z; acc[4 * g + 3] += v.w;
      }
@     if m.delta then
      acc[8] += ps1[p];
@     end
    }
    elem_t *o = (elem_t *)a.out + item * VD + j0;
@     if m.delta then
    const float4 u = make_float4(w * vv[j0] - e * acc[0], w * vv[j0 + 1] - e * acc[1], w * vv[j0 + 2] - e * acc[2],
                                 w * vv[j0 + 3] - e * acc[3]);
    if (rp == 0) st4(o, make_float4(acc[4] + u.x * acc[8], acc[5] + u.y * acc[8], acc[6] + u.z * acc[8], acc[7] + u.w * acc[8]));
#pragma unroll
    for (int i = 0; i < R; i++) {
      const int k = rp + i * NRP;
      const float d = dd[i], kk = kv[k];
      const float4 zv = ${zin};
      st_state4(zg + k * VD, make_float4(d * zv.x + kk * u.x, d * zv.y + kk * u.y, d * zv.z + kk * u.z, d * zv.w + kk * u.w));
    }
@     else
    if (rp == 0) st4(o, make_float4(acc[0], acc[1], acc[2], acc[3]));
@     end
  }
@   end
}
@ end
@ plain_decode('decode', DSM, true)
@ plain_decode('decode_large', DLP, DLP.tiles)
@ end

@ if sv then
/* ---------------------------------------------------------------- decode stages of a solve */
#define NPK ${NPK}
@ -- one decode stage of configuration cf (solve_cfg) named ${P.name}_<stage>
@ local function solve_decode(stage, cf)
@   local LRB, LNCB = cf.rb, cf.ncb
/* ---------------------------------------------------------------- stage ${stage} */
#define LNT ${cf.nt}
#define LRB ${cf.rb}
#define LNCB ${cf.ncb}
#define LCB ${cf.cb}
@   layout_enum(cf.pre, cf.lay, cf.off)
@   -- the reduction of LRB row sums over the LNCB threads of a row block: each step halves the sums a
@   -- thread keeps (the upper half where the lane bit is set) until one is left; later steps add
@   -- (their lanes then hold the same rows). NF rows a thread at the end, rows ro + f.
@   local steps, NF, offs, dup = {}, LRB, {}, 0
@   do
@     local o = LNCB // 2
@     while o >= 1 do
@       if NF > 1 then
@         steps[#steps + 1] = {o, NF // 2}
@         offs[#offs + 1] = string.format('(lane & %d ? %d : 0)', o, NF // 2)
@         NF = NF // 2
@       else
@         steps[#steps + 1] = {o, 0}
@         dup = dup + o
@       end
@       o = o // 2
@     end
@   end
@   -- one Chebyshev iteration: x from src, the new x to dst (shared memory, double-buffered)
@   local function cheb_iter(src, dst)
        {
          om = __fdividef(4.0f, 4.0f - rho2 * om);
          const float cs = stp * om, mo = om - 1.0f;
          float acc[LRB];
#pragma unroll
          for (int t = 0; t < LRB; t++) acc[t] = 0.0f;
#pragma unroll
          for (int s = 0; s < LCB / 4; s++) {
            const float4 xv = *(const float4 *)(${src} + 4 * (cb + LNCB * s));
#pragma unroll
            for (int t = 0; t < LRB; t++) {
              acc[t] = fmaf(hr[t][4 * s], xv.x, acc[t]);
              acc[t] = fmaf(hr[t][4 * s + 1], xv.y, acc[t]);
              acc[t] = fmaf(hr[t][4 * s + 2], xv.z, acc[t]);
              acc[t] = fmaf(hr[t][4 * s + 3], xv.w, acc[t]);
            }
          }
@     for _, st in ipairs(steps) do
@       if st[2] > 0 then
          { /* keep ${st[2]} of the sums, add the partner's over lane bit ${st[1]} */
            const bool hi = (lane & ${st[1]}) != 0;
@         for t = 0, st[2] - 1 do
            acc[${t}] = (hi ? acc[${t + st[2]}] : acc[${t}]) + __shfl_xor_sync(0xffffffffu, hi ? acc[${t}] : acc[${t + st[2]}], ${st[1]});
@         end
          }
@       else
          acc[0] += __shfl_xor_sync(0xffffffffu, acc[0], ${st[1]});
@       end
@     end
#pragma unroll
          for (int f = 0; f < ${NF}; f++) {
            const float x1 = xo[f] - cs * (acc[f] + l * xo[f] - bo[f]) + mo * (xo[f] - xpo[f]);
            xpo[f] = xo[f];
            xo[f] = x1;
            if (wr) ${dst}[ro + f] = x1;
          }
          __syncthreads();
        }
@   end
extern "C" __global__ void __launch_bounds__(LNT, ${cf.minb}) ${P.name}_${stage}(ssmc_decode_args a, float *ws) {
  extern __shared__ float sm[];
  const long long n = blockIdx.x / a.h_v;
  const int h = (int)(blockIdx.x % a.h_v), hq = h / (a.h_v / a.h_qk);
  const long long slot = (a.slots ? a.slots[n] : n) * a.h_v + h;
  const int iters = a.iters > 0 ? a.iters : ${sv.iters};
  const int tid = (int)threadIdx.x, lane = tid & 31, cb = tid % LNCB, i0 = tid / LNCB * LRB;
  float *hg = a.state[${sv.state}] + slot * NPK;
  float *zg = a.state[${m.state}] + slot * ${K * V};
  float *hp = ${cf.hglob and 'hg' or ('sm + ' .. cf.pre .. 'HP')}, *su = ${cf.uglob and 'zg' or ('sm + ' .. cf.pre .. 'U')};
@   if cf.hglob then
  /* packed H and U read and written in place in global memory (they do not fit shared memory) */
@   elseif cf.uglob then
  /* packed H copied to shared memory as it is; U read and updated in place in global memory */
  for (int q = tid; q < NPK / 4; q += LNT) cp_async16(hp + 4 * q, hg + 4 * q);
  cp_async_commit();
@   elseif cf.share then
  /* packed H copied to shared memory as it is (U follows into the same place once H is done) */
  for (int q = tid; q < NPK / 4; q += LNT) cp_async16(hp + 4 * q, hg + 4 * q);
  cp_async_commit();
@   else
  /* packed H, then U (in flight while the solve runs), copied to shared memory as they are */
  for (int q = tid; q < NPK / 4; q += LNT) cp_async16(hp + 4 * q, hg + 4 * q);
  cp_async_commit();
  for (int q = tid; q < ${K * V // 4}; q += LNT) cp_async16(su + 4 * q, zg + 4 * q);
  cp_async_commit();
@   end
  float *in[SSMC_MAX_IO];
@   for _, x in ipairs(P.inputs) do
@     local H = x.heads == 'qk' and 'a.h_qk' or 'a.h_v'
@     local hh = x.heads == 'qk' and 'hq' or 'h'
  in[${x.idx}] = sm + ${cf.pre}IN${x.idx};
  for (int d = tid; d < ${x.D}; d += LNT)
@     if x.gate then
    in[${x.idx}][d] = ((const float *)a.in[${x.idx}])[(n * ${H} + ${hh}) * ${x.D} + d];
@     else
    in[${x.idx}][d] = ld1((const elem_t *)a.in[${x.idx}] + (n * ${H} + ${hh}) * ${x.D} + d);
@     end
@   end
  cp_async_wait<${(cf.share or cf.uglob) and 0 or 1}>(); /* H is here */
  __syncthreads();
  const int t_ = 0;
  (void)t_;
  /* this thread's block of the full H: rows i0 + t, columns 4 (cb + LNCB s) + e; element (i, c)
   * at ra[t] + 4 LNCB s + e when i >= c, else at its mirror (c, i), rb[4 s + e] + t */
  const int dg = i0 - 4 * cb; /* i >= c  <=>  dg + t >= 4 LNCB s + e */
  float hr[LRB][LCB];
  {
    int ra[LRB], rb[LCB];
#pragma unroll
    for (int t = 0; t < LRB; t++) ra[t] = (i0 + t) * (i0 + t + 1) / 2 + 4 * cb;
#pragma unroll
    for (int j = 0; j < LCB; j++) {
      const int c = 4 * (cb + LNCB * (j / 4)) + j % 4;
      rb[j] = c * (c + 1) / 2 + i0;
    }
#pragma unroll
    for (int t = 0; t < LRB; t++)
#pragma unroll
      for (int s = 0; s < LCB / 4; s++)
#pragma unroll
        for (int e = 0; e < 4; e++)
          hr[t][4 * s + e] = hp[dg + t >= 4 * LNCB * s + e ? ra[t] + 4 * LNCB * s + e : rb[4 * s + e] + t];
  }
  {
    const float *kv = in[${sv.key}], *bq = in[${sv.rhs}];
@   if sv.logdecay then
    const float dh = expf(${sv.logdecay});
@   else
    const float dh = 1.0f;
@   end
    const float w = ${sv.write};
    /* H = decay H + write k k' in registers; an element and its mirror get the same bits
     * (k_i k_c == k_c k_i); ||H||_F^2 over the full matrix, each element once */
    float s2 = 0.0f;
    {
      float ki[LRB], kc[LCB];
#pragma unroll
      for (int t = 0; t < LRB; t++) ki[t] = kv[i0 + t];
#pragma unroll
      for (int s = 0; s < LCB / 4; s++) {
        const float4 k4 = *(const float4 *)(kv + 4 * (cb + LNCB * s));
        kc[4 * s] = k4.x; kc[4 * s + 1] = k4.y; kc[4 * s + 2] = k4.z; kc[4 * s + 3] = k4.w;
      }
#pragma unroll
      for (int t = 0; t < LRB; t++)
#pragma unroll
        for (int j = 0; j < LCB; j++) {
          const float v = fmaf(dh, hr[t][j], w * (ki[t] * kc[j]));
          hr[t][j] = v;
          s2 = fmaf(v, v, s2);
        }
    }
    /* every read of the staged H is done (block_sum's barriers): the lower-triangle owners write
     * the new H there, then it goes back to global memory in 16-byte pieces (not waited for) */
    const float nr = sqrtf(block_sum(s2, sm + ${cf.pre}RED, LNT)), l = ${f32(sv.lam_a)} * nr + ${f32(sv.lam_b)};
    {
      const int ra0 = i0 * (i0 + 1) / 2 + 4 * cb;
#pragma unroll
      for (int t = 0; t < LRB; t++)
#pragma unroll
        for (int s = 0; s < LCB / 4; s++)
#pragma unroll
          for (int e = 0; e < 4; e++)
            if (dg + t >= 4 * LNCB * s + e) hp[ra0 + t * i0 + t * (t + 1) / 2 + 4 * LNCB * s + e] = hr[t][4 * s + e];
    }
    __syncthreads();
@   if not cf.hglob then
    for (int q = tid; q < NPK / 4; q += LNT) *(float4 *)(hg + 4 * q) = *(const float4 *)(hp + 4 * q);
@   end
@   if cf.share and not cf.uglob then
    __syncthreads(); /* H is out of shared memory: U comes in there while the solve runs */
    for (int q = tid; q < ${K * V // 4}; q += LNT) cp_async16(su + 4 * q, zg + 4 * q);
    cp_async_commit();
@   end
    const float up = nr + l, sum = up + l;
    float *xs = sm + ${cf.pre}XS; /* x of the iteration, double-buffered: one barrier an iteration */
    const int ro = i0${#offs > 0 and (' + ' .. join(offs, ' + ')) or ''}; /* the rows this thread updates: ro .. ro + ${NF - 1} */
    const bool wr = ${dup > 0 and ('(lane & ' .. dup .. ') == 0') or 'true'}; /* one writer where lanes share rows */
    (void)lane;
    float xo[${NF}], xpo[${NF}], bo[${NF}];
    if (sum > 0.0f) {
      const float stp = 2.0f / sum, rho2 = (up - l) / sum * ((up - l) / sum);
#pragma unroll
      for (int f = 0; f < ${NF}; f++) {
        bo[f] = bq[ro + f];
        xo[f] = stp * bo[f];
        xpo[f] = 0.0f;
        if (wr) xs[ro + f] = xo[f];
      }
      __syncthreads();
      float om = 2.0f;
      for (int r = 0; r < iters; r += 2) { /* two iterations a trip: the buffers' addresses are constants */
@   cheb_iter('xs', '(xs + KD)')
        if (r + 1 == iters) break;
@   cheb_iter('(xs + KD)', 'xs')
      }
    } else {
#pragma unroll
      for (int f = 0; f < ${NF}; f++) xo[f] = bq[ro + f];
    }
    if (wr)
#pragma unroll
      for (int f = 0; f < ${NF}; f++) sm[${cf.pre}X + ro + f] = xo[f];
    __syncthreads();
    if (a.aux_out[0])
      for (int k = tid; k < KD; k += LNT) ((float *)a.aux_out[0])[(n * a.h_v + h) * KD + k] = sm[${cf.pre}X + k];
  }
@   decode_qt(cf.pre, 'LNT')
  cp_async_wait<0>(); /* U is here */
  __syncthreads();
  const float *kv = in[${m.key}], *vv = in[${m.val}];
  const float w = ${m.write};
  elem_t *o = (elem_t *)a.out + (n * a.h_v + h) * VD;
@   local LP, LW = math.max(1, cf.nt // V), math.min(V, cf.nt)
@   local KR = K // LP
  /* U from shared memory: ${LP} part(s) of ${KR} rows a column, ${LW} columns at a time; the per-row
   * factors read 4 rows at a time */
  const int part = tid / ${LW}, k0 = part * ${KR};
@   if m.delta then
  const float e = ${m.erase};
  float kq = 0.0f; /* k . q, each warp on its own (lanes take strided elements) */
  for (int k = lane; k < KD; k += 32) kq += kv[k] * qt[k];
  for (int o = 16; o; o >>= 1) kq += __shfl_xor_sync(0xffffffffu, kq, o);
@   end
#pragma unroll 1
  for (int j = tid - part * ${LW}; j < VD; j += ${LW}) {
    const float *uc = su + k0 * VD + j;
    float *zc = zg + k0 * VD + j;
@   if m.delta then
    /* S k and S q in one pass, then u = w v - e S k, y = S q + u (k . q), one write */
    float sk = 0.0f, sq = 0.0f;
#pragma unroll 4
    for (int k = 0; k < ${KR}; k++) {
      sk += dk[k0 + k] * kv[k0 + k] * uc[k * VD];
      sq += dk[k0 + k] * qt[k0 + k] * uc[k * VD];
    }
@     if LP > 1 then
    float *ps = sm + ${cf.pre}PS;
    ps[part * VD + j] = sk;
    ps[(${LP} + part) * VD + j] = sq;
    __syncthreads();
    sk = 0.0f;
    sq = 0.0f;
    for (int p = 0; p < ${LP}; p++) { sk += ps[p * VD + j]; sq += ps[(${LP} + p) * VD + j]; }
@     end
    const float uj = w * vv[j] - e * sk;
    if (part == 0) st1(o + j, sq + uj * kq);
#pragma unroll 4
    for (int k = 0; k < ${KR}; k++) zc[k * VD] = dk[k0 + k] * uc[k * VD] + kv[k0 + k] * uj;
@   else
    /* one pass: update each key row of the column and read it */
    float y = 0.0f;
    const float wv = w * vv[j];
#pragma unroll 2
    for (int k = 0; k < ${KR}; k += 4) {
      const float4 d4 = *(const float4 *)(dk + k0 + k), k4 = *(const float4 *)(kv + k0 + k),
                   q4 = *(const float4 *)(qt + k0 + k);
      const float z0 = d4.x * uc[k * VD] + k4.x * wv, z1 = d4.y * uc[(k + 1) * VD] + k4.y * wv;
      const float z2 = d4.z * uc[(k + 2) * VD] + k4.z * wv, z3 = d4.w * uc[(k + 3) * VD] + k4.w * wv;
      zc[k * VD] = z0; zc[(k + 1) * VD] = z1; zc[(k + 2) * VD] = z2; zc[(k + 3) * VD] = z3;
      y += q4.x * z0 + q4.y * z1 + q4.z * z2 + q4.w * z3;
    }
@     if LP > 1 then
    float *ps = sm + ${cf.pre}PS;
    ps[part * VD + j] = y;
    __syncthreads();
    if (part == 0) {
      for (int p = 1; p < ${LP}; p++) y += ps[p * VD + j];
      st1(o + j, y);
    }
@     else
    st1(o + j, y);
@     end
@   end
  }
}
#undef LNT
#undef LRB
#undef LNCB
#undef LCB
@ end
@ solve_decode('decode', DS)
@ if DLG then solve_decode('decode_large', DLG) end
@ end

@ local stages = {}
@ if sv then
@   stages[#stages + 1] = string.format('hdelta grid=chunks threads=%d smem=%d', SNT, XOFF * 4)
@   if PS90 then stages[#stages + 1] = string.format('hdelta90 grid=chunks threads=128 smem=%d when=sm90', 3 * C * K * 2 + 2 * C * 4) end
@   stages[#stages + 1] = string.format('hscan grid=items_elems threads=%d smem=0', NT.scan)
@   stages[#stages + 1] = string.format('psolve grid=chunks threads=%d smem=%d', SNT, XOFF * 4)
@   if PS90 then stages[#stages + 1] = string.format('psolve90 grid=chunks threads=128 smem=%d when=sm90', PSOFF * 4) end
@ end
@ stages[#stages + 1] = string.format('prep grid=chunks threads=%d smem=%d%s%s', NT.prep, PL.off * 4, (KEEP and not KDU_B) and ' keep' or '', (m.delta and (FUSED or HF)) and ((KEEP and HD) and ' fused_keep' or ' fused') or '')
@ if m.delta then
@   stages[#stages + 1] = string.format('state grid=items_vtiles threads=%d smem=%d%s', NT.state, SL.off * 4, SNL and ' when=wide' or '')
@   if SNL then
@     stages[#stages + 1] = string.format('state_n grid=items_ntiles threads=%d smem=%d when=narrow nbv=%d below_pct=%d', NNT, SNL.off * 4, NBV, NARROW_PCT)
@   end
@ else
@   stages[#stages + 1] = string.format('scan grid=items_elems threads=%d smem=0', NT.scan)
@ end
@ stages[#stages + 1] = string.format('out grid=chunks threads=%d smem=%d', NT.out, OL.off * 4)
// ssmc-bodies prep threads=${NT.prep} smem=${PL.off * 4} state threads=${NT.state} smem=${SL.off * 4}${SNL and string.format(' state_n threads=%d smem=%d nbv=%d', NNT, SNL.off * 4, NBV) or ''}${KEEP and ' keep' or ''}
// ssmc-launch bv=${BV} dbv=${DBV} chunk=${C} ws_tok=${WS_TOK} ws_chunk=${WS_CHUNK} ${join(stages, '; ')}; decode grid=${sv and 'items' or 'items_dtiles'} threads=${sv and DS.nt or DSM.nt} smem=${sv and DS.off * 4 or DSM.off * 4}; ${DLG and string.format('decode_large grid=items threads=%d smem=%d from_pct=%d', DLG.nt, DLG.off * 4, LARGE_FROM_PCT) or string.format('decode_large grid=%s threads=%d smem=%d from_pct=%d', DLP.tiles and 'items_dtiles' or 'items', DLP.nt, DLP.off * 4, PLAIN_LARGE_PCT)}; ${FUSED and string.format('%s grid=items_ftiles threads=%d smem=%d fbv=%d pre=%d from_pct=%d post=%d%s', SEQ and 'seq' or 'fused', NT.fused, FL.off * 4, FBV, FUSED_PRE, FUSED_FROM_PCT, SEQ and 1 or 0, KEEP and ' keep' or '') or sv and string.format('solve grid=items_ftiles threads=%d smem=%d fbv=%d pre=0 from_pct=%d post=%d', SNT, XOFF * 4, V, PS90 and 0 or SOLVE_SEQ_PCT, (m.delta and SNL) and 4 or 3) or 'fused none'}; ${HF and string.format('fused90 grid=items_ftiles threads=%d smem=%d fbv=%d pre=%d from_pct=%d post=0%s%s', F90_NT, (HB or HD or HL).off * 4, V, FUSED_PRE, HF_FROM_PCT, KEEP and ' keep' or '', SG and string.format(' split=%d seg_threads=256 seg_smem=%d', 100 * F90_MINB, SG.off * 4) or DSPLIT and string.format(' split=%d seg_threads=%d seg_smem=%d seg_grid=items_stiles scan_grid=items_elems scan_threads=%d scan_smem=%d split_form%s', 100 * F90_MINB, F90_NT, HD.off * 4, DS_NT, (2 * K * K + 4 * DS_NT) * 4, KEEP and '_keep' or '') or '') or 'fused90 none'}
