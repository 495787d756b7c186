//===- ChildWorker.cpp - The GPU side, inside a child process -------------===//
//
// `llmptx-runner --child BUNDLE ...` reads one command per line on stdin
// and answers with JSON lines on descriptor 3:
//
//   {"op":"check","shape":S,"variant":V,"candidate":C[,"seed":N]}
//       -> {"event":"phase","who":"candidate"|"reference"}...
//          {"event":"result","shape_result":{...},"exiting":bool}
//   {"op":"time","candidate":C[,"shape":S][,"seed":N]}
//       -> {"event":"timing","timing":{...},"shape_result":{...}}
// A seed other than the bundle's gives fresh inputs (confirmation runs);
// timing defaults to the bundle's timing shape.
//   {"op":"quit"}
//
// Whenever a kernel loads, the worker also sends what the driver says about
// it at its launch of the timing shape:
//   {"event":"resources","who":"reference"|"candidate","candidate":C,
//    "resources":{...}}
//
// plus {"event":"ready"} once the context exists, and
// {"event":"reference-error","message":...} when the reference itself fails
// (the runner turns that into a bundle error). After a sticky CUDA error
// the worker reports and exits, since its context is gone.
//
// `llmptx-runner --child-sanitize BUNDLE --shape S --variant V --candidate C`
// runs one kernel once on tight allocations, for compute-sanitizer.
//
//===----------------------------------------------------------------------===//

#include "DeviceSession.h"
#include "ResultsJson.h"
#include "llmptx/Runtime/Comparison.h"
#include "llmptx/Runtime/CudaDriver.h"
#include "llmptx/Runtime/InputRecipe.h"
#include "llmptx/Runtime/Runner.h"
#include "llmptx/Runtime/Statistics.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <unistd.h>

using namespace llmptx::runtime;
using namespace llmptx::runtime::json_support;
namespace cu = llmptx::cu;

namespace {

/// Exit codes of a worker.
enum WorkerExit {
  kExitDone = 0,
  kExitBadArguments = 1,
  kExitNoDevice = 2,
  kExitSticky = 3,
  kExitReferenceFailed = 4,
  kExitKernelFailed = 5,
};

struct ChildArguments {
  std::string mode;
  std::string bundlePath;
  std::string library;
  int device = 0;
  size_t maxExamples = 10;
  int shape = 0;
  int variant = 0;
  int candidate = -1;
};

bool parseChildArguments(const std::vector<std::string> &args,
                         ChildArguments &parsed, std::string &error) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &arg = args[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) {
        error = arg + " needs a value";
        return {};
      }
      return args[++i];
    };
    try {
      if (arg == "--child" || arg == "--child-sanitize") {
        parsed.mode = arg;
        parsed.bundlePath = value();
      } else if (arg == "--libcuda") {
        parsed.library = value();
      } else if (arg == "--device") {
        parsed.device = std::stoi(value());
      } else if (arg == "--max-examples") {
        parsed.maxExamples = std::stoul(value());
      } else if (arg == "--shape") {
        parsed.shape = std::stoi(value());
      } else if (arg == "--variant") {
        parsed.variant = std::stoi(value());
      } else if (arg == "--candidate") {
        parsed.candidate = std::stoi(value());
      } else {
        error = "unknown child argument " + arg;
      }
    } catch (const std::exception &) {
      error = "bad number for " + arg;
    }
    if (!error.empty())
      return false;
  }
  if (parsed.mode.empty())
    error = "no child mode";
  return error.empty();
}

/// Sends JSON lines on descriptor 3.
void sendMessage(const OrderedJson &message) {
  std::string line = message.dump() + "\n";
  size_t written = 0;
  while (written < line.size()) {
    ssize_t n = ::write(3, line.data() + written, line.size() - written);
    if (n <= 0)
      return; // the runner is gone; nothing to tell
    written += static_cast<size_t>(n);
  }
}

/// Everything prepared for one (shape, variant).
struct ShapeState {
  int shape = -1;
  int variant = -1;
  uint64_t seed = 0;
  ShapePlan plan; // its placement is the state's
  std::vector<std::vector<uint8_t>> inputs;
  std::vector<std::vector<uint8_t>> imagesA;
  std::vector<std::vector<uint8_t>> imagesB;
  DeviceSession::BufferSet referenceSet;
  DeviceSession::BufferSet candidateSet;
};

