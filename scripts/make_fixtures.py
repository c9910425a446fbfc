#!/usr/bin/env python3
"""Builds the runtime's reference fixtures (tests/fixtures/): tiny random-weight
Hybrid models run by someone else's code, on the CPU, in fp32.

  tokenizer/   a byte-level BPE tokenizer.json trained by HF tokenizers on a fixed
               multilingual text, and the ids HF tokenizers gives for it
  qwen3_next/  transformers' Qwen3-Next (Gated DeltaNet + gated attention + MoE)
  nemotron_h/  transformers' Nemotron-H (Mamba-2 + attention + squared-ReLU MLP)
  gka_hybrid/  awslabs/hybrid-model-factory's HybridQwen3 with GKA layers, their
               model code imported from --hmf DIR (see gka_fixture below for
               what had to be replaced to run it on a CPU: their GKA Triton
               kernels, by a sequential fp32 torch version of the same math)
  swa_hybrid/  sliding-window attention: a tiny Qwen3-Next (Gated DeltaNet, gated
               attention, dense SwiGLU MLPs) whose layer 1 attends to a window of
               the last SWA_WINDOW positions. transformers' Qwen3-Next has no
               sliding windows, so HF's own model runs with one change: its eager
               attention gets the window added to its mask on that layer
               (swa_fixture). Written in ssmc's own format (model.yaml with
               weights under our canonical names), since no HF config can say it.

Each model folder holds config.json + model.safetensors as transformers 5.x
writes them, tokenizer.json, and expected.safetensors: prompt_ids (T,) i32,
logits (T, vocab) f32 of one prefill over the prompt, greedy_ids (24,) i32 and
greedy_logits (24, vocab) f32 of HF's own greedy generate (cached decode).

Gates are made non-trivial on purpose (A_log, dt_bias, norms, D drawn wide) so
that decays span (0, 1) and a kernel that ignores one is caught.

Usage: python scripts/make_fixtures.py [OUT_DIR] [--hmf DIR] [--only=a,b]   (torch CPU, transformers 5.x)
gka_hybrid needs --hmf DIR (a checkout of github.com/awslabs/hybrid-model-factory;
its training/src is put on sys.path, nothing of it is copied here) and, on
PYTHONPATH, fla (the fla-core wheel, 0.6.0 was used), einops and triton; e.g.
  pip install --no-deps --target /tmp/pydeps einops fla-core==0.6.0
  PYTHONPATH=/tmp/pydeps python scripts/make_fixtures.py --hmf ../hmf-src --only=gka_hybrid
(and the others without fla on the path: transformers' Qwen3-Next would use it).
"""
import importlib.util
import json
import math
import os
import sys

import torch
from safetensors.torch import save_file

OUT = sys.argv[1] if len(sys.argv) > 1 and not sys.argv[1].startswith("--") else "tests/fixtures"
SEED = 1234
N_PROMPT = 80  # crosses a 64-token chunk boundary
N_GREEDY = 24

TEXT = (
    "Hybrid language models mix attention with state-space layers. "
    "Die Zustandsraummodelle lesen jedes Token genau einmal; Grüße aus Köln! "
    "Les modèles hybrides sont rapides à décoder, même à 4096 jetons. "
    "混合模型把注意力层和状态空间层结合在一起。 "
    "Гибридные модели быстро декодируют длинные тексты. "
    "النماذج الهجينة تجمع بين الانتباه وطبقات الحالة. "
    "ハイブリッドモデルは速い。 🚀🙂 x = f(y) + 3.14159; if (a != b) { return 42; }\n"
    "\tTabs,   spaces   and\nnewlines\r\n   are kept. It's we're they'll I'd DON'T 1234567 89.\n"
)


def train_tokenizer(out_dir):
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    qwen_pat = (
        r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
        r"|\s*[\r\n]+|\s+(?!\S)|\s+"
    )
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(qwen_pat), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=500,
        special_tokens=["<|endoftext|>", "<|im_start|>", "<|im_end|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    corpus = [TEXT] * 4 + [TEXT.lower(), TEXT.upper()]
    tok.train_from_iterator(corpus, trainer)
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "tokenizer.json")
    tok.save(path)
    check = TEXT + "<|im_start|>user\nHallo Welt<|im_end|> ünïcödé 😀 ok"
    ids = tok.encode(check).ids
    with open(os.path.join(out_dir, "expected.json"), "w") as f:
        json.dump({"text": check, "ids": ids, "decoded": tok.decode(ids, skip_special_tokens=False)}, f,
                  ensure_ascii=False, indent=1)
    return tok


