//===- Lint.cpp - Static checks of PTX before ptxas -------------*- C++ -*-===//
//
// One pass over each function resolves every register and symbol against
// its declarations, checks operand types against the opcode table, and
// gathers the facts the warnings need (live ranges, thread-id taint).
// Each class of mistake is reported once per culprit, at its first use,
// with a note at the declaration it conflicts with.
//
//===----------------------------------------------------------------------===//

#include "llmptx/PTX/Lint.h"
#include "llmptx/PTX/Parser.h"
#include "llmptx/PTX/PtxIsa.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>

using namespace llmptx::ptx;
using llvm::StringRef;

namespace {

std::string versionString(unsigned v) {
  return std::to_string(v / 10) + "." + std::to_string(v % 10);
}

std::string typeName(ScalarType t) {
  switch (t.kind) {
  case TypeKind::Bits:
    return ".b" + std::to_string(t.bits);
  case TypeKind::Signed:
    return ".s" + std::to_string(t.bits);
  case TypeKind::Unsigned:
    return ".u" + std::to_string(t.bits);
  case TypeKind::Float:
    return ".f" + std::to_string(t.bits);
  case TypeKind::Predicate:
    return ".pred";
  case TypeKind::Other:
    return "a " + std::to_string(t.bits) + "-bit type";
  }
  return "";
}

bool isIntegerKind(TypeKind k) {
  return k == TypeKind::Signed || k == TypeKind::Unsigned;
}

/// What a register name resolves to at one use.
struct Resolution {
  const RegisterDecl *decl = nullptr;       ///< found
  const RegisterDecl *outOfRange = nullptr; ///< a range that is too short
  const RegisterDecl *sameStem = nullptr;   ///< scalar of the same stem
  bool special = false;
  unsigned index = 0;
  /// parseScalarType(decl->type), computed once per resolution.
  std::optional<ScalarType> declType;
};

/// Operand slot rules (see OperandShape in PtxIsa.h).
enum class Slot { Strict, Relaxed };

class FunctionLinter {
public:
  FunctionLinter(const Module &module, const Function &fn, const Chip &chip,
                 unsigned ptx, const LintOptions &opts,
                 std::vector<Diagnostic> &diags)
      : module(module), fn(fn), chip(chip), ptx(ptx), opts(opts), diags(diags) {
  }

  void run() {
    indexDeclarations();
    checkDuplicates();
    for (const Label &label : fn.labels)
      labels.insert(label.name);
    for (unsigned i = 0; i < fn.instructions.size(); ++i)
      checkInstruction(fn.instructions[i], i);
    reportUndeclared();
    if (opts.warnings) {
      warnRegisterPressure();
      warnUnguardedStores();
    }
  }

private:
  // --- Declarations ----------------------------------------------------------
  void indexDeclarations() {
    for (unsigned i = 0; i < fn.registers.size(); ++i) {
      const RegisterDecl &decl = fn.registers[i];
      if (decl.isRange)
        ranges[decl.name].push_back(&decl);
      else
        scalars[decl.name].push_back(&decl);
    }
    for (const VariableDecl &var : fn.variables)
      localSymbols[var.name] = &var;
  }

  void error(SourceLocation loc, StringRef code, std::string message,
             std::string hint = {}) {
    diags.push_back(makeDiagnostic(Severity::Error, loc, code,
                                   std::move(message), std::move(hint)));
  }
  void warning(SourceLocation loc, StringRef code, std::string message,
               std::string hint = {}) {
    diags.push_back(makeDiagnostic(Severity::Warning, loc, code,
                                   std::move(message), std::move(hint)));
  }
  static Diagnostic note(SourceLocation loc, std::string message) {
    return makeDiagnostic(Severity::Note, loc, "", std::move(message));
  }

  static std::string declText(const RegisterDecl &d) {
    std::string text = ".reg " + d.type.str() + " " + d.name.str();
    if (d.isRange)
      text += "<" + std::to_string(d.count) + ">";
    return text + ";";
  }

  void checkDuplicates() {
    // Registers: same name in the same scope, or a scalar inside a range.
    for (auto &entry : scalars) {
      const auto &decls = entry.second;
      for (unsigned i = 1; i < decls.size(); ++i)
        for (unsigned j = 0; j < i; ++j)
          if (decls[i]->scope == decls[j]->scope) {
            reportDuplicate(*decls[i], *decls[j], entry.first().str());
            break;
          }
      auto [stem, digits] = splitRegisterIndex(entry.first());
      if (digits.empty())
        continue;
      auto it = ranges.find(stem);
      if (it == ranges.end())
        continue;
      unsigned index = 0;
      digits.getAsInteger(10, index);
      for (const RegisterDecl *range : it->second)
        if (range->scope == decls[0]->scope && index < range->count) {
          reportDuplicate(*decls[0], *range, entry.first().str());
          break;
        }
    }
    for (auto &entry : ranges) {
      const auto &decls = entry.second;
      for (unsigned i = 1; i < decls.size(); ++i)
        for (unsigned j = 0; j < i; ++j)
          if (decls[i]->scope == decls[j]->scope) {
            reportDuplicate(*decls[i], *decls[j], entry.first().str() + "<N>");
            break;
          }
    }
    // Parameters.
    llvm::StringMap<const Param *> params;
    for (const Param &p : fn.params) {
      auto [it, inserted] = params.try_emplace(p.name, &p);
      if (!inserted) {
        Diagnostic d =
            makeDiagnostic(Severity::Error, p.loc, "duplicate-declaration",
                           "parameter '" + p.name.str() + "' is declared twice",
                           "rename one of the parameters");
        d.notes.push_back(note(it->second->loc, "first declared here"));
        diags.push_back(std::move(d));
      }
    }
    // Labels.
    llvm::StringMap<const Label *> seen;
    for (const Label &label : fn.labels) {
      auto [it, inserted] = seen.try_emplace(label.name, &label);
      if (!inserted) {
        Diagnostic d =
            makeDiagnostic(Severity::Error, label.loc, "duplicate-declaration",
                           "label '" + label.name.str() + "' is defined twice",
                           "give each label a unique name");
        d.notes.push_back(note(it->second->loc, "first defined here"));
        diags.push_back(std::move(d));
      }
    }
    // Local variables.
    llvm::StringMap<const VariableDecl *> vars;
    for (const VariableDecl &v : fn.variables) {
      auto [it, inserted] = vars.try_emplace(v.name, &v);
      if (!inserted && it->second->scope == v.scope) {
        Diagnostic d = makeDiagnostic(
            Severity::Error, v.loc, "duplicate-declaration",
            "variable '" + v.name.str() + "' is declared twice in this scope",
            "remove one of the declarations");
        d.notes.push_back(note(it->second->loc, "first declared here"));
        diags.push_back(std::move(d));
      }
    }
  }

