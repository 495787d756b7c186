//===- Runner.cpp - Running verification bundles on a GPU -----------------===//

#include "llmptx/Runtime/Runner.h"

#include "llmptx/Runtime/Sass.h"

#include "ResultsJson.h"
#include "llmptx/Runtime/ChildProcess.h"
#include "llmptx/Runtime/Counters.h"
#include "llmptx/Runtime/CudaToolkit.h"
#include "llmptx/Runtime/Plan.h"
#include "llmptx/Runtime/PtxSignature.h"

#include <chrono>
#include <cstdlib>
#include <map>
#include <optional>
#include <unistd.h>

using namespace llmptx::runtime;
using namespace llmptx::runtime::json_support;

/// Adds SASS statistics to the resources of the reference and of every
/// candidate that loaded; says in `notes` what could not be measured.
static void measureBundleSass(const VerificationBundle &bundle,
                              BundleResult &result, const SassTools &tools,
                              std::vector<std::string> &notes) {
  char pattern[] = "/tmp/llmptx-sass-XXXXXX";
  if (const char *directory = ::mkdtemp(pattern); !directory) {
    notes.push_back("cannot create a directory for ptxas");
    return;
  }
  std::string workDir = pattern;
  auto measure = [&](const KernelObject &object,
                     std::optional<KernelResources> &resources) {
    if (!resources)
      return; // it never loaded
    ValueOrError<SassStatistics> sass =
        measureSass(tools, object.ptx, object.entry, bundle.chip, workDir);
    if (sass)
      resources->sass = std::move(*sass);
    else
      notes.push_back(bundle.kernel + " " + object.name + ": " + sass.error());
  };
  if (result.error.empty())
    measure(bundle.reference, result.referenceResources);
  for (size_t i = 0;
       i < bundle.candidates.size() && i < result.candidates.size(); ++i)
    measure(bundle.candidates[i], result.candidates[i].resources);
  ::rmdir(workDir.c_str());
}

/// Runs kernel `candidate` (-1: the reference) of the bundle at `path`
/// once at its timing shape under ncu; its counters, or why there are none.
static ValueOrError<std::vector<Counter>>
profileKernel(const std::string &ncu, const std::string &path,
              const VerificationBundle &bundle, int candidate,
              const RunnerOptions &options) {
  const std::string &entry =
      candidate < 0 ? bundle.reference.entry : bundle.candidates[candidate].entry;
  std::string metrics;
  for (const std::string &metric : profiledMetrics())
    metrics += (metrics.empty() ? "" : ",") + metric;
  std::vector<std::string> argv = {
      ncu, "--csv", "--metrics", metrics, "-k", "regex:^" + entry + "$",
      "--launch-count", "1", options.runnerExecutable, "--child-sanitize",
      path, "--shape", std::to_string(timingShapeIndex(bundle)), "--variant",
      "0", "--candidate", std::to_string(candidate), "--device",
      std::to_string(options.device)};
  if (!options.cudaLibrary.empty()) {
    argv.push_back("--libcuda");
    argv.push_back(options.cudaLibrary);
  }
  ValueOrError<ChildProcess> spawned = ChildProcess::spawn(argv, 0, false);
  if (!spawned)
    return Failure{"cannot start ncu: " + spawned.error()};
  ChildProcess child = spawned.take();
  ChildExit exit = child.wait(std::max(120.0, 10 * options.timeoutSeconds));
  std::vector<Counter> counters = parseNcuCsv(child.output());
  if (exit.kind != ChildExit::Kind::Exited || exit.code != 0 ||
      counters.empty()) {
    std::string output = child.output();
    if (output.size() > 300)
      output = output.substr(output.size() - 300);
    return Failure{"ncu " + exit.describe() + ": " + output};
  }
  return counters;
}

