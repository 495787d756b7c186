//===- KernelStages.cpp - The LLM path's stages on plain data ---*- C++ -*-===//
//
// Each stage reads what the previous ones left in `items` (one KernelWork
// per kernel); model calls and checks run in a thread pool.
//
//===----------------------------------------------------------------------===//

#include "KernelStages.h"

#include "OptimizationRounds.h"
#include "llmptx/Pipeline/LaunchCheck.h"
#include "llmptx/Pipeline/Selection.h"

#include "llmptx/LLM/Fragments.h"
#include "llmptx/LLM/Secrets.h"
#include "llmptx/PTX/EntryModule.h"
#include "llmptx/PTX/Parser.h"
#include "llmptx/Support/TaskPool.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <cstdlib>
#include <mutex>

using namespace llmptx;

struct KernelStages::Progress {
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

KernelStages::KernelStages(const PipelineSettings &settings,
                           std::string setName,
                           const std::vector<KernelDescription> &kernels,
                           std::string toolkitPath, Remark remark)
    : settings(settings), setName(std::move(setName)), described(kernels),
      toolkitPath(std::move(toolkitPath)), remark(std::move(remark)),
      progress(std::make_unique<Progress>()) {}

KernelStages::~KernelStages() = default;

llvm::Error KernelStages::connectProvider() {
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

namespace {
/// What the prompts take from one reference module, computed once per
/// module however many kernels it holds.
struct ReferenceFacts {
  /// The module text the parse points into (the map's own copy).
  llvm::StringRef text;
  ptx::ParseResult parsed;
  std::string ptxIsa;
  std::vector<ptx::ResourceReport> resources;
};
} // namespace

llvm::Error KernelStages::prepareChecks() {
  if (llvm::Error error = configureChecks())
    return error;
  describeKernels();
  verifier = std::make_unique<ExecutionVerifier>(settings, setName, remark,
                                                 cache.get());
  return llvm::Error::success();
}

llvm::Error KernelStages::configureChecks() {
  search.chip = settings.chip;
  search.repairs = settings.repairs;
  search.optimize = settings.mode == Mode::Optimize;
  search.model = settings.model;
  search.language = settings.language;
  search.cuda = ptx::CudaCompileOptions::fromEnvironment();
  search.cuda.chip = settings.chip;
  search.cuda.fastMath = settings.referenceFastMath;
  search.cuda.flushDenormals = settings.referenceFlushesDenormals;
  // CUDA C++ candidates need the toolkit's NVRTC even without checks.
  bool wantsCuda = settings.language != Language::PTX;
  llvm::Expected<ptx::CudaToolkit> toolkit = ptx::findCudaToolkit(toolkitPath);
  std::string missing =
      toolkit ? std::string() : llvm::toString(toolkit.takeError());
  if (settings.cache != llm::CacheMode::Off) {
    cache =
        std::make_unique<VerificationCache>(settings.cacheDir, settings.cache);
    search.cache = cache.get();
  }
  if (settings.verification == VerifyLevel::None) {
    search.level = CheckLevel::None;
  } else if (toolkit) {
    search.toolkit = *toolkit;
  } else {
    remark("llmgen: no CUDA toolkit (ptxas/nvJitLink) found: candidates are "
           "linted and ABI-checked but not compiled (" +
           missing + ")");
    search.level = CheckLevel::Lint;
  }
  if (wantsCuda && toolkit && search.level == CheckLevel::None)
    search.toolkit = *toolkit;
  if (wantsCuda && (!toolkit || toolkit->nvrtcPath.empty())) {
    std::string why =
        toolkit ? "no NVRTC (libnvrtc.so) in the CUDA toolkit at " +
                      (toolkit->root.empty() ? std::string("(no root)")
                                             : toolkit->root)
                : missing;
    if (settings.language == Language::CUDA)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "language=cuda needs NVRTC: " + why);
    remark("llmgen: language=auto: every sample is asked for PTX: " + why);
    search.language = Language::PTX;
  }
  bool showProgress = progressEnabled();
  search.progress = [this, showProgress](llvm::StringRef line) {
    if (!showProgress)
      return;
    std::lock_guard<std::mutex> lock(progress->mutex);
    llvm::errs() << llvm::formatv("[{0}/{1}] ", progress->finished.load(),
                                  progress->tasks)
                 << line << "\n";
  };
  return llvm::Error::success();
}

void KernelStages::describeKernels() {
  llvm::StringMap<ReferenceFacts> references;
  auto factsOf = [&](const std::string &ptx) -> const ReferenceFacts & {
    auto [slot, inserted] = references.try_emplace(ptx);
    if (!inserted)
      return slot->second;
    ReferenceFacts &facts = slot->second;
    facts.text = slot->first();
    facts.parsed = ptx::parsePtx(facts.text);
    facts.ptxIsa = ptxIsaOf(facts.parsed.module);
    // ptxas -v of the reference, for the optimization prompts.
    if (search.optimize && search.toolkit)
      facts.resources = compileChecked(ptx, search).resources;
    return facts;
  };

  // The proven fragments the optimize and improve prompts may list.
  std::vector<ptx::Fragment> fragments;
  if (search.optimize && settings.fragments) {
    std::string directory = ptx::defaultFragmentsDirectory();
    if (llvm::Expected<std::vector<ptx::Fragment>> loaded =
            ptx::loadFragments(directory))
      fragments = std::move(*loaded);
    else
      remark("llmgen: fragments not listed in the prompts: " +
             llvm::toString(loaded.takeError()));
  }

  items.resize(described.size());
  for (auto [index, kernel] : llvm::enumerate(described)) {
    const ReferenceFacts &reference = factsOf(kernel.referencePtx);
    KernelWork &item = items[index];
    item.description = &kernel;
    llm::KernelSpec &spec = item.spec;
    spec.kernelName = kernel.name;
    spec.mlirText = kernel.source;
    spec.ptxSignature = kernel.abi.ptxSignature();
    if (search.language != Language::PTX)
      spec.cudaPrototype = cudaPrototype(kernel);
    spec.launchFacts = kernel.launchFacts;
    spec.chip = settings.chip;
    spec.ptxIsa = reference.ptxIsa;
    spec.intent = kernel.intent;
    spec.statedFacts = llvm::join(kernel.statedFacts, "\n");
    spec.launchChoice = describeLaunchChoice(kernel, settings.chip);
    spec.tensorMaps = kernel.launch.allowed && offersTensorMaps(settings.chip);
    // The chip takes tensor maps, but this caller builds no host arguments
    // (an IREE dispatch, a kernel set without host code, launches outside
    // the module): say why the prompt does not offer them.
    if (!kernel.launch.allowed && offersTensorMaps(settings.chip))
      remark("llmgen: @" + kernel.name +
             ": tensor maps, dynamic shared memory and a launch of its own "
             "are not offered: " +
             kernel.launch.reason);
    if (search.optimize) {
      // The kernel's own entry, callees and variables: the other kernels of
      // the module would only lengthen the prompt. The whole module is
      // still correct when the cut fails.
      llvm::Expected<std::string> own = ptx::extractEntryModule(
          reference.parsed, reference.text, kernel.name);
      spec.referencePtx = own ? std::move(*own) : kernel.referencePtx;
      if (!own)
        llvm::consumeError(own.takeError());
      spec.referenceResources = resourcesText(reference.resources, kernel.name);
      std::set<std::string> ops = llm::kernelOps(kernel.source);
      spec.fragments = llm::renderFragments(fragments, settings.chip, ops,
                                            llm::kFragmentBudgetBytes);
      if (search.language != Language::PTX)
        spec.cudaFragments = llm::renderFragments(fragments, settings.chip, ops,
                                                  llm::kCudaFragmentBudgetBytes,
                                                  ptx::FragmentLanguage::CUDA);
    }
    item.samples.resize(settings.samples);
  }
}

void KernelStages::run() {
  bool executed;
  if (pipelinesVerification()) {
    executed = searchAndVerify();
  } else {
    searchAll();
    executed = verifyByExecution();
  }
  optimize(executed);
  select();
}

bool KernelStages::pipelinesVerification() const {
  return settings.gpuJobs > 0 && settings.verification == VerifyLevel::Exec &&
         search.level != CheckLevel::None;
}

bool KernelStages::searchAndVerify() {
  unsigned samples = settings.samples;
  progress->tasks = items.size() * samples;
  // A kernel's bundle goes to the runner once its last sample is done,
  // while the model still answers for the others; at most gpu-jobs calls
  // of the runner at once, each verifying and repairing one kernel as
  // verifyAndRepair does for all of them.
  std::unique_ptr<std::atomic<unsigned>[]> pending(
      new std::atomic<unsigned>[items.size()]);
  for (size_t index = 0; index < items.size(); ++index)
    pending[index] = samples;
  std::atomic<bool> executed{false};
  verifier->deferRemarks();
  {
    llvm::DefaultThreadPool gpu(llvm::hardware_concurrency(settings.gpuJobs));
    runTasks(progress->tasks, settings.jobs, [&](unsigned task) {
      unsigned kernel = task / samples;
      KernelWork &item = items[kernel];
      item.samples[task % samples] = searchSample(
          *item.description, item.spec, task % samples, *provider, search);
      ++progress->finished;
      if (--pending[kernel] != 0)
        return;
      gpu.async([&, kernel] {
        KernelWork &ready = items[kernel];
        ready.collectCandidates();
        if (verifyAndRepair(llvm::MutableArrayRef<KernelWork>(ready), *verifier,
                            *provider, search))
          executed = true;
      });
    });
    gpu.wait();
  }
  verifier->flushRemarks();
  return executed;
}

void KernelStages::searchAll() {
  unsigned samples = settings.samples;
  progress->tasks = items.size() * samples;
  runTasks(progress->tasks, settings.jobs, [&](unsigned task) {
    KernelWork &item = items[task / samples];
    unsigned sample = task % samples;
    item.samples[sample] =
        searchSample(*item.description, item.spec, sample, *provider, search);
    ++progress->finished;
  });
}

bool KernelStages::verifyByExecution() {
  for (KernelWork &item : items)
    item.collectCandidates();
  return verifyAndRepair(items, *verifier, *provider, search);
}

void KernelStages::optimize(bool executed) {
  if (!search.optimize || settings.rounds <= 0)
    return;
  RoundsContext context;
  context.settings = &settings;
  context.search = &search;
  context.provider = provider.get();
  context.verifier = verifier.get();
  context.remark = remark;
  runOptimizationRounds(items, context, executed);
}

void KernelStages::select() {
  SelectionPolicy policy{settings.select, settings.verification,
                         static_cast<double>(settings.confirmAbove)};
  for (KernelWork &item : items)
    item.choice = chooseObject(item, policy);
}
