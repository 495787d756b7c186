//===- LLMGenAttrs.cpp - llmgen attributes ----------------------*- C++ -*-===//
//
// Parsing, printing and verification of `#llmgen.target` and
// `#llmgen.harness`.
//
//===----------------------------------------------------------------------===//

#include "llmptx/Dialect/LLMGen/IR/LLMGenAttrs.h"
#include "llmptx/Dialect/LLMGen/IR/LLMGenDialect.h"

#include "llmptx/Runtime/Bundle.h"
#include "llmptx/Runtime/Expression.h"
#include "llmptx/Support/UntrustedText.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace llmptx;
using namespace llmptx::llmgen;

#include "llmptx/Dialect/LLMGen/IR/LLMGenEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "llmptx/Dialect/LLMGen/IR/LLMGenAttrs.cpp.inc"

void LLMGenDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "llmptx/Dialect/LLMGen/IR/LLMGenAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// TargetAttr
//===----------------------------------------------------------------------===//

/// Accepts `sm_<digits>` with an optional architecture-specific suffix (`a`)
/// or family suffix (`f`), the spellings ptxas takes for `-arch`.
static bool isValidChip(StringRef chip) {
  if (!chip.consume_front("sm_"))
    return false;
  if (chip.ends_with("a") || chip.ends_with("f"))
    chip = chip.drop_back();
  return !chip.empty() && llvm::all_of(chip, llvm::isDigit);
}

static constexpr StringLiteral kProviderKinds[] = {"openai", "anthropic",
                                                   "exec", "replay"};

FailureOr<std::optional<llmptx::llm::CacheMode>>
llmptx::llmgen::parseCacheModeParameter(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  std::string spelling;
  if (failed(parser.parseKeywordOrString(&spelling)))
    return failure();
  if (std::optional<llm::CacheMode> mode = llm::symbolizeCacheMode(spelling))
    return mode;
  return parser.emitError(loc)
         << "expected the cache mode to be one of: readwrite, read, off";
}

// The parameters are the rows of LLMGenSettings.td.
LogicalResult TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError
#define LLMGEN_PARAMETER(Name, Type, Getter) , Type Name
#include "llmptx/Dialect/LLMGen/IR/LLMGenSettings.inc"
) {
  if (optLevel < 0 || optLevel > 3)
    return emitError() << "O must be between 0 and 3, got " << optLevel;
  if (!isValidChip(chip))
    return emitError() << "chip '" << chip
                       << "' is not of the form sm_<digits>[a|f], e.g. "
                          "\"sm_90\"";
  if (!provider.empty() && !llvm::is_contained(kProviderKinds, provider))
    return emitError() << "provider '" << provider
                       << "' is not one of openai, anthropic, exec, replay";
  if (samples < 1)
    return emitError() << "samples must be at least 1, got " << samples;
  if (repairs < 0)
    return emitError() << "repairs must not be negative, got " << repairs;
  if (rounds < -1)
    return emitError() << "rounds must not be negative, got " << rounds;
  if (jobs < 0)
    return emitError() << "jobs must not be negative, got " << jobs;
  if (gpuJobs < 0)
    return emitError() << "gpu_jobs must not be negative, got " << gpuJobs;
  if (confirmAbove < 0)
    return emitError() << "confirm_above must not be negative, got "
                       << confirmAbove;
  if (link) {
    for (Attribute file : link)
      if (!isa<StringAttr>(file))
        return emitError() << "link must list file names (strings), found "
                           << file;
  }
  return success();
}

Attribute TargetAttr::getReferenceTarget() const {
  return NVVM::NVVMTargetAttr::get(getContext(), getO(), "nvptx64-nvidia-cuda",
                                   getChip(), getFeatures(), getFlags(),
                                   getLink());
}

