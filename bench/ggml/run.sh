#!/usr/bin/env bash
# bench stage: builds ggml (CPU only, static) from an existing checkout outside
# the ssmc repository, compiles bench_ggml.c against its public headers and
# static libraries, runs it and prints the results. Downloads nothing.
#
# usage: bench/ggml/run.sh [GGML_SRC] [GGML_BUILD] [-- bench_ggml args...]
#   GGML_SRC    ggml checkout (github.com/ggml-org/ggml, or llama.cpp's ggml/)
#               default /work/.ggml/src
#   GGML_BUILD  build directory (created if missing)  default /work/.ggml/build
#   bench args  e.g. --threads 2 --reps 9 --no-check  (see bench_ggml --help)
# env:
#   GGML_CMAKE_EXTRA  extra cmake -D flags for the ggml configure step
#   CC                C compiler for the bench (default cc)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SRC="${1:-/work/.ggml/src}"
BUILD="${2:-/work/.ggml/build}"
[ $# -gt 0 ] && shift
[ $# -gt 0 ] && shift
[ "${1:-}" = "--" ] && shift
CC="${CC:-cc}"
JOBS="$(nproc 2>/dev/null || echo 2)"

if [ ! -f "$SRC/include/ggml.h" ] || [ ! -f "$SRC/src/ggml-cpu/ops.cpp" ]; then
    echo "run.sh: $SRC does not look like a ggml checkout (need include/ggml.h, src/ggml-cpu/ops.cpp)" >&2
    exit 1
fi
if ! grep -q 'ggml_gated_delta_net' "$SRC/include/ggml.h"; then
    echo "run.sh: this ggml checkout has no ggml_gated_delta_net; use a newer ggml or llama.cpp/ggml" >&2
    exit 1
fi

# ---- configure + build ggml (CPU backend only, static, no tests/examples) --
# Everything that could fetch sources at configure time is switched off.
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
    # shellcheck disable=SC2086
    cmake -S "$SRC" -B "$BUILD" \
        -DCMAKE_BUILD_TYPE=Release \
        -DBUILD_SHARED_LIBS=OFF \
        -DGGML_NATIVE=ON \
        -DGGML_CPU=ON \
        -DGGML_CUDA=OFF -DGGML_METAL=OFF -DGGML_VULKAN=OFF -DGGML_OPENCL=OFF \
        -DGGML_SYCL=OFF -DGGML_HIP=OFF -DGGML_MUSA=OFF -DGGML_RPC=OFF \
        -DGGML_BACKEND_DL=OFF -DGGML_CPU_KLEIDIAI=OFF -DGGML_OPENMP_FETCH=OFF \
        -DGGML_BUILD_TESTS=OFF -DGGML_BUILD_EXAMPLES=OFF \
        ${GGML_CMAKE_EXTRA:-} >"$BUILD.configure.log" 2>&1 \
        || { cat "$BUILD.configure.log" >&2; exit 1; }
fi
cmake --build "$BUILD" -j "$JOBS" >"$BUILD.build.log" 2>&1 \
    || { tail -n 50 "$BUILD.build.log" >&2; exit 1; }

LIBDIR="$BUILD/src"
for l in libggml.a libggml-cpu.a libggml-base.a; do
    [ -f "$LIBDIR/$l" ] || { echo "run.sh: missing $LIBDIR/$l" >&2; exit 1; }
done

# ggml-cpu uses OpenMP when cmake found it (GGML_OPENMP=ON by default).
OMP=""
if grep -q '^GGML_OPENMP:BOOL=ON' "$BUILD/CMakeCache.txt" && grep -q '^OpenMP_C_FLAGS' "$BUILD/CMakeCache.txt"; then
    OMP="$(sed -n 's/^OpenMP_C_FLAGS:STRING=//p' "$BUILD/CMakeCache.txt")"
fi

# ---- compile the bench against ggml's public headers + static libs --------
BIN="$BUILD/bench_ggml"
# shellcheck disable=SC2086
"$CC" -O2 -std=c11 -Wall -Wextra -I"$SRC/include" "$HERE/bench_ggml.c" -o "$BIN" \
    "$LIBDIR/libggml.a" "$LIBDIR/libggml-cpu.a" "$LIBDIR/libggml-base.a" \
    $OMP -lstdc++ -lm -lpthread

# ---- provenance -------------------------------------------------------------
COMMIT="unknown"
if git -C "$SRC" rev-parse HEAD >/dev/null 2>&1; then
    COMMIT="$(git -C "$SRC" rev-parse HEAD)"
    DIRTY="$(git -C "$SRC" status --porcelain --untracked-files=no 2>/dev/null | wc -l)"
    [ "$DIRTY" != "0" ] && COMMIT="$COMMIT+dirty"
fi
CPU="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n1)"
echo "# ggml src=$SRC commit=$COMMIT"
cache() { sed -n "s/^$1:[A-Z]*=//p" "$BUILD/CMakeCache.txt" | head -n1; }
echo "# build=$BUILD CMAKE_BUILD_TYPE=$(cache CMAKE_BUILD_TYPE) BUILD_SHARED_LIBS=$(cache BUILD_SHARED_LIBS)" \
     "GGML_NATIVE=$(cache GGML_NATIVE)" \
     "extra=\"${GGML_CMAKE_EXTRA:-}\""
FLAGS_MAKE="$BUILD/src/CMakeFiles/ggml-cpu.dir/flags.make"
if [ -f "$FLAGS_MAKE" ]; then
    echo "# ggml-cpu isa flags: $(grep -o -- '-m[a-z0-9=_.-]*' "$FLAGS_MAKE" | sort -u | tr '\n' ' ')"
fi
echo "# host cpu=\"$CPU\" nproc=$(nproc) cc=\"$("$CC" --version | head -n1)\" openmp=\"${OMP:-off}\""

exec "$BIN" "$@"
