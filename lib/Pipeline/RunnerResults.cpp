//===- RunnerResults.cpp - Run llmptx-runner, read its results -*- C++ -*-===//
//
// The runner runs here or through the configured command (ssh, srun, a job
// queue); its results go back into the candidates as typed verdicts and
// timings, and as one fact per line for the next optimization round.
//
//===----------------------------------------------------------------------===//

#include "RunnerResults.h"

#include "llmptx/Pipeline/ChipProbe.h"

#include "llmptx/Runtime/Results.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <mutex>
#include <unistd.h>

using namespace llmptx;

static llvm::Error runnerError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

static std::string shellQuote(llvm::StringRef text) {
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\'')
      quoted += "'\\''";
    else
      quoted += c;
  }
  return quoted + "'";
}

/// The runner next to this executable (build/bin), else on PATH.
static std::string findLocalRunner() {
  std::string self =
      llvm::sys::fs::getMainExecutable(nullptr, (void *)&findLocalRunner);
  if (!self.empty()) {
    llvm::SmallString<256> sibling(llvm::sys::path::parent_path(self));
    llvm::sys::path::append(sibling, "llmptx-runner");
    if (llvm::sys::fs::can_execute(sibling))
      return sibling.str().str();
  }
  if (llvm::ErrorOr<std::string> onPath =
          llvm::sys::findProgramByName("llmptx-runner"))
    return *onPath;
  return {};
}

/// llmptx-ray-runner of this build: next to this executable, in the build's
/// Python environment (`build/venv/bin`, which ./llmptx.sh makes), else on
/// PATH. The error names where it looked.
static llvm::Expected<std::string> findRayRunner() {
  static constexpr llvm::StringLiteral name = "llmptx-ray-runner";
  std::vector<std::string> looked;
  std::string self =
      llvm::sys::fs::getMainExecutable(nullptr, (void *)&findLocalRunner);
  if (!self.empty()) {
    llvm::StringRef bin = llvm::sys::path::parent_path(self);
    llvm::SmallString<256> sibling(bin), venv(bin);
    llvm::sys::path::append(sibling, name);
    llvm::sys::path::append(venv, "..", "venv", "bin", name);
    for (llvm::SmallString<256> *candidate : {&sibling, &venv}) {
      llvm::sys::path::remove_dots(*candidate, /*remove_dot_dot=*/true);
      if (llvm::sys::fs::can_execute(*candidate))
        return candidate->str().str();
      looked.push_back(candidate->str().str());
    }
  }
  if (llvm::ErrorOr<std::string> onPath = llvm::sys::findProgramByName(name))
    return *onPath;
  looked.push_back("PATH");
  return runnerError("runner=ray: no " + name + " (looked at " +
                     llvm::join(looked, ", ") +
                     "): run ./llmptx.sh build, which installs it with Ray "
                     "into build/venv, or pip install 'llmptx[ray]' "
                     "(docs/ray.md)");
}

/// `runner=ray [ARG...]`: this build's llmptx-ray-runner shipping this
/// build's llmptx-runner, then ARG... (later options win, so an ARG
/// `--runner PATH` ships another binary).
static llvm::Expected<std::string> rayRunnerCommand(llvm::StringRef rest) {
  llvm::Expected<std::string> ray = findRayRunner();
  if (!ray)
    return ray.takeError();
  std::string local = findLocalRunner();
  if (local.empty())
    return runnerError("runner=ray: no llmptx-runner next to this executable "
                       "or on PATH to ship to the cluster's nodes");
  std::string command = shellQuote(*ray) + " --runner " + shellQuote(local);
  if (!rest.trim().empty())
    command += " " + rest.trim().str();
  return command;
}

/// The command that runs the runner: `runnerCommand` (`ray` expanded),
/// else the local one.
static llvm::Expected<std::string>
runnerShellCommand(llvm::StringRef runnerCommand) {
  llvm::StringRef trimmed = runnerCommand.trim();
  if (trimmed == "ray" || trimmed.starts_with("ray "))
    return rayRunnerCommand(trimmed.drop_front(3));
  if (!runnerCommand.empty())
    return runnerCommand.str();
  std::string local = findLocalRunner();
  if (local.empty())
    return runnerError("no llmptx-runner found (set runner= or "
                       "LLMPTX_RUNNER)");
  return shellQuote(local);
}

