//===- Results.cpp - Verification results: JSON and summary ---------------===//

#include "llmptx/Runtime/Results.h"

#include "JsonSupport.h"
#include "ResultsJson.h"

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>

using namespace llmptx::runtime;
using namespace llmptx::runtime::json_support;

std::string DeviceInfo::chip() const {
  return "sm_" + std::to_string(smMajor) + std::to_string(smMinor);
}

std::string DeviceInfo::driverVersionText() const {
  return std::to_string(driverVersion / 1000) + "." +
         std::to_string((driverVersion % 1000) / 10);
}

int llmptx::runtime::fp32LanesPerSm(int smMajor, int smMinor) {
  switch (smMajor * 10 + smMinor) {
  case 80:
    return 64;
  case 86:
  case 89:
  case 90:
  case 100:
  case 120:
    return 128;
  default:
    return 0;
  }
}

const char *llmptx::runtime::computeUnitName(ComputeUnit unit) {
  switch (unit) {
  case ComputeUnit::FP32:
    return "fp32";
  case ComputeUnit::FP64:
    return "fp64";
  case ComputeUnit::TensorF16:
    return "f16 tensor-core";
  case ComputeUnit::TensorInt8:
    return "int8 tensor-core";
  }
  return "fp32";
}

ComputeUnit
llmptx::runtime::computeUnitOf(const std::optional<SassStatistics> &sass) {
  if (!sass)
    return ComputeUnit::FP32;
  auto runs = [&](std::initializer_list<const char *> opcodes) {
    for (const auto &[opcode, count] : sass->opcodes)
      for (const char *name : opcodes)
        if (opcode == name && count > 0)
          return true;
    return false;
  };
  if (runs({"HMMA", "HGMMA"}))
    return ComputeUnit::TensorF16;
  if (runs({"IMMA", "IGMMA"}))
    return ComputeUnit::TensorInt8;
  if (runs({"DFMA", "DADD", "DMUL"}))
    return ComputeUnit::FP64;
  return ComputeUnit::FP32;
}

int llmptx::runtime::operationsPerSmClock(ComputeUnit unit, int smMajor,
                                          int smMinor) {
  int chip = smMajor * 10 + smMinor;
  switch (unit) {
  case ComputeUnit::FP32:
    return 2 * fp32LanesPerSm(smMajor, smMinor);
  case ComputeUnit::FP64:
    return chip == 80 ? 64 : chip == 90 ? 128 : 0;
  case ComputeUnit::TensorF16:
    return chip == 80 ? 2048 : chip == 90 ? 4096 : 0;
  case ComputeUnit::TensorInt8:
    return chip == 80 ? 4096 : chip == 90 ? 8192 : 0;
  }
  return 0;
}

double DeviceInfo::peakGflops(ComputeUnit unit) const {
  int operations = operationsPerSmClock(unit, smMajor, smMinor);
  if (operations <= 0 || clockKhz <= 0 || multiprocessors <= 0)
    return 0;
  return multiprocessors * (clockKhz * 1e3) * operations / 1e9;
}

double DeviceInfo::memoryBandwidthGbs() const {
  if (memoryClockKhz <= 0 || memoryBusBits <= 0)
    return 0;
  return 2.0 * (memoryClockKhz * 1e3) * (memoryBusBits / 8.0) / 1e9;
}

double DeviceInfo::fp32Gflops() const { return peakGflops(ComputeUnit::FP32); }

