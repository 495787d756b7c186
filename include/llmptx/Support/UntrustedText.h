//===- UntrustedText.h - Limits on text the project did not write -*- C++ -*-=//
//
// Model answers, cache entries, harnesses and bundles come from outside.
// Every parser that reads them is recursive somewhere (llvm::json's parser,
// nlohmann's serializer, the size-expression evaluator), so each checks the
// text against these limits first: a too-deep or too-large input is an error
// with a position, never a stack overflow or an allocation storm.
//
// Header-only: the PTX, LLM and Runtime libraries share it and depend on
// nothing else in common.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_SUPPORT_UNTRUSTEDTEXT_H
#define LLMPTX_SUPPORT_UNTRUSTEDTEXT_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace llmptx::untrusted {

/// The deepest JSON nesting any project format uses is under 10; 128 leaves
/// room for metadata and stays far from any stack limit.
inline constexpr unsigned kMaxJsonDepth = 128;

/// Cache entries, bundles and results are read whole; none the project
/// writes comes near this (a bundle with four 1 MiB candidates is ~5 MiB).
inline constexpr uint64_t kMaxDocumentBytes = 256ull << 20;

/// A model answer larger than this is refused before it is cached or
/// compiled: the largest proven kernels (unrolled wgmma main loops) are
/// ~300 KiB of PTX, and ptxas takes minutes on multi-megabyte answers.
inline constexpr size_t kMaxAnswerBytes = 1u << 20;

/// Size expressions ("ceildiv(N, 256)") stay short; these bound the parser's
/// recursion and the evaluator's tree.
inline constexpr size_t kMaxExpressionBytes = 4096;
inline constexpr unsigned kMaxExpressionDepth = 64;
inline constexpr size_t kMaxExpressionNodes = 1024;

/// `text` for an error message: whole when short, otherwise its first
/// `maxBytes` and the total length, so a 40 KiB expression does not become a
/// 40 KiB diagnostic.
inline std::string clipForMessage(std::string_view text,
                                  size_t maxBytes = 120) {
  if (text.size() <= maxBytes)
    return std::string(text);
  return std::string(text.substr(0, maxBytes)) + "... (" +
         std::to_string(text.size()) + " bytes)";
}

/// Where the JSON text `text` nests deeper than `maxDepth` (brackets and
/// braces outside strings): "byte B (line L, column C): JSON nested deeper
/// than D levels", or nothing when it does not. Does not validate the rest
/// of the syntax; the parser that runs next does.
inline std::optional<std::string>
findExcessiveJsonNesting(std::string_view text,
                         unsigned maxDepth = kMaxJsonDepth) {
  unsigned depth = 0;
  bool inString = false, escaped = false;
  size_t line = 1, column = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    ++column;
    if (c == '\n') {
      ++line;
      column = 0;
    }
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > maxDepth)
        return "byte " + std::to_string(i + 1) + " (line " +
               std::to_string(line) + ", column " + std::to_string(column) +
               "): JSON nested deeper than " + std::to_string(maxDepth) +
               " levels";
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

} // namespace llmptx::untrusted

#endif // LLMPTX_SUPPORT_UNTRUSTEDTEXT_H
