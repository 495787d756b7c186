//===- PtxComposition.h - One PTX module from per-kernel choices -*- C++ -*-=//
//
// A gpu.module with several kernels becomes one object: the reference PTX
// with the entries of LLM-selected kernels replaced by the candidates'.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_PIPELINE_PTXCOMPOSITION_H
#define LLMPTX_PIPELINE_PTXCOMPOSITION_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace llmptx {

struct KernelReplacement {
  std::string entry; ///< The kernel's entry name.
  std::string ptx;   ///< A whole candidate module defining it.
};

/// Returns the reference module with each replaced entry removed and each
/// candidate's functions and module-scope variables appended. Module-scope
/// symbols of a candidate other than its entry are renamed with a
/// `__llmgen_<entry>_` prefix so candidates cannot collide with the
/// reference or each other; the `.version` becomes the highest of all.
llvm::Expected<std::string>
composePtxModule(llvm::StringRef referencePtx,
                 const std::vector<KernelReplacement> &replacements);

} // namespace llmptx

#endif // LLMPTX_PIPELINE_PTXCOMPOSITION_H
