//===- Comparison.cpp - Output comparison and memory checks ---------------===//

#include "llmptx/Runtime/Comparison.h"

#include "llmptx/Runtime/InputRecipe.h"

#include <cmath>
#include <cstdio>
#include <cstring>

using namespace llmptx::runtime;

/// Maps float bits to integers that are ordered like the values, with both
/// zeros at 0.
static __int128 orderedFloat(ElementType type, uint64_t bits) {
  unsigned width = elementByteSize(type) * 8;
  uint64_t signBit = uint64_t(1) << (width - 1);
  uint64_t magnitude = bits & (signBit - 1);
  return (bits & signBit) ? -static_cast<__int128>(magnitude)
                          : static_cast<__int128>(magnitude);
}

uint64_t llmptx::runtime::ulpDistance(ElementType type, uint64_t lhs,
                                      uint64_t rhs) {
  __int128 difference = orderedFloat(type, lhs) - orderedFloat(type, rhs);
  if (difference < 0)
    difference = -difference;
  if (difference > static_cast<__int128>(UINT64_MAX))
    return UINT64_MAX;
  return static_cast<uint64_t>(difference);
}

bool llmptx::runtime::elementsMatch(ElementType type,
                                    const Tolerance &tolerance,
                                    uint64_t expected, uint64_t got) {
  if (expected == got)
    return true;
  if (!isFloatType(type))
    return false;
  bool expectedNaN = isNaNBits(type, expected), gotNaN = isNaNBits(type, got);
  if (expectedNaN || gotNaN)
    return expectedNaN && gotNaN;
  if (isInfBits(type, expected) || isInfBits(type, got))
    return false;
  if (isZeroBits(type, expected) && isZeroBits(type, got))
    return !tolerance.signedZero;
  if (tolerance.ulp && ulpDistance(type, expected, got) <= tolerance.ulp)
    return true;
  if (tolerance.rel || tolerance.abs) {
    double e = floatBitsToDouble(type, expected);
    double g = floatBitsToDouble(type, got);
    double difference = std::fabs(e - g);
    if (tolerance.rel && difference <= tolerance.rel * std::fabs(e))
      return true;
    if (tolerance.abs && difference <= tolerance.abs)
      return true;
  }
  return false;
}

Verdict CheckFindings::verdict() const {
  if (outOfBounds)
    return Verdict::OutOfBoundsWrite;
  if (inputModified)
    return Verdict::InputModified;
  if (unwritten)
    return Verdict::Unwritten;
  if (nondeterministic)
    return Verdict::Nondeterministic;
  if (mismatched)
    return Verdict::Mismatch;
  return Verdict::Pass;
}

std::vector<ElementReport> CheckFindings::examples(size_t limit) const {
  std::vector<const std::vector<ElementReport> *> order;
  switch (verdict()) {
  case Verdict::OutOfBoundsWrite:
    order.push_back(&outOfBoundsExamples);
    break;
  case Verdict::InputModified:
    order.push_back(&inputModifiedExamples);
    break;
  case Verdict::Unwritten:
    order.push_back(&unwrittenExamples);
    break;
  case Verdict::Nondeterministic:
    order.push_back(&nondeterministicExamples);
    break;
  case Verdict::Mismatch:
    order.push_back(&mismatchExamples);
    break;
  default:
    break;
  }
  for (const auto *list :
       {&outOfBoundsExamples, &inputModifiedExamples, &unwrittenExamples,
        &nondeterministicExamples, &mismatchExamples})
    if (order.empty() || order.front() != list)
      order.push_back(list);
  std::vector<ElementReport> result;
  for (const auto *list : order)
    for (const ElementReport &report : *list)
      if (result.size() < limit)
        result.push_back(report);
  return result;
}

std::string CheckFindings::summary() const {
  std::string text;
  auto add = [&](uint64_t count, const char *what) {
    if (!count)
      return;
    if (!text.empty())
      text += ", ";
    text += std::to_string(count) + " " + what;
  };
  add(outOfBounds, "bytes written out of bounds");
  add(inputModified, "input elements modified");
  add(unwritten, "elements unwritten");
  add(nondeterministic, "elements nondeterministic");
  add(mismatched, "elements mismatched");
  return text;
}

