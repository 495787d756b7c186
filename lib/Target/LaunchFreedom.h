//===- LaunchFreedom.h - Launch configurations chosen with a kernel -*- C++
//-*-===//
//
// A candidate may bring its own block size and grid when the module holds
// every host launch of the kernel and each of them can be rebuilt from the
// kernel's sizes. This file decides that (on the MLIR side, before the
// prompt), and checks the launch a model proposes (on plain data, in the
// workers).
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_LIB_TARGET_LAUNCHFREEDOM_H
#define LLMPTX_LIB_TARGET_LAUNCHFREEDOM_H

#include "KernelDescription.h"

#include "llmptx/Runtime/Expression.h"

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

/// Parses the JSON of a launch block: {"block": [x, y, z],
/// "grid": [e, e, e]} where each grid entry is an expression (a string) or
/// an integer.
llvm::Expected<LaunchConfig> parseLaunchBlock(llvm::StringRef text);

/// Checks a proposed launch against what `freedom` allows: block within the
/// device limits (x, y <= 1024, z <= 64, at most 1024 threads), grid
/// expressions that parse, use only the sizes, and evaluate to valid grid
/// dimensions on every shape verification tests. Returns one message per
/// problem.
std::vector<std::string> checkProposedLaunch(const LaunchConfig &launch,
                                             const LaunchFreedom &freedom);

/// The prompt's paragraph about launch freedom (empty when not allowed).
std::string describeLaunchChoice(const KernelDescription &kernel);

} // namespace llmptx

#endif // LLMPTX_LIB_TARGET_LAUNCHFREEDOM_H
