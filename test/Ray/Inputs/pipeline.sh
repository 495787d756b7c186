# The steps of pipeline.test, run under one local Ray cluster
# (llmptx.testing.ray_cluster sets RAY_ADDRESS). Arguments: the test's
# folder, then the suite's kernels to build; environment: PYTHON,
# H200
# (test/Suite/Inputs/h200), SUITE (docs/suite).
set -u
T=$1
shift
$PYTHON -m llmptx.testing.replay_runner --results $H200/results.json \
  --ran $H200/bundles -o $T/standin || exit 1
OPTIONS="chip=sm_90 features=+ptx80 provider=replay model=curated cache=read cache-dir=$SUITE/cache repairs=0 verify=exec report=$T/report.json"
SERIAL="$PYTHON -m llmptx.testing.results_replay --results $H200/results.json --ran $H200/bundles"
# The shorthand: this build's llmptx-ray-runner with --runner this build's
# llmptx-runner, which the stand-in's --runner replaces.
RAY="ray --num-gpus-per-task 0 --runner $T/standin"
for kernel in "$@"; do
  LLMPTX_RUNNER="$SERIAL" llmptx-opt $SUITE/kernels/$kernel.mlir \
    --llm-lower="$OPTIONS" -o $T/$kernel.serial.mlir 2> $T/$kernel.serial.txt
  LLMPTX_RUNNER="$RAY" llmptx-opt $SUITE/kernels/$kernel.mlir \
    --llm-lower="$OPTIONS" -o $T/$kernel.ray.mlir 2> $T/$kernel.ray.txt
  mv $T/report.json $T/$kernel.ray-report.json
  grep -h "llmgen: @" $T/$kernel.ray.txt
  if cmp -s $T/$kernel.serial.txt $T/$kernel.ray.txt &&
     cmp -s $T/$kernel.serial.mlir $T/$kernel.ray.mlir; then
    echo "$kernel: the same remarks and output as the serial runner"
  else
    echo "$kernel: differs from the serial runner"
    diff $T/$kernel.serial.txt $T/$kernel.ray.txt
  fi
done