/// Adds Nsight Compute counters to the resources of the reference and of
/// every candidate that passed.
static void profileBundle(const std::string &ncu, const BundleInput &input,
                          BundleResult &result, const RunnerOptions &options,
                          std::vector<std::string> &notes) {
  if (!result.error.empty())
    return;
  auto profile = [&](int candidate, std::optional<KernelResources> &resources) {
    ValueOrError<std::vector<Counter>> counters =
        profileKernel(ncu, input.path, input.bundle, candidate, options);
    if (!counters) {
      notes.push_back(input.bundle.kernel + " " +
                      (candidate < 0 ? input.bundle.reference.name
                                     : input.bundle.candidates[candidate].name) +
                      ": " + counters.error());
      return;
    }
    if (!resources)
      resources = KernelResources();
    resources->counters = std::move(*counters);
  };
  profile(-1, result.referenceResources);
  for (size_t i = 0; i < result.candidates.size(); ++i)
    if (result.candidates[i].verdict == Verdict::Pass)
      profile(static_cast<int>(i), result.candidates[i].resources);
}

namespace {

/// The last part of what a child printed, for details.
std::string outputTail(const std::string &output, size_t lines = 8) {
  size_t end = output.size();
  while (end > 0 && output[end - 1] == '\n')
    --end;
  size_t start = end;
  for (size_t seen = 0; start > 0; --start)
    if (output[start - 1] == '\n' && ++seen == lines)
      break;
  return output.substr(start, end - start);
}

/// What one request to a worker came back with.
struct WorkerOutcome {
  enum class Kind {
    Result,         // shapeResult (and timing for "time") are set
    ReferenceError, // message
    Timeout,        // the watchdog killed the worker; message
    Died,           // the worker ended without answering; message
    StartFailed,    // no worker could be started; message
  };
  Kind kind = Kind::Died;
  ShapeResult shapeResult;
  std::optional<CandidateTiming> timing;
  std::string message;
  /// Which kernel was running when the worker stopped answering.
  std::string phase;
  bool signaled = false;
};

/// The parent's handle on one worker child, restarted as needed.
class WorkerHandle {
public:
  WorkerHandle(const RunnerOptions &options, const std::string &bundlePath)
      : options(options), bundlePath(bundlePath) {}
  ~WorkerHandle() { stop(); }

  WorkerOutcome request(const OrderedJson &command, double timeoutSeconds) {
    WorkerOutcome outcome;
    if (!child) {
      std::string error;
      if (!start(error)) {
        outcome.kind = WorkerOutcome::Kind::StartFailed;
        outcome.message = error;
        return outcome;
      }
    }
    if (!child->writeLine(command.dump()))
      return died("the worker stopped accepting commands");
    std::string phase = "setup";
    using Clock = std::chrono::steady_clock;
    // Every message from the worker restarts the watchdog: the limit is per
    // phase (preparing the images, one kernel run), not per request.
    auto deadline =
        Clock::now() + std::chrono::duration<double>(timeoutSeconds);
    while (true) {
      double left =
          std::chrono::duration<double>(deadline - Clock::now()).count();
      std::string line;
      ChildProcess::ReadStatus status =
          child->readLine(line, std::max(left, 0.0));
      if (status == ChildProcess::ReadStatus::Timeout) {
        child->kill();
        child->wait(30);
        outcome.kind = WorkerOutcome::Kind::Timeout;
        outcome.phase = phase;
        char seconds[32];
        std::snprintf(seconds, sizeof(seconds), "%g", timeoutSeconds);
        outcome.message = std::string("no answer within ") + seconds +
                          " s while the " + phase +
                          " was running; the watchdog killed it";
        child.reset();
        return outcome;
      }
      if (status == ChildProcess::ReadStatus::EndOfFile) {
        WorkerOutcome result = died("");
        result.phase = phase;
        return result;
      }
      std::string error;
      std::optional<Json> message = parseJsonText(line, error);
      if (!message || !message->is_object())
        continue; // not a protocol line
      std::string event = message->value("event", "");
      deadline = Clock::now() + std::chrono::duration<double>(timeoutSeconds);
      if (event == "phase") {
        phase = message->value("who", "setup");
        continue;
      }
      if (event == "resources") {
        recordResources(*message);
        continue;
      }
      if (event == "reference-error" || event == "fatal") {
        outcome.kind = WorkerOutcome::Kind::ReferenceError;
        outcome.message = message->value("message", "");
        // The worker exits after these.
        child->wait(30);
        child.reset();
        return outcome;
      }
      if (event == "result" || event == "timing") {
        outcome.kind = WorkerOutcome::Kind::Result;
        if (message->contains("shape_result") &&
            !readShapeResultJson((*message)["shape_result"],
                                 outcome.shapeResult, error))
          return died("bad result from the worker: " + error);
        if (event == "timing") {
          CandidateTiming timing;
          if (!readTimingJson((*message)["timing"], timing, error))
            return died("bad timing from the worker: " + error);
          outcome.timing = timing;
        }
        if (message->value("exiting", false)) {
          child->wait(30);
          child.reset();
        }
        return outcome;
      }
    }
  }