void CandidateTiming::setWork(uint64_t moved,
                              std::optional<uint64_t> operations) {
  // amount per millisecond / 10^6 = amount per second / 10^9.
  auto rate = [](double amount, double ms) -> std::optional<double> {
    if (!(ms > 0))
      return std::nullopt;
    return amount / (ms * 1e6);
  };
  bytes = moved;
  referenceGbs = rate(static_cast<double>(moved), referenceMs.median);
  candidateGbs = rate(static_cast<double>(moved), candidateMs.median);
  flops = operations;
  referenceGflops.reset();
  candidateGflops.reset();
  if (operations) {
    referenceGflops =
        rate(static_cast<double>(*operations), referenceMs.median);
    candidateGflops =
        rate(static_cast<double>(*operations), candidateMs.median);
  }
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

static OrderedJson shapeJson(const SizeBindings &shape) {
  OrderedJson object = OrderedJson::object();
  for (const auto &[name, value] : shape)
    object[name] = value;
  return object;
}

static OrderedJson statsJson(const TimingStats &stats) {
  OrderedJson object;
  object["median"] = stats.median;
  object["p10"] = stats.p10;
  object["p90"] = stats.p90;
  object["min"] = stats.min;
  object["max"] = stats.max;
  object["runs"] = stats.runs;
  return object;
}

static OrderedJson reportJson(const ElementReport &report) {
  OrderedJson object;
  object["buffer"] = report.buffer;
  object["index"] = report.index;
  object["expected"] = report.expected;
  object["got"] = report.got;
  object["kind"] = report.kind;
  object["run"] = report.run;
  return object;
}

OrderedJson llmptx::runtime::shapeResultJson(const ShapeResult &shape) {
  OrderedJson s;
  s["shape"] = shapeJson(shape.shape);
  s["shape_index"] = shape.shapeIndex;
  s["offset"] = shape.offset;
  if (!shape.offsets.empty()) {
    OrderedJson offsets = OrderedJson::object();
    for (const auto &[name, offset] : shape.offsets)
      offsets[name] = offset;
    s["offsets"] = offsets;
  }
  s["check"] = shape.check;
  s["verdict"] = verdictName(shape.verdict);
  OrderedJson mismatches = OrderedJson::array();
  for (const ElementReport &report : shape.mismatches)
    mismatches.push_back(reportJson(report));
  s["mismatches"] = mismatches;
  if (!shape.details.empty())
    s["details"] = shape.details;
  return s;
}

OrderedJson llmptx::runtime::timingJson(const CandidateTiming &timing) {
  OrderedJson t;
  t["shape"] = shapeJson(timing.shape);
  t["shape_index"] = timing.shapeIndex;
  t["reference_ms"] = statsJson(timing.referenceMs);
  t["candidate_ms"] = statsJson(timing.candidateMs);
  t["speedup"] = timing.speedup.speedup;
  t["speedup_spread"] = {timing.speedup.spreadLo, timing.speedup.spreadHi};
  t["speedup_bound"] = {timing.speedup.boundLo, timing.speedup.boundHi};
  t["comparison"] = comparisonName(timing.speedup.comparison);
  t["l2_flush_bytes"] = timing.l2FlushBytes;
  if (timing.baseAlignment)
    t["base_alignment"] = *timing.baseAlignment;
  if (timing.bytes)
    t["bytes"] = *timing.bytes;
  if (timing.referenceGbs)
    t["reference_gbs"] = *timing.referenceGbs;
  if (timing.candidateGbs)
    t["candidate_gbs"] = *timing.candidateGbs;
  if (timing.flops)
    t["flops"] = *timing.flops;
  if (timing.referenceGflops)
    t["reference_gflops"] = *timing.referenceGflops;
  if (timing.candidateGflops)
    t["candidate_gflops"] = *timing.candidateGflops;
  return t;
}

static OrderedJson confirmationJson(const Confirmation &confirmation) {
  OrderedJson c;
  c["reason"] = confirmation.reason;
  c["verdict"] = verdictName(confirmation.verdict);
  if (!confirmation.details.empty())
    c["details"] = confirmation.details;
  if (confirmation.timing)
    c["timing"] = timingJson(*confirmation.timing);
  c["sanitizer_ran"] = confirmation.sanitizerRan;
  return c;
}

OrderedJson
llmptx::runtime::kernelResourcesJson(const KernelResources &resources) {
  OrderedJson r = OrderedJson::object();
  if (resources.registers)
    r["registers"] = *resources.registers;
  if (resources.localBytes)
    r["local_bytes"] = *resources.localBytes;
  if (resources.staticSharedBytes)
    r["static_shared_bytes"] = *resources.staticSharedBytes;
  if (resources.maxThreadsPerBlock)
    r["max_threads_per_block"] = *resources.maxThreadsPerBlock;
  if (resources.blockThreads)
    r["block_threads"] = *resources.blockThreads;
  if (resources.blocksPerSm)
    r["blocks_per_sm"] = *resources.blocksPerSm;
  if (resources.occupancy)
    r["occupancy"] = *resources.occupancy;
  if (resources.sass) {
    OrderedJson opcodes = OrderedJson::array();
    for (const auto &[opcode, count] : resources.sass->opcodes)
      opcodes.push_back(OrderedJson::array({opcode, count}));
    OrderedJson sass;
    sass["instructions"] = resources.sass->instructions;
    sass["opcodes"] = opcodes;
    r["sass"] = sass;
  }
  if (!resources.counters.empty()) {
    OrderedJson counters = OrderedJson::array();
    for (const Counter &counter : resources.counters) {
      OrderedJson entry;
      entry["metric"] = counter.metric;
      entry["unit"] = counter.unit;
      entry["value"] = counter.value;
      counters.push_back(entry);
    }
    r["counters"] = counters;
  }
  return r;
}

/// The results' record of a device: what the driver said, and the peaks
/// that follow from it.
static OrderedJson deviceJson(const DeviceInfo &info) {
  OrderedJson device;
  device["name"] = info.name;
  device["chip"] = info.chip();
  device["sm"] = info.smMajor * 10 + info.smMinor;
  device["l2_bytes"] = info.l2Bytes;
  device["memory_bytes"] = info.memoryBytes;
  device["multiprocessors"] = info.multiprocessors;
  device["driver_version"] = info.driverVersion;
  // The peaks only where the driver reported what they derive from.
  if (info.clockKhz > 0)
    device["clock_mhz"] = info.clockKhz / 1000.0;
  if (info.memoryClockKhz > 0)
    device["memory_clock_mhz"] = info.memoryClockKhz / 1000.0;
  if (info.memoryBusBits > 0)
    device["memory_bus_bits"] = info.memoryBusBits;
  if (double bandwidth = info.memoryBandwidthGbs(); bandwidth > 0)
    device["memory_bandwidth_gbs"] = bandwidth;
  if (info.maxThreadsPerSm > 0)
    device["max_threads_per_sm"] = info.maxThreadsPerSm;
  if (double gflops = info.fp32Gflops(); gflops > 0)
    device["fp32_gflops"] = gflops;
  return device;
}

static OrderedJson placementJson(const BundlePlacement &placement) {
  OrderedJson p;
  if (!placement.hostname.empty())
    p["hostname"] = placement.hostname;
  if (!placement.nodeId.empty())
    p["node_id"] = placement.nodeId;
  if (!placement.nodeIp.empty())
    p["node_ip"] = placement.nodeIp;
  if (placement.workerPid)
    p["worker_pid"] = placement.workerPid;
  if (!placement.cudaVisibleDevices.empty())
    p["cuda_visible_devices"] = placement.cudaVisibleDevices;
  if (!placement.gpu.empty())
    p["gpu"] = placement.gpu;
  if (!placement.gpuUuid.empty())
    p["gpu_uuid"] = placement.gpuUuid;
  if (placement.device)
    p["device"] = deviceJson(*placement.device);
  p["attempts"] = placement.attempts;
  if (!placement.failures.empty())
    p["failures"] = placement.failures;
  p["task_seconds"] = placement.taskSeconds;
  return p;
}

std::string
llmptx::runtime::writeResultsJson(const VerificationResults &results) {
  OrderedJson root;
  root["format"] = kResultsFormat;
  root["version"] = kResultsVersion;
  root["device"] = deviceJson(results.device);
  OrderedJson sanitizer;
  sanitizer["ran"] = results.sanitizerRan;
  if (!results.sanitizerNote.empty())
    sanitizer["note"] = results.sanitizerNote;
  root["sanitizer"] = sanitizer;
  if (!results.sassNote.empty())
    root["sass_note"] = results.sassNote;
  if (!results.ncuNote.empty())
    root["ncu_note"] = results.ncuNote;
  OrderedJson bundles = OrderedJson::array();
  for (const BundleResult &bundle : results.bundles) {
    OrderedJson b;
    b["bundle"] = bundle.bundle;
    b["kernel"] = bundle.kernel;
    b["reference"] = bundle.reference;
    if (!bundle.error.empty())
      b["error"] = bundle.error;
    if (!bundle.timingNote.empty())
      b["timing_note"] = bundle.timingNote;
    b["wall_seconds"] = bundle.wallSeconds;
    if (bundle.referenceResources && !bundle.referenceResources->empty())
      b["reference_resources"] =
          kernelResourcesJson(*bundle.referenceResources);
    if (bundle.placement)
      b["placement"] = placementJson(*bundle.placement);
    OrderedJson candidates = OrderedJson::array();
    for (const CandidateResult &candidate : bundle.candidates) {
      OrderedJson c;
      c["name"] = candidate.name;
      c["verdict"] = verdictName(candidate.verdict);
      if (candidate.resources && !candidate.resources->empty())
        c["resources"] = kernelResourcesJson(*candidate.resources);
      OrderedJson shapes = OrderedJson::array();
      for (const ShapeResult &shape : candidate.shapes)
        shapes.push_back(shapeResultJson(shape));
      c["shapes"] = shapes;
      if (candidate.timing)
        c["timing"] = timingJson(*candidate.timing);
      if (candidate.largestShapeTiming)
        c["largest_shape_timing"] = timingJson(*candidate.largestShapeTiming);
      if (candidate.confirmation)
        c["confirmation"] = confirmationJson(*candidate.confirmation);
      candidates.push_back(c);
    }
    b["candidates"] = candidates;
    bundles.push_back(b);
  }
  root["bundles"] = bundles;
  return root.dump(2) + "\n";
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

namespace {
class ResultsReader {
public:
  std::optional<VerificationResults> read(const Json &root) {
    VerificationResults results;
    if (!reader.expectObject(root, "$",
                             {"format", "version", "device", "sanitizer",
                              "sass_note", "ncu_note", "bundles"}))
      return std::nullopt;
    if (reader.string(root, "$", "format", true) != kResultsFormat &&
        !reader.failed())
      reader.fail("$.format",
                  "expected \"" + std::string(kResultsFormat) + "\"");
    int64_t version = reader.integer(root, "$", "version", true);
    if (!reader.failed() && version != kResultsVersion)
      reader.fail("$.version",
                  "unsupported version " + std::to_string(version));
    if (const Json *device = reader.member(root, "$", "device", true))
      results.device = readDevice(*device, "$.device");
    if (const Json *sanitizer = reader.member(root, "$", "sanitizer", false);
        sanitizer &&
        reader.expectObject(*sanitizer, "$.sanitizer", {"ran", "note"})) {
      results.sanitizerRan =
          reader.boolean(*sanitizer, "$.sanitizer", "ran", false);
      results.sanitizerNote =
          reader.string(*sanitizer, "$.sanitizer", "note", false);
    }
    results.sassNote = reader.string(root, "$", "sass_note", false);
    results.ncuNote = reader.string(root, "$", "ncu_note", false);
    if (const Json *bundles = reader.member(root, "$", "bundles", true);
        bundles && reader.expectArray(*bundles, "$.bundles"))
      for (size_t i = 0; i < bundles->size() && !reader.failed(); ++i)
        results.bundles.push_back(
            readBundle((*bundles)[i], elementPath("$.bundles", i)));
    if (reader.failed())
      return std::nullopt;
    return results;
  }

  JsonReader reader;

  SizeBindings readShape(const Json &value, const std::string &path) {
    SizeBindings shape;
    if (!value.is_object()) {
      reader.fail(path, "expected an object");
      return shape;
    }
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (!it->is_number_integer()) {
        reader.fail(path + "." + it.key(), "expected an integer");
        return shape;
      }
      shape[it.key()] = it->get<int64_t>();
    }
    return shape;
  }

  Verdict readVerdict(const Json &object, const std::string &path) {
    std::string name = reader.string(object, path, "verdict", true);
    if (reader.failed())
      return Verdict::Skipped;
    if (auto verdict = parseVerdict(name))
      return *verdict;
    reader.fail(path + ".verdict", "unknown verdict '" + name + "'");
    return Verdict::Skipped;
  }

  TimingStats readStats(const Json &object, const std::string &path) {
    TimingStats stats;
    if (!reader.expectObject(object, path,
                             {"median", "p10", "p90", "min", "max", "runs"}))
      return stats;
    stats.median = reader.number(object, path, "median", true);
    stats.p10 = reader.number(object, path, "p10", false);
    stats.p90 = reader.number(object, path, "p90", false);
    stats.min = reader.number(object, path, "min", false);
    stats.max = reader.number(object, path, "max", false);
    stats.runs = static_cast<unsigned>(
        reader.unsignedInteger(object, path, "runs", false));
    return stats;
  }

  ElementReport readReport(const Json &object, const std::string &path) {
    ElementReport report;
    if (!reader.expectObject(
            object, path,
            {"buffer", "index", "expected", "got", "kind", "run"}))
      return report;
    report.buffer = reader.string(object, path, "buffer", true);
    if (const Json *index = reader.member(object, path, "index", true);
        index && reader.expectArray(*index, path + ".index"))
      for (const Json &entry : *index) {
        if (!entry.is_number_integer()) {
          reader.fail(path + ".index", "expected integers");
          break;
        }
        report.index.push_back(entry.get<int64_t>());
      }
    report.expected = reader.string(object, path, "expected", false);
    report.got = reader.string(object, path, "got", false);
    report.kind = reader.string(object, path, "kind", false);
    report.run = reader.string(object, path, "run", false);
    return report;
  }

  ShapeResult readShapeResult(const Json &object, const std::string &path) {
    ShapeResult result;
    if (!reader.expectObject(object, path,
                             {"shape", "shape_index", "offset", "offsets",
                              "check", "verdict", "mismatches", "details"}))
      return result;
    if (const Json *shape = reader.member(object, path, "shape", true))
      result.shape = readShape(*shape, path + ".shape");
    result.shapeIndex = static_cast<size_t>(
        reader.unsignedInteger(object, path, "shape_index", false));
    result.offset = reader.integer(object, path, "offset", false);
    if (const Json *offsets = reader.member(object, path, "offsets", false))
      for (const auto &[name, value] : readShape(*offsets, path + ".offsets"))
        result.offsets.emplace_back(name, value);
    result.check = reader.string(object, path, "check", false, "execution");
    result.verdict = readVerdict(object, path);
    if (const Json *mismatches =
            reader.member(object, path, "mismatches", false);
        mismatches && reader.expectArray(*mismatches, path + ".mismatches"))
      for (size_t i = 0; i < mismatches->size(); ++i)
        result.mismatches.push_back(
            readReport((*mismatches)[i], elementPath(path + ".mismatches", i)));
    result.details = reader.string(object, path, "details", false);
    return result;
  }

  CandidateResult readCandidate(const Json &object, const std::string &path) {
    CandidateResult candidate;
    if (!reader.expectObject(object, path,
                             {"name", "verdict", "resources", "shapes",
                              "timing", "largest_shape_timing",
                              "confirmation"}))
      return candidate;
    candidate.name = reader.string(object, path, "name", true);
    candidate.verdict = readVerdict(object, path);
    if (const Json *resources = reader.member(object, path, "resources", false))
      candidate.resources = readResources(*resources, path + ".resources");
    if (const Json *shapes = reader.member(object, path, "shapes", true);
        shapes && reader.expectArray(*shapes, path + ".shapes"))
      for (size_t i = 0; i < shapes->size(); ++i)
        candidate.shapes.push_back(
            readShapeResult((*shapes)[i], elementPath(path + ".shapes", i)));
    if (const Json *timing = reader.member(object, path, "timing", false);
        timing && !timing->is_null())
      candidate.timing = readTiming(*timing, path + ".timing");
    if (const Json *timing =
            reader.member(object, path, "largest_shape_timing", false))
      candidate.largestShapeTiming =
          readTiming(*timing, path + ".largest_shape_timing");
    if (const Json *confirmation =
            reader.member(object, path, "confirmation", false))
      candidate.confirmation =
          readConfirmation(*confirmation, path + ".confirmation");
    return candidate;
  }

  Confirmation readConfirmation(const Json &object, const std::string &path) {
    Confirmation confirmation;
    if (!reader.expectObject(
            object, path,
            {"reason", "verdict", "details", "timing", "sanitizer_ran"}))
      return confirmation;
    confirmation.reason = reader.string(object, path, "reason", false);
    confirmation.verdict = readVerdict(object, path);
    confirmation.details = reader.string(object, path, "details", false);
    if (const Json *timing = reader.member(object, path, "timing", false))
      confirmation.timing = readTiming(*timing, path + ".timing");
    confirmation.sanitizerRan =
        reader.boolean(object, path, "sanitizer_ran", false);
    return confirmation;
  }

  CandidateTiming readTiming(const Json &timing, const std::string &t) {
    CandidateTiming result;
    if (!reader.expectObject(
            timing, t,
            {"shape", "shape_index", "reference_ms", "candidate_ms", "speedup",
             "speedup_spread", "speedup_bound", "suspicious", "comparison",
             "l2_flush_bytes", "base_alignment", "bytes", "reference_gbs",
             "candidate_gbs", "flops", "reference_gflops",
             "candidate_gflops"}))
      return result;
    if (const Json *shape = reader.member(timing, t, "shape", false))
      result.shape = readShape(*shape, t + ".shape");
    result.shapeIndex = static_cast<size_t>(
        reader.unsignedInteger(timing, t, "shape_index", false));
    if (const Json *ref = reader.member(timing, t, "reference_ms", true))
      result.referenceMs = readStats(*ref, t + ".reference_ms");
    if (const Json *cand = reader.member(timing, t, "candidate_ms", true))
      result.candidateMs = readStats(*cand, t + ".candidate_ms");
    result.speedup.speedup = reader.number(timing, t, "speedup", true);
    if (const Json *spread =
            reader.member(timing, t, "speedup_spread", false)) {
      if (!spread->is_array() || spread->size() != 2 ||
          !(*spread)[0].is_number() || !(*spread)[1].is_number())
        reader.fail(t + ".speedup_spread", "expected [lo, hi]");
      else {
        result.speedup.spreadLo = (*spread)[0].get<double>();
        result.speedup.spreadHi = (*spread)[1].get<double>();
      }
    }
    if (const Json *bound = reader.member(timing, t, "speedup_bound", false)) {
      if (!bound->is_array() || bound->size() != 2 ||
          !(*bound)[0].is_number() || !(*bound)[1].is_number())
        reader.fail(t + ".speedup_bound", "expected [lo, hi]");
      else {
        result.speedup.boundLo = (*bound)[0].get<double>();
        result.speedup.boundHi = (*bound)[1].get<double>();
      }
    }
    // "suspicious" (results of runners before confirmation) is ignored.
    std::string comparison = reader.string(timing, t, "comparison", false);
    if (std::optional<Comparison> parsed = parseComparison(comparison))
      result.speedup.comparison = *parsed;
    else if (!comparison.empty())
      reader.fail(t + ".comparison", "unknown comparison '" + comparison + "'");
    result.l2FlushBytes =
        reader.unsignedInteger(timing, t, "l2_flush_bytes", false);
    result.baseAlignment = optionalUnsigned(timing, t, "base_alignment");
    result.bytes = optionalUnsigned(timing, t, "bytes");
    result.referenceGbs = optionalNumber(timing, t, "reference_gbs");
    result.candidateGbs = optionalNumber(timing, t, "candidate_gbs");
    result.flops = optionalUnsigned(timing, t, "flops");
    result.referenceGflops = optionalNumber(timing, t, "reference_gflops");
    result.candidateGflops = optionalNumber(timing, t, "candidate_gflops");
    return result;
  }

  DeviceInfo readDevice(const Json &device, const std::string &path) {
    DeviceInfo info;
    if (!reader.expectObject(device, path,
                             {"name", "chip", "sm", "l2_bytes", "memory_bytes",
                              "multiprocessors", "driver_version", "clock_mhz",
                              "memory_clock_mhz", "memory_bus_bits",
                              "memory_bandwidth_gbs", "max_threads_per_sm",
                              "fp32_gflops"}))
      return info;
    info.name = reader.string(device, path, "name", false);
    int64_t sm = reader.integer(device, path, "sm", false);
    info.smMajor = static_cast<int>(sm / 10);
    info.smMinor = static_cast<int>(sm % 10);
    info.l2Bytes = reader.unsignedInteger(device, path, "l2_bytes", false);
    info.memoryBytes =
        reader.unsignedInteger(device, path, "memory_bytes", false);
    info.multiprocessors = static_cast<int>(
        reader.integer(device, path, "multiprocessors", false));
    info.driverVersion =
        static_cast<int>(reader.integer(device, path, "driver_version", false));
    info.clockKhz = static_cast<int>(
        std::lround(1000 * reader.number(device, path, "clock_mhz", false)));
    info.memoryClockKhz = static_cast<int>(std::lround(
        1000 * reader.number(device, path, "memory_clock_mhz", false)));
    info.memoryBusBits = static_cast<int>(
        reader.integer(device, path, "memory_bus_bits", false));
    info.maxThreadsPerSm = static_cast<int>(
        reader.integer(device, path, "max_threads_per_sm", false));
    // memory_bandwidth_gbs and fp32_gflops follow from the others.
    reader.number(device, path, "memory_bandwidth_gbs", false);
    reader.number(device, path, "fp32_gflops", false);
    return info;
  }
  BundlePlacement readPlacement(const Json &object, const std::string &path) {
    BundlePlacement placement;
    if (!reader.expectObject(object, path,
                             {"hostname", "node_id", "node_ip", "worker_pid",
                              "cuda_visible_devices", "gpu", "gpu_uuid",
                              "device", "attempts", "failures",
                              "task_seconds"}))
      return placement;
    placement.hostname = reader.string(object, path, "hostname", false);
    placement.nodeId = reader.string(object, path, "node_id", false);
    placement.nodeIp = reader.string(object, path, "node_ip", false);
    placement.workerPid = reader.integer(object, path, "worker_pid", false);
    placement.cudaVisibleDevices =
        reader.string(object, path, "cuda_visible_devices", false);
    placement.gpu = reader.string(object, path, "gpu", false);
    placement.gpuUuid = reader.string(object, path, "gpu_uuid", false);
    if (const Json *device = reader.member(object, path, "device", false))
      placement.device = readDevice(*device, path + ".device");
    placement.attempts = static_cast<unsigned>(
        reader.unsignedInteger(object, path, "attempts", false));
    placement.taskSeconds = reader.number(object, path, "task_seconds", false);
    if (const Json *failures = reader.member(object, path, "failures", false);
        failures && reader.expectArray(*failures, path + ".failures"))
      for (size_t i = 0; i < failures->size(); ++i) {
        if (!(*failures)[i].is_string()) {
          reader.fail(elementPath(path + ".failures", i), "expected a string");
          break;
        }
        placement.failures.push_back((*failures)[i].get<std::string>());
      }
    return placement;
  }

  KernelResources readResources(const Json &object, const std::string &path) {
    KernelResources resources;
    if (!reader.expectObject(object, path,
                             {"registers", "local_bytes", "static_shared_bytes",
                              "max_threads_per_block", "block_threads",
                              "blocks_per_sm", "occupancy", "sass",
                              "counters"}))
      return resources;
    resources.registers = optionalInt(object, path, "registers");
    resources.localBytes = optionalInt(object, path, "local_bytes");
    resources.staticSharedBytes =
        optionalInt(object, path, "static_shared_bytes");
    resources.maxThreadsPerBlock =
        optionalInt(object, path, "max_threads_per_block");
    resources.blockThreads = optionalInt(object, path, "block_threads");
    resources.blocksPerSm = optionalInt(object, path, "blocks_per_sm");
    resources.occupancy = optionalNumber(object, path, "occupancy");
    if (const Json *sass = reader.member(object, path, "sass", false))
      resources.sass = readSass(*sass, path + ".sass");
    if (const Json *counters = reader.member(object, path, "counters", false);
        counters && reader.expectArray(*counters, path + ".counters"))
      for (size_t i = 0; i < counters->size(); ++i) {
        std::string at = path + ".counters[" + std::to_string(i) + "]";
        const Json &entry = (*counters)[i];
        if (!reader.expectObject(entry, at, {"metric", "unit", "value"}))
          break;
        resources.counters.push_back({reader.string(entry, at, "metric", true),
                                      reader.string(entry, at, "unit", false),
                                      reader.number(entry, at, "value", true)});
      }
    return resources;
  }

  SassStatistics readSass(const Json &object, const std::string &path) {
    SassStatistics sass;
    if (!reader.expectObject(object, path, {"instructions", "opcodes"}))
      return sass;
    sass.instructions = static_cast<unsigned>(
        reader.unsignedInteger(object, path, "instructions", true, 0));
    const Json *opcodes = reader.member(object, path, "opcodes", true);
    if (!opcodes || !reader.expectArray(*opcodes, path + ".opcodes"))
      return sass;
    for (size_t i = 0; i < opcodes->size(); ++i) {
      const Json &entry = (*opcodes)[i];
      if (!entry.is_array() || entry.size() != 2 || !entry[0].is_string() ||
          !entry[1].is_number_unsigned()) {
        reader.fail(path + ".opcodes[" + std::to_string(i) + "]",
                    "expected [opcode, count]");
        return sass;
      }
      sass.opcodes.emplace_back(entry[0].get<std::string>(),
                                entry[1].get<unsigned>());
    }
    return sass;
  }

  // Fields added after the first results files: absent means unknown.
  std::optional<double>
  optionalNumber(const Json &object, const std::string &path, const char *key) {
    if (!object.is_object() || !object.contains(key))
      return std::nullopt;
    return reader.number(object, path, key, false);
  }
  std::optional<uint64_t> optionalUnsigned(const Json &object,
                                           const std::string &path,
                                           const char *key) {
    if (!object.is_object() || !object.contains(key))
      return std::nullopt;
    return reader.unsignedInteger(object, path, key, false);
  }
  std::optional<int> optionalInt(const Json &object, const std::string &path,
                                 const char *key) {
    if (!object.is_object() || !object.contains(key))
      return std::nullopt;
    int64_t value = reader.integer(object, path, key, false);
    if (value < INT32_MIN || value > INT32_MAX) {
      reader.fail(memberPath(path, key), "integer out of range");
      return std::nullopt;
    }
    return static_cast<int>(value);
  }

  BundleResult readBundle(const Json &object, const std::string &path) {
    BundleResult bundle;
    if (!reader.expectObject(
            object, path,
            {"bundle", "kernel", "reference", "error", "timing_note",
             "wall_seconds", "reference_resources", "candidates", "placement"}))
      return bundle;
    bundle.bundle = reader.string(object, path, "bundle", true);
    bundle.kernel = reader.string(object, path, "kernel", false);
    bundle.reference = reader.string(object, path, "reference", false);
    bundle.error = reader.string(object, path, "error", false);
    bundle.timingNote = reader.string(object, path, "timing_note", false);
    bundle.wallSeconds = reader.number(object, path, "wall_seconds", false);
    if (const Json *resources =
            reader.member(object, path, "reference_resources", false))
      bundle.referenceResources =
          readResources(*resources, path + ".reference_resources");
    if (const Json *placement = reader.member(object, path, "placement", false))
      bundle.placement = readPlacement(*placement, path + ".placement");
    if (const Json *candidates =
            reader.member(object, path, "candidates", true);
        candidates && reader.expectArray(*candidates, path + ".candidates"))
      for (size_t i = 0; i < candidates->size(); ++i)
        bundle.candidates.push_back(readCandidate(
            (*candidates)[i], elementPath(path + ".candidates", i)));
    return bundle;
  }
};
} // namespace

bool llmptx::runtime::readShapeResultJson(const Json &value,
                                          ShapeResult &result,
                                          std::string &error) {
  ResultsReader reader;
  result = reader.readShapeResult(value, "$");
  error = reader.reader.firstError();
  return error.empty();
}

bool llmptx::runtime::readKernelResourcesJson(const Json &value,
                                              KernelResources &result,
                                              std::string &error) {
  ResultsReader reader;
  result = reader.readResources(value, "$");
  error = reader.reader.firstError();
  return error.empty();
}

bool llmptx::runtime::readTimingJson(const Json &value, CandidateTiming &result,
                                     std::string &error) {
  ResultsReader reader;
  result = reader.readTiming(value, "$");
  error = reader.reader.firstError();
  return error.empty();
}

ValueOrError<VerificationResults>
llmptx::runtime::parseResultsJson(std::string_view text) {
  try {
    std::string syntaxError;
    std::optional<Json> root = parseJsonText(text, syntaxError);
    if (!root)
      return Failure{syntaxError};
    ResultsReader reader;
    std::optional<VerificationResults> results = reader.read(*root);
    if (!results)
      return Failure{reader.reader.firstError()};
    return std::move(*results);
  } catch (const std::exception &e) {
    return Failure{std::string("internal error while reading results: ") +
                   e.what()};
  }
}

//===----------------------------------------------------------------------===//
// Summary
//===----------------------------------------------------------------------===//

static std::string describeEntry(const ShapeResult &shape) {
  std::string text = formatSizes(shape.shape);
  if (text.empty())
    text = "(no sizes)";
  if (!shape.offsets.empty()) {
    text += " offsets";
    for (const auto &[name, offset] : shape.offsets)
      text += " " + name + "=" + std::to_string(offset);
  }
  if (shape.check != "execution")
    text += " [" + shape.check + "]";
  return text;
}

static std::string describeReport(const ElementReport &report) {
  std::string index;
  for (int64_t i : report.index)
    index += (index.empty() ? "" : ",") + std::to_string(i);
  if (report.kind == "out-of-bounds-write")
    return report.buffer + " element position " + index + " (guard " +
           report.expected + " became " + report.got + ")";
  return report.buffer + "[" + index + "] expected " + report.expected +
         " got " + report.got;
}

static std::string formatMs(double ms) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.4f", ms);
  return buffer;
}

