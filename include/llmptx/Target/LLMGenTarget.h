//===- LLMGenTarget.h - #llmgen.target serialization ------------*- C++ -*-===//
//
// Registration of the `gpu::TargetAttrInterface` model of `#llmgen.target`.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_TARGET_LLMGENTARGET_H
#define LLMPTX_TARGET_LLMGENTARGET_H

namespace mlir {
class DialectRegistry;
class MLIRContext;
} // namespace mlir

namespace llmptx {

/// Attaches the target interface to `#llmgen.target` and registers what its
/// serialization needs: the NVVM target model (the reference path) and the
/// LLVM IR translations of the builtin, LLVM, GPU and NVVM dialects.
void registerLLMGenTargetInterfaceExternalModels(
    mlir::DialectRegistry &registry);
void registerLLMGenTargetInterfaceExternalModels(mlir::MLIRContext &context);

} // namespace llmptx

#endif // LLMPTX_TARGET_LLMGENTARGET_H
