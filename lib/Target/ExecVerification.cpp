//===- ExecVerification.cpp - Verify candidates by execution ----*- C++ -*-===//
//
// The bundle says only what the module states: memref types and layouts,
// which arguments are written, the harness's sizes and grid, the host's
// constant launches and known_block_size. What is missing is named, never
// guessed.
//
//===----------------------------------------------------------------------===//

#include "ExecVerification.h"

#include "llmptx/Runtime/Results.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using namespace llmptx;

static std::string argName(unsigned index) {
  return "arg" + std::to_string(index);
}

static std::string number(int64_t value) { return std::to_string(value); }

std::vector<runtime::SizeBindings>
llmptx::defaultShapes(const std::vector<std::string> &sizes) {
  // Rows of values for up to three sizes; each row mixes 1, primes and
  // non-multiples of 32/128/256, the last row is large.
  static const int64_t table[][3] = {
      {1, 1, 1},      {7, 13, 5},       {97, 31, 17},        {257, 130, 65},
      {1000, 61, 33}, {4099, 521, 129}, {1048583, 1031, 263}};
  const int64_t cap = int64_t(1) << 24;
  std::vector<runtime::SizeBindings> shapes;
  for (const auto &row : table) {
    runtime::SizeBindings binding;
    int64_t product = 1;
    for (auto [index, size] : llvm::enumerate(sizes)) {
      int64_t value = row[index % 3];
      // A single size takes the large value; several sizes keep the product
      // under the cap.
      product *= value;
      binding[size] = value;
    }
    if (product > cap)
      continue;
    shapes.push_back(std::move(binding));
  }
  return shapes;
}

std::vector<std::string> llmptx::splitHarnessDims(llvm::StringRef text) {
  std::vector<std::string> dims;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    char c = i < text.size() ? text[i] : ',';
    if (c == '(')
      ++depth;
    else if (c == ')')
      --depth;
    else if (c == ',' && depth == 0) {
      llvm::StringRef part = text.slice(start, i).trim();
      if (!part.empty())
        dims.push_back(part.str());
      start = i + 1;
    }
  }
  return dims;
}

static std::string scalarType(const std::string &element) {
  if (element == "i1")
    return "u8";
  return element;
}

std::string LaunchConfig::str() const {
  return llvm::formatv("grid ({0}), block ({1}, {2}, {3})",
                       llvm::join(grid, ", "), block[0], block[1], block[2])
      .str();
}

static runtime::LaunchSpec launchSpec(const LaunchConfig &launch) {
  runtime::LaunchSpec spec;
  spec.grid = launch.grid;
  for (unsigned i = 0; i < 3; ++i)
    spec.block[i] = number(launch.block[i]);
  return spec;
}

std::vector<runtime::SizeBindings>
llmptx::bundleShapes(const KernelDescription &kernel) {
  const HarnessFacts *harness = kernel.harness ? &*kernel.harness : nullptr;
  if (!harness || harness->sizes.empty())
    return {runtime::SizeBindings()};
  std::vector<runtime::SizeBindings> shapes;
  if (!harness->shapes.empty()) {
    for (const std::vector<int64_t> &values : harness->shapes) {
      runtime::SizeBindings binding;
      for (auto [index, size] : llvm::enumerate(harness->sizes))
        binding[size] = values[index];
      shapes.push_back(std::move(binding));
    }
    return shapes;
  }
  // Stated divisibility: each size becomes the smallest multiple of its
  // divisor at least as large, so the smallest legal size is tested and no
  // size beyond the facts is.
  for (runtime::SizeBindings &shape : defaultShapes(harness->sizes)) {
    for (const auto &[size, divisor] : harness->divisible)
      shape[size] = (shape[size] + divisor - 1) / divisor * divisor;
    if (!llvm::is_contained(shapes, shape))
      shapes.push_back(std::move(shape));
  }
  return shapes;
}

