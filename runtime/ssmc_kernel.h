/* runtime stage: the C ABI of every ssmc kernel (CPU now, CUDA later).
 *
 * Generated kernels include this header and nothing else; it is also mapped
 * into the in-process compiler, so it must only need <stdint.h> (provided by
 * the compiler itself under -ffreestanding).
 *
 * Layouts (per head, following flash-linear-attention):
 *   inputs   (T_total, H_in, D)  tokens of all sequences packed; D = K, V or 1
 *            H_in = h_qk for [K]-vectors of the "normal"/"unit_sphere" domains,
 *            h_v for [V]-vectors and for gates (scalar or [K] log-decays, unit)
 *   output   (T_total, h_v, V)
 *   states   (N, h_v, S) fp32, S = state_size[i]:
 *            a [V,K] state is stored transposed, (K, V) row-major (= fla's [N,H,K,V]);
 *            a symmetric [K,K] state is its packed lower triangle, row-major,
 *            element (i, j) with i >= j at i*(i+1)/2 + j, K*(K+1)/2 floats.
 *   vector inputs and the output have the kernel's dtype; gates are fp32.
 * Value head h reads q/k head h / (h_v / h_qk) (grouped value heads). */
#ifndef SSMC_KERNEL_H
#define SSMC_KERNEL_H
#ifdef __CUDACC_RTC__ /* NVRTC has no <stdint.h> */
typedef signed char int8_t; typedef unsigned char uint8_t; typedef short int16_t; typedef unsigned short uint16_t;
typedef int int32_t; typedef unsigned int uint32_t; typedef long long int64_t; typedef unsigned long long uint64_t;
#else
#include <stdint.h>
#endif

#define SSMC_ABI_VERSION 1
#define SSMC_MAX_IO 8

typedef enum { SSMC_F32 = 0, SSMC_BF16 = 1 } ssmc_dtype;

/* Chunkwise forward over a batch of sequences. A work item is one
 * (sequence, value head) pair: item = n * h_v + h. */
typedef struct ssmc_fwd_args {
  int32_t n_seqs;                    /* N */
  int32_t h_qk, h_v;                 /* head counts; h_v % h_qk == 0 */
  const int64_t *cu_seqlens;         /* (N+1) token offsets, or NULL: N x t_len */
  int64_t t_len;                     /* tokens per sequence when cu_seqlens == NULL */
  const void *in[SSMC_MAX_IO];       /* spec inputs in declaration order */
  void *out;                         /* (T_total, h_v, V) */
  void *aux_out[SSMC_MAX_IO];        /* readout intermediates (e.g. x), (T_total, h_v, K) fp32; may be NULL */
  const float *state_in[SSMC_MAX_IO];/* per state: (N, h_v, S) or NULL (zero state) */
  float *state_out[SSMC_MAX_IO];     /* per state: (N, h_v, S) or NULL; may alias state_in */
  int32_t iters;                     /* solver iterations; <= 0: the spec's default */
  int32_t v_parts;                   /* CPU: > 1 splits each item's value columns into v_parts equal ranges
                                        (a multiple of bv each): item = (n * h_v + h) * v_parts + part.
                                        0 or 1: no split. Kernels with a solve ignore it (n_aux > 0). */
  int32_t rec_below;                 /* CPU: sequences shorter than this run token by token (the recurrent
                                        form); 0: the kernel's cost-model default (manifest); < 0: never */
  int64_t t_total;                   /* CUDA: tokens of all sequences (with cu_seqlens the host cannot read
                                        the device's offsets); 0: n_seqs * t_len. The CPU ignores it. */
  int32_t split;                     /* CUDA, appended, set by the launcher: > 1 in a split forward's stages
                                        (ssmc_cuda_split: each sequence as `split` segments); 0 elsewhere.
                                        The CPU ignores it. */
} ssmc_fwd_args;

/* One token per sequence; states live in slots and are updated in place.
 * A work item is one (sequence, value head) pair. */
typedef struct ssmc_decode_args {
  int32_t n_seqs;                    /* N */
  int32_t h_qk, h_v;
  const void *in[SSMC_MAX_IO];       /* (N, H_in, D) */
  void *out;                         /* (N, h_v, V) */
  void *aux_out[SSMC_MAX_IO];        /* (N, h_v, K) fp32; may be NULL */
  float *state[SSMC_MAX_IO];         /* per state: (n_slots, h_v, S) */
  const int32_t *slots;              /* (N) state slot of each sequence, or NULL: slot n */
  int32_t iters;
} ssmc_decode_args;

