//===- AbiContract.cpp - Expected kernel entry signature --------*- C++ -*-===//
//
// What matters for the ABI is the byte layout of the kernel parameter buffer:
// each parameter's size and alignment, in order. Type spellings that give
// the same layout (.u64/.s64/.b64, .b8[2] vs .b16 for an f16) are only
// noted; anything that moves a byte is an error naming the parameter.
//
//===----------------------------------------------------------------------===//

#include "llmptx/PTX/AbiContract.h"
#include "llmptx/PTX/Parser.h"
#include "llmptx/PTX/PtxIsa.h"
#include "llmptx/Support/UntrustedText.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

using namespace llmptx::ptx;
using llvm::StringRef;

StringRef llmptx::ptx::abiRoleName(AbiRole role) {
  switch (role) {
  case AbiRole::BarePointer:
    return "bare-pointer";
  case AbiRole::MemrefAllocatedPointer:
    return "memref-allocated-pointer";
  case AbiRole::MemrefAlignedPointer:
    return "memref-aligned-pointer";
  case AbiRole::MemrefOffset:
    return "memref-offset";
  case AbiRole::MemrefSize:
    return "memref-size";
  case AbiRole::MemrefStride:
    return "memref-stride";
  case AbiRole::Scalar:
    return "scalar";
  case AbiRole::TensorMap:
    return "tensor-map";
  }
  return "scalar";
}

std::optional<AbiRole> llmptx::ptx::parseAbiRole(StringRef name) {
  for (AbiRole role : {AbiRole::BarePointer, AbiRole::MemrefAllocatedPointer,
                       AbiRole::MemrefAlignedPointer, AbiRole::MemrefOffset,
                       AbiRole::MemrefSize, AbiRole::MemrefStride,
                       AbiRole::Scalar, AbiRole::TensorMap})
    if (abiRoleName(role) == name)
      return role;
  return std::nullopt;
}

std::string AbiParam::describe() const {
  std::string arg = "%arg" + std::to_string(argIndex);
  switch (role) {
  case AbiRole::BarePointer:
    return "pointer " + arg;
  case AbiRole::MemrefAllocatedPointer:
    return "memref allocated pointer of " + arg;
  case AbiRole::MemrefAlignedPointer:
    return "memref aligned pointer of " + arg;
  case AbiRole::MemrefOffset:
    return "memref offset of " + arg;
  case AbiRole::MemrefSize:
    return "memref size " + std::to_string(dim) + " of " + arg;
  case AbiRole::MemrefStride:
    return "memref stride " + std::to_string(dim) + " of " + arg;
  case AbiRole::Scalar:
    return "scalar " + arg;
  case AbiRole::TensorMap:
    return "tensor map over " + arg;
  }
  return arg;
}

/// Element size of a PTX type in bytes (0 when unknown).
static unsigned typeBytes(StringRef type) {
  std::optional<ScalarType> t = parseScalarType(type);
  return t ? std::max(1u, t->bits / 8) : 0;
}

/// How the contract spells one parameter: ".u64" or ".b8 [2]".
static std::string spell(const AbiParam &p) {
  unsigned elem = typeBytes(p.ptxType);
  if (elem && p.sizeBytes > elem)
    return ".align " + std::to_string(p.alignBytes) + " " + p.ptxType + "[" +
           std::to_string(p.sizeBytes / elem) + "]";
  return p.ptxType;
}

std::string AbiContract::ptxSignature() const {
  std::string out = ".visible .entry " + entryName + "(";
  for (unsigned i = 0; i < params.size(); ++i) {
    const AbiParam &p = params[i];
    std::string name = entryName + "_param_" + std::to_string(i);
    unsigned elem = typeBytes(p.ptxType);
    out += i == 0 ? "\n" : ",\n";
    if (elem && p.sizeBytes > elem)
      out += "\t.param .align " + std::to_string(p.alignBytes) + " " +
             p.ptxType + " " + name + "[" + std::to_string(p.sizeBytes / elem) +
             "]";
    else
      out += "\t.param " + p.ptxType + " " + name;
  }
  out += params.empty() ? ")" : "\n)";
  return out;
}

std::string AbiContract::toJson() const {
  llvm::json::Array array;
  for (const AbiParam &p : params)
    array.push_back(llvm::json::Object{{"type", p.ptxType},
                                       {"size", p.sizeBytes},
                                       {"align", p.alignBytes},
                                       {"role", abiRoleName(p.role)},
                                       {"arg", p.argIndex},
                                       {"dim", p.dim}});
  llvm::json::Value value =
      llvm::json::Object{{"entry", entryName}, {"params", std::move(array)}};
  std::string out;
  llvm::raw_string_ostream os(out);
  os << llvm::formatv("{0:2}", value);
  return out;
}

