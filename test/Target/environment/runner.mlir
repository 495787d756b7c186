// LLMPTX_RUNNER is the command that runs llmptx-runner when the runner
// option is not given (verify=exec); the option wins when it is. Both
// commands here say why they did not run, and the compiler passes it on.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf '#!/bin/sh\necho "runner from the environment: $*" >&2\nexit 2\n' > %t/env-runner.sh
// RUN: printf '#!/bin/sh\necho "runner from the option" >&2\nexit 2\n' > %t/option-runner.sh
// RUN: chmod +x %t/env-runner.sh %t/option-runner.sh
// RUN: env LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/../Inputs/answers/repair" \
// RUN:   LLMPTX_RUNNER=%t/env-runner.sh llmptx-opt %S/../Inputs/vadd.mlir --llm-lower="provider=exec cache=off verify=exec" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ENV
// ENV: remark: llmgen: verify=exec: runner from the environment: {{.*}}kernels.vadd.bundle.json -o {{.*}}results.json; candidates are verified at the compile level only
// RUN: env LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/../Inputs/answers/repair" \
// RUN:   LLMPTX_RUNNER=%t/env-runner.sh llmptx-opt %S/../Inputs/vadd.mlir --llm-lower="provider=exec cache=off verify=exec runner=%t/option-runner.sh" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=OPTION
// OPTION: remark: llmgen: verify=exec: runner from the option; candidates are verified at the compile level only
