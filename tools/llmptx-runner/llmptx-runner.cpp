//===- llmptx-runner.cpp - Runs verification bundles on a GPU -------------===//
//
// llmptx-runner BUNDLE.json... [-o results.json]
//
// Links neither LLVM nor MLIR nor libcuda (which is dlopen'ed), and
// libstdc++ statically, so the binary can be copied alone to a GPU machine.
// Exit status: 0 when every bundle ran (candidate verdicts are data, in the
// summary and the results), 1 for bad usage, an invalid bundle or a bundle
// whose reference failed, 2 when there is no usable GPU.
//
//===----------------------------------------------------------------------===//

#include "llmptx/Runtime/Bundle.h"
#include "llmptx/Runtime/CudaDriver.h"
#include "llmptx/Runtime/InputRecipe.h"
#include "llmptx/Runtime/Plan.h"
#include "llmptx/Runtime/PtxSignature.h"
#include "llmptx/Runtime/Results.h"
#include "llmptx/Runtime/Runner.h"
#include "llmptx/Support/FileIO.h"

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

using namespace llmptx::runtime;

static const char *kUsage =
    "usage: llmptx-runner [options] BUNDLE.json... [-o results.json]\n"
    "\n"
    "Runs the candidates of each verification bundle against its reference\n"
    "on the GPU and prints a summary (docs/verification.md).\n"
    "\n"
    "options:\n"
    "  -o FILE            write the results JSON to FILE\n"
    "  --probe            print the device (name, sm, L2, driver) and exit:\n"
    "                     0, or 2 with the reason when there is no GPU\n"
    "  --plan             check the bundles and print what would run; needs\n"
    "                     no GPU\n"
    "  --summarize        the arguments are results files: print their\n"
    "                     summaries (no GPU needed)\n"
    "  --no-timing        skip timing\n"
    "  --no-sass          skip SASS statistics (ptxas + nvdisasm, when found)\n"
    "  --ncu              also run each verified kernel once at the timing\n"
    "                     shape under Nsight Compute and keep its counters\n"
    "  --ncu-path PATH    the ncu to use (default: CUDA_HOME, CUDA_PATH,\n"
    "                     PATH, /usr/local/cuda)\n"
    "  --confirm          confirm every candidate that passed (fresh inputs on\n"
    "                     every shape, a second timed input set, memcheck and\n"
    "                     racecheck), not only those above the bundle's\n"
    "                     confirm_above\n"
    "  --sanitize         also run compute-sanitizer (memcheck, racecheck,\n"
    "                     initcheck) on small shapes when it is installed\n"
    "  --sanitizer PATH   the compute-sanitizer to use\n"
    "  --sanitize-max-elements N\n"
    "                     largest buffer size of a 'small' shape (65536)\n"
    "  --timeout SECONDS  watchdog per entry: one candidate on one shape (30)\n"
    "  --keep-going       run every entry even after a candidate failed\n"
    "  --device N         CUDA device ordinal (0)\n"
    "  --libcuda PATH     driver library to load (default $LLMPTX_LIBCUDA,\n"
    "                     else libcuda.so.1)\n"
    "  --verbose          print each entry's verdict to stderr as it finishes\n"
    "\n"
    "exit status: 0 every bundle ran, 1 bad usage or bundle or failing\n"
    "reference, 2 no usable GPU\n";

static std::string selfExecutable(const char *argv0) {
  char buffer[4096];
  ssize_t length = ::readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
  if (length > 0) {
    buffer[length] = '\0';
    return buffer;
  }
  return argv0;
}