llvm::Expected<AbiContract> AbiContract::fromJson(StringRef json) {
  auto fail = [](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "ABI contract: " + message);
  };
  if (auto tooDeep = llmptx::untrusted::findExcessiveJsonNesting(
          std::string_view(json.data(), json.size())))
    return fail("invalid JSON at " + *tooDeep);
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(json);
  if (!parsed)
    return fail("invalid JSON: " + llvm::toString(parsed.takeError()));
  const llvm::json::Object *root = parsed->getAsObject();
  if (!root)
    return fail("expected a JSON object");
  AbiContract contract;
  std::optional<StringRef> entry = root->getString("entry");
  if (!entry || entry->empty())
    return fail("missing \"entry\" (the kernel name)");
  contract.entryName = entry->str();
  const llvm::json::Array *params = root->getArray("params");
  if (!params)
    return fail("missing \"params\" array");
  for (unsigned i = 0; i < params->size(); ++i) {
    std::string where = "params[" + std::to_string(i) + "]";
    const llvm::json::Object *obj = (*params)[i].getAsObject();
    if (!obj)
      return fail(where + " is not an object");
    AbiParam p;
    std::optional<StringRef> type = obj->getString("type");
    if (!type || !isTypeName(*type))
      return fail(where + ": \"type\" must be a PTX type such as \".u64\"");
    p.ptxType = type->str();
    unsigned natural = typeBytes(*type);
    auto number = [&](StringRef key, unsigned fallback,
                      unsigned &out) -> llvm::Error {
      const llvm::json::Value *v = obj->get(key);
      if (!v) {
        out = fallback;
        return llvm::Error::success();
      }
      std::optional<int64_t> n = v->getAsInteger();
      if (!n || *n < 0)
        return fail(where + ": \"" + key + "\" must be a non-negative integer");
      out = static_cast<unsigned>(*n);
      return llvm::Error::success();
    };
    if (llvm::Error e = number("size", natural, p.sizeBytes))
      return std::move(e);
    if (llvm::Error e = number("align", natural, p.alignBytes))
      return std::move(e);
    if (llvm::Error e = number("arg", 0, p.argIndex))
      return std::move(e);
    if (llvm::Error e = number("dim", 0, p.dim))
      return std::move(e);
    std::optional<StringRef> role = obj->getString("role");
    if (role) {
      std::optional<AbiRole> r = parseAbiRole(*role);
      if (!r)
        return fail(where + ": unknown role '" + *role + "'");
      p.role = *r;
    }
    if (p.sizeBytes == 0)
      return fail(where + ": size must not be 0");
    contract.params.push_back(p);
  }
  return contract;
}

namespace {

struct Layout {
  unsigned size, align;
};

Layout layoutOf(const Param &p) {
  unsigned elem = typeBytes(p.type);
  return {p.sizeBytes(), p.align ? p.align : elem};
}

std::string spellFound(const Param &p) {
  std::string out = p.type.str();
  if (p.isArray)
    out = ".align " + std::to_string(p.align) + " " + out + "[" +
          std::to_string(p.arraySize) + "]";
  return out;
}

bool sameKindFamily(StringRef a, StringRef b) {
  std::optional<ScalarType> ta = parseScalarType(a), tb = parseScalarType(b);
  if (!ta || !tb)
    return false;
  bool aFloat = ta->kind == TypeKind::Float,
       bFloat = tb->kind == TypeKind::Float;
  // Bits types carry no interpretation, so they pair with anything.
  if (ta->kind == TypeKind::Bits || tb->kind == TypeKind::Bits)
    return true;
  return aFloat == bFloat;
}

} // namespace

/// The entry the contract names. When it is missing, says so (after the
/// first parse error, if any) and falls back to the module's only entry;
/// null when there is none to check.
static const Function *findContractEntry(const ParseResult &parsed,
                                         const AbiContract &contract,
                                         std::vector<Diagnostic> &diags) {
  const Function *named = nullptr;
  std::vector<const Function *> entries;
  for (const Function &fn : parsed.module.functions)
    if (fn.isEntry) {
      entries.push_back(&fn);
      if (fn.name == contract.entryName)
        named = &fn;
    }
  if (named)
    return named;
  if (entries.size() == 1) {
    diags.push_back(
        makeDiagnostic(Severity::Error, entries[0]->loc, "abi-missing-entry",
                       "entry '" + contract.entryName +
                           "' not found; the module defines "
                           "entry '" +
                           entries[0]->name.str() + "' instead",
                       "rename the entry to '" + contract.entryName + "'"));
  } else {
    std::string found;
    for (const Function *fn : entries)
      found += (found.empty() ? "" : ", ") + fn->name.str();
    diags.push_back(makeDiagnostic(
        Severity::Error, SourceLocation{1, 1}, "abi-missing-entry",
        "entry '" + contract.entryName + "' not found" +
            (found.empty() ? std::string(" (the module has no .entry)")
                           : " (entries: " + found + ")"),
        "define '.visible .entry " + contract.entryName + "(...)'"));
  }
  if (!parsed.ok())
    diags.insert(diags.begin(), parsed.diagnostics.front());
  return entries.size() == 1 ? entries[0] : nullptr;
}