static std::string formatRatio(double ratio) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.2f", ratio);
  return buffer;
}

/// "4029", "61.5", "0.93".
static std::string formatRate(double rate) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer),
                rate >= 100  ? "%.0f"
                : rate >= 10 ? "%.1f"
                             : "%.2f",
                rate);
  return buffer;
}

static std::string formatPercent(double fraction) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.0f%%", 100 * fraction);
  return buffer;
}

/// "(82% of 4915 peak)", or "(above the 4915 peak)": a rate is never shown
/// above 100% of the peak it is compared with.
static std::string shareOfPeak(double rate, double peak,
                               const std::string &peakName) {
  if (!(peak > 0))
    return {};
  if (rate > peak)
    return " (above the " + formatRate(peak) + " " + peakName + ")";
  return " (" + formatPercent(rate / peak) + " of " + formatRate(peak) + " " +
         peakName + ")";
}

/// "4029 GB/s (82% of 4915 peak), reference 3283 GB/s; ..." or empty. The
/// compute rate is compared with the peak of the units the candidate's SASS
/// shows it uses.
static std::string describeThroughput(const CandidateTiming &timing,
                                      const DeviceInfo &device,
                                      ComputeUnit unit) {
  std::string text;
  auto rates = [&](const std::optional<double> &candidate,
                   const std::optional<double> &reference, const char *name,
                   double peak, const std::string &peakName) {
    if (!candidate)
      return;
    if (!text.empty())
      text += "; ";
    text += formatRate(*candidate) + " " + name +
            shareOfPeak(*candidate, peak, peakName);
    if (reference)
      text += ", reference " + formatRate(*reference) + " " + name;
  };
  rates(timing.candidateGbs, timing.referenceGbs, "GB/s",
        device.memoryBandwidthGbs(), "peak");
  rates(timing.candidateGflops, timing.referenceGflops, "GFLOP/s",
        device.peakGflops(unit), std::string(computeUnitName(unit)) + " peak");
  return text;
}