  void reportDuplicate(const RegisterDecl &later, const RegisterDecl &earlier,
                       const std::string &name) {
    std::string message = "register '" + name + "' is declared twice";
    if (!later.isRange && earlier.isRange)
      message = "register '" + name + "' is already declared by the range '" +
                earlier.name.str() + "<" + std::to_string(earlier.count) + ">'";
    Diagnostic d =
        makeDiagnostic(Severity::Error, later.loc, "duplicate-declaration",
                       message, "remove the second declaration");
    d.notes.push_back(
        note(earlier.loc, "previous declaration '" + declText(earlier) + "'"));
    diags.push_back(std::move(d));
  }

  Resolution resolve(StringRef name, unsigned scope) {
    // Nearly every use is in the function's own scope; resolve each name
    // there once.
    if (scope == 0) {
      auto [it, inserted] = resolvedAtTop.try_emplace(name);
      if (inserted)
        it->second = resolveUncached(name, 0);
      return it->second;
    }
    return resolveUncached(name, scope);
  }

  Resolution resolveUncached(StringRef name, unsigned scope) {
    Resolution r;
    auto sit = scalars.find(name);
    if (sit != scalars.end())
      for (const RegisterDecl *d : sit->second)
        if (fn.scopeEncloses(d->scope, scope)) {
          r.decl = d;
          r.declType = parseScalarType(d->type);
          return r;
        }
    auto [stem, digits] = splitRegisterIndex(name);
    if (!digits.empty()) {
      r.index = 0;
      for (char c : digits)
        r.index = r.index * 10 + (c - '0');
      auto rit = ranges.find(stem);
      if (rit != ranges.end())
        for (const RegisterDecl *d : rit->second)
          if (fn.scopeEncloses(d->scope, scope)) {
            if (r.index < d->count) {
              r.decl = d;
              r.declType = parseScalarType(d->type);
              return r;
            }
            r.outOfRange = d;
          }
    }
    if (specialRegisterBits(name)) {
      r.special = true;
      return r;
    }
    // The classic mistake: `.reg .b32 %r10;` (one register) where
    // `%r<10>` was meant. Find a scalar declaration with the same stem.
    if (!digits.empty() && !r.outOfRange)
      for (const RegisterDecl &d : fn.registers)
        if (!d.isRange && splitRegisterIndex(d.name).first == stem &&
            !splitRegisterIndex(d.name).second.empty()) {
          r.sameStem = &d;
          break;
        }
    return r;
  }

  /// Declared type of a register operand, or nullopt when unknown/undeclared.
  std::optional<ScalarType> registerType(const Operand &op, unsigned scope,
                                         bool *isSpecial = nullptr) {
    if (isSpecial)
      *isSpecial = false;
    Resolution r = resolve(op.text, scope);
    if (r.decl)
      return r.declType;
    if (r.special) {
      if (isSpecial)
        *isSpecial = true;
      std::optional<unsigned> bits = specialRegisterBits(op.text);
      if (*bits == 1)
        return ScalarType{TypeKind::Predicate, 1};
      return ScalarType{TypeKind::Unsigned, *bits};
    }
    return std::nullopt;
  }

  // --- Uses ------------------------------------------------------------------
  struct UndeclaredUse {
    StringRef name;
    SourceLocation loc;
    Resolution res;
    unsigned uses = 0;
  };

  void noteRegisterUse(const Operand &op, unsigned scope, unsigned instIndex) {
    StringRef name = op.text;
    Resolution r = resolve(name, scope);
    // Live ranges for the pressure estimate (declared registers only).
    if (r.decl) {
      auto [it, inserted] =
          liveRanges.try_emplace(name, LiveRange{instIndex, instIndex, 0});
      if (inserted) {
        std::optional<ScalarType> t = parseScalarType(r.decl->type);
        unsigned bits = t ? t->bits : 32;
        it->second.weight =
            t && t->kind == TypeKind::Predicate
                ? 0
                : std::max(1u, (bits + 31) / 32) * r.decl->vectorWidth;
      }
      it->second.end = instIndex;
      return;
    }
    if (r.special) {
      unsigned minSm = 0;
      specialRegisterBits(name, &minSm);
      if (minSm && chip.sm && chip.sm < minSm)
        error(op.loc, "instruction-not-on-target",
              "special register '" + name.str() + "' needs sm_" +
                  std::to_string(minSm) + " or newer (target is sm_" +
                  std::to_string(chip.sm) + ")");
      StringRef base = name.take_until([](char c) { return c == '.'; });
      if (opts.warnings && isTimerRegister(base) &&
          timerWarned.insert(base).second)
        warning(op.loc, "timer-read",
                "reads '" + name.str() +
                    "': its value differs between runs, so results that "
                    "depend on it cannot match the reference",
                "remove the timer read unless the kernel only reports it");
      return;
    }
    auto [it, inserted] = undeclared.try_emplace(name);
    if (inserted) {
      it->second.name = name;
      it->second.loc = op.loc;
      it->second.res = r;
      undeclaredOrder.push_back(name);
    }
    ++it->second.uses;
  }

