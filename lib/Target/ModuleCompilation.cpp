//===- ModuleCompilation.cpp - Decide the objects of a gpu.module -*- C++ -*-//
//
// MLIR is read on the calling thread (describeKernels) and written there
// (the outcome attribute); the model calls, checks and runner work on plain
// data in a thread pool. Every failure of the LLM path ends in the reference
// and a remark unless the user asked for strict.
//
//===----------------------------------------------------------------------===//

#include "ModuleCompilation.h"

#include "CandidateSearch.h"
#include "ExecVerification.h"
#include "KernelFacts.h"
#include "LaunchFreedom.h"
#include "PtxComposition.h"
#include "RunReport.h"

#include "llmptx/LLM/Secrets.h"
#include "llmptx/PTX/CompileCheck.h"
#include "llmptx/PTX/Parser.h"
#include "llmptx/Runtime/Statistics.h"
#include "llmptx/Target/ReferenceBuild.h"
#include "llmptx/Target/TargetSettings.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <deque>
#include <mutex>

using namespace mlir;
using namespace llmptx;

namespace {

/// The decision for one kernel.
struct KernelChoice {
  const Candidate *selected = nullptr;  ///< Null: the reference.
  const Candidate *alternate = nullptr; ///< Null: the reference.
  std::string reason;
  /// Highest level any candidate of the kernel was checked at.
  std::string verification = "none";
  bool fellBack = false; ///< The policy wanted an LLM kernel and got none.
};

/// One optimization round of one kernel.
struct RoundRecord {
  unsigned round = 0;
  std::string incumbent; ///< The kernel to beat ("reference" or a name).
  std::vector<std::string> candidates;
  std::string best; ///< The round's fastest verified candidate, if any.
  bool gained = false;
  std::string note;
};

/// Everything produced for one kernel.
struct KernelWork {
  const KernelDescription *description = nullptr;
  llm::KernelSpec spec;
  std::vector<SampleOutcome> samples;
  /// The samples of the optimization rounds (a deque: candidates point
  /// into it).
  std::deque<SampleOutcome> roundSamples;
  std::vector<Candidate *> candidates;
  std::string execNote; ///< Why execution did not verify it.
  /// What the runner measured of the reference, one fact per line.
  std::string referenceMeasurements;
  /// After optimization rounds: the fastest kernel verified beyond the
  /// noise (null: the reference), which the choice prefers.
  const Candidate *incumbent = nullptr;
  std::vector<RoundRecord> rounds;
  /// Why the rounds stopped (or did not start).
  std::string roundsNote;
  KernelChoice choice;

  /// Every sample, of the first search and of the rounds.
  std::vector<const SampleOutcome *> allSamples() const {
    std::vector<const SampleOutcome *> all;
    for (const SampleOutcome &sample : samples)
      all.push_back(&sample);
    for (const SampleOutcome &sample : roundSamples)
      all.push_back(&sample);
    return all;
  }
};

/// Kernels and the candidates each bundle of a verification run holds.
using Batch =
    std::vector<std::pair<KernelWork *, std::vector<const Candidate *>>>;

} // namespace

static llvm::StringRef policyName(llmgen::SelectPolicy policy) {
  return llmgen::stringifySelectPolicy(policy);
}

/// Progress on stderr while kernels are in flight: on by default when
/// stderr is a terminal; LLMPTX_PROGRESS=1 or 0 forces it.
static bool progressEnabled() {
  if (const char *setting = std::getenv("LLMPTX_PROGRESS"))
    return llvm::StringRef(setting) != "0";
  return llvm::errs().is_displayed();
}

/// "no GPU" is said once per process, not once per module.
static std::atomic<bool> saidNoDevice{false};

