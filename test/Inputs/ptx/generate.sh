#!/usr/bin/env bash
#===- generate.sh - Regenerate the reference PTX of the corpus -------------===#
#
# nvptx/*.mlir -> nvptx/*.ptx with Debian's mlir-opt-22 (LLVM NVPTX backend),
# nvcc/*.cu    -> nvcc/*.ptx  with CUDA's nvcc,
# and the large benchmark kernel from bench/ptx/make_large_kernel.py.
# The outputs are committed; run this only to refresh them.
#===------------------------------------------------------------------------===#
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
mlir_opt="${MLIR_OPT:-mlir-opt-22}"
nvcc="${NVCC:-nvcc}"
chip="${CHIP:-sm_90}"

extract() { python3 "$here/extract_ptx.py" "$1"; }

lower() { # in.mlir out.ptx [extra pipeline options]
  local tmp; tmp="$(mktemp)"
  "$mlir_opt" "$1" --gpu-lower-to-nvvm-pipeline="cubin-chip=$chip cubin-features=+ptx80 cubin-format=isa $3" -o "$tmp"
  extract "$tmp" > "$2"
  rm -f "$tmp"
}

# The benchmark kernel: only its PTX is kept (the MLIR is 140 KiB).
large="$(mktemp --suffix=.mlir)"
python3 "$root/bench/ptx/make_large_kernel.py" 60 > "$large"
lower "$large" "$here/nvptx/large_unrolled.ptx" ""
rm -f "$large"
echo "nvptx/large_unrolled.ptx: $(wc -l < "$here/nvptx/large_unrolled.ptx") lines"
for f in "$here"/nvptx/*.mlir; do
  name="$(basename "$f" .mlir)"
  extra=""
  [[ "$name" == static_bare_ptr ]] && extra="kernel-bare-ptr-calling-convention=1"
  lower "$f" "$here/nvptx/$name.ptx" "$extra"
  echo "nvptx/$name.ptx: $(wc -l < "$here/nvptx/$name.ptx") lines"
done
if command -v "$nvcc" >/dev/null; then
  for f in "$here"/nvcc/*.cu; do
    name="$(basename "$f" .cu)"
    "$nvcc" -ptx -arch="$chip" "$f" -o "$here/nvcc/$name.ptx"
    echo "nvcc/$name.ptx: $(wc -l < "$here/nvcc/$name.ptx") lines"
  done
fi
