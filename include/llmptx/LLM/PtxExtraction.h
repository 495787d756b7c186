//===- PtxExtraction.h - Find the PTX module in a completion ----*- C++ -*-===//
//
// Models wrap their answer in prose, use several fenced blocks, forget the
// fence or get cut off by the token limit. extractPtx picks the block that is
// a PTX module and says in `note` what it did, so a report can explain a
// surprising choice.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_LLM_PTXEXTRACTION_H
#define LLMPTX_LLM_PTXEXTRACTION_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace llmptx::llm {

struct ExtractedPtx {
  bool found = false;
  std::string ptx;
  /// What was done, e.g. "took the 2nd of 3 fenced blocks"; on failure, why
  /// nothing was found.
  std::string note;
  /// The content of the last fenced block tagged `launch` (a launch
  /// configuration the model chose), when there is one.
  std::optional<std::string> launch;
};

ExtractedPtx extractPtx(llvm::StringRef completion);

} // namespace llmptx::llm

#endif // LLMPTX_LLM_PTXEXTRACTION_H