  void reportUndeclared() {
    // Group the classic scalar-instead-of-range mistake per declaration so
    // the model gets one error naming every register involved.
    llvm::DenseMap<const RegisterDecl *, std::vector<UndeclaredUse *>> byStem;
    llvm::DenseMap<const RegisterDecl *, std::vector<UndeclaredUse *>> byRange;
    for (StringRef name : undeclaredOrder) {
      UndeclaredUse &use = undeclared[name];
      if (use.res.sameStem)
        byStem[use.res.sameStem].push_back(&use);
      else if (use.res.outOfRange)
        byRange[use.res.outOfRange].push_back(&use);
    }
    for (StringRef name : undeclaredOrder) {
      UndeclaredUse &use = undeclared[name];
      if (use.res.sameStem) {
        auto &group = byStem[use.res.sameStem];
        if (group.empty() || group.front() != &use)
          continue;
        const RegisterDecl &d = *use.res.sameStem;
        auto [stem, digits] = splitRegisterIndex(d.name);
        unsigned maxIndex = 0;
        digits.getAsInteger(10, maxIndex);
        std::string names;
        for (UndeclaredUse *u : group) {
          if (!names.empty())
            names += ", ";
          names += u->name.str();
          auto [s, dg] = splitRegisterIndex(u->name);
          unsigned idx = 0;
          dg.getAsInteger(10, idx);
          maxIndex = std::max(maxIndex, idx);
        }
        std::string message =
            "register '" + use.name.str() + "' is used but not declared";
        if (group.size() > 1)
          message += " (undeclared: " + names + ")";
        Diagnostic diag = makeDiagnostic(
            Severity::Error, use.loc, "undeclared-register", message,
            "declare a range: '.reg " + d.type.str() + " " + stem.str() + "<" +
                std::to_string(maxIndex + 1) + ">;' declares " + stem.str() +
                "0.." + stem.str() + std::to_string(maxIndex));
        diag.notes.push_back(
            note(d.loc, "'" + declText(d) + "' declares one register named '" +
                            d.name.str() + "'; '" + stem.str() + "<" +
                            digits.str() + ">' declares " + digits.str() +
                            " registers " + stem.str() + "0.." + stem.str() +
                            std::to_string(maxIndexOf(digits) - 1)));
        diags.push_back(std::move(diag));
        continue;
      }
      if (use.res.outOfRange) {
        const RegisterDecl &d = *use.res.outOfRange;
        auto &group = byRange[&d];
        if (group.empty() || group.front() != &use)
          continue;
        unsigned maxIndex = 0;
        std::string names;
        for (UndeclaredUse *u : group) {
          maxIndex = std::max(maxIndex, u->res.index);
          if (!names.empty())
            names += ", ";
          names += u->name.str();
        }
        std::string message = "register '" + use.name.str() +
                              "' is past the declared range '" + d.name.str() +
                              "<" + std::to_string(d.count) + ">' (" +
                              d.name.str() + "0.." + d.name.str() +
                              std::to_string(d.count ? d.count - 1 : 0) + ")";
        if (group.size() > 1)
          message += "; out of range: " + names;
        Diagnostic diag = makeDiagnostic(
            Severity::Error, use.loc, "register-out-of-range", message,
            "widen the declaration to '.reg " + d.type.str() + " " +
                d.name.str() + "<" + std::to_string(maxIndex + 1) + ">;'");
        diag.notes.push_back(note(d.loc, "range declared here"));
        diags.push_back(std::move(diag));
        continue;
      }
      auto [stem, digits] = splitRegisterIndex(name);
      std::string hint = "declare it, e.g. '.reg .b32 " + name.str() + ";'";
      if (!digits.empty())
        hint = "declare a range covering it, e.g. '.reg <type> " + stem.str() +
               "<N>;' with N > " + digits.str();
      error(use.loc, "undeclared-register",
            "register '" + name.str() + "' is used but not declared", hint);
    }
  }

  static unsigned maxIndexOf(StringRef digits) {
    unsigned v = 0;
    digits.getAsInteger(10, v);
    return v == 0 ? 1 : v;
  }

  /// Registers may be named without '%' (`.reg .pred p;` in inline asm).
  bool isPlainRegister(const Operand &op, unsigned scope) {
    return op.kind == Operand::Kind::Symbol && resolve(op.text, scope).decl;
  }

  bool isKnownSymbol(StringRef name) {
    return fn.findParam(name) || localSymbols.count(name) ||
           module.findGlobal(name) || module.findFunction(name) ||
           labels.contains(name);
  }

  /// Nearest name among the function's parameters (for "did you mean").
  std::string suggestParam(StringRef name) {
    StringRef best;
    unsigned bestDistance = 4, ties = 0;
    for (const Param &p : fn.params) {
      unsigned d = name.edit_distance(p.name, true, bestDistance + 1);
      if (d < bestDistance) {
        bestDistance = d;
        best = p.name;
        ties = 1;
      } else if (d == bestDistance) {
        ++ties;
      }
    }
    // With several equally close names (k_param_3 vs k_param_0..2) a guess
    // would mislead; list what exists instead.
    if (!best.empty() && ties == 1)
      return "did you mean '" + best.str() + "'?";
    if (fn.params.empty())
      return "'" + fn.name.str() + "' declares no parameters";
    return "declared parameters: " + fn.params.front().name.str() +
           (fn.params.size() > 1 ? " .. " + fn.params.back().name.str()
                                 : std::string());
  }