/* ws: per-thread workspace of ws_floats floats (64-byte aligned). */
typedef void (*ssmc_fwd_fn)(const ssmc_fwd_args *a, int64_t item_begin, int64_t item_end, float *ws);
typedef void (*ssmc_decode_fn)(const ssmc_decode_args *a, int64_t item_begin, int64_t item_end, float *ws);

/* CUDA. The same argument structs, passed by value to every stage, with
 * device pointers. A kernel's CUDA module (one source text, compiled by NVRTC)
 * has up to SSMC_MAX_STAGES forward stages, run in order on one stream, and
 * one decode stage. Each stage's grid is one of the kinds below; its block is
 * `threads` threads with `smem` bytes of dynamic shared memory. */
/* up to 9 with a solve: hdelta, hdelta90, hscan, psolve, psolve90, prep, then scan or (an erase) state and state_n, out
 * (hdelta90 and psolve90: the sm_90a forms; was 6, then 8, which a solve beside an erase overran) */
#define SSMC_MAX_STAGES 10
enum {
  SSMC_GRID_ITEMS = 0,        /* (N * h_v) blocks: one per (sequence, value head) */
  SSMC_GRID_ITEMS_VTILES = 1, /* (N * h_v, V / bv) blocks: and one per value tile */
  SSMC_GRID_ITEMS_DTILES = 2, /* (N * h_v, V / decode_bv) blocks: one per decode value tile */
  SSMC_GRID_CHUNKS = 3,       /* (chunk slots, h_v) blocks: one per (chunk, value head); see ssmc_chunk_slots */
  SSMC_GRID_CHUNKS_VTILES = 4, /* (chunk slots, h_v, V / bv) blocks: and one per value tile */
  SSMC_GRID_CHUNKS_KTILES = 5, /* (chunk slots, h_v, K / bk) blocks: and one per key tile (backward) */
  SSMC_GRID_ITEMS_BVTILES = 6, /* (N * h_v, V / bwd_bv) blocks: one per backward value tile */
  SSMC_GRID_ITEMS_ELEMS = 7,   /* (N * h_v, ceil(K * V / (4 * threads))) blocks: four elements of the
                                  (K, V) main state a thread */
  SSMC_GRID_ITEMS_FTILES = 8,  /* (N * h_v, V / fused_bv) blocks: one per value tile of the fused pass */
  SSMC_GRID_ITEMS_NTILES = 9,  /* (N * h_v, V / narrow_bv) blocks: one per value tile of a narrow stage */
  SSMC_GRID_ITEMS_STILES = 10  /* (N * h_v, 1 + K / fused_bv) blocks (appended): a split forward's segment pass with
                                  an erase, the value rows' block, then one per fused_bv rows of the segment's K x K
                                  transition */
};
/* A stage's `when`: always, or one of a chunk-to-chunk stage's two forms, of which a call runs one (the
 * wide, value tile bv / bwd_bv; the narrow, narrow_bv columns a block, for few work items: ssmc_cuda_narrow). */
/* SSMC_STAGE_SM90 (appended): the sm_90a form of the fwd[] or bwd[] stage before it (same grid), which it replaces on
 * devices of compute capability 9 and is dropped elsewhere (ssmc_cuda_for_device); its body is empty on other targets */
/* SSMC_STAGE_GROUPED (appended): a stage with work only where value heads share q/k heads (h_v > h_qk: the
 * backward's breduce), not launched elsewhere (ssmc_cuda_stage_runs_for) */
enum { SSMC_STAGE_ALWAYS = 0, SSMC_STAGE_WIDE = 1, SSMC_STAGE_NARROW = 2, SSMC_STAGE_SM90 = 3, SSMC_STAGE_GROUPED = 4 };
/* up to 22 with a solve readout: bhdelta, bhdelta90, bhscan, xsolve, xsolve90, fprep, fstate, fstate_n, bprep, bstate,
 * bstate_n, bval, bgrad, brows, gcheb, gcheb90, gsolve, gsolve90, hadj, sgrad, sgrad90, breduce (was 16) */