std::string llmptx::runtime::describeSass(const SassStatistics &sass,
                                          size_t opcodes) {
  std::string text =
      "SASS " + std::to_string(sass.instructions) + " instructions";
  std::string parts;
  for (size_t i = 0; i < sass.opcodes.size() && i < opcodes; ++i)
    parts += (parts.empty() ? "" : ", ") + sass.opcodes[i].first + " " +
             std::to_string(sass.opcodes[i].second);
  if (!parts.empty())
    text += " (" + parts + ")";
  return text;
}

/// "16 registers, 64 B local, occupancy 50% (4 blocks of 256)".
static std::string describeResources(const KernelResources &resources) {
  std::string text;
  auto add = [&](const std::string &part) {
    text += (text.empty() ? "" : ", ") + part;
  };
  if (resources.registers)
    add(std::to_string(*resources.registers) + " registers");
  if (resources.localBytes && *resources.localBytes > 0)
    add(std::to_string(*resources.localBytes) + " B local");
  if (resources.staticSharedBytes && *resources.staticSharedBytes > 0)
    add(std::to_string(*resources.staticSharedBytes) + " B shared");
  if (resources.occupancy) {
    std::string occupancy = "occupancy " + formatPercent(*resources.occupancy);
    if (resources.blocksPerSm && resources.blockThreads)
      occupancy += " (" + std::to_string(*resources.blocksPerSm) +
                   " blocks of " + std::to_string(*resources.blockThreads) +
                   ")";
    add(occupancy);
  }
  if (resources.sass)
    add(describeSass(*resources.sass));
  if (!resources.counters.empty())
    add("ncu: " + describeCounters(resources.counters));
  return text;
}

