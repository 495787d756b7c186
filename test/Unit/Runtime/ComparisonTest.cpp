//===- ComparisonTest.cpp - Tolerances, poison, guards and verdicts -------===//

#include "llmptx/Runtime/Comparison.h"
#include "TestBundles.h"
#include "llmptx/Runtime/InputRecipe.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace llmptx::runtime;
using llmptx::runtime::testing::stridedBundle;
using llmptx::runtime::testing::vaddBundle;

namespace {

constexpr ElementType F32 = ElementType::F32;

TEST(ComparisonTest, UlpDistance) {
  EXPECT_EQ(ulpDistance(F32, 0x3f800000, 0x3f800001), 1u);
  EXPECT_EQ(ulpDistance(F32, 0x3f800001, 0x3f800000), 1u);
  EXPECT_EQ(ulpDistance(F32, 0x00000000, 0x80000000), 0u); // +0, -0
  EXPECT_EQ(ulpDistance(F32, 0x00000001, 0x00000000), 1u);
  EXPECT_EQ(ulpDistance(F32, 0x00000001, 0x80000001), 2u); // across zero
  EXPECT_EQ(ulpDistance(F32, 0x007fffff, 0x00800000), 1u); // denormal/normal
  EXPECT_EQ(ulpDistance(F32, 0x7f7fffff, 0xff7fffff), 0x7f7fffffull * 2);
  EXPECT_EQ(ulpDistance(ElementType::F16, 0x3c00, 0x3c02), 2u);
  EXPECT_EQ(
      ulpDistance(ElementType::F64, 0x3ff0000000000000, 0x3ff0000000000003),
      3u);
}

TEST(ComparisonTest, DefaultToleranceIsBitExactUpToNaNPayloadAndZeroSign) {
  Tolerance exact;
  EXPECT_TRUE(elementsMatch(F32, exact, 0x3f800000, 0x3f800000));
  EXPECT_FALSE(elementsMatch(F32, exact, 0x3f800000, 0x3f800001));
  EXPECT_TRUE(elementsMatch(F32, exact, 0x7fc00000, 0xffc01234)); // NaNs
  EXPECT_FALSE(elementsMatch(F32, exact, 0x7fc00000, 0x3f800000));
  EXPECT_FALSE(elementsMatch(F32, exact, 0x3f800000, 0x7fc00000));
  EXPECT_TRUE(elementsMatch(F32, exact, 0x00000000, 0x80000000));
  // Flush-to-zero is a mismatch at ulp 0.
  EXPECT_FALSE(elementsMatch(F32, exact, 0x00012345, 0x00000000));
  Tolerance signedZero;
  signedZero.signedZero = true;
  EXPECT_FALSE(elementsMatch(F32, signedZero, 0x00000000, 0x80000000));
}

TEST(ComparisonTest, InfinitiesMatchOnlyThemselves) {
  Tolerance loose;
  loose.ulp = 1000;
  loose.rel = 1;
  loose.abs = 1e30;
  EXPECT_TRUE(elementsMatch(F32, loose, 0x7f800000, 0x7f800000));
  EXPECT_FALSE(elementsMatch(F32, loose, 0x7f800000, 0x7f7fffff));
  EXPECT_FALSE(elementsMatch(F32, loose, 0x7f800000, 0xff800000));
  EXPECT_FALSE(elementsMatch(F32, loose, 0x7f7fffff, 0x7f800000));
}

TEST(ComparisonTest, AnyBoundSuffices) {
  Tolerance ulp;
  ulp.ulp = 2;
  EXPECT_TRUE(elementsMatch(F32, ulp, 0x3f800000, 0x3f800002));
  EXPECT_FALSE(elementsMatch(F32, ulp, 0x3f800000, 0x3f800003));
  Tolerance rel;
  rel.rel = 1e-3;
  uint64_t thousand = doubleToFloatBits(F32, 1000.0);
  EXPECT_TRUE(
      elementsMatch(F32, rel, thousand, doubleToFloatBits(F32, 1000.9)));
  EXPECT_FALSE(
      elementsMatch(F32, rel, thousand, doubleToFloatBits(F32, 1001.1)));
  Tolerance abs;
  abs.abs = 0.5;
  EXPECT_TRUE(
      elementsMatch(F32, abs, thousand, doubleToFloatBits(F32, 1000.5)));
  EXPECT_FALSE(
      elementsMatch(F32, abs, thousand, doubleToFloatBits(F32, 1000.6)));
  Tolerance both = rel;
  both.abs = 0.5;
  // rel fails (0 * 1e-3), abs holds.
  EXPECT_TRUE(
      elementsMatch(F32, both, 0x00000000, doubleToFloatBits(F32, 0.4)));
}

TEST(ComparisonTest, IntegersAreExact) {
  Tolerance loose;
  loose.ulp = 100;
  EXPECT_TRUE(elementsMatch(ElementType::I32, loose, 5, 5));
  EXPECT_FALSE(elementsMatch(ElementType::I32, loose, 5, 6));
  EXPECT_FALSE(elementsMatch(ElementType::I1, {}, 1, 0xff));
}

/// Simulates the four runs of an entry on host images.
class EntrySimulation {
public:
  explicit EntrySimulation(VerificationBundle bundle, size_t shape = 1,
                           unsigned variant = 0)
      : bundle(std::move(bundle)) {
    plan = *planShape(this->bundle, shape, variant);
    inputs = *generateInputs(this->bundle, plan);
    imagesA = buildRunImages(plan, inputs, 0);
    imagesB = buildRunImages(plan, inputs, 1);
  }