  void checkSymbol(const Instruction &inst, const Operand &op,
                   bool inParamAddress) {
    StringRef name = op.text;
    if (inParamAddress) {
      if (fn.findParam(name) || localSymbols.count(name))
        return;
      if (reportedSymbols.insert(name).second)
        error(op.loc, "unknown-parameter",
              "'" + name.str() + "' is not a parameter of '" + fn.name.str() +
                  "'",
              suggestParam(name));
      return;
    }
    if (isKnownSymbol(name))
      return;
    if (!reportedSymbols.insert(name).second)
      return;
    error(op.loc, "undeclared-symbol",
          "symbol '" + name.str() + "' is used but not declared",
          "declare it, e.g. '.shared .align 4 .b8 " + name.str() +
              "[<bytes>];' or '.global ...'");
  }

  /// Walks an operand tree: registers and symbols are resolved.
  void visitOperand(const Instruction &inst, const Operand &op,
                    unsigned instIndex, bool inParamAddress) {
    switch (op.kind) {
    case Operand::Kind::Register:
      noteRegisterUse(op, inst.scope, instIndex);
      return;
    case Operand::Kind::Symbol:
      if (isPlainRegister(op, inst.scope)) {
        noteRegisterUse(op, inst.scope, instIndex);
        return;
      }
      checkSymbol(inst, op, inParamAddress);
      return;
    default:
      for (const Operand &e : op.elements)
        visitOperand(inst, e, instIndex, inParamAddress);
    }
  }

  // --- Instructions
  // ------------------------------------------------------------
  void checkInstruction(const Instruction &inst, unsigned index) {
    const OpcodeInfo *info = lookupOpcode(inst.baseOpcode);
    if (!info) {
      StringRef suggestion = suggestOpcode(inst.baseOpcode);
      error(inst.loc, "unknown-instruction",
            "unknown instruction '" + inst.opcode.str() + "'",
            suggestion.empty() ? std::string()
                               : "did you mean '" + suggestion.str() + "'?");
    } else if (!cleanOpcodes.contains(inst.opcode)) {
      size_t before = diags.size();
      checkModifiers(inst);
      std::string why;
      if (findRequirement(inst.opcode, chip, ptx, why)) {
        bool chipProblem = why.find("PTX ISA") == std::string::npos;
        error(inst.loc,
              chipProblem ? "instruction-not-on-target"
                          : "instruction-needs-newer-ptx",
              "'" + inst.opcode.str() + "' " + why +
                  (chipProblem
                       ? " (target is " + chipName() + ")"
                       : " (module is .version " + versionString(ptx) + ")"),
              chipProblem ? "use an instruction the target has, or raise "
                            "the .target"
                          : "raise the .version directive");
      }
      if (diags.size() == before)
        cleanOpcodes.insert(inst.opcode);
    }
    if (!inst.guard.empty()) {
      Operand guard;
      guard.kind = Operand::Kind::Register;
      guard.text = inst.guard;
      guard.loc = inst.guardLoc;
      noteRegisterUse(guard, inst.scope, index);
      std::optional<ScalarType> t = registerType(guard, inst.scope);
      if (t && t->kind != TypeKind::Predicate)
        error(inst.guardLoc, "operand-type-mismatch",
              "guard '@" + inst.guard.str() + "' is a " + typeName(*t) +
                  " register, not a predicate",
              "compute a predicate with setp (e.g. 'setp.ne.s32 %p1, " +
                  inst.guard.str() + ", 0;') and guard with it");
    }
    bool isParamAccess =
        (inst.baseOpcode == "ld" || inst.baseOpcode == "st") &&
        llvm::is_contained(inst.modifiers, StringRef(".param"));
    bool isBranch = inst.baseOpcode == "bra" || inst.baseOpcode == "brx";
    for (const Operand &op : inst.operands) {
      if (isBranch && op.kind == Operand::Kind::Symbol) {
        if (!labels.contains(op.text) && reportedSymbols.insert(op.text).second)
          error(op.loc, "unknown-label",
                "branch to unknown label '" + op.text.str() + "'",
                "define the label in '" + fn.name.str() + "' (e.g. '" +
                    op.text.str() + ":') or fix its name");
        continue;
      }
      bool paramAddress = isParamAccess && op.kind == Operand::Kind::Address;
      visitOperand(inst, op, index, paramAddress);
    }
    if (info)
      checkOperandTypes(inst, *info);
    collectTaint(inst, index);
    if (isBranch && !inst.operands.empty() &&
        inst.operands.back().kind == Operand::Kind::Symbol)
      branches.push_back({index, inst.operands.back().text});
  }

  std::string chipName() const {
    return "sm_" + std::to_string(chip.sm) + (chip.archSpecific ? "a" : "");
  }

  void checkModifiers(const Instruction &inst) {
    for (StringRef m : inst.modifiers) {
      if (isKnownModifier(m))
        continue;
      StringRef suggestion = suggestModifier(m);
      if (suggestion.empty()) {
        if (opts.warnings)
          warning(inst.loc, "unrecognized-modifier",
                  "modifier '" + m.str() + "' of '" + inst.opcode.str() +
                      "' is not in llmptx's instruction table",
                  "check the spelling against the PTX ISA");
        continue;
      }
      bool space = isStateSpace(suggestion);
      error(
          inst.loc, space ? "unknown-state-space" : "unknown-modifier",
          std::string(space ? "unknown state space '" : "unknown modifier '") +
              m.str() + "' in '" + inst.opcode.str() + "'",
          "did you mean '" + suggestion.str() + "'?");
    }
  }

  // --- Operand types
  // ----------------------------------------------------------
  /// Type modifiers of the instruction, in order.
  static llvm::SmallVector<std::pair<StringRef, ScalarType>, 2>
  typeModifiers(const Instruction &inst) {
    llvm::SmallVector<std::pair<StringRef, ScalarType>, 2> types;
    for (StringRef m : inst.modifiers)
      if (std::optional<ScalarType> t = parseScalarType(m))
        types.push_back({m, *t});
    return types;
  }