/// "speedup 1.52x [1.49, 1.55] 95% CI [1.50, 1.54] faster (reference ...)".
static std::string describeSpeedup(const CandidateTiming &timing) {
  std::string text = "speedup " + formatRatio(timing.speedup.speedup) + "x [" +
                     formatRatio(timing.speedup.spreadLo) + ", " +
                     formatRatio(timing.speedup.spreadHi) + "]";
  if (timing.speedup.hasBound())
    text += " 95% CI [" + formatRatio(timing.speedup.boundLo) + ", " +
            formatRatio(timing.speedup.boundHi) + "]";
  return text + " " + comparisonName(timing.speedup.comparison) +
         " (reference " + formatMs(timing.referenceMs.median) +
         " ms, candidate " + formatMs(timing.candidateMs.median) + " ms, " +
         std::to_string(timing.candidateMs.runs) + " runs)";
}

/// The summary of a candidate that passed: checks, speed (at the timing
/// shape and the largest checked one), confirmation, rates and resources.
static std::string describePassed(const BundleResult &bundle,
                                  const CandidateResult &candidate,
                                  const DeviceInfo &device) {
  size_t ran = 0;
  for (const ShapeResult &shape : candidate.shapes)
    ran += shape.verdict == Verdict::Pass;
  std::string line = std::to_string(ran) + " checks passed";
  if (!candidate.timing)
    return line;
  const CandidateTiming &timing = *candidate.timing;
  line += "; " + describeSpeedup(timing);
  if (candidate.largestShapeTiming)
    line += "\n    at " + formatSizes(timing.shape) +
            "; at the largest checked shape " +
            formatSizes(candidate.largestShapeTiming->shape) + ": " +
            describeSpeedup(*candidate.largestShapeTiming);
  if (const std::optional<Confirmation> &confirmation = candidate.confirmation)
    line += "\n    confirmation " +
            std::string(verdictName(confirmation->verdict)) + " (" +
            confirmation->reason + ")" +
            (confirmation->timing ? "; second input set: " +
                                        describeSpeedup(*confirmation->timing)
                                  : "") +
            (confirmation->details.empty() ? "" : "; " + confirmation->details);
  std::string throughput = describeThroughput(
      timing, device,
      computeUnitOf(candidate.resources ? candidate.resources->sass
                                        : std::nullopt));
  if (!throughput.empty())
    line += "\n    throughput " + throughput;
  std::string resources = candidate.resources
                              ? describeResources(*candidate.resources)
                              : std::string();
  if (!resources.empty()) {
    line += "\n    resources " + resources;
    if (bundle.referenceResources) {
      std::string reference = describeResources(*bundle.referenceResources);
      if (!reference.empty())
        line += "; reference " + reference;
    }
  }
  return line;
}

