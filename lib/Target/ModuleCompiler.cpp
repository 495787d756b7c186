//===- ModuleCompiler.cpp - The LLM path of one gpu.module ------*- C++ -*-===//
//
// Every failure of the LLM path ends in the reference and a remark unless
// the user asked for strict. Each stage reads what the previous ones left in
// `work` (plain data); only prepare and record touch MLIR.
//
//===----------------------------------------------------------------------===//

#include "ModuleCompiler.h"

#include "KernelFacts.h"
#include "LaunchFreedom.h"
#include "ObjectProvenance.h"
#include "OptimizationRounds.h"
#include "RunReport.h"
#include "Selection.h"

#include "llmptx/LLM/Secrets.h"
#include "llmptx/PTX/EntryModule.h"
#include "llmptx/PTX/Parser.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <cstdlib>
#include <mutex>

using namespace mlir;
using namespace llmptx;

struct ModuleCompiler::Progress {
  std::atomic<unsigned> finished{0};
  unsigned tasks = 0;
  std::mutex mutex;
};

/// Progress on stderr while kernels are in flight: on by default when
/// stderr is a terminal; LLMPTX_PROGRESS=1 or 0 forces it.
static bool progressEnabled() {
  if (const char *setting = std::getenv("LLMPTX_PROGRESS"))
    return llvm::StringRef(setting) != "0";
  return llvm::errs().is_displayed();
}

/// "8.0" for a module that says `.version 8.0`.
static std::string ptxIsaOf(const ptx::Module &module) {
  unsigned version = module.version();
  if (!version)
    return "8.0";
  return llvm::formatv("{0}.{1}", version / 10, version % 10).str();
}

ModuleCompiler::ModuleCompiler(llmgen::TargetAttr target,
                               gpu::GPUModuleOp module,
                               const gpu::TargetOptions &options)
    : target(target), module(module), options(options),
      settings(TargetSettings::resolve(target)),
      progress(std::make_unique<Progress>()) {}

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
  if (kernels.empty())
    return settleOnReference("the module has no kernels",
                             /*isFallback=*/false);
  if (llvm::Error unavailable = connectProvider())
    return settleOnReference(llvm::toString(std::move(unavailable)),
                             /*isFallback=*/true);
  prepareChecks();

  search();
  bool executed = verifyByExecution();
  optimize(executed);
  select();
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
  kernels = std::move(*described);
  return success();
}

llvm::Error ModuleCompiler::connectProvider() {
  llvm::Expected<std::unique_ptr<llm::Provider>> created =
      llm::createProvider(settings.providerConfig());
  if (!created)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "provider '" + settings.provider + "' unavailable: " +
            llm::redactSecrets(llvm::toString(created.takeError())));
  provider = std::move(*created);
  return llvm::Error::success();
}

void ModuleCompiler::prepareChecks() {
  checks.chip = settings.chip;
  // Parsed once: its ISA, and each kernel's own entry for the prompts.
  ptx::ParseResult parsedReference = ptx::parsePtx(reference->ptx);
  std::string ptxIsa = ptxIsaOf(parsedReference.module);
  checks.repairs = settings.repairs;
  checks.optimize = settings.mode == llmgen::Mode::Optimize;
  checks.model = settings.model;
  if (settings.verification == llmgen::VerifyLevel::None) {
    checks.level = CheckLevel::None;
  } else if (llvm::Expected<ptx::CudaToolkit> toolkit =
                 ptx::findCudaToolkit(reference->toolkitPath)) {
    checks.toolkit = *toolkit;
  } else {
    remark("llmgen: no CUDA toolkit (ptxas/nvJitLink) found: candidates are "
           "linted and ABI-checked but not compiled (" +
           llvm::toString(toolkit.takeError()) + ")");
    checks.level = CheckLevel::Lint;
  }
  // ptxas -v of the reference, for the optimization prompts.
  std::vector<ptx::ResourceReport> referenceResources;
  if (checks.optimize && checks.toolkit)
    referenceResources =
        ptx::compilePtx(reference->ptx, settings.chip, *checks.toolkit)
            .resources;
  bool showProgress = progressEnabled();
  checks.progress = [this, showProgress](StringRef line) {
    if (!showProgress)
      return;
    std::lock_guard<std::mutex> lock(progress->mutex);
    llvm::errs() << llvm::formatv("[{0}/{1}] ", progress->finished.load(),
                                  progress->tasks)
                 << line << "\n";
  };

  work.resize(kernels.size());
  for (auto [index, kernel] : llvm::enumerate(kernels)) {
    KernelWork &item = work[index];
    item.description = &kernel;
    llm::KernelSpec &spec = item.spec;
    spec.kernelName = kernel.name;
    spec.mlirText = kernel.source;
    spec.ptxSignature = kernel.abi.ptxSignature();
    spec.launchFacts = kernel.launchFacts;
    spec.chip = settings.chip;
    spec.ptxIsa = ptxIsa;
    spec.intent = kernel.intent;
    spec.statedFacts = llvm::join(kernel.statedFacts, "\n");
    spec.launchChoice = describeLaunchChoice(kernel);
    if (checks.optimize) {
      // The kernel's own entry, callees and variables: the other kernels of
      // the module would only lengthen the prompt. The whole module is
      // still correct when the cut fails.
      llvm::Expected<std::string> own =
          ptx::extractEntryModule(parsedReference, reference->ptx,
                                  kernel.name);
      spec.referencePtx = own ? std::move(*own) : reference->ptx;
      if (!own)
        llvm::consumeError(own.takeError());
      spec.referenceResources = resourcesText(referenceResources, kernel.name);
    }
    item.samples.resize(settings.samples);
  }
  verifier = std::make_unique<ExecutionVerifier>(
      settings, module.getName(), reference->ptx,
      [this](const llvm::Twine &message) { remark(message); });
}

