//===- PtxExtraction.h - Find the code in a completion ----------*- C++ -*-===//
//
// Models wrap their answer in prose, use several fenced blocks, forget the
// fence or get cut off by the token limit. extractPtx picks the block that is
// a PTX module, extractCuda the one that is a CUDA C++ kernel, and each says
// in `note` what it did, so a report can explain a surprising choice.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_LLM_PTXEXTRACTION_H
#define LLMPTX_LLM_PTXEXTRACTION_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace llmptx::llm {

struct ExtractedAnswer {
  bool found = false;
  /// The PTX module, or the CUDA C++ translation unit.
  std::string code;
  /// What was done, e.g. "took the 2nd of 3 fenced blocks"; on failure, why
  /// nothing was found.
  std::string note;
  /// The content of the last fenced block tagged `launch` (a launch
  /// configuration the model chose), when there is one.
  std::optional<std::string> launch;
};

ExtractedAnswer extractPtx(llvm::StringRef completion);

/// The last fenced block tagged cuda (or cu, cpp, c++) that defines a
/// `__global__` function, else the last untagged or other block that does;
/// unfenced code is not taken (a CUDA answer has no directive to start at).
ExtractedAnswer extractCuda(llvm::StringRef completion);

} // namespace llmptx::llm

#endif // LLMPTX_LLM_PTXEXTRACTION_H
