//===- Results.h - Verification results -------------------------*- C++ -*-===//
//
// What llmptx-runner reports: per bundle, per candidate, per shape entry a
// verdict with the first mismatching elements, and timings. The compiler
// side reads these back with parseResultsJson to select a kernel.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_RUNTIME_RESULTS_H
#define LLMPTX_RUNTIME_RESULTS_H

#include "llmptx/Runtime/Comparison.h"
#include "llmptx/Runtime/Counters.h"
#include "llmptx/Runtime/Expression.h"
#include "llmptx/Runtime/Sass.h"
#include "llmptx/Runtime/Statistics.h"
#include "llmptx/Runtime/ValueOrError.h"
#include "llmptx/Runtime/Verdict.h"

#include "llmptx/Runtime/Sass.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace llmptx::runtime {

inline constexpr const char *kResultsFormat = "llmptx-verification-results";
inline constexpr unsigned kResultsVersion = 1;

/// The units whose peak a kernel's operations are compared with.
enum class ComputeUnit {
  FP32,       ///< FFMA and friends: the default
  FP64,       ///< DFMA, DADD, DMUL
  TensorF16,  ///< HMMA, HGMMA: f16/bf16 tensor cores (dense)
  TensorInt8, ///< IMMA, IGMMA: int8 tensor cores (dense)
};

/// Every unit, in the order peaks are listed.
inline constexpr ComputeUnit kComputeUnits[] = {
    ComputeUnit::FP32, ComputeUnit::FP64, ComputeUnit::TensorF16,
    ComputeUnit::TensorInt8};

/// "fp32", "fp64", "f16 tensor-core", "int8 tensor-core".
const char *computeUnitName(ComputeUnit unit);

/// The unit of a peak rate: "GOP/s" for int8, "GFLOP/s" otherwise.
inline const char *computeRateUnit(ComputeUnit unit) {
  return unit == ComputeUnit::TensorInt8 ? "GOP/s" : "GFLOP/s";
}

/// The unit a kernel's SASS shows it runs its arithmetic on: tensor-core
/// instructions first, then double precision; fp32 otherwise (and when the
/// SASS was not measured).
ComputeUnit computeUnitOf(const std::optional<SassStatistics> &sass);

struct DeviceInfo {
  std::string name;
  int smMajor = 0;
  int smMinor = 0;
  uint64_t l2Bytes = 0;
  uint64_t memoryBytes = 0;
  int multiprocessors = 0;
  /// cuDriverGetVersion: 13000 for CUDA 13.0.
  int driverVersion = 0;
  /// Device attributes for the peaks; 0 when the driver did not say.
  int clockKhz = 0;
  int memoryClockKhz = 0;
  int memoryBusBits = 0;
  int maxThreadsPerSm = 0;

  /// "sm_90".
  std::string chip() const;
  /// "13.0".
  std::string driverVersionText() const;
  /// 2 (double data rate) * memory clock * bus width in bytes, in GB/s
  /// (10^9 bytes per second); 0 when unknown.
  double memoryBandwidthGbs() const;
  /// multiprocessors * clock * fp32LanesPerSm * 2 (an FMA is two flops),
  /// in GFLOP/s; 0 when unknown.
  double fp32Gflops() const;
  /// multiprocessors * clock * operationsPerSmClock(unit), in GFLOP/s (GOP/s
  /// for int8); 0 when the chip's rate is not known.
  double peakGflops(ComputeUnit unit) const;
};

/// FP32 lanes per multiprocessor: 64 for sm_80, 128 for sm_86, sm_89,
/// sm_90, sm_100 and sm_120; 0 (unknown) for every other chip.
int fp32LanesPerSm(int smMajor, int smMinor);

/// Operations per multiprocessor and clock of `unit` (an FMA counts two),
/// dense: fp32 from fp32LanesPerSm; fp64, f16 and int8 tensor cores for the
/// data-center chips sm_80 (64, 2048, 4096) and sm_90 (128, 4096, 8192),
/// which give NVIDIA's published peaks at their boost clocks. 0 (unknown)
/// otherwise.
int operationsPerSmClock(ComputeUnit unit, int smMajor, int smMinor);

