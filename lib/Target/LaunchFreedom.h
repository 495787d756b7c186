//===- LaunchFreedom.h - Whether a kernel's launch may be chosen -*- C++
//-*-===//
//
// A candidate may bring its own block size and grid when the module holds
// every host launch of the kernel and each of them can be rebuilt from the
// kernel's sizes. This file decides that on the MLIR side, before the
// prompt; the pipeline checks the launch a model proposes
// (llmptx/Pipeline/LaunchCheck.h).
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_LIB_TARGET_LAUNCHFREEDOM_H
#define LLMPTX_LIB_TARGET_LAUNCHFREEDOM_H

#include "llmptx/Pipeline/KernelDescription.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace llmptx {

/// Decides whether the model may choose `kernel`'s launch configuration:
/// the host module around `module` must hold a gpu.launch_func of it and no
/// other reference to it, every launch must use the block and shared memory
/// that verification uses and a grid equal to verification's on every shape
/// it tests, and each size must be readable at the launches (a scalar
/// argument or a memref dimension named by the harness's args).
LaunchFreedom analyzeLaunchFreedom(mlir::gpu::GPUModuleOp module,
                                   const KernelDescription &kernel);

} // namespace llmptx

#endif // LLMPTX_LIB_TARGET_LAUNCHFREEDOM_H