  /// What the workers measured of each kernel that loaded, whatever
  /// happened to the kernel afterwards (candidate index -> resources).
  std::map<size_t, KernelResources> candidateResources;
  std::optional<KernelResources> referenceResources;

  void stop() {
    if (!child)
      return;
    OrderedJson quit;
    quit["op"] = "quit";
    child->writeLine(quit.dump());
    child->closeInput();
    child->wait(30);
    child.reset();
  }

private:
  /// A measurement that cannot be read is dropped: it is no verdict.
  void recordResources(const Json &message) {
    const Json *resources =
        message.contains("resources") ? &message.at("resources") : nullptr;
    KernelResources parsed;
    std::string error;
    if (!resources || !readKernelResourcesJson(*resources, parsed, error))
      return;
    std::string who = message.value("who", "");
    if (who == "reference") {
      referenceResources = parsed;
    } else if (who == "candidate") {
      const Json *index =
          message.contains("candidate") ? &message.at("candidate") : nullptr;
      if (index && index->is_number_unsigned())
        candidateResources[index->get<size_t>()] = parsed;
    }
  }

  bool start(std::string &error) {
    std::vector<std::string> argv = {options.runnerExecutable,
                                     "--child",
                                     bundlePath,
                                     "--device",
                                     std::to_string(options.device),
                                     "--max-examples",
                                     std::to_string(options.maxExamples)};
    if (!options.cudaLibrary.empty()) {
      argv.push_back("--libcuda");
      argv.push_back(options.cudaLibrary);
    }
    auto spawned = ChildProcess::spawn(argv, 3, true);
    if (!spawned) {
      error = "cannot start a worker: " + spawned.error();
      return false;
    }
    child.emplace(spawned.take());
    // Creating a context can take seconds on a cold GPU.
    std::string line;
    while (true) {
      ChildProcess::ReadStatus status = child->readLine(line, 120);
      if (status != ChildProcess::ReadStatus::Line) {
        if (status == ChildProcess::ReadStatus::Timeout)
          child->kill();
        ChildExit exit = child->wait(30);
        error = "the worker did not start (" + exit.describe() + ")";
        std::string tail = outputTail(child->output());
        if (!tail.empty())
          error += ": " + tail;
        child.reset();
        return false;
      }
      std::string parseError;
      std::optional<Json> message = parseJsonText(line, parseError);
      if (!message || !message->is_object())
        continue;
      std::string event = message->value("event", "");
      if (event == "ready")
        return true;
      if (event == "fatal") {
        error = message->value("message", "the worker failed to start");
        child->wait(30);
        child.reset();
        return false;
      }
    }
  }

  WorkerOutcome died(const std::string &why) {
    WorkerOutcome outcome;
    outcome.kind = WorkerOutcome::Kind::Died;
    ChildExit exit = child->wait(30);
    outcome.signaled = exit.kind == ChildExit::Kind::Signaled;
    outcome.message = why.empty() ? "the worker " + exit.describe() : why;
    std::string tail = outputTail(child->output());
    if (!tail.empty())
      outcome.message += "\n" + tail;
    child.reset();
    return outcome;
  }

  const RunnerOptions &options;
  std::string bundlePath;
  std::optional<ChildProcess> child;
};

/// Runs one bundle; candidate state lives here.
class BundleRun {
public:
  BundleRun(const BundleInput &input, const RunnerOptions &options,
            const std::string &sanitizer, const DeviceInfo &device)
      : input(input), bundle(input.bundle), options(options),
        sanitizer(sanitizer), device(device), worker(options, input.path) {}

