//===- Settings.cpp - What a run of the kernel pipeline is asked -*- C++
//-*-===//
//
// The provider a run asks for and the settings its report lists.
//
//===----------------------------------------------------------------------===//

#include "llmptx/Pipeline/Settings.h"

#include "llmptx/Support/UntrustedText.h"

#include <type_traits>

using namespace llmptx;

llm::ProviderConfig PipelineSettings::providerConfig() const {
  llm::ProviderConfig config = llm::ProviderConfig::fromEnvironment();
  config.kind = provider;
  config.model = model;
  config.baseUrl = baseUrl;
  config.execCommand = execCommand;
  if (!cacheDir.empty())
    config.cacheDir = cacheDir;
  config.cacheMode = cache;
  // A model caught in a repetition loop, or a kernel unrolled into
  // megabytes ptxas takes minutes on: refused before it is cached.
  config.maxAnswerBytes = untrusted::kMaxAnswerBytes;
  if (jobs > 0)
    config.maxInFlight = jobs;
  return config;
}

template <typename Value>
static llvm::json::Value reportValue(const Value &value) {
  if constexpr (std::is_enum_v<Value>)
    return spellingOf(value);
  else
    return value;
}

llvm::json::Object PipelineSettings::reportRecord() const {
  llvm::json::Object record;
#define LLMGEN_REPORTED(Name, Key) record[Key] = reportValue(Name);
#include "llmptx/Dialect/LLMGen/IR/LLMGenSettings.inc"
  return record;
}