/// The byte outputs are poisoned with before each timed run: the integer
/// poison of the second run, so an element left unwritten reads as
/// unwritten (a float one as a mismatch).
const unsigned char kTimedPoisonByte =
    static_cast<unsigned char>(poisonBits(ElementType::I8, 1));

/// What a stage of a command returns besides nullopt (the command goes on)
/// and an exit code (the worker stops): the command is over, its answer
/// sent, and the worker goes on.
constexpr int kAnswered = -1;

/// A command's own return for a stage that stopped it.
std::optional<int> commandEnd(int stop) {
  if (stop == kAnswered)
    return std::nullopt;
  return stop;
}

/// The two kernels a timing command compares, and their launches.
struct TimedKernels {
  DeviceSession::Kernel candidate, reference;
  const LaunchDims *candidateDims = nullptr;
  const LaunchDims *referenceDims = nullptr;
};

/// The milliseconds of each timed launch.
struct TimingSamples {
  std::vector<double> referenceMs, candidateMs;
};

/// One timed launch: the L2 flush buffer is overwritten, then the kernel
/// runs between two events on the timing stream, on the buffers of one set
/// (the same for both kernels).
class TimedLauncher {
public:
  TimedLauncher(DeviceSession &session, const ShapePlan &plan,
                const DeviceSession::BufferSet &set, cu::DevicePtr flush,
                uint64_t flushBytes, cu::Stream stream)
      : session(session), plan(plan), set(set), flush(flush),
        flushBytes(flushBytes), stream(stream) {
    session.api().cuEventCreate(&events[0], 0);
    session.api().cuEventCreate(&events[1], 0);
  }
  ~TimedLauncher() {
    session.api().cuEventDestroy(events[0]);
    session.api().cuEventDestroy(events[1]);
  }
  TimedLauncher(const TimedLauncher &) = delete;
  TimedLauncher &operator=(const TimedLauncher &) = delete;

  /// Launches `kernel` as the `run`th timed run (which also sets the byte
  /// the flush buffer is filled with) and gives its time in `ms`. Outputs
  /// are poisoned before every run, untimed: a kernel cannot find its
  /// previous run's results in them and skip the work.
  DeviceStatus launch(const DeviceSession::Kernel &kernel,
                      const LaunchDims &dims, unsigned run, float &ms) {
    const CudaDriverApi &api = session.api();
    for (size_t b = 0; b < plan.buffers.size(); ++b)
      if (plan.buffers[b].role == BufferRole::Output)
        api.cuMemsetD8Async(set.allocations[b], kTimedPoisonByte,
                            set.bytes[b], stream);
    api.cuMemsetD8Async(flush, static_cast<unsigned char>(run), flushBytes,
                        stream);
    api.cuEventRecord(events[0], stream);
    DeviceStatus launched =
        session.launch(kernel, dims, plan, set, stream, false);
    if (!launched.ok())
      return launched;
    api.cuEventRecord(events[1], stream);
    cu::Result synced = api.cuEventSynchronize(events[1]);
    if (synced != cu::SUCCESS)
      return session.executionError(synced, "timed run");
    api.cuEventElapsedTime(&ms, events[0], events[1]);
    return DeviceStatus();
  }

private:
  DeviceSession &session;
  const ShapePlan &plan;
  const DeviceSession::BufferSet &set;
  cu::DevicePtr flush;
  uint64_t flushBytes;
  cu::Stream stream;
  cu::Event events[2] = {nullptr, nullptr};
};

class Worker {
public:
  Worker(const VerificationBundle &bundle, DeviceSession &session,
         size_t maxExamples)
      : bundle(bundle), session(session), maxExamples(maxExamples) {}

  ~Worker() {
    session.release(state.referenceSet);
    session.release(state.candidateSet);
    if (flush)
      session.api().cuMemFree(flush);
  }