  BundleResult run() {
    auto started = std::chrono::steady_clock::now();
    result.bundle = input.path;
    result.kernel = bundle.kernel;
    result.reference = bundle.reference.name;
    failed.assign(bundle.candidates.size(), false);
    neverLaunch.assign(bundle.candidates.size(), false);
    for (const KernelObject &candidate : bundle.candidates) {
      CandidateResult entry;
      entry.name = candidate.name;
      result.candidates.push_back(entry);
    }
    if (checkAbis()) {
      runExecutionChecks();
      if (result.error.empty() && options.sanitize && !sanitizer.empty())
        runSanitizer();
      if (result.error.empty() && options.timing)
        runTiming();
      if (result.error.empty() && options.timing)
        runConfirmations();
    }
    worker.stop();
    result.referenceResources = worker.referenceResources;
    for (const auto &[index, resources] : worker.candidateResources)
      if (index < result.candidates.size())
        result.candidates[index].resources = resources;
    for (CandidateResult &candidate : result.candidates) {
      std::vector<Verdict> verdicts;
      for (const ShapeResult &shape : candidate.shapes)
        verdicts.push_back(shape.verdict);
      // A bundle whose reference failed verifies nothing.
      candidate.verdict =
          result.error.empty() ? candidateVerdict(verdicts) : Verdict::Skipped;
    }
    result.wallSeconds = std::chrono::duration<double>(
                             std::chrono::steady_clock::now() - started)
                             .count();
    return result;
  }

  bool sanitizerRan = false;

private:
  void progress(const std::string &line) {
    if (options.progress)
      options.progress(line);
  }

  ShapeResult entryFor(size_t shape, unsigned variant,
                       const std::string &check) {
    ShapeResult entry;
    entry.shapeIndex = shape;
    entry.shape = bundle.shapeAt(shape);
    entry.check = check;
    entry.offset = variant ? kNonZeroOffset : 0;
    if (auto plan = planShape(bundle, shape, variant))
      entry.offsets = plan->nonZeroOffsets();
    return entry;
  }

  void record(size_t candidate, ShapeResult entry) {
    if (entry.verdict != Verdict::Pass && entry.verdict != Verdict::Skipped)
      failed[candidate] = true;
    progress(bundle.candidates[candidate].name + " " +
             formatShape(bundle, entry.shape) +
             (entry.offset ? " offset " + std::to_string(entry.offset) : "") +
             " [" + entry.check + "]: " + verdictName(entry.verdict));
    result.candidates[candidate].shapes.push_back(std::move(entry));
  }

  /// The PTX signatures agree with the ABI (CPU only).
  bool checkAbis() {
    auto entry = findPtxEntry(bundle.reference.ptx, bundle.reference.entry);
    std::optional<std::string> problem;
    if (!entry)
      problem = entry.error();
    else
      problem = checkAbi(*entry, bundle, bundle.reference);
    if (problem) {
      result.error =
          "the reference does not match the bundle's ABI: " + *problem;
      return false;
    }
    for (size_t c = 0; c < bundle.candidates.size(); ++c) {
      const KernelObject &candidate = bundle.candidates[c];
      auto signature = findPtxEntry(candidate.ptx, candidate.entry);
      std::optional<std::string> mismatch;
      if (!signature)
        mismatch = signature.error();
      else
        mismatch = checkAbi(*signature, bundle, candidate);
      if (mismatch) {
        ShapeResult entry = entryFor(0, 0, "abi");
        entry.verdict = Verdict::LoadError;
        entry.details = "ABI check: " + *mismatch;
        record(c, std::move(entry));
        // cuLaunchKernel would read the wrong number of arguments: such a
        // candidate is never launched, not even with --keep-going.
        neverLaunch[c] = true;
      }
    }
    return true;
  }

