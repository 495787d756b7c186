//===- RunReport.cpp - The JSON report of an llm-lower run ------*- C++ -*-===//
//
// The report says everything the compiler decided and why, so a run can be
// audited afterwards; what it records of a candidate is what the next
// stage saw of it.
//
//===----------------------------------------------------------------------===//

#include "llmptx/Pipeline/RunReport.h"

#include "llmptx/PTX/CompileCheck.h"

#include "llmptx/LLM/Secrets.h"
#include "llmptx/Support/FileIO.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <mutex>

using namespace llmptx;

namespace {
/// What this process has reported so far to one path.
struct ReportState {
  llvm::json::Object settings;
  llvm::json::Array modules;
  llvm::json::Array kernels;
};
} // namespace

static std::mutex reportMutex;
static std::map<std::string, ReportState> &reportStates() {
  static std::map<std::string, ReportState> states;
  return states;
}

/// Why the file at `path` may not be replaced by a report: it exists and is
/// not one (a user's file, the program being compiled); empty when it may.
static std::string refuseToReplace(const std::string &path) {
  if (!llvm::sys::fs::exists(path))
    return {};
  std::string text;
  if (auto problem = untrusted::readRegularFile(path, text))
    return path + " exists and cannot be read as a report (" + *problem +
           "); not replaced";
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  const llvm::json::Object *object = parsed ? parsed->getAsObject() : nullptr;
  std::optional<llvm::StringRef> format =
      object ? object->getString("format") : std::nullopt;
  if (!parsed)
    llvm::consumeError(parsed.takeError());
  if (format && *format == "llmptx-report")
    return {};
  return path + " exists and is not an llmptx report; not replaced (name "
                "a new file or an earlier report)";
}

std::string llmptx::appendToReport(llvm::StringRef path,
                                   llvm::json::Object settings,
                                   llvm::json::Object moduleRecord,
                                   llvm::json::Array kernels) {
  std::lock_guard<std::mutex> lock(reportMutex);
  auto [entry, first] = reportStates().try_emplace(path.str());
  // A report replaces only an earlier report: checked before this process
  // first writes the path (later writes replace its own).
  if (first)
    if (std::string refused = refuseToReplace(path.str()); !refused.empty()) {
      reportStates().erase(entry);
      return refused;
    }
  ReportState &state = entry->second;
  state.settings = std::move(settings);
  state.modules.push_back(std::move(moduleRecord));
  for (llvm::json::Value &kernel : kernels)
    state.kernels.push_back(std::move(kernel));

  llvm::json::Object report{{"format", "llmptx-report"},
                            {"version", 1},
                            {"settings", llvm::json::Object(state.settings)},
                            {"modules", llvm::json::Array(state.modules)},
                            {"kernels", llvm::json::Array(state.kernels)}};
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(report))) << "\n";
  text = llm::redactSecrets(text);

  llvm::SmallString<256> directory(path);
  llvm::sys::path::remove_filename(directory);
  if (!directory.empty())
    if (std::error_code error = llvm::sys::fs::create_directories(directory))
      return "cannot create " + directory.str().str() + ": " + error.message();
  if (auto problem = llmptx::untrusted::writeFileAtomically(path.str(), text))
    return "cannot write " + path.str() + ": " + *problem;
  return {};
}

static llvm::json::Array stringArray(const std::vector<std::string> &lines) {
  llvm::json::Array array;
  for (const std::string &line : lines)
    array.push_back(line);
  return array;
}

static llvm::json::Object attemptRecord(const Attempt &attempt) {
  llvm::json::Object record{{"optimization_round", attempt.optimizationRound},
                            {"sample", attempt.sample},
                            {"round", attempt.round},
                            {"status", attemptStatusName(attempt.status)},
                            {"diagnostics", stringArray(attempt.diagnostics)},
                            {"fixes", stringArray(attempt.fixes)},
                            {"model", attempt.model},
                            {"prompt_hash", attempt.promptHash},
                            {"prompt_bytes", attempt.promptBytes},
                            {"prompt_tokens", attempt.promptTokens},
                            {"completion_tokens", attempt.completionTokens},
                            {"latency_ms", attempt.latencyMs},
                            {"cache_hit", attempt.cacheHit}};
  if (!attempt.note.empty())
    record["note"] = attempt.note;
  if (attempt.language == llm::SourceLanguage::CUDA)
    record["language"] = "cuda";
  if (!attempt.warnings.empty())
    record["warnings"] = stringArray(attempt.warnings);
  return record;
}

static llvm::json::Object shapeRecord(const runtime::SizeBindings &shape) {
  llvm::json::Object record;
  for (const auto &[name, value] : shape)
    record[name] = value;
  return record;
}

static llvm::json::Object timingRecord(const runtime::CandidateTiming &timing) {
  const runtime::SpeedupEstimate &speed = timing.speedup;
  return llvm::json::Object{
      {"shape", shapeRecord(timing.shape)},
      {"speedup", speed.speedup},
      {"pair_ratio_p10", speed.spreadLo},
      {"pair_ratio_p90", speed.spreadHi},
      {"speedup_ci95", speed.hasBound() ? llvm::json::Value(llvm::json::Array{
                                              speed.boundLo, speed.boundHi})
                                        : llvm::json::Value(nullptr)},
      {"reference_ms", timing.referenceMs.median},
      {"candidate_ms", timing.candidateMs.median},
      {"comparison", runtime::comparisonName(speed.comparison)}};
}

