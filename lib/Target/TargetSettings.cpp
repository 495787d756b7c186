//===- TargetSettings.cpp - Resolved settings of #llmgen.target -*- C++ -*-===//
//
// The environment is read when the module is serialized, so the same module
// behaves the same under `llmptx-opt` and a stock `mlir-opt`, and
// `--llm-lower` honours each variable exactly as `llmptx-llm` does.
//
//===----------------------------------------------------------------------===//

#include "llmptx/Target/TargetSettings.h"

#include "llmptx/Dialect/LLMGen/IR/LLMGenSettings.h"
#include "llmptx/Support/UntrustedText.h"

#include <cstdlib>
#include <type_traits>

using namespace llmptx;

static llvm::StringRef environment(const char *variable) {
  const char *value = std::getenv(variable);
  return value ? value : "";
}

/// A parameter's value as its setting holds it.
template <typename Parameter>
static Parameter fromParameter(Parameter value) {
  return value;
}
static std::string fromParameter(llvm::StringRef value) { return value.str(); }
template <typename Value>
static Value fromParameter(std::optional<Value> value) {
  return value.value_or(Value());
}

/// The parameter, else the variable (when set).
static std::string withEnvironment(llvm::StringRef value,
                                   const char *variable) {
  return value.empty() ? environment(variable).str() : value.str();
}

/// The parameter, else the variable's mode, else readwrite. An unknown
/// spelling in the variable is reported by the provider's configuration,
/// which reads the same variable.
static llm::CacheMode withEnvironment(std::optional<llm::CacheMode> value,
                                      const char *variable) {
  if (value)
    return *value;
  return llm::symbolizeCacheMode(environment(variable))
      .value_or(llm::CacheMode::ReadWrite);
}

TargetSettings TargetSettings::resolve(llmgen::TargetAttr target) {
  TargetSettings settings;
#define LLMGEN_PARAMETER(Name, Type, Getter)                                   \
  settings.Name = fromParameter(target.Getter());
#define LLMGEN_ENVIRONMENT(Name, Getter, Variable)                             \
  settings.Name = withEnvironment(target.Getter(), Variable);
#include "llmptx/Dialect/LLMGen/IR/LLMGenSettings.inc"
  if (settings.rounds < 0)
    settings.rounds = settings.mode == llmgen::Mode::Optimize ? 2 : 0;
  return settings;
}

llm::ProviderConfig TargetSettings::providerConfig() const {
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
    return llmgen::spellingOf(value);
  else
    return value;
}

llvm::json::Object TargetSettings::reportRecord() const {
  llvm::json::Object record;
#define LLMGEN_REPORTED(Name, Key) record[Key] = reportValue(Name);
#include "llmptx/Dialect/LLMGen/IR/LLMGenSettings.inc"
  return record;
}