/// How parameter `index` of the entry (`have`) departs from the contract's
/// (`want`), if it does: a size, alignment or kind error, or a note that a
/// different but ABI-equivalent type was used.
static std::optional<Diagnostic>
checkParam(unsigned index, const AbiParam &want, const Param &have) {
  Layout layout = layoutOf(have);
  std::string head = "parameter " + std::to_string(index + 1) + " ('" +
                     have.name.str() + "'): expected " + spell(want) + " (" +
                     want.describe() + ")";
  std::string fix =
      "declare it as '.param " + spell(want) + " " + have.name.str() + "'";
  if (layout.size != want.sizeBytes)
    return makeDiagnostic(Severity::Error, have.loc, "abi-param-size",
                          head + ", found " + spellFound(have) + " (" +
                              std::to_string(layout.size) +
                              " bytes instead of " +
                              std::to_string(want.sizeBytes) + ")",
                          fix);
  if (layout.align != want.alignBytes)
    return makeDiagnostic(Severity::Error, have.loc, "abi-param-align",
                          head + ", found " + spellFound(have) +
                              " (alignment " + std::to_string(layout.align) +
                              " instead of " + std::to_string(want.alignBytes) +
                              ")",
                          fix);
  if (have.type == want.ptxType &&
      have.isArray == (spell(want) != want.ptxType))
    return std::nullopt;
  if (!sameKindFamily(have.type, want.ptxType))
    return makeDiagnostic(
        Severity::Error, have.loc, "abi-param-type",
        head + ", found " + spellFound(have) +
            " (same size, but a float and an integer: parameters may be "
            "out of order)",
        fix);
  return makeDiagnostic(Severity::Note, have.loc, "abi-equivalent-type",
                        "parameter " + std::to_string(index + 1) + " ('" +
                            have.name.str() + "') is " + spellFound(have) +
                            " where the contract says " + spell(want) + " (" +
                            want.describe() +
                            "): same size and alignment, ABI-equivalent");
}

/// Parameters the contract has and the entry lacks, and the reverse.
static void checkParamCount(const Function &entry, const AbiContract &contract,
                            std::vector<Diagnostic> &diags) {
  const std::vector<Param> &params = entry.params;
  size_t common = std::min(params.size(), contract.params.size());
  for (size_t i = common; i < contract.params.size(); ++i) {
    const AbiParam &want = contract.params[i];
    diags.push_back(makeDiagnostic(
        Severity::Error, params.empty() ? entry.loc : params.back().loc,
        "abi-param-count",
        "parameter " + std::to_string(i + 1) + " is missing: expected " +
            spell(want) + " (" + want.describe() + "); the contract has " +
            std::to_string(contract.params.size()) + " parameters, '" +
            entry.name.str() + "' declares " + std::to_string(params.size()),
        "add '.param " + spell(want) + " " + contract.entryName + "_param_" +
            std::to_string(i) + "'"));
  }
  for (size_t i = common; i < params.size(); ++i)
    diags.push_back(makeDiagnostic(
        Severity::Error, params[i].loc, "abi-param-count",
        "unexpected parameter " + std::to_string(i + 1) + " ('" +
            params[i].name.str() + "'): the contract has only " +
            std::to_string(contract.params.size()) + " parameters",
        "remove it; the host passes exactly the contract's parameters"));
}

std::vector<Diagnostic> llmptx::ptx::checkAbi(StringRef ptxText,
                                              const AbiContract &contract) {
  std::vector<Diagnostic> diags;
  ParseResult parsed = parsePtx(ptxText);
  const Function *entry = findContractEntry(parsed, contract, diags);
  if (!entry)
    return diags;
  const std::vector<Param> &params = entry->params;
  unsigned common = std::min<size_t>(params.size(), contract.params.size());
  for (unsigned i = 0; i < common; ++i)
    if (std::optional<Diagnostic> departure =
            checkParam(i, contract.params[i], params[i]))
      diags.push_back(std::move(*departure));
  checkParamCount(*entry, contract, diags);
  sortDiagnostics(diags);
  return diags;
}