std::optional<LaunchConfig>
llmptx::referenceLaunch(const KernelDescription &kernel, std::string &missing) {
  const HarnessFacts *harness = kernel.harness ? &*kernel.harness : nullptr;
  const ConstantLaunch *host =
      kernel.hostLaunch ? &*kernel.hostLaunch : nullptr;
  LaunchConfig launch;
  launch.block = kernel.blockSize;
  if (!launch.block[0] && harness && harness->block[0])
    launch.block = harness->block;
  if (!launch.block[0] && host)
    launch.block = host->block;
  if (!launch.block[0]) {
    missing = "no block size: set known_block_size on the gpu.func or "
              "block in the harness";
    return std::nullopt;
  }
  if (harness && harness->hasGrid) {
    launch.grid = harness->grid;
  } else if (kernel.gridSize[0]) {
    for (unsigned i = 0; i < 3; ++i)
      launch.grid[i] = number(kernel.gridSize[i]);
  } else if (host) {
    for (unsigned i = 0; i < 3; ++i)
      launch.grid[i] = number(host->grid[i]);
  } else {
    missing = "no grid: give grid in the harness as expressions of the sizes";
    return std::nullopt;
  }
  return launch;
}

std::optional<runtime::VerificationBundle>
llmptx::buildBundle(const KernelDescription &kernel, llvm::StringRef chip,
                    llvm::StringRef referencePtx,
                    const std::vector<const Candidate *> &candidates,
                    std::string &missing) {
  if (kernel.args.empty() && !kernel.abi.params.empty()) {
    missing = "the kernel's signature was not recorded (run "
              "llmgen-record-kernels before the NVVM lowering, as llm-lower "
              "does)";
    return std::nullopt;
  }
  const HarnessFacts *harness = kernel.harness ? &*kernel.harness : nullptr;
  const ConstantLaunch *host =
      kernel.hostLaunch ? &*kernel.hostLaunch : nullptr;
  if (!harness && !host) {
    missing = "no launch facts: put #llmgen.harness<sizes = ..., args = ..., "
              "grid = ...> on the gpu.func or launch it from host code with "
              "constant sizes";
    return std::nullopt;
  }

  runtime::VerificationBundle bundle;
  bundle.kernel = kernel.name;
  bundle.chip = chip.str();
  if (harness)
    bundle.sizes = harness->sizes;
  bundle.shapes = bundleShapes(kernel);
  if (harness)
    bundle.timing.flops = harness->flops;

  // Buffers: one per memref argument.
  for (auto [index, arg] : llvm::enumerate(kernel.args)) {
    if (!arg.isMemref)
      continue;
    runtime::BufferSpec buffer;
    buffer.name = argName(index);
    std::optional<runtime::ElementType> element =
        runtime::parseElementType(arg.element);
    if (!element) {
      missing = llvm::formatv("%arg{0} has an element type the runner does "
                              "not support ({1})",
                              index, arg.mlirType);
      return std::nullopt;
    }
    buffer.element = *element;
    std::vector<std::string> dynamicDims;
    if (harness && index < harness->args.size())
      dynamicDims = splitHarnessDims(harness->args[index]);
    unsigned nextDynamic = 0;
    for (auto [dim, size] : llvm::enumerate(arg.shape)) {
      if (size >= 0) {
        buffer.shape.push_back(number(size));
        continue;
      }
      if (nextDynamic >= dynamicDims.size() && host &&
          index < host->memrefShapes.size() &&
          dim < host->memrefShapes[index].size()) {
        // The host allocates it with a constant size.
        buffer.shape.push_back(number(host->memrefShapes[index][dim]));
        continue;
      }
      if (nextDynamic >= dynamicDims.size()) {
        missing = llvm::formatv("no size for dynamic dimension {0} of %arg{1} "
                                "({2}): list it in the harness's args",
                                dim, index, arg.mlirType);
        return std::nullopt;
      }
      buffer.shape.push_back(dynamicDims[nextDynamic++]);
    }
    if (!arg.strides.empty()) {
      // Static strides are the layout's. Dynamic ones are tested with a gap:
      // the innermost dynamic stride is 2, outer ones span the dimension
      // inside them, so a candidate that assumes a contiguous view writes
      // into the gaps, which the runner watches.
      buffer.strides.assign(arg.strides.size(), "1");
      for (size_t dim = arg.strides.size(); dim-- > 0;) {
        if (arg.strides[dim] >= 0) {
          buffer.strides[dim] = number(arg.strides[dim]);
          continue;
        }
        buffer.strides[dim] = dim + 1 == arg.strides.size()
                                  ? "2"
                                  : "(" + buffer.shape[dim + 1] + ") * (" +
                                        buffer.strides[dim + 1] + ")";
      }
      buffer.offset = arg.offset < 0 ? "any" : number(arg.offset);
    }
    bool output = arg.access == "write" || arg.access == "readwrite" ||
                  arg.access.empty();
    bool input = arg.access != "write";
    if (harness && !harness->outputs.empty()) {
      output = llvm::is_contained(harness->outputs, int64_t(index));
      input = !output || arg.access != "write";
    }
    buffer.role = output ? (input ? runtime::BufferRole::InOut
                                  : runtime::BufferRole::Output)
                         : runtime::BufferRole::Input;
    // Float inputs mix in NaN, infinities, -0, denormals and operands whose
    // results are denormal, so a candidate that flushes or drops NaN fails.
    if (buffer.role != runtime::BufferRole::Output &&
        runtime::isFloatType(buffer.element)) {
      runtime::InitRecipe recipe;
      recipe.kind = runtime::InitRecipe::Kind::Uniform;
      recipe.lo = -4;
      recipe.hi = 4;
      recipe.special = true;
      buffer.init = recipe;
    }
    // A stated value range replaces the default inputs: values across the
    // range, and no special values, which lie outside it.
    if (harness && buffer.role != runtime::BufferRole::Output)
      for (const auto &[argIndex, bounds] : harness->ranges) {
        if (argIndex != index)
          continue;
        runtime::InitRecipe recipe;
        bool isFloat = runtime::isFloatType(buffer.element);
        recipe.kind = isFloat ? runtime::InitRecipe::Kind::Uniform
                              : runtime::InitRecipe::Kind::RandInt;
        recipe.lo = bounds.first;
        recipe.hi = bounds.second;
        buffer.init = recipe;
      }
    // Tolerances compare outputs; inputs are checked unchanged, bit for bit.
    if (harness && buffer.role != runtime::BufferRole::Input) {
      if (harness->ulp)
        buffer.tolerance.ulp = *harness->ulp;
      if (harness->rel)
        buffer.tolerance.rel = *harness->rel;
      if (harness->abs)
        buffer.tolerance.abs = *harness->abs;
    }
    buffer.alignment =
        std::max<uint64_t>(arg.alignment, harness ? harness->align : 0);
    bundle.buffers.push_back(std::move(buffer));
  }

  // Parameters, in PTX order, from the ABI roles.
  for (const ptx::AbiParam &param : kernel.abi.params) {
    runtime::ParamSpec spec;
    spec.buffer = argName(param.argIndex);
    spec.dim = param.dim;
    switch (param.role) {
    case ptx::AbiRole::BarePointer:
      spec.role = runtime::ParamRole::BarePtr;
      break;
    case ptx::AbiRole::MemrefAllocatedPointer:
      spec.role = runtime::ParamRole::AllocatedPtr;
      break;
    case ptx::AbiRole::MemrefAlignedPointer:
      spec.role = runtime::ParamRole::AlignedPtr;
      break;
    case ptx::AbiRole::MemrefOffset:
      spec.role = runtime::ParamRole::Offset;
      break;
    case ptx::AbiRole::MemrefSize:
      spec.role = runtime::ParamRole::Size;
      break;
    case ptx::AbiRole::MemrefStride:
      spec.role = runtime::ParamRole::Stride;
      break;
    case ptx::AbiRole::Scalar: {
      spec.role = runtime::ParamRole::Scalar;
      spec.buffer.clear();
      const ArgumentInfo &arg = kernel.args[param.argIndex];
      spec.type = scalarType(arg.element);
      if (harness && param.argIndex < harness->args.size() &&
          !harness->args[param.argIndex].empty())
        spec.value = harness->args[param.argIndex];
      else if (host && param.argIndex < host->scalarValues.size())
        spec.value = host->scalarValues[param.argIndex];
      if (spec.value.empty() || spec.type.empty()) {
        missing = llvm::formatv("no value for scalar %arg{0} ({1}): give it "
                                "in the harness's args",
                                param.argIndex, arg.mlirType);
        return std::nullopt;
      }
      break;
    }
    }
    bundle.params.push_back(std::move(spec));
  }

  std::optional<LaunchConfig> launch = referenceLaunch(kernel, missing);
  if (!launch)
    return std::nullopt;
  bundle.launch = launchSpec(*launch);
  if (host)
    bundle.launch.dynamicSharedBytes = number(host->dynamicSharedBytes);

  bundle.reference.name = "nvptx";
  bundle.reference.entry = kernel.name;
  bundle.reference.ptx = referencePtx.str();
  for (const Candidate *candidate : candidates) {
    runtime::KernelObject object;
    object.name = candidate->name();
    object.entry = kernel.name;
    object.ptx = candidate->ptx;
    if (candidate->launch) {
      // Its own launch; dynamic shared memory stays the host's.
      object.launch = launchSpec(*candidate->launch);
      object.launch->dynamicSharedBytes = bundle.launch.dynamicSharedBytes;
    }
    bundle.candidates.push_back(std::move(object));
  }
  if (std::optional<std::string> invalid = runtime::validateBundle(bundle)) {
    missing = "the module's facts do not make a valid bundle: " + *invalid;
    return std::nullopt;
  }
  return bundle;
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

RunnerOutcome llmptx::runBundles(const std::vector<std::string> &bundlePaths,
                                 llvm::StringRef runnerCommand,
                                 llvm::StringRef workDir) {
  RunnerOutcome outcome;
  std::string command = runnerCommand.str();
  if (command.empty()) {
    std::string local = findLocalRunner();
    if (local.empty()) {
      outcome.message = "no llmptx-runner found (set runner= or "
                        "LLMPTX_RUNNER)";
      return outcome;
    }
    command = shellQuote(local);
  }
  llvm::SmallString<256> resultsPath(workDir);
  llvm::sys::path::append(resultsPath, "results.json");
  llvm::SmallString<256> logPath(workDir);
  llvm::sys::path::append(logPath, "runner.log");
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
  if (status == 2) {
    outcome.noDevice = true;
    outcome.message = log.empty() ? "the runner found no GPU" : log;
    return outcome;
  }
  if (status != 0) {
    outcome.message =
        llvm::formatv("the runner failed (exit status {0}{1}){2}", status,
                      error.empty() ? "" : ", " + error,
                      log.empty() ? std::string(" and said nothing")
                                  : ": " + log)
            .str();
    return outcome;
  }
  auto results = llvm::MemoryBuffer::getFile(resultsPath);
  if (!results) {
    outcome.message =
        "the runner wrote no results to " + resultsPath.str().str();
    return outcome;
  }
  outcome.ran = true;
  outcome.resultsJson = (*results)->getBuffer().str();
  return outcome;
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
    std::string shape;
    for (const auto &[size, value] : timing->shape)
      shape += llvm::formatv("{0}{1}={2}", shape.empty() ? "" : ", ", size,
                             value)
                   .str();
    const runtime::TimingStats &stats =
        reference ? timing->referenceMs : timing->candidateMs;
    os << llvm::formatv("time: {0:f4} ms median over {1} runs (p10 {2:f4}, "
                        "p90 {3:f4}) at ({4}), L2 flushed before each run\n",
                        stats.median, stats.runs, stats.p10, stats.p90, shape);
    std::optional<double> gbs =
        reference ? timing->referenceGbs : timing->candidateGbs;
    if (gbs && timing->bytes) {
      os << llvm::formatv("memory: {0:f0} GB/s of the {1} bytes it must move",
                          *gbs, *timing->bytes);
      if (double peak = device.memoryBandwidthGbs(); peak > 0)
        os << llvm::formatv(", {0:f0}% of the device's {1:f0} GB/s",
                            100 * *gbs / peak, peak);
      os << "\n";
    }
    std::optional<double> gflops =
        reference ? timing->referenceGflops : timing->candidateGflops;
    if (gflops) {
      os << llvm::formatv("compute: {0:f0} GFLOP/s", *gflops);
      if (double peak = device.fp32Gflops(); peak > 0)
        os << llvm::formatv(", {0:f0}% of the device's f32 peak of {1:f0} "
                            "GFLOP/s",
                            100 * *gflops / peak, peak);
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

std::string llmptx::applyResults(llvm::StringRef resultsJson,
                                 llvm::StringRef kernelName,
                                 std::vector<Candidate *> &candidates,
                                 std::string *referenceMeasurements) {
  runtime::ValueOrError<runtime::VerificationResults> parsed =
      runtime::parseResultsJson(
          std::string_view(resultsJson.data(), resultsJson.size()));
  if (!parsed)
    return "unreadable runner results: " + parsed.error();
  for (const runtime::BundleResult &bundle : parsed->bundles) {
    if (bundle.kernel != kernelName)
      continue;
    if (!bundle.error.empty())
      return "the reference failed its own run: " + bundle.error;
    if (referenceMeasurements) {
      const runtime::CandidateTiming *timing = nullptr;
      for (const runtime::CandidateResult &result : bundle.candidates)
        if (result.timing && !timing)
          timing = &*result.timing;
      *referenceMeasurements =
          describeMeasurements(timing, /*reference=*/true,
                               bundle.referenceResources, parsed->device);
    }
    for (const runtime::CandidateResult &result : bundle.candidates) {
      for (Candidate *candidate : candidates) {
        if (candidate->name() != result.name)
          continue;
        candidate->execVerdict = runtime::verdictName(result.verdict);
        for (const runtime::ShapeResult &shape : result.shapes) {
          if (shape.verdict == runtime::Verdict::Pass ||
              shape.verdict == runtime::Verdict::Skipped)
            continue;
          std::string where;
          for (const auto &[size, value] : shape.shape)
            where += llvm::formatv("{0}{1}={2}", where.empty() ? "" : ", ",
                                   size, value)
                         .str();
          // The first differing elements tell the model (and the user)
          // what went wrong.
          std::string examples;
          for (const runtime::ElementReport &element :
               llvm::ArrayRef(shape.mismatches).take_front(5)) {
            std::string index;
            for (int64_t i : element.index)
              index += (index.empty() ? "" : ", ") + std::to_string(i);
            examples += llvm::formatv("; {0}[{1}] expected {2}, got {3} "
                                      "({4}, {5})",
                                      element.buffer, index, element.expected,
                                      element.got, element.kind, element.run)
                            .str();
          }
          candidate->execDetails =
              llvm::formatv("{0} at shape ({1}) offset {2}: {3}{4}",
                            runtime::verdictName(shape.verdict), where,
                            shape.offset, shape.details, examples);
          break;
        }
        if (result.timing) {
          candidate->speedup = result.timing->speedup.speedup;
          candidate->spreadLo = result.timing->speedup.spreadLo;
          candidate->spreadHi = result.timing->speedup.spreadHi;
          if (result.timing->speedup.boundHi > 0) {
            candidate->boundLo = result.timing->speedup.boundLo;
            candidate->boundHi = result.timing->speedup.boundHi;
          }
          candidate->referenceMs = result.timing->referenceMs.median;
          candidate->candidateMs = result.timing->candidateMs.median;
          candidate->comparison = result.timing->speedup.comparison;
          candidate->suspicious = result.timing->speedup.suspicious;
        }
        candidate->measurements = describeMeasurements(
            result.timing ? &*result.timing : nullptr, /*reference=*/false,
            result.resources, parsed->device);
      }
    }
  }
  return {};
}