#define SSMC_MAX_BWD_STAGES 24
typedef struct ssmc_cuda_stage {
  const char *entry;          /* extern "C" __global__ function name */
  int32_t grid, threads, smem;
  int32_t when;               /* appended: SSMC_STAGE_* */
} ssmc_cuda_stage;
typedef struct ssmc_cuda_kernel {
  const char *source;         /* CUDA C++ text of the module (includes "ssmc_kernel.h") */
  int32_t n_fwd;
  ssmc_cuda_stage fwd[SSMC_MAX_STAGES];
  ssmc_cuda_stage decode;
  /* Device workspace of the forward, in floats: ws_tok_floats per token and
   * value head (T_total * h_v * ws_tok_floats), then ws_chunk_floats per chunk
   * slot and value head (ssmc_chunk_slots * h_v * ws_chunk_floats); stage
   * signature is (ssmc_fwd_args a, float *ws) / (ssmc_decode_args a, float *ws). */
  int64_t ws_tok_floats;
  int32_t bv;                 /* value tile of SSMC_GRID_ITEMS_VTILES stages; divides V */
  int32_t decode_bv;          /* value tile of SSMC_GRID_ITEMS_DTILES stages; divides V */
  int64_t ws_chunk_floats;    /* appended: workspace per chunk slot and value head */
  int32_t chunk;              /* the module's chunk (the spec's, or less where its tiles would not fit on
                                 chip): the chunk of the chunk grids */
  /* appended: the chunkwise backward (n_bwd == 0: the module has none). It runs the forward's
   * stages 0 .. bwd_fwd - 1 first (forward signature; the final states go into the workspace,
   * nothing into out), then its own stages in order, signature
   * (ssmc_fwd_args a, ssmc_bwd_args g, float *ws) with a the forward's arguments of the same call.
   * Workspace, in floats, after the forward's (rt_cuda_fwd_ws_bytes): bwd_ws_tok_floats per token
   * and value head, bwd_ws_chunk_floats per chunk slot and value head, bwd_ws_seq_floats per
   * (sequence, value head) (the final states, in state order), and only when h_v > h_qk
   * bwd_ws_qk_floats per token and value head (q/k gradients before the sum over a group). */
  int32_t n_bwd, bwd_fwd;
  ssmc_cuda_stage bwd[SSMC_MAX_BWD_STAGES];
  int32_t bk;                 /* key tile of SSMC_GRID_CHUNKS_KTILES stages; divides K */
  int32_t bwd_bv;             /* value tile of SSMC_GRID_ITEMS_BVTILES stages; divides V */
  int64_t bwd_ws_tok_floats, bwd_ws_chunk_floats, bwd_ws_seq_floats, bwd_ws_qk_floats;
  /* appended: a second decode stage for large batches (a solve's module: a smaller block, one more
   * an SM), same arguments and grid kind rules as `decode`; entry NULL where the module has one
   * decode stage only. ssmc_cuda_decode_stage says which one runs. */
  ssmc_cuda_stage decode_large;
  int32_t decode_large_from_pct; /* decode_large from n_seqs * h_v >= this percent of the SM count on */
  /* appended: the forward's other variant, a chunk-to-chunk pass in one stage (entry NULL where the
   * module has none): the forward is then fwd[0 .. fused_pre - 1] and this stage (same arguments and workspace),
   * in place of every fwd[] stage from n_seqs * h_v * (V / fused_bv) >= fused_from_pct percent of the
   * SM count on (0: never by itself; it runs only when asked for). ssmc_cuda_fwd_fused says which. */
  ssmc_cuda_stage fused;
  int32_t fused_bv;            /* value tile of SSMC_GRID_ITEMS_FTILES stages; divides V */
  int32_t fused_pre;
  int32_t fused_from_pct;
  /* appended: the fwd[] stages that run after `fused` (0 for the chunk-to-chunk pass with its readout;
   * 1 for a sequential state pass, `seq`, whose chunk-start states the out stage reads; a solve's
   * sequential `solve`, in place of the chunk-parallel hdelta, hscan and psolve: its chunk stages) */
  int32_t fused_post;
  /* appended: the fused slot on devices of compute capability 9 (sm_90a: wgmma), entry NULL where the
   * module has none. There it replaces fused, fused_bv, fused_from_pct and fused_post (fused_pre
   * stays); ssmc_cuda_for_device makes the table a device runs. Its body is empty on other targets. */
  ssmc_cuda_stage fused_sm90;
  int32_t fused_sm90_bv, fused_sm90_from_pct, fused_sm90_post;
  /* appended: the narrow forms of the chunk-to-chunk stages (fwd[] and bwd[] entries with when =
   * SSMC_STAGE_NARROW, each after its wide form), narrow_bv value columns a block of their
   * SSMC_GRID_ITEMS_NTILES stages (0: the module has none; without an erase the backward's alone,
   * bprep_n and bscan_n on their wide grids: ssmc_cuda_fwd_narrow); a call runs them in place of the wide
   * forms where the wide grid, n_seqs * h_v * (V / bv) blocks, is below narrow_below_pct percent of the SM
   * count (ssmc_cuda_narrow) */
  int32_t narrow_bv, narrow_below_pct;
  /* appended: the recomputed forward a kept one replaces: how many leading bwd[] stages (fprep and the
   * chunk-to-chunk pass) a backward with fwd_saved skips, because every forward variant, run into the backward's
   * workspace with the fused slot's keep form (ssmc_cuda_fwd_stages' keep), leaves their results in its forward
   * part (the chunk-start states, the per-token rows) and the final states in its per-sequence part. 0: the
   * module keeps no forward (its forward's products are less accurate than the backward wants there). */
  int32_t bwd_saved;
  /* appended: the keep forms of the fused slot (fused_sm90_keep: of fused_sm90): the same pass (arguments, grid,
   * block) that also leaves what the staged stages would in the workspace; entry NULL where the slot has none */
  ssmc_cuda_stage fused_keep, fused_sm90_keep;
  /* appended: the keep form of fwd[0] (the prep of a module without an erase, whose plain prep leaves only what the
   * scan reads): the same stage that also leaves what the backward's recomputed prep would; entry NULL where
   * fwd[0] leaves that anyway or the module keeps nothing */
  ssmc_cuda_stage prep_keep;
  /* appended: the form of fwd[0] run before the fused slot where the forward is not kept (the prep of a module with
   * an erase, without the rows only a state pass reads); entry NULL where fwd[0] runs there as it is */
  ssmc_cuda_stage prep_fused;
  /* appended: the split forward of the fused slot on sm_90 (entries NULL where the module has none, and on other
   * devices: ssmc_cuda_for_device), for few long sequences. Each sequence runs as `split` segments of
   * ceil(chunks / split) chunks (the last ones shorter or empty; ssmc_cuda_split), every stage given split in its
   * arguments: the fused slot's first fused_pre stages (as before `fused`), then split_seg, each segment's state from
   * zero and its decay into the chunk slot of its first chunk (segments that are not empty); split_scan (without an
   * erase a fwd[] stage, the chunk-to-chunk scan: the segments as its chunks), each segment's start state in place and
   * the final states; then `fused` (fused_post is 0), every segment from its start state (a kept split forward:
   * `fused_keep`, or split_keep after the keep forms of the fused slot's first stages, run again: the segment pass's
   * transition rows took the place of the first tokens' rows; ssmc_cuda_split_keeps). With an erase split_seg (grid
   * ITEMS_STILES) also leaves each segment's transition (but the last one's) in the per-token workspace, split_scan
   * (its own entry) chains the segments with them, and `fused` leaves the final states from the last segments. The
   * ITEMS_FTILES and ITEMS_STILES grids of a split call have n_seqs * split items (item = (n * split + s) * h_v + h);
   * the scan's grid n_seqs. split_pct: the segments fill this percent of the SMs in fused blocks. */
  ssmc_cuda_stage split_seg, split_scan;
  int32_t split_pct;
  /* appended: 1 where a kept forward runs the backward's first bwd_saved stages themselves (a solve's H chain and x,
   * into the backward's workspace; launched with the forward's arguments and a zeroed ssmc_bwd_args), then the last
   * fused_post fwd[] stages that run (the chunk stages after the solve): rt_fwd_plan's keep */
  int32_t saved_lead;
  /* appended: the fused slot's form a split forward runs in `fused`'s place (its segments from their start states;
   * same grid, block and shared memory), where the module has one (with an erase); entry NULL: `fused` itself */
  ssmc_cuda_stage split_fused;
  /* appended: the keep form of prep_fused, run before the fused slot's keep form on sm_90 (entry NULL elsewhere,
   * ssmc_cuda_for_device, and where prep_keep runs there): what that keep form reads (T's rows) and the backward
   * (T's rows where prep_keep leaves them) */
  ssmc_cuda_stage prep_fused_keep;
  /* appended: the keep form of split_fused (same grid, block and shared memory), a kept split forward's last stage
   * (ssmc_cuda_split_keeps); entry NULL where the module has none (and on other devices: ssmc_cuda_for_device) */
  ssmc_cuda_stage split_keep;
  /* appended: the backward's own narrow pick (ssmc_cuda_bwd_narrow): its narrow forms run where the wide grid is below
   * this percent of the SM count; 0: narrow_below_pct, the forward's */
  int32_t bwd_narrow_below_pct;
} ssmc_cuda_kernel;
/* The table's stages outside fwd[] and bwd[] after fused_sm90, in field order, X(field) each: the one list the
 * emitter's table initializers (compiler/emit.c), the compile report (compiler/cuc.c) and the runtime's loader
 * (runtime/rt_cuda.c) walk. A new appended stage form goes here too. */