//===----------------------------------------------------------------------===//
// search, verify by execution, optimize, select
//===----------------------------------------------------------------------===//

void ModuleCompiler::search() {
  unsigned samples = settings.samples;
  progress->tasks = work.size() * samples;
  runTasks(progress->tasks, settings.jobs, [&](unsigned task) {
    KernelWork &item = work[task / samples];
    unsigned sample = task % samples;
    item.samples[sample] =
        searchSample(*item.description, item.spec, sample, *provider, checks);
    ++progress->finished;
  });
}

bool ModuleCompiler::verifyByExecution() {
  for (KernelWork &item : work)
    item.collectCandidates();
  return verifyAndRepair(work, *verifier, *provider, checks);
}

void ModuleCompiler::optimize(bool executed) {
  if (!checks.optimize || settings.rounds <= 0)
    return;
  RoundsContext context;
  context.settings = &settings;
  context.search = &checks;
  context.provider = provider.get();
  context.verifier = verifier.get();
  context.remark = [this](const llvm::Twine &message) { remark(message); };
  runOptimizationRounds(work, context, executed);
}

void ModuleCompiler::select() {
  SelectionPolicy policy{settings.select, settings.verification,
                         static_cast<double>(settings.confirmAbove)};
  for (KernelWork &item : work)
    item.choice = chooseObject(item, policy);
}

//===----------------------------------------------------------------------===//
// compose
//===----------------------------------------------------------------------===//

llvm::Expected<std::string>
ModuleCompiler::composeSlot(const std::vector<KernelReplacement> &parts) {
  llvm::Expected<std::string> composed =
      composePtxModule(reference->ptx, parts);
  if (!composed || parts.empty() || !checks.toolkit)
    return composed;
  ptx::CompileResult check =
      ptx::compilePtx(*composed, settings.chip, *checks.toolkit);
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
  llvm::Expected<std::string> selected = composeSlot(slotParts(work, false));
  if (selected) {
    selectedPtx = std::move(*selected);
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
    selectedPtx = reference->ptx;
  }
  // The alternate slot holds the other choice: the reference when any
  // kernel was selected from the LLM, else the best unselected candidates.
  anySelected = llvm::any_of(
      work, [](const KernelWork &item) { return item.choice.selected; });
  alternatePtx = reference->ptx;
  alternateIsLLM = false;
  std::vector<KernelReplacement> alternateParts = slotParts(work, true);
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
  for (const KernelWork &item : work)
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
  for (const KernelWork &item : work) {
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
  for (const KernelWork &item : work) {
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
        : other      ? "alternate: candidate " + other->name() + ", not selected"
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
  for (const KernelWork &item : work)
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
      {builder.getNamedAttr(
           llmgen::stringifySlot(llmgen::Slot::Selected),
           slotRecord(builder, selectedPtx, anySelected, selectedReason,
                      provenanceOf(/*selectedSlot=*/true), settings.model,
                      settings.provider)),
       builder.getNamedAttr(
           llmgen::stringifySlot(llmgen::Slot::Alternate),
           slotRecord(builder, alternatePtx, alternateIsLLM, alternateReason,
                      provenanceOf(/*selectedSlot=*/false), settings.model,
                      settings.provider))});
  // The report is written in strict mode too: it says why.
  writeReport(selectedReason);
  if (!accepted)
    return failure();
  return outcome;
}

FailureOr<DictionaryAttr>
ModuleCompiler::settleOnReference(StringRef reason, bool isFallback) {
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
        records.push_back(referenceKernelRecord(func.getName(),
                                                module.getName(), reason));
    appendModuleReport(llvm::json::Object{{"name", module.getName().str()},
                                          {"selected", "nvptx"},
                                          {"reason", reason}},
                       std::move(records));
  }
  return referenceOnlyOutcome(module.getContext(), reference->ptx, reason);
}
