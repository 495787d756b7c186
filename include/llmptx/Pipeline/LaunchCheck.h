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

#endif // LLMPTX_PIPELINE_LAUNCHCHECK_H