#define SSMC_CUDA_FORMS(X) \
  X(fused_keep) X(fused_sm90_keep) X(prep_keep) X(prep_fused) X(split_seg) X(split_scan) X(split_fused) X(prep_fused_keep) X(split_keep)

/* Chunkwise backward (recomputing: it needs no per-token state from the
 * forward). Given the forward's inputs and initial states, dy and the gradient
 * of the final states, it writes the gradients of every input and of the
 * initial states. A work item is one (sequence, q/k head) pair,
 * item = n * h_qk + hq: it runs the h_v / h_qk value heads of that group in
 * turn, so the q/k gradients of a group are summed without races. */
typedef struct ssmc_bwd_args {
  int32_t n_seqs;                      /* N */
  int32_t h_qk, h_v;
  const int64_t *cu_seqlens;           /* (N+1) or NULL: N x t_len */
  int64_t t_len;
  const void *in[SSMC_MAX_IO];         /* the forward's inputs */
  const float *state_in[SSMC_MAX_IO];  /* the forward's initial states, or NULL (zero) */
  const float *aux_in[SSMC_MAX_IO];    /* the forward's aux outputs (x), or NULL: recomputed */
  const void *dout;                    /* (T_total, h_v, V) kernel dtype: dL/dy */
  const float *dstate_out[SSMC_MAX_IO];/* (N, h_v, S): dL/d(final state), or NULL (zero); a packed
                                          symmetric state: the gradient w.r.t. the packed elements */
  float *din[SSMC_MAX_IO];             /* fp32, each input's own layout (T_total, H_in, D); NULL: not wanted */
  float *dstate_in[SSMC_MAX_IO];       /* (N, h_v, S) fp32: dL/d(initial state), or NULL */
  int32_t iters;                       /* solver iterations (the forward's); <= 0: the spec's default */
  int64_t t_total;                     /* CUDA: tokens of all sequences (as ssmc_fwd_args.t_total) */
  int32_t fwd_saved;                   /* CUDA, appended: 1 when the workspace holds the forward of these inputs,
                                          run by rt_cuda_fwd_save: the backward skips its first bwd_saved stages
                                          (where the module has none, it recomputes as with 0) */
} ssmc_bwd_args;

