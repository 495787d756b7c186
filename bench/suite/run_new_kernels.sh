#!/bin/sh
# The suite's benchmark driver on a GPU machine for the kernels of issue 27
# item 4 and the f16 GEMM they are measured next to: hgemm,
# hgemm_bias_relu_f16, attention_d64 and attention_d128. Runs from the
# repository root with python3, torch, Triton and cuda-python (no LLVM, no
# MLIR, no build: the PTX objects are docs/suite/objects) and leaves one
# tarball, $OUT/suite-new-kernels.tar.gz, with
#
#   env.txt               nvidia-smi, python, torch, Triton, cuda-python
#   dry-run.txt           the launch plans (the same check as on the CPU)
#   <group>.log/.json/.rc one benchmark run per group (gemm, attention_d64,
#                         attention_d128), each under its own time limit so a
#                         slow or failing group leaves the others' results
#   bench.json, bench.md, bench.png
#                         the groups' rows in one table (bench --from-json)
#
#   OUT=/some/dir bench/suite/run_new_kernels.sh        (RUNS=30 by default)
#
# What to look at: in bench.md, per row, the select=auto column (object 0 of
# select=auto verify=exec: for these three new kernels the NVPTX reference
# until answers exist, for hgemm the curated answer), Triton, PyTorch and
# vendor (cuBLAS/cuBLASLt through torch; scaled_dot_product_attention and
# the backend torch chose, in the notes), "% vendor", and the check column
# (NVPTX/select=auto/Triton/vendor against the PyTorch reference: every
# entry should say pass). A FAIL or an exception in a <group>.log is a
# finding: for NVPTX it means the harness's tolerance or the reference is
# wrong, for Triton or vendor the tolerance is too tight for them.
set -u
cd "$(dirname "$0")/../.."
: "${OUT:?set OUT to the folder the tarball goes to}"
RUNS=${RUNS:-30}
work=$(mktemp -d)
# A Python with the llmptx package: PYTHON if given, else a virtual
# environment over the machine's own packages (torch, Triton) that sees
# this checkout's package, offline and without pip (docs/python.md): two
# .pth files, one with every package folder python3 itself sees
# (--system-site-packages leaves out the user's site, where the GPU machine
# has torch and Triton), one with the checkout's python/ (what an editable
# install writes).
if [ -n "${PYTHON:-}" ]; then
  python=$PYTHON
else
  python3 -m venv --system-site-packages --without-pip "$work/venv" &&
    site=$("$work/venv/bin/python3" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])') &&
    python3 -c 'import sys; print("\n".join(p for p in sys.path if p.endswith("-packages")))' \
      > "$site/machine-packages.pth" &&
    echo "$(pwd)/python" > "$site/llmptx-checkout.pth" ||
    { echo "error: cannot make a Python with the llmptx package (set PYTHON to a Python that has it)" >&2; exit 2; }
  python=$work/venv/bin/python3
fi

{
  date -u
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total \
    --format=csv 2>&1
  $python --version 2>&1
  $python -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' 2>&1
  $python -c 'import triton; print("triton", triton.__version__)' 2>&1
  $python -c 'from cuda.bindings import driver; print("cuda-python: cuda.bindings")' 2>&1 ||
    $python -c 'from cuda import cuda; print("cuda-python: cuda.cuda")' 2>&1
  git rev-parse HEAD 2>&1
} > "$work/env.txt"

$python -m llmptx.suite.bench --dry-run --kernel hgemm \
  --kernel hgemm_bias_relu_f16 --kernel attention_d64 \
  --kernel attention_d128 > "$work/dry-run.txt" 2>&1

# group name, time limit in seconds, kernels.
run_group() {
  name=$1 limit=$2
  shift 2
  args=""
  for k in "$@"; do args="$args --kernel $k"; done
  echo "== $name: $*"
  # shellcheck disable=SC2086
  timeout "$limit" $python -m llmptx.suite.bench $args --runs "$RUNS" \
    --json "$work/$name.json" > "$work/$name.log" 2>&1
  echo $? > "$work/$name.rc"
  tail -n 12 "$work/$name.log"
}
run_group gemm 200 hgemm hgemm_bias_relu_f16
run_group attention_d64 150 attention_d64
run_group attention_d128 150 attention_d128

# One table of every group that finished.
$python - "$work" > "$work/merge.txt" 2>&1 <<'EOP'
import json, os, sys
work = sys.argv[1]
env, rows, commands = None, [], []
for name in ('gemm', 'attention_d64', 'attention_d128'):
    path = os.path.join(work, name + '.json')
    if not os.path.exists(path):
        print('%s: no results' % name)
        continue
    with open(path) as handle:
        part = json.load(handle)
    env = env or part['env']
    rows += part['rows']
    commands.append(part['command'])
if env is not None:
    with open(os.path.join(work, 'bench.json'), 'w') as handle:
        json.dump({'env': env, 'rows': rows,
                   'command': ' && '.join(commands)}, handle, indent=1)
print('%d rows' % len(rows))
EOP
if [ -f "$work/bench.json" ]; then
  $python -m llmptx.suite.bench --from-json "$work/bench.json" \
    --out "$work/bench.md" --plot "$work/bench.png" >> "$work/merge.txt" 2>&1
fi
cat "$work/merge.txt"
mkdir -p "$OUT"
tar czf "$OUT/suite-new-kernels.tar.gz" -C "$work" .
echo "wrote $OUT/suite-new-kernels.tar.gz"
