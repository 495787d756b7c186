//===- EntryModule.cpp - The PTX module of one entry ------------*- C++ -*-===//
//
// Uses are found by name: every identifier in a kept definition that names a
// module-scope function or variable keeps that one too. A local name that
// shadows a module-scope one can only keep too much, never too little, so
// the result assembles whenever the whole module does.
//
//===----------------------------------------------------------------------===//

#include "llmptx/PTX/EntryModule.h"
#include "llmptx/PTX/Parser.h"

#include "Lexer.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <algorithm>

using namespace llmptx::ptx;
using llvm::StringRef;

namespace {

/// A module-scope function or variable: what may be left out.
struct Definition {
  StringRef name;
  StringRef text;
  bool used = false;
};

llvm::Error extractionError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The module's functions and variables in the order of the text.
std::vector<Definition> collectDefinitions(const Module &module) {
  std::vector<Definition> definitions;
  for (const Function &function : module.functions)
    definitions.push_back({function.name, function.text});
  for (const VariableDecl &global : module.globals)
    definitions.push_back({global.name, global.text});
  llvm::sort(definitions, [](const Definition &a, const Definition &b) {
    return a.text.data() < b.text.data();
  });
  return definitions;
}

/// Marks the definitions named `root` and, transitively, those their text
/// names (a prototype and its definition share a name: both are kept).
void markUses(std::vector<Definition> &definitions, StringRef root) {
  llvm::StringMap<llvm::SmallVector<unsigned, 1>> byName;
  for (auto [index, definition] : llvm::enumerate(definitions))
    byName[definition.name].push_back(index);
  llvm::SmallVector<unsigned> pending;
  auto use = [&](StringRef name) {
    auto found = byName.find(name);
    if (found == byName.end())
      return;
    for (unsigned index : found->second)
      if (!definitions[index].used) {
        definitions[index].used = true;
        pending.push_back(index);
      }
  };
  use(root);
  while (!pending.empty()) {
    Lexer lex(definitions[pending.pop_back_val()].text);
    for (Token token = lex.next(); token.kind != TokenKind::Eof;
         token = lex.next())
      if (token.kind == TokenKind::Identifier)
        use(token.text);
  }
}

bool isCommentLine(StringRef line) { return line.ltrim().starts_with("//"); }

/// The offset where the line holding `offset` starts.
size_t lineStartOf(StringRef ptx, size_t offset) {
  size_t newline = ptx.rfind('\n', offset);
  return newline == StringRef::npos ? 0 : newline + 1;
}

/// The bytes that leaving out `text` removes from `ptx`. A definition on
/// lines of its own takes those lines, a comment after it on its last line,
/// and the comment lines just above it (with the blank lines among them;
/// blank lines above the first comment stay), so no comment is orphaned.
std::pair<size_t, size_t> removedBytes(StringRef ptx, StringRef text) {
  size_t begin = text.data() - ptx.data();
  size_t end = begin + text.size();
  size_t lineStart = lineStartOf(ptx, begin);
  if (!ptx.slice(lineStart, begin).trim().empty())
    return {begin, end};
  size_t after = ptx.find_first_not_of(" \t\r", end);
  if (after == StringRef::npos || ptx[after] == '\n' ||
      ptx.substr(after).starts_with("//")) {
    size_t newline = ptx.find('\n', end);
    end = newline == StringRef::npos ? ptx.size() : newline + 1;
  }
  begin = lineStart;
  for (size_t cursor = begin; cursor > 0;) {
    size_t above = lineStartOf(ptx, cursor - 1);
    StringRef line = ptx.slice(above, cursor - 1);
    if (!line.trim().empty() && !isCommentLine(line))
      break;
    cursor = above;
    if (isCommentLine(line))
      begin = above;
  }
  return {begin, end};
}

} // namespace

llvm::Expected<std::string> llmptx::ptx::extractEntryModule(StringRef ptx,
                                                            StringRef entry) {
  return extractEntryModule(parsePtx(ptx), ptx, entry);
}

llvm::Expected<std::string>
llmptx::ptx::extractEntryModule(const ParseResult &parsed, StringRef ptx,
                                StringRef entry) {
  if (!parsed.ok()) {
    const Diagnostic &first = parsed.diagnostics.front();
    return extractionError(llvm::Twine("the PTX does not parse: line ") +
                           llvm::Twine(first.loc.line) + ": " + first.message);
  }
  const Function *function = parsed.module.findFunction(entry);
  if (!function || !function->isEntry || !function->hasBody)
    return extractionError("the PTX has no .entry named '" + entry + "'");

  std::vector<Definition> definitions = collectDefinitions(parsed.module);
  markUses(definitions, entry);
  std::string extracted;
  size_t copied = 0;
  for (const Definition &definition : definitions) {
    if (definition.used)
      continue;
    auto [begin, end] = removedBytes(ptx, definition.text);
    begin = std::max(begin, copied);
    extracted += ptx.slice(copied, begin);
    copied = std::max(copied, end);
  }
  extracted += ptx.substr(copied);
  return extracted;
}