typedef void (*ssmc_bwd_fn)(const ssmc_bwd_args *a, int64_t item_begin, int64_t item_end, float *ws);
/* Per-thread backward workspace in floats for sequences of at most max_len tokens. */
typedef int64_t (*ssmc_bwd_ws_fn)(int64_t max_len);

enum { SSMC_IN_NORMAL = 0, SSMC_IN_UNIT_SPHERE = 1, SSMC_IN_LOG_DECAY = 2, SSMC_IN_UNIT = 3 };

/* One entry of a kernel table: identity, shapes, constraints, entry points. */
typedef struct ssmc_kernel {
  const char *name;          /* procedural: ssmc_<family>_<hash>_k<K>v<V>_c<C>_bk<bk>bv<bv>_<dtype> */
  const char *family;        /* the spec's family name (informational only) */
  const char *spec_hash;     /* 16 hex digits of the canonical spec */
  int32_t K, V, chunk, bk, bv;
  ssmc_dtype dtype;
  int32_t n_inputs;
  const char *const *input_names;
  const int32_t *input_dim;    /* 0 scalar, 1 a [K] vector, 2 a [V] vector */
  const int32_t *input_domain; /* SSMC_IN_* */
  int32_t n_states;
  const char *const *state_names;
  const int64_t *state_size;   /* floats per (slot, head) */
  const int32_t *state_symmetric;
  int32_t n_aux;               /* readout intermediates written to aux_out */
  const char *const *aux_names;
  int32_t default_iters;       /* 0 when the spec has no solve */
  int64_t ws_floats;           /* per-thread workspace for fwd and decode */
  ssmc_fwd_fn fwd;
  ssmc_decode_fn decode;
  const ssmc_cuda_kernel *cuda;/* the CUDA module of the same kernel, or NULL */
  /* appended (backward, cpu_bwd.c.tpl) */
  ssmc_bwd_fn bwd;             /* chunkwise backward, or NULL */
  ssmc_bwd_ws_fn bwd_ws_floats;/* its per-thread workspace */
} ssmc_kernel;

