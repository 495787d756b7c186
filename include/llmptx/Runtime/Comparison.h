//===- Comparison.h - Output comparison and memory checks -------*- C++ -*-===//
//
// The CPU half of every GPU check. The GPU side uploads images, runs a
// kernel and reads the allocations back; everything that decides a verdict
// from those bytes lives here, so CI covers it without a GPU.
//
// Each (candidate, shape) entry runs four times on fresh images:
//   run A ("candidate-first"): candidate, then reference, outputs poisoned
//                              with poison 0;
//   run B ("reference-first"): reference, then candidate, poison 1.
// After every run, the whole allocation of every buffer is compared with
// what was uploaded (guard bands, pads, stride gaps, inputs). Then the
// candidate's outputs are compared with the reference's of the same run.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_RUNTIME_COMPARISON_H
#define LLMPTX_RUNTIME_COMPARISON_H

#include "llmptx/Runtime/Bundle.h"
#include "llmptx/Runtime/Plan.h"
#include "llmptx/Runtime/Verdict.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llmptx::runtime {

/// Distance in units in the last place between two float bit patterns of
/// `type`, counting -0 and +0 as the same point (so the smallest denormal is
/// 1 ulp from either zero). Not meaningful for NaN.
uint64_t ulpDistance(ElementType type, uint64_t lhs, uint64_t rhs);

/// Whether `got` is acceptable where the reference has `expected`:
/// integers bit-exact; floats bit-equal, or both NaN (any payload), or both
/// zero (unless tolerance.signedZero), or finite and within any one of the
/// ulp, rel (|e-g| <= rel*|e|) and abs bounds that are set. Infinities must
/// match exactly.
bool elementsMatch(ElementType type, const Tolerance &tolerance,
                   uint64_t expected, uint64_t got);

/// One reported element (or, for guard bands, one element-sized chunk).
struct ElementReport {
  std::string buffer;
  /// Multi-dimensional element index; for out-of-bounds writes, the
  /// element-sized position relative to the first element (negative before
  /// it, >= size after it).
  std::vector<int64_t> index;
  std::string expected;
  std::string got;
  /// "mismatch", "unwritten", "nondeterministic", "out-of-bounds-write",
  /// "input-modified".
  std::string kind;
  /// "candidate-first", "reference-first", or "after-timing".
  std::string run;
};

/// Counts and the first examples of everything one entry found.
struct CheckFindings {
  uint64_t outOfBounds = 0;
  uint64_t inputModified = 0;
  uint64_t unwritten = 0;
  uint64_t nondeterministic = 0;
  uint64_t mismatched = 0;
  std::vector<ElementReport> outOfBoundsExamples;
  std::vector<ElementReport> inputModifiedExamples;
  std::vector<ElementReport> unwrittenExamples;
  std::vector<ElementReport> nondeterministicExamples;
  std::vector<ElementReport> mismatchExamples;

  bool clean() const {
    return !outOfBounds && !inputModified && !unwritten && !nondeterministic &&
           !mismatched;
  }
  /// The verdict by precedence: out-of-bounds-write, input-modified,
  /// unwritten, nondeterministic, mismatch, pass.
  Verdict verdict() const;
  /// The examples of the deciding kind, then of the other kinds.
  std::vector<ElementReport> examples(size_t limit) const;
  /// "2 unwritten, 1 mismatched elements" style counts.
  std::string summary() const;
};

/// Applies the checks of one entry (one candidate, one shape and offset).
class ShapeChecker {
public:
  ShapeChecker(const VerificationBundle &bundle, const ShapePlan &plan,
               size_t maxExamples = 10);

  /// Compares the whole allocation of buffer `buffer` after a run with what
  /// was uploaded before it: non-element bytes must be unchanged, and so
  /// must the elements of input buffers.
  void checkIntegrity(size_t buffer, const uint8_t *uploaded,
                      const uint8_t *readBack, const std::string &run);

  /// Compares one output (or inout) buffer's packed elements of both runs.
  /// `poisoned`: the outputs started as poison (role output), so an element
  /// that still holds its run's poison where the reference's does not is
  /// unwritten.
  void compareOutput(size_t buffer, const uint8_t *referenceA,
                     const uint8_t *referenceB, const uint8_t *candidateA,
                     const uint8_t *candidateB);

  /// Compares a single run (used after timing): candidate vs reference.
  void compareSingleRun(size_t buffer, unsigned poisonRun,
                        const uint8_t *reference, const uint8_t *candidate,
                        const std::string &run);

  const CheckFindings &findings() const { return result; }
  CheckFindings &findings() { return result; }

private:
  /// Keeps the example `make` builds while `examples` has room; builds
  /// nothing once it is full (a wrong kernel at a production shape differs
  /// in hundreds of millions of elements).
  template <typename MakeReport>
  void report(std::vector<ElementReport> &examples, MakeReport make) {
    if (examples.size() < maxExamples)
      examples.push_back(make());
  }
  std::string chunkHex(const uint8_t *data, uint64_t offset, unsigned bytes,
                       uint64_t limit) const;

  const VerificationBundle &bundle;
  const ShapePlan &plan;
  size_t maxExamples;
  CheckFindings result;
};

} // namespace llmptx::runtime

#endif // LLMPTX_RUNTIME_COMPARISON_H