  /// Turns a worker outcome into an entry, or a bundle error.
  bool absorb(size_t candidate, ShapeResult entry, WorkerOutcome outcome) {
    switch (outcome.kind) {
    case WorkerOutcome::Kind::Result:
      outcome.shapeResult.offsets = entry.offsets;
      outcome.shapeResult.check = entry.check;
      record(candidate, std::move(outcome.shapeResult));
      return true;
    case WorkerOutcome::Kind::ReferenceError:
    case WorkerOutcome::Kind::StartFailed:
      result.error = outcome.message;
      return false;
    case WorkerOutcome::Kind::Timeout:
    case WorkerOutcome::Kind::Died:
      // Only a candidate's own phase makes a candidate verdict; a worker
      // that hangs or dies preparing or running the reference fails the
      // bundle.
      if (outcome.phase != "candidate") {
        result.error = "the worker " +
                       std::string(outcome.kind == WorkerOutcome::Kind::Timeout
                                       ? "timed out"
                                       : "died") +
                       " while the " + outcome.phase +
                       " phase ran: " + outcome.message;
        return false;
      }
      entry.verdict = outcome.kind == WorkerOutcome::Kind::Timeout
                          ? Verdict::Timeout
                          : Verdict::Crash;
      entry.details = outcome.message;
      record(candidate, std::move(entry));
      return true;
    }
    return true;
  }

  void runExecutionChecks() {
    unsigned variants = offsetVariantCount(bundle);
    for (size_t s = 0; s < bundle.shapes.size(); ++s)
      for (unsigned v = 0; v < variants; ++v)
        for (size_t c = 0; c < bundle.candidates.size(); ++c) {
          ShapeResult entry = entryFor(s, v, "execution");
          if (neverLaunch[c] || (failed[c] && !options.keepGoing)) {
            entry.verdict = Verdict::Skipped;
            result.candidates[c].shapes.push_back(std::move(entry));
            continue;
          }
          if (!checkCandidate(c, std::move(entry), bundle.seed))
            return;
        }
  }

  /// Runs the four-run check of `entry`'s shape and variant on candidate
  /// `c` with the inputs of `seed`; false when the bundle failed.
  bool checkCandidate(size_t c, ShapeResult entry, uint64_t seed) {
    OrderedJson command;
    command["op"] = "check";
    command["shape"] = entry.shapeIndex;
    command["variant"] = entry.offset ? 1 : 0;
    command["candidate"] = c;
    if (seed != bundle.seed)
      command["seed"] = seed;
    return absorb(c, entry, worker.request(command, options.timeoutSeconds));
  }

  /// At most two shapes whose largest buffer has at most
  /// sanitizeMaxElements elements: the tools slow kernels down by orders of
  /// magnitude.
  std::vector<size_t> smallShapes(unsigned variant) const {
    std::vector<size_t> shapes;
    for (size_t s = 0; s < bundle.shapes.size() && shapes.size() < 2; ++s)
      if (auto plan = planShape(bundle, s, variant))
        if (plan->largestElementCount() <= options.sanitizeMaxElements)
          shapes.push_back(s);
    return shapes;
  }

  void runSanitizer() {
    unsigned variant = offsetVariantCount(bundle) - 1;
    std::vector<size_t> shapes = smallShapes(variant);
    if (shapes.empty()) {
      sanitizerNotes.push_back("no shape with at most " +
                               std::to_string(options.sanitizeMaxElements) +
                               " elements; compute-sanitizer skipped");
      return;
    }
    for (const char *tool : {"memcheck", "racecheck", "initcheck"}) {
      // The reference first: if it is not clean, the tool does not work
      // here (or the bundle is wrong) and says nothing about candidates.
      const SanitizerOutcome &reference =
          referenceUnder(tool, shapes.front(), variant);
      if (!reference.clean) {
        sanitizerNotes.push_back(
            std::string(tool) +
            " skipped: the reference is not clean: " + reference.details);
        continue;
      }
      sanitizerRan = true;
      for (size_t c = 0; c < bundle.candidates.size(); ++c)
        for (size_t s : shapes) {
          if (neverLaunch[c] || (failed[c] && !options.keepGoing))
            break;
          ShapeResult entry = entryFor(s, variant, tool);
          SanitizerOutcome outcome =
              sanitize(tool, s, variant, static_cast<int>(c));
          entry.verdict = outcome.verdict;
          entry.details = outcome.details;
          record(c, std::move(entry));
        }
    }
  }

  struct SanitizerOutcome {
    bool clean = false;
    Verdict verdict = Verdict::Pass;
    std::string details;
  };