/* Facts every backend and caller share about input i of kernel k. */
static inline int ssmc_input_len(const ssmc_kernel *k, int i) {
  return k->input_dim[i] == 1 ? k->K : k->input_dim[i] == 2 ? k->V : 1;
}
/* Gates (scalars, log decays, unit-interval values) are fp32, one per value head. */
static inline int ssmc_input_is_gate(const ssmc_kernel *k, int i) {
  return k->input_dim[i] == 0 || k->input_domain[i] == SSMC_IN_LOG_DECAY || k->input_domain[i] == SSMC_IN_UNIT;
}
/* [K] vectors that are not gates (q, k) have h_qk heads; everything else h_v. */
static inline int ssmc_input_qk_heads(const ssmc_kernel *k, int i) {
  return k->input_dim[i] == 1 && !ssmc_input_is_gate(k, i);
}

/* Tokens of all sequences of a forward call. */
static inline int64_t ssmc_fwd_tokens(const ssmc_fwd_args *a) {
  return a->t_total > 0 ? a->t_total : (int64_t)a->n_seqs * a->t_len;
}
/* Chunk slots of a forward call: chunk c of sequence n is slot start(n) + c with
 *   start(n) = n * ceil(t_len / chunk)               without cu_seqlens,
 *   start(n) = cu_seqlens[n] / chunk + n             with them (chunk: the CUDA module's),
 * so a block finds its (n, c) from cu_seqlens alone (binary search); a slot past
 * its sequence's last chunk does nothing (at most one per sequence). */
static inline int64_t ssmc_chunk_slots(const ssmc_kernel *k, const ssmc_fwd_args *a) {
  const int64_t C = k->cuda && k->cuda->chunk ? k->cuda->chunk : k->chunk;
  if (!a->cu_seqlens) return (int64_t)a->n_seqs * ((a->t_len + C - 1) / C);
  return ssmc_fwd_tokens(a) / C + a->n_seqs;
}
/* The decode stage for a batch of n_seqs sequences and h_v value heads on a device of sm_count SMs:
 * decode_large where the module has it and the work items reach decode_large_from_pct percent of the
 * SMs (below that the lower latency of `decode` wins; above, the extra blocks an SM of decode_large),
 * else decode. Monotone: once decode_large, decode_large for every larger batch. */
static inline const ssmc_cuda_stage *ssmc_cuda_decode_stage(const ssmc_cuda_kernel *c, int32_t n_seqs, int32_t h_v,
                                                            int32_t sm_count) {
  if (!c->decode_large.entry) return &c->decode;
  return (int64_t)n_seqs * h_v * 100 >= (int64_t)c->decode_large_from_pct * sm_count ? &c->decode_large : &c->decode;
}
/* Whether a call of n_seqs sequences and h_v value heads on a device of sm_count SMs runs the narrow forms of
 * the chunk-to-chunk stages: where the module has them and the wide grid leaves SMs idle along the chain.
 * Monotone: once wide, wide for every larger batch. */
static inline int ssmc_cuda_narrow(const ssmc_cuda_kernel *c, int32_t n_seqs, int32_t h_v, int32_t V, int32_t sm_count) {
  if (!c->narrow_bv) return 0;
  return (int64_t)n_seqs * h_v * (V / c->bv) * 100 < (int64_t)c->narrow_below_pct * sm_count;
}
/* The same for the backward: its narrow forms where the wide grid is below bwd_narrow_below_pct percent of the SMs
 * (where the module states one: its wide chunk-to-chunk pass is not the forward's) */
static inline int ssmc_cuda_bwd_narrow(const ssmc_cuda_kernel *c, int32_t n_seqs, int32_t h_v, int32_t V, int32_t sm_count) {
  if (!c->narrow_bv) return 0;
  const int32_t pct = c->bwd_narrow_below_pct ? c->bwd_narrow_below_pct : c->narrow_below_pct;
  return (int64_t)n_seqs * h_v * (V / c->bv) * 100 < (int64_t)pct * sm_count;
}
/* Whether the module's forward has narrow forms (without an erase only the backward may: bprep_n, bscan_n). */
static inline int ssmc_cuda_fwd_narrow(const ssmc_cuda_kernel *c) {
  for (int32_t i = 0; i < c->n_fwd; i++)
    if (c->fwd[i].when == SSMC_STAGE_NARROW) return 1;
  return 0;
}
/* Whether stage st runs in a call that runs the narrow forms (narrow) or the wide ones. */
static inline int ssmc_cuda_stage_runs(const ssmc_cuda_stage *st, int narrow) {
  return st->when == SSMC_STAGE_ALWAYS || st->when == (narrow ? SSMC_STAGE_NARROW : SSMC_STAGE_WIDE);
}
/* the same in a call of h_qk q/k heads and h_v value heads: a SSMC_STAGE_GROUPED stage where h_v > h_qk */
static inline int ssmc_cuda_stage_runs_for(const ssmc_cuda_stage *st, int narrow, int h_qk, int h_v) {
  return st->when == SSMC_STAGE_GROUPED ? h_v > h_qk : ssmc_cuda_stage_runs(st, narrow);
}
/* n stages of a list (fwd[] or bwd[]) into out as a device of compute capability cc_major runs them: the sm_90a
 * forms (SSMC_STAGE_SM90) in their stages' places there, dropped elsewhere; their count */
