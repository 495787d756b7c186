# The pipelined step of pipeline.test, under the same local Ray cluster:
# test/Target/Inputs/exec.mlir (three kernels, one repaired after a
# mismatch) with runner=ray and gpu-jobs=2 gives the serial build's output
# and remarks. Arguments: the test's folder; environment: PYTHON, INPUTS
# (test/Target/Inputs).
set -u
T=$1
$PYTHON -m llmptx.testing.replay_runner --results $INPUTS/h200/results.json \
  --ran $INPUTS/h200/bundles -o $T/exec-standin || exit 1
MODEL="$PYTHON -m llmptx.testing.scripted_model --answers $INPUTS/answers/exec"
OPTIONS="provider=exec cache=off verify=exec repairs=1"
LLMPTX_EXEC_COMMAND="$MODEL" \
LLMPTX_RUNNER="$PYTHON -m llmptx.testing.results_replay --results $INPUTS/h200/results.json --ran $INPUTS/h200/bundles" \
  llmptx-opt $INPUTS/exec.mlir --llm-lower="$OPTIONS" -o $T/exec.serial.mlir \
  2> $T/exec.serial.txt
LLMPTX_EXEC_COMMAND="$MODEL" \
  llmptx-opt $INPUTS/exec.mlir \
  --llm-lower="$OPTIONS gpu-jobs=2 runner='ray --num-gpus-per-task 0 --runner $T/exec-standin'" \
  -o $T/exec.ray.mlir 2> $T/exec.ray.txt
grep -h "llmgen: @" $T/exec.ray.txt | sort
if cmp -s $T/exec.serial.txt $T/exec.ray.txt &&
   cmp -s $T/exec.serial.mlir $T/exec.ray.mlir; then
  echo "exec.mlir: gpu-jobs=2 through Ray: the same remarks and output as the serial runner"
else
  echo "exec.mlir: differs from the serial runner"
  diff $T/exec.serial.txt $T/exec.ray.txt
fi