  /// Handles one command; returns an exit code when the worker must stop.
  std::optional<int> handle(const Json &command) {
    std::string op = command.value("op", "");
    if (op == "quit")
      return kExitDone;
    uint64_t seed = command.value("seed", bundle.seed);
    if (op == "check")
      return check(command.value("shape", 0), command.value("variant", 0),
                   command.value("candidate", 0), seed);
    if (op == "time")
      return time(command.value("candidate", 0),
                  command.value("shape", static_cast<int>(
                                             timingShapeIndex(bundle))),
                  seed);
    referenceError("unknown command '" + op + "'");
    return kExitBadArguments;
  }

private:
  /// The parameter bytes `object` declares: the bundle's, then its tensor
  /// maps.
  std::vector<unsigned> paramSizes(const KernelObject &object) const {
    return kernelParamSizes(bundle, object);
  }

  void referenceError(const std::string &message) {
    OrderedJson event;
    event["event"] = "reference-error";
    event["message"] = message;
    sendMessage(event);
  }

  void phase(const char *who) {
    OrderedJson event;
    event["event"] = "phase";
    event["who"] = who;
    sendMessage(event);
  }

  /// Builds plan, inputs, images and allocations for (shape, variant),
  /// the pointers placed as checks (Stated) or timing (Allocator) want.
  bool prepare(int shape, int variant, uint64_t seed, std::string &error,
               Placement placement = Placement::Stated) {
    if (state.shape == shape && state.variant == variant &&
        state.seed == seed && state.plan.placement == placement)
      return true;
    session.release(state.referenceSet);
    session.release(state.candidateSet);
    state = ShapeState();
    auto plan = planShape(bundle, static_cast<size_t>(shape),
                          static_cast<unsigned>(variant), kGuardBytes,
                          placement);
    if (!plan) {
      error = plan.error();
      return false;
    }
    state.plan = plan.take();
    auto inputs = generateInputs(bundle, state.plan, seed);
    if (!inputs) {
      error = inputs.error();
      return false;
    }
    state.inputs = inputs.take();
    state.imagesA = buildRunImages(state.plan, state.inputs, 0);
    state.imagesB = buildRunImages(state.plan, state.inputs, 1);
    DeviceStatus status = session.allocate(state.plan, state.referenceSet);
    if (status.ok())
      status = session.allocate(state.plan, state.candidateSet);
    if (!status.ok()) {
      error = status.details;
      return false;
    }
    state.shape = shape;
    state.variant = variant;
    state.seed = seed;
    return true;
  }

  /// The plan of the timing shape, whose launches resources are measured
  /// at; null if it cannot be planned (a validated bundle always can).
  const ShapePlan *timingShapePlan() {
    if (!timingPlanTried) {
      timingPlanTried = true;
      auto plan = planShape(bundle, timingShapeIndex(bundle), 0);
      if (plan)
        timingPlan = plan.take();
    }
    return timingPlan ? &*timingPlan : nullptr;
  }

  /// Measures a kernel that just loaded (candidate < 0: the reference) and
  /// sends what the driver answered. Measurements never fail a verdict.
  void reportResources(const DeviceSession::Kernel &kernel, int candidate) {
    const ShapePlan *plan = timingShapePlan();
    if (!plan)
      return;
    const LaunchDims &dims = candidate < 0 ? plan->referenceLaunch
                                           : plan->candidateLaunches[candidate];
    KernelResources resources = session.measureResources(kernel, dims);
    bool measured = resources.registers || resources.localBytes ||
                    resources.staticSharedBytes ||
                    resources.maxThreadsPerBlock || resources.blocksPerSm;
    if (!measured)
      return;
    OrderedJson event;
    event["event"] = "resources";
    event["who"] = candidate < 0 ? "reference" : "candidate";
    if (candidate >= 0)
      event["candidate"] = candidate;
    event["resources"] = kernelResourcesJson(resources);
    sendMessage(event);
  }

  bool referenceKernel(DeviceSession::Kernel &kernel, std::string &error) {
    if (!referenceLoaded) {
      DeviceStatus status =
          session.loadKernel(bundle.reference.ptx, bundle.reference.entry,
                             paramSizes(bundle.reference), reference);
      if (!status.ok()) {
        error = "the reference does not load: " + status.details;
        return false;
      }
      referenceLoaded = true;
      reportResources(reference, -1);
    }
    kernel = reference;
    return true;
  }

