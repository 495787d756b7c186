//===- KernelFacts.h - Describe the kernels of a gpu.module -----*- C++ -*-===//
//
// Reads what a lowered gpu.module (and the host code around it) states about
// each kernel into KernelDescription values.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_LIB_TARGET_KERNELFACTS_H
#define LLMPTX_LIB_TARGET_KERNELFACTS_H

#include "llmptx/Pipeline/KernelDescription.h"

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

namespace llmptx {

/// Describes every kernel of `gpuModule` (lowered to the LLVM dialect). The
/// ABI's parameter types come from the entries of `referencePtx`. Fails, with
/// an error on the module, only when the reference PTX lacks a kernel.
/// With `analyzeLaunches`, each kernel's launch freedom is decided too.
mlir::FailureOr<std::vector<KernelDescription>>
describeKernels(mlir::Operation *gpuModule, llvm::StringRef referencePtx,
                bool analyzeLaunches);

} // namespace llmptx

#endif // LLMPTX_LIB_TARGET_KERNELFACTS_H