def wide_init(model, zero_centered_norms):
    """Random weights with gates that matter (deterministic under the seed)."""
    g = torch.Generator().manual_seed(SEED)
    with torch.no_grad():
        for name, p in model.named_parameters():
            leaf = name.split(".")[-1]
            if leaf == "A_log":
                p.copy_(torch.empty(p.shape).uniform_(math.log(0.5), math.log(8.0), generator=g))
            elif leaf == "dt_bias":
                p.copy_(torch.randn(p.shape, generator=g) * 0.7 - 1.0)
            elif leaf == "D":
                p.copy_(torch.randn(p.shape, generator=g) * 0.5 + 1.0)
            elif "norm" in name and p.dim() == 1:
                if zero_centered_norms and "linear_attn.norm" not in name:
                    p.copy_(torch.randn(p.shape, generator=g) * 0.2)
                else:
                    p.copy_(1.0 + torch.randn(p.shape, generator=g) * 0.2)
            elif p.dim() >= 2:
                fan_in = p.shape[-1]
                std = 1.0 / math.sqrt(fan_in)
                if "embed" in name:
                    std = 1.0
                p.copy_(torch.randn(p.shape, generator=g) * std)
            else:  # biases (conv, b_proj, ...)
                p.copy_(torch.randn(p.shape, generator=g) * 0.3)


def dump(model, out_dir, tokenizer_src, vocab, **gen_kwargs):
    gen = torch.Generator().manual_seed(SEED + 1)
    prompt = torch.randint(3, vocab, (1, N_PROMPT), generator=gen)
    model.eval()
    with torch.no_grad():
        logits = model(prompt).logits[0].float()
        out = model.generate(prompt, max_new_tokens=N_GREEDY, do_sample=False, output_logits=True,
                             return_dict_in_generate=True, pad_token_id=0, eos_token_id=None, **gen_kwargs)
    greedy = out.sequences[0, N_PROMPT:]
    glog = torch.stack([l[0].float() for l in out.logits])
    model.save_pretrained(out_dir, safe_serialization=True)
    save_file({"prompt_ids": prompt[0].to(torch.int32).contiguous(), "logits": logits.contiguous(),
               "greedy_ids": greedy.to(torch.int32).contiguous(), "greedy_logits": glog.contiguous()},
              os.path.join(out_dir, "expected.safetensors"))
    if tokenizer_src:
        with open(tokenizer_src) as f, open(os.path.join(out_dir, "tokenizer.json"), "w") as o:
            o.write(f.read())
    for extra in ("generation_config.json",):
        p = os.path.join(out_dir, extra)
        if os.path.exists(p):
            os.remove(p)
    print(f"{out_dir}: {sum(p.numel() for p in model.parameters())} params, greedy {greedy.tolist()}")


def qwen3_next_fixture(tok_json, vocab):
    from transformers import Qwen3NextConfig, Qwen3NextForCausalLM

    cfg = Qwen3NextConfig(
        vocab_size=vocab, hidden_size=64, intermediate_size=96, num_hidden_layers=4,
        num_attention_heads=4, num_key_value_heads=2, head_dim=32,
        linear_conv_kernel_dim=4, linear_key_head_dim=128, linear_value_head_dim=128,
        linear_num_key_heads=1, linear_num_value_heads=2,
        decoder_sparse_step=1, moe_intermediate_size=32, shared_expert_intermediate_size=48,
        num_experts_per_tok=2, num_experts=4, norm_topk_prob=True, mlp_only_layers=[1],
        layer_types=["linear_attention", "linear_attention", "full_attention", "linear_attention"],
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.25},
        rms_norm_eps=1e-6, tie_word_embeddings=False, max_position_embeddings=4096,
    )
    torch.manual_seed(SEED)
    m = Qwen3NextForCausalLM(cfg).float()
    wide_init(m, zero_centered_norms=True)
    dump(m, os.path.join(OUT, "qwen3_next"), tok_json, vocab)


