//===- TargetSettings.cpp - Resolved settings of #llmgen.target -*- C++ -*-===//
//
// The environment is read when the module is serialized, so the same module
// behaves the same under `llmptx-opt` and a stock `mlir-opt`, and
// `--llm-lower` honours each variable exactly as `llmptx-llm` does.
//
//===----------------------------------------------------------------------===//

#include "llmptx/Target/TargetSettings.h"

#include "llmptx/Dialect/LLMGen/IR/LLMGenSettings.h"

#include <cstdlib>
#include <type_traits>

using namespace llmptx;

static llvm::StringRef environment(const char *variable) {
  const char *value = std::getenv(variable);
  return value ? value : "";
}

static void applyEnvironment(std::string &value, const char *variable,
                             llvm::StringRef byDefault) {
  if (value == byDefault && !environment(variable).empty())
    value = environment(variable).str();
}

/// An unknown spelling leaves the default; the provider's configuration,
/// which reads the same variable, then fails with a message naming it.
static void applyEnvironment(llm::CacheMode &value, const char *variable,
                             llm::CacheMode byDefault) {
  if (value != byDefault)
    return;
  if (std::optional<llm::CacheMode> mode =
          llm::symbolizeCacheMode(environment(variable)))
    value = *mode;
}

TargetSettings TargetSettings::resolve(llmgen::TargetAttr target) {
  TargetSettings settings;
#define LLMGEN_PARAMETER(Name, Type, Getter)                                   \
  settings.Name = typename SettingStorage<Type>::type(target.Getter());
#define LLMGEN_ENVIRONMENT(Name, Variable, Default)                            \
  applyEnvironment(settings.Name, Variable, Default);
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
