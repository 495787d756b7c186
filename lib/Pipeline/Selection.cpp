//===- Selection.cpp - Which object each kernel gets ------------*- C++ -*-===//
//
// Nothing unverified is selected under select=auto, and nothing that failed
// execution is selected under any policy; every outcome has a reason a user
// can act on.
//
//===----------------------------------------------------------------------===//

#include "llmptx/Pipeline/Selection.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace llmptx;
using runtime::Comparison;

void llmptx::rankCandidates(std::vector<Candidate *> &candidates) {
  llvm::stable_sort(candidates, [](const Candidate *a, const Candidate *b) {
    if (a->passedExecution() != b->passedExecution())
      return a->passedExecution();
    if (a->passedExecution() && a->speed() && b->speed() &&
        a->speed()->speedup != b->speed()->speedup)
      return a->speed()->speedup > b->speed()->speedup;
    if (a->failedExecution() != b->failedExecution())
      return !a->failedExecution();
    if (a->level != b->level)
      return a->level > b->level;
    return a->sample < b->sample;
  });
}

bool llmptx::isUsable(const Candidate &candidate) {
  return !candidate.failedExecution() &&
         (!candidate.launch || candidate.passedExecution());
}

bool llmptx::canLead(const Candidate &candidate, double confirmAbove) {
  const runtime::SpeedupEstimate *speed = candidate.speed();
  return candidate.passedExecution() && speed && speed->hasBound() &&
         speed->comparison != Comparison::Slower &&
         !candidate.awaitsConfirmation(confirmAbove);
}

std::string llmptx::describeSpeed(const Candidate &candidate) {
  const runtime::SpeedupEstimate *speed = candidate.speed();
  if (!speed)
    return "not timed";
  // The bound decides; results of runners without one show the pair spread.
  if (speed->hasBound())
    return llvm::formatv("{0:f2}x the reference (95% CI {1:f2}..{2:f2}, {3})",
                         speed->speedup, speed->boundLo, speed->boundHi,
                         runtime::comparisonName(speed->comparison))
        .str();
  return llvm::formatv("{0:f2}x the reference (pairs p10..p90 {1:f2}..{2:f2}, "
                       "{3})",
                       speed->speedup, speed->spreadLo, speed->spreadHi,
                       runtime::comparisonName(speed->comparison))
      .str();
}

std::string llmptx::speedText(const Candidate &candidate) {
  runtime::SpeedupEstimate none;
  const runtime::SpeedupEstimate &speed =
      candidate.speed() ? *candidate.speed() : none;
  return llvm::formatv("{0} {1:f3}x (95% CI {2:f3}..{3:f3})", candidate.name(),
                       speed.speedup, speed.boundLo, speed.boundHi)
      .str();
}