  /// The reference under `tool` on the first small shape: run once per
  /// tool, since --sanitize and every confirmed candidate ask the same.
  std::map<std::string, SanitizerOutcome> referenceOutcomes;
  const SanitizerOutcome &referenceUnder(const char *tool, size_t shape,
                                         unsigned variant) {
    auto [it, fresh] = referenceOutcomes.try_emplace(tool);
    if (fresh)
      it->second = sanitize(tool, shape, variant, -1);
    return it->second;
  }

  SanitizerOutcome sanitize(const char *tool, size_t shape, unsigned variant,
                            int candidate) {
    SanitizerOutcome outcome;
    // 86: a number the child never uses, to tell tool errors apart.
    std::vector<std::string> argv = {sanitizer,
                                     "--tool",
                                     tool,
                                     "--error-exitcode",
                                     "86",
                                     "--print-limit",
                                     "10",
                                     options.runnerExecutable,
                                     "--child-sanitize",
                                     input.path,
                                     "--shape",
                                     std::to_string(shape),
                                     "--variant",
                                     std::to_string(variant),
                                     "--candidate",
                                     std::to_string(candidate),
                                     "--device",
                                     std::to_string(options.device)};
    if (!options.cudaLibrary.empty()) {
      argv.push_back("--libcuda");
      argv.push_back(options.cudaLibrary);
    }
    auto spawned = ChildProcess::spawn(argv, 0, false);
    if (!spawned) {
      outcome.verdict = Verdict::Sanitizer;
      outcome.details = "cannot start compute-sanitizer: " + spawned.error();
      return outcome;
    }
    ChildProcess child = spawned.take();
    std::string line;
    // The tools are slow; give them ten entry timeouts, at least a minute.
    double limit = std::max(60.0, 10 * options.timeoutSeconds);
    ChildProcess::ReadStatus status = child.readLine(line, limit);
    if (status == ChildProcess::ReadStatus::Timeout)
      child.kill();
    ChildExit exit = child.wait(30);
    // Keep the tool's own lines: they name the error and the kernel.
    std::string report;
    size_t lines = 0;
    size_t start = 0;
    const std::string &output = child.output();
    while (start < output.size() && lines < 12) {
      size_t end = output.find('\n', start);
      if (end == std::string::npos)
        end = output.size();
      std::string text = output.substr(start, end - start);
      if (text.rfind("=========", 0) == 0 && text.size() > 10) {
        report += text + "\n";
        ++lines;
      }
      start = end + 1;
    }
    if (status == ChildProcess::ReadStatus::Timeout) {
      outcome.verdict = Verdict::Timeout;
      outcome.details = std::string(tool) + " did not finish within " +
                        std::to_string(static_cast<int>(limit)) + " s";
      return outcome;
    }
    if (exit.kind == ChildExit::Kind::Exited && exit.code == 0) {
      outcome.clean = true;
      return outcome;
    }
    outcome.verdict = Verdict::Sanitizer;
    outcome.details = std::string(tool) + " " + exit.describe() + "\n" +
                      (report.empty() ? outputTail(output) : report);
    return outcome;
  }

  /// Times every candidate that passed at the timing shape (the production
  /// shape when it fits in a quarter of the device's memory) and, with a
  /// production shape, at the largest correctness shape too.
  void runTiming() {
    timingShape = timingShapeIndex(bundle);
    bool production = bundle.timing.production.has_value();
    if (production && !productionFits()) {
      timingShape = largestCheckedShapeIndex(bundle);
      production = false;
    }
    for (size_t c = 0; c < bundle.candidates.size(); ++c) {
      if (failed[c])
        continue;
      CandidateResult &candidate = result.candidates[c];
      if (!timeCandidate(c, timingShape, bundle.seed, "after-timing",
                         candidate.timing))
        return;
      if (production && !failed[c] &&
          !timeCandidate(c, largestCheckedShapeIndex(bundle), bundle.seed,
                         "after-timing", candidate.largestShapeTiming))
        return;
    }
  }