static inline int32_t ssmc_cuda_stages_for_device(const ssmc_cuda_stage *in, int32_t n, int cc_major, ssmc_cuda_stage *out) {
  int32_t m = 0;
  for (int32_t i = 0; i < n; i++) {
    if (in[i].when != SSMC_STAGE_SM90) out[m++] = in[i];
    else if (cc_major == 9 && m > 0) {
      const int32_t when = out[m - 1].when;
      out[m - 1] = in[i];
      out[m - 1].when = when;
    }
  }
  return m;
}
/* The table a device of compute capability cc_major runs: c, with the stages' and the fused slot's sm_90 forms there. */
static inline void ssmc_cuda_for_device(const ssmc_cuda_kernel *c, int cc_major, ssmc_cuda_kernel *out) {
  *out = *c;
  out->n_fwd = ssmc_cuda_stages_for_device(c->fwd, c->n_fwd, cc_major, out->fwd);
  out->n_bwd = ssmc_cuda_stages_for_device(c->bwd, c->n_bwd, cc_major, out->bwd);
  if (cc_major != 9) out->split_seg.entry = out->split_scan.entry = out->split_fused.entry = out->split_keep.entry = 0;
  if (cc_major != 9 || !c->fused_sm90.entry) {
    out->prep_fused_keep.entry = 0;
    return;
  }
  out->fused = c->fused_sm90;
  out->fused_keep = c->fused_sm90_keep;
  out->fused_bv = c->fused_sm90_bv;
  out->fused_from_pct = c->fused_sm90_from_pct;
  out->fused_post = c->fused_sm90_post;
}
/* Whether the forward of n_seqs sequences and h_v value heads on a device of sm_count SMs runs the fused
 * stage (else the fwd[] stages): where the module has one that runs by itself, from enough blocks on
 * (few blocks leave SMs idle along its chunk-to-chunk recurrence). Monotone in the batch. */
static inline int ssmc_cuda_fwd_fused(const ssmc_cuda_kernel *c, int32_t n_seqs, int32_t h_v, int32_t V,
                                      int32_t sm_count) {
  if (!c->fused.entry || c->fused_from_pct < 1) return 0;
  return (int64_t)n_seqs * h_v * (V / c->fused_bv) * 100 >= (int64_t)c->fused_from_pct * sm_count;
}
/* The stages of a forward in launch order into st[] (room for SSMC_MAX_STAGES + 1), their count: the
 * fwd[] stages that run (narrow: ssmc_cuda_stage_runs), or with fused the first fused_pre of fwd[],
 * `fused` (with keep: for a backward, `fused_keep`; -1 where the slot has none), and those of the last fused_post
 * that run (a solve's prep, its main state's pass in one of its forms, out);
 * in fwd[0]'s place where the module has them prep_keep with keep (before fused_sm90_keep in the fused slot
 * prep_fused_keep where it has that), prep_fused before `fused` without. Every launcher (the runtime, check's emulation) runs exactly these. */
static inline int ssmc_cuda_fwd_stages(const ssmc_cuda_kernel *c, int fused, int narrow, int keep,
                                       const ssmc_cuda_stage **st) {
  int n = 0;
  if (fused && keep && !c->fused_keep.entry) return -1;
  for (int i = 0; i < (fused ? c->fused_pre : c->n_fwd); i++)
    if (ssmc_cuda_stage_runs(&c->fwd[i], narrow))
      st[n++] = i > 0                                       ? &c->fwd[i]
                : fused && keep && c->prep_fused_keep.entry && c->fused_keep.entry == c->fused_sm90_keep.entry
                    ? &c->prep_fused_keep
                : keep && c->prep_keep.entry                ? &c->prep_keep
                : fused && !keep && c->prep_fused.entry     ? &c->prep_fused
                                                            : &c->fwd[i];
  if (!fused) return n;
  st[n++] = keep ? &c->fused_keep : &c->fused;
  for (int i = c->n_fwd - c->fused_post; i < c->n_fwd; i++)
    if (ssmc_cuda_stage_runs(&c->fwd[i], narrow)) st[n++] = &c->fwd[i];
  return n;
}
/* The shortest segment of a split forward that the runtime picks, in chunks */
#define SSMC_SPLIT_MIN_CHUNKS 4
/* The segments per sequence of a split forward of a (k: the table as the device runs it) on sm_count SMs: as many
 * as fill split_pct percent of the SMs in fused blocks, each at least SSMC_SPLIT_MIN_CHUNKS chunks of the mean
 * sequence (force: at least 3, for a check). < 2: none (the module has no split forward, or the call is too short). */
