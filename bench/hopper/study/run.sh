#!/bin/sh
# The Hopper model study (docs/benchmarks.md, "Hopper: a model through the
# pipeline"): llm-lower in optimize mode on the study's GEMM and attention
# for chip=sm_90a, answered by a model through the model bridge
# (../shared/tools/model-bridge) and verified by llmptx-runner on a GPU
# (bench/fragments/bridge-gpu.sh stage/deliver carries the runner calls).
#
#   bench/hopper/study/run.sh STUDY_DIR [BUILD_DIR]
#
# STUDY_DIR/<kernel> gets the bridge (q/ requests, a/ answers, g/ runner
# calls), the answer cache (cache/, so the run replays), the lowered module,
# the report and the log. SAMPLES (default 3), ROUNDS (default 0) and
# LANGUAGE (default cuda) set the options of the same names.
set -eu
study=${1:?usage: run.sh STUDY_DIR [BUILD_DIR]}
build=${2:-build}
root=$(cd "$(dirname "$0")/../../.." && pwd)
bridge_tools=${BRIDGE_TOOLS:-$root/../shared/tools/model-bridge}
mkdir -p "$study"
study=$(cd "$study" && pwd)
for k in hgemm attention; do
  dir=$study/$k
  mkdir -p "$dir/out"
  ( cd "$root" && BRIDGE=$dir LLMPTX_TIMEOUT_S=${LLMPTX_TIMEOUT_S:-7000} \
      "$build/bin/llmptx-opt" "bench/hopper/study/$k.mlir" \
      --llm-lower="chip=sm_90a provider=exec exec-command='sh $bridge_tools/ask.sh' model=${MODEL:-claude-subagent} mode=optimize rounds=${ROUNDS:-0} repairs=1 samples=${SAMPLES:-3} language=${LANGUAGE:-cuda} verify=exec runner='sh $bridge_tools/gpu.sh' cache=readwrite cache-dir=$dir/cache report=$dir/out/$k.report.json" \
      -o "$dir/out/$k.mlir" > "$dir/out/$k.log" 2>&1; echo $? > "$dir/out/$k.rc" ) &
done
wait