/// The first failing entry of a candidate: where, what, first example.
static std::string describeFailed(const CandidateResult &candidate) {
  for (const ShapeResult &shape : candidate.shapes) {
    if (shape.verdict == Verdict::Pass || shape.verdict == Verdict::Skipped)
      continue;
    std::string line = describeEntry(shape) + ": ";
    if (!shape.mismatches.empty())
      line += describeReport(shape.mismatches.front());
    if (!shape.details.empty()) {
      std::string details = shape.details;
      size_t newline = details.find('\n');
      if (newline != std::string::npos)
        details = details.substr(0, newline);
      line += (shape.mismatches.empty() ? "" : "; ") + details;
    }
    return line;
  }
  return {};
}

std::string llmptx::runtime::formatSummary(const VerificationResults &results) {
  const DeviceInfo &device = results.device;
  std::string text = "device: " + device.name + " (" + device.chip() + ", " +
                     std::to_string(device.multiprocessors) + " SMs, L2 " +
                     std::to_string(device.l2Bytes / (1024 * 1024)) +
                     " MiB, driver " + device.driverVersionText() + ")\n";
  std::string peaks;
  if (double bandwidth = device.memoryBandwidthGbs(); bandwidth > 0)
    peaks += "memory " + formatRate(bandwidth) + " GB/s";
  for (ComputeUnit unit : kComputeUnits)
    if (double gflops = device.peakGflops(unit); gflops > 0)
      peaks += (peaks.empty() ? "" : ", ") +
               std::string(computeUnitName(unit)) + " " + formatRate(gflops) +
               " " + computeRateUnit(unit);
  if (!peaks.empty())
    text += "peaks: " + peaks + "\n";
  if (!results.sanitizerNote.empty())
    text += "sanitizer: " + results.sanitizerNote + "\n";
  if (!results.sassNote.empty())
    text += "sass: " + results.sassNote + "\n";
  if (!results.ncuNote.empty())
    text += "ncu: " + results.ncuNote + "\n";
  for (const BundleResult &bundle : results.bundles) {
    text += "bundle " + bundle.bundle + ": kernel " + bundle.kernel +
            ", reference " + bundle.reference + "\n";
    if (!bundle.error.empty())
      text += "  error: " + bundle.error + "\n";
    if (!bundle.timingNote.empty())
      text += "  timing: " + bundle.timingNote + "\n";
    size_t width = 10;
    for (const CandidateResult &candidate : bundle.candidates)
      width = std::max(width, candidate.name.size());
    for (const CandidateResult &candidate : bundle.candidates) {
      std::string line = "  " + candidate.name;
      line.append(width + 2 - candidate.name.size(), ' ');
      std::string verdict = verdictName(candidate.verdict);
      line += verdict;
      line.append(verdict.size() < 20 ? 20 - verdict.size() : 1, ' ');
      line += candidate.verdict == Verdict::Pass
                  ? describePassed(bundle, candidate, device)
                  : describeFailed(candidate);
      text += line + "\n";
    }
  }
  return text;
}