  /// Runs a "kernel" (a host function over the images) for run A and B.
  template <typename Kernel>
  void run(Kernel kernel, std::vector<std::vector<uint8_t>> &afterA,
           std::vector<std::vector<uint8_t>> &afterB) {
    afterA = imagesA;
    afterB = imagesB;
    kernel(afterA, 0);
    kernel(afterB, 1);
  }

  /// The reference: c = a + b (f32) for the vadd bundle.
  void reference(std::vector<std::vector<uint8_t>> &images, unsigned) {
    const BufferLayout &a = plan.buffers[0], &b = plan.buffers[1],
                       &c = plan.buffers[2];
    for (uint64_t i = 0; i < c.elementCount; ++i) {
      float x, y;
      std::memcpy(&x, images[0].data() + a.elementByteOffset(i), 4);
      std::memcpy(&y, images[1].data() + b.elementByteOffset(i), 4);
      float sum = x + y;
      std::memcpy(images[2].data() + c.elementByteOffset(i), &sum, 4);
    }
  }

  template <typename Candidate> CheckFindings check(Candidate candidate) {
    std::vector<std::vector<uint8_t>> refA, refB, candA, candB;
    run([&](auto &images, unsigned r) { reference(images, r); }, refA, refB);
    run(candidate, candA, candB);
    ShapeChecker checker(bundle, plan);
    for (size_t b = 0; b < plan.buffers.size(); ++b) {
      checker.checkIntegrity(b, imagesA[b].data(), candA[b].data(),
                             "candidate-first");
      checker.checkIntegrity(b, imagesB[b].data(), candB[b].data(),
                             "reference-first");
    }
    for (size_t b = 0; b < plan.buffers.size(); ++b) {
      const BufferLayout &layout = plan.buffers[b];
      if (layout.role != BufferRole::Output && layout.role != BufferRole::InOut)
        continue;
      auto ra = gatherElements(layout, refA[b].data());
      auto rb = gatherElements(layout, refB[b].data());
      auto ca = gatherElements(layout, candA[b].data());
      auto cb = gatherElements(layout, candB[b].data());
      checker.compareOutput(b, ra.data(), rb.data(), ca.data(), cb.data());
    }
    return checker.findings();
  }

