//===- ExecutionVerifier.cpp - Verify candidates by execution ---*- C++ -*-===//
//
// Bundles are plain files, so a run can be repeated by hand, on another
// machine, with `llmptx-runner` alone; the compiler only reads the results.
//
//===----------------------------------------------------------------------===//

#include "ExecutionVerifier.h"

#include "RunnerResults.h"
#include "llmptx/Pipeline/BundleFromFacts.h"

#include "llmptx/Support/FileIO.h"
#include "llmptx/Support/TaskPool.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <map>
#include <tuple>

using namespace llmptx;

/// "no GPU" is said once per process, not once per module.
static std::atomic<bool> saidNoDevice{false};

ExecutionVerifier::ExecutionVerifier(
    const PipelineSettings &settings, llvm::StringRef setName,
    std::function<void(const llvm::Twine &)> remark, VerificationCache *cache)
    : settings(settings), setName(untrusted::fileNameComponent(setName.str())),
      remark(std::move(remark)), cache(cache) {
  if (!writesBundles())
    return;
  if (!settings.emitBundles.empty()) {
    directory = settings.emitBundles;
    if (std::error_code ec = llvm::sys::fs::create_directories(directory))
      directoryError = "cannot create " + directory + ": " + ec.message();
    return;
  }
  // Otherwise a temporary directory, made by the first verification run.
}

ExecutionVerifier::~ExecutionVerifier() {
  if (!directory.empty() && settings.emitBundles.empty() &&
      directoryError.empty())
    llvm::sys::fs::remove_directories(directory);
}

llvm::Error ExecutionVerifier::writeBundle(const PendingBundle &bundle) {
  if (!directoryError.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   directoryError);
  if (auto problem =
          llmptx::untrusted::writeFileAtomically(bundle.path, bundle.json))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "cannot write " + bundle.path + ": " +
                                       *problem);
  return llvm::Error::success();
}

void ExecutionVerifier::applyResultsTo(
    llvm::StringRef resultsJson, const std::vector<KernelWork *> &kernels) {
  llvm::Expected<runtime::VerificationResults> parsed =
      readResults(resultsJson);
  if (!parsed) {
    std::string message = llvm::toString(parsed.takeError());
    for (KernelWork *kernel : kernels)
      kernel->execNote = message;
    return;
  }
  for (KernelWork *kernel : kernels)
    if (llvm::Error error =
            applyResults(*parsed, kernel->description->name, kernel->candidates,
                         &kernel->referenceMeasurements))
      kernel->execNote = llvm::toString(std::move(error));
}

void ExecutionVerifier::say(unsigned stage, RemarkKind kind,
                            const KernelWork *kernel, std::string text) {
  std::lock_guard<std::mutex> lock(mutex);
  if (!deferring) {
    remark(text);
    return;
  }
  deferred.push_back({stage, kind, kernel, std::move(text)});
}

void ExecutionVerifier::deferRemarks() {
  std::lock_guard<std::mutex> lock(mutex);
  deferring = true;
}

void ExecutionVerifier::flushRemarks() {
  std::vector<DeferredRemark> remarks;
  {
    std::lock_guard<std::mutex> lock(mutex);
    remarks = std::exchange(deferred, {});
    deferring = false;
  }
  // The order of one runner call for all kernels: a stage's missing facts
  // in kernel order (the kernels are one array), then what the runner said.
  llvm::stable_sort(remarks,
                    [](const DeferredRemark &a, const DeferredRemark &b) {
                      return std::make_tuple(a.stage, a.kind, a.kernel) <
                             std::make_tuple(b.stage, b.kind, b.kernel);
                    });
  for (const DeferredRemark &deferredRemark : remarks)
    remark(deferredRemark.text);
}

