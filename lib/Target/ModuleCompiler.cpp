//===- ModuleCompiler.cpp - The LLM path of one gpu.module ------*- C++ -*-===//
//
// Every failure of the LLM path ends in the reference and a remark unless
// the user asked for strict (the driver decides); this file only moves
// facts out of the IR and the decision back into attributes.
//
//===----------------------------------------------------------------------===//

#include "ModuleCompiler.h"

#include "KernelFacts.h"
#include "ObjectProvenance.h"

#include "llmptx/Target/TargetSettings.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace llmptx;

ModuleCompiler::ModuleCompiler(llmgen::TargetAttr target,
                               gpu::GPUModuleOp module,
                               const gpu::TargetOptions &options)
    : target(target), module(module), options(options),
      settings(pipelineSettingsOf(target)) {}

ModuleCompiler::~ModuleCompiler() = default;

FailureOr<DictionaryAttr> ModuleCompiler::run() {
  reference = buildReference(module, target.getReferenceTarget(), options);
  if (!reference)
    return failure();
  FailureOr<std::vector<KernelDescription>> kernels = describe();
  if (failed(kernels))
    return failure();
  driver = std::make_unique<PipelineDriver>(settings, module.getName().str(),
                                            std::move(*kernels), diagnostics(),
                                            reference->toolkitPath);
  driver->runStages();
  std::optional<ComposedSlots> slots;
  if (driver->unavailable().empty())
    slots = driver->composeSlots(reference->ptx);
  bool accepted = driver->settle();
  DictionaryAttr outcome =
      slots ? record(*slots)
            : referenceOnlyOutcome(module.getContext(), reference->ptx,
                                   driver->unavailable());
  // The report is written in strict mode too: it says why.
  driver->writeReport(driver->kernelRecords());
  if (!accepted)
    return failure();
  return outcome;
}

DriverHooks ModuleCompiler::diagnostics() {
  DriverHooks hooks;
  hooks.remark = [this](const llvm::Twine &message) {
    emitRemark(module.getLoc()) << message;
  };
  hooks.warning = [this](const llvm::Twine &message) {
    emitWarning(module.getLoc()) << message;
  };
  hooks.error = [this](const llvm::Twine &message) {
    module.emitError() << message;
  };
  return hooks;
}

//===----------------------------------------------------------------------===//
// prepare
//===----------------------------------------------------------------------===//

FailureOr<std::vector<KernelDescription>> ModuleCompiler::describe() {
  if (settings.provider.empty()) {
    // No model will be asked: the report only names the kernels.
    std::vector<KernelDescription> named;
    for (auto func : module.getOps<LLVM::LLVMFuncOp>())
      if (func->hasAttr(gpu::GPUDialect::getKernelFuncAttrName()))
        named.emplace_back().name = func.getName().str();
    return named;
  }
  FailureOr<std::vector<KernelDescription>> described = describeKernels(
      module, reference->ptx, settings.verification == VerifyLevel::Exec);
  if (failed(described))
    return failure();
  for (KernelDescription &kernel : *described)
    kernel.referencePtx = reference->ptx;
  return described;
}

//===----------------------------------------------------------------------===//
// record
//===----------------------------------------------------------------------===//

DictionaryAttr ModuleCompiler::provenanceOf(bool selectedSlot,
                                            bool alternateIsLLM) {
  Builder builder(module.getContext());
  SmallVector<NamedAttribute> perKernel;
  for (const KernelWork &item : driver->work()) {
    const Candidate *other = alternateIsLLM ? item.choice.alternate : nullptr;
    const Candidate *used = selectedSlot ? item.choice.selected : other;
    // When either object launches the kernel differently from the original,
    // both record their launch, so llmgen-select-object can launch the
    // kernel as the object it selects needs.
    const LaunchFreedom &freedom = item.description->launch;
    auto launchOf = [&](const Candidate *candidate) {
      return candidate && candidate->launch ? *candidate->launch
                                            : freedom.original;
    };
    LaunchConfig launch = launchOf(used);
    bool recordLaunch = launchOf(item.choice.selected) != freedom.original ||
                        launchOf(other) != freedom.original;
    std::string reason =
        selectedSlot ? item.choice.reason
        : other ? "alternate: candidate " + other->name() + ", not selected"
                : std::string("alternate: the NVPTX reference");
    perKernel.push_back(builder.getNamedAttr(
        item.description->name,
        kernelProvenance(builder, item, used, reason,
                         recordLaunch ? &launch : nullptr)));
  }
  return builder.getDictionaryAttr(perKernel);
}

DictionaryAttr ModuleCompiler::record(const ComposedSlots &slots) {
  std::string alternateReason =
      slots.alternateIsLLM ? "alternate: the best LLM candidates, not selected"
                           : "alternate: the NVPTX reference";
  Builder builder(module.getContext());
  return builder.getDictionaryAttr(
      {builder.getNamedAttr(
           llmgen::stringifySlot(llmgen::Slot::Selected),
           slotRecord(builder, slots.selected, slots.anySelected,
                      driver->setReason(),
                      provenanceOf(/*selectedSlot=*/true, slots.alternateIsLLM),
                      settings.model, settings.provider)),
       builder.getNamedAttr(llmgen::stringifySlot(llmgen::Slot::Alternate),
                            slotRecord(builder, slots.alternate,
                                       slots.alternateIsLLM, alternateReason,
                                       provenanceOf(/*selectedSlot=*/false,
                                                    slots.alternateIsLLM),
                                       settings.model, settings.provider))});
}
