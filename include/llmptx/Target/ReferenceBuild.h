//===- ReferenceBuild.h - The conventional NVVM/NVPTX build -----*- C++ -*-===//
//
// Serializes a lowered `gpu.module` through `#nvvm.target`: the reference PTX
// every LLM candidate is checked against.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_TARGET_REFERENCEBUILD_H
#define LLMPTX_TARGET_REFERENCEBUILD_H

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Support/LLVM.h"

#include <optional>
#include <string>

namespace mlir::gpu {
class GPUModuleOp;
} // namespace mlir::gpu

namespace llmptx {

struct ReferenceBuild {
  std::string ptx;         ///< PTX of the whole module.
  std::string toolkitPath; ///< CUDA toolkit used (libdevice, ptxas), or empty.
};

/// Finds the CUDA toolkit root by llmptx/Runtime/CudaToolkit.h's search:
/// the options' toolkit path, then CUDA_HOME, CUDA_PATH, the folder above
/// `ptxas` on PATH, then /usr/local/cuda. Returns an empty string when none
/// is found.
std::string findCudaToolkitRoot(llvm::StringRef fromOptions);

/// Runs the NVVM serialization of `module` (already lowered to the LLVM and
/// NVVM dialects) with `nvvmTarget` in assembly mode. Errors are emitted on
/// the module and yield std::nullopt.
std::optional<ReferenceBuild>
buildReference(mlir::Operation *module, mlir::Attribute nvvmTarget,
               const mlir::gpu::TargetOptions &options);

} // namespace llmptx

#endif // LLMPTX_TARGET_REFERENCEBUILD_H