  VerificationBundle bundle;
  ShapePlan plan;
  std::vector<std::vector<uint8_t>> inputs, imagesA, imagesB;
};

TEST(ShapeCheckerTest, CorrectCandidatePasses) {
  EntrySimulation sim(vaddBundle());
  CheckFindings findings =
      sim.check([&](auto &images, unsigned r) { sim.reference(images, r); });
  EXPECT_TRUE(findings.clean()) << findings.summary();
  EXPECT_EQ(findings.verdict(), Verdict::Pass);
}

TEST(ShapeCheckerTest, MissingLastElementIsUnwritten) {
  EntrySimulation sim(vaddBundle());
  CheckFindings findings = sim.check([&](auto &images, unsigned r) {
    std::vector<uint8_t> keep(4);
    uint64_t last = sim.plan.buffers[2].elementByteOffset(96);
    std::memcpy(keep.data(), images[2].data() + last, 4);
    sim.reference(images, r);
    std::memcpy(images[2].data() + last, keep.data(), 4);
  });
  EXPECT_EQ(findings.verdict(), Verdict::Unwritten);
  EXPECT_EQ(findings.unwritten, 1u);
  ASSERT_FALSE(findings.unwrittenExamples.empty());
  const ElementReport &report = findings.unwrittenExamples.front();
  EXPECT_EQ(report.buffer, "c");
  EXPECT_EQ(report.index, (std::vector<int64_t>{96}));
  EXPECT_EQ(report.got, "nan(0x7fbadbad)");
  EXPECT_EQ(report.run, "candidate-first");
}

TEST(ShapeCheckerTest, ValueEqualToOnePoisonIsStillCaught) {
  // The reference writes poison 0's bits at element 3; a candidate that
  // skips element 3 matches in run A and is caught by poison 1 in run B.
  EntrySimulation sim(vaddBundle());
  uint64_t poison = poisonBits(F32, 0);
  auto referenceWritingPoison = [&](auto &images, unsigned r) {
    sim.reference(images, r);
    std::memcpy(images[2].data() + sim.plan.buffers[2].elementByteOffset(3),
                &poison, 4);
  };
  std::vector<std::vector<uint8_t>> refA, refB, candA, candB;
  sim.run(referenceWritingPoison, refA, refB);
  sim.run(
      [&](auto &images, unsigned r) {
        uint64_t offset = sim.plan.buffers[2].elementByteOffset(3);
        std::vector<uint8_t> keep(images[2].begin() + offset,
                                  images[2].begin() + offset + 4);
        referenceWritingPoison(images, r);
        std::memcpy(images[2].data() + offset, keep.data(), 4);
      },
      candA, candB);
  ShapeChecker checker(sim.bundle, sim.plan);
  const BufferLayout &c = sim.plan.buffers[2];
  auto ra = gatherElements(c, refA[2].data());
  auto rb = gatherElements(c, refB[2].data());
  auto ca = gatherElements(c, candA[2].data());
  auto cb = gatherElements(c, candB[2].data());
  checker.compareOutput(2, ra.data(), rb.data(), ca.data(), cb.data());
  EXPECT_EQ(checker.findings().verdict(), Verdict::Unwritten);
  EXPECT_EQ(checker.findings().unwrittenExamples.front().run,
            "reference-first");
}

TEST(ShapeCheckerTest, WritingPastTheEndIsOutOfBounds) {
  EntrySimulation sim(vaddBundle());
  CheckFindings findings = sim.check([&](auto &images, unsigned r) {
    sim.reference(images, r);
    float value = 1.0f;
    const BufferLayout &c = sim.plan.buffers[2];
    std::memcpy(images[2].data() + c.elementByteOffset(96) + 4, &value, 4);
  });
  EXPECT_EQ(findings.verdict(), Verdict::OutOfBoundsWrite);
  ASSERT_FALSE(findings.outOfBoundsExamples.empty());
  const ElementReport &report = findings.outOfBoundsExamples.front();
  EXPECT_EQ(report.buffer, "c");
  EXPECT_EQ(report.index, (std::vector<int64_t>{97}));
  EXPECT_EQ(report.expected, "0xfff5fff5"); // c is buffer 2
  EXPECT_EQ(report.got, "0x3f800000");
  EXPECT_EQ(findings.outOfBounds, 8u); // 4 bytes in each run
}

TEST(ShapeCheckerTest, WritingBeforeTheFirstElementIsOutOfBounds) {
  EntrySimulation sim(vaddBundle());
  CheckFindings findings = sim.check([&](auto &images, unsigned r) {
    sim.reference(images, r);
    images[2][sim.plan.buffers[2].firstElementByteOffset() - 1] ^= 1;
  });
  EXPECT_EQ(findings.verdict(), Verdict::OutOfBoundsWrite);
  EXPECT_EQ(findings.outOfBoundsExamples.front().index,
            (std::vector<int64_t>{-1}));
}

TEST(ShapeCheckerTest, CopyingAGuardIntoAnotherIsCaught) {
  // A copy kernel without a bounds check moves a's guard bytes into c's.
  EntrySimulation sim(vaddBundle());
  CheckFindings findings = sim.check([&](auto &images, unsigned r) {
    sim.reference(images, r);
    const BufferLayout &a = sim.plan.buffers[0], &c = sim.plan.buffers[2];
    std::memcpy(images[2].data() + c.elementByteOffset(97),
                images[0].data() + a.elementByteOffset(97), 4);
  });
  EXPECT_EQ(findings.verdict(), Verdict::OutOfBoundsWrite);
  EXPECT_EQ(findings.outOfBoundsExamples.front().got, "0xfff1fff1");
}

TEST(ShapeCheckerTest, ModifiedInputIsReported) {
  EntrySimulation sim(vaddBundle());
  CheckFindings findings = sim.check([&](auto &images, unsigned r) {
    sim.reference(images, r);
    float changed = 1234.5f;
    std::memcpy(images[0].data() + sim.plan.buffers[0].elementByteOffset(40),
                &changed, 4);
  });
  EXPECT_EQ(findings.verdict(), Verdict::InputModified);
  EXPECT_EQ(findings.inputModified, 2u);
  EXPECT_EQ(findings.inputModifiedExamples.front().buffer, "a");
  EXPECT_EQ(findings.inputModifiedExamples.front().index,
            (std::vector<int64_t>{40}));
  EXPECT_EQ(findings.inputModifiedExamples.front().got, "1234.5");
}

TEST(ShapeCheckerTest, DisagreementBetweenRunsIsNondeterministic) {
  EntrySimulation sim(vaddBundle());
  CheckFindings findings = sim.check([&](auto &images, unsigned r) {
    sim.reference(images, r);
    if (r == 1) {
      float wrong = 12345.0f;
      std::memcpy(images[2].data() + sim.plan.buffers[2].elementByteOffset(7),
                  &wrong, 4);
    }
  });
  EXPECT_EQ(findings.verdict(), Verdict::Nondeterministic);
  EXPECT_EQ(findings.nondeterministicExamples.front().run, "reference-first");
  EXPECT_EQ(findings.nondeterministicExamples.front().got, "12345");
}

/// Moves every finite non-zero output one ulp away from zero, short of
/// infinity.
void nudgeOutputs(const ShapePlan &plan, std::vector<uint8_t> &image) {
  const BufferLayout &c = plan.buffers[2];
  for (uint64_t i = 0; i < c.elementCount; ++i) {
    uint32_t bits;
    std::memcpy(&bits, image.data() + c.elementByteOffset(i), 4);
    if (!isNaNBits(F32, bits) && !isInfBits(F32, bits) &&
        !isZeroBits(F32, bits) && (bits & 0x7fffffffu) != 0x7f7fffffu)
      bits += 1;
    std::memcpy(image.data() + c.elementByteOffset(i), &bits, 4);
  }
}

TEST(ShapeCheckerTest, ConsistentlyWrongIsMismatch) {
  EntrySimulation sim(vaddBundle());
  CheckFindings findings = sim.check([&](auto &images, unsigned r) {
    sim.reference(images, r);
    nudgeOutputs(sim.plan, images[2]);
  });
  EXPECT_EQ(findings.verdict(), Verdict::Mismatch);
  EXPECT_GT(findings.mismatched, 40u);
  EXPECT_EQ(findings.mismatchExamples.size(), 10u);
  // One ulp is accepted once the bundle allows it.
  VerificationBundle tolerant = vaddBundle();
  tolerant.buffers[2].tolerance.ulp = 1;
  EntrySimulation loose(tolerant);
  CheckFindings accepted = loose.check([&](auto &images, unsigned r) {
    loose.reference(images, r);
    nudgeOutputs(loose.plan, images[2]);
  });
  EXPECT_EQ(accepted.verdict(), Verdict::Pass) << accepted.summary();
}

TEST(ShapeCheckerTest, FlushToZeroIsCaughtBySpecialInputs) {
  EntrySimulation sim(vaddBundle());
  CheckFindings findings = sim.check([&](auto &images, unsigned) {
    const BufferLayout &a = sim.plan.buffers[0], &b = sim.plan.buffers[1],
                       &c = sim.plan.buffers[2];
    auto flush = [](float value) {
      uint32_t bits;
      std::memcpy(&bits, &value, 4);
      if (isDenormalBits(F32, bits))
        bits &= 0x80000000u;
      std::memcpy(&value, &bits, 4);
      return value;
    };
    for (uint64_t i = 0; i < c.elementCount; ++i) {
      float x, y;
      std::memcpy(&x, images[0].data() + a.elementByteOffset(i), 4);
      std::memcpy(&y, images[1].data() + b.elementByteOffset(i), 4);
      float sum = flush(flush(x) + flush(y));
      std::memcpy(images[2].data() + c.elementByteOffset(i), &sum, 4);
    }
  });
  EXPECT_EQ(findings.verdict(), Verdict::Mismatch) << findings.summary();
}

TEST(ShapeCheckerTest, PrecedenceOutOfBoundsOverUnwritten) {
  EntrySimulation sim(vaddBundle());
  CheckFindings findings = sim.check([&](auto &images, unsigned) {
    images[2][0] ^= 0xff; // guard, and nothing written
  });
  EXPECT_GT(findings.unwritten, 0u);
  EXPECT_EQ(findings.verdict(), Verdict::OutOfBoundsWrite);
  std::vector<ElementReport> examples = findings.examples(3);
  ASSERT_EQ(examples.size(), 3u);
  EXPECT_EQ(examples[0].kind, "out-of-bounds-write"); // run A
  EXPECT_EQ(examples[1].kind, "out-of-bounds-write"); // run B
  EXPECT_EQ(examples[2].kind, "unwritten");
  EXPECT_EQ(findings.summary(),
            "2 bytes written out of bounds, 97 elements unwritten");
}

TEST(ShapeCheckerTest, StridedGapsAreGuarded) {
  VerificationBundle bundle = stridedBundle();
  EntrySimulation sim(bundle, 0, 1);
  const BufferLayout &a = sim.plan.buffers[0], &c = sim.plan.buffers[1];
  auto scale = [&](auto &images, unsigned) {
    for (uint64_t i = 0; i < c.elementCount; ++i) {
      float x;
      std::memcpy(&x, images[0].data() + a.elementByteOffset(i), 4);
      float y = x * 2.5f;
      std::memcpy(images[1].data() + c.elementByteOffset(i), &y, 4);
    }
  };
  std::vector<std::vector<uint8_t>> refA, refB, candA, candB;
  sim.run(scale, refA, refB);
  // The candidate ignores c's offset: writes at the aligned pointer.
  sim.run(
      [&](auto &images, unsigned) {
        for (uint64_t i = 0; i < c.elementCount; ++i) {
          float x;
          std::memcpy(&x, images[0].data() + a.elementByteOffset(i), 4);
          float y = x * 2.5f;
          std::memcpy(images[1].data() + c.elementByteOffset(i) - 5 * 4, &y, 4);
        }
      },
      candA, candB);
  ShapeChecker checker(sim.bundle, sim.plan);
  for (size_t b = 0; b < 2; ++b)
    checker.checkIntegrity(b, sim.imagesA[b].data(), candA[b].data(),
                           "candidate-first");
  EXPECT_EQ(checker.findings().verdict(), Verdict::OutOfBoundsWrite);
  EXPECT_EQ(checker.findings().outOfBoundsExamples.front().index,
            (std::vector<int64_t>{-5}));
}

TEST(ShapeCheckerTest, InoutWithoutPoisonIsMismatchNotUnwritten) {
  VerificationBundle bundle = vaddBundle();
  bundle.buffers[2].role = BufferRole::InOut;
  EntrySimulation sim(bundle);
  CheckFindings findings =
      sim.check([&](auto &, unsigned) { /* leaves c as it was */ });
  EXPECT_EQ(findings.unwritten, 0u);
  EXPECT_EQ(findings.verdict(), Verdict::Mismatch);
}

TEST(ShapeCheckerTest, SingleRunAfterTiming) {
  EntrySimulation sim(vaddBundle());
  std::vector<std::vector<uint8_t>> ref = sim.imagesB, cand = sim.imagesB;
  sim.reference(ref, 1);
  ShapeChecker checker(sim.bundle, sim.plan);
  const BufferLayout &c = sim.plan.buffers[2];
  auto r = gatherElements(c, ref[2].data());
  auto k = gatherElements(c, cand[2].data());
  checker.compareSingleRun(2, 1, r.data(), k.data(), "after-timing");
  EXPECT_EQ(checker.findings().verdict(), Verdict::Unwritten);
  EXPECT_EQ(checker.findings().unwrittenExamples.front().run, "after-timing");
}

TEST(VerdictTest, NamesRoundTrip) {
  for (Verdict verdict :
       {Verdict::Pass, Verdict::Mismatch, Verdict::Unwritten,
        Verdict::OutOfBoundsWrite, Verdict::InputModified,
        Verdict::Nondeterministic, Verdict::LoadError, Verdict::LaunchError,
        Verdict::IllegalAddress, Verdict::CudaError, Verdict::Timeout,
        Verdict::Crash, Verdict::Sanitizer, Verdict::Skipped})
    EXPECT_EQ(parseVerdict(verdictName(verdict)), verdict);
  EXPECT_STREQ(verdictName(Verdict::OutOfBoundsWrite), "out-of-bounds-write");
  EXPECT_FALSE(parseVerdict("fine").has_value());
}

TEST(VerdictTest, CandidateVerdictIsTheFirstFailure) {
  EXPECT_EQ(candidateVerdict({Verdict::Pass, Verdict::Pass}), Verdict::Pass);
  EXPECT_EQ(
      candidateVerdict({Verdict::Pass, Verdict::Unwritten, Verdict::Timeout}),
      Verdict::Unwritten);
  EXPECT_EQ(
      candidateVerdict({Verdict::Pass, Verdict::Skipped, Verdict::Mismatch}),
      Verdict::Mismatch);
  EXPECT_EQ(candidateVerdict({Verdict::Skipped}), Verdict::Skipped);
  EXPECT_EQ(candidateVerdict({}), Verdict::Skipped);
}

TEST(VerdictTest, Severity) {
  EXPECT_EQ(worseVerdict(Verdict::Mismatch, Verdict::Unwritten),
            Verdict::Unwritten);
  EXPECT_EQ(worseVerdict(Verdict::OutOfBoundsWrite, Verdict::InputModified),
            Verdict::OutOfBoundsWrite);
  EXPECT_EQ(worseVerdict(Verdict::Pass, Verdict::Sanitizer),
            Verdict::Sanitizer);
  EXPECT_EQ(worseVerdict(Verdict::Timeout, Verdict::Mismatch),
            Verdict::Timeout);
  EXPECT_TRUE(isExecutionFailure(Verdict::IllegalAddress));
  EXPECT_FALSE(isExecutionFailure(Verdict::Mismatch));
}

} // namespace