  void mismatch(const Instruction &inst, const Operand &op, StringRef code,
                std::string message, std::string hint) {
    // One type error per instruction keeps the report readable.
    if (!typeErrorLines.insert(inst.loc.line).second)
      return;
    error(op.loc, code, std::move(message), std::move(hint));
  }

  void checkTyped(const Instruction &inst, const Operand &op,
                  ScalarType expected, StringRef expectedText, Slot slot,
                  StringRef role) {
    switch (op.kind) {
    case Operand::Kind::Vector: {
      std::optional<unsigned> width;
      for (const Operand &e : op.elements) {
        if (e.kind == Operand::Kind::Register) {
          std::optional<ScalarType> t = registerType(e, inst.scope);
          if (t && t->kind != TypeKind::Predicate) {
            if (width && *width != t->bits) {
              mismatch(inst, e, "vector-element-mismatch",
                       "vector operand of '" + inst.opcode.str() + "' mixes " +
                           std::to_string(*width) + "-bit and " +
                           std::to_string(t->bits) + "-bit registers ('" +
                           e.text.str() + "' is " + typeName(*t) + ")",
                       "use registers of one width in a vector operand");
              return;
            }
            width = t->bits;
          }
        }
        checkTyped(inst, e, expected, expectedText, slot, role);
      }
      return;
    }
    case Operand::Kind::Symbol:
      if (!isPlainRegister(op, inst.scope))
        return;
      [[fallthrough]];
    case Operand::Kind::Register: {
      bool special = false;
      std::optional<ScalarType> t = registerType(op, inst.scope, &special);
      if (!t)
        return;
      checkRegister(inst, op, *t, expected, expectedText, slot, role);
      return;
    }
    case Operand::Kind::IntImmediate:
      if (expected.kind == TypeKind::Float)
        mismatch(inst, op, "immediate-type-mismatch",
                 "integer literal '" + op.text.str() + "' used as a " +
                     expectedText.str() + " operand of '" + inst.opcode.str() +
                     "'",
                 "write a floating-point literal such as '" + op.text.str() +
                     ".0' or its bit pattern (e.g. 0f3F800000 for 1.0)");
      return;
    case Operand::Kind::FloatImmediate:
      if (op.decimalFloat && expected.kind != TypeKind::Float &&
          expected.kind != TypeKind::Other)
        mismatch(inst, op, "immediate-type-mismatch",
                 "floating-point literal '" + op.text.str() + "' used as a " +
                     expectedText.str() + " operand of '" + inst.opcode.str() +
                     "'",
                 expected.kind == TypeKind::Bits
                     ? "write the value's bit pattern (e.g. 0f3F800000 for "
                       "1.0f)"
                     : "write an integer literal");
      return;
    default:
      return;
    }
  }

  void checkRegister(const Instruction &inst, const Operand &op,
                     ScalarType actual, ScalarType expected,
                     StringRef expectedText, Slot slot, StringRef role) {
    std::string what = "'" + op.text.str() + "' (" + typeName(actual) + ")";
    if (expected.kind == TypeKind::Predicate) {
      if (actual.kind != TypeKind::Predicate)
        mismatch(inst, op, "operand-type-mismatch",
                 role.str() + " of '" + inst.opcode.str() +
                     "' must be a .pred register, found " + what,
                 "declare predicates with '.reg .pred %p<N>;' and use one "
                 "here");
      return;
    }
    if (actual.kind == TypeKind::Predicate) {
      mismatch(inst, op, "predicate-as-value",
               "predicate '" + op.text.str() + "' used as a " +
                   expectedText.str() + " value (" + role.str() + " of '" +
                   inst.opcode.str() + "')",
               "turn it into a value first: 'selp" + expectedText.str() +
                   " %r, 1, 0, " + op.text.str() + ";'");
      return;
    }
    if (expected.kind == TypeKind::Other || actual.kind == TypeKind::Other)
      return;
    bool kindClash =
        (expected.kind == TypeKind::Float && isIntegerKind(actual.kind)) ||
        (isIntegerKind(expected.kind) && actual.kind == TypeKind::Float);
    if (kindClash) {
      mismatch(
          inst, op, "operand-type-mismatch",
          role.str() + " of '" + inst.opcode.str() + "' is " + what +
              ", but the instruction operates on " + expectedText.str(),
          expected.kind == TypeKind::Float
              ? "declare the register as .f" + std::to_string(actual.bits) +
                    " or .b" + std::to_string(actual.bits) +
                    ", or convert with cvt.rn.f32.s32 first"
              : "declare the register as .b" + std::to_string(actual.bits) +
                    " or convert with cvt first");
      return;
    }
    bool sizeBad;
    if (slot == Slot::Strict)
      sizeBad = actual.bits != expected.bits;
    else if (actual.kind == TypeKind::Float &&
             (expected.kind == TypeKind::Float ||
              expected.kind == TypeKind::Bits))
      sizeBad = actual.bits != expected.bits;
    else
      sizeBad = actual.bits < expected.bits;
    if (!sizeBad)
      return;
    std::string hint;
    if (expected.kind == TypeKind::Float || actual.kind == TypeKind::Float)
      hint = "use a " + std::to_string(expected.bits) +
             "-bit register, or convert with 'cvt" +
             (expected.bits < actual.bits ? ".rn" : "") + expectedText.str() +
             typeName(actual) + "' first";
    else if (actual.bits == 64 && expected.bits == 32)
      hint = "use a 32-bit register, or narrow with 'cvt.u32.u64' first";
    else if (actual.bits == 32 && expected.bits == 64)
      hint = "use a 64-bit register (%rd), or widen with 'cvt.u64.u32' "
             "(or mul.wide) first";
    else
      hint = "use a " + std::to_string(expected.bits) + "-bit register";
    mismatch(inst, op, "operand-type-mismatch",
             role.str() + " of '" + inst.opcode.str() + "' is " + what +
                 ", a " + std::to_string(actual.bits) +
                 "-bit register, but the instruction operates on " +
                 expectedText.str() +
                 (slot == Slot::Relaxed ? " (a register narrower than the "
                                          "type is not allowed)"
                                        : ""),
             hint);
  }