static inline int32_t ssmc_cuda_split(const ssmc_kernel *k, const ssmc_fwd_args *a, int32_t sm_count, int force) {
  const ssmc_cuda_kernel *c = k->cuda;
  if (!c->split_seg.entry || a->n_seqs < 1) return 0;
  const int64_t items = (int64_t)a->n_seqs * a->h_v * (k->V / c->fused_bv);
  const int64_t whole = ssmc_fwd_tokens(a) / ((int64_t)a->n_seqs * c->chunk);
  int64_t s = (int64_t)c->split_pct * sm_count / (100 * items);
  if (s > whole / SSMC_SPLIT_MIN_CHUNKS) s = whole / SSMC_SPLIT_MIN_CHUNKS;
  if (force && s < 3) s = 3;
  return (int32_t)s;
}
/* Whether the split forward (c: the table as the device runs it) can be a kept one (rt_cuda_fwd_save): its segments
 * run from the scan's start states in a keep form, the fused slot's (without an erase) or split_keep (with one; each
 * segment's slot is its first chunk's, so a segment writes its own chunks' slots alone); a solve's never. */
static inline int ssmc_cuda_split_keeps(const ssmc_cuda_kernel *c) {
  return c->split_seg.entry && c->fused_keep.entry && (!c->split_fused.entry || c->split_keep.entry) && !c->saved_lead;
}
/* The items of stage st in the forward call a: n_seqs, or in a split forward n_seqs * split for its ITEMS_FTILES grids */
static inline int32_t ssmc_cuda_items(const ssmc_cuda_stage *st, const ssmc_fwd_args *a) {
  return a->split > 1 && (st->grid == SSMC_GRID_ITEMS_FTILES || st->grid == SSMC_GRID_ITEMS_STILES) ? a->n_seqs * a->split
                                                                                                  : a->n_seqs;
}
/* Blocks of a CUDA stage for a problem of n_seqs sequences and h_v value heads;
 * chunk_slots only matters to the chunk grids (0 for decode). */
static inline void ssmc_cuda_grid(const ssmc_kernel *k, const ssmc_cuda_stage *st, int32_t n_seqs, int32_t h_v,
                                  int64_t chunk_slots, uint32_t grid[3]) {
  const int chunks = st->grid == SSMC_GRID_CHUNKS || st->grid == SSMC_GRID_CHUNKS_VTILES ||
                     st->grid == SSMC_GRID_CHUNKS_KTILES;
  grid[0] = chunks ? (uint32_t)chunk_slots : (uint32_t)(n_seqs * h_v);
  grid[1] = chunks ? (uint32_t)h_v
            : st->grid == SSMC_GRID_ITEMS_VTILES  ? (uint32_t)(k->V / k->cuda->bv)
            : st->grid == SSMC_GRID_ITEMS_DTILES  ? (uint32_t)(k->V / k->cuda->decode_bv)
            : st->grid == SSMC_GRID_ITEMS_BVTILES ? (uint32_t)(k->V / k->cuda->bwd_bv)
            : st->grid == SSMC_GRID_ITEMS_FTILES  ? (uint32_t)(k->V / k->cuda->fused_bv)
            : st->grid == SSMC_GRID_ITEMS_NTILES  ? (uint32_t)(k->V / k->cuda->narrow_bv)
            : st->grid == SSMC_GRID_ITEMS_STILES  ? (uint32_t)(1 + k->K / k->cuda->fused_bv)
            : st->grid == SSMC_GRID_ITEMS_ELEMS   ? (uint32_t)(((int64_t)k->K * k->V + 4 * st->threads - 1) / (4 * st->threads))
                                                  : 1u;
  grid[2] = st->grid == SSMC_GRID_CHUNKS_VTILES   ? (uint32_t)(k->V / k->cuda->bv)
            : st->grid == SSMC_GRID_CHUNKS_KTILES ? (uint32_t)(k->K / k->cuda->bk)
                                                  : 1u;
}
#endif
