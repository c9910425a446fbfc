#!/usr/bin/env bash
# On a GPU machine (after scripts/gpu-pack.sh here, with .gpu or .gpu-pack carried there):
#   check     every CUDA kernel of the built-in specs and examples/ against the
#             fp64 oracle on the edge shapes, and the resource report
#   sanitize  compute-sanitizer (memcheck, racecheck, synccheck) on the small shapes
#   bench     ssmc bench --backend cuda on the issue's shapes (bf16 inputs)
#   anchors   ../shared/anchors (fla, mamba_ssm, hybrid-model-factory) in the
#             same run, when their code is carried in .fla, .mamba, .hmf
#   ab        the working tree's kernels against each template variant packed by
#             `scripts/gpu-pack.sh REV...` (.gpu/tpl-*), interleaved, AB_ROUNDS rounds
#             (default 2), on AB_SPECS (default mamba2 gated_deltanet) at AB_SHAPE
#             (default --B 8 --T 4096 --H 16), forward only unless AB_BWD=1, only
#             the bench rows named in AB_ROWS where set (bench --rows)
#   stages    ncu's time of each kernel (bench/ncu_durations.py) in one STAGES_ROWS run (default fwd+bwd-saved)
#             of AB_SPECS at AB_SHAPE, for the working tree and each packed variant (durations.txt)
#   quick     check --backend cuda --quick on QUICK_SPECS (default: the built-in families), the working tree's
#             kernels, a line each (checks.txt)
# Usage: scripts/gpu.sh [PHASE...] (default: all but ab). Everything is written under
# OUT (default bench/gpu-<date>) with the date, GPU and commit.
set -uo pipefail
cd "$(dirname "$0")/.."
[ -x .gpu/ssmc ] || [ ! -f .gpu-pack/gpu.tar.xz ] || tar -xJf .gpu-pack/gpu.tar.xz # carried compressed (gpu-pack.sh)
export LD_LIBRARY_PATH="$PWD/.gpu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export SSMC_CACHE_DIR="${SSMC_CACHE_DIR:-$(mktemp -d)}"
S=.gpu/ssmc
out="${OUT:-bench/gpu-$(date +%F)}"
mkdir -p "$out"
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
{ echo "date: $(date -u +%FT%TZ)"; echo "gpu: $gpu"; echo "commit: $(git rev-parse --short HEAD 2>/dev/null || cat .gpu/commit 2>/dev/null)";
  echo "command: scripts/gpu.sh"; } > "$out/env.txt"
