//===- KernelSet.h - Kernels described in JSON, outside MLIR ----*- C++ -*-===//
//
// A front end that does not speak MLIR's GPU dialect (llmptx-iree) describes
// its kernels in a JSON file and hands them to the same stages as
// `--llm-lower` (llmptx-kernels). Each kernel brings its reference PTX, its
// arguments as the reference's ABI sees them (bare pointers to buffers,
// scalars), one fixed launch and the facts the model may rely on. The
// format is documented in docs/iree.md.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_PIPELINE_KERNELSET_H
#define LLMPTX_PIPELINE_KERNELSET_H

#include "llmptx/Pipeline/KernelDescription.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace llmptx {

struct KernelSet {
  /// Names the bundles and the report's module.
  std::string name;
  std::vector<KernelDescription> kernels;
};

/// Reads a kernel set; errors name the file and the JSON path of the
/// offending value ("set.json: kernels[1].args[0].element: ...").
llvm::Expected<KernelSet> parseKernelSet(llvm::StringRef json,
                                         llvm::StringRef path);

} // namespace llmptx

#endif // LLMPTX_PIPELINE_KERNELSET_H