  DeviceStatus candidateKernel(int index, DeviceSession::Kernel &kernel) {
    auto it = candidates.find(index);
    if (it == candidates.end()) {
      DeviceSession::Kernel loaded;
      const KernelObject &object = bundle.candidates[index];
      DeviceStatus status = session.loadKernel(
          object.ptx, object.entry, paramSizes(object), loaded);
      loaded.tensorMaps = object.tensorMaps;
      it = candidates.emplace(index, std::make_pair(loaded, status)).first;
      if (status.ok())
        reportResources(loaded, index);
    }
    kernel = it->second.first;
    return it->second.second;
  }

  ShapeResult baseResult(const std::string &check) const {
    ShapeResult result;
    result.shape = state.plan.bindings;
    result.shapeIndex = state.plan.shapeIndex;
    result.offsets = state.plan.nonZeroOffsets();
    result.offset = state.plan.offsetVariant ? kNonZeroOffset : 0;
    result.check = check;
    return result;
  }

  void sendResult(const ShapeResult &result, bool exiting) {
    OrderedJson event;
    event["event"] = "result";
    event["shape_result"] = shapeResultJson(result);
    event["exiting"] = exiting;
    sendMessage(event);
  }

  /// A candidate's run failed: report and tell whether the worker must exit.
  std::optional<int> candidateFailed(ShapeResult result,
                                     const DeviceStatus &status) {
    result.verdict = status.verdict;
    result.details = status.details;
    sendResult(result, status.sticky);
    if (status.sticky)
      return kExitSticky;
    return std::nullopt;
  }

  /// Runs the reference on the reference set with `images`; on failure
  /// reports a reference error.
  std::optional<int>
  runReference(const std::vector<std::vector<uint8_t>> &images,
               std::vector<std::vector<uint8_t>> &readBack,
               ShapeChecker &checker, const char *run) {
    std::string error;
    DeviceSession::Kernel kernel;
    phase("reference");
    if (!referenceKernel(kernel, error)) {
      referenceError(error);
      return kExitReferenceFailed;
    }
    DeviceStatus status = session.upload(state.referenceSet, images);
    if (status.ok())
      status = session.launch(kernel, state.plan.referenceLaunch, state.plan,
                              state.referenceSet);
    if (status.ok())
      status = session.download(state.referenceSet, readBack);
    if (!status.ok()) {
      referenceError("the reference failed (" + std::string(run) +
                     "): " + status.details);
      return status.sticky ? kExitSticky : kExitReferenceFailed;
    }
    for (size_t b = 0; b < state.plan.buffers.size(); ++b)
      checker.checkIntegrity(b, images[b].data(), readBack[b].data(), run);
    return std::nullopt;
  }

  std::optional<int> referenceIntegrity(const ShapeChecker &checker) {
    const CheckFindings &findings = checker.findings();
    if (findings.outOfBounds || findings.inputModified) {
      std::string message = "the reference itself " + findings.summary();
      auto examples = findings.examples(1);
      if (!examples.empty())
        message += " (buffer '" + examples.front().buffer + "')";
      message += ": the bundle's roles or layouts are wrong";
      referenceError(message);
      return kExitReferenceFailed;
    }
    return std::nullopt;
  }