/// Prints what would run; returns why the run would reject the bundle (the
/// reference does not fit the ABI, a shape cannot be laid out), or nothing.
static std::optional<std::string> printPlan(const BundleInput &input) {
  std::optional<std::string> rejection;
  const VerificationBundle &bundle = input.bundle;
  std::printf("bundle %s: kernel %s, chip %s, %zu shapes, %u offset "
              "variant(s), reference %s, %zu candidate(s)\n",
              input.path.c_str(), bundle.kernel.c_str(),
              bundle.chip.empty() ? "-" : bundle.chip.c_str(),
              bundle.shapes.size(), offsetVariantCount(bundle),
              bundle.reference.name.c_str(), bundle.candidates.size());
  auto abi = [&](const KernelObject &kernel) -> std::string {
    auto entry = findPtxEntry(kernel.ptx, kernel.entry);
    if (!entry)
      return entry.error();
    if (auto mismatch = checkAbi(*entry, bundle, kernel))
      return *mismatch;
    return "ABI ok (" + std::to_string(entry->params.size()) + " params)";
  };
  std::string referenceAbi = abi(bundle.reference);
  std::printf("  reference %s: %s\n", bundle.reference.entry.c_str(),
              referenceAbi.c_str());
  if (referenceAbi.rfind("ABI ok", 0) != 0)
    rejection =
        "the reference does not match the bundle's ABI: " + referenceAbi;
  for (const KernelObject &candidate : bundle.candidates)
    std::printf("  candidate %s (%s): %s\n", candidate.name.c_str(),
                candidate.entry.c_str(), abi(candidate).c_str());
  for (size_t s = 0; s < bundle.shapes.size(); ++s)
    for (unsigned v = 0; v < offsetVariantCount(bundle); ++v) {
      auto plan = planShape(bundle, s, v);
      if (!plan) {
        std::printf("  shape %zu: %s\n", s, plan.error().c_str());
        if (!rejection)
          rejection = "shape " + std::to_string(s) + ": " + plan.error();
        continue;
      }
      std::printf("  shape %zu variant %u: %s; reference %s\n", s, v,
                  plan->describe(bundle).c_str(),
                  plan->referenceLaunch.describe().c_str());
      for (size_t c = 0; c < bundle.candidates.size(); ++c)
        if (bundle.candidates[c].launch)
          std::printf("    candidate %s: %s\n",
                      bundle.candidates[c].name.c_str(),
                      plan->candidateLaunches[c].describe().c_str());
      for (const BufferLayout &layout : plan->buffers)
        std::printf(
            "    %s %s %s: %llu elements, offset %lld, aligned "
            "pointer %% 256 = %llu, %s, %llu bytes allocated\n",
            bufferRoleName(layout.role), layout.name.c_str(),
            elementTypeName(layout.element),
            static_cast<unsigned long long>(layout.elementCount),
            static_cast<long long>(layout.offset),
            static_cast<unsigned long long>(layout.alignedByteOffset % 256),
            layout.contiguous ? "contiguous" : "strided",
            static_cast<unsigned long long>(layout.allocationBytes));
    }
  size_t timing = timingShapeIndex(bundle);
  std::string work;
  if (auto plan = planShape(bundle, timing, 0)) {
    work = ", " + std::to_string(plan->compulsoryBytes()) + " bytes moved";
    if (plan->flops)
      work += ", " + std::to_string(*plan->flops) + " flops";
  }
  std::string where =
      bundle.timing.production
          ? "the production shape " +
                formatShape(bundle, *bundle.timing.production) +
                " (and the largest checked, shape " +
                std::to_string(largestCheckedShapeIndex(bundle)) + ")"
          : "shape " + std::to_string(timing);
  std::printf("  timing: %s, at least %u runs, budget %g ms%s; confirmed "
              "above %gx\n",
              where.c_str(), bundle.timing.minRuns, bundle.timing.maxMs,
              work.c_str(), bundle.timing.confirmAbove);
  return rejection;
}

namespace {

/// What the command line asks for.
struct CommandLine {
  RunnerOptions options;
  std::vector<std::string> bundlePaths;
  std::string outputPath;
  bool probe = false, plan = false, verbose = false, summarize = false;
};

/// Reads the arguments in order. An option's value comes from the next
/// argument; a missing or malformed one is reported here, once.
class ArgumentReader {
public:
  explicit ArgumentReader(const std::vector<std::string> &args) : args(args) {}

  bool done() const { return next >= args.size(); }
  const std::string &take() { return args[next++]; }

  /// The value of `option`; false (after the message) when there is none.
  bool value(const std::string &option, std::string &out) {
    if (done()) {
      std::fprintf(stderr, "llmptx-runner: %s needs a value\n", option.c_str());
      return false;
    }
    out = take();
    return true;
  }

  /// A positive number as the value of `option`.
  bool positiveNumber(const std::string &option, double &out) {
    std::string text;
    if (!value(option, text))
      return false;
    char *end = nullptr;
    out = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end || !(out > 0)) {
      std::fprintf(stderr,
                   "llmptx-runner: %s needs a positive number, got "
                   "'%s'\n",
                   option.c_str(), text.c_str());
      return false;
    }
    return true;
  }

