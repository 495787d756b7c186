//===- OptimizationRounds.cpp - Ask the model to beat the incumbent -------===//
//
// "Faster" between two kernels is a separation of intervals measured in the
// same run, never a comparison of medians: the intervals of one kernel
// measured twice in one run can be disjoint, hence the margin.
//
//===----------------------------------------------------------------------===//

#include "OptimizationRounds.h"

#include "llmptx/Pipeline/Selection.h"

#include "llmptx/Runtime/Statistics.h"
#include "llmptx/Support/TaskPool.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace llmptx;

/// What the next round's prompt says about the kernel's incumbent (null:
/// the reference).
static llm::Incumbent describeIncumbent(const KernelWork &work) {
  const Candidate *incumbent = work.incumbent;
  llm::Incumbent described;
  const std::string &name = work.description->name;
  std::string ptxas;
  if (!incumbent) {
    // The reference as the first prompt showed it: this kernel's entry only.
    described.ptx = work.spec.referencePtx;
    described.measurements = work.referenceMeasurements;
    ptxas = work.spec.referenceResources;
  } else {
    described.name = incumbent->name();
    described.ptx = incumbent->ptx;
    described.cudaSource = incumbent->cudaSource;
    if (incumbent->launch)
      described.launch =
          llvm::formatv("{0}", llvm::json::Value(incumbent->launch->toJson()))
              .str();
    described.measurements = "speed: " + describeSpeed(*incumbent) + "\n";
    if (const std::optional<runtime::CandidateTiming> &largest =
            incumbent->largestShapeTiming)
      described.measurements +=
          llvm::formatv("speed at the largest checked shape ({0}): {1:f2}x "
                        "the reference\n",
                        runtime::formatSizes(largest->shape, ", "),
                        largest->speedup.speedup)
              .str();
    described.measurements += incumbent->measurements;
    ptxas = resourcesText(incumbent->resources, name);
    if (!work.referenceMeasurements.empty())
      described.measurements +=
          "the reference, in the same run:\n" + work.referenceMeasurements;
  }
  if (!ptxas.empty())
    described.measurements += "ptxas -v here: " + ptxas + "\n";
  return described;
}

/// The kernels whose rounds start, each with its incumbent: the best
/// candidate that can lead, else the reference. Rounds need the kernel
/// verified and timed; the others say so.
static std::vector<KernelWork *>
startRounds(std::vector<KernelWork> &work, bool executed, double confirmAbove) {
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
      if (canLead(*candidate, confirmAbove)) {
        item.incumbent = candidate;
        break;
      }
    active.push_back(&item);
  }
  return active;
}

/// Asks every sample of every active kernel, in parallel.
static std::vector<std::vector<SampleOutcome>>
askRound(const std::vector<KernelWork *> &active, unsigned round,
         const RoundsContext &context) {
  std::vector<llm::Incumbent> incumbents;
  for (KernelWork *item : active)
    incumbents.push_back(describeIncumbent(*item));
  std::vector<std::vector<SampleOutcome>> outcomes(active.size());
  unsigned samples = context.settings->samples;
  for (std::vector<SampleOutcome> &kernelSamples : outcomes)
    kernelSamples.resize(samples);
  runTasks(active.size() * samples, context.settings->jobs, [&](unsigned task) {
    unsigned index = task / samples, sample = task % samples;
    // Under language=auto a round may change language: each sample is asked
    // in its own, whatever the incumbent was written in.
    llm::Prompt prompt = llm::renderImprovePrompt(
        active[index]->spec, incumbents[index], round,
        sampleLanguage(*context.search, sample));
    outcomes[index][sample] =
        improveSample(*active[index]->description, std::move(prompt), round,
                      sample, *context.provider, *context.search);
  });
  return outcomes;
}