llvm::Expected<ProbedChip>
llmptx::probeRunnerChip(llvm::StringRef runnerCommand) {
  static std::mutex mutex;
  static std::map<std::string, std::pair<ProbedChip, std::string>> probed;
  std::lock_guard<std::mutex> lock(mutex);
  auto cached = probed.find(runnerCommand.str());
  if (cached == probed.end()) {
    ProbedChip chip;
    std::string problem;
    if (llvm::Expected<std::string> command =
            runnerShellCommand(runnerCommand)) {
      llvm::SmallString<128> output;
      int fd = -1;
      if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
              "llmptx-probe", "txt", fd, output)) {
        problem = "cannot create a temporary file: " + ec.message();
      } else {
        ::close(fd);
        std::string shell = *command + " --probe";
        llvm::StringRef args[] = {"/bin/sh", "-c", shell};
        std::optional<llvm::StringRef> redirects[] = {llvm::StringRef(""),
                                                      llvm::StringRef(output),
                                                      llvm::StringRef(output)};
        int status = llvm::sys::ExecuteAndWait("/bin/sh", args, std::nullopt,
                                               redirects, /*SecondsToWait=*/60);
        std::string text;
        if (auto buffer = llvm::MemoryBuffer::getFile(output))
          text = (*buffer)->getBuffer().str();
        llvm::sys::fs::remove(output);
        chip = parseProbe(text);
        if (status != 0 || chip.chip.empty())
          problem = llvm::formatv(
              "`{0}` answered with status {1}{2}", shell, status,
              llvm::StringRef(text).trim().empty()
                  ? std::string()
                  : ": " + llvm::StringRef(text).trim().take_front(300).str());
      }
    } else {
      problem = llvm::toString(command.takeError());
    }
    cached = probed.emplace(runnerCommand.str(), std::make_pair(chip, problem))
                 .first;
  }
  if (!cached->second.second.empty())
    return runnerError(cached->second.second);
  return cached->second.first;
}

ProbedChip llmptx::parseProbe(llvm::StringRef text) {
  ProbedChip chip;
  llvm::SmallVector<llvm::StringRef> lines;
  text.split(lines, '\n');
  for (llvm::StringRef line : lines) {
    line = line.trim();
    if (line.consume_front("device ")) {
      auto [ordinal, name] = line.split(": ");
      chip.device = name.trim().str();
    } else if (line.consume_front("chip: ")) {
      llvm::StringRef digits = line.trim();
      unsigned sm = 0;
      if (!digits.consume_front("sm_") || digits.getAsInteger(10, sm))
        continue;
      // Hopper and later have arch-specific instructions (wgmma,
      // setmaxnreg, tensor memory) that only the 'a' target enables.
      chip.chip = "sm_" + std::to_string(sm) + (sm >= 90 ? "a" : "");
    }
  }
  return chip;
}