/// Kernel names become PTX `.entry` names, which the host loads by name and
/// the model must reproduce: a PTX identifier ([a-zA-Z][a-zA-Z0-9_$]* or
/// [_$%][a-zA-Z0-9_$]+), of reasonable length. Other functions may also hold
/// '.', which the NVPTX backend rewrites consistently; anything else (a '-',
/// a space, a non-ASCII letter) aborts that backend.
static LogicalResult verifySymbolNames(Operation *gpuModule) {
  constexpr size_t maxLength = 1024;
  WalkResult walk = gpuModule->walk([&](FunctionOpInterface function) {
    StringRef name = SymbolTable::getSymbolName(function).getValue();
    bool kernel = function->hasAttr(gpu::GPUDialect::getKernelFuncAttrName()) ||
                  function->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName());
    auto inBody = [&](char c) {
      return llvm::isAlnum(c) || c == '_' || c == '$' || (!kernel && c == '.');
    };
    bool valid =
        !name.empty() && name.size() <= maxLength &&
        (llvm::isAlpha(name.front()) ||
         (name.size() > 1 && (name.front() == '_' || name.front() == '$' ||
                              name.front() == '%'))) &&
        llvm::all_of(name.drop_front(), inBody);
    if (valid)
      return WalkResult::advance();
    InFlightDiagnostic diag = function->emitOpError();
    diag << (kernel ? "kernel" : "function") << " name '"
         << untrusted::clipForMessage(
                std::string_view(name.data(), name.size()), 60)
         << "' cannot be a PTX symbol: ";
    if (name.size() > maxLength)
      diag << "it has " << name.size() << " characters, at most " << maxLength
           << " are accepted";
    else
      diag << "use letters, digits, '_' and '$'" << (kernel ? "" : " (and '.')")
           << ", not starting with a digit";
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

LogicalResult TargetAttr::verifyTarget(Operation *gpuModule) const {
  if (failed(verifySymbolNames(gpuModule)))
    return failure();
  // The reference path decides which NVVM ops the chip supports.
  return cast<NVVM::NVVMTargetAttr>(getReferenceTarget())
      .verifyTarget(gpuModule);
}

//===----------------------------------------------------------------------===//
// HarnessAttr
//===----------------------------------------------------------------------===//

static bool isIdentifier(StringRef name) {
  if (name.empty() || !(llvm::isAlpha(name.front()) || name.front() == '_'))
    return false;
  return llvm::all_of(name,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

using EmitError = function_ref<InFlightDiagnostic()>;

bool llmptx::llmgen::isFractionalLiteral(StringRef text) {
  double real;
  int64_t integer;
  text = text.trim();
  return !text.getAsDouble(real) && text.getAsInteger(10, integer);
}

/// `text` is an expression of the harness's sizes.
static LogicalResult verifyExpression(EmitError emitError, StringRef what,
                                      StringRef text,
                                      const llvm::StringSet<> &sizes) {
  auto expression =
      runtime::Expression::parse(std::string_view(text.data(), text.size()));
  if (!expression)
    return emitError() << what << ": '"
                       << untrusted::clipForMessage(
                              std::string_view(text.data(), text.size()))
                       << "' is not an expression: " << expression.error();
  for (const std::string &name : expression->names())
    if (!sizes.contains(name))
      return emitError() << what << ": '" << name
                         << "' is not one of the harness's sizes";
  return success();
}

/// Sizes are distinct identifiers; `names` receives them.
static LogicalResult verifySizes(EmitError emitError, ArrayAttr sizes,
                                 llvm::StringSet<> &names) {
  for (Attribute size : sizes) {
    auto name = dyn_cast<StringAttr>(size);
    if (!name || !isIdentifier(name.getValue()))
      return emitError() << "sizes must be identifiers (strings), found "
                         << size;
    if (!names.insert(name.getValue()).second)
      return emitError() << "size '" << name.getValue() << "' is named twice";
  }
  return success();
}

/// Each shape gives every size a positive value.
static LogicalResult verifyShapes(EmitError emitError, ArrayAttr sizes,
                                  ArrayAttr shapes) {
  for (auto [i, shape] : llvm::enumerate(shapes)) {
    auto values = dyn_cast<ArrayAttr>(shape);
    if (!values || values.size() != sizes.size())
      return emitError() << "shape " << i << " must list " << sizes.size()
                         << " integers, one per size";
    for (Attribute value : values) {
      auto integer = dyn_cast<IntegerAttr>(value);
      if (!integer || integer.getInt() < 1)
        return emitError() << "shape " << i
                           << " must hold positive integers, found " << value;
    }
  }
  return success();
}

/// Argument values and the launch: expressions, three grid and block
/// dimensions, argument indices for the outputs.
static LogicalResult verifyLaunch(EmitError emitError, ArrayAttr args,
                                  ArrayAttr grid, DenseI32ArrayAttr block,
                                  DenseI32ArrayAttr outputs,
                                  const llvm::StringSet<> &names) {
  if (args)
    for (auto [i, arg] : llvm::enumerate(args)) {
      if (!isa<StringAttr, IntegerAttr, FloatAttr>(arg))
        return emitError() << "args[" << i
                           << "] must be a string expression or a number";
      auto text = dyn_cast<StringAttr>(arg);
      if (!text || isFractionalLiteral(text.getValue()))
        continue;
      std::string what = ("args[" + llvm::Twine(i) + "]").str();
      for (const std::string &part : runtime::splitExpressionList(
               std::string_view(text.getValue().data(), text.size())))
        if (failed(verifyExpression(emitError, what, part, names)))
          return failure();
    }
  if (grid) {
    if (grid.size() != 3)
      return emitError() << "grid must have 3 entries (x, y, z), found "
                         << grid.size();
    for (auto [i, dim] : llvm::enumerate(grid)) {
      if (!isa<StringAttr, IntegerAttr>(dim))
        return emitError() << "grid[" << i
                           << "] must be a string expression or an integer";
      if (auto text = dyn_cast<StringAttr>(dim))
        if (failed(verifyExpression(emitError,
                                    ("grid[" + llvm::Twine(i) + "]").str(),
                                    text.getValue(), names)))
          return failure();
    }
  }
  if (block) {
    if (block.size() != 3)
      return emitError() << "block must have 3 entries, found " << block.size();
    for (int32_t dim : block.asArrayRef())
      if (dim < 1)
        return emitError() << "block sizes must be positive";
  }
  if (outputs)
    for (int32_t index : outputs.asArrayRef())
      if (index < 0)
        return emitError() << "outputs must be argument indices";
  return success();
}

static std::optional<double> numberOf(Attribute attr) {
  if (auto integer = dyn_cast<IntegerAttr>(attr))
    return static_cast<double>(integer.getInt());
  if (auto real = dyn_cast<FloatAttr>(attr))
    return real.getValueAsDouble();
  return std::nullopt;
}

/// ulp is a count of representable values, so a non-negative integer, and
/// one small enough to still reject something; rel and abs are finite and
/// non-negative. A typo (`ulp = -1`, `ulp = 1.5`) must never turn the
/// comparison off.
static LogicalResult verifyTolerance(EmitError emitError,
                                     DictionaryAttr tolerance) {
  for (NamedAttribute entry : tolerance) {
    StringRef key = entry.getName().getValue();
    Attribute value = entry.getValue();
    if (key == "ulp") {
      auto ulp = dyn_cast<IntegerAttr>(value);
      if (!ulp || ulp.getValue().isNegative() ||
          ulp.getValue().getActiveBits() > 32 ||
          ulp.getValue().getZExtValue() > runtime::kMaxUlpTolerance)
        return emitError() << "tolerance ulp must be an integer from 0 to "
                           << runtime::kMaxUlpTolerance << ", found " << value;
    } else if (key == "rel" || key == "abs") {
      std::optional<double> number = numberOf(value);
      if (!number || !std::isfinite(*number) || *number < 0)
        return emitError() << "tolerance " << key
                           << " must be a finite non-negative number, found "
                           << value;
    } else {
      return emitError() << "tolerance key '" << key
                         << "' is not one of ulp, rel, abs";
    }
  }
  return success();
}

/// facts.divisible: sizes to positive divisors, which the harness's own
/// shapes respect.
static LogicalResult verifyDivisible(EmitError emitError, Attribute fact,
                                     ArrayAttr sizes, ArrayAttr shapes,
                                     const llvm::StringSet<> &names) {
  auto divisors = dyn_cast<DictionaryAttr>(fact);
  if (!divisors)
    return emitError() << "facts: divisible must map sizes to divisors";
  for (NamedAttribute divisor : divisors) {
    StringRef size = divisor.getName().getValue();
    auto value = dyn_cast<IntegerAttr>(divisor.getValue());
    if (!names.contains(size))
      return emitError() << "facts: divisible names '" << size
                         << "', which is not a size";
    if (!value || value.getInt() < 1)
      return emitError() << "facts: the divisor of '" << size
                         << "' must be a positive integer";
    if (!shapes)
      continue;
    size_t index = llvm::find(sizes, divisor.getName()) - sizes.begin();
    for (auto [i, shape] : llvm::enumerate(shapes)) {
      int64_t given = cast<IntegerAttr>(cast<ArrayAttr>(shape)[index]).getInt();
      if (given % value.getInt() != 0)
        return emitError() << "shape " << i << " has " << size << " = " << given
                           << ", not a multiple of " << value.getInt()
                           << " as the facts state";
    }
  }
  return success();
}

/// facts.range: argN to [lo, hi] with lo <= hi.
static LogicalResult verifyRanges(EmitError emitError, Attribute fact) {
  auto ranges = dyn_cast<DictionaryAttr>(fact);
  if (!ranges)
    return emitError() << "facts: range must map arguments (argN) to "
                          "[lo, hi]";
  for (NamedAttribute range : ranges) {
    StringRef name = range.getName().getValue();
    unsigned index = 0;
    if (!name.consume_front("arg") || name.getAsInteger(10, index))
      return emitError() << "facts: range key '" << range.getName().getValue()
                         << "' must name an argument as argN";
    auto bounds = dyn_cast<ArrayAttr>(range.getValue());
    if (!bounds || bounds.size() != 2 || !numberOf(bounds[0]) ||
        !numberOf(bounds[1]) || *numberOf(bounds[0]) > *numberOf(bounds[1]))
      return emitError() << "facts: range of '" << range.getName().getValue()
                         << "' must be [lo, hi] with lo <= hi";
  }
  return success();
}

static LogicalResult verifyFacts(EmitError emitError, DictionaryAttr facts,
                                 ArrayAttr sizes, ArrayAttr shapes,
                                 const llvm::StringSet<> &names) {
  for (NamedAttribute entry : facts) {
    StringRef key = entry.getName().getValue();
    if (key == "align") {
      auto align = dyn_cast<IntegerAttr>(entry.getValue());
      if (!align || align.getInt() < 1 || !llvm::isPowerOf2_64(align.getInt()))
        return emitError() << "facts: align must be a power of two";
    } else if (key == "divisible") {
      if (failed(verifyDivisible(emitError, entry.getValue(), sizes, shapes,
                                 names)))
        return failure();
    } else if (key == "range") {
      if (failed(verifyRanges(emitError, entry.getValue())))
        return failure();
    } else {
      return emitError() << "facts: unknown fact '" << key
                         << "' (expected align, divisible or range)";
    }
  }
  return success();
}

/// The production shape: a positive value per size, multiples of the
/// stated divisors.
static LogicalResult verifyTiming(EmitError emitError, ArrayAttr sizes,
                                  ArrayAttr timing, DictionaryAttr facts) {
  if (timing.size() != sizes.size() ||
      !llvm::all_of(timing, [](Attribute value) {
        auto integer = dyn_cast<IntegerAttr>(value);
        return integer && integer.getInt() >= 1;
      }))
    return emitError() << "timing must list " << sizes.size()
                       << " positive integers, one per size";
  auto divisors = facts ? facts.getAs<DictionaryAttr>("divisible") : nullptr;
  if (!divisors)
    return success();
  for (auto [size, value] : llvm::zip(sizes, timing)) {
    StringRef name = cast<StringAttr>(size).getValue();
    auto divisor = divisors.getAs<IntegerAttr>(name);
    int64_t given = cast<IntegerAttr>(value).getInt();
    if (divisor && divisor.getInt() > 0 && given % divisor.getInt() != 0)
      return emitError() << "timing has " << name << " = " << given
                         << ", not a multiple of " << divisor.getInt()
                         << " as the facts state";
  }
  return success();
}

LogicalResult
HarnessAttr::verify(EmitError emitError, ArrayAttr sizes, ArrayAttr shapes,
                    ArrayAttr args, ArrayAttr grid, DenseI32ArrayAttr block,
                    DenseI32ArrayAttr outputs, DictionaryAttr tolerance,
                    DictionaryAttr facts, StringAttr flops, ArrayAttr timing) {
  llvm::StringSet<> names;
  if (failed(verifySizes(emitError, sizes, names)) ||
      (flops &&
       failed(verifyExpression(emitError, "flops", flops.getValue(), names))) ||
      (timing && failed(verifyTiming(emitError, sizes, timing, facts))) ||
      (shapes && failed(verifyShapes(emitError, sizes, shapes))) ||
      failed(verifyLaunch(emitError, args, grid, block, outputs, names)) ||
      (tolerance && failed(verifyTolerance(emitError, tolerance))) ||
      (facts && failed(verifyFacts(emitError, facts, sizes, shapes, names))))
    return failure();
  return success();
}
