// emit-bundles=DIR gets the bundles and nothing else: the runner's results
// and log go to a temporary folder of the run's own, so a user's
// DIR/results.json and DIR/runner.log (or symlinks of those names) are
// never replaced (issue 29). The runner here writes results (the H200's,
// handed back by results_replay), which llm-lower reads and applies.
// RUN: rm -rf %t && mkdir -p %t/bundles
// RUN: echo my results > %t/bundles/results.json
// RUN: echo my log > %t/bundles/runner.log
// RUN: env LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/Inputs/answers/exec" \
// RUN:   LLMPTX_RUNNER="%python -m llmptx.testing.results_replay --results %S/Inputs/h200/results.json --ran %S/Inputs/h200/bundles" \
// RUN:   llmptx-opt %S/Inputs/exec.mlir --llm-lower="provider=exec cache=off verify=exec repairs=1 emit-bundles=%t/bundles" \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --check-prefix=RESULTS < %t/bundles/results.json
// RUN: FileCheck %s --check-prefix=LOG < %t/bundles/runner.log
// RUN: ls -A %t/bundles | FileCheck %s --check-prefix=LS

// The results were read (saxpy is selected on them) ...
// REMARK: remark: llmgen: @saxpy: selected the LLM kernel: candidate s0r0 verified by execution
// ... and the user's files are as they were.
// RESULTS: {{^}}my results{{$}}
// LOG: {{^}}my log{{$}}
// LS-NOT: tmp
// LS: kernels.relu_f16.bundle.json
// LS: kernels.relu_f16.round1.bundle.json
// LS: kernels.saxpy.bundle.json
// LS: kernels.vadd4.bundle.json
// LS: results.json
// LS-NEXT: runner.log
// LS-NOT: {{.}}
