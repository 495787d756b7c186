//===- Driver.cpp - The one driver of the kernel pipeline -------*- C++ -*-===//
//
// Every failure of the LLM path ends in the reference and a remark unless
// the user asked for strict; the same words reach a module's diagnostics
// and a command-line tool's stderr.
//
//===----------------------------------------------------------------------===//

#include "llmptx/Pipeline/Driver.h"

#include "KernelStages.h"

#include "llmptx/PTX/CompileCheck.h"
#include "llmptx/PTX/Diagnostic.h"
#include "llmptx/Pipeline/PtxComposition.h"
#include "llmptx/Pipeline/RunReport.h"
#include "llmptx/Pipeline/Selection.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llmptx;

PipelineDriver::PipelineDriver(const PipelineSettings &settings,
                               std::string setName,
                               std::vector<KernelDescription> kernels,
                               DriverHooks hooks, std::string toolkitPath)
    : settings(settings), setName(std::move(setName)),
      described(std::move(kernels)), hooks(std::move(hooks)),
      toolkitPath(std::move(toolkitPath)) {}

PipelineDriver::~PipelineDriver() = default;

const std::vector<KernelWork> &PipelineDriver::work() const {
  static const std::vector<KernelWork> none;
  return stages ? stages->work() : none;
}

const std::vector<KernelDescription> &PipelineDriver::kernels() const {
  return described;
}

std::string PipelineDriver::referenceName() const {
  // Every kernel of a set comes from one front end, so the first names the
  // reference of all; a gpu.module's is the NVPTX build.
  llvm::StringRef kind =
      described.empty() ? "nvptx" : described.front().referenceKind;
  if (kind == "reference")
    return "reference";
  return kind.upper() + " reference";
}

//===----------------------------------------------------------------------===//
// runStages
//===----------------------------------------------------------------------===//

void PipelineDriver::runStages() {
  if (!settings.environmentProblem.empty()) {
    unavailableReason = settings.environmentProblem;
    unavailableIsFallback = true;
    return;
  }
  if (settings.provider.empty()) {
    unavailableReason =
        "no provider configured (set provider= or LLMPTX_PROVIDER)";
    unavailableIsFallback = true;
    return;
  }
  if (described.empty()) {
    unavailableReason = "the module has no kernels";
    return;
  }
  auto candidateStages = std::make_unique<KernelStages>(
      settings, setName, described, toolkitPath, hooks.remark);
  if (llvm::Error error = candidateStages->connectProvider()) {
    unavailableReason = llvm::toString(std::move(error));
    unavailableIsFallback = true;
    return;
  }
  if (llvm::Error error = candidateStages->prepareChecks()) {
    unavailableReason = llvm::toString(std::move(error));
    unavailableIsFallback = true;
    return;
  }
  stages = std::move(candidateStages);
  stages->run();
}

//===----------------------------------------------------------------------===//
// composeSlots
//===----------------------------------------------------------------------===//