std::string llmptx::oneLine(llvm::StringRef text) {
  std::string line;
  for (char c : text.trim())
    line += (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
  return line;
}

std::string
llmptx::describeStatuses(const std::vector<const SampleOutcome *> &samples) {
  std::vector<std::string> parts;
  for (const SampleOutcome *sample : samples) {
    if (sample->attempts.empty())
      continue;
    const Attempt &last = sample->attempts.back();
    std::string round =
        last.optimizationRound
            ? "round " + std::to_string(last.optimizationRound) + " "
            : std::string();
    std::string part = llvm::formatv("{0}sample {1}: {2}", round, last.sample,
                                     attemptStatusName(last.status));
    if (last.status == AttemptStatus::ProviderError)
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

/// "; under its own launch grid (...), block (...)" for a candidate that
/// brings one.
static std::string launchNote(const Candidate &candidate) {
  if (!candidate.launch)
    return {};
  return "; under its own launch " + candidate.launch->str();
}

/// The highest level any candidate reached.
static CheckLevel highestLevel(const std::vector<Candidate *> &candidates) {
  CheckLevel level = CheckLevel::None;
  for (const Candidate *candidate : candidates)
    level = std::max(level, candidate->verification());
  return level;
}

/// Why no candidate can be selected: what execution found wrong with each,
/// that launches of their own went unverified, or how the samples ended.
static std::string explainMissing(const KernelWork &work) {
  std::vector<std::string> failures;
  for (const SampleOutcome *sample : work.allSamples())
    for (const Candidate &rejected : sample->rejected)
      failures.push_back(rejected.name() + ": " + rejected.failureText());
  for (const Candidate *candidate : work.candidates)
    if (candidate->failedExecution())
      failures.push_back(candidate->name() + ": " + candidate->failureText());
  std::vector<std::string> unverifiedLaunches;
  for (const Candidate *candidate : work.candidates)
    if (candidate->launch && !candidate->verdict)
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
    return "no valid candidate: " + describeStatuses(work.allSamples());
  std::string reason = "every candidate failed verification by execution: " +
                       llvm::join(failures, "; ");
  if (work.candidates.empty())
    reason += "; then " + describeStatuses(work.allSamples());
  return reason;
}

/// select=llm: the best usable candidate at whatever level it reached.
static KernelChoice chooseLLM(const KernelWork &work, const Candidate *best) {
  KernelChoice choice;
  if (!best) {
    choice.reason = explainMissing(work);
    choice.fellBack = true;
    return choice;
  }
  choice.selected = best;
  choice.reason =
      llvm::formatv("select=llm: candidate {0}, checked at level {1}{2}",
                    best->name(), checkLevelName(best->verification()),
                    best->passedExecution() ? ", " + describeSpeed(*best)
                                            : std::string())
          .str() +
      launchNote(*best);
  return choice;
}

/// "; confirmed (29.5x is above the bundle's 10x): fresh inputs on every
/// shape, ..." for a candidate whose confirmation run passed.
static std::string confirmationNote(const Candidate &candidate) {
  if (!candidate.confirmation || !candidate.confirmation->passed())
    return {};
  const runtime::Confirmation &confirmation = *candidate.confirmation;
  return "; confirmed (" + confirmation.reason +
         "): fresh inputs on every shape, a second timed input set with the "
         "outputs checked after the timed runs" +
         (confirmation.sanitizerRan ? ", memcheck and racecheck"
                                    : " (" + confirmation.details + ")");
}

/// Why select=auto passes over a candidate that passed execution, or ""
/// when it may be selected.
static std::string passedOver(const Candidate &candidate,
                              const SelectionPolicy &policy) {
  if (candidate.awaitsConfirmation(policy.confirmAbove))
    return llvm::formatv("candidate {0} passed at {1}, above confirm-above="
                         "{2}, and was not confirmed: {3}",
                         candidate.name(), describeSpeed(candidate),
                         llvm::formatv("{0:f0}", policy.confirmAbove).str(),
                         candidate.confirmation
                             ? candidate.confirmation->details
                             : std::string("no confirmation run"))
        .str();
  if (candidate.speed() && candidate.speed()->comparison == Comparison::Slower)
    return llvm::formatv("candidate {0} passed but is slower: {1}",
                         candidate.name(), describeSpeed(candidate))
        .str();
  return {};
}

/// select=auto: the first ranked candidate verified by execution, not
/// slower, and confirmed when its speedup calls for it; otherwise the
/// reference, saying why.
static KernelChoice chooseAuto(const KernelWork &work, const Candidate *best,
                               const SelectionPolicy &policy) {
  KernelChoice choice;
  for (const Candidate *candidate : work.candidates) {
    if (!candidate->passedExecution())
      continue;
    if (std::string why = passedOver(*candidate, policy); !why.empty()) {
      if (choice.reason.empty())
        choice.reason = why;
      continue;
    }
    choice.selected = candidate;
    choice.reason = llvm::formatv("candidate {0} verified by execution, {1}",
                                  candidate->name(), describeSpeed(*candidate))
                        .str() +
                    confirmationNote(*candidate) + launchNote(*candidate);
    return choice;
  }
  choice.alternate = best;
  choice.fellBack = true;
  if (!choice.reason.empty())
    return choice;
  if (best && !best->verdict)
    choice.reason =
        "select=auto needs verification by execution, which did not run "
        "for candidate " +
        best->name() + ": " +
        (work.execNote.empty()
             ? "verify=" + spellingOf(policy.verification).str()
             : work.execNote);
  else
    choice.reason = explainMissing(work);
  return choice;
}

KernelChoice llmptx::chooseObject(KernelWork &work,
                                  const SelectionPolicy &policy) {
  rankCandidates(work.candidates);
  // After optimization rounds the incumbent comes first: a later candidate
  // whose median is higher but within the noise does not displace it.
  if (work.incumbent)
    std::stable_partition(work.candidates.begin(), work.candidates.end(),
                          [&](const Candidate *candidate) {
                            return candidate == work.incumbent;
                          });
  // The best candidate never includes one that failed execution, nor one
  // whose own launch was not verified.
  const Candidate *best = nullptr;
  for (const Candidate *candidate : work.candidates)
    if (isUsable(*candidate)) {
      best = candidate;
      break;
    }

  KernelChoice choice;
  switch (policy.select) {
  case SelectPolicy::NVPTX:
    choice.reason = "select=nvptx";
    choice.alternate = best;
    break;
  case SelectPolicy::LLM:
    choice = chooseLLM(work, best);
    break;
  case SelectPolicy::Auto:
    choice = chooseAuto(work, best, policy);
    break;
  }
  choice.verification = highestLevel(work.candidates);
  return choice;
}
