//===- ModuleCompiler.cpp - The LLM path of one gpu.module ------*- C++ -*-===//
//
// Every failure of the LLM path ends in the reference and a remark unless
// the user asked for strict. Each stage reads what the previous ones left in
// the stages' work (plain data); only prepare and record touch MLIR.
//
//===----------------------------------------------------------------------===//

#include "ModuleCompiler.h"

#include "KernelFacts.h"
#include "ObjectProvenance.h"
#include "RunReport.h"
#include "Selection.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace llmptx;

ModuleCompiler::ModuleCompiler(llmgen::TargetAttr target,
                               gpu::GPUModuleOp module,
                               const gpu::TargetOptions &options)
    : target(target), module(module), options(options),
      settings(TargetSettings::resolve(target)) {}

ModuleCompiler::~ModuleCompiler() = default;

FailureOr<DictionaryAttr> ModuleCompiler::run() {
  reference = buildReference(module, target.getReferenceTarget(), options);
  if (!reference)
    return failure();
  if (settings.provider.empty())
    return settleOnReference(
        "no provider configured (set provider= or LLMPTX_PROVIDER)",
        /*isFallback=*/true);
  if (failed(describe()))
    return failure();
  if (stages->kernels().empty())
    return settleOnReference("the module has no kernels",
                             /*isFallback=*/false);
  if (llvm::Error unavailable = stages->connectProvider())
    return settleOnReference(llvm::toString(std::move(unavailable)),
                             /*isFallback=*/true);
  stages->prepareChecks();
  stages->run();
  compose();
  return record();
}

void ModuleCompiler::remark(const llvm::Twine &message) {
  emitRemark(module.getLoc()) << message;
}

//===----------------------------------------------------------------------===//
// prepare
//===----------------------------------------------------------------------===//

LogicalResult ModuleCompiler::describe() {
  FailureOr<std::vector<KernelDescription>> described =
      describeKernels(module, reference->ptx,
                      settings.verification == llmgen::VerifyLevel::Exec);
  if (failed(described))
    return failure();
  for (KernelDescription &kernel : *described)
    kernel.referencePtx = reference->ptx;
  stages = std::make_unique<KernelStages>(
      settings, module.getName().str(), std::move(*described),
      reference->toolkitPath,
      [this](const llvm::Twine &message) { remark(message); });
  return success();
}

//===----------------------------------------------------------------------===//
// compose
//===----------------------------------------------------------------------===//

llvm::Expected<std::string>
ModuleCompiler::composeSlot(const std::vector<KernelReplacement> &parts) {
  llvm::Expected<std::string> composed =
      composePtxModule(reference->ptx, parts);
  if (!composed || parts.empty() || !stages->checks().toolkit)
    return composed;
  ptx::CompileResult check =
      ptx::compilePtx(*composed, settings.chip, *stages->checks().toolkit);
  if (check.ok)
    return composed;
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "the composed module does not compile: " +
          (check.diagnostics.empty()
               ? check.log
               : ptx::formatDiagnostic(check.diagnostics.front(),
                                       "composed.ptx")));
}

/// The kernels a slot replaces: the selected candidates, or (`alternate`)
/// the best unselected ones.
static std::vector<KernelReplacement> slotParts(std::vector<KernelWork> &work,
                                                bool alternate) {
  std::vector<KernelReplacement> parts;
  for (KernelWork &item : work) {
    const Candidate *used =
        alternate ? (item.choice.selected ? nullptr : item.choice.alternate)
                  : item.choice.selected;
    if (used)
      parts.push_back({item.description->name, used->ptx});
  }
  return parts;
}

void ModuleCompiler::compose() {
  llvm::Expected<std::string> selected =
      composeSlot(slotParts(stages->work(), false));
  if (selected) {
    selectedPtx = std::move(*selected);
  } else {
    // Composition failed: every LLM kernel goes back to the reference.
    std::string error = llvm::toString(selected.takeError());
    for (KernelWork &item : stages->work())
      if (item.choice.selected) {
        item.choice.alternate = item.choice.selected;
        item.choice.selected = nullptr;
        item.choice.fellBack = true;
        item.choice.reason = error;
      }
    selectedPtx = reference->ptx;
  }
  // The alternate slot holds the other choice: the reference when any
  // kernel was selected from the LLM, else the best unselected candidates.
  anySelected = llvm::any_of(stages->work(), [](const KernelWork &item) {
    return item.choice.selected;
  });
  alternatePtx = reference->ptx;
  alternateIsLLM = false;
  std::vector<KernelReplacement> alternateParts =
      slotParts(stages->work(), true);
  if (anySelected || alternateParts.empty())
    return;
  if (llvm::Expected<std::string> alternate = composeSlot(alternateParts)) {
    alternatePtx = std::move(*alternate);
    alternateIsLLM = true;
  } else {
    llvm::consumeError(alternate.takeError());
  }
}

//===----------------------------------------------------------------------===//
// record
//===----------------------------------------------------------------------===//

