//===- Candidate.cpp - LLM answers and what became of them -------*- C++
//-*-===//
//
// The spellings the report, the remarks and the provenance use.
//
//===----------------------------------------------------------------------===//

#include "llmptx/Pipeline/Candidate.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llmptx;

llvm::StringRef llmptx::checkLevelName(CheckLevel level) {
  switch (level) {
  case CheckLevel::None:
    return "none";
  case CheckLevel::Lint:
    return "lint";
  case CheckLevel::Compile:
    return "compile";
  case CheckLevel::Exec:
    return "exec";
  }
  return "none";
}

llvm::StringRef llmptx::attemptStatusName(AttemptStatus status) {
  switch (status) {
  case AttemptStatus::ProviderError:
    return "provider-error";
  case AttemptStatus::NoPtx:
    return "no-ptx";
  case AttemptStatus::LintError:
    return "lint-error";
  case AttemptStatus::AbiError:
    return "abi-error";
  case AttemptStatus::CompileError:
    return "compile-error";
  case AttemptStatus::LaunchError:
    return "launch-error";
  case AttemptStatus::Extracted:
    return "extracted";
  case AttemptStatus::LintOk:
    return "lint-ok";
  case AttemptStatus::Compiled:
    return "compiled";
  }
  return "provider-error";
}

std::string Candidate::name() const {
  std::string text = llvm::formatv("s{0}r{1}", sample, round).str();
  if (optimizationRound > 0)
    text = "o" + std::to_string(optimizationRound) + text;
  return text;
}

std::string Candidate::failureText() const {
  if (!verdictDetails.empty())
    return verdictDetails;
  return verdict ? runtime::verdictName(*verdict) : "";
}
