//===- HostFacts.h - What host code states about a launch -------*- C++ -*-===//
//
// A kernel without #llmgen.harness is verified at the launch its host code
// makes, when that launch is constant: grid, block, dynamic shared memory,
// scalar operands, and the shapes of the memrefs it passes. Host code states
// them the ways MLIR's own GPU programs do: constants folded through arith
// casts and integer arithmetic, buffers from memref.alloc/alloca or
// gpu.alloc (sync, async, host_shared) through memref.cast, sizes read back
// with memref.dim. When one is not constant, the error names it.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_LIB_TARGET_HOSTFACTS_H
#define LLMPTX_LIB_TARGET_HOSTFACTS_H

#include "llmptx/Pipeline/KernelDescription.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/Support/Error.h"

namespace llmptx {

/// `launch` with its grid, block, shared memory and scalar operands as
/// constants and its memrefs' shapes; else an error naming the first value
/// that is not constant ("the grid x size (at f.mlir:12:5) is not a
/// constant: it comes from an argument of @main").
llvm::Expected<ConstantLaunch>
describeConstantLaunch(mlir::gpu::LaunchFuncOp launch);

/// The first constant launch of `kernel` in the host code around `module`;
/// else why there is none (no launch of it, or what the first launch lacks).
llvm::Expected<ConstantLaunch> findConstantLaunch(mlir::gpu::GPUModuleOp module,
                                                  llvm::StringRef kernel);

/// "file.mlir:83:5": the file's name without its directory, so prompts and
/// messages that quote it do not depend on where the module lies; or the
/// location printed.
std::string locationText(mlir::Location loc);

} // namespace llmptx

#endif // LLMPTX_LIB_TARGET_HOSTFACTS_H
