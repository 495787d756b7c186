//===- AttachTarget.cpp - Attach #llmgen.target to gpu.modules --*- C++ -*-===//
//
// Implements `llmgen-attach-target`, the counterpart of `nvvm-attach-target`.
//
//===----------------------------------------------------------------------===//

#include "llmptx/Dialect/LLMGen/Transforms/Passes.h"

#include "llmptx/Pipeline/ChipProbe.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/Regex.h"

#include <cstdlib>

namespace llmptx::llmgen {
#define GEN_PASS_DEF_LLMGENATTACHTARGET
#include "llmptx/Dialect/LLMGen/Transforms/Passes.h.inc"
} // namespace llmptx::llmgen

using namespace mlir;
using namespace llmptx::llmgen;

namespace {
struct LLMGenAttachTargetPass
    : public llmptx::llmgen::impl::LLMGenAttachTargetBase<
          LLMGenAttachTargetPass> {
  using Base::Base;

  void runOnOperation() override;

private:
  TargetAttr buildTarget(gpu::GPUModuleOp module, Slot slot);
};
} // namespace

/// An option's value as the attribute parameter of the same setting.
template <typename Parameter, typename Option>
static FailureOr<Parameter> toParameter(const Option &option,
                                        function_ref<InFlightDiagnostic()>) {
  return static_cast<Parameter>(option);
}

/// The cache option: empty leaves the mode to the environment.
template <>
FailureOr<std::optional<llmptx::llm::CacheMode>>
toParameter(const Pass::Option<std::string> &option,
            function_ref<InFlightDiagnostic()> emitError) {
  if (option.empty())
    return std::optional<llmptx::llm::CacheMode>();
  if (std::optional<llmptx::llm::CacheMode> mode =
          llmptx::llm::symbolizeCacheMode(option))
    return mode;
  return emitError() << "cache must be readwrite, read or off, got '"
                     << option.getValue() << "'";
}

/// The language option: empty leaves it to the environment.
template <>
FailureOr<std::optional<llmptx::Language>>
toParameter(const Pass::Option<std::string> &option,
            function_ref<InFlightDiagnostic()> emitError) {
  if (option.empty())
    return std::optional<llmptx::Language>();
  if (std::optional<llmptx::Language> language =
          llmptx::settingFromSpelling<llmptx::Language>(option))
    return language;
  return emitError() << "language must be one of "
                     << llmptx::settingSpellings<llmptx::Language>()
                     << ", got '" << option.getValue() << "'";
}

TargetAttr LLMGenAttachTargetPass::buildTarget(gpu::GPUModuleOp module,
                                               Slot slot) {
  Builder builder(&getContext());
  SmallVector<NamedAttribute> flagEntries;
#define LLMGEN_FLAGS_ENTRY(Name, Entry)                                        \
  if (Name)                                                                    \
    flagEntries.push_back(builder.getNamedAttr(Entry, builder.getUnitAttr()));
#include "llmptx/Dialect/LLMGen/IR/LLMGenSettings.inc"
  // The parameters that are not options of their own.
  DictionaryAttr flags = flagEntries.empty()
                             ? DictionaryAttr()
                             : builder.getDictionaryAttr(flagEntries);
  ArrayAttr link;

  auto emitError = [&]() { return module.emitError("llmgen-attach-target: "); };
#define LLMGEN_PARAMETER(Name, Type, Getter)                                   \
  FailureOr<Type> Name##Parameter = toParameter<Type>(Name, emitError);        \
  if (failed(Name##Parameter))                                                 \
    return nullptr;
#include "llmptx/Dialect/LLMGen/IR/LLMGenSettings.inc"
  return TargetAttr::getChecked(emitError, &getContext()
#define LLMGEN_PARAMETER(Name, Type, Getter) , *Name##Parameter
#include "llmptx/Dialect/LLMGen/IR/LLMGenSettings.inc"
  );
}

/// chip=auto: the chip of the GPU the runner reaches (the option's runner,
/// else LLMPTX_RUNNER, else the local llmptx-runner), else the default
/// sm_90; a remark says which and why.
static std::string resolveAutoChip(Operation *top, StringRef runner) {
  std::string command = runner.str();
  if (command.empty())
    if (const char *fromEnvironment = std::getenv("LLMPTX_RUNNER"))
      command = fromEnvironment;
  llvm::Expected<llmptx::ProbedChip> probed = llmptx::probeRunnerChip(command);
  if (!probed) {
    std::string why = llvm::toString(probed.takeError());
    emitRemark(top->getLoc())
        << "llmgen: chip=auto: no GPU answered (" << why << "); using sm_90";
    return "sm_90";
  }
  emitRemark(top->getLoc())
      << "llmgen: chip=auto: " << probed->chip << " (the runner's GPU: "
      << (probed->device.empty() ? "unnamed" : probed->device) << ")";
  return probed->chip;
}

void LLMGenAttachTargetPass::runOnOperation() {
  if (chip == "auto")
    chip = resolveAutoChip(getOperation(), runner);
  llvm::Regex matcher(moduleMatcher);
  std::string regexError;
  if (!moduleMatcher.empty() && !matcher.isValid(regexError)) {
    getOperation().emitError() << "llmgen-attach-target: invalid module regex '"
                               << moduleMatcher << "': " << regexError;
    return signalPassFailure();
  }

  for (auto module : getOperation().getOps<gpu::GPUModuleOp>()) {
    if (!moduleMatcher.empty() && !matcher.match(module.getName()))
      continue;
    SmallVector<Attribute> targets;
    if (ArrayAttr existing = module.getTargetsAttr())
      llvm::append_range(targets, existing.getValue());

    TargetAttr selected = buildTarget(module, Slot::Selected);
    if (!selected)
      return signalPassFailure();
    if (!llvm::is_contained(targets, selected))
      targets.push_back(selected);
    if (alternate) {
      TargetAttr other = buildTarget(module, Slot::Alternate);
      if (!llvm::is_contained(targets, other))
        targets.push_back(other);
    }
    module.setTargetsAttr(ArrayAttr::get(&getContext(), targets));
  }
}