  /// A device ordinal (a non-negative integer) as the value of --device.
  bool deviceNumber(int &out) {
    std::string text;
    if (!value("--device", text))
      return false;
    char *end = nullptr;
    long device = std::strtol(text.c_str(), &end, 10);
    if (end == text.c_str() || *end || device < 0) {
      std::fprintf(stderr,
                   "llmptx-runner: --device needs a device number, "
                   "got '%s'\n",
                   text.c_str());
      return false;
    }
    out = static_cast<int>(device);
    return true;
  }

private:
  const std::vector<std::string> &args;
  size_t next = 0;
};

/// Whether an argument was an option that takes a value, and how it went.
enum class ValueOption { NotOne, Applied, BadValue };

/// Applies `arg` when it is an option that takes a value (or `-o`).
ValueOption readValueOption(const std::string &arg, ArgumentReader &reader,
                            CommandLine &command) {
  RunnerOptions &options = command.options;
  bool ok;
  if (arg == "-o") {
    ok = reader.value(arg, command.outputPath);
  } else if (arg == "--ncu-path") {
    ok = reader.value(arg, options.ncuPath);
  } else if (arg == "--sanitizer") {
    ok = reader.value(arg, options.sanitizerPath);
  } else if (arg == "--libcuda") {
    ok = reader.value(arg, options.cudaLibrary);
  } else if (arg == "--timeout") {
    ok = reader.positiveNumber(arg, options.timeoutSeconds);
  } else if (arg == "--device") {
    ok = reader.deviceNumber(options.device);
  } else if (arg == "--sanitize-max-elements") {
    double elements = 0;
    ok = reader.positiveNumber(arg, elements);
    if (ok)
      options.sanitizeMaxElements = static_cast<uint64_t>(elements);
  } else {
    return ValueOption::NotOne;
  }
  return ok ? ValueOption::Applied : ValueOption::BadValue;
}

/// Applies one switch; false when `arg` is none.
bool readSwitch(const std::string &arg, CommandLine &command) {
  RunnerOptions &options = command.options;
  if (arg == "--probe")
    command.probe = true;
  else if (arg == "--plan")
    command.plan = true;
  else if (arg == "--summarize")
    command.summarize = true;
  else if (arg == "--verbose")
    command.verbose = true;
  else if (arg == "--no-timing")
    options.timing = false;
  else if (arg == "--no-sass")
    options.sass = false;
  else if (arg == "--ncu")
    options.ncu = true;
  else if (arg == "--sanitize")
    options.sanitize = true;
  else if (arg == "--confirm")
    options.confirm = true;
  else if (arg == "--keep-going")
    options.keepGoing = true;
  else
    return false;
  return true;
}