  std::optional<int> check(int shape, int variant, int candidate,
                           uint64_t seed) {
    std::string error;
    phase("prepare");
    if (!prepare(shape, variant, seed, error)) {
      referenceError("cannot prepare shape " + std::to_string(shape) + ": " +
                     error);
      return kExitReferenceFailed;
    }
    const ShapePlan &plan = state.plan;
    ShapeResult result = baseResult("execution");
    DeviceSession::Kernel kernel;
    phase("candidate"); // loading runs the driver's JIT on candidate PTX
    DeviceStatus status = candidateKernel(candidate, kernel);
    if (!status.ok())
      return candidateFailed(result, status);
    const LaunchDims &dims = plan.candidateLaunches[candidate];

    ShapeChecker checker(bundle, plan, maxExamples);
    ShapeChecker referenceChecker(bundle, plan, maxExamples);
    // Read-back images live in the worker so that large shapes do not
    // allocate (and fault in) fresh gigabytes for every entry.
    auto &candidateA = readBack[0], &candidateB = readBack[1],
         &referenceA = readBack[2], &referenceB = readBack[3],
         &referenceAfter = readBack[4];

    // Run A: candidate first, outputs poisoned with poison 0.
    status = session.upload(state.candidateSet, state.imagesA);
    if (status.ok()) {
      phase("candidate");
      status = session.launch(kernel, dims, plan, state.candidateSet);
    }
    if (status.ok())
      status = session.download(state.candidateSet, candidateA);
    if (!status.ok())
      return candidateFailed(result, status);
    for (size_t b = 0; b < plan.buffers.size(); ++b)
      checker.checkIntegrity(b, state.imagesA[b].data(), candidateA[b].data(),
                             "candidate-first");
    if (auto exit = runReference(state.imagesA, referenceA, referenceChecker,
                                 "candidate-first"))
      return exit;

    // Run B: reference first, poison 1.
    if (auto exit = runReference(state.imagesB, referenceB, referenceChecker,
                                 "reference-first"))
      return exit;
    if (auto exit = referenceIntegrity(referenceChecker))
      return exit;
    status = session.upload(state.candidateSet, state.imagesB);
    if (status.ok()) {
      phase("candidate");
      status = session.launch(kernel, dims, plan, state.candidateSet);
    }
    if (status.ok())
      status = session.download(state.candidateSet, candidateB);
    // A write far outside the candidate's own buffers may land in the
    // reference's, which must still hold what the reference left there.
    if (status.ok())
      status = session.download(state.referenceSet, referenceAfter);
    if (!status.ok())
      return candidateFailed(result, status);
    // The comparisons run on the CPU: a phase of their own, so a slow one
    // at a large shape is never charged to the candidate.
    phase("compare");
    for (size_t b = 0; b < plan.buffers.size(); ++b) {
      checker.checkIntegrity(b, state.imagesB[b].data(), candidateB[b].data(),
                             "reference-first");
      if (referenceAfter[b] != referenceB[b]) {
        uint64_t changed = 0;
        for (size_t i = 0; i < referenceAfter[b].size(); ++i)
          changed += referenceAfter[b][i] != referenceB[b][i];
        checker.findings().outOfBounds += changed;
        ElementReport report;
        report.buffer = "reference's " + plan.buffers[b].name;
        report.kind = "out-of-bounds-write";
        report.run = "reference-first";
        report.expected = "unchanged";
        report.got = std::to_string(changed) + " bytes changed";
        checker.findings().outOfBoundsExamples.push_back(report);
      }
    }

    for (size_t b = 0; b < plan.buffers.size(); ++b) {
      const BufferLayout &layout = plan.buffers[b];
      if (layout.role != BufferRole::Output && layout.role != BufferRole::InOut)
        continue;
      std::vector<uint8_t> scratch[4];
      checker.compareOutput(b, packed(layout, referenceA[b], scratch[0]),
                            packed(layout, referenceB[b], scratch[1]),
                            packed(layout, candidateA[b], scratch[2]),
                            packed(layout, candidateB[b], scratch[3]));
    }
    const CheckFindings &findings = checker.findings();
    result.verdict = findings.verdict();
    result.mismatches = findings.examples(maxExamples);
    result.details = findings.summary();
    sendResult(result, false);
    return std::nullopt;
  }

  /// Times the candidate against the reference at the timing shape, then
  /// checks it once more on fresh outputs. The buffers sit where a
  /// program's allocator puts them (Placement::Allocator); every other
  /// check has them at the edge of the stated alignment.
  std::optional<int> time(int candidate, int shape, uint64_t seed) {
    std::string error;
    phase("prepare");
    if (!prepare(shape, 0, seed, error, Placement::Allocator)) {
      referenceError("cannot prepare the timing shape: " + error);
      return kExitReferenceFailed;
    }
    ShapeResult result = baseResult("after-timing");
    TimedKernels kernels;
    if (std::optional<int> stop = loadTimedKernels(candidate, result, kernels))
      return commandEnd(*stop);
    phase("prepare");
    // Twice the L2, so that every timed run starts with a cold cache.
    uint64_t flushBytes = std::max<uint64_t>(2 * session.l2Bytes(), 8 << 20);
    if (!prepareTimedLaunches(flushBytes))
      return kExitReferenceFailed;

    // Both kernels run on the same buffers while timed: two allocations
    // can differ in speed by themselves (0.7% between two copies of the
    // reference was seen on an H200), which would be charged to the
    // candidate.
    DeviceStatus status = session.upload(state.candidateSet, state.imagesA);
    if (!status.ok())
      return candidateFailed(result, status);
    TimingSamples samples;
    if (std::optional<int> stop = measure(kernels, flushBytes, result, samples))
      return commandEnd(*stop);
    CandidateTiming timing = summarizeTiming(samples, flushBytes);
    if (std::optional<int> stop = checkAfterTiming(kernels, result))
      return commandEnd(*stop);

    OrderedJson event;
    event["event"] = "timing";
    event["timing"] = timingJson(timing);
    event["shape_result"] = shapeResultJson(result);
    sendMessage(event);
    return std::nullopt;
  }