  void requireAddress(const Instruction &inst, unsigned index) {
    if (index >= inst.operands.size())
      return;
    const Operand &op = inst.operands[index];
    if (op.kind == Operand::Kind::Address)
      return;
    mismatch(inst, op, "operand-type-mismatch",
             "'" + inst.opcode.str() +
                 "' expects a memory address in "
                 "brackets, found '" +
                 op.text.str() + "'",
             "write '[" + op.text.str() + "]'");
  }

  void check32(const Instruction &inst, unsigned index, StringRef role) {
    if (index < inst.operands.size())
      checkTyped(inst, inst.operands[index], ScalarType{TypeKind::Unsigned, 32},
                 ".u32", Slot::Strict, role);
  }

  static StringRef operandRole(unsigned i) {
    static constexpr StringRef Roles[] = {
        "destination",      "source operand 1", "source operand 2",
        "source operand 3", "source operand 4", "source operand 5",
        "source operand 6", "source operand 7"};
    return i < std::size(Roles) ? Roles[i] : StringRef("operand");
  }

  /// The operands of one instruction whose types are checked (without a
  /// trailing cache-policy operand, a .b64 register of its own) and the type
  /// the instruction operates on (its last type modifier).
  struct TypedOperands {
    const Instruction &inst;
    unsigned count;
    StringRef typeText;
    ScalarType type;
  };

  /// Operand `i`, when present, must be of `type`.
  void checkOperand(const TypedOperands &ops, unsigned i, ScalarType type,
                    StringRef typeText, Slot slot = Slot::Strict) {
    if (i < ops.count)
      checkTyped(ops.inst, ops.inst.operands[i], type, typeText, slot,
                 operandRole(i));
  }

  /// The listed operands, when present, must be of the instruction's type.
  void checkOperands(const TypedOperands &ops,
                     std::initializer_list<unsigned> indices,
                     Slot slot = Slot::Strict) {
    for (unsigned i : indices)
      checkOperand(ops, i, ops.type, ops.typeText, slot);
  }

  /// Operands `from` to the last must be of the instruction's type.
  void checkOperandsFrom(const TypedOperands &ops, unsigned from) {
    for (unsigned i = from; i < ops.count; ++i)
      checkOperand(ops, i, ops.type, ops.typeText);
  }

  /// mul.wide/mad.wide: a destination (and addend) twice as wide.
  void checkWideOperands(const TypedOperands &ops) {
    if (!llvm::is_contained(ops.inst.modifiers, StringRef(".wide")))
      return checkOperandsFrom(ops, 0);
    ScalarType wide{ops.type.kind, ops.type.bits * 2};
    std::string wideText = typeName(wide);
    checkOperand(ops, 0, wide, wideText);
    checkOperands(ops, {1, 2});
    checkOperand(ops, 3, wide, wideText);
  }

  /// setp: one or two predicate destinations (`p|q`), compared values of
  /// the instruction's type, an optional predicate source.
  void checkSetPredicateOperands(const TypedOperands &ops) {
    ScalarType pred{TypeKind::Predicate, 1};
    if (ops.count > 0) {
      const Operand &d = ops.inst.operands[0];
      if (d.kind == Operand::Kind::Expression)
        for (const Operand &e : d.elements)
          checkTyped(ops.inst, e, pred, ".pred", Slot::Strict, "destination");
      else
        checkTyped(ops.inst, d, pred, ".pred", Slot::Strict, "destination");
    }
    checkOperands(ops, {1, 2});
    checkOperand(ops, 3, pred, ".pred");
  }

  /// cvt: the destination of the first type, the sources of the second.
  void
  checkConvertOperands(const TypedOperands &ops,
                       llvm::ArrayRef<std::pair<StringRef, ScalarType>> types) {
    if (types.size() != 2)
      return;
    checkOperand(ops, 0, types[0].second, types[0].first, Slot::Relaxed);
    for (unsigned i = 1; i < ops.count; ++i)
      checkOperand(ops, i, types[1].second, types[1].first, Slot::Relaxed);
  }

  void checkMoveOperands(const TypedOperands &ops) {
    if (ops.count < 2)
      return;
    const Operand &d = ops.inst.operands[0];
    const Operand &a = ops.inst.operands[1];
    // Pack/unpack ({%r1,%r2} <-> %rd1) and symbol addresses are fine.
    if (d.kind == Operand::Kind::Vector || a.kind == Operand::Kind::Vector ||
        a.kind == Operand::Kind::Symbol || a.kind == Operand::Kind::Expression)
      return;
    checkOperands(ops, {0, 1});
  }

