//===- SelectionTest.cpp - The selection policy on plain data ---*- C++ -*-===//
//
// Every edge of the policy: faster, same and slower intervals, candidates
// that failed or were never run, select=llm|nvptx|auto, launches of their
// own, and the incumbent of optimization rounds.
//
//===----------------------------------------------------------------------===//

#include "llmptx/Pipeline/Selection.h"

#include "gtest/gtest.h"

using namespace llmptx;
using runtime::Comparison;
using runtime::Verdict;

namespace {

/// A candidate of sample `sample` checked at `level`.
Candidate checked(unsigned sample, CheckLevel level = CheckLevel::Compile) {
  Candidate candidate;
  candidate.sample = sample;
  candidate.level = level;
  candidate.ptx = "// s" + std::to_string(sample);
  return candidate;
}

/// ... that passed execution at `speedup` with the interval [lo, hi].
Candidate passed(unsigned sample, double speedup, double lo, double hi,
                 Comparison comparison) {
  Candidate candidate = checked(sample);
  candidate.verdict = Verdict::Pass;
  runtime::CandidateTiming timing;
  timing.speedup.speedup = speedup;
  timing.speedup.boundLo = lo;
  timing.speedup.boundHi = hi;
  timing.speedup.spreadLo = lo;
  timing.speedup.spreadHi = hi;
  timing.speedup.comparison = comparison;
  timing.referenceMs.median = speedup;
  timing.candidateMs.median = 1;
  candidate.timing = timing;
  return candidate;
}

Candidate failed(unsigned sample, Verdict verdict, std::string details) {
  Candidate candidate = checked(sample);
  candidate.verdict = verdict;
  candidate.verdictDetails = std::move(details);
  return candidate;
}

/// A kernel whose first search gave `candidates`, one sample each.
struct Kernel {
  KernelDescription description;
  KernelWork work;

  explicit Kernel(std::vector<Candidate> candidates) {
    description.name = "k";
    work.description = &description;
    for (Candidate &candidate : candidates) {
      SampleOutcome sample;
      Attempt attempt;
      attempt.sample = candidate.sample;
      attempt.status = AttemptStatus::Compiled;
      sample.attempts.push_back(attempt);
      sample.candidate = std::move(candidate);
      work.samples.push_back(std::move(sample));
    }
    work.collectCandidates();
  }