/// What the driver says about one loaded kernel, and its occupancy at its
/// launch of the timing shape. A query that failed leaves its field absent.
struct KernelResources {
  /// cuFuncGetAttribute: CU_FUNC_ATTRIBUTE_NUM_REGS (per thread),
  /// LOCAL_SIZE_BYTES (per thread: spills and local arrays),
  /// SHARED_SIZE_BYTES (static shared memory per block),
  /// MAX_THREADS_PER_BLOCK.
  std::optional<int> registers;
  std::optional<int> localBytes;
  std::optional<int> staticSharedBytes;
  std::optional<int> maxThreadsPerBlock;
  /// block x * y * z of the kernel's launch at the timing shape.
  std::optional<int> blockThreads;
  /// cuOccupancyMaxActiveBlocksPerMultiprocessor with that block size and
  /// the launch's dynamic shared bytes.
  std::optional<int> blocksPerSm;
  /// blocksPerSm * blockThreads / the device's maximum threads per SM.
  std::optional<double> occupancy;
  /// The SASS ptxas makes of the kernel for the device (nvdisasm), when
  /// both tools are on the GPU machine.
  std::optional<SassStatistics> sass;
  /// Nsight Compute counters of one run at the timing shape (--ncu).
  std::vector<Counter> counters;

  /// Nothing was measured.
  bool empty() const {
    return !registers && !localBytes && !staticSharedBytes &&
           !maxThreadsPerBlock && !blockThreads && !blocksPerSm && !occupancy &&
           !sass && counters.empty();
  }
};

/// One (candidate, shape, offset variant, check) entry.
struct ShapeResult {
  SizeBindings shape;
  size_t shapeIndex = 0;
  /// The variant's offset: 0, or the non-zero offset of "any" buffers.
  int64_t offset = 0;
  /// Buffers whose offset is not 0.
  std::vector<std::pair<std::string, int64_t>> offsets;
  /// "execution" (the four-run check), "after-timing", or the
  /// compute-sanitizer tool: "memcheck", "racecheck", "initcheck".
  std::string check = "execution";
  Verdict verdict = Verdict::Skipped;
  std::vector<ElementReport> mismatches;
  /// Counts, error messages, sanitizer output.
  std::string details;
};

struct CandidateTiming {
  size_t shapeIndex = 0;
  SizeBindings shape;
  TimingStats referenceMs;
  TimingStats candidateMs;
  SpeedupEstimate speedup;
  /// Bytes of the L2 flush buffer written before every timed run.
  uint64_t l2FlushBytes = 0;
  /// The alignment of every aligned pointer while timed (256: where the
  /// allocator puts it); absent in results of runners that timed at the
  /// stated alignment.
  std::optional<uint64_t> baseAlignment;
  /// The compulsory traffic of one run at the timing shape
  /// (ShapePlan::compulsoryBytes) and the rates it gives with the medians,
  /// in GB/s (10^9 bytes per second).
  std::optional<uint64_t> bytes;
  std::optional<double> referenceGbs;
  std::optional<double> candidateGbs;
  /// The bundle's timing.flops at the timing shape, when it states them,
  /// and the rates, in GFLOP/s.
  std::optional<uint64_t> flops;
  std::optional<double> referenceGflops;
  std::optional<double> candidateGflops;

  /// Sets bytes and flops and their rates from the medians, which must be
  /// set already; a zero median (nothing ran) leaves its rates absent.
  void setWork(uint64_t bytes, std::optional<uint64_t> flops);
};