static llvm::json::Object
confirmationRecord(const runtime::Confirmation &confirmation) {
  llvm::json::Object record{
      {"reason", confirmation.reason},
      {"verdict", runtime::verdictName(confirmation.verdict)},
      {"sanitizer_ran", confirmation.sanitizerRan}};
  if (!confirmation.details.empty())
    record["details"] = confirmation.details;
  if (confirmation.timing)
    record["second_input_set"] = timingRecord(*confirmation.timing);
  return record;
}

/// Where a bundle ran, as the runner said (docs/ray.md); empty fields are
/// left out.
static llvm::json::Object
placementRecord(const runtime::BundlePlacement &placement) {
  llvm::json::Object record;
  auto add = [&](llvm::StringRef key, const std::string &value) {
    if (!value.empty())
      record[key] = value;
  };
  add("hostname", placement.hostname);
  add("node_id", placement.nodeId);
  add("node_ip", placement.nodeIp);
  if (placement.workerPid)
    record["worker_pid"] = placement.workerPid;
  add("cuda_visible_devices", placement.cudaVisibleDevices);
  add("gpu", placement.gpu);
  add("gpu_uuid", placement.gpuUuid);
  if (placement.device) {
    record["device"] = placement.device->name;
    record["driver_version"] = placement.device->driverVersionText();
  }
  record["attempts"] = placement.attempts;
  if (!placement.failures.empty())
    record["failures"] = stringArray(placement.failures);
  record["task_seconds"] = placement.taskSeconds;
  return record;
}

static llvm::json::Object candidateRecord(const Candidate &candidate) {
  llvm::json::Array resources;
  for (const ptx::ResourceReport &report : candidate.resources)
    resources.push_back(ptx::toJson(report));
  llvm::json::Object record{{"name", candidate.name()},
                            {"level", checkLevelName(candidate.level)},
                            {"compiler", candidate.compiler},
                            {"resources", std::move(resources)}};
  if (candidate.launch)
    record["launch"] = candidate.launch->toJson();
  if (candidate.language == llm::SourceLanguage::CUDA) {
    record["language"] = "cuda";
    record["cuda_compiler"] = candidate.cudaCompiler;
    record["cuda_source"] = candidate.cudaSource;
  }
  if (candidate.verdict)
    record["exec_verdict"] = runtime::verdictName(*candidate.verdict);
  if (!candidate.verdictDetails.empty())
    record["exec_details"] = candidate.verdictDetails;
  if (candidate.timing)
    record["timing"] = timingRecord(*candidate.timing);
  if (candidate.largestShapeTiming)
    record["largest_checked_shape_timing"] =
        timingRecord(*candidate.largestShapeTiming);
  if (candidate.confirmation)
    record["confirmation"] = confirmationRecord(*candidate.confirmation);
  if (!candidate.measurements.empty())
    record["measurements"] = candidate.measurements;
  if (candidate.placement)
    record["placement"] = placementRecord(*candidate.placement);
  return record;
}

static llvm::json::Array roundRecords(const std::vector<RoundRecord> &rounds) {
  llvm::json::Array records;
  for (const RoundRecord &round : rounds) {
    llvm::json::Object entry{{"round", round.round},
                             {"incumbent", round.incumbent},
                             {"candidates", stringArray(round.candidates)},
                             {"gained", round.gained},
                             {"note", round.note}};
    if (!round.best.empty())
      entry["best"] = round.best;
    records.push_back(std::move(entry));
  }
  return records;
}

llvm::json::Object llmptx::kernelRecord(const KernelWork &work,
                                        llvm::StringRef moduleName) {
  llvm::json::Array attempts;
  for (const SampleOutcome *sample : work.allSamples())
    for (const Attempt &attempt : sample->attempts)
      attempts.push_back(attemptRecord(attempt));
  llvm::json::Array candidates;
  for (const SampleOutcome *sample : work.allSamples())
    for (const Candidate &rejected : sample->rejected)
      candidates.push_back(candidateRecord(rejected));
  for (const Candidate *candidate : work.candidates)
    candidates.push_back(candidateRecord(*candidate));
  // The reference as its kernel calls it: "nvptx", or "iree" for a dispatch.
  std::string reference =
      work.description ? work.description->referenceKind : "nvptx";
  llvm::json::Object record{
      {"name", work.description ? work.description->name : std::string()},
      {"module", moduleName},
      {"selected", work.choice.selected ? std::string("llm") : reference},
      {"reason", work.choice.reason},
      {"verification", checkLevelName(work.choice.verification)},
      {"attempts", std::move(attempts)},
      {"candidates", std::move(candidates)}};
  if (work.choice.selected)
    record["candidate"] = work.choice.selected->name();
  if (!work.execNote.empty())
    record["exec_note"] = work.execNote;
  if (!work.rounds.empty() || !work.roundsNote.empty()) {
    record["rounds"] = roundRecords(work.rounds);
    record["rounds_note"] = work.roundsNote;
  }
  if (work.description) {
    const LaunchFreedom &freedom = work.description->launch;
    record["launch_freedom"] =
        freedom.allowed
            ? llvm::formatv("allowed: {0} host launch(es) of {1}",
                            freedom.launches, freedom.original.str())
                  .str()
            : "fixed: " + freedom.reason;
  }
  return record;
}

llvm::json::Object llmptx::referenceKernelRecord(llvm::StringRef name,
                                                 llvm::StringRef moduleName,
                                                 llvm::StringRef reason) {
  return llvm::json::Object{{"name", name},
                            {"module", moduleName},
                            {"selected", "nvptx"},
                            {"reason", reason},
                            {"verification", "none"},
                            {"attempts", llvm::json::Array()},
                            {"candidates", llvm::json::Array()}};
}