  KernelChoice choose(SelectPolicy policy,
                      VerifyLevel verify = VerifyLevel::Exec) {
    return chooseObject(work, {policy, verify, /*confirmAbove=*/10});
  }
  const Candidate &sample(unsigned index) {
    return *work.samples[index].candidate;
  }
};

constexpr auto Auto = SelectPolicy::Auto;
constexpr auto LLM = SelectPolicy::LLM;
constexpr auto NVPTX = SelectPolicy::NVPTX;

TEST(Selection, RanksPassedFastestFirstThenUnrunThenFailed) {
  Kernel kernel({failed(0, Verdict::Mismatch, "m"), checked(1),
                 passed(2, 1.2, 1.1, 1.3, Comparison::Faster),
                 passed(3, 1.5, 1.4, 1.6, Comparison::Faster),
                 checked(4, CheckLevel::Lint)});
  std::vector<Candidate *> ranked = kernel.work.candidates;
  rankCandidates(ranked);
  std::vector<unsigned> order;
  for (const Candidate *candidate : ranked)
    order.push_back(candidate->sample);
  EXPECT_EQ(order, (std::vector<unsigned>{3, 2, 1, 4, 0}));
}

TEST(Selection, AutoSelectsFasterWithItsInterval) {
  Kernel kernel({passed(0, 1.5, 1.4, 1.6, Comparison::Faster)});
  KernelChoice choice = kernel.choose(Auto);
  EXPECT_EQ(choice.selected, &kernel.sample(0));
  EXPECT_FALSE(choice.fellBack);
  EXPECT_EQ(choice.verification, CheckLevel::Exec);
  EXPECT_EQ(choice.reason, "candidate s0r0 verified by execution, 1.50x the "
                           "reference (95% CI 1.40..1.60, faster)");
}

TEST(Selection, AutoSelectsSameSpeed) {
  // Not slower is enough: a verified kernel at the same speed is taken.
  Kernel kernel({passed(0, 1.0, 0.99, 1.01, Comparison::Same)});
  EXPECT_EQ(kernel.choose(Auto).selected, &kernel.sample(0));
}

TEST(Selection, AutoRefusesSlowerAndSaysWhy) {
  Kernel kernel({passed(0, 0.8, 0.7, 0.9, Comparison::Slower)});
  KernelChoice choice = kernel.choose(Auto);
  EXPECT_EQ(choice.selected, nullptr);
  EXPECT_EQ(choice.alternate, &kernel.sample(0));
  EXPECT_TRUE(choice.fellBack);
  EXPECT_EQ(choice.reason, "candidate s0r0 passed but is slower: 0.80x the "
                           "reference (95% CI 0.70..0.90, slower)");
}

TEST(Selection, AutoTakesTheNextCandidateWhenTheFastestIsSlowerThanNothing) {
  Kernel kernel({passed(0, 0.8, 0.7, 0.9, Comparison::Slower),
                 passed(1, 1.0, 0.98, 1.02, Comparison::Same)});
  EXPECT_EQ(kernel.choose(Auto).selected, &kernel.sample(1));
}

TEST(Selection, AutoSelectsALargeSpeedupOnlyOnceConfirmed) {
  // A tensor-core kernel at 29.5x: a reason to look harder, never to
  // discard. Unconfirmed, it waits; confirmed, it is selected and says so.
  Kernel kernel({passed(0, 29.5, 29, 30, Comparison::Faster)});
  KernelChoice unconfirmed = kernel.choose(Auto);
  EXPECT_EQ(unconfirmed.selected, nullptr);
  EXPECT_EQ(unconfirmed.reason,
            "candidate s0r0 passed at 29.50x the reference (95% CI "
            "29.00..30.00, faster), above confirm-above=10, and was not "
            "confirmed: no confirmation run");
  EXPECT_FALSE(canLead(kernel.sample(0), 10));

  runtime::Confirmation failed;
  failed.reason = "29.5x is above the bundle's 10x";
  failed.verdict = Verdict::Unwritten;
  failed.details = "confirm-after-timing: 4096 elements unwritten";
  kernel.work.samples[0].candidate->confirmation = failed;
  EXPECT_EQ(kernel.choose(Auto).reason,
            "candidate s0r0 passed at 29.50x the reference (95% CI "
            "29.00..30.00, faster), above confirm-above=10, and was not "
            "confirmed: confirm-after-timing: 4096 elements unwritten");

  runtime::Confirmation clean = failed;
  clean.verdict = Verdict::Pass;
  clean.details.clear();
  clean.sanitizerRan = true;
  kernel.work.samples[0].candidate->confirmation = clean;
  KernelChoice confirmed = kernel.choose(Auto);
  EXPECT_EQ(confirmed.selected, &kernel.sample(0));
  EXPECT_EQ(confirmed.reason,
            "candidate s0r0 verified by execution, 29.50x the reference (95% "
            "CI 29.00..30.00, faster); confirmed (29.5x is above the "
            "bundle's 10x): fresh inputs on every shape, a second timed input "
            "set with the outputs checked after the timed runs, memcheck and "
            "racecheck");
  EXPECT_TRUE(canLead(kernel.sample(0), 10));
  // Below the threshold nothing waits for a confirmation.
  EXPECT_TRUE(canLead(passed(1, 9.5, 9.4, 9.6, Comparison::Faster), 10));
}

TEST(Selection, AutoNeverSelectsWithoutExecution) {
  Kernel kernel({checked(0)});
  KernelChoice choice = kernel.choose(Auto, VerifyLevel::Compile);
  EXPECT_EQ(choice.selected, nullptr);
  EXPECT_EQ(choice.alternate, &kernel.sample(0));
  EXPECT_EQ(choice.verification, CheckLevel::Compile);
  EXPECT_EQ(choice.reason, "select=auto needs verification by execution, "
                           "which did not run for candidate s0r0: "
                           "verify=compile");
  kernel.work.execNote = "the runner found no GPU";
  EXPECT_EQ(kernel.choose(Auto).reason,
            "select=auto needs verification by execution, which did not run "
            "for candidate s0r0: the runner found no GPU");
}

TEST(Selection, FailedCandidatesAreNeverSelectedUnderAnyPolicy) {
  for (SelectPolicy policy : {Auto, LLM, NVPTX}) {
    Kernel kernel({failed(0, Verdict::OutOfBoundsWrite, "guard band at 8")});
    KernelChoice choice = kernel.choose(policy);
    EXPECT_EQ(choice.selected, nullptr);
    EXPECT_EQ(choice.alternate, nullptr);
  }
  Kernel kernel({failed(0, Verdict::OutOfBoundsWrite, "guard band at 8")});
  EXPECT_EQ(kernel.choose(LLM).reason,
            "every candidate failed verification by execution: s0r0: guard "
            "band at 8");
}

TEST(Selection, LLMTakesTheBestUsableAtItsLevel) {
  Kernel kernel({checked(0, CheckLevel::Lint), checked(1)});
  KernelChoice choice = kernel.choose(LLM, VerifyLevel::Compile);
  EXPECT_EQ(choice.selected, &kernel.sample(1));
  EXPECT_EQ(choice.reason, "select=llm: candidate s1r0, checked at level "
                           "compile");
  // A slower kernel that passed is still an LLM kernel the user asked for.
  Kernel slower({passed(0, 0.5, 0.4, 0.6, Comparison::Slower)});
  EXPECT_EQ(slower.choose(LLM).reason,
            "select=llm: candidate s0r0, checked at level exec, 0.50x the "
            "reference (95% CI 0.40..0.60, slower)");
}

TEST(Selection, LLMWithNoCandidateSaysHowEachSampleEnded) {
  Kernel kernel({});
  SampleOutcome sample;
  Attempt attempt;
  attempt.status = AttemptStatus::CompileError;
  attempt.diagnostics = {"candidate.ptx:3:1: error: bad\nmore"};
  sample.attempts.push_back(attempt);
  kernel.work.samples.push_back(sample);
  KernelChoice choice = kernel.choose(LLM);
  EXPECT_TRUE(choice.fellBack);
  EXPECT_EQ(choice.verification, CheckLevel::None);
  EXPECT_EQ(choice.reason, "no valid candidate: sample 0: compile-error "
                           "(candidate.ptx:3:1: error: bad)");
}

TEST(Selection, NvptxKeepsTheBestCandidateAsTheAlternate) {
  Kernel kernel({passed(0, 2, 1.9, 2.1, Comparison::Faster)});
  KernelChoice choice = kernel.choose(NVPTX);
  EXPECT_EQ(choice.selected, nullptr);
  EXPECT_EQ(choice.alternate, &kernel.sample(0));
  EXPECT_EQ(choice.reason, "select=nvptx");
  EXPECT_FALSE(choice.fellBack);
}

TEST(Selection, AnOwnLaunchIsUsableOnlyAfterExecution) {
  Candidate own = checked(0);
  own.launch = LaunchConfig{{"ceildiv(N, 128)", "1", "1"}, {128, 1, 1}};
  EXPECT_FALSE(isUsable(own));
  Kernel kernel({own});
  kernel.work.execNote = "no GPU";
  KernelChoice choice = kernel.choose(LLM);
  EXPECT_EQ(choice.selected, nullptr);
  EXPECT_EQ(choice.reason, "candidate s0r0 brings its own launch, which is "
                           "taken only after verification by execution, and "
                           "that did not run: no GPU");

  Candidate verified = passed(0, 1.5, 1.4, 1.6, Comparison::Faster);
  verified.launch = own.launch;
  Kernel ran({verified});
  KernelChoice selected = ran.choose(Auto);
  EXPECT_EQ(selected.selected, &ran.sample(0));
  EXPECT_NE(selected.reason.find("; under its own launch grid (ceildiv(N, "
                                 "128), 1, 1), block (128, 1, 1)"),
            std::string::npos);
}

TEST(Selection, TheIncumbentOfTheRoundsComesFirst) {
  // s1 was kept by the rounds; s0's median is higher but within the noise.
  Kernel kernel({passed(0, 1.52, 1.45, 1.6, Comparison::Faster),
                 passed(1, 1.50, 1.47, 1.53, Comparison::Faster)});
  kernel.work.incumbent = &kernel.sample(1);
  EXPECT_EQ(kernel.choose(Auto).selected, &kernel.sample(1));
}

TEST(Selection, OnlyTimedVerifiedNotSlowerCandidatesLead) {
  EXPECT_TRUE(canLead(passed(0, 1.5, 1.4, 1.6, Comparison::Faster), 10));
  EXPECT_TRUE(canLead(passed(0, 1.0, 0.99, 1.01, Comparison::Same), 10));
  EXPECT_FALSE(canLead(passed(0, 0.8, 0.7, 0.9, Comparison::Slower), 10));
  EXPECT_FALSE(canLead(checked(0), 10));
  Candidate unbounded = passed(0, 1.5, 0, 0, Comparison::Faster);
  EXPECT_FALSE(canLead(unbounded, 10));
  EXPECT_EQ(describeSpeed(unbounded), "1.50x the reference (pairs p10..p90 "
                                      "0.00..0.00, faster)");
  EXPECT_EQ(describeSpeed(checked(0)), "not timed");
}

} // namespace
