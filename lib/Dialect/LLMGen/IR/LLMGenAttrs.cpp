//===- LLMGenAttrs.cpp - llmgen attributes ----------------------*- C++ -*-===//
//
// Parsing, printing and verification of `#llmgen.target` and
// `#llmgen.harness`.
//
//===----------------------------------------------------------------------===//

#include "llmptx/Dialect/LLMGen/IR/LLMGenAttrs.h"
#include "llmptx/Dialect/LLMGen/IR/LLMGenDialect.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

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

LogicalResult TargetAttr::verifyTarget(Operation *gpuModule) const {
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

LogicalResult HarnessAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  ArrayAttr sizes, ArrayAttr shapes,
                                  ArrayAttr args, ArrayAttr grid,
                                  DenseI32ArrayAttr block,
                                  DenseI32ArrayAttr outputs,
                                  DictionaryAttr tolerance,
                                  DictionaryAttr facts, StringAttr flops) {
  if (flops && flops.getValue().trim().empty())
    return emitError() << "flops must be an expression of the sizes";
  llvm::StringSet<> names;
  for (Attribute size : sizes) {
    auto name = dyn_cast<StringAttr>(size);
    if (!name || !isIdentifier(name.getValue()))
      return emitError() << "sizes must be identifiers (strings), found "
                         << size;
    if (!names.insert(name.getValue()).second)
      return emitError() << "size '" << name.getValue() << "' is named twice";
  }
  if (shapes) {
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
  }
  auto isExpression = [](Attribute attr) {
    return isa<StringAttr, IntegerAttr, FloatAttr>(attr);
  };
  if (args) {
    for (auto [i, arg] : llvm::enumerate(args))
      if (!isExpression(arg))
        return emitError() << "args[" << i
                           << "] must be a string expression or a number";
  }
  if (grid) {
    if (grid.size() != 3)
      return emitError() << "grid must have 3 entries (x, y, z), found "
                         << grid.size();
    for (auto [i, dim] : llvm::enumerate(grid))
      if (!isa<StringAttr, IntegerAttr>(dim))
        return emitError() << "grid[" << i
                           << "] must be a string expression or an integer";
  }
  if (block) {
    if (block.size() != 3)
      return emitError() << "block must have 3 entries, found " << block.size();
    for (int32_t dim : block.asArrayRef())
      if (dim < 1)
        return emitError() << "block sizes must be positive";
  }
  if (outputs) {
    for (int32_t index : outputs.asArrayRef())
      if (index < 0)
        return emitError() << "outputs must be argument indices";
  }
  if (tolerance) {
    for (NamedAttribute entry : tolerance) {
      StringRef key = entry.getName().getValue();
      if (key != "ulp" && key != "rel" && key != "abs")
        return emitError() << "tolerance key '" << key
                           << "' is not one of ulp, rel, abs";
      if (!isa<IntegerAttr, FloatAttr>(entry.getValue()))
        return emitError() << "tolerance '" << key << "' must be a number";
    }
  }
  if (facts) {
    for (NamedAttribute entry : facts) {
      StringRef key = entry.getName().getValue();
      if (key == "align") {
        auto align = dyn_cast<IntegerAttr>(entry.getValue());
        if (!align || align.getInt() < 1 ||
            !llvm::isPowerOf2_64(align.getInt()))
          return emitError() << "facts: align must be a power of two";
        continue;
      }
      if (key == "divisible") {
        auto divisors = dyn_cast<DictionaryAttr>(entry.getValue());
        if (!divisors)
          return emitError() << "facts: divisible must map sizes to divisors";
        for (NamedAttribute divisor : divisors) {
          auto value = dyn_cast<IntegerAttr>(divisor.getValue());
          if (!names.contains(divisor.getName().getValue()))
            return emitError()
                   << "facts: divisible names '" << divisor.getName().getValue()
                   << "', which is not a size";
          if (!value || value.getInt() < 1)
            return emitError()
                   << "facts: the divisor of '" << divisor.getName().getValue()
                   << "' must be a positive integer";
          if (shapes) {
            size_t index = llvm::find(sizes, divisor.getName()) - sizes.begin();
            for (auto [i, shape] : llvm::enumerate(shapes)) {
              int64_t size =
                  cast<IntegerAttr>(cast<ArrayAttr>(shape)[index]).getInt();
              if (size % value.getInt() != 0)
                return emitError() << "shape " << i << " has "
                                   << divisor.getName().getValue() << " = "
                                   << size << ", not a multiple of "
                                   << value.getInt() << " as the facts state";
            }
          }
        }
        continue;
      }
      if (key == "range") {
        auto ranges = dyn_cast<DictionaryAttr>(entry.getValue());
        if (!ranges)
          return emitError() << "facts: range must map arguments (argN) to "
                                "[lo, hi]";
        for (NamedAttribute range : ranges) {
          StringRef name = range.getName().getValue();
          unsigned index = 0;
          if (!name.consume_front("arg") || name.getAsInteger(10, index))
            return emitError()
                   << "facts: range key '" << range.getName().getValue()
                   << "' must name an argument as argN";
          auto bounds = dyn_cast<ArrayAttr>(range.getValue());
          auto number = [](Attribute attr) -> std::optional<double> {
            if (auto integer = dyn_cast<IntegerAttr>(attr))
              return static_cast<double>(integer.getInt());
            if (auto real = dyn_cast<FloatAttr>(attr))
              return real.getValueAsDouble();
            return std::nullopt;
          };
          if (!bounds || bounds.size() != 2 || !number(bounds[0]) ||
              !number(bounds[1]) || *number(bounds[0]) > *number(bounds[1]))
            return emitError()
                   << "facts: range of '" << range.getName().getValue()
                   << "' must be [lo, hi] with lo <= hi";
        }
        continue;
      }
      return emitError() << "facts: unknown fact '" << key
                         << "' (expected align, divisible or range)";
    }
  }
  return success();
}
