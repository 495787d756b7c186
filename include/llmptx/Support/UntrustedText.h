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

/// A name from the input (a module, kernel set or kernel name) as one
/// component of a file name: unchanged when it is already a safe one
/// (letters, digits, '_', '-', '+', '.', not starting with '.', at most 96
/// bytes); otherwise every other byte becomes '_', it is cut to 80 bytes and
/// a hash of the whole name is appended, so "../../victim" can neither leave
/// the folder it is written in nor collide with the plain "_.._victim".
inline std::string fileNameComponent(std::string_view name) {
  constexpr size_t kMaxBytes = 96, kKeptBytes = 80;
  auto safe = [](unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '+' ||
           c == '.';
  };
  bool unchanged =
      !name.empty() && name.size() <= kMaxBytes && name.front() != '.';
  for (unsigned char c : name)
    unchanged = unchanged && safe(c);
  if (unchanged)
    return std::string(name);
  std::string component;
  for (unsigned char c : name.substr(0, kKeptBytes))
    component += safe(c) ? static_cast<char>(c) : '_';
  if (!component.empty() && component.front() == '.')
    component.front() = '_';
  // FNV-1a: the same name gives the same file on every machine.
  uint32_t hash = 2166136261u;
  for (unsigned char c : name)
    hash = (hash ^ c) * 16777619u;
  static constexpr char kHex[] = "0123456789abcdef";
  component += '-';
  for (int shift = 28; shift >= 0; shift -= 4)
    component += kHex[(hash >> shift) & 0xf];
  return component;
}

namespace detail {
/// The bracket syntax of a text format, for findExcessive*Nesting.
struct NestingSyntax {
  const char *language;
  /// MLIR: `<...>` nests too (types, attributes), `->` does not close one,
  /// and `//` starts a comment to the end of the line.
  bool mlir;
};

inline std::optional<std::string> findExcessiveNesting(std::string_view text,
                                                       unsigned maxDepth,
                                                       NestingSyntax syntax) {
  unsigned depth = 0;
  bool inString = false, escaped = false, inComment = false;
  size_t line = 1, column = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    ++column;
    if (c == '\n') {
      ++line;
      column = 0;
      inComment = false;
    }
    if (inComment)
      continue;
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
      continue;
    }
    bool opens =
        c == '[' || c == '{' || (syntax.mlir && (c == '(' || c == '<'));
    bool closes = c == ']' || c == '}' ||
                  (syntax.mlir &&
                   (c == ')' || (c == '>' && (i == 0 || text[i - 1] != '-'))));
    if (c == '"') {
      inString = true;
    } else if (syntax.mlir && c == '/' && i + 1 < text.size() &&
               text[i + 1] == '/') {
      inComment = true;
    } else if (opens) {
      if (++depth > maxDepth)
        return "byte " + std::to_string(i + 1) + " (line " +
               std::to_string(line) + ", column " + std::to_string(column) +
               "): " + syntax.language + " nested deeper than " +
               std::to_string(maxDepth) + " levels";
    } else if (closes && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}
} // namespace detail

/// Where the JSON text `text` nests deeper than `maxDepth` (brackets and
/// braces outside strings): "byte B (line L, column C): JSON nested deeper
/// than D levels", or nothing when it does not. Does not validate the rest
/// of the syntax; the parser that runs next does.
inline std::optional<std::string>
findExcessiveJsonNesting(std::string_view text,
                         unsigned maxDepth = kMaxJsonDepth) {
  return detail::findExcessiveNesting(text, maxDepth, {"JSON", false});
}

/// MLIR's parser recurses once per nested attribute, type, region or
/// parenthesis and overflows the stack a few thousand levels down; no
/// program the project reads nests near this.
inline constexpr unsigned kMaxMlirDepth = 512;

/// The same for MLIR text: brackets, braces, parentheses and angle brackets
/// outside strings and comments ("MLIR nested deeper than ...").
inline std::optional<std::string>
findExcessiveMlirNesting(std::string_view text,
                         unsigned maxDepth = kMaxMlirDepth) {
  return detail::findExcessiveNesting(text, maxDepth, {"MLIR", true});
}

} // namespace llmptx::untrusted

#endif // LLMPTX_SUPPORT_UNTRUSTEDTEXT_H