  /// Both kernels' buffers at the production shape must fit in a quarter
  /// of the device's memory; the note says when they do not.
  bool productionFits() {
    auto plan = planShape(bundle, bundle.shapes.size(), 0);
    uint64_t bytes = plan ? 2 * plan->allocationBytes() : 0;
    if (plan && (device.memoryBytes == 0 || bytes <= device.memoryBytes / 4))
      return true;
    result.timingNote =
        "the production shape needs " + std::to_string(bytes >> 20) +
        " MiB, more than a quarter of the device's memory; speed decided at "
        "the largest checked shape";
    return false;
  }

  /// Times candidate `c` against the reference at `shape` with the inputs
  /// of `seed` (then checks it after timing: entry `check`); the timing goes
  /// to `into` when it passed. False when the bundle failed.
  bool timeCandidate(size_t c, size_t shape, uint64_t seed,
                     const std::string &check,
                     std::optional<CandidateTiming> &into) {
    // Timing needs room: the entry timeout, a generous multiple of the
    // bundle's time budget, and time to make and check the inputs and
    // outputs of a large shape on the CPU (a second per 50 MB allocated).
    double limit =
        options.timeoutSeconds + 4 * bundle.timing.maxMs / 1000.0;
    if (auto plan = planShape(bundle, shape, 0))
      limit += plan->allocationBytes() / 50e6;
    OrderedJson command;
    command["op"] = "time";
    command["candidate"] = c;
    command["shape"] = shape;
    if (seed != bundle.seed)
      command["seed"] = seed;
    ShapeResult entry = entryFor(shape, 0, check);
    WorkerOutcome outcome = worker.request(command, limit);
    std::optional<CandidateTiming> timing = outcome.timing;
    if (!absorb(c, entry, std::move(outcome)))
      return false;
    if (timing && !failed[c])
      into = timing;
    return true;
  }

  /// Why candidate `c` is confirmed, or nothing: --confirm, or a speedup
  /// above the bundle's confirm_above.
  std::optional<std::string> confirmationReason(size_t c) const {
    if (options.confirm)
      return std::string("--confirm");
    const std::optional<CandidateTiming> &timing = result.candidates[c].timing;
    if (!timing || !(timing->speedup.speedup > bundle.timing.confirmAbove))
      return std::nullopt;
    char text[96];
    std::snprintf(text, sizeof(text), "%.1fx is above the bundle's %gx",
                  timing->speedup.speedup, bundle.timing.confirmAbove);
    return std::string(text);
  }

  void runConfirmations() {
    for (size_t c = 0; c < bundle.candidates.size(); ++c) {
      if (failed[c] || neverLaunch[c])
        continue;
      if (std::optional<std::string> reason = confirmationReason(c))
        if (!confirm(c, *reason))
          return;
    }
  }

  /// The confirmation run of candidate `c`: every correctness shape again
  /// with fresh inputs, a second timed input set (outputs poisoned before
  /// every timed run and checked after them), memcheck and racecheck on the
  /// small shapes. False when the bundle failed.
  bool confirm(size_t c, const std::string &reason) {
    Confirmation confirmation;
    confirmation.reason = reason;
    size_t first = result.candidates[c].shapes.size();
    // Seeds of their own: inputs that no earlier run has seen.
    uint64_t freshSeed = bundle.seed ^ 0x636f6e6669726d31ull;
    unsigned variants = offsetVariantCount(bundle);
    for (size_t s = 0; s < bundle.shapes.size() && !failed[c]; ++s)
      for (unsigned v = 0; v < variants && !failed[c]; ++v)
        if (!checkCandidate(c, entryFor(s, v, "confirm-execution"), freshSeed))
          return false;
    if (!failed[c] &&
        !timeCandidate(c, timingShape, freshSeed + 1, "confirm-after-timing",
                       confirmation.timing))
      return false;
    if (!failed[c])
      confirmUnderSanitizer(c, confirmation);
    std::vector<Verdict> verdicts;
    const std::vector<ShapeResult> &shapes = result.candidates[c].shapes;
    for (size_t i = first; i < shapes.size(); ++i) {
      verdicts.push_back(shapes[i].verdict);
      if (shapes[i].verdict != Verdict::Pass && confirmation.details.empty())
        confirmation.details = shapes[i].check + ": " + shapes[i].details;
    }
    confirmation.verdict = candidateVerdict(verdicts);
    result.candidates[c].confirmation = std::move(confirmation);
    return true;
  }