/// `parts` composed into `referencePtx` and compiled once more; the error
/// says why the composition cannot be used.
static llvm::Expected<std::string>
composeSlot(const std::string &referencePtx,
            const std::vector<KernelReplacement> &parts,
            const SearchSettings &checks) {
  llvm::Expected<std::string> composed = composePtxModule(referencePtx, parts);
  if (!composed || parts.empty() || !checks.toolkit)
    return composed;
  ptx::CompileResult check = compileChecked(*composed, checks);
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
static std::vector<KernelReplacement>
slotParts(const std::vector<KernelWork> &work, bool alternate) {
  std::vector<KernelReplacement> parts;
  for (const KernelWork &item : work) {
    const Candidate *used =
        alternate ? (item.choice.selected ? nullptr : item.choice.alternate)
                  : item.choice.selected;
    if (used)
      parts.push_back({item.description->name, used->ptx});
  }
  return parts;
}

ComposedSlots PipelineDriver::composeSlots(const std::string &referencePtx) {
  ComposedSlots slots;
  slots.selected = slots.alternate = referencePtx;
  if (!stages)
    return slots;
  alternateIsLLM = false;
  std::vector<KernelWork> &work = stages->work();
  const SearchSettings &checks = stages->checks();
  llvm::Expected<std::string> selected =
      composeSlot(referencePtx, slotParts(work, /*alternate=*/false), checks);
  if (selected) {
    slots.selected = std::move(*selected);
  } else {
    // Composition failed: every LLM kernel goes back to the reference.
    std::string error = llvm::toString(selected.takeError());
    for (KernelWork &item : work)
      if (item.choice.selected) {
        item.choice.alternate = item.choice.selected;
        item.choice.selected = nullptr;
        item.choice.fellBack = true;
        item.choice.reason = error;
      }
  }
  // The alternate slot holds the other choice: the reference when any
  // kernel was selected from the LLM, else the best unselected candidates.
  slots.anySelected = anySelected();
  std::vector<KernelReplacement> alternateParts =
      slotParts(work, /*alternate=*/true);
  if (slots.anySelected || alternateParts.empty())
    return slots;
  if (llvm::Expected<std::string> alternate =
          composeSlot(referencePtx, alternateParts, checks)) {
    slots.alternate = std::move(*alternate);
    slots.alternateIsLLM = true;
    alternateIsLLM = true;
  } else {
    llvm::consumeError(alternate.takeError());
  }
  return slots;
}

//===----------------------------------------------------------------------===//
// settle
//===----------------------------------------------------------------------===//

bool PipelineDriver::settle() {
  if (!stages) {
    if (unavailableIsFallback && settings.strict) {
      hooks.error("llmgen: strict: no LLM kernel for module @" + setName +
                  ": " + unavailableReason);
      return false;
    }
    hooks.remark("llmgen: using the " + referenceName() + ": " +
                 unavailableReason);
    return true;
  }
  // Ignored corrupt cache entries, truncated answers: each said once.
  llvm::StringSet<> warned;
  for (const KernelWork &item : work())
    for (const SampleOutcome *sample : item.allSamples())
      for (const Attempt &attempt : sample->attempts)
        for (const std::string &warning : attempt.warnings)
          if (warned.insert(warning).second)
            hooks.warning("llmgen: @" + item.description->name + ": " +
                          oneLine(warning));
  if (VerificationCache *cache = stages->verificationCache())
    for (const std::string &warning : cache->takeWarnings())
      hooks.warning("llmgen: " + oneLine(warning));

  bool accepted = true;
  for (const KernelWork &item : work()) {
    const std::string &name = item.description->name;
    if (item.choice.selected) {
      hooks.remark("llmgen: @" + name +
                   ": selected the LLM kernel: " + item.choice.reason);
    } else if (item.choice.fellBack && settings.strict) {
      hooks.error("llmgen: strict: @" + name + " falls back to the " +
                  referenceName() + ": " + item.choice.reason);
      accepted = false;
    } else {
      hooks.remark("llmgen: @" + name + ": using the " + referenceName() +
                   ": " + item.choice.reason);
    }
  }
  return accepted;
}

bool PipelineDriver::anySelected() const {
  return llvm::any_of(work(), [](const KernelWork &item) {
    return item.choice.selected != nullptr;
  });
}

std::string PipelineDriver::setReason() const {
  if (!stages)
    return unavailableReason;
  const std::vector<KernelWork> &items = work();
  if (anySelected()) {
    unsigned llmKernels = llvm::count_if(
        items, [](const KernelWork &item) { return item.choice.selected; });
    return llvm::formatv("{0} of {1} kernel(s) from the LLM", llmKernels,
                         items.size());
  }
  if (items.size() == 1)
    return items.front().choice.reason;
  return "no kernel passed the " + spellingOf(settings.select).str() +
         " policy";
}

//===----------------------------------------------------------------------===//
// report
//===----------------------------------------------------------------------===//

llvm::json::Array PipelineDriver::kernelRecords(bool withPtx) const {
  llvm::json::Array records;
  if (!stages) {
    for (const KernelDescription &kernel : described) {
      llvm::json::Object record =
          referenceKernelRecord(kernel.name, setName, unavailableReason);
      record["selected"] = kernel.referenceKind;
      records.push_back(std::move(record));
    }
    return records;
  }
  for (const KernelWork &item : work()) {
    llvm::json::Object record = kernelRecord(item, setName);
    if (withPtx && item.choice.selected)
      record["ptx"] = item.choice.selected->ptx;
    records.push_back(std::move(record));
  }
  return records;
}

void PipelineDriver::writeReport(llvm::json::Array records) const {
  if (settings.report.empty())
    return;
  std::string referenceKind =
      described.empty() ? "nvptx" : described.front().referenceKind;
  llvm::json::Object setRecord{
      {"name", setName},
      {"selected", anySelected() ? std::string("llm") : referenceKind},
      {"reason", setReason()}};
  if (alternateIsLLM.has_value())
    setRecord["alternate"] = *alternateIsLLM ? "llm" : referenceKind;
  if (VerificationCache *cache =
          stages ? stages->verificationCache() : nullptr) {
    VerificationCacheCounts counts = cache->counts();
    setRecord["verification_cache"] =
        llvm::json::Object{{"compile_hits", counts.compileHits},
                           {"compile_misses", counts.compileMisses},
                           {"bundle_hits", counts.bundleHits},
                           {"bundle_misses", counts.bundleMisses}};
  }
  std::string error = appendToReport(settings.report, settings.reportRecord(),
                                     std::move(setRecord), std::move(records));
  if (!error.empty())
    hooks.warning("llmgen: report: " + error);
}