ShapeChecker::ShapeChecker(const VerificationBundle &bundle,
                           const ShapePlan &plan, size_t maxExamples)
    : bundle(bundle), plan(plan), maxExamples(maxExamples) {}

std::string ShapeChecker::chunkHex(const uint8_t *data, uint64_t offset,
                                   unsigned bytes, uint64_t limit) const {
  std::string text = "0x";
  char digits[3];
  for (unsigned i = bytes; i-- > 0;) {
    if (offset + i >= limit)
      continue;
    std::snprintf(digits, sizeof(digits), "%02x", data[offset + i]);
    text += digits;
  }
  return text;
}

void ShapeChecker::checkIntegrity(size_t buffer, const uint8_t *uploaded,
                                  const uint8_t *readBack,
                                  const std::string &run) {
  const BufferLayout &layout = plan.buffers[buffer];
  uint64_t size = layout.allocationBytes;
  if (std::memcmp(uploaded, readBack, size) == 0)
    return;
  unsigned bytes = layout.elementBytes();
  uint64_t first = layout.firstElementByteOffset();
  bool elementsMayChange = layout.role != BufferRole::Input;

  auto reportOutOfBounds = [&](uint64_t offset) {
    // Position in element units relative to the first element.
    int64_t relative =
        static_cast<int64_t>(offset) - static_cast<int64_t>(first);
    int64_t position =
        relative >= 0 ? relative / bytes : -((-relative + bytes - 1) / bytes);
    uint64_t chunk = static_cast<uint64_t>(
        static_cast<int64_t>(first) + position * static_cast<int64_t>(bytes));
    ElementReport entry{layout.name,
                        {position},
                        chunkHex(uploaded, chunk, bytes, size),
                        chunkHex(readBack, chunk, bytes, size),
                        "out-of-bounds-write",
                        run};
    // One report per chunk.
    if (!result.outOfBoundsExamples.empty()) {
      const ElementReport &last = result.outOfBoundsExamples.back();
      if (last.buffer == entry.buffer && last.index == entry.index &&
          last.run == entry.run)
        return;
    }
    report(result.outOfBoundsExamples, [&] { return std::move(entry); });
  };

  auto scanGuard = [&](uint64_t begin, uint64_t end) {
    if (begin >= end ||
        std::memcmp(uploaded + begin, readBack + begin, end - begin) == 0)
      return;
    for (uint64_t i = begin; i < end; ++i)
      if (uploaded[i] != readBack[i]) {
        ++result.outOfBounds;
        reportOutOfBounds(i);
      }
  };
  ElementType type = layout.element;
  auto reportInput = [&](uint64_t element, uint64_t offset) {
    ++result.inputModified;
    report(result.inputModifiedExamples, [&] {
      return ElementReport{
          layout.name,
          layout.multiIndex(element),
          formatElement(type, loadElementBits(type, uploaded + offset)),
          formatElement(type, loadElementBits(type, readBack + offset)),
          "input-modified",
          run};
    });
  };

  if (layout.contiguous) {
    uint64_t end = first + layout.elementCount * bytes;
    scanGuard(0, first);
    scanGuard(end, size);
    if (elementsMayChange ||
        std::memcmp(uploaded + first, readBack + first, end - first) == 0)
      return;
    for (uint64_t e = 0; e < layout.elementCount; ++e) {
      uint64_t offset = first + e * bytes;
      if (std::memcmp(uploaded + offset, readBack + offset, bytes) != 0)
        reportInput(e, offset);
    }
    return;
  }

  std::vector<uint8_t> mask = layout.elementMask();
  for (uint64_t i = 0; i < size; ++i) {
    if (uploaded[i] == readBack[i])
      continue;
    if (!mask[i]) {
      ++result.outOfBounds;
      reportOutOfBounds(i);
    }
  }
  if (elementsMayChange)
    return;
  for (uint64_t e = 0; e < layout.elementCount; ++e) {
    uint64_t offset = layout.elementByteOffset(e);
    if (std::memcmp(uploaded + offset, readBack + offset, bytes) != 0)
      reportInput(e, offset);
  }
}