def nemotron_h_fixture(tok_json, vocab):
    from transformers import NemotronHConfig, NemotronHForCausalLM

    cfg = NemotronHConfig(
        vocab_size=vocab, hidden_size=64, layers_block_type=["mamba", "mlp", "mamba", "attention", "mlp", "mamba"],
        num_attention_heads=4, num_key_value_heads=2, head_dim=32, intermediate_size=128,
        ssm_state_size=128, mamba_num_heads=4, mamba_head_dim=128, n_groups=2, conv_kernel=4,
        chunk_size=64, use_conv_bias=True, layer_norm_epsilon=1e-5, tie_word_embeddings=True,
        time_step_min=0.001, max_position_embeddings=4096,
    )
    torch.manual_seed(SEED)
    m = NemotronHForCausalLM(cfg).float()
    wide_init(m, zero_centered_norms=False)
    dump(m, os.path.join(OUT, "nemotron_h"), tok_json, vocab)


def gka_fixture(hmf_dir, tok_json, vocab):
    """hybrid-model-factory's HybridQwen3ForCausalLM, pattern GKA-*-GKA (their
    Qwen3 attention/MLP/norms/RoPE, their GatedKalmaNet layer), on the CPU in fp32.

    Their model code is imported from HMF_DIR/training/src unchanged. To run it
    on a machine without CUDA, exactly these things are swapped, all from here:

    1. The GKA kernel call. GatedKalmaNet.forward calls gka_chebyshev_gla (prefill:
       hmf's chunked Triton Chebyshev solve, ChebyshevIteration, followed by fla's
       chunk_simple_gla readout) and torch_decoding_one_step (decode: hmf's fused
       Triton decode kernel + fla's fused_recurrent_simple_gla). Both names in the
       gka module are replaced by gka_reference() below: a sequential fp32 torch
       version of the same math, token by token, per head:
         H_t = exp(gk_t) H_{t-1} + k_t k_t'            (k already scaled by beta + 1e-6)
         lambda_t = ridge_strength * ||H_t||_F          (their "fro" ridge)
         x_t = num_iter Chebyshev steps on (H_t + lambda_t I) x = q_t from x = step*q_t,
               step = 2/(2 lambda + fro), rho = (fro/(2 lambda + fro)/2)^2, omega_0 = 2,
               omega <- 1/(1 - rho omega), x <- omega x - (step omega (H x + lambda x - q)
               + (omega - 1) x_prev)    (as in their Triton kernels)
         q'_t = q_t + alpha_t (x_t - q_t)
         S_t = exp(g_t) S_{t-1} + k_t v_t';  o_t = gla_scale * S_t' q'_t   (simple GLA)
       and it returns (o, H_T, S_T) like theirs, so their cache update and the
       decode path use it the same way. Why: those are Triton GPU kernels, and
       this machine has no GPU (Triton has no CPU driver). Triton's CPU
       interpreter does not rescue them either: their Chebyshev kernels use
       tl.make_block_ptr, which Triton 3.9 removed ("Block pointers have been
       removed in favor of the tensor descriptor API"), and fla 0.6's
       chunk_fwd_h, which their chunked solve calls first, fails there too.
    2. fla's Triton kernels that are not the solve (ShortConvolution's causal
       conv1d, FusedRMSNormGated) are theirs, run by Triton's CPU interpreter
       (TRITON_INTERPRET=1); the autotuner's timing is stubbed to pick the first
       config (there is no driver to time with; the config changes no math).
    3. Compatibility with transformers 5.2x, none of it math: torch.cuda.device()
       of a CPU tensor is a no-op (gka.py wraps its kernel calls in it);
       create_causal_mask() no longer takes cache_position, so it is dropped; and
       transformers' config check of layer_types is told hmf's "GKA"/"*" names.
    Layers M2/GDN/BMF are stubbed out of the import (their modules need mamba_ssm,
    deepspeed, flash_attn and hmf parts not in the checkout); the pattern uses none.
    """
    os.environ["TRITON_INTERPRET"] = "1"
    import contextlib
    import types

    import triton.runtime.autotuner as tra
    import transformers.configuration_utils as tcu

    tra.Autotuner._bench = lambda self, *a, config=None, **k: [0.0, 0.0, 0.0]
    tcu.ALLOWED_ATTN_LAYER_TYPES = tuple(tcu.ALLOWED_ATTN_LAYER_TYPES) + ("GKA", "*")
    sys.path.insert(0, os.path.join(os.path.abspath(hmf_dir), "training", "src"))
    base = "hmf.model.hybrid_zoo.layers."
    for mod, cls in (("bmojo_f.modules", "BMojoLayer"), ("gated_deltanet.modules", "GatedDeltaNetLayer"),
                     ("mamba.modules", "Mamba2Layer")):
        stub = types.ModuleType(base + mod)
        setattr(stub, cls, type(cls, (torch.nn.Module,), {}))
        sys.modules[base + mod] = stub
    import hmf.model.hybrid_zoo.layers.gated_kalmanet.gka as gka
    import hmf.model.hybrid_zoo.models.hybrid_qwen3.modeling_hybrid_qwen3 as mh
    from hmf.model.hybrid_zoo.models.cache import HybridCache
    from hmf.model.hybrid_zoo.models.hybrid_qwen3.configuration_hybrid_qwen3 import HybridQwen3Config

    cuda_device = torch.cuda.device
    torch.cuda.device = lambda d: contextlib.nullcontext() if torch.device(d).type == "cpu" else cuda_device(d)
    causal_mask = mh.create_causal_mask
    mh.create_causal_mask = lambda **kw: causal_mask(**{k: v for k, v in kw.items() if k != "cache_position"})

    def gka_reference(q, k, v, alpha, g, gk, gla_scale, ridge_strength, num_iter, h_kk=None, h_kv=None):
        B, L, H, D = q.shape
        q, k, v, alpha, g = q.float(), k.float(), v.float(), alpha.float(), g.float()
        gk = gk.float() if gk is not None else torch.zeros_like(g)
        hk = torch.zeros(B, H, D, D) if h_kk is None else h_kk.float().clone()
        s = torch.zeros(B, H, D, D) if h_kv is None else h_kv.float().clone()
        o = torch.empty(B, L, H, D)
        for t in range(L):
            kt, qt, vt = k[:, t], q[:, t], v[:, t]
            hk = torch.exp(gk[:, t])[..., None, None] * hk + kt[..., :, None] * kt[..., None, :]
            fro = torch.sqrt((hk * hk).sum((-1, -2)))[..., None]
            lam = ridge_strength * fro
            step = 2 / (2 * lam + fro)
            rho = (fro / (2 * lam + fro) / 2.0) ** 2
            x_prev, x, om = torch.zeros_like(qt), step * qt, torch.full_like(fro, 2.0)
            for _ in range(num_iter):
                om = 1.0 / (1.0 - rho * om)
                gx = step * om * (torch.einsum("bhij,bhj->bhi", hk, x) + lam * x - qt) + (om - 1) * x_prev
                x_prev, x = x, om * x - gx
            qq = qt + alpha[:, t][..., None] * (x - qt)
            s = torch.exp(g[:, t])[..., None, None] * s + kt[..., :, None] * vt[..., None, :]
            o[:, t] = gla_scale * torch.einsum("bhk,bhkv->bhv", qq, s)
        return o, hk, s

    def prefill(q, k, v, alpha, g, gk, gla_scale, ridge_strength=0.02, solver_type="chebyshev", num_iter=30,
                bp_lambda=True, chunk_size=64):
        assert solver_type == "chebyshev" and num_iter > 0
        return gka_reference(q, k, v, alpha, g, gk, gla_scale, ridge_strength, num_iter)

    def decode(q, k, v, alpha, g, gk, gla_scale, ridge_strength, solver_type, num_iter, prev_h_kk, prev_h_kv):
        assert solver_type == "chebyshev" and num_iter > 0
        if q.dim() < 4:  # [1, H, D] as their decode path passes it
            q, k, v, alpha = q[None], k[None], v[None], alpha[None]
        g = g.reshape(alpha.shape)
        gk = gk.reshape(alpha.shape) if gk is not None else None
        return gka_reference(q, k, v, alpha, g, gk, gla_scale, ridge_strength, num_iter, prev_h_kk, prev_h_kv)

    gka.gka_chebyshev_gla = prefill
    gka.torch_decoding_one_step = decode
    cfg = HybridQwen3Config(
        vocab_size=vocab, hidden_size=64, intermediate_size=96, num_hidden_layers=3,
        num_attention_heads=2, num_key_value_heads=1, head_dim=128, hybrid_override_pattern="GKA-*-GKA",
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0}, rms_norm_eps=1e-6,
        tie_word_embeddings=False, max_position_embeddings=4096,
    )
    cfg.gka_config = {"use_alpha_connection": True, "use_v_conv": True, "use_forgetting_gate": True,
                      "gla_rescale": True, "solver_type": "chebyshev", "bp_lambda": True, "num_iter": 30,
                      "ridge_strength": 0.02, "use_gate": True, "conv_size": 4, "norm_eps": 1e-6,
                      "use_forgetting_gate_kk": True, "use_beta_gate": True, "chunk_size": 64,
                      "kv_proj_rank": None, "kv_learnable_residual": False}
    torch.manual_seed(SEED)
    m = mh.HybridQwen3ForCausalLM(cfg).float()
    wide_init(m, zero_centered_norms=False)
    try:
        # their own cache (transformers' DynamicCache has no layer kind "GKA")
        dump(m, os.path.join(OUT, "gka_hybrid"), tok_json, vocab, past_key_values=HybridCache(cfg))
    finally:
        torch.cuda.device = cuda_device
        mh.create_causal_mask = causal_mask


