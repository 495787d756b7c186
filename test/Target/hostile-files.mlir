// The emit-bundles folder may hold anything: a symlink named like a bundle
// is replaced by the file the compiler writes, and the file it pointed to is
// never written through; one named runner.log is not the compiler's (the
// runner's log goes to a folder of the run's own) and stays as it was.
// RUN: rm -rf %t && mkdir -p %t/bundles
// RUN: echo precious bundle > %t/bundle-target.txt
// RUN: echo precious log > %t/log-target.txt
// RUN: ln -s %t/bundle-target.txt %t/bundles/kernels.vadd.bundle.json
// RUN: ln -s %t/log-target.txt %t/bundles/runner.log
// RUN: env LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/Inputs/answers/repair" \
// RUN:   llmptx-opt %S/Inputs/vadd.mlir --llm-lower="provider=exec cache=off verify=exec runner=false emit-bundles=%t/bundles" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --check-prefix=BUNDLE-TARGET < %t/bundle-target.txt
// RUN: FileCheck %s --check-prefix=LOG-TARGET < %t/log-target.txt
// BUNDLE-TARGET: precious bundle
// LOG-TARGET: precious log
// RUN: test ! -L %t/bundles/kernels.vadd.bundle.json
// RUN: test -L %t/bundles/runner.log
// RUN: %python -m json.tool %t/bundles/kernels.vadd.bundle.json | FileCheck %s --check-prefix=BUNDLE
// BUNDLE: "format": "llmptx-verification-bundle"