  /// Loads both kernels of a timing command, the candidate first.
  std::optional<int> loadTimedKernels(int candidate, const ShapeResult &result,
                                      TimedKernels &kernels) {
    phase("candidate");
    DeviceStatus status = candidateKernel(candidate, kernels.candidate);
    if (!status.ok())
      return candidateFailed(result, status).value_or(kAnswered);
    phase("reference");
    std::string error;
    if (!referenceKernel(kernels.reference, error)) {
      referenceError(error);
      return kExitReferenceFailed;
    }
    kernels.candidateDims = &state.plan.candidateLaunches[candidate];
    kernels.referenceDims = &state.plan.referenceLaunch;
    return std::nullopt;
  }

  /// The L2 flush buffer and the stream of timed launches, made once per
  /// worker; false (the reference error sent) when the buffer cannot be
  /// allocated. Without a stream of its own, timing uses the default one.
  bool prepareTimedLaunches(uint64_t flushBytes) {
    const CudaDriverApi &api = session.api();
    if (!flush) {
      cu::Result allocated = api.cuMemAlloc(&flush, flushBytes);
      if (allocated != cu::SUCCESS) {
        referenceError("cannot allocate the L2 flush buffer: " +
                       api.describe(allocated));
        return false;
      }
    }
    if (!stream && api.cuStreamCreate(&stream, 0) != cu::SUCCESS)
      stream = nullptr;
    return true;
  }

  /// Three warm-up pairs, then as many timed pairs as the bundle's time
  /// budget allows (at least its minimum number of runs, at most 1000).
  std::optional<int> measure(const TimedKernels &kernels, uint64_t flushBytes,
                             const ShapeResult &result,
                             TimingSamples &samples) {
    TimedLauncher launcher(session, state.plan, state.candidateSet, flush,
                           flushBytes, stream);
    using Clock = std::chrono::steady_clock;
    auto warmStart = Clock::now();
    const unsigned warmUp = 3;
    for (unsigned run = 0; run < warmUp; ++run)
      if (std::optional<int> stop =
              timedPair(launcher, kernels, run, result, nullptr))
        return stop;
    double pairMs =
        std::chrono::duration<double, std::milli>(Clock::now() - warmStart)
            .count() /
        warmUp;
    unsigned runs = bundle.timing.minRuns;
    if (pairMs > 0) {
      double fit = bundle.timing.maxMs / pairMs;
      if (fit > runs)
        runs = static_cast<unsigned>(std::min(fit, 1000.0));
    }
    // An odd count: the last pair runs the candidate last, and its outputs
    // are checked after the timed runs.
    runs |= 1;
    for (unsigned run = 0; run < runs; ++run)
      if (std::optional<int> stop =
              timedPair(launcher, kernels, run, result, &samples))
        return stop;
    return std::nullopt;
  }

  /// One timed launch of each kernel, interleaved, alternating which goes
  /// first; their times go to `samples` when given.
  std::optional<int> timedPair(TimedLauncher &launcher,
                               const TimedKernels &kernels, unsigned run,
                               const ShapeResult &result,
                               TimingSamples *samples) {
    for (int slot = 0; slot < 2; ++slot) {
      bool isCandidate = (run % 2 == 0) == (slot == 1);
      float ms = 0;
      phase(isCandidate ? "candidate" : "reference");
      DeviceStatus launched =
          isCandidate ? launcher.launch(kernels.candidate,
                                        *kernels.candidateDims, run, ms)
                      : launcher.launch(kernels.reference,
                                        *kernels.referenceDims, run, ms);
      if (!launched.ok()) {
        if (!isCandidate) {
          referenceError("the reference failed while timing: " +
                         launched.details);
          return launched.sticky ? kExitSticky : kExitReferenceFailed;
        }
        return candidateFailed(result, launched).value_or(kAnswered);
      }
      if (samples)
        (isCandidate ? samples->candidateMs : samples->referenceMs)
            .push_back(ms);
    }
    return std::nullopt;
  }