SWA_WINDOW = 48
SWA_PROMPT = 300  # > 256 positions: several key blocks of the runtime's tiled attention


def swa_fixture(vocab):
    import transformers.models.qwen3_next.modeling_qwen3_next as mq
    from transformers import Qwen3NextConfig, Qwen3NextForCausalLM

    sliding = {1}
    cfg = Qwen3NextConfig(
        vocab_size=vocab, hidden_size=32, intermediate_size=64, num_hidden_layers=4,
        num_attention_heads=2, num_key_value_heads=1, head_dim=16,
        linear_conv_kernel_dim=4, linear_key_head_dim=128, linear_value_head_dim=128,
        linear_num_key_heads=1, linear_num_value_heads=2, num_experts=0, mlp_only_layers=[0, 1, 2, 3],
        layer_types=["linear_attention", "full_attention", "linear_attention", "full_attention"],
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.25},
        rms_norm_eps=1e-6, tie_word_embeddings=False, max_position_embeddings=4096,
    )
    cfg._attn_implementation = "eager"
    torch.manual_seed(SEED)
    m = Qwen3NextForCausalLM(cfg).float()
    wide_init(m, zero_centered_norms=True)
    eager = mq.eager_attention_forward

    def windowed(module, query, key, value, attention_mask, scaling, dropout=0.0, **kw):
        if module.layer_idx in sliding:  # keys k with k > p - SWA_WINDOW for the query at position p
            tq, tk = query.shape[2], key.shape[2]
            qpos = torch.arange(tk - tq, tk)[:, None]
            far = torch.arange(tk)[None, :] <= qpos - SWA_WINDOW
            extra = torch.zeros(tq, tk).masked_fill(far, float("-inf"))
            attention_mask = extra if attention_mask is None else attention_mask + extra
        return eager(module, query, key, value, attention_mask, scaling, dropout, **kw)

    mq.eager_attention_forward = windowed
    out = os.path.join(OUT, "swa_hybrid")
    os.makedirs(out, exist_ok=True)
    gen = torch.Generator().manual_seed(SEED + 2)
    prompt = torch.randint(3, vocab, (1, SWA_PROMPT), generator=gen)
    m.eval()
    with torch.no_grad():
        logits = m(prompt).logits[0].float()
        res = m.generate(prompt, max_new_tokens=N_GREEDY, do_sample=False, output_logits=True,
                         return_dict_in_generate=True, pad_token_id=0, eos_token_id=None)
    mq.eager_attention_forward = eager
    with torch.no_grad():  # the window was applied, and matters only past it
        full = m(prompt).logits[0].float()
    assert torch.allclose(full[:SWA_WINDOW], logits[:SWA_WINDOW], rtol=1e-5, atol=1e-5)
    assert (full[SWA_WINDOW:] - logits[SWA_WINDOW:]).abs().max() > 1e-2
    greedy = res.sequences[0, SWA_PROMPT:]
    glog = torch.stack([l[0].float() for l in res.logits])
    # the weights under ssmc's canonical names (README, "model.yaml")
    sd = {k: v.detach().float() for k, v in m.state_dict().items()}
    w = {"embed.weight": sd["model.embed_tokens.weight"], "final_norm.weight": sd["model.norm.weight"],
         "lm_head.weight": sd["lm_head.weight"]}
    hk, hv, dk, dv = 1, 2, 128, 128
    for i, t in enumerate(cfg.layer_types):
        p, o = f"model.layers.{i}.", f"layers.{i}."
        w[o + "norm1.weight"] = sd[p + "input_layernorm.weight"]
        w[o + "norm2.weight"] = sd[p + "post_attention_layernorm.weight"]
        w[o + "mlp.up.weight"] = torch.cat([sd[p + "mlp.gate_proj.weight"], sd[p + "mlp.up_proj.weight"]])
        w[o + "mlp.down.weight"] = sd[p + "mlp.down_proj.weight"]
        if t == "full_attention":
            for a in ("q", "k", "v", "o"):
                w[o + f"attn.{a}.weight"] = sd[p + f"self_attn.{a}_proj.weight"]
            w[o + "attn.q_norm.weight"] = sd[p + "self_attn.q_norm.weight"]
            w[o + "attn.k_norm.weight"] = sd[p + "self_attn.k_norm.weight"]
        else:
            la = p + "linear_attn."
            r = hv // hk  # one key head: in_proj_qkvz rows are q, k, v, z already; in_proj_ba rows b, a
            ba = sd[la + "in_proj_ba.weight"]
            w[o + "ssm.in.weight"] = torch.cat([sd[la + "in_proj_qkvz.weight"], ba[r:], ba[:r]])
            w[o + "ssm.conv.weight"] = sd[la + "conv1d.weight"][:, 0, :]
            w[o + "ssm.A_log"] = sd[la + "A_log"]
            w[o + "ssm.dt_bias"] = sd[la + "dt_bias"]
            w[o + "ssm.norm.weight"] = sd[la + "norm.weight"]
            w[o + "ssm.out.weight"] = sd[la + "out_proj.weight"]
    save_file({k: v.contiguous() for k, v in w.items()}, os.path.join(out, "model.safetensors"))
    save_file({"prompt_ids": prompt[0].to(torch.int32).contiguous(), "logits": logits.contiguous(),
               "greedy_ids": greedy.to(torch.int32).contiguous(), "greedy_logits": glog.contiguous()},
              os.path.join(out, "expected.safetensors"))
    with open(os.path.join(out, "model.yaml"), "w") as f:
        f.write(f"""# made by scripts/make_fixtures.py (swa_fixture): HF Qwen3-Next with a sliding window on layer 1
d_model: 32
vocab: {vocab}
norm_eps: 1.0e-6
norm_one_plus: true
tie_embeddings: false
layers: [ssm, sliding_attention, ssm, attention]
ffn: mlp
attention: {{heads: 2, kv_heads: 1, head_dim: 16, rope_theta: 10000, rotary_dim: 4, qk_norm: true,
            out_gate: true, window: {SWA_WINDOW}}}
ssm: {{spec: gated_deltanet, qk_heads: {hk}, v_heads: {hv}, key_dim: {dk}, value_dim: {dv}, conv: 4, conv_v: true,
      beta: sigmoid, l2norm: rsqrt, l2norm_eps: 1.0e-6, out_norm: norm_gate, out_norm_per_head: true,
      out_norm_eps: 1.0e-6}}
mlp: {{act: swiglu, inter: 64}}
""")
    print(f"{out}: {sum(p.numel() for p in m.parameters())} params, window {SWA_WINDOW}, greedy {greedy.tolist()}")


