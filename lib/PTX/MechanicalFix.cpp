//===- MechanicalFix.cpp - Repair of unambiguous PTX mistakes ---*- C++ -*-===//
//
// Only register declarations are rewritten, and only where the uses leave
// exactly one reading: the declared type is kept, the count is the smallest
// that covers every use. The rewritten text is linted again and discarded
// unless it is error-free, so a "fix" can never make things worse.
//
//===----------------------------------------------------------------------===//

#include "llmptx/PTX/MechanicalFix.h"
#include "llmptx/PTX/Parser.h"
#include "llmptx/PTX/PtxIsa.h"

#include "llvm/ADT/StringMap.h"

#include <algorithm>
#include <map>

using namespace llmptx::ptx;
using llvm::StringRef;

namespace {

/// A replacement of [begin, end) in the original text.
struct Edit {
  size_t begin, end;
  std::string text;
};

struct StemUses {
  unsigned maxIndex = 0;
  bool anyIndexless = false;
  /// Every use is a guard or a setp/and.pred-style predicate destination.
  bool onlyPredicateUses = true;
  llvm::SmallVector<StringRef, 4> names;
  SourceLocation firstUse;
};

class DeclarationFixer {
public:
  DeclarationFixer(StringRef text, const Module &module)
      : text(text), module(module) {
    lineStarts.push_back(0);
    for (size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n')
        lineStarts.push_back(i + 1);
  }

  void run() {
    for (const Function &fn : module.functions)
      if (fn.hasBody)
        fixFunction(fn);
  }

  std::vector<Edit> edits;
  std::vector<std::string> fixes;

private:
  size_t offsetOf(SourceLocation loc) const {
    if (loc.line == 0 || loc.line > lineStarts.size())
      return StringRef::npos;
    return lineStarts[loc.line - 1] + loc.column - 1;
  }

  StringRef lineText(unsigned line) const {
    size_t begin = lineStarts[line - 1];
    size_t end = text.find('\n', begin);
    return text.slice(begin, end).trim();
  }

  bool isDeclared(const Function &fn, StringRef name) const {
    for (const RegisterDecl &d : fn.registers) {
      if (!d.isRange && d.name == name)
        return true;
      if (d.isRange) {
        auto [stem, digits] = splitRegisterIndex(name);
        unsigned index = 0;
        if (stem == d.name && !digits.empty() &&
            !digits.getAsInteger(10, index) && index < d.count)
          return true;
      }
    }
    return false;
  }

  void noteUse(const Function &fn, StringRef name, SourceLocation loc,
               bool predicateUse) {
    if (specialRegisterBits(name) || isDeclared(fn, name))
      return;
    auto [stem, digits] = splitRegisterIndex(name);
    StemUses &uses = stems[stem];
    if (uses.names.empty())
      uses.firstUse = loc;
    if (!llvm::is_contained(uses.names, name))
      uses.names.push_back(name);
    unsigned index = 0;
    if (digits.empty() || digits.getAsInteger(10, index))
      uses.anyIndexless = true;
    uses.maxIndex = std::max(uses.maxIndex, index);
    uses.onlyPredicateUses &= predicateUse;
  }

  void visit(const Function &fn, const Operand &op, bool predicateUse) {
    if (op.kind == Operand::Kind::Register)
      noteUse(fn, op.text, op.loc, predicateUse);
    for (const Operand &e : op.elements)
      visit(fn, e, predicateUse);
  }

  void fixFunction(const Function &fn) {
    stems.clear();
    for (const Instruction &inst : fn.instructions) {
      if (!inst.guard.empty())
        noteUse(fn, inst.guard, inst.guardLoc, true);
      bool setp = inst.baseOpcode == "setp";
      for (unsigned i = 0; i < inst.operands.size(); ++i) {
        // setp's destination(s) and selp's selector are predicates by
        // definition; any other position could be a value.
        bool predicate = (setp && i == 0) ||
                         (inst.baseOpcode == "selp" && i == 3) ||
                         (setp && i == 3);
        visit(fn, inst.operands[i], predicate);
      }
    }
    for (auto &entry : stems)
      fixStem(fn, entry.first(), entry.second);
  }

  void fixStem(const Function &fn, StringRef stem, const StemUses &uses) {
    if (uses.anyIndexless)
      return;
    llvm::SmallVector<const RegisterDecl *, 2> scalarsOfStem, rangesOfStem;
    for (const RegisterDecl &d : fn.registers) {
      if (d.isRange && d.name == stem)
        rangesOfStem.push_back(&d);
      else if (!d.isRange) {
        auto [s, digits] = splitRegisterIndex(d.name);
        if (s == stem && !digits.empty())
          scalarsOfStem.push_back(&d);
      }
    }
    std::string names;
    for (StringRef n : uses.names)
      names += (names.empty() ? "" : ", ") + n.str();

    if (rangesOfStem.empty() && scalarsOfStem.size() == 1 &&
        scalarsOfStem[0]->scope == 0) {
      // `.reg .b32 %r10;` meant as `%r<...>`: one reading only.
      const RegisterDecl &d = *scalarsOfStem[0];
      unsigned declared = 0;
      splitRegisterIndex(d.name).second.getAsInteger(10, declared);
      unsigned count = std::max(uses.maxIndex, declared) + 1;
      std::string range = stem.str() + "<" + std::to_string(count) + ">";
      size_t begin = offsetOf(d.loc);
      edits.push_back({begin, begin + d.name.size(), range});
      fixes.push_back("line " + std::to_string(d.loc.line) + ": '" +
                      lineText(d.loc.line).str() +
                      "' declared one register "
                      "named " +
                      d.name.str() + "; rewrote it as range '" + range +
                      "' covering " + names);
      return;
    }
    if (rangesOfStem.size() == 1 && scalarsOfStem.empty() &&
        rangesOfStem[0]->scope == 0) {
      const RegisterDecl &d = *rangesOfStem[0];
      if (uses.maxIndex < d.count)
        return;
      size_t begin = offsetOf(d.loc);
      size_t close = text.find('>', begin);
      if (close == StringRef::npos)
        return;
      std::string range =
          stem.str() + "<" + std::to_string(uses.maxIndex + 1) + ">";
      edits.push_back({begin, close + 1, range});
      fixes.push_back("line " + std::to_string(d.loc.line) + ": widened '" +
                      d.name.str() + "<" + std::to_string(d.count) + ">' to '" +
                      range + "' to cover " + names);
      return;
    }
    if (rangesOfStem.empty() && scalarsOfStem.empty() &&
        uses.onlyPredicateUses) {
      // Predicates have a single type, so the declaration is implied.
      size_t insertAt = StringRef::npos;
      unsigned line = 0;
      for (const RegisterDecl &d : fn.registers)
        if (d.scope == 0)
          line = std::max(line, d.loc.line);
      if (line)
        insertAt = line < lineStarts.size() ? lineStarts[line] : text.size();
      else if (fn.bodyBegin.line)
        insertAt = offsetOf(fn.bodyBegin) + 1;
      if (insertAt == StringRef::npos)
        return;
      std::string decl = "\t.reg .pred \t" + stem.str() + "<" +
                         std::to_string(uses.maxIndex + 1) + ">;\n";
      if (!line)
        decl = "\n" + decl;
      edits.push_back({insertAt, insertAt, decl});
      fixes.push_back("line " + std::to_string(uses.firstUse.line) +
                      ": predicates " + names +
                      " were never declared; added "
                      "'.reg .pred " +
                      stem.str() + "<" + std::to_string(uses.maxIndex + 1) +
                      ">;' to '" + fn.name.str() + "'");
    }
  }

  StringRef text;
  const Module &module;
  std::vector<size_t> lineStarts;
  llvm::StringMap<StemUses> stems;
};

} // namespace

std::optional<FixResult>
llmptx::ptx::applyMechanicalFixes(StringRef ptxText, const LintOptions &opts) {
  std::vector<Diagnostic> before = lintPtx(ptxText, opts);
  if (!hasErrors(before))
    return std::nullopt;
  ParseResult parsed = parsePtx(ptxText);
  DeclarationFixer fixer(ptxText, parsed.module);
  fixer.run();
  if (fixer.edits.empty())
    return std::nullopt;
  std::sort(fixer.edits.begin(), fixer.edits.end(),
            [](const Edit &a, const Edit &b) { return a.begin < b.begin; });
  FixResult result;
  size_t pos = 0;
  for (const Edit &edit : fixer.edits) {
    if (edit.begin < pos || edit.end > ptxText.size())
      return std::nullopt; // Overlapping edits: not unambiguous.
    result.ptx += ptxText.slice(pos, edit.begin).str();
    result.ptx += edit.text;
    pos = edit.end;
  }
  result.ptx += ptxText.drop_front(pos).str();
  if (hasErrors(lintPtx(result.ptx, opts)))
    return std::nullopt;
  result.fixesApplied = std::move(fixer.fixes);
  return result;
}