void ShapeChecker::compareOutput(size_t buffer, const uint8_t *referenceA,
                                 const uint8_t *referenceB,
                                 const uint8_t *candidateA,
                                 const uint8_t *candidateB) {
  const BufferLayout &layout = plan.buffers[buffer];
  const Tolerance &tolerance = bundle.buffers[buffer].tolerance;
  ElementType type = layout.element;
  unsigned bytes = layout.elementBytes();
  bool poisoned = layout.role == BufferRole::Output;
  uint64_t poisonA = poisonBits(type, 0), poisonB = poisonBits(type, 1);
  for (uint64_t e = 0; e < layout.elementCount; ++e) {
    uint64_t refA = loadElementBits(type, referenceA + e * bytes);
    uint64_t refB = loadElementBits(type, referenceB + e * bytes);
    uint64_t candA = loadElementBits(type, candidateA + e * bytes);
    uint64_t candB = loadElementBits(type, candidateB + e * bytes);
    if (refA == candA && refB == candB)
      continue;
    if (poisoned) {
      bool unwrittenA = candA == poisonA && refA != poisonA;
      bool unwrittenB = candB == poisonB && refB != poisonB;
      if (unwrittenA || unwrittenB) {
        ++result.unwritten;
        report(result.unwrittenExamples, [&] {
          return ElementReport{layout.name,
                               layout.multiIndex(e),
                               formatElement(type, unwrittenA ? refA : refB),
                               formatElement(type, unwrittenA ? candA : candB),
                               "unwritten",
                               unwrittenA ? "candidate-first"
                                          : "reference-first"};
        });
        continue;
      }
    }
    bool matchA = elementsMatch(type, tolerance, refA, candA);
    bool matchB = elementsMatch(type, tolerance, refB, candB);
    if (matchA && matchB)
      continue;
    // Where the reference wrote the same value twice, the candidate must
    // too; where the reference left the poison, the values differ by design.
    bool referenceStable = elementsMatch(type, tolerance, refA, refB) &&
                           !(poisoned && refA == poisonA && refB == poisonB);
    if (referenceStable && !elementsMatch(type, tolerance, candA, candB)) {
      ++result.nondeterministic;
      report(result.nondeterministicExamples, [&] {
        return ElementReport{layout.name,
                             layout.multiIndex(e),
                             formatElement(type, refA),
                             formatElement(type, matchA ? candB : candA),
                             "nondeterministic",
                             matchA ? "reference-first" : "candidate-first"};
      });
      continue;
    }
    ++result.mismatched;
    report(result.mismatchExamples, [&] {
      return ElementReport{layout.name,
                           layout.multiIndex(e),
                           formatElement(type, matchA ? refB : refA),
                           formatElement(type, matchA ? candB : candA),
                           "mismatch",
                           matchA ? "reference-first" : "candidate-first"};
    });
  }
}

void ShapeChecker::compareSingleRun(size_t buffer, unsigned poisonRun,
                                    const uint8_t *reference,
                                    const uint8_t *candidate,
                                    const std::string &run) {
  const BufferLayout &layout = plan.buffers[buffer];
  const Tolerance &tolerance = bundle.buffers[buffer].tolerance;
  ElementType type = layout.element;
  unsigned bytes = layout.elementBytes();
  bool poisoned = layout.role == BufferRole::Output;
  uint64_t poison = poisonBits(type, poisonRun);
  for (uint64_t e = 0; e < layout.elementCount; ++e) {
    uint64_t ref = loadElementBits(type, reference + e * bytes);
    uint64_t cand = loadElementBits(type, candidate + e * bytes);
    if (ref == cand)
      continue;
    if (poisoned && cand == poison) {
      ++result.unwritten;
      report(result.unwrittenExamples, [&] {
        return ElementReport{layout.name,
                             layout.multiIndex(e),
                             formatElement(type, ref),
                             formatElement(type, cand),
                             "unwritten",
                             run};
      });
      continue;
    }
    if (elementsMatch(type, tolerance, ref, cand))
      continue;
    ++result.mismatched;
    report(result.mismatchExamples, [&] {
      return ElementReport{layout.name,
                           layout.multiIndex(e),
                           formatElement(type, ref),
                           formatElement(type, cand),
                           "mismatch",
                           run};
    });
  }
}