  CandidateTiming summarizeTiming(const TimingSamples &samples,
                                  uint64_t flushBytes) const {
    const ShapePlan &plan = state.plan;
    CandidateTiming timing;
    timing.shapeIndex = plan.shapeIndex;
    timing.shape = plan.bindings;
    timing.referenceMs = summarize(samples.referenceMs);
    timing.candidateMs = summarize(samples.candidateMs);
    timing.speedup = estimateSpeedup(samples.referenceMs, samples.candidateMs);
    timing.l2FlushBytes = flushBytes;
    if (plan.placement == Placement::Allocator)
      timing.baseAlignment = kMaxAlignment;
    timing.setWork(plan.compulsoryBytes(), plan.flops);
    return timing;
  }

  /// Correctness again, after a thousand launches: the outputs of the last
  /// timed run (the candidate's, poisoned before it), then a fresh run of
  /// both on newly poisoned outputs (a candidate that keeps state between
  /// launches shows here). The verdict goes into `result`.
  std::optional<int> checkAfterTiming(const TimedKernels &kernels,
                                      ShapeResult &result) {
    const ShapePlan &plan = state.plan;
    ShapeChecker checker(bundle, plan, maxExamples);
    auto &candidateImages = readBack[0], &timedImages = readBack[1],
         &referenceImages = readBack[2];
    DeviceStatus status = session.download(state.candidateSet, timedImages);
    if (status.ok())
      status = session.upload(state.candidateSet, state.imagesB);
    if (status.ok())
      status = session.upload(state.referenceSet, state.imagesB);
    if (status.ok()) {
      phase("candidate");
      status = session.launch(kernels.candidate, *kernels.candidateDims, plan,
                              state.candidateSet);
    }
    if (status.ok())
      status = session.download(state.candidateSet, candidateImages);
    if (!status.ok())
      return candidateFailed(result, status).value_or(kAnswered);
    phase("reference");
    status = session.launch(kernels.reference, *kernels.referenceDims, plan,
                            state.referenceSet);
    if (status.ok())
      status = session.download(state.referenceSet, referenceImages);
    if (!status.ok()) {
      referenceError("the reference failed after timing: " + status.details);
      return status.sticky ? kExitSticky : kExitReferenceFailed;
    }
    phase("compare");
    for (size_t b = 0; b < plan.buffers.size(); ++b) {
      const BufferLayout &layout = plan.buffers[b];
      checker.checkIntegrity(b, state.imagesB[b].data(),
                             candidateImages[b].data(), "after-timing");
      if (layout.role == BufferRole::Output ||
          layout.role == BufferRole::InOut) {
        std::vector<uint8_t> scratch[3];
        const uint8_t *reference = packed(layout, referenceImages[b], scratch[0]);
        checker.compareSingleRun(b, 1, reference,
                                 packed(layout, candidateImages[b], scratch[1]),
                                 "after-timing");
        // An inout changes with every run; an output holds the last run's.
        if (layout.role == BufferRole::Output)
          checker.compareSingleRun(b, 1, reference,
                                   packed(layout, timedImages[b], scratch[2]),
                                   "timed-runs");
      }
    }
    const CheckFindings &findings = checker.findings();
    result.verdict = findings.verdict();
    result.mismatches = findings.examples(maxExamples);
    result.details = findings.summary();
    return std::nullopt;
  }

  /// The packed elements of an image: in place when contiguous.
  static const uint8_t *packed(const BufferLayout &layout,
                               const std::vector<uint8_t> &image,
                               std::vector<uint8_t> &scratch) {
    if (layout.contiguous)
      return image.data() + layout.firstElementByteOffset();
    scratch = gatherElements(layout, image.data());
    return scratch.data();
  }

  const VerificationBundle &bundle;
  DeviceSession &session;
  size_t maxExamples;
  ShapeState state;
  std::vector<std::vector<uint8_t>> readBack[5];
  bool referenceLoaded = false;
  DeviceSession::Kernel reference;
  std::map<int, std::pair<DeviceSession::Kernel, DeviceStatus>> candidates;
  bool timingPlanTried = false;
  std::optional<ShapePlan> timingPlan;
  cu::DevicePtr flush = 0;
  cu::Stream stream = nullptr;
};