void ModuleCompiler::emitProviderWarnings() {
  // Ignored corrupt cache entries, truncated answers: each said once.
  llvm::StringSet<> warned;
  for (const KernelWork &item : stages->work())
    for (const SampleOutcome *sample : item.allSamples())
      for (const Attempt &attempt : sample->attempts)
        for (const std::string &warning : attempt.warnings)
          if (warned.insert(warning).second)
            emitWarning(module.getLoc())
                << "llmgen: @" << item.description->name << ": "
                << oneLine(warning);
}

bool ModuleCompiler::emitKernelRemarks() {
  bool accepted = true;
  for (const KernelWork &item : stages->work()) {
    const std::string &name = item.description->name;
    if (item.choice.selected) {
      remark("llmgen: @" + name +
             ": selected the LLM kernel: " + item.choice.reason);
    } else if (item.choice.fellBack && settings.strict) {
      module.emitError() << "llmgen: strict: @" << name
                         << " falls back to the NVPTX reference: "
                         << item.choice.reason;
      accepted = false;
    } else {
      remark("llmgen: @" + name +
             ": using the NVPTX reference: " + item.choice.reason);
    }
  }
  return accepted;
}

DictionaryAttr ModuleCompiler::provenanceOf(bool selectedSlot) {
  Builder builder(module.getContext());
  SmallVector<NamedAttribute> perKernel;
  for (const KernelWork &item : stages->work()) {
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

void ModuleCompiler::appendModuleReport(llvm::json::Object moduleRecord,
                                        llvm::json::Array kernelRecords) {
  std::string error =
      appendToReport(settings.report, settings.reportRecord(),
                     std::move(moduleRecord), std::move(kernelRecords));
  if (!error.empty())
    emitWarning(module.getLoc()) << "llmgen: report: " << error;
}

void ModuleCompiler::writeReport(StringRef selectedReason) {
  if (settings.report.empty())
    return;
  llvm::json::Array records;
  for (const KernelWork &item : stages->work())
    records.push_back(kernelRecord(item, module.getName()));
  appendModuleReport(
      llvm::json::Object{{"name", module.getName().str()},
                         {"selected", anySelected ? "llm" : "nvptx"},
                         {"alternate", alternateIsLLM ? "llm" : "nvptx"},
                         {"reason", selectedReason}},
      std::move(records));
}

FailureOr<DictionaryAttr> ModuleCompiler::record() {
  emitProviderWarnings();
  bool accepted = emitKernelRemarks();

  const std::vector<KernelWork> &work = stages->work();
  unsigned llmKernels = llvm::count_if(
      work, [](const KernelWork &item) { return item.choice.selected; });
  std::string selectedReason =
      anySelected ? llvm::formatv("{0} of {1} kernel(s) from the LLM",
                                  llmKernels, work.size())
                        .str()
      : work.size() == 1
          ? work.front().choice.reason
          : "no kernel passed the " +
                llmgen::stringifySelectPolicy(settings.select).str() +
                " policy";
  std::string alternateReason =
      alternateIsLLM ? "alternate: the best LLM candidates, not selected"
                     : "alternate: the NVPTX reference";
  Builder builder(module.getContext());
  DictionaryAttr outcome = builder.getDictionaryAttr(
      {builder.getNamedAttr(llmgen::stringifySlot(llmgen::Slot::Selected),
                            slotRecord(builder, selectedPtx, anySelected,
                                       selectedReason,
                                       provenanceOf(/*selectedSlot=*/true),
                                       settings.model, settings.provider)),
       builder.getNamedAttr(llmgen::stringifySlot(llmgen::Slot::Alternate),
                            slotRecord(builder, alternatePtx, alternateIsLLM,
                                       alternateReason,
                                       provenanceOf(/*selectedSlot=*/false),
                                       settings.model, settings.provider))});
  // The report is written in strict mode too: it says why.
  writeReport(selectedReason);
  if (!accepted)
    return failure();
  return outcome;
}

FailureOr<DictionaryAttr> ModuleCompiler::settleOnReference(StringRef reason,
                                                            bool isFallback) {
  if (isFallback && settings.strict) {
    module.emitError() << "llmgen: strict: no LLM kernel for module @"
                       << module.getName() << ": " << reason;
    return failure();
  }
  remark("llmgen: using the NVPTX reference: " + reason);
  if (!settings.report.empty()) {
    llvm::json::Array records;
    for (auto func : module.getOps<LLVM::LLVMFuncOp>())
      if (func->hasAttr(gpu::GPUDialect::getKernelFuncAttrName()))
        records.push_back(
            referenceKernelRecord(func.getName(), module.getName(), reason));
    appendModuleReport(llvm::json::Object{{"name", module.getName().str()},
                                          {"selected", "nvptx"},
                                          {"reason", reason}},
                       std::move(records));
  }
  return referenceOnlyOutcome(module.getContext(), reference->ptx, reason);
}