  void checkOperandTypes(const Instruction &inst, const OpcodeInfo &info) {
    if (info.shape == OperandShape::Unchecked)
      return;
    auto types = typeModifiers(inst);
    if (types.empty())
      return;
    unsigned count = inst.operands.size();
    if (llvm::is_contained(inst.modifiers, StringRef(".L2::cache_hint")) &&
        count > 0)
      --count;
    TypedOperands ops{inst, count, types.back().first, types.back().second};
    ScalarType pred{TypeKind::Predicate, 1};
    switch (info.shape) {
    case OperandShape::AllSame:
      return checkOperandsFrom(ops, 0);
    case OperandShape::Wide:
      return checkWideOperands(ops);
    case OperandShape::Shift:
      checkOperands(ops, {0, 1});
      check32(inst, 2, "shift amount");
      return;
    case OperandShape::SetPredicate:
      return checkSetPredicateOperands(ops);
    case OperandShape::Select:
      checkOperands(ops, {0, 1, 2});
      checkOperand(ops, 3, pred, ".pred");
      return;
    case OperandShape::Load:
      checkOperands(ops, {0}, Slot::Relaxed);
      requireAddress(inst, 1);
      return;
    case OperandShape::Store:
      requireAddress(inst, 0);
      checkOperands(ops, {1}, Slot::Relaxed);
      return;
    case OperandShape::Convert:
      return checkConvertOperands(ops, types);
    case OperandShape::Move:
      return checkMoveOperands(ops);
    case OperandShape::CountBits:
      check32(inst, 0, "destination");
      checkOperands(ops, {1});
      return;
    case OperandShape::BitField:
      checkOperands(ops, {0, 1});
      check32(inst, 2, "bit position");
      check32(inst, 3, "field length");
      return;
    case OperandShape::BitInsert:
      checkOperands(ops, {0, 1, 2});
      check32(inst, 3, "bit position");
      check32(inst, 4, "field length");
      return;
    case OperandShape::Atomic:
      checkOperands(ops, {0});
      requireAddress(inst, 1);
      checkOperandsFrom(ops, 2);
      return;
    case OperandShape::Reduce:
      requireAddress(inst, 0);
      checkOperandsFrom(ops, 1);
      return;
    case OperandShape::Unchecked:
      return;
    }
  }

  // --- Warnings
  // ----------------------------------------------------------------
  struct LiveRange {
    unsigned begin, end, weight;
  };

  void warnRegisterPressure() {
    if (liveRanges.empty())
      return;
    // Values live around a loop stay live for the whole loop: extend every
    // range that overlaps a backward branch's loop body.
    llvm::SmallVector<std::pair<unsigned, unsigned>, 8> loops;
    llvm::StringMap<unsigned> labelIndex;
    for (const Label &label : fn.labels)
      labelIndex[label.name] = label.instructionIndex;
    for (auto &[index, target] : branches) {
      auto it = labelIndex.find(target);
      if (it != labelIndex.end() && it->second <= index)
        loops.push_back({it->second, index});
    }
    std::vector<LiveRange> ranges;
    ranges.reserve(liveRanges.size());
    for (auto &entry : liveRanges)
      if (entry.second.weight)
        ranges.push_back(entry.second);
    for (int pass = 0; pass < 2 && !loops.empty(); ++pass)
      for (LiveRange &r : ranges)
        for (auto [head, tail] : loops)
          if (r.begin <= tail && r.end >= head && r.begin != r.end) {
            r.begin = std::min(r.begin, head);
            r.end = std::max(r.end, tail);
          }
    // Live counts per instruction from a difference array (O(n)).
    std::vector<int> delta(fn.instructions.size() + 2, 0);
    for (const LiveRange &r : ranges) {
      delta[r.begin] += r.weight;
      delta[r.end + 1] -= r.weight;
    }
    int live = 0, peak = 0;
    unsigned peakAt = 0;
    for (unsigned i = 0; i < delta.size(); ++i) {
      live += delta[i];
      if (live > peak) {
        peak = live;
        peakAt = i;
      }
    }
    if (static_cast<unsigned>(peak) <= opts.registerPressureLimit)
      return;
    unsigned limit = opts.registerPressureLimit;
    SourceLocation loc =
        peakAt < fn.instructions.size() ? fn.instructions[peakAt].loc : fn.loc;
    warning(loc, "register-pressure",
            "as written, about " + std::to_string(peak) +
                " 32-bit registers are live at once here in '" + fn.name.str() +
                "' (a thread has at most " + std::to_string(limit) +
                "): ptxas must reorder the code or spill to local memory",
            "shorten live ranges (recompute cheap values, reuse registers) "
            "or split the work");
  }

  bool readsThreadIndex(const Operand &op) const {
    if (op.kind == Operand::Kind::Register) {
      StringRef n = op.text;
      if (n.starts_with("%tid") || n.starts_with("%ctaid") ||
          tainted.contains(n))
        return true;
    }
    for (const Operand &e : op.elements)
      if (readsThreadIndex(e))
        return true;
    return false;
  }

  /// Tracks values derived from %tid/%ctaid, and whether any comparison
  /// or clamp looks at one (a bounds check).
  void collectTaint(const Instruction &inst, unsigned index) {
    StringRef base = inst.baseOpcode;
    bool readsIndex = false;
    auto scan = [&](const Operand &op) { readsIndex |= readsThreadIndex(op); };
    for (unsigned i = 1; i < inst.operands.size(); ++i)
      scan(inst.operands[i]);
    if (base == "st" && !inst.operands.empty()) {
      bool global = llvm::is_contained(inst.modifiers, StringRef(".global"));
      bool generic = true;
      for (StringRef m : inst.modifiers)
        if (isStateSpace(m))
          generic = false;
      if ((global || generic) && inst.guard.empty()) {
        readsIndex = false;
        scan(inst.operands[0]);
        if (readsIndex)
          candidateStores.push_back(index);
      }
      return;
    }
    if (!readsIndex)
      return;
    if (base == "setp" || base == "set" || base == "min" || base == "slct" ||
        base == "selp") {
      hasBoundsCheck = true;
      return;
    }
    if (base == "ld" || base == "ldu" || base == "atom" || base == "tex")
      return;
    if (!inst.operands.empty() &&
        inst.operands[0].kind == Operand::Kind::Register)
      tainted.insert(inst.operands[0].text);
  }