/// What the confirmation run of a candidate found: every correctness shape
/// again with fresh inputs (a new seed), a second timed input set with the
/// outputs checked after the timed runs, and compute-sanitizer's memcheck
/// and racecheck on the small shapes. Its entries are among the candidate's
/// shapes (checks named "confirm-..."), so a failure fails the candidate.
struct Confirmation {
  /// Why it ran: "29.5x is above the bundle's 10x" or "--confirm".
  std::string reason;
  /// Pass when every check of it passed; else the first failure's verdict.
  Verdict verdict = Verdict::Skipped;
  /// The first failure, and what did not run (the sanitizers without
  /// compute-sanitizer).
  std::string details;
  /// The timing with the second input set.
  std::optional<CandidateTiming> timing;
  /// Whether memcheck and racecheck ran.
  bool sanitizerRan = false;

  bool passed() const { return verdict == Verdict::Pass; }
};

struct CandidateResult {
  std::string name;
  Verdict verdict = Verdict::Skipped;
  std::vector<ShapeResult> shapes;
  /// The timing speed is decided by: at the production shape when the
  /// bundle has one, else at the largest correctness shape.
  std::optional<CandidateTiming> timing;
  /// With a production shape: the timing at the largest correctness shape
  /// too, so both speedups show.
  std::optional<CandidateTiming> largestShapeTiming;
  std::optional<Confirmation> confirmation;
  /// Measured when the candidate loaded; absent when it never did.
  std::optional<KernelResources> resources;
};

/// Where a bundle ran when a runner spreads the bundles of one call over
/// several machines (llmptx-ray-runner, docs/ray.md): the host, the Ray node
/// and worker, the GPU. Absent from llmptx-runner's own results.
struct BundlePlacement {
  std::string hostname;
  std::string nodeId;
  std::string nodeIp;
  int64_t workerPid = 0;
  std::string cudaVisibleDevices;
  /// The GPU's name and UUID (nvidia-smi's, when the node has it).
  std::string gpu;
  std::string gpuUuid;
  /// Attempts the bundle took (a task that died is tried again).
  unsigned attempts = 0;
  double taskSeconds = 0;
  /// The node's device record, where it differs from the results' device.
  std::optional<DeviceInfo> device;
  /// One line per attempt that did not finish.
  std::vector<std::string> failures;
};

struct BundleResult {
  std::string bundle;
  std::string kernel;
  std::string reference;
  /// Bundle-level failure (the reference faulted or wrote out of bounds);
  /// candidate verdicts are then not meaningful.
  std::string error;
  /// Why speed was not decided at the bundle's production shape (it needs
  /// more than a quarter of the device's memory); empty otherwise.
  std::string timingNote;
  std::vector<CandidateResult> candidates;
  double wallSeconds = 0;
  /// Measured when the reference loaded.
  std::optional<KernelResources> referenceResources;
  std::optional<BundlePlacement> placement;

  /// The device the bundle ran on: its placement's, else `resultsDevice`.
  const DeviceInfo &device(const DeviceInfo &resultsDevice) const {
    return placement && placement->device ? *placement->device : resultsDevice;
  }
};

struct VerificationResults {
  DeviceInfo device;
  /// Whether compute-sanitizer checks ran, and why not when they did not.
  bool sanitizerRan = false;
  std::string sanitizerNote;
  /// Why Nsight Compute counters are missing (--ncu without ncu, a
  /// failed profile); empty when not asked for or all were measured.
  std::string ncuNote;
  /// Why SASS statistics are missing (no ptxas or nvdisasm, a failure);
  /// empty when every kernel has them or they were not asked for.
  std::string sassNote;
  std::vector<BundleResult> bundles;
};

std::string writeResultsJson(const VerificationResults &results);
ValueOrError<VerificationResults> parseResultsJson(std::string_view text);

/// "SASS 1234 instructions (FFMA 512, LDS.128 64, ...)" with the `opcodes`
/// most frequent opcodes.
std::string describeSass(const SassStatistics &sass, size_t opcodes = 4);

/// The short human summary llmptx-runner prints.
std::string formatSummary(const VerificationResults &results);

} // namespace llmptx::runtime

#endif // LLMPTX_RUNTIME_RESULTS_H