bool ExecutionVerifier::verify(const Batch &batch, llvm::StringRef suffix,
                               bool remarkMissing, unsigned stage) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (directory.empty() && directoryError.empty()) {
      llvm::SmallString<256> temporary;
      if (std::error_code ec = llvm::sys::fs::createUniqueDirectory(
              "llmgen-" + setName, temporary))
        directoryError = "cannot create a temporary directory: " + ec.message();
      directory = temporary.str().str();
    }
  }
  std::vector<PendingBundle> pending;
  for (auto &[kernel, candidates] : batch) {
    llvm::Expected<runtime::VerificationBundle> bundle =
        buildBundle(*kernel->description, settings.chip, candidates);
    if (!bundle) {
      kernel->execNote = "cannot verify @" + kernel->description->name +
                         " by execution: " + llvm::toString(bundle.takeError());
      if (remarkMissing)
        say(stage, RemarkKind::MissingFacts, kernel,
            "llmgen: " + kernel->execNote);
      continue;
    }
    bundle->timing.confirmAbove = settings.confirmAbove;
    llvm::SmallString<256> path(directory);
    llvm::sys::path::append(
        path, setName + "." + untrusted::fileNameComponent(bundle->kernel) +
                  suffix.str() + ".bundle.json");
    pending.push_back(
        {kernel, path.str().str(), runtime::writeBundleJson(*bundle)});
  }

  // What the cache knows, on the GPUs the runner reached last.
  std::vector<VerificationDevice> devices;
  if (cache && wantsExecution())
    devices = cache->runnerDevices(settings.runner);
  bool applied = false;
  std::vector<std::string> bundlePaths;
  std::map<std::string, std::string> bundleFiles;
  std::vector<KernelWork *> bundled;
  for (PendingBundle &bundle : pending) {
    std::optional<std::string> cached;
    if (cache && wantsExecution())
      cached = cache->lookupBundle(bundle.json, devices, bundle.path);
    if (!cached || !settings.emitBundles.empty())
      if (llvm::Error error = writeBundle(bundle)) {
        bundle.kernel->execNote = llvm::toString(std::move(error));
        continue;
      }
    if (cached) {
      applyResultsTo(*cached, {bundle.kernel});
      applied = true;
      continue;
    }
    bundlePaths.push_back(bundle.path);
    bundleFiles[bundle.path] = std::move(bundle.json);
    bundled.push_back(bundle.kernel);
  }
  if (!wantsExecution() || bundlePaths.empty())
    return applied;
  // Each call writes its results into a folder of its own, so calls for
  // the kernels of a pipelined build run side by side.
  llvm::Expected<std::string> results =
      runBundles(bundlePaths, settings.runner);
  if (!results) {
    std::string message = llvm::toString(results.takeError());
    for (KernelWork *kernel : bundled)
      kernel->execNote = message;
    if (!saidNoDevice.exchange(true))
      say(stage, RemarkKind::RunnerFailed, nullptr,
          "llmgen: verify=exec: " + message +
              "; candidates are verified at the compile level only");
    return applied;
  }
  if (cache)
    cache->storeResults(settings.runner, *results, bundleFiles);
  applyResultsTo(*results, bundled);
  return true;
}

/// The candidates of each kernel that execution has not seen yet.
static Batch unverified(llvm::MutableArrayRef<KernelWork> work) {
  Batch batch;
  for (KernelWork &item : work) {
    std::vector<const Candidate *> fresh;
    for (const Candidate *candidate : item.candidates)
      if (!candidate->verdict)
        fresh.push_back(candidate);
    if (!fresh.empty())
      batch.emplace_back(&item, std::move(fresh));
  }
  return batch;
}

/// Samples whose candidate failed, of kernels with none that passed, that
/// may still ask the model.
static std::vector<std::pair<KernelWork *, unsigned>>
repairable(llvm::MutableArrayRef<KernelWork> work, unsigned repairs) {
  std::vector<std::pair<KernelWork *, unsigned>> retries;
  for (KernelWork &item : work) {
    if (llvm::any_of(item.candidates, [](const Candidate *candidate) {
          return candidate->passedExecution();
        }))
      continue;
    for (auto [index, sample] : llvm::enumerate(item.samples))
      if (sample.candidate && sample.candidate->failedExecution() &&
          !sample.providerFailed && sample.nextRound <= repairs)
        retries.emplace_back(&item, index);
  }
  return retries;
}

bool llmptx::verifyAndRepair(llvm::MutableArrayRef<KernelWork> work,
                             ExecutionVerifier &verifier,
                             llm::Provider &provider,
                             const SearchSettings &search) {
  if (!verifier.writesBundles())
    return false;
  bool executed = false;
  for (unsigned stage = 0;; ++stage) {
    Batch batch = unverified(work);
    if (batch.empty() ||
        !verifier.verify(batch,
                         stage > 0 ? ".round" + std::to_string(stage) : "",
                         /*remarkMissing=*/stage == 0, stage))
      break;
    executed = true;
    std::vector<std::pair<KernelWork *, unsigned>> retries =
        repairable(work, search.repairs);
    if (retries.empty())
      break;
    runTasks(retries.size(), /*threads=*/0, [&](unsigned task) {
      auto [item, index] = retries[task];
      SampleOutcome &sample = item->samples[index];
      std::string feedback = llvm::formatv(
          "Your PTX compiled, but on the GPU it does not compute what the "
          "reference computes. The verifier ran both on the same inputs and "
          "found: {0}.",
          sample.candidate->failureText());
      continueSample(*item->description, sample, feedback, index, provider,
                     search);
    });
    for (KernelWork &item : work)
      item.collectCandidates();
  }
  return executed;
}
