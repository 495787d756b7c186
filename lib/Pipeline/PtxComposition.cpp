//===- PtxComposition.cpp - One PTX module from per-kernel choices -*- C++ -*-//
//
// Works on lines, using the PTX parser's locations: directives and
// functions start on their own lines in what the NVPTX backend, nvcc, Triton
// and models emit, and the parser rejects anything it cannot place.
//
//===----------------------------------------------------------------------===//

#include "llmptx/Pipeline/PtxComposition.h"

#include "llmptx/PTX/Parser.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llmptx;

static llvm::Error compositionError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

static bool isIdentifierChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '$';
}

/// Renames whole identifiers outside comments and string literals.
static std::string
renameIdentifiers(llvm::StringRef text,
                  const llvm::StringMap<std::string> &names) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      size_t end = text.find('\n', i);
      end = end == llvm::StringRef::npos ? text.size() : end;
      out.append(text.data() + i, end - i);
      i = end;
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      size_t end = text.find("*/", i + 2);
      end = end == llvm::StringRef::npos ? text.size() : end + 2;
      out.append(text.data() + i, end - i);
      i = end;
      continue;
    }
    if (c == '"') {
      size_t end = text.find('"', i + 1);
      end = end == llvm::StringRef::npos ? text.size() : end + 1;
      out.append(text.data() + i, end - i);
      i = end;
      continue;
    }
    // A register (%r1) or directive (.reg) is never a module-scope symbol.
    bool sigil = (c == '%' || c == '.') && i + 1 < text.size() &&
                 isIdentifierChar(text[i + 1]);
    if (sigil || isIdentifierChar(c)) {
      size_t end = i + 1;
      while (end < text.size() && isIdentifierChar(text[end]))
        ++end;
      llvm::StringRef word = text.slice(i, end);
      auto renamed = sigil ? names.end() : names.find(word);
      if (renamed != names.end() && !llvm::isDigit(c))
        out += renamed->second;
      else
        out += word;
      i = end;
      continue;
    }
    out += c;
    ++i;
  }
  return out;
}

static void splitLines(llvm::StringRef text,
                       llvm::SmallVectorImpl<llvm::StringRef> &lines) {
  text.split(lines, '\n', -1, true);
}

llvm::Expected<std::string>
llmptx::composePtxModule(llvm::StringRef referencePtx,
                         const std::vector<KernelReplacement> &replacements) {
  if (replacements.empty())
    return referencePtx.str();

  ptx::ParseResult reference = ptx::parsePtx(referencePtx);
  if (!reference.ok())
    return compositionError("the reference PTX does not parse");
  unsigned version = reference.module.version();

  // Lines (1-based, inclusive) of the reference entries to drop.
  llvm::SmallVector<std::pair<unsigned, unsigned>> dropped;
  std::string appended;
  for (const KernelReplacement &replacement : replacements) {
    const ptx::Function *entry =
        reference.module.findFunction(replacement.entry);
    if (!entry || !entry->hasBody)
      return compositionError("the reference has no entry '" +
                              replacement.entry + "'");
    dropped.emplace_back(entry->loc.line, entry->bodyEnd.line);

    ptx::ParseResult candidate = ptx::parsePtx(replacement.ptx);
    if (!candidate.ok())
      return compositionError("the candidate for '" + replacement.entry +
                              "' does not parse");
    const ptx::Function *candidateEntry =
        candidate.module.findFunction(replacement.entry);
    if (!candidateEntry || !candidateEntry->isEntry)
      return compositionError("the candidate for '" + replacement.entry +
                              "' does not define that entry");
    version = std::max(version, candidate.module.version());

    // The candidate's own symbols get a prefix, so two candidates (or a
    // candidate and the reference) never clash. `.extern` declarations
    // name symbols defined outside the module (vprintf, __assertfail, a
    // linked global) and keep their names; PTX accepts the same extern
    // declared twice. Dynamic shared memory (`.extern .shared`) is the
    // kernel's own and is renamed like any global.
    std::string prefix = "__llmgen_" + replacement.entry + "_";
    llvm::StringMap<std::string> renames;
    for (const ptx::VariableDecl &global : candidate.module.globals)
      if (global.linkage != ".extern" || global.space == ".shared")
        renames[global.name] = prefix + global.name.str();
    for (const ptx::Function &function : candidate.module.functions)
      if (function.name != replacement.entry && function.linkage != ".extern")
        renames[function.name] = prefix + function.name.str();

    // Drop the header directives and any other `.entry` the answer holds
    // (only the replaced kernel ships); keep everything else.
    llvm::DenseSet<unsigned> skippedLines = {
        candidate.module.versionLoc.line, candidate.module.targetLoc.line,
        candidate.module.addressSizeLoc.line};
    for (const ptx::Function &function : candidate.module.functions)
      if (function.isEntry && function.name != replacement.entry)
        for (unsigned line = function.loc.line;
             line <= std::max(function.loc.line, function.bodyEnd.line); ++line)
          skippedLines.insert(line);
    llvm::SmallVector<llvm::StringRef> lines;
    splitLines(replacement.ptx, lines);
    std::string body;
    for (auto [index, line] : llvm::enumerate(lines)) {
      if (skippedLines.contains(index + 1))
        continue;
      body += line;
      body += '\n';
    }
    appended +=
        llvm::formatv("\n// llmgen: LLM kernel '{0}'\n", replacement.entry);
    appended += renameIdentifiers(body, renames);
  }

  llvm::SmallVector<llvm::StringRef> lines;
  splitLines(referencePtx, lines);
  std::string composed;
  for (auto [index, line] : llvm::enumerate(lines)) {
    unsigned lineNo = index + 1;
    if (llvm::any_of(dropped, [&](const auto &range) {
          return lineNo >= range.first && lineNo <= range.second;
        }))
      continue;
    if (lineNo == reference.module.versionLoc.line &&
        version != reference.module.version()) {
      composed +=
          llvm::formatv(".version {0}.{1}\n", version / 10, version % 10);
      continue;
    }
    composed += line;
    composed += '\n';
  }
  composed += appended;
  return composed;
}
