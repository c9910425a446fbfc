#!/usr/bin/env bash
# Packs next/run.sh's variants (run from the repository root, this machine): the tree's templates as they are
# (the runtime's), and two candidates from session 44 as template folders beside them: .gpu/tpl-rlsep (call4/rl-sep.diff:
# the generic mm's lo part unrounded on sm_90, the wide bstate's SEP) and .gpu/tpl-z (next/z-form.diff: SEP with
# MM_TF3P from zero over all of kd, c added once at the end). Neither was timed in session 44.
set -euo pipefail
D=bench/2026-11-29-gpu-h200-s44
scripts/gpu-pack.sh
for v in rlsep:call4/rl-sep.diff z:next/z-form.diff; do
  name=${v%%:*} diff=$D/${v#*:}
  rm -rf ".gpu/tpl-$name" && mkdir -p ".gpu/tpl-$name"
  cp -r templates/. ".gpu/tpl-$name/"
  git apply -p2 --directory=".gpu/tpl-$name" "$diff"
done
rm -rf .gpu-pack && mkdir -p .gpu-pack && tar -cJf .gpu-pack/gpu.tar.xz .gpu
ls -d .gpu/tpl-*