  void warnUnguardedStores() {
    if (hasBoundsCheck || candidateStores.empty())
      return;
    // Stores inside a block that a guarded branch can skip are guarded too;
    // without one, the first unguarded store is the one to look at.
    for (const Instruction &inst : fn.instructions)
      if (!inst.guard.empty() &&
          (inst.baseOpcode == "bra" || inst.baseOpcode == "ret" ||
           inst.baseOpcode == "exit"))
        return;
    const Instruction &store = fn.instructions[candidateStores.front()];
    warning(store.loc, "unguarded-global-store",
            "global store indexed by the thread id has no bounds check in '" +
                fn.name.str() + "'",
            "compare the index with the size (e.g. 'setp.ge.u32 %p1, "
            "%r_idx, %r_n; @%p1 bra $L_exit;') unless the launch covers "
            "the data exactly");
  }

  const Module &module;
  const Function &fn;
  const Chip &chip;
  unsigned ptx;
  const LintOptions &opts;
  std::vector<Diagnostic> &diags;

  llvm::StringMap<llvm::SmallVector<const RegisterDecl *, 1>> scalars, ranges;
  llvm::StringMap<const VariableDecl *> localSymbols;
  llvm::StringMap<Resolution> resolvedAtTop;
  llvm::StringSet<> cleanOpcodes;
  llvm::StringSet<> labels;
  llvm::StringMap<UndeclaredUse> undeclared;
  std::vector<StringRef> undeclaredOrder;
  llvm::StringSet<> reportedSymbols;
  llvm::StringSet<> timerWarned;
  llvm::DenseSet<unsigned> typeErrorLines;
  llvm::StringMap<LiveRange> liveRanges;
  std::vector<std::pair<unsigned, StringRef>> branches;
  llvm::StringSet<> tainted;
  bool hasBoundsCheck = false;
  std::vector<unsigned> candidateStores;
};

void checkHeader(const Module &module, const LintOptions &opts, Chip &chip,
                 std::vector<Diagnostic> &diags) {
  auto error = [&](SourceLocation loc, StringRef code, std::string message,
                   std::string hint) {
    diags.push_back(makeDiagnostic(Severity::Error, loc, code,
                                   std::move(message), std::move(hint)));
  };
  if (!module.hasVersion()) {
    // Point at the first directive, where .version should have come.
    SourceLocation first{1, 1};
    if (module.targetLoc.line)
      first = module.targetLoc;
    else if (!module.functions.empty())
      first = module.functions.front().loc;
    error(first, "missing-version", "missing .version directive",
          "start the file with '.version 8.0'");
  }
  if (module.targets.empty())
    error(module.versionLoc.line ? module.versionLoc : SourceLocation{1, 1},
          "missing-target", "missing .target directive",
          "add '.target sm_90' after .version");
  if (module.hasVersion() && !cudaReleaseForPtxVersion(module.version()))
    error(module.versionLoc, "unsupported-version",
          "PTX ISA version " + versionString(module.version()) +
              " does not exist (newest known: " +
              versionString(newestKnownPtxVersion()) + ")",
          "use '.version " + versionString(newestKnownPtxVersion()) +
              "' or an older released version");
  StringRef targetChip = module.chip();
  std::optional<Chip> moduleChip;
  if (!targetChip.empty()) {
    moduleChip = parseChip(targetChip);
    std::optional<unsigned> minPtx =
        moduleChip ? minPtxVersionForChip(*moduleChip) : std::nullopt;
    if (!minPtx) {
      error(module.targetLoc, "unsupported-target",
            "unknown target '" + targetChip.str() + "'",
            "use a real chip such as sm_80, sm_90 or sm_90a");
      moduleChip.reset();
    } else if (module.hasVersion() && module.version() < *minPtx) {
      error(module.targetLoc, "version-target-mismatch",
            "PTX ISA " + versionString(module.version()) +
                " does not support .target " + targetChip.str() +
                " (needs .version " + versionString(*minPtx) + " or newer)",
            "write '.version " + versionString(*minPtx) +
                "' (or newer) or target an older chip");
    } else if (opts.warnings && moduleChip->sm < OldestChipOfCuda13) {
      diags.push_back(makeDiagnostic(
          Severity::Warning, module.targetLoc, "unsupported-target",
          "CUDA 13's ptxas no longer compiles for " + targetChip.str() +
              " (oldest: sm_" + std::to_string(OldestChipOfCuda13) + ")",
          "target sm_75 or newer"));
    }
  }
  if (opts.warnings && module.addressSize == 0 && !module.functions.empty())
    diags.push_back(makeDiagnostic(
        Severity::Warning,
        module.targetLoc.line ? module.targetLoc : SourceLocation{1, 1},
        "missing-address-size",
        "no .address_size directive: addresses default to 32 bits",
        "add '.address_size 64' after .target"));
  if (!opts.chip.empty()) {
    std::optional<Chip> optChip = parseChip(opts.chip);
    if (optChip && moduleChip && moduleChip->sm > optChip->sm)
      error(module.targetLoc, "version-target-mismatch",
            ".target " + targetChip.str() + " is newer than the chip " +
                opts.chip + " being compiled for",
            "write '.target " + opts.chip + "'");
    if (optChip)
      chip = *optChip;
  } else if (moduleChip) {
    chip = *moduleChip;
  }
}

} // namespace

std::vector<Diagnostic> llmptx::ptx::lintModule(const Module &module,
                                                const LintOptions &opts) {
  std::vector<Diagnostic> diags;
  Chip chip;
  checkHeader(module, opts, chip, diags);
  for (const Function &fn : module.functions)
    if (fn.hasBody)
      FunctionLinter(module, fn, chip, module.version(), opts, diags).run();
  sortDiagnostics(diags);
  return diags;
}

std::vector<Diagnostic> llmptx::ptx::lintPtx(StringRef text,
                                             const LintOptions &opts) {
  ParseResult parsed = parsePtx(text);
  std::vector<Diagnostic> diags = std::move(parsed.diagnostics);
  std::vector<Diagnostic> lint = lintModule(parsed.module, opts);
  diags.insert(diags.end(), std::make_move_iterator(lint.begin()),
               std::make_move_iterator(lint.end()));
  sortDiagnostics(diags);
  return diags;
}