/// One line of text: remarks and properties stay on a line each.
static std::string oneLine(llvm::StringRef text) {
  std::string line;
  for (char c : text.trim())
    line += (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
  return line;
}

static std::string
joinStatuses(const std::vector<const SampleOutcome *> &samples) {
  std::vector<std::string> parts;
  for (const SampleOutcome *sample : samples) {
    if (sample->attempts.empty())
      continue;
    const Attempt &last = sample->attempts.back();
    std::string part =
        llvm::formatv("{0}sample {1}: {2}",
                      last.optimizationRound
                          ? "round " + std::to_string(last.optimizationRound) +
                                " "
                          : std::string(),
                      last.sample, last.status);
    if (last.status == "provider-error")
      part += " (" + oneLine(last.note) + ")";
    else if (!last.diagnostics.empty())
      part +=
          " (" +
          oneLine(llvm::StringRef(last.diagnostics.front()).split('\n').first) +
          ")";
    parts.push_back(std::move(part));
  }
  return llvm::join(parts, "; ");
}

static bool failedExec(const Candidate &candidate) {
  return !candidate.execVerdict.empty() && candidate.execVerdict != "pass";
}

static bool passedExec(const Candidate &candidate) {
  return candidate.execVerdict == "pass";
}

/// Whether a candidate may fill a slot at all: never after failing
/// execution, and a candidate with its own launch only once execution
/// verified it under that launch.
static bool usable(const Candidate &candidate) {
  return !failedExec(candidate) && (!candidate.launch || passedExec(candidate));
}

/// "; under its own launch grid (...), block (...)" for a candidate that
/// brings one.
static std::string launchNote(const Candidate &candidate) {
  if (!candidate.launch)
    return {};
  return "; under its own launch " + candidate.launch->str();
}

/// Orders candidates best first: verified by execution (fastest first),
/// then by check level, then by sample.
static void rankCandidates(std::vector<Candidate *> &candidates) {
  llvm::stable_sort(candidates, [](const Candidate *a, const Candidate *b) {
    if (passedExec(*a) != passedExec(*b))
      return passedExec(*a);
    if (passedExec(*a) && a->speedup && b->speedup &&
        *a->speedup != *b->speedup)
      return *a->speedup > *b->speedup;
    if (failedExec(*a) != failedExec(*b))
      return !failedExec(*a);
    if (a->level != b->level)
      return a->level > b->level;
    return a->sample < b->sample;
  });
}

static std::string describeSpeed(const Candidate &candidate) {
  if (!candidate.speedup)
    return "not timed";
  // The bound decides; results of runners without one show the pair spread.
  if (candidate.boundLo && candidate.boundHi)
    return llvm::formatv("{0:f2}x the reference (95% CI {1:f2}..{2:f2}, {3})",
                         *candidate.speedup, *candidate.boundLo,
                         *candidate.boundHi, candidate.comparison)
        .str();
  return llvm::formatv("{0:f2}x the reference (pairs p10..p90 {1:f2}..{2:f2}, "
                       "{3})",
                       *candidate.speedup, candidate.spreadLo.value_or(0),
                       candidate.spreadHi.value_or(0), candidate.comparison)
      .str();
}

static KernelChoice choose(KernelWork &work, const TargetSettings &settings) {
  KernelChoice choice;
  rankCandidates(work.candidates);
  // After optimization rounds the incumbent comes first: a later candidate
  // whose median is higher but within the noise does not displace it.
  if (work.incumbent)
    std::stable_partition(work.candidates.begin(), work.candidates.end(),
                          [&](const Candidate *candidate) {
                            return candidate == work.incumbent;
                          });
  for (const Candidate *candidate : work.candidates) {
    if (passedExec(*candidate)) {
      choice.verification = "exec";
      break;
    }
    if (candidate->level == CheckLevel::Compile)
      choice.verification = "compile";
    else if (candidate->level == CheckLevel::Lint &&
             choice.verification == "none")
      choice.verification = "lint";
  }

  // The best candidate never includes one that failed execution, nor one
  // whose own launch was not verified.
  const Candidate *best = nullptr;
  for (const Candidate *candidate : work.candidates)
    if (usable(*candidate)) {
      best = candidate;
      break;
    }

  auto explainMissing = [&]() -> std::string {
    std::vector<std::string> failures;
    for (const SampleOutcome *sample : work.allSamples())
      for (const Candidate &rejected : sample->rejected)
        failures.push_back(rejected.name() + ": " +
                           (rejected.execDetails.empty()
                                ? rejected.execVerdict
                                : rejected.execDetails));
    for (const Candidate *candidate : work.candidates)
      if (failedExec(*candidate))
        failures.push_back(candidate->name() + ": " +
                           (candidate->execDetails.empty()
                                ? candidate->execVerdict
                                : candidate->execDetails));
    std::vector<std::string> unverifiedLaunches;
    for (const Candidate *candidate : work.candidates)
      if (candidate->launch && candidate->execVerdict.empty())
        unverifiedLaunches.push_back(candidate->name());
    if (failures.empty() && !unverifiedLaunches.empty())
      return (unverifiedLaunches.size() == 1
                  ? "candidate " + unverifiedLaunches.front() +
                        " brings its own launch, which is"
                  : "candidates " + llvm::join(unverifiedLaunches, ", ") +
                        " bring their own launch, which is") +
             " taken only after verification by execution, and that did not "
             "run" +
             (work.execNote.empty() ? std::string() : ": " + work.execNote);
    if (failures.empty())
      return "no valid candidate: " + joinStatuses(work.allSamples());
    std::string reason = "every candidate failed verification by execution: " +
                         llvm::join(failures, "; ");
    if (work.candidates.empty())
      reason += "; then " + joinStatuses(work.allSamples());
    return reason;
  };

  switch (settings.select) {
  case llmgen::SelectPolicy::NVPTX:
    choice.reason = "select=nvptx";
    choice.alternate = best;
    return choice;
  case llmgen::SelectPolicy::LLM:
    if (best) {
      choice.selected = best;
      choice.reason =
          llvm::formatv("select=llm: candidate {0}, checked at "
                        "level {1}{2}",
                        best->name(),
                        passedExec(*best) ? llvm::StringRef("exec")
                                          : checkLevelName(best->level),
                        passedExec(*best) ? ", " + describeSpeed(*best)
                                          : std::string())
              .str() +
          launchNote(*best);
      return choice;
    }
    choice.reason = explainMissing();
    choice.fellBack = true;
    return choice;
  case llmgen::SelectPolicy::Auto:
    break;
  }

  // select=auto: verified by execution and not slower.
  for (const Candidate *candidate : work.candidates) {
    if (!passedExec(*candidate))
      continue;
    if (candidate->suspicious) {
      choice.reason =
          llvm::formatv("candidate {0} passed but its speedup is "
                        "suspicious ({1}); treated as a bug",
                        candidate->name(), describeSpeed(*candidate))
              .str();
      continue;
    }
    if (candidate->comparison == "slower") {
      if (choice.reason.empty())
        choice.reason =
            llvm::formatv("candidate {0} passed but is slower: {1}",
                          candidate->name(), describeSpeed(*candidate))
                .str();
      continue;
    }
    choice.selected = candidate;
    choice.reason = llvm::formatv("candidate {0} verified by execution, {1}",
                                  candidate->name(), describeSpeed(*candidate))
                        .str() +
                    launchNote(*candidate);
    return choice;
  }
  choice.alternate = best;
  choice.fellBack = true;
  if (!choice.reason.empty())
    return choice;
  if (best && best->execVerdict.empty())
    choice.reason =
        "select=auto needs verification by execution, which did not run "
        "for candidate " +
        best->name() + ": " +
        (work.execNote.empty()
             ? std::string("verify=") +
                   llmgen::stringifyVerifyLevel(settings.verification).str()
             : work.execNote);
  else
    choice.reason = explainMissing();
  return choice;
}

static NamedAttribute named(Builder &builder, StringRef name, StringRef value) {
  return builder.getNamedAttr(name, builder.getStringAttr(value));
}

/// Per-kernel provenance of one object.
/// The launch an object needs for a kernel, with where the host reads each
/// size: {block = array<i64: x, y, z>, grid = ["...", "...", "..."],
/// sizes = {N = array<i64: arg>, M = array<i64: arg, dim>}}.
static DictionaryAttr launchRecord(Builder &builder, const LaunchConfig &launch,
                                   const LaunchFreedom &freedom) {
  SmallVector<Attribute> grid;
  for (const std::string &dim : launch.grid)
    grid.push_back(builder.getStringAttr(dim));
  SmallVector<NamedAttribute> sizes;
  for (const SizeSource &source : freedom.sources) {
    if (llvm::any_of(sizes, [&](const NamedAttribute &entry) {
          return entry.getName() == source.size;
        }))
      continue;
    SmallVector<int64_t> where = {source.argIndex};
    if (source.dim >= 0)
      where.push_back(source.dim);
    sizes.push_back(
        builder.getNamedAttr(source.size, builder.getDenseI64ArrayAttr(where)));
  }
  return builder.getDictionaryAttr(
      {builder.getNamedAttr("block",
                            builder.getDenseI64ArrayAttr(launch.block)),
       builder.getNamedAttr("grid", builder.getArrayAttr(grid)),
       builder.getNamedAttr("sizes", builder.getDictionaryAttr(sizes))});
}

static DictionaryAttr kernelProvenance(Builder &builder, const KernelWork &work,
                                       const Candidate *used, StringRef reason,
                                       const LaunchConfig *launch) {
  SmallVector<NamedAttribute> entries;
  if (launch)
    entries.push_back(builder.getNamedAttr(
        "launch", launchRecord(builder, *launch, work.description->launch)));
  unsigned attempts = 0;
  for (const SampleOutcome *sample : work.allSamples())
    attempts += sample->attempts.size();
  entries.push_back(named(builder, "source", used ? "llm" : "nvptx"));
  entries.push_back(named(builder, "reason", llm::redactSecrets(reason)));
  entries.push_back(
      builder.getNamedAttr("attempts", builder.getI64IntegerAttr(attempts)));
  if (used) {
    entries.push_back(named(builder, "candidate", used->name()));
    entries.push_back(named(builder, "model", used->model));
    entries.push_back(named(builder, "prompt_hash", used->promptHash));
    entries.push_back(
        named(builder, "verification",
              passedExec(*used) ? "exec" : checkLevelName(used->level)));
    if (!used->fixes.empty())
      entries.push_back(named(builder, "fixes", llvm::join(used->fixes, "; ")));
    if (used->speedup)
      entries.push_back(builder.getNamedAttr(
          "speedup", builder.getF64FloatAttr(*used->speedup)));
    if (used->referenceMs)
      entries.push_back(builder.getNamedAttr(
          "reference_ms", builder.getF64FloatAttr(*used->referenceMs)));
    if (used->candidateMs)
      entries.push_back(builder.getNamedAttr(
          "candidate_ms", builder.getF64FloatAttr(*used->candidateMs)));
  }
  return builder.getDictionaryAttr(entries);
}

static llvm::json::Object attemptRecord(const Attempt &attempt) {
  llvm::json::Array diagnostics;
  for (const std::string &line : attempt.diagnostics)
    diagnostics.push_back(line);
  llvm::json::Array fixes;
  for (const std::string &fix : attempt.fixes)
    fixes.push_back(fix);
  llvm::json::Object record{{"optimization_round", attempt.optimizationRound},
                            {"sample", attempt.sample},
                            {"round", attempt.round},
                            {"status", attempt.status},
                            {"diagnostics", std::move(diagnostics)},
                            {"fixes", std::move(fixes)},
                            {"model", attempt.model},
                            {"prompt_hash", attempt.promptHash},
                            {"prompt_tokens", attempt.promptTokens},
                            {"completion_tokens", attempt.completionTokens},
                            {"latency_ms", attempt.latencyMs},
                            {"cache_hit", attempt.cacheHit}};
  if (!attempt.note.empty())
    record["note"] = attempt.note;
  if (!attempt.warnings.empty()) {
    llvm::json::Array warnings;
    for (const std::string &warning : attempt.warnings)
      warnings.push_back(warning);
    record["warnings"] = std::move(warnings);
  }
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
  if (candidate.launch) {
    llvm::json::Array grid, block;
    for (unsigned i = 0; i < 3; ++i) {
      grid.push_back(candidate.launch->grid[i]);
      block.push_back(candidate.launch->block[i]);
    }
    record["launch"] = llvm::json::Object{{"grid", std::move(grid)},
                                          {"block", std::move(block)}};
  }
  if (!candidate.execVerdict.empty())
    record["exec_verdict"] = candidate.execVerdict;
  if (!candidate.execDetails.empty())
    record["exec_details"] = candidate.execDetails;
  if (candidate.speedup) {
    record["timing"] = llvm::json::Object{
        {"speedup", *candidate.speedup},
        {"pair_ratio_p10", candidate.spreadLo.value_or(0)},
        {"pair_ratio_p90", candidate.spreadHi.value_or(0)},
        {"speedup_ci95", candidate.boundHi
                             ? llvm::json::Value(llvm::json::Array{
                                   *candidate.boundLo, *candidate.boundHi})
                             : llvm::json::Value(nullptr)},
        {"reference_ms", candidate.referenceMs.value_or(0)},
        {"candidate_ms", candidate.candidateMs.value_or(0)},
        {"comparison", candidate.comparison},
        {"suspicious", candidate.suspicious}};
  }
  if (!candidate.measurements.empty())
    record["measurements"] = candidate.measurements;
  return record;
}

static llvm::json::Object kernelRecord(const KernelWork &work,
                                       StringRef moduleName) {
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
  llvm::json::Object record{
      {"name", work.description ? work.description->name : std::string()},
      {"module", moduleName},
      {"selected", work.choice.selected ? "llm" : "nvptx"},
      {"reason", work.choice.reason},
      {"verification", work.choice.verification},
      {"attempts", std::move(attempts)},
      {"candidates", std::move(candidates)}};
  if (work.choice.selected)
    record["candidate"] = work.choice.selected->name();
  if (!work.execNote.empty())
    record["exec_note"] = work.execNote;
  if (!work.rounds.empty() || !work.roundsNote.empty()) {
    llvm::json::Array rounds;
    for (const RoundRecord &round : work.rounds) {
      llvm::json::Array names;
      for (const std::string &name : round.candidates)
        names.push_back(name);
      llvm::json::Object entry{{"round", round.round},
                               {"incumbent", round.incumbent},
                               {"candidates", std::move(names)},
                               {"gained", round.gained},
                               {"note", round.note}};
      if (!round.best.empty())
        entry["best"] = round.best;
      rounds.push_back(std::move(entry));
    }
    record["rounds"] = std::move(rounds);
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

static llvm::json::Object settingsRecord(const TargetSettings &settings) {
  return llvm::json::Object{
      {"chip", settings.chip},
      {"provider", settings.provider},
      {"model", settings.model},
      {"samples", settings.samples},
      {"repairs", settings.repairs},
      {"rounds", settings.rounds},
      {"mode", llmgen::stringifyMode(settings.mode)},
      {"verify", llmgen::stringifyVerifyLevel(settings.verification)},
      {"select", policyName(settings.select)},
      {"cache", llmgen::stringifyCacheMode(settings.cache)},
      {"strict", settings.strict}};
}

/// The outcome of a module whose objects are both the reference.
static DictionaryAttr referenceOnly(MLIRContext *context, StringRef ptx,
                                    StringRef reason) {
  Builder builder(context);
  NamedAttribute provenance[] = {named(builder, "llmgen.source", "nvptx"),
                                 named(builder, "llmgen.reason", reason)};
  DictionaryAttr slot = builder.getDictionaryAttr(
      {named(builder, "ptx", ptx),
       builder.getNamedAttr("properties",
                            builder.getDictionaryAttr(provenance))});
  return builder.getDictionaryAttr({builder.getNamedAttr("selected", slot),
                                    builder.getNamedAttr("alternate", slot)});
}

/// Settles a module without LLM kernels: remark, strict error, report.
static FailureOr<DictionaryAttr>
settleOnReference(gpu::GPUModuleOp module, const TargetSettings &settings,
                  const ReferenceBuild &reference, StringRef reason,
                  bool isFallback) {
  if (isFallback && settings.strict) {
    module.emitError() << "llmgen: strict: no LLM kernel for module @"
                       << module.getName() << ": " << reason;
    return failure();
  }
  emitRemark(module.getLoc())
      << "llmgen: using the NVPTX reference: " << reason;
  if (!settings.report.empty()) {
    llvm::json::Array kernels;
    for (auto func : module.getOps<LLVM::LLVMFuncOp>())
      if (func->hasAttr(gpu::GPUDialect::getKernelFuncAttrName()))
        kernels.push_back(
            llvm::json::Object{{"name", func.getName().str()},
                               {"module", module.getName().str()},
                               {"selected", "nvptx"},
                               {"reason", reason},
                               {"verification", "none"},
                               {"attempts", llvm::json::Array()},
                               {"candidates", llvm::json::Array()}});
    std::string error =
        appendToReport(settings.report, settingsRecord(settings),
                       llvm::json::Object{{"name", module.getName().str()},
                                          {"selected", "nvptx"},
                                          {"reason", reason}},
                       std::move(kernels));
    if (!error.empty())
      emitWarning(module.getLoc()) << "llmgen: report: " << error;
  }
  return referenceOnly(module.getContext(), reference.ptx, reason);
}

static std::string ptxIsaOf(StringRef ptxText) {
  ptx::ParseResult parsed = ptx::parsePtx(ptxText);
  unsigned version = parsed.module.version();
  if (!version)
    return "8.0";
  return llvm::formatv("{0}.{1}", version / 10, version % 10).str();
}

static std::string resourcesText(const std::vector<ptx::ResourceReport> &all,
                                 StringRef entry) {
  for (const ptx::ResourceReport &report : all)
    if (report.entry == entry)
      return llvm::formatv("registers {0}, spill stores {1}, spill loads {2}, "
                           "shared {3} B, stack {4} B, constant {5} B, "
                           "barriers {6}",
                           report.registers, report.spillStores,
                           report.spillLoads, report.sharedBytes,
                           report.localBytes, report.constantBytes,
                           report.barriers)
          .str();
  return {};
}

/// Where bundles go: emit-bundles, else a fresh temporary directory.
static std::string bundleDirectory(const TargetSettings &settings,
                                   StringRef moduleName, std::string &error) {
  if (!settings.emitBundles.empty()) {
    if (std::error_code ec =
            llvm::sys::fs::create_directories(settings.emitBundles))
      error = "cannot create " + settings.emitBundles + ": " + ec.message();
    return settings.emitBundles;
  }
  llvm::SmallString<256> directory;
  if (std::error_code ec = llvm::sys::fs::createUniqueDirectory(
          "llmgen-" + moduleName.str(), directory))
    error = "cannot create a temporary directory: " + ec.message();
  return directory.str().str();
}

/// The launch block of `launch` as an answer writes it.
static std::string launchBlockText(const LaunchConfig &launch) {
  llvm::json::Array grid, block;
  for (unsigned i = 0; i < 3; ++i) {
    grid.push_back(launch.grid[i]);
    block.push_back(launch.block[i]);
  }
  return llvm::formatv("{0}", llvm::json::Value(llvm::json::Object{
                                  {"block", std::move(block)},
                                  {"grid", std::move(grid)}}))
      .str();
}

/// Whether `candidate` may become the incumbent: verified, timed with a
/// bound, not suspicious and not slower than the reference.
static bool canLead(const Candidate &candidate) {
  return passedExec(candidate) && candidate.boundLo && candidate.boundHi &&
         !candidate.suspicious && candidate.comparison != "slower";
}

/// "s0r0 1.52x (95% CI 1.49..1.55)".
static std::string speedText(const Candidate &candidate) {
  return llvm::formatv("{0} {1:f3}x (95% CI {2:f3}..{3:f3})", candidate.name(),
                       candidate.speedup.value_or(0),
                       candidate.boundLo.value_or(0),
                       candidate.boundHi.value_or(0))
      .str();
}

/// What the next round's prompt says about the incumbent (null: the
/// reference).
static llm::Incumbent
describeIncumbent(const KernelWork &work, const Candidate *incumbent,
                  StringRef referencePtx,
                  const std::vector<ptx::ResourceReport> &referenceResources) {
  llm::Incumbent described;
  const std::string &name = work.description->name;
  std::string ptxas;
  if (!incumbent) {
    described.ptx = referencePtx.str();
    described.measurements = work.referenceMeasurements;
    ptxas = resourcesText(referenceResources, name);
  } else {
    described.name = incumbent->name();
    described.ptx = incumbent->ptx;
    if (incumbent->launch)
      described.launch = launchBlockText(*incumbent->launch);
    described.measurements =
        "speed: " + describeSpeed(*incumbent) + "\n" + incumbent->measurements;
    ptxas = resourcesText(incumbent->resources, name);
    if (!work.referenceMeasurements.empty())
      described.measurements +=
          "the reference, in the same run:\n" + work.referenceMeasurements;
  }
  if (!ptxas.empty())
    described.measurements += "ptxas -v here: " + ptxas + "\n";
  return described;
}

/// Optimization rounds: while a kernel's last round gained, ask `samples`
/// new conversations to beat its best verified kernel (shown with what was
/// measured), verify and time them in one bundle with the incumbent re-timed
/// beside them, and keep the fastest only when its confidence interval lies
/// above the incumbent's. A round that gains nothing beyond the noise ends
/// the kernel's rounds.
static void runOptimizationRounds(
    std::vector<KernelWork> &work, const TargetSettings &settings,
    const SearchSettings &search, llm::Provider &provider, bool executed,
    StringRef referencePtx,
    const std::vector<ptx::ResourceReport> &referenceResources,
    llvm::function_ref<bool(const Batch &, StringRef)> verify, Location loc) {
  std::vector<KernelWork *> active;
  for (KernelWork &item : work) {
    if (!executed || item.referenceMeasurements.empty()) {
      item.roundsNote =
          "no optimization rounds: they need the kernel verified and timed by "
          "execution first" +
          (item.execNote.empty() ? std::string() : " (" + item.execNote + ")");
      continue;
    }
    std::vector<Candidate *> ranked = item.candidates;
    rankCandidates(ranked);
    for (Candidate *candidate : ranked)
      if (canLead(*candidate)) {
        item.incumbent = candidate;
        break;
      }
    active.push_back(&item);
  }

  for (unsigned round = 1;
       round <= static_cast<unsigned>(settings.rounds) && !active.empty();
       ++round) {
    // Ask every sample of every active kernel in parallel.
    std::vector<std::pair<KernelWork *, llm::Prompt>> prompts;
    for (KernelWork *item : active) {
      llm::Incumbent incumbent = describeIncumbent(
          *item, item->incumbent, referencePtx, referenceResources);
      prompts.emplace_back(
          item, llm::renderImprovePrompt(item->spec, incumbent, round));
    }
    std::vector<std::vector<SampleOutcome>> outcomes(active.size());
    {
      unsigned tasks = active.size() * settings.samples;
      llvm::DefaultThreadPool pool(llvm::hardware_concurrency(
          settings.jobs > 0 ? settings.jobs : std::min<unsigned>(tasks, 8)));
      for (auto [index, entry] : llvm::enumerate(prompts)) {
        outcomes[index].resize(settings.samples);
        for (int sample = 0; sample < settings.samples; ++sample)
          pool.async([&, index = index, sample, entry = &entry]() {
            outcomes[index][sample] =
                improveSample(*entry->first->description, entry->second, round,
                              sample, provider, search);
          });
      }
      pool.wait();
    }

    Batch batch;
    std::vector<KernelWork *> stillActive;
    std::vector<std::pair<KernelWork *, std::vector<Candidate *>>> fresh;
    for (auto [index, item] : llvm::enumerate(active)) {
      RoundRecord record;
      record.round = round;
      record.incumbent =
          item->incumbent ? item->incumbent->name() : "reference";
      std::vector<Candidate *> made;
      for (SampleOutcome &outcome : outcomes[index]) {
        item->roundSamples.push_back(std::move(outcome));
        SampleOutcome &kept = item->roundSamples.back();
        if (kept.candidate) {
          made.push_back(&*kept.candidate);
          item->candidates.push_back(&*kept.candidate);
          record.candidates.push_back(kept.candidate->name());
        }
      }
      if (made.empty()) {
        std::vector<const SampleOutcome *> asked;
        for (unsigned i = item->roundSamples.size() - settings.samples;
             i < item->roundSamples.size(); ++i)
          asked.push_back(&item->roundSamples[i]);
        record.note = "no candidate passed the checks: " + joinStatuses(asked);
        item->roundsNote =
            llvm::formatv("stopped in round {0}: {1}", round, record.note);
        emitRemark(loc) << "llmgen: @" << item->description->name
                        << ": optimization round " << round << ": "
                        << record.note;
        item->rounds.push_back(std::move(record));
        continue;
      }
      std::vector<const Candidate *> chosen(made.begin(), made.end());
      if (item->incumbent)
        chosen.push_back(item->incumbent);
      batch.emplace_back(item, std::move(chosen));
      item->rounds.push_back(std::move(record));
      fresh.emplace_back(item, std::move(made));
    }
    active.clear();
    if (batch.empty())
      break;
    if (!verify(batch, ".o" + std::to_string(round))) {
      for (auto &[item, made] : fresh)
        item->roundsNote = llvm::formatv("stopped in round {0}: its candidates "
                                         "were not verified by execution ({1})",
                                         round, item->execNote);
      break;
    }

    for (auto &[item, made] : fresh) {
      RoundRecord &record = item->rounds.back();
      const Candidate *incumbent = item->incumbent;
      if (incumbent && !canLead(*incumbent)) {
        // Re-verified beside the round's candidates, it no longer leads.
        record.note = "the incumbent " + incumbent->name() +
                      " failed its re-check: " +
                      (incumbent->execDetails.empty()
                           ? incumbent->execVerdict + " " +
                                 incumbent->comparison
                           : incumbent->execDetails);
        item->incumbent = incumbent = nullptr;
      }
      rankCandidates(made);
      const Candidate *best = nullptr;
      for (const Candidate *candidate : made)
        if (canLead(*candidate)) {
          best = candidate;
          break;
        }
      if (best)
        record.best = best->name();
      // Faster beyond the noise: "faster" than the reference when the
      // incumbent is the reference, else an interval above the incumbent's
      // (measured in the same run) by the runner's same-speed margin. The
      // margin is needed: the intervals of one kernel measured twice in
      // one run can be disjoint (docs/pipeline.md).
      bool gained =
          best &&
          (incumbent ? *best->boundLo >
                           *incumbent->boundHi * (1 + runtime::kSameMargin)
                     : best->comparison == "faster");
      record.gained = gained;
      std::string against =
          incumbent ? speedText(*incumbent) : std::string("the reference");
      if (gained) {
        record.note = speedText(*best) + " beats " + against;
        item->incumbent = best;
        stillActive.push_back(item);
      } else {
        if (!record.note.empty())
          record.note += "; ";
        record.note +=
            best ? "gained nothing beyond the noise: " + speedText(*best) +
                       " against " + against +
                       llvm::formatv(" (a gain needs an interval {0:f0}% above "
                                     "the incumbent's)",
                                     100 * runtime::kSameMargin)
                           .str()
                 : std::string("no candidate of the round passed and was timed "
                               "without being slower");
        item->roundsNote =
            llvm::formatv("stopped after round {0}: {1}", round, record.note);
      }
      emitRemark(loc) << "llmgen: @" << item->description->name
                      << ": optimization round " << round << ": "
                      << record.note;
    }
    active = std::move(stillActive);
  }
  for (KernelWork *item : active)
    item->roundsNote = llvm::formatv("all {0} round(s) ran", settings.rounds);
}

FailureOr<DictionaryAttr>
llmptx::decideModuleOutcome(llmgen::TargetAttr target, Operation *op,
                            const gpu::TargetOptions &options) {
  auto module = cast<gpu::GPUModuleOp>(op);
  MLIRContext *context = module.getContext();
  TargetSettings settings = TargetSettings::resolve(target);
  std::optional<ReferenceBuild> reference =
      buildReference(module, target.getReferenceTarget(), options);
  if (!reference)
    return failure();

  if (settings.provider.empty())
    return settleOnReference(
        module, settings, *reference,
        "no provider configured (set provider= or LLMPTX_PROVIDER)",
        /*isFallback=*/true);

  FailureOr<std::vector<KernelDescription>> kernels =
      describeKernels(module, reference->ptx,
                      settings.verification == llmgen::VerifyLevel::Exec);
  if (failed(kernels))
    return failure();
  if (kernels->empty())
    return settleOnReference(module, settings, *reference,
                             "the module has no kernels",
                             /*isFallback=*/false);

  // The provider.
  llm::ProviderConfig config = llm::ProviderConfig::fromEnvironment();
  config.kind = settings.provider;
  config.model = settings.model;
  config.baseUrl = settings.baseUrl;
  config.execCommand = settings.execCommand;
  if (!settings.cacheDir.empty())
    config.cacheDir = settings.cacheDir;
  config.cacheMode =
      settings.cache == llmgen::CacheMode::Off    ? llm::CacheMode::Off
      : settings.cache == llmgen::CacheMode::Read ? llm::CacheMode::Read
                                                  : llm::CacheMode::ReadWrite;
  if (settings.jobs > 0)
    config.maxInFlight = settings.jobs;
  llvm::Expected<std::unique_ptr<llm::Provider>> provider =
      llm::createProvider(config);
  if (!provider)
    return settleOnReference(
        module, settings, *reference,
        "provider '" + settings.provider + "' unavailable: " +
            llm::redactSecrets(toString(provider.takeError())),
        /*isFallback=*/true);

  // What the checks can use.
  SearchSettings search;
  search.chip = settings.chip;
  search.ptxIsa = ptxIsaOf(reference->ptx);
  search.samples = settings.samples;
  search.repairs = settings.repairs;
  search.optimize = settings.mode == llmgen::Mode::Optimize;
  search.model = settings.model;
  if (settings.verification == llmgen::VerifyLevel::None) {
    search.level = CheckLevel::None;
  } else {
    llvm::Expected<ptx::CudaToolkit> toolkit =
        ptx::findCudaToolkit(reference->toolkitPath);
    if (toolkit) {
      search.toolkit = *toolkit;
    } else {
      emitRemark(module.getLoc())
          << "llmgen: no CUDA toolkit (ptxas/nvJitLink) found: candidates "
             "are linted and ABI-checked but not compiled ("
          << toString(toolkit.takeError()) << ")";
      search.level = CheckLevel::Lint;
    }
  }

  std::vector<ptx::ResourceReport> referenceResources;
  if (search.optimize && search.toolkit) {
    ptx::CompileResult compiled =
        ptx::compilePtx(reference->ptx, settings.chip, *search.toolkit);
    referenceResources = compiled.resources;
  }

  // Specs and the work list.
  std::vector<KernelWork> work(kernels->size());
  for (auto [index, kernel] : llvm::enumerate(*kernels)) {
    KernelWork &item = work[index];
    item.description = &kernel;
    llm::KernelSpec &spec = item.spec;
    spec.kernelName = kernel.name;
    spec.mlirText = kernel.source;
    spec.ptxSignature = kernel.abi.ptxSignature();
    spec.launchFacts = kernel.launchFacts;
    spec.chip = settings.chip;
    spec.ptxIsa = search.ptxIsa;
    spec.intent = kernel.intent;
    spec.statedFacts = llvm::join(kernel.statedFacts, "\n");
    spec.launchChoice = describeLaunchChoice(kernel);
    if (search.optimize) {
      spec.referencePtx = reference->ptx;
      spec.referenceResources = resourcesText(referenceResources, kernel.name);
    }
    item.samples.resize(settings.samples);
  }

  // Every sample of every kernel in parallel; the provider bounds its own
  // requests in flight.
  unsigned tasks = work.size() * settings.samples;
  std::atomic<unsigned> finished{0};
  std::mutex progressMutex;
  bool showProgress = progressEnabled();
  search.progress = [&](StringRef line) {
    if (!showProgress)
      return;
    std::lock_guard<std::mutex> lock(progressMutex);
    llvm::errs() << llvm::formatv("[{0}/{1}] ", finished.load(), tasks) << line
                 << "\n";
  };
  {
    unsigned threads =
        settings.jobs > 0 ? settings.jobs : std::min<unsigned>(tasks, 8);
    llvm::DefaultThreadPool pool(llvm::hardware_concurrency(threads));
    for (KernelWork &item : work)
      for (int sample = 0; sample < settings.samples; ++sample)
        pool.async([&, sample, item = &item]() {
          item->samples[sample] =
              searchSample(*item->description, item->spec, StringRef(), sample,
                           **provider, search);
          ++finished;
        });
    pool.wait();
  }

  // Bundles and verification by execution; what fails execution goes back
  // to the model (a mismatch prompt) while its sample has rounds left.
  bool wantExec = settings.verification == llmgen::VerifyLevel::Exec;
  auto collectCandidates = [&]() {
    for (KernelWork &item : work) {
      item.candidates.clear();
      for (SampleOutcome &sample : item.samples)
        if (sample.candidate)
          item.candidates.push_back(&*sample.candidate);
    }
  };
  collectCandidates();
  std::string directoryError;
  std::string directory;
  if (wantExec || !settings.emitBundles.empty())
    directory = bundleDirectory(settings, module.getName(), directoryError);
  // Writes one bundle per kernel of `batch` (file name suffix `suffix`) and,
  // with verify=exec, runs them and copies the results into the candidates.
  // Returns whether the runner ran.
  auto verifyBatch = [&](const Batch &batch, StringRef suffix,
                         bool remarkMissing) {
    std::vector<std::string> bundlePaths;
    std::vector<KernelWork *> bundled;
    for (auto &[item, chosen] : batch) {
      std::string missing;
      std::optional<runtime::VerificationBundle> bundle = buildBundle(
          *item->description, settings.chip, reference->ptx, chosen, missing);
      if (!bundle) {
        item->execNote = "cannot verify @" + item->description->name +
                         " by execution: " + missing;
        if (remarkMissing)
          emitRemark(module.getLoc()) << "llmgen: " << item->execNote;
        continue;
      }
      if (!directoryError.empty()) {
        item->execNote = directoryError;
        continue;
      }
      llvm::SmallString<256> path(directory);
      llvm::sys::path::append(path, module.getName().str() + "." +
                                        item->description->name + suffix.str() +
                                        ".bundle.json");
      std::error_code ec;
      llvm::raw_fd_ostream out(path, ec);
      if (ec) {
        item->execNote =
            "cannot write " + path.str().str() + ": " + ec.message();
        continue;
      }
      out << runtime::writeBundleJson(*bundle);
      bundlePaths.push_back(path.str().str());
      bundled.push_back(item);
    }
    if (!wantExec || bundlePaths.empty())
      return false;
    RunnerOutcome ran = runBundles(bundlePaths, settings.runner, directory);
    if (!ran.ran) {
      for (KernelWork *item : bundled)
        item->execNote = ran.message;
      if (!saidNoDevice.exchange(true))
        emitRemark(module.getLoc())
            << "llmgen: verify=exec: " << ran.message
            << "; candidates are verified at the compile level only";
      return false;
    }
    for (KernelWork *item : bundled) {
      std::string error =
          applyResults(ran.resultsJson, item->description->name,
                       item->candidates, &item->referenceMeasurements);
      if (!error.empty())
        item->execNote = error;
    }
    return true;
  };

  bool executed = false;
  if (wantExec || !settings.emitBundles.empty()) {
    for (unsigned stage = 0;; ++stage) {
      Batch batch;
      for (KernelWork &item : work) {
        std::vector<const Candidate *> fresh;
        for (const Candidate *candidate : item.candidates)
          if (candidate->execVerdict.empty())
            fresh.push_back(candidate);
        if (!fresh.empty())
          batch.emplace_back(&item, std::move(fresh));
      }
      if (batch.empty() ||
          !verifyBatch(batch,
                       stage > 0 ? ".round" + std::to_string(stage) : "",
                       /*remarkMissing=*/stage == 0))
        break;
      executed = true;

      // Samples whose candidate failed, of kernels with none that passed.
      std::vector<std::pair<KernelWork *, unsigned>> retries;
      for (KernelWork &item : work) {
        if (llvm::any_of(item.candidates,
                         [](const Candidate *c) { return passedExec(*c); }))
          continue;
        for (auto [index, sample] : llvm::enumerate(item.samples))
          if (sample.candidate && failedExec(*sample.candidate) &&
              !sample.providerFailed &&
              sample.nextRound <= static_cast<unsigned>(settings.repairs))
            retries.emplace_back(&item, index);
      }
      if (retries.empty())
        break;
      {
        llvm::DefaultThreadPool pool(
            llvm::hardware_concurrency(std::min<unsigned>(retries.size(), 8)));
        for (auto [item, index] : retries)
          pool.async([&, item = item, index = index]() {
            SampleOutcome &sample = item->samples[index];
            const Candidate &failed = *sample.candidate;
            std::string feedback = llvm::formatv(
                "Your PTX compiled, but on the GPU it does not compute what "
                "the reference computes. The verifier ran both on the same "
                "inputs and found: {0}.",
                failed.execDetails.empty() ? failed.execVerdict
                                           : failed.execDetails);
            continueSample(*item->description, sample, feedback, index,
                           **provider, search);
          });
        pool.wait();
      }
      collectCandidates();
    }
  }

  if (search.optimize && settings.rounds > 0)
    runOptimizationRounds(
        work, settings, search, **provider, executed, reference->ptx,
        referenceResources,
        [&](const Batch &batch, StringRef suffix) {
          return verifyBatch(batch, suffix, /*remarkMissing=*/false);
        },
        module.getLoc());
  if (!directory.empty() && settings.emitBundles.empty() &&
      directoryError.empty())
    llvm::sys::fs::remove_directories(directory);

  // Per-kernel choices, then one module per slot.
  Builder builder(context);
  std::vector<KernelReplacement> selectedParts, alternateParts;
  for (KernelWork &item : work) {
    item.choice = choose(item, settings);
    if (item.choice.selected)
      selectedParts.push_back(
          {item.description->name, item.choice.selected->ptx});
    if (item.choice.alternate && !item.choice.selected)
      alternateParts.push_back(
          {item.description->name, item.choice.alternate->ptx});
  }

  auto compose = [&](const std::vector<KernelReplacement> &parts,
                     std::string &error) -> std::string {
    llvm::Expected<std::string> composed =
        composePtxModule(reference->ptx, parts);
    if (!composed) {
      error = toString(composed.takeError());
      return reference->ptx;
    }
    if (!parts.empty() && search.toolkit) {
      ptx::CompileResult check =
          ptx::compilePtx(*composed, settings.chip, *search.toolkit);
      if (!check.ok) {
        error = "the composed module does not compile: " +
                (check.diagnostics.empty()
                     ? check.log
                     : ptx::formatDiagnostic(check.diagnostics.front(),
                                             "composed.ptx"));
        return reference->ptx;
      }
    }
    return *composed;
  };
  std::string compositionError;
  std::string selectedPtx = compose(selectedParts, compositionError);
  if (!compositionError.empty()) {
    for (KernelWork &item : work)
      if (item.choice.selected) {
        item.choice.alternate = item.choice.selected;
        item.choice.selected = nullptr;
        item.choice.fellBack = true;
        item.choice.reason = compositionError;
      }
    alternateParts.clear();
    for (KernelWork &item : work)
      if (item.choice.alternate)
        alternateParts.push_back(
            {item.description->name, item.choice.alternate->ptx});
  }
  // The alternate slot holds the other choice: the reference when any
  // kernel was selected from the LLM, else the best unselected candidates.
  bool anySelected = llvm::any_of(
      work, [](const KernelWork &item) { return item.choice.selected; });
  std::string alternateError;
  std::string alternatePtx = reference->ptx;
  bool alternateIsLLM = false;
  if (!anySelected && !alternateParts.empty()) {
    alternatePtx = compose(alternateParts, alternateError);
    alternateIsLLM = alternateError.empty();
  }

  // Provider warnings (ignored corrupt cache entries, truncated answers),
  // each said once.
  llvm::StringSet<> warned;
  for (const KernelWork &item : work)
    for (const SampleOutcome *sample : item.allSamples())
      for (const Attempt &attempt : sample->attempts)
        for (const std::string &warning : attempt.warnings)
          if (warned.insert(warning).second)
            emitWarning(module.getLoc())
                << "llmgen: @" << item.description->name << ": "
                << oneLine(warning);

  // Remarks, strict mode and provenance.
  bool failedStrict = false;
  SmallVector<NamedAttribute> selectedKernels, alternateKernels;
  for (KernelWork &item : work) {
    const std::string &name = item.description->name;
    if (item.choice.selected) {
      emitRemark(module.getLoc())
          << "llmgen: @" << name
          << ": selected the LLM kernel: " << item.choice.reason;
    } else if (item.choice.fellBack && settings.strict) {
      module.emitError() << "llmgen: strict: @" << name
                         << " falls back to the NVPTX reference: "
                         << item.choice.reason;
      failedStrict = true;
    } else {
      emitRemark(module.getLoc())
          << "llmgen: @" << name
          << ": using the NVPTX reference: " << item.choice.reason;
    }
    const Candidate *other = alternateIsLLM ? item.choice.alternate : nullptr;
    // When either object launches the kernel differently from the original,
    // both record their launch, so llmgen-select-object can launch the
    // kernel as the object it selects needs.
    const LaunchFreedom &freedom = item.description->launch;
    auto launchOf = [&](const Candidate *candidate) {
      return candidate && candidate->launch ? *candidate->launch
                                            : freedom.original;
    };
    LaunchConfig selectedLaunch = launchOf(item.choice.selected);
    LaunchConfig alternateLaunch = launchOf(other);
    bool recordLaunch = selectedLaunch != freedom.original ||
                        alternateLaunch != freedom.original;
    selectedKernels.push_back(builder.getNamedAttr(
        name, kernelProvenance(builder, item, item.choice.selected,
                               item.choice.reason,
                               recordLaunch ? &selectedLaunch : nullptr)));
    alternateKernels.push_back(builder.getNamedAttr(
        name, kernelProvenance(builder, item, other,
                               other ? "alternate: candidate " + other->name() +
                                           ", not selected"
                                     : std::string("alternate: the NVPTX "
                                                   "reference"),
                               recordLaunch ? &alternateLaunch : nullptr)));
  }
  auto slot = [&](StringRef ptxText, bool llm, StringRef reason,
                  ArrayRef<NamedAttribute> perKernel) {
    SmallVector<NamedAttribute> properties = {
        named(builder, "llmgen.source", llm ? "llm" : "nvptx"),
        named(builder, "llmgen.reason", llm::redactSecrets(reason)),
        builder.getNamedAttr("llmgen.kernels",
                             builder.getDictionaryAttr(perKernel))};
    if (llm && !settings.model.empty())
      properties.push_back(named(builder, "llmgen.model", settings.model));
    properties.push_back(named(builder, "llmgen.provider", settings.provider));
    return builder.getDictionaryAttr(
        {named(builder, "ptx", ptxText),
         builder.getNamedAttr("properties",
                              builder.getDictionaryAttr(properties))});
  };
  unsigned llmKernels = selectedParts.size();
  std::string selectedReason =
      anySelected ? llvm::formatv("{0} of {1} kernel(s) from the LLM",
                                  llmKernels, work.size())
                        .str()
                  : (work.size() == 1
                         ? work.front().choice.reason
                         : std::string("no kernel passed the ") +
                               policyName(settings.select).str() + " policy");
  std::string alternateReason =
      alternateIsLLM ? "alternate: the best LLM candidates, not selected"
                     : "alternate: the NVPTX reference";
  DictionaryAttr outcome = builder.getDictionaryAttr(
      {builder.getNamedAttr("selected", slot(selectedPtx, anySelected,
                                             selectedReason, selectedKernels)),
       builder.getNamedAttr("alternate",
                            slot(alternatePtx, alternateIsLLM, alternateReason,
                                 alternateKernels))});

  if (!settings.report.empty()) {
    llvm::json::Array records;
    for (const KernelWork &item : work)
      records.push_back(kernelRecord(item, module.getName()));
    std::string error = appendToReport(
        settings.report, settingsRecord(settings),
        llvm::json::Object{{"name", module.getName().str()},
                           {"selected", anySelected ? "llm" : "nvptx"},
                           {"alternate", alternateIsLLM ? "llm" : "nvptx"},
                           {"reason", selectedReason}},
        std::move(records));
    if (!error.empty())
      emitWarning(module.getLoc()) << "llmgen: report: " << error;
  }
  // The report is written in strict mode too: it says why.
  if (failedStrict)
    return failure();
  return outcome;
}