  /// memcheck and racecheck of candidate `c` on the small shapes, when
  /// compute-sanitizer is installed and clean on the reference.
  void confirmUnderSanitizer(size_t c, Confirmation &confirmation) {
    if (sanitizer.empty()) {
      confirmation.details = "compute-sanitizer is not installed: memcheck "
                             "and racecheck did not run";
      return;
    }
    unsigned variant = offsetVariantCount(bundle) - 1;
    std::vector<size_t> shapes = smallShapes(variant);
    for (const char *check : {"memcheck", "racecheck"}) {
      if (shapes.empty() || !referenceUnder(check, shapes.front(), variant).clean)
        continue;
      confirmation.sanitizerRan = true;
      for (size_t s : shapes) {
        if (failed[c])
          break;
        ShapeResult entry = entryFor(s, variant, std::string("confirm-") + check);
        SanitizerOutcome outcome = sanitize(check, s, variant,
                                            static_cast<int>(c));
        entry.verdict = outcome.verdict;
        entry.details = outcome.details;
        record(c, std::move(entry));
      }
    }
    if (!confirmation.sanitizerRan)
      confirmation.details = "memcheck and racecheck did not run (no small "
                             "shape, or the reference is not clean under "
                             "them)";
  }

public:
  std::vector<std::string> sanitizerNotes;

private:
  const BundleInput &input;
  const VerificationBundle &bundle;
  const RunnerOptions &options;
  const std::string &sanitizer;
  const DeviceInfo &device;
  WorkerHandle worker;
  BundleResult result;
  std::vector<bool> failed;
  std::vector<bool> neverLaunch;
  /// Where runTiming timed (the production shape, or the largest checked
  /// one when the production shape does not fit); confirmation times there
  /// too.
  size_t timingShape = 0;
};

} // namespace

VerificationResults
llmptx::runtime::runVerification(const std::vector<BundleInput> &bundles,
                                 const RunnerOptions &options,
                                 const DeviceInfo &device) {
  VerificationResults results;
  results.device = device;
  // Found whether or not --sanitize asks: confirmation runs use it too.
  std::string sanitizer = findComputeSanitizer(options.sanitizerPath);
  std::vector<std::string> notes;
  if (options.sanitize) {
    if (sanitizer.empty())
      notes.push_back("compute-sanitizer not found; its checks did not run");
    else
      notes.push_back("compute-sanitizer: " + sanitizer);
  }
  std::optional<SassTools> sassTools;
  std::vector<std::string> sassNotes;
  if (options.sass) {
    sassTools = findSassTools();
    if (!sassTools)
      sassNotes.push_back("ptxas or nvdisasm not found; no SASS statistics");
  }
  std::string ncu;
  std::vector<std::string> ncuNotes;
  if (options.ncu) {
    ncu = options.ncuPath.empty() ? findCudaTool("ncu") : options.ncuPath;
    if (ncu.empty())
      ncuNotes.push_back("ncu not found; no Nsight Compute counters");
  }
  try {
    for (const BundleInput &input : bundles) {
      BundleRun run(input, options, sanitizer, device);
      results.bundles.push_back(run.run());
      if (!ncu.empty())
        profileBundle(ncu, input, results.bundles.back(), options, ncuNotes);
      if (sassTools)
        measureBundleSass(input.bundle, results.bundles.back(), *sassTools,
                          sassNotes);
      results.sanitizerRan |= run.sanitizerRan;
      for (const std::string &note : run.sanitizerNotes)
        notes.push_back(input.path + ": " + note);
    }
  } catch (const std::exception &e) {
    BundleResult failure;
    failure.bundle = "(runner)";
    failure.error = std::string("internal error: ") + e.what();
    results.bundles.push_back(failure);
  }
  for (const std::string &note : notes)
    results.sanitizerNote += (results.sanitizerNote.empty() ? "" : "; ") + note;
  for (const std::string &note : sassNotes)
    results.sassNote += (results.sassNote.empty() ? "" : "; ") + note;
  for (const std::string &note : ncuNotes)
    results.ncuNote += (results.ncuNote.empty() ? "" : "; ") + note;
  return results;
}
