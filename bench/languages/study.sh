#!/bin/sh
# PTX, CUDA C++ and both (docs/benchmarks.md, "Candidate languages"):
# llm-lower with language=ptx, language=cuda and language=auto on each
# kernel, three samples each, mode=optimize verify=exec, answered by a model
# through the model bridge (../shared/tools/model-bridge) and verified by
# llmptx-runner on a GPU (bench/fragments/bridge-gpu.sh stage/deliver).
#
#   bench/languages/study.sh STUDY_DIR [BUILD_DIR]
#
# KERNEL_DIR (default bench/fragments/unseen) and KERNELS (default all) pick
# the kernels. The three conditions share one answer cache (STUDY_DIR/cache):
# language=auto alternates PTX and CUDA samples (0 PTX, 1 CUDA, 2 PTX), and
# each is the request the ptx or cuda run makes for that sample, so auto
# asks the model nothing new. STUDY_DIR/<language> gets the bridge (q/, a/,
# g/) and per kernel the lowered module, the report and the log.
set -eu
study=${1:?usage: study.sh STUDY_DIR [BUILD_DIR]}
build=${2:-build}
root=$(cd "$(dirname "$0")/../.." && pwd)
bridge_tools=${BRIDGE_TOOLS:-$root/../shared/tools/model-bridge}
mkdir -p "$study"
study=$(cd "$study" && pwd)
kernels=$(cd "${KERNEL_DIR:-$root/bench/fragments/unseen}" && pwd)
for language in ${LANGUAGES:-ptx cuda auto}; do
  dir=$study/$language
  mkdir -p "$dir/out"
  for k in ${KERNELS:-$(cd "$kernels" && ls *.mlir | sed 's/\.mlir$//')}; do
    ( cd "$root" && BRIDGE=$dir LLMPTX_TIMEOUT_S=${LLMPTX_TIMEOUT_S:-7000} \
        "$build/bin/llmptx-opt" "$kernels/$k.mlir" \
        --llm-lower="chip=sm_90 features=+ptx80 provider=exec exec-command='sh $bridge_tools/ask.sh' model=${MODEL:-claude-subagent} mode=optimize rounds=0 repairs=1 samples=3 language=$language verify=exec runner='sh $bridge_tools/gpu.sh' cache=readwrite cache-dir=$study/cache report=$dir/out/$k.report.json" \
        -o "$dir/out/$k.mlir" > "$dir/out/$k.log" 2>&1; echo $? > "$dir/out/$k.rc" ) &
  done
done
wait
