#!/usr/bin/env python3
"""bench stage: the model of the llama.cpp comparison — a ~100M-parameter,
random-weight, Qwen3-Next-shaped hybrid (Gated DeltaNet + gated attention,
every layer MoE with a gated shared expert), written by transformers 5.x as a
Hugging Face folder (fp32), then converted to GGUF (f32) by llama.cpp's own
convert_hf_to_gguf.py, with PyPI's `gguf` package (NO_LOCAL_GGUF=1) when it
can run that converter, else with the gguf-py shipped beside the converter
(the newest PyPI gguf, 0.19.0, lacks names that llama.cpp 0c1e570's converter
uses, e.g. MODEL_ARCH.DFLASH; the script says which one it used).

Both engines read the same weights at the same dtype: ssmc reads the HF folder,
llama.cpp the GGUF converted from it.

The converter identifies a BPE pre-tokenizer by hashing the ids a tokenizer
gives for a fixed text and refuses unknown ones; the benchmark's tokenizer is
the tiny fixture tokenizer (token ids are fed directly, text is never
tokenized), so the pre-tokenizer is declared as "qwen2" for the GGUF header.
Nothing else in the conversion is changed.

usage: make_model.py OUT_DIR LLAMA_CPP_SRC     (writes OUT_DIR/hf and OUT_DIR/model-f32.gguf)
"""
import json
import math
import os
import runpy
import shutil
import subprocess
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SEED = 4321

# ~104M parameters: Qwen3-Next's proportions (3 Gated DeltaNet layers per
# gated-attention layer, 2x as many value heads as key heads, head dims 128,
# partial RoPE 0.25, GQA 8:2 at head_dim 128, all layers MoE + shared expert).
CONFIG = dict(
    vocab_size=32000, hidden_size=512, intermediate_size=1024, num_hidden_layers=12,
    num_attention_heads=8, num_key_value_heads=2, head_dim=128,
    linear_conv_kernel_dim=4, linear_key_head_dim=128, linear_value_head_dim=128,
    linear_num_key_heads=4, linear_num_value_heads=8,
    decoder_sparse_step=1, moe_intermediate_size=256, shared_expert_intermediate_size=512,
    num_experts_per_tok=2, num_experts=8, norm_topk_prob=True, mlp_only_layers=[],
    full_attention_interval=4,
    rope_parameters={"rope_type": "default", "rope_theta": 10000000.0, "partial_rotary_factor": 0.25},
    rms_norm_eps=1e-6, tie_word_embeddings=False, max_position_embeddings=8192,
    bos_token_id=None, eos_token_id=None,
)


def init_weights(model):
    """Random weights with gates in their working range (deterministic)."""
    g = torch.Generator().manual_seed(SEED)
    with torch.no_grad():
        for name, p in model.named_parameters():
            leaf = name.split(".")[-1]
            if leaf == "A_log":
                p.copy_(torch.empty(p.shape).uniform_(math.log(0.5), math.log(8.0), generator=g))
            elif leaf == "dt_bias":
                p.copy_(torch.randn(p.shape, generator=g) * 0.7 - 1.0)
            elif "norm" in name and p.dim() == 1:
                base = 1.0 if "linear_attn.norm" in name else 0.0  # the other norms are zero-centered
                p.copy_(base + torch.randn(p.shape, generator=g) * 0.1)
            elif p.dim() >= 2:
                std = 1.0 if "embed" in name else 1.0 / math.sqrt(p.shape[-1])
                p.copy_(torch.randn(p.shape, generator=g) * std)
            else:
                p.copy_(torch.randn(p.shape, generator=g) * 0.1)


def make_hf(out):
    from transformers import Qwen3NextConfig, Qwen3NextForCausalLM

    cfg = Qwen3NextConfig(**CONFIG)
    torch.manual_seed(SEED)
    m = Qwen3NextForCausalLM(cfg).float()
    init_weights(m)
    n = sum(p.numel() for p in m.parameters())
    m.save_pretrained(out, safe_serialization=True)
    gc = os.path.join(out, "generation_config.json")
    if os.path.exists(gc):
        os.remove(gc)
    shutil.copy(os.path.join(REPO, "tests/fixtures/tokenizer/tokenizer.json"), os.path.join(out, "tokenizer.json"))
    with open(os.path.join(out, "tokenizer_config.json"), "w") as f:
        json.dump({"tokenizer_class": "PreTrainedTokenizerFast", "model_max_length": 8192}, f)
    print(f"{out}: Qwen3-Next-shaped hybrid, {n / 1e6:.1f}M parameters (fp32)")
    return n


def convert_here(hf, gguf_out, llama_src):
    """Runs llama.cpp's converter in this process (see the module docstring)."""
    if os.environ.get("NO_LOCAL_GGUF"):
        sys.path = [p for p in sys.path if not p.endswith("gguf-py")]
    else:
        sys.path.insert(0, os.path.join(llama_src, "gguf-py"))
    sys.path.insert(0, llama_src)
    import gguf
    import conversion.base as cb

    print(f"gguf package: {gguf.__file__}", flush=True)
    cb.TextModel.get_vocab_base_pre = lambda self, tokenizer: "qwen2"
    sys.argv = ["convert_hf_to_gguf.py", hf, "--outtype", "f32", "--no-mtp", "--outfile", gguf_out]
    runpy.run_path(os.path.join(llama_src, "convert_hf_to_gguf.py"), run_name="__main__")


def convert(hf, gguf_out, llama_src):
    """PyPI's gguf first; if this converter needs names that the newest PyPI
    release lacks, the gguf-py shipped next to the converter (said so)."""
    cmd = [sys.executable, os.path.abspath(__file__), "--convert", hf, gguf_out, llama_src]
    env = dict(os.environ, NO_LOCAL_GGUF="1")
    if subprocess.run(cmd, env=env).returncode == 0:
        print("converted with PyPI's gguf")
        return
    print("PyPI's gguf cannot run this converter (see the error above); using llama.cpp's own gguf-py", flush=True)
    env.pop("NO_LOCAL_GGUF")
    if subprocess.run(cmd, env=env).returncode != 0:
        sys.exit("conversion failed")
    print("converted with llama.cpp's gguf-py")


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--convert":
        convert_here(*sys.argv[2:])
        sys.exit(0)
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    out, llama_src = sys.argv[1], sys.argv[2]
    torch.set_num_threads(2)
    hf = os.path.join(out, "hf")
    os.makedirs(hf, exist_ok=True)
    make_hf(hf)
    convert(hf, os.path.join(out, "model-f32.gguf"), llama_src)