/// Keeps the round's samples of `item` and opens its record; returns the
/// candidates the round made. A round without one ends the kernel's rounds.
static std::vector<Candidate *> keepRound(KernelWork &item,
                                          std::vector<SampleOutcome> &outcomes,
                                          unsigned round,
                                          const RoundsContext &context) {
  RoundRecord record;
  record.round = round;
  record.incumbent = item.incumbent ? item.incumbent->name() : "reference";
  std::vector<Candidate *> made;
  std::vector<const SampleOutcome *> asked;
  for (SampleOutcome &outcome : outcomes) {
    item.roundSamples.push_back(std::move(outcome));
    SampleOutcome &kept = item.roundSamples.back();
    asked.push_back(&kept);
    if (kept.candidate) {
      made.push_back(&*kept.candidate);
      record.candidates.push_back(kept.candidate->name());
    }
  }
  item.collectCandidates();
  if (made.empty()) {
    record.note = "no candidate passed the checks: " + describeStatuses(asked);
    item.roundsNote =
        llvm::formatv("stopped in round {0}: {1}", round, record.note);
    context.remark("llmgen: @" + item.description->name +
                   ": optimization round " + llvm::Twine(round) + ": " +
                   record.note);
  }
  item.rounds.push_back(std::move(record));
  return made;
}

/// Judges a verified round of `item`: its best candidate becomes the
/// incumbent when its interval clears the incumbent's (re-timed in the same
/// run) by the same-speed margin, or when it is faster than the reference
/// that is the incumbent. Returns whether the round gained.
static bool judgeRound(KernelWork &item, std::vector<Candidate *> made,
                       unsigned round, const RoundsContext &context) {
  RoundRecord &record = item.rounds.back();
  const Candidate *incumbent = item.incumbent;
  if (incumbent && !canLead(*incumbent, context.settings->confirmAbove)) {
    // Re-verified beside the round's candidates, it no longer leads.
    std::string why = incumbent->verdictDetails;
    if (why.empty())
      why = (incumbent->verdict ? runtime::verdictName(*incumbent->verdict)
                                : std::string()) +
            " " +
            (incumbent->speed()
                 ? runtime::comparisonName(incumbent->speed()->comparison)
                 : "");
    record.note =
        "the incumbent " + incumbent->name() + " failed its re-check: " + why;
    item.incumbent = incumbent = nullptr;
  }
  rankCandidates(made);
  const Candidate *best = nullptr;
  for (const Candidate *candidate : made)
    if (canLead(*candidate, context.settings->confirmAbove)) {
      best = candidate;
      break;
    }
  if (best)
    record.best = best->name();
  record.gained =
      best &&
      (incumbent ? best->speed()->boundLo >
                       incumbent->speed()->boundHi * (1 + runtime::kSameMargin)
                 : best->speed()->comparison == runtime::Comparison::Faster);
  std::string against =
      incumbent ? speedText(*incumbent) : std::string("the reference");
  if (record.gained) {
    record.note = speedText(*best) + " beats " + against;
    item.incumbent = best;
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
    item.roundsNote =
        llvm::formatv("stopped after round {0}: {1}", round, record.note);
  }
  context.remark("llmgen: @" + item.description->name +
                 ": optimization round " + llvm::Twine(round) + ": " +
                 record.note);
  return record.gained;
}

void llmptx::runOptimizationRounds(std::vector<KernelWork> &work,
                                   const RoundsContext &context,
                                   bool executed) {
  unsigned rounds = context.settings->rounds;
  std::vector<KernelWork *> active =
      startRounds(work, executed, context.settings->confirmAbove);
  for (unsigned round = 1; round <= rounds && !active.empty(); ++round) {
    std::vector<std::vector<SampleOutcome>> outcomes =
        askRound(active, round, context);
    Batch batch;
    std::vector<std::pair<KernelWork *, std::vector<Candidate *>>> fresh;
    for (auto [index, item] : llvm::enumerate(active)) {
      std::vector<Candidate *> made =
          keepRound(*item, outcomes[index], round, context);
      if (made.empty())
        continue;
      std::vector<const Candidate *> bundled(made.begin(), made.end());
      if (item->incumbent)
        bundled.push_back(item->incumbent);
      batch.emplace_back(item, std::move(bundled));
      fresh.emplace_back(item, std::move(made));
    }
    active.clear();
    if (batch.empty())
      break;
    if (!context.verifier->verify(batch, ".o" + std::to_string(round),
                                  /*remarkMissing=*/false)) {
      for (auto &[item, made] : fresh)
        item->roundsNote = llvm::formatv("stopped in round {0}: its candidates "
                                         "were not verified by execution ({1})",
                                         round, item->execNote);
      break;
    }
    for (auto &[item, made] : fresh)
      if (judgeRound(*item, made, round, context))
        active.push_back(item);
  }
  for (KernelWork *item : active)
    item->roundsNote = llvm::formatv("all {0} round(s) ran", rounds);
}
