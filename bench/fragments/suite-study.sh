#!/bin/sh
# Fragments on and off over the kernel suite: one llm-lower run per suite
# kernel and condition, answered by a model through the model bridge
# (../shared/tools/model-bridge) and verified by llmptx-runner on a GPU.
#
#   bench/fragments/suite-study.sh STUDY_DIR [BUILD_DIR]
#
# KERNEL_DIR (environment) is where the kernels are, default docs/suite/kernels
# (bench/fragments/unseen: kernels the fragments were not cut from); KERNELS
# names some of them, default all; a kernel no fragment applies to gets the
# same prompt either way.
#
# STUDY_DIR/with and STUDY_DIR/without each get a bridge (q/ requests,
# a/ answers, g/ runner calls), a cache of the answers (cache/, so the run
# replays), and per kernel the lowered module, the report and the log.
# The runs wait for answers and runner results (docs/benchmarks.md says how
# they were given).
set -eu
study=${1:?usage: suite-study.sh STUDY_DIR [BUILD_DIR]}
build=${2:-build}
root=$(cd "$(dirname "$0")/../.." && pwd)
bridge_tools=${BRIDGE_TOOLS:-$root/../shared/tools/model-bridge}
mkdir -p "$study"
study=$(cd "$study" && pwd)
for condition in without with; do
  case $condition in with) on=true ;; *) on=false ;; esac
  dir=$study/$condition
  mkdir -p "$dir/out"
  kernels=${KERNEL_DIR:-$root/docs/suite/kernels}
  for k in ${KERNELS:-$(cd "$kernels" && ls *.mlir | sed 's/\.mlir$//')}; do
    kernel=$(cd "$kernels" && pwd)/$k.mlir
    ( cd "$root" && BRIDGE=$dir LLMPTX_TIMEOUT_S=${LLMPTX_TIMEOUT_S:-4000} \
        "$build/bin/llmptx-opt" "$kernel" \
        --llm-lower="chip=sm_90 features=+ptx80 provider=exec exec-command='sh $bridge_tools/ask.sh' model=${MODEL:-claude-subagent} mode=optimize rounds=0 repairs=1 samples=1 verify=exec runner='sh $bridge_tools/gpu.sh' cache=readwrite cache-dir=$dir/cache fragments=$on report=$dir/out/$k.report.json" \
        -o "$dir/out/$k.mlir" > "$dir/out/$k.log" 2>&1; echo $? > "$dir/out/$k.rc" ) &
  done
done
wait
