// REQUIRES: ptxas
// format=bin: both objects are cubins assembled from the PTX each slot holds
// (the reference's LLVM codegen does not run a second time).
// RUN: llmptx-opt %llmptx_src/docs/examples/kernels.mlir --llm-lower="provider=replay model=curated cache=read cache-dir=%llmptx_src/docs/examples/cache verify=compile select=llm format=bin" -o %t.mlir
// RUN: %python -m llmptx.gpu_binary %t.mlir --summary | FileCheck %s --check-prefix=SUMMARY
// RUN: grep -o '>, bin = "' %t.mlir | wc -l | FileCheck %s --check-prefix=FORMAT
// RUN: %python -m llmptx.gpu_binary %t.mlir --object 0 -o %t.0.cubin
// RUN: %python -m llmptx.gpu_binary %t.mlir --object 1 -o %t.1.cubin
// RUN: %python -c "import sys; [sys.exit(open(f, 'rb').read(4) != b'\x7fELF') for f in sys.argv[1:]]" %t.0.cubin %t.1.cubin
// RUN: not cmp -s %t.0.cubin %t.1.cubin

// SUMMARY: kernels[0] slot=selected source=llm {{.*}}@relu_f16=llm(s0r0), @saxpy=llm(s0r0), @vadd=llm(s0r0)
// SUMMARY: kernels[1] slot=alternate source=nvptx

// FORMAT: {{^ *2$}}