llvm::Expected<std::string>
llmptx::runBundles(const std::vector<std::string> &bundlePaths,
                   llvm::StringRef runnerCommand) {
  llvm::Expected<std::string> shell = runnerShellCommand(runnerCommand);
  if (!shell)
    return shell.takeError();
  std::string command = std::move(*shell);
  // The results and the log go to a folder of this call's own, removed
  // after reading: the bundles' folder may be the user's emit-bundles
  // folder, whose results.json or runner.log must not be replaced.
  llvm::SmallString<256> privateDir;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("llmptx-runner", privateDir))
    return runnerError("cannot make a folder for the runner's results: " +
                       ec.message());
  llvm::SmallString<256> resultsPath(privateDir);
  llvm::sys::path::append(resultsPath, "results.json");
  llvm::SmallString<256> logPath(privateDir);
  llvm::sys::path::append(logPath, "runner.log");
  llvm::scope_exit removePrivate(
      [&] { llvm::sys::fs::remove_directories(privateDir); });
  for (const std::string &path : bundlePaths)
    command += " " + shellQuote(path);
  command += " -o " + shellQuote(resultsPath);

  llvm::StringRef args[] = {"/bin/sh", "-c", command};
  std::optional<llvm::StringRef> redirects[] = {
      std::nullopt, llvm::StringRef(logPath), llvm::StringRef(logPath)};
  std::string error;
  int status = llvm::sys::ExecuteAndWait("/bin/sh", args, std::nullopt,
                                         redirects, /*SecondsToWait=*/0,
                                         /*MemoryLimit=*/0, &error);
  std::string log;
  if (auto buffer = llvm::MemoryBuffer::getFile(logPath))
    log = (*buffer)->getBuffer().trim().str();
  // Exit status 2: the runner found no GPU or driver.
  if (status == 2)
    return runnerError(log.empty() ? "the runner found no GPU" : log);
  if (status != 0)
    return runnerError(llvm::formatv(
        "the runner failed (exit status "
        "{0}{1}){2}",
        status, error.empty() ? "" : ", " + error,
        log.empty() ? std::string(" and said nothing") : ": " + log));
  auto results = llvm::MemoryBuffer::getFile(resultsPath);
  if (!results)
    return runnerError("the runner wrote no results to " + resultsPath);
  return (*results)->getBuffer().str();
}

/// ", 62% of the device's 4814 GB/s" (`peakText`), or ", above the
/// device's 4814 GB/s" and `aboveNote` when `rate` exceeds `peak`.
static std::string againstPeak(double rate, double peak,
                               const llvm::Twine &peakText,
                               llvm::StringRef aboveNote = "") {
  if (rate > peak)
    return (", above the device's " + peakText + aboveNote).str();
  return (llvm::formatv(", {0:f0}% of the device's ", 100 * rate / peak) +
          peakText)
      .str();
}

/// What the runner measured of one kernel, one fact per line: its median
/// time at the timing shape, the rates against the device's peaks, its
/// resources and occupancy.
static std::string
describeMeasurements(const runtime::CandidateTiming *timing, bool reference,
                     const std::optional<runtime::KernelResources> &resources,
                     const runtime::DeviceInfo &device) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (timing) {
    const runtime::TimingStats &stats =
        reference ? timing->referenceMs : timing->candidateMs;
    os << llvm::formatv("time: {0:f4} ms median over {1} runs (p10 {2:f4}, "
                        "p90 {3:f4}) at ({4}), L2 flushed before each run\n",
                        stats.median, stats.runs, stats.p10, stats.p90,
                        runtime::formatSizes(timing->shape, ", "));
    std::optional<double> gbs =
        reference ? timing->referenceGbs : timing->candidateGbs;
    if (gbs && timing->bytes) {
      os << llvm::formatv("memory: {0:f0} GB/s of the {1} bytes it must move",
                          *gbs, *timing->bytes);
      if (double peak = device.memoryBandwidthGbs(); peak > 0)
        os << againstPeak(*gbs, peak, llvm::formatv("{0:f0} GB/s", peak),
                          " (caches served part of it)");
      os << "\n";
    }
    std::optional<double> gflops =
        reference ? timing->referenceGflops : timing->candidateGflops;
    if (gflops) {
      // The peak of the units its SASS shows it runs on, and never a share
      // above all of it.
      runtime::ComputeUnit unit =
          runtime::computeUnitOf(resources ? resources->sass : std::nullopt);
      os << llvm::formatv("compute: {0:f0} GFLOP/s", *gflops);
      if (double peak = device.peakGflops(unit); peak > 0)
        os << againstPeak(*gflops, peak,
                          llvm::formatv("{0} peak of {1:f0} GFLOP/s",
                                        runtime::computeUnitName(unit), peak));
      os << "\n";
    }
  }
  if (resources) {
    if (resources->registers)
      os << llvm::formatv("as the driver loaded it: {0} registers per "
                          "thread, {1} B of local memory per thread, {2} B "
                          "of static shared memory per block\n",
                          *resources->registers,
                          resources->localBytes.value_or(0),
                          resources->staticSharedBytes.value_or(0));
    if (resources->sass)
      os << runtime::describeSass(*resources->sass, 12)
         << " as ptxas makes it on the GPU machine (nvdisasm)\n";
    if (!resources->counters.empty())
      os << "Nsight Compute, one run at the timing shape: "
         << runtime::describeCounters(resources->counters) << "\n";
    if (resources->blocksPerSm && resources->blockThreads)
      os << llvm::formatv("occupancy: {0} block(s) of {1} threads per SM{2}\n",
                          *resources->blocksPerSm, *resources->blockThreads,
                          resources->occupancy
                              ? llvm::formatv(", {0:f0}% of the SM's threads",
                                              100 * *resources->occupancy)
                                    .str()
                              : std::string());
  }
  return text;
}

