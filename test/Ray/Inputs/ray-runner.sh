# The steps of ray-runner.test, run under one local Ray cluster
# (llmptx.testing.ray_cluster sets RAY_ADDRESS). Arguments: the test's
# folder; environment: PYTHON, RAY_RUNNER (the llmptx-ray-runner command),
# H200 (test/Suite/Inputs/h200), CHECK (check_ray_results.py).
set -u
T=$1
B=$H200/bundles

# The stand-ins: one that answers, one that plays faults.
$PYTHON -m llmptx.testing.replay_runner --results $H200/results.json \
  --ran $B -o $T/standin --state $T/state
$PYTHON -m llmptx.testing.replay_runner --results $H200/results.json \
  --ran $B -o $T/faulty --state $T/faults --kill-worker-once vadd \
  --crash-once saxpy --hang-once softmax --kill-worker-always hgemm

# The serial run, the reference of every comparison.
$PYTHON -m llmptx.testing.results_replay --results $H200/results.json \
  --ran $B -o $T/serial.json $B/*.json || exit 1

echo "== spread"
$RAY_RUNNER --runner $T/standin $B/*.json -o $T/ray.json > $T/ray.log 2>&1
echo "exit $?"
$PYTHON $CHECK same $T/serial.json $T/ray.json
$PYTHON $CHECK spread $T/ray.json $T/state/runs.jsonl

echo "== faults"
$RAY_RUNNER --runner $T/faulty --task-timeout 3 $B/*.json \
  -o $T/faults.json > $T/faults.log 2>&1
echo "exit $?"
grep "^llmptx-ray-runner: error:" $T/faults.log
$PYTHON $CHECK attempts $T/faults.json
$PYTHON $CHECK same $T/serial.json $T/faults.json --except hgemm

echo "== no GPU"
$RAY_RUNNER --runner $T/standin --num-gpus-per-task 2 $B/vadd*.json \
  -o $T/none.json
echo "exit $? results written: $(test -e $T/none.json && echo yes || echo no)"

echo "== probe"
$RAY_RUNNER --runner $T/standin --probe
echo "exit $?"

echo "== usage"
$RAY_RUNNER --runner $T/standin $B/vadd*.json
echo "exit $?"
