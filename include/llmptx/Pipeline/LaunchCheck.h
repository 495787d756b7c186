//===- LaunchCheck.h - Launch configurations a model proposes ---*- C++ -*-===//
//
// When a front end found a kernel's launch free (KernelDescription's
// LaunchFreedom), the model may propose its own block and grid in a launch
// block; these functions spell the offer for the prompt, read the block and
// check it on plain data.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_PIPELINE_LAUNCHCHECK_H
#define LLMPTX_PIPELINE_LAUNCHCHECK_H

#include "llmptx/Pipeline/KernelDescription.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace llmptx {

/// Whether candidates for `chip` may ask for tensor maps and large dynamic
/// shared memory: sm_90a and later arch-specific chips.
bool offersTensorMaps(llvm::StringRef chip);

/// Parses the JSON of a launch block: {"block": [x, y, z],
/// "grid": [e, e, e], "dynamic_shared_bytes": n, "tensor_maps": [...]}
/// where each grid entry is an expression (a string) or an integer. A block
/// with only dynamic_shared_bytes or tensor_maps keeps `original`'s block
/// and grid.
llvm::Expected<LaunchConfig> parseLaunchBlock(llvm::StringRef text,
                                              const LaunchConfig &original);

/// Checks a proposed launch against what `kernel.launch` allows: block
/// within the device limits (x, y <= 1024, z <= 64, at most 1024 threads),
/// grid expressions that parse, use only the sizes, and evaluate to valid
/// grid dimensions on every shape verification tests; dynamic shared memory
/// within 227 KiB; tensor maps only for `chip` sm_90a and later, over a
/// memref argument, within the driver's limits (runtime/TensorMap.h), on a
/// base the module states 16-byte aligned and rows of a multiple of 16
/// bytes at every shape. Returns one message per problem.
std::vector<std::string> checkProposedLaunch(const LaunchConfig &launch,
                                             const KernelDescription &kernel,
                                             llvm::StringRef chip);

/// The prompt's paragraph about launch freedom (empty when not allowed),
/// with tensor maps and dynamic shared memory for sm_90a and later.
std::string describeLaunchChoice(const KernelDescription &kernel,
                                 llvm::StringRef chip);

} // namespace llmptx

#endif // LLMPTX_PIPELINE_LAUNCHCHECK_H
