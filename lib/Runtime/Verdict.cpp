//===- Verdict.cpp - Verdicts of candidate runs ---------------------------===//

#include "llmptx/Runtime/Verdict.h"

using namespace llmptx::runtime;

static const std::pair<Verdict, const char *> kVerdictNames[] = {
    {Verdict::Pass, "pass"},
    {Verdict::Mismatch, "mismatch"},
    {Verdict::Unwritten, "unwritten"},
    {Verdict::OutOfBoundsWrite, "out-of-bounds-write"},
    {Verdict::InputModified, "input-modified"},
    {Verdict::Nondeterministic, "nondeterministic"},
    {Verdict::LoadError, "load-error"},
    {Verdict::LaunchError, "launch-error"},
    {Verdict::IllegalAddress, "illegal-address"},
    {Verdict::CudaError, "cuda-error"},
    {Verdict::Timeout, "timeout"},
    {Verdict::Crash, "crash"},
    {Verdict::Sanitizer, "sanitizer"},
    {Verdict::Skipped, "skipped"},
};

const char *llmptx::runtime::verdictName(Verdict verdict) {
  for (const auto &[value, name] : kVerdictNames)
    if (value == verdict)
      return name;
  return "?";
}

std::optional<Verdict> llmptx::runtime::parseVerdict(std::string_view name) {
  for (const auto &[value, spelling] : kVerdictNames)
    if (name == spelling)
      return value;
  return std::nullopt;
}

bool llmptx::runtime::isExecutionFailure(Verdict verdict) {
  switch (verdict) {
  case Verdict::LoadError:
  case Verdict::LaunchError:
  case Verdict::IllegalAddress:
  case Verdict::CudaError:
  case Verdict::Timeout:
  case Verdict::Crash:
    return true;
  default:
    return false;
  }
}

int llmptx::runtime::verdictSeverity(Verdict verdict) {
  switch (verdict) {
  case Verdict::Skipped:
    return 0;
  case Verdict::Pass:
    return 1;
  case Verdict::Sanitizer:
    return 2;
  case Verdict::Mismatch:
    return 3;
  case Verdict::Nondeterministic:
    return 4;
  case Verdict::Unwritten:
    return 5;
  case Verdict::InputModified:
    return 6;
  case Verdict::OutOfBoundsWrite:
    return 7;
  default:
    return 8; // execution failures; an entry has at most one
  }
}

Verdict llmptx::runtime::worseVerdict(Verdict lhs, Verdict rhs) {
  return verdictSeverity(rhs) > verdictSeverity(lhs) ? rhs : lhs;
}

Verdict llmptx::runtime::candidateVerdict(const std::vector<Verdict> &entries) {
  bool ran = false;
  for (Verdict verdict : entries) {
    if (verdict == Verdict::Skipped)
      continue;
    ran = true;
    if (verdict != Verdict::Pass)
      return verdict;
  }
  return ran ? Verdict::Pass : Verdict::Skipped;
}
