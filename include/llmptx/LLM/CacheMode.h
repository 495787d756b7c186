//===- CacheMode.h - How a run uses the completion cache --------*- C++ -*-===//
//
// The one spelling of the cache mode: the LLM library, `llmptx-llm`, the
// `cache` setting of `#llmgen.target` and `LLMPTX_CACHE` all use it. Header
// only, so the dialect can name it without linking the LLM library.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_LLM_CACHEMODE_H
#define LLMPTX_LLM_CACHEMODE_H

#include "llvm/ADT/StringRef.h"

#include <optional>

namespace llmptx::llm {

enum class CacheMode { ReadWrite, Read, Off };

/// "readwrite", "read" or "off".
inline llvm::StringRef cacheModeName(CacheMode mode) {
  switch (mode) {
  case CacheMode::ReadWrite:
    return "readwrite";
  case CacheMode::Read:
    return "read";
  case CacheMode::Off:
    return "off";
  }
  return "";
}

/// The mode spelled `text`, or nothing.
inline std::optional<CacheMode> symbolizeCacheMode(llvm::StringRef text) {
  for (CacheMode mode : {CacheMode::ReadWrite, CacheMode::Read, CacheMode::Off})
    if (text == cacheModeName(mode))
      return mode;
  return std::nullopt;
}

} // namespace llmptx::llm

#endif // LLMPTX_LLM_CACHEMODE_H
