// Names and nesting the input chooses cannot reach outside the compiler's
// own files or crash it:
// - a gpu.module named like a path writes its bundle inside emit-bundles;
// - an answer whose .reqntid differs from the kernel's fixed block
//   (known_block_size 256) is refused at the compile level, before any run;
// - input nested deeper than MLIR's parser can take is an error with a
//   position, not a stack overflow.
// RUN: rm -rf %t && mkdir -p %t/a/b/bundles
// RUN: env LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/Inputs/answers/repair" \
// RUN:   llmptx-opt %S/Inputs/vadd-path-name.mlir --llm-lower="provider=exec cache=off emit-bundles=%t/a/b/bundles" -o /dev/null 2>/dev/null
// RUN: ls %t/a/b/bundles | FileCheck %s --check-prefix=BUNDLES
// RUN: not ls %t/victim.vadd.bundle.json %t/a/victim.vadd.bundle.json
// BUNDLES: {{^}}_._.._victim-{{[0-9a-f]+}}.vadd.bundle.json

// RUN: env LLMPTX_EXEC_COMMAND="%python -m llmptx.testing.scripted_model --answers %S/Inputs/answers/reqntid" \
// RUN:   llmptx-opt %S/Inputs/vadd.mlir --llm-lower="provider=exec cache=off repairs=0 select=llm" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REQNTID
// REQNTID: remark: llmgen: @vadd: using the NVPTX reference: no valid candidate: sample 0: launch-error (candidate.ptx:{{[0-9]+}}:1: error: .reqntid 128, 1, 1 differs from the block the kernel is launched with (256, 1, 1))

// RUN: %python -c "print('module attributes {llmgen.deep = ' + '[' * 200000 + ']' * 200000 + '} {}')" > %t/deep.mlir
// RUN: not llmptx-opt %t/deep.mlir -o %t/deep.out.mlir 2>&1 | FileCheck %s --check-prefix=DEEP
// RUN: %python -c "print('module attributes {llmgen.deep = 1 : ' + '!llvm.array<1 x ' * 200000 + 'i8' + '>' * 200000 + '} {}')" > %t/deep-type.mlir
// RUN: not llmptx-opt %t/deep-type.mlir -o %t/deep.out.mlir 2>&1 | FileCheck %s --check-prefix=DEEP
// DEEP: llmptx-opt: error: {{.*}}deep{{.*}}.mlir: byte {{[0-9]+}} (line 1, column {{[0-9]+}}): MLIR nested deeper than 512 levels