if __name__ == "__main__":
    torch.set_num_threads(2)
    which = [a for a in sys.argv[1:] if a.startswith("--only=")]
    only = which[0].split("=", 1)[1].split(",") if which else ["tokenizer", "qwen3_next", "nemotron_h", "gka_hybrid", "swa_hybrid"]
    if importlib.util.find_spec("fla") and ({"qwen3_next", "swa_hybrid"} & set(only)):
        # transformers' Qwen3-Next switches to fla's Triton kernels when fla is importable
        sys.exit("fla is importable: build qwen3_next/swa_hybrid without it on PYTHONPATH, gka_hybrid alone with it")
    tok = train_tokenizer(os.path.join(OUT, "tokenizer"))
    tok_json = os.path.join(OUT, "tokenizer", "tokenizer.json")
    vocab = tok.get_vocab_size()
    if "qwen3_next" in only:
        qwen3_next_fixture(tok_json, vocab)
    if "nemotron_h" in only:
        nemotron_h_fixture(tok_json, vocab)
    if "gka_hybrid" in only:
        hmf = [a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--hmf=")]
        hmf += [sys.argv[i + 1] for i, a in enumerate(sys.argv[:-1]) if a == "--hmf"]
        if hmf:
            gka_fixture(hmf[0], tok_json, vocab)
        elif which:
            sys.exit("gka_hybrid needs --hmf DIR (a hybrid-model-factory checkout)")
        else:
            print("gka_hybrid skipped: no --hmf DIR")
    if "swa_hybrid" in only:
        swa_fixture(200)