/// "mismatch at shape (N=7) offset 0: ...; out[3] expected 1, got 2 (...)":
/// where a candidate first failed, with its first differing elements, which
/// tell the model (and the user) what went wrong.
static std::string describeFailure(const runtime::ShapeResult &shape) {
  std::string examples;
  for (const runtime::ElementReport &element :
       llvm::ArrayRef(shape.mismatches).take_front(5)) {
    std::string index;
    for (int64_t i : element.index)
      index += (index.empty() ? "" : ", ") + std::to_string(i);
    examples += llvm::formatv("; {0}[{1}] expected {2}, got {3} ({4}, {5})",
                              element.buffer, index, element.expected,
                              element.got, element.kind, element.run)
                    .str();
  }
  return llvm::formatv("{0} at shape ({1}) offset {2}: {3}{4}",
                       runtime::verdictName(shape.verdict),
                       runtime::formatSizes(shape.shape, ", "), shape.offset,
                       shape.details, examples);
}

/// Copies one candidate's result: verdict, first failure, timing (kept when
/// this run did not time it) and measurements.
static void applyResult(const runtime::CandidateResult &result,
                        const runtime::BundleResult &bundle,
                        const runtime::DeviceInfo &device,
                        Candidate &candidate) {
  candidate.verdict = result.verdict;
  candidate.placement = bundle.placement;
  for (const runtime::ShapeResult &shape : result.shapes)
    if (shape.verdict != runtime::Verdict::Pass &&
        shape.verdict != runtime::Verdict::Skipped) {
      candidate.verdictDetails = describeFailure(shape);
      break;
    }
  if (result.timing)
    candidate.timing = result.timing;
  if (result.largestShapeTiming)
    candidate.largestShapeTiming = result.largestShapeTiming;
  if (result.confirmation)
    candidate.confirmation = result.confirmation;
  candidate.measurements =
      describeMeasurements(result.timing ? &*result.timing : nullptr,
                           /*reference=*/false, result.resources, device);
}

llvm::Expected<runtime::VerificationResults>
llmptx::readResults(llvm::StringRef resultsJson) {
  runtime::ValueOrError<runtime::VerificationResults> parsed =
      runtime::parseResultsJson(
          std::string_view(resultsJson.data(), resultsJson.size()));
  if (!parsed)
    return runnerError("unreadable runner results: " + parsed.error());
  return parsed.take();
}

llvm::Error llmptx::applyResults(const runtime::VerificationResults &results,
                                 llvm::StringRef kernelName,
                                 std::vector<Candidate *> &candidates,
                                 std::string *referenceMeasurements) {
  for (const runtime::BundleResult &bundle : results.bundles) {
    if (bundle.kernel != kernelName)
      continue;
    if (!bundle.error.empty())
      return runnerError("the reference failed its own run: " + bundle.error);
    // On a cluster, the peaks are those of the GPU the bundle ran on.
    const runtime::DeviceInfo &device = bundle.device(results.device);
    if (referenceMeasurements) {
      const runtime::CandidateTiming *timing = nullptr;
      for (const runtime::CandidateResult &result : bundle.candidates)
        if (result.timing && !timing)
          timing = &*result.timing;
      *referenceMeasurements = describeMeasurements(
          timing, /*reference=*/true, bundle.referenceResources, device);
    }
    for (const runtime::CandidateResult &result : bundle.candidates)
      for (Candidate *candidate : candidates)
        if (candidate->name() == result.name)
          applyResult(result, bundle, device, *candidate);
  }
  return llvm::Error::success();
}