cat "$out/env.txt"
phases="${*:-check sanitize bench anchors}"
has() { [[ " $phases " == *" $1 "* ]]; }
rc=0
if has check; then
$S compile --arch sm_90a > "$out/compile.txt" 2>&1 || rc=1
specs=(dsl/families/*.yaml examples/*.yaml)
for s in "${specs[@]}"; do
  echo "== check --backend cuda $s"
  $S check --backend cuda "$s" > "$out/check-$(basename "$s" .yaml).txt" 2>&1 || rc=1
  grep -E "^check:|FAIL|error" "$out/check-$(basename "$s" .yaml).txt" | head -20
done
fi
if has sanitize && command -v compute-sanitizer >/dev/null; then
  for tool in memcheck racecheck synccheck; do
    for s in dsl/families/gated_deltanet.yaml dsl/families/mamba2.yaml dsl/families/gated_kalmanet.yaml dsl/families/kda.yaml; do
      echo "== compute-sanitizer --tool $tool $s"
      timeout 150 compute-sanitizer --tool $tool --error-exitcode 9 $S check --backend cuda --quick "$s" \
        > "$out/sanitizer-$tool-$(basename "$s" .yaml).txt" 2>&1 || rc=1
      tail -3 "$out/sanitizer-$tool-$(basename "$s" .yaml).txt"
    done
  done
fi
if has bench; then
  # the issue's shapes; K=V=64 through a copy of each spec with its dims changed
  small=$(mktemp -d)
  for s in dsl/families/*.yaml; do sed 's/dims: {K: 128, V: 128}/dims: {K: 64, V: 64}/' "$s" > "$small/$(basename "$s")"; done
  for s in gated_deltanet mamba2 gated_kalmanet gla kda deltanet; do
    f=dsl/families/$s.yaml
    echo "== bench --backend cuda $s"
    { $S bench --backend cuda --dtype bf16 "$f" --B 8 --T 4096 --H 16 --decode 1,8,64,128,512 --reps 20
      $S bench --backend cuda --dtype bf16 "$f" --B 1 --T 32768 --H 16 --decode 1 --reps 10
      $S bench --backend cuda --dtype bf16 "$small/$s.yaml" --B 8 --T 4096 --H 32 --decode 1,512 --reps 20
    } 2>&1 | tee "$out/bench-$s.txt" | grep -E "fwd|decode|error" || rc=1
  done
fi
variants=(. .gpu/tpl-*) # ab's and stages': the working tree (tree) and each packed template variant
vname() { [ "$1" = . ] && echo tree || basename "$1"; }
if has ab; then
  # one line per (round, variant, spec, forward variant): the bench rows, prefixed by the variant
  for ((r = 1; r <= ${AB_ROUNDS:-2}; r++)); do
    for s in ${AB_SPECS:-mamba2 gated_deltanet}; do
      for v in "${variants[@]}"; do
        [ -d "$v" ] || continue
        name=$(vname "$v")
        t=(); [ "$v" = . ] || t=(--templates "$v")
        $S bench --backend cuda --dtype bf16 "${t[@]}" "dsl/families/$s.yaml" ${AB_SHAPE:---B 8 --T 4096 --H 16} \
          $([ "${AB_BWD:-0}" = 1 ] || echo --no-bwd) ${AB_ROWS:+--rows "$AB_ROWS"} --decode 1 --reps 20 2>&1 | grep -E " (fwd|bwd|fwd-[a-z0-9]+|bwd-narrow|fwd\+bwd|bwd-saved|fwd\+bwd-saved) |error" |
          sed "s/^/round$r $name /" | tee -a "$out/ab.txt" || rc=1
      done
    done
  done
fi
if has stages && command -v ncu >/dev/null; then
  csv=$(mktemp)
  for v in "${variants[@]}"; do
    [ -d "$v" ] || continue
    t=(); [ "$v" = . ] || t=(--templates "$v")
    for s in ${AB_SPECS:-mamba2 gated_deltanet}; do
      timeout 150 ncu --clock-control none --metrics gpu__time_duration.sum --print-units base --csv $S bench --backend cuda \
        --dtype bf16 "${t[@]}" --rows "${STAGES_ROWS:-fwd+bwd-saved}" --reps 1 ${AB_SHAPE:---B 8 --T 4096 --H 16} \
        "dsl/families/$s.yaml" > "$csv" 2>/dev/null || rc=1
      { echo "== $(vname "$v") $s ${STAGES_ROWS:-fwd+bwd-saved}"; python3 bench/ncu_durations.py "$csv" | grep -v probe; } | tee -a "$out/durations.txt"
    done
  done
fi
if has quick; then
  log=$(mktemp)
  for f in ${QUICK_SPECS:-dsl/families/*.yaml}; do
    timeout 300 $S check --backend cuda --quick "$f" > "$log" 2>&1
    c=$?; [ $c = 0 ] || rc=1
    echo "quick $f rc=$c $(tail -n1 "$log")" | tee -a "$out/checks.txt"
    grep -E "FAIL" "$log" | head -8 >> "$out/checks.txt"
  done
fi
if has anchors; then
  anchors="${ANCHORS:-.anchors}" # gpu-pack.sh copies ../shared/anchors there
  export PYTHONUNBUFFERED=1
  [ -d .fla ] && (cd "$out" && PYTHONPATH="$OLDPWD/.fla" OUT="$PWD" timeout 400 python3 "$OLDPWD/$anchors/bench_fla.py") > "$out/anchor-fla.txt" 2>&1
  [ -d .mamba ] && (cd "$out" && PYTHONPATH="$OLDPWD/.fla:$OLDPWD/.mamba" OUT="$PWD" timeout 300 python3 "$OLDPWD/$anchors/bench_mamba.py") > "$out/anchor-mamba.txt" 2>&1
  [ -d .hmf ] && (cd "$out" && PYTHONPATH="$OLDPWD/.fla:$OLDPWD/.hmf" OUT="$PWD" timeout 300 python3 "$OLDPWD/$anchors/bench_hmf_gka.py") > "$out/anchor-hmf.txt" 2>&1
  tail -n 3 "$out"/anchor-*.txt
fi
echo "gpu.sh: exit $rc; results in $out"
exit $rc
