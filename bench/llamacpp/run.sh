#!/usr/bin/env bash
# bench stage: ssmc against llama.cpp on the same model, in the same run, on
# the CPU: prefill tokens/s at 512 and 4096 tokens (from an empty context),
# decode tokens/s at batch 1 and 8 (128 new tokens per sequence after a
# 128-token prompt; batch 8 counts the tokens of all sequences). Each
# measurement is repeated REPS times, ssmc and llama.cpp interleaved; the best
# of each is reported (the machine is shared, so the best is the least
# disturbed). Prints a markdown table and the commands.
#
# usage: bench/llamacpp/run.sh MODEL_DIR LLAMA_BUILD [THREADS] [REPS]
#   MODEL_DIR    made by make_model.py: MODEL_DIR/hf (ssmc) and MODEL_DIR/model-f32.gguf (llama.cpp)
#   LLAMA_BUILD  llama.cpp build folder with bin/llama-bench and bin/llama-batched-bench
# env:
#   SSMC             the ssmc binary (default build/ssmc)
#   OPENBLAS_CORETYPE is removed for ssmc so OpenBLAS picks its kernels from the CPU;
#                    set SSMC_BLAS_CORE=Haswell (say) to force a kernel set instead
set -euo pipefail
MODEL="${1:?usage: run.sh MODEL_DIR LLAMA_BUILD [THREADS] [REPS]}"
LLAMA="${2:?usage: run.sh MODEL_DIR LLAMA_BUILD [THREADS] [REPS]}"
THREADS="${3:-2}"
REPS="${4:-3}"
SSMC="${SSMC:-build/ssmc}"
HF="$MODEL/hf"
GGUF="$MODEL/model-f32.gguf"
for f in "$HF/config.json" "$GGUF" "$LLAMA/bin/llama-bench" "$LLAMA/bin/llama-batched-bench" "$SSMC"; do
  [ -e "$f" ] || { echo "run.sh: missing $f" >&2; exit 1; }
done
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

# prompts: random token ids (the same kind of input llama-bench feeds)
python3 - "$TMP" <<'EOF'
import random, sys
d = sys.argv[1]
random.seed(7)
ids = lambda n: ",".join(str(random.randrange(3, 32000)) for _ in range(n))
for name, rows, n in (("p512", 1, 512), ("p4096", 1, 4096), ("d1", 1, 128), ("d8", 8, 128)):
    with open(f"{d}/{name}.txt", "w") as f:
        f.write("\n".join(ids(n) for _ in range(rows)) + "\n")
EOF

ssmc_env=(env -u OPENBLAS_CORETYPE)
[ -n "${SSMC_BLAS_CORE:-}" ] && ssmc_env=(env OPENBLAS_CORETYPE="$SSMC_BLAS_CORE")
ssmc_run() { # FILE MAX_NEW FIELD(prefill|decode)
  "${ssmc_env[@]}" "$SSMC" run "$HF" --batch "$TMP/$1.txt" --ids --max-new "$2" --ignore-eos --threads "$THREADS" \
    | grep -a '^prefill:' | tee -a "$TMP/ssmc.log" \
    | sed -E "s/.*$3: [0-9]+ tokens in [0-9.]+ s \(([0-9.]+) tok\/s\).*/\1/"
}
llama_pp() { # N_PROMPT
  "$LLAMA/bin/llama-bench" -m "$GGUF" -t "$THREADS" -p "$1" -n 0 -r 1 -o csv 2>/dev/null | tee -a "$TMP/llama.log" \
    | python3 -c 'import csv,sys; r=list(csv.DictReader(sys.stdin)); print(r[-1]["avg_ts"])'
}
llama_tg() { # BATCH
  "$LLAMA/bin/llama-batched-bench" -m "$GGUF" -t "$THREADS" -c 4096 -b 2048 -ub 512 -npp 128 -ntg 128 -npl "$1" \
    --output-format jsonl 2>/dev/null | tee -a "$TMP/llama.log" \
    | python3 -c 'import json,sys
for l in sys.stdin:
    l = l.strip()
    if l.startswith("{") and "speed_tg" in l: print(json.loads(l)["speed_tg"])'
}
best() { sort -g | tail -1; }

declare -A S L
for k in pp512 pp4096 tg1 tg8; do S[$k]=""; L[$k]=""; done
for r in $(seq "$REPS"); do
  S[pp512]+="$(ssmc_run p512 1 prefill) ";   L[pp512]+="$(llama_pp 512) "
  S[pp4096]+="$(ssmc_run p4096 1 prefill) "; L[pp4096]+="$(llama_pp 4096) "
  S[tg1]+="$(ssmc_run d1 129 decode) ";      L[tg1]+="$(llama_tg 1) "
  S[tg8]+="$(ssmc_run d8 129 decode) ";      L[tg8]+="$(llama_tg 8) "
done

echo "| work (tokens/s, best of $REPS, $THREADS threads) | ssmc | llama.cpp | ssmc / llama.cpp |"
echo "|---|---:|---:|---:|"
for k in pp512 pp4096 tg1 tg8; do
  s=$(tr ' ' '\n' <<<"${S[$k]}" | grep . | best); l=$(tr ' ' '\n' <<<"${L[$k]}" | grep . | best)
  name=$k; case $k in pp512) name="prefill 512";; pp4096) name="prefill 4096";; tg1) name="decode, batch 1";; tg8) name="decode, batch 8";; esac
  printf "| %s | %.1f | %.1f | %.2f |\n" "$name" "$s" "$l" "$(python3 -c "print($s/$l)")"
done
echo
echo "all runs (tokens/s):"
for k in pp512 pp4096 tg1 tg8; do echo "  $k  ssmc: ${S[$k]}  llama.cpp: ${L[$k]}"; done
echo "ssmc's OpenBLAS: $(grep -ao 'OpenBLAS [A-Za-z0-9]*' "$TMP/ssmc.log" | sort -u | tr '\n' ' ')"
echo
echo "commands:"
echo "  ${ssmc_env[*]} $SSMC run $HF --batch PROMPTS --ids --max-new N --ignore-eos --threads $THREADS"
echo "  $LLAMA/bin/llama-bench -m $GGUF -t $THREADS -p 512|4096 -n 0 -r 1 -o csv"
echo "  $LLAMA/bin/llama-batched-bench -m $GGUF -t $THREADS -c 4096 -b 2048 -ub 512 -npp 128 -ntg 128 -npl 1|8 --output-format jsonl"