int runWorker(const ChildArguments &args) {
  auto bundle = readBundleFile(args.bundlePath);
  if (!bundle) {
    OrderedJson event;
    event["event"] = "fatal";
    event["message"] = bundle.error();
    sendMessage(event);
    return kExitBadArguments;
  }
  auto session =
      DeviceSession::open(cudaLibraryPath(args.library), args.device);
  if (!session) {
    OrderedJson event;
    event["event"] = "fatal";
    event["message"] = session.error();
    sendMessage(event);
    return kExitNoDevice;
  }
  Worker worker(*bundle, **session, args.maxExamples);
  OrderedJson ready;
  ready["event"] = "ready";
  sendMessage(ready);
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty())
      continue;
    std::string error;
    std::optional<Json> command = parseJsonText(line, error);
    if (!command) {
      OrderedJson event;
      event["event"] = "fatal";
      event["message"] = "bad command: " + error;
      sendMessage(event);
      return kExitBadArguments;
    }
    if (auto exit = worker.handle(*command))
      return *exit;
  }
  return kExitDone;
}

int runSanitizerTarget(const ChildArguments &args) {
  auto bundle = readBundleFile(args.bundlePath);
  if (!bundle) {
    std::fprintf(stderr, "llmptx-runner: %s\n", bundle.error().c_str());
    return kExitBadArguments;
  }
  // Tight allocations: memcheck only sees accesses outside an allocation.
  auto plan = planShape(*bundle, static_cast<size_t>(args.shape),
                        static_cast<unsigned>(args.variant), 0);
  if (!plan) {
    std::fprintf(stderr, "llmptx-runner: %s\n", plan.error().c_str());
    return kExitBadArguments;
  }
  auto inputs = generateInputs(*bundle, *plan);
  if (!inputs) {
    std::fprintf(stderr, "llmptx-runner: %s\n", inputs.error().c_str());
    return kExitBadArguments;
  }
  auto session =
      DeviceSession::open(cudaLibraryPath(args.library), args.device);
  if (!session) {
    std::fprintf(stderr, "llmptx-runner: %s\n", session.error().c_str());
    return kExitNoDevice;
  }
  bool isReference = args.candidate < 0;
  if (!isReference &&
      args.candidate >= static_cast<int>(bundle->candidates.size())) {
    std::fprintf(stderr, "llmptx-runner: no candidate %d\n", args.candidate);
    return kExitBadArguments;
  }
  const KernelObject &object =
      isReference ? bundle->reference : bundle->candidates[args.candidate];
  DeviceSession::Kernel kernel;
  DeviceStatus status = (*session)->loadKernel(
      object.ptx, object.entry, kernelParamSizes(*bundle, object), kernel);
  kernel.tensorMaps = object.tensorMaps;
  DeviceSession::BufferSet set;
  if (status.ok())
    status = (*session)->allocate(*plan, set);
  if (status.ok())
    status = (*session)->upload(set, buildRunImages(*plan, *inputs, 0));
  if (status.ok())
    status = (*session)->launch(kernel,
                                isReference
                                    ? plan->referenceLaunch
                                    : plan->candidateLaunches[args.candidate],
                                *plan, set);
  if (!status.ok()) {
    std::fprintf(stderr, "llmptx-runner: %s: %s\n", verdictName(status.verdict),
                 status.details.c_str());
    return kExitKernelFailed;
  }
  (*session)->release(set);
  return kExitDone;
}

} // namespace

bool llmptx::runtime::isChildInvocation(const std::vector<std::string> &args) {
  return !args.empty() &&
         (args[0] == "--child" || args[0] == "--child-sanitize");
}

int llmptx::runtime::runChildProcess(const std::vector<std::string> &args) {
  try {
    ChildArguments parsed;
    std::string error;
    if (!parseChildArguments(args, parsed, error)) {
      std::fprintf(stderr, "llmptx-runner: %s\n", error.c_str());
      return kExitBadArguments;
    }
    if (parsed.mode == "--child")
      return runWorker(parsed);
    return runSanitizerTarget(parsed);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "llmptx-runner: internal error: %s\n", e.what());
    return kExitBadArguments;
  }
}