/// Fills `command` from the arguments; the exit status when the program
/// ends here (help, bad usage).
std::optional<int> parseCommandLine(const std::vector<std::string> &args,
                                    CommandLine &command) {
  ArgumentReader reader(args);
  while (!reader.done()) {
    const std::string &arg = reader.take();
    if (arg == "-h" || arg == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    ValueOption read = readValueOption(arg, reader, command);
    if (read == ValueOption::BadValue)
      return 1;
    if (read == ValueOption::Applied || readSwitch(arg, command))
      continue;
    if (!arg.empty() && arg[0] == '-' && arg != "-") {
      std::fprintf(stderr, "llmptx-runner: unknown option %s\n%s", arg.c_str(),
                   kUsage);
      return 1;
    }
    command.bundlePaths.push_back(arg);
  }
  if (!command.probe && command.bundlePaths.empty()) {
    std::fputs(kUsage, stderr);
    return 1;
  }
  return std::nullopt;
}

/// --summarize: prints the summary of each results file.
int summarizeResultsFiles(const std::vector<std::string> &paths) {
  int status = 0;
  for (const std::string &path : paths) {
    std::string text;
    std::optional<std::string> problem =
        llmptx::untrusted::readRegularFile(path, text);
    auto results = problem ? ValueOrError<VerificationResults>(
                                 Failure{"cannot read the file: " + *problem})
                           : parseResultsJson(text);
    if (!results) {
      std::fprintf(stderr, "llmptx-runner: error: %s: %s\n", path.c_str(),
                   results.error().c_str());
      status = 1;
      continue;
    }
    std::fputs(formatSummary(*results).c_str(), stdout);
  }
  return status;
}

/// Reads every bundle, reporting each invalid one; false when any was.
bool readBundles(const std::vector<std::string> &paths,
                 std::vector<BundleInput> &bundles) {
  bool valid = true;
  for (const std::string &path : paths) {
    auto bundle = readBundleFile(path);
    if (!bundle) {
      std::fprintf(stderr, "llmptx-runner: error: %s\n",
                   bundle.error().c_str());
      valid = false;
      continue;
    }
    bundles.push_back({path, bundle.take()});
  }
  return valid;
}

/// --probe: the device, and its peaks where the driver reported what they
/// derive from.
void printDevice(int ordinal, const DeviceInfo &device) {
  std::printf("device %d: %s\nchip: %s\nmultiprocessors: %d\nL2: %llu "
              "bytes\nmemory: %llu bytes\ndriver: %s (%d)\n",
              ordinal, device.name.c_str(), device.chip().c_str(),
              device.multiprocessors,
              static_cast<unsigned long long>(device.l2Bytes),
              static_cast<unsigned long long>(device.memoryBytes),
              device.driverVersionText().c_str(), device.driverVersion);
  if (device.clockKhz > 0)
    std::printf("clock: %g MHz\n", device.clockKhz / 1000.0);
  if (device.memoryBandwidthGbs() > 0)
    std::printf("memory bandwidth: %.0f GB/s (%g MHz, %d-bit bus)\n",
                device.memoryBandwidthGbs(), device.memoryClockKhz / 1000.0,
                device.memoryBusBits);
  for (ComputeUnit unit : kComputeUnits)
    if (double peak = device.peakGflops(unit); peak > 0)
      std::printf("%s: %.0f %s\n", computeUnitName(unit), peak,
                  computeRateUnit(unit));
  if (device.maxThreadsPerSm > 0)
    std::printf("threads per SM: %d\n", device.maxThreadsPerSm);
}

/// Runs the bundles, prints the summary and writes the results file.
int runBundles(const std::vector<BundleInput> &bundles,
               const CommandLine &command, const DeviceInfo &device) {
  VerificationResults results =
      runVerification(bundles, command.options, device);
  std::fputs(formatSummary(results).c_str(), stdout);
  std::fflush(stdout);
  if (!command.outputPath.empty()) {
    if (auto problem = llmptx::untrusted::writeFileAtomically(
            command.outputPath, writeResultsJson(results))) {
      std::fprintf(stderr, "llmptx-runner: cannot write %s: %s\n",
                   command.outputPath.c_str(), problem->c_str());
      return 1;
    }
  }
  for (const BundleResult &bundle : results.bundles)
    if (!bundle.error.empty())
      return 1;
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (isChildInvocation(args))
    return runChildProcess(args);

  CommandLine command;
  if (std::optional<int> exit = parseCommandLine(args, command))
    return *exit;
  if (command.summarize)
    return summarizeResultsFiles(command.bundlePaths);

  // Bundles are checked before the GPU is looked for, so a bad bundle is
  // reported the same way on any machine.
  std::vector<BundleInput> bundles;
  if (!readBundles(command.bundlePaths, bundles))
    return 1;
  if (command.plan) {
    int status = 0;
    for (const BundleInput &input : bundles)
      if (std::optional<std::string> rejection = printPlan(input)) {
        std::fflush(stdout);
        std::fprintf(stderr, "llmptx-runner: error: %s: %s\n",
                     input.path.c_str(), rejection->c_str());
        status = 1;
      }
    return status;
  }

  RunnerOptions &options = command.options;
  options.cudaLibrary = cudaLibraryPath(options.cudaLibrary);
  auto device = probeCudaDevice(options.cudaLibrary, options.device);
  if (!device) {
    std::fprintf(stderr, "llmptx-runner: no usable GPU: %s\n",
                 device.error().c_str());
    return 2;
  }
  if (command.probe) {
    printDevice(options.device, *device);
    if (bundles.empty())
      return 0;
  }

  options.runnerExecutable = selfExecutable(argv[0]);
  if (command.verbose)
    options.progress = [](const std::string &line) {
      std::fprintf(stderr, "llmptx-runner: %s\n", line.c_str());
    };
  return runBundles(bundles, command, *device);
}
