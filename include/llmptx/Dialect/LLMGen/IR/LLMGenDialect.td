//===- LLMGenDialect.td - The llmgen dialect ---------------*- tablegen -*-===//
//
// The `llmgen` dialect holds the attributes that route a `gpu.module` through
// an LLM backend: the `#llmgen.target` GPU target and the `#llmgen.harness`
// facts a kernel author states for verification.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_DIALECT_LLMGEN_IR_LLMGENDIALECT_TD
#define LLMPTX_DIALECT_LLMGEN_IR_LLMGENDIALECT_TD

include "mlir/IR/OpBase.td"

def LLMGen_Dialect : Dialect {
  let name = "llmgen";
  let cppNamespace = "::llmptx::llmgen";
  let summary = "LLM-generated PTX as a GPU compilation target";
  let description = [{
    The `llmgen` dialect makes a large language model a backend of the GPU
    compilation flow. Its `#llmgen.target` attribute implements
    `gpu::TargetAttrInterface`: when `gpu-module-to-binary` serializes a
    `gpu.module` carrying it, each kernel is built twice, once by the
    conventional NVVM/NVPTX path (the reference, and the fallback) and once by
    asking a model for PTX. LLM kernels are linted, checked against the
    reference's ABI, compiled, and optionally executed against the reference
    on a GPU; only a verified kernel is ever selected.

    The objects it creates carry `#nvvm.target`, so `gpu-to-llvm`,
    `mlir-translate` and the CUDA runtime wrappers handle them unchanged.
  }];
  // #llmgen.target builds #nvvm.target (the reference path) and #gpu.object.
  let dependentDialects = ["::mlir::NVVM::NVVMDialect",
                           "::mlir::gpu::GPUDialect"];
  let useDefaultAttributePrinterParser = 1;
  // `llmgen.harness` is checked against the gpu.func it describes.
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
  }];
}

#endif // LLMPTX_DIALECT_LLMGEN_IR_LLMGENDIALECT_TD
