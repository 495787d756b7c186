//===- TargetSettings.cpp - #llmgen.target as pipeline settings -*- C++ -*-===//
//
// The environment is read when the module is serialized, so the same module
// behaves the same under `llmptx-opt` and a stock `mlir-opt`, and
// `--llm-lower` honours each variable exactly as `llmptx-llm` does.
//
//===----------------------------------------------------------------------===//

#include "llmptx/Target/TargetSettings.h"

#include <cstdlib>

using namespace llmptx;

static llvm::StringRef environment(const char *variable) {
  const char *value = std::getenv(variable);
  return value ? value : "";
}

/// A parameter's value as its setting holds it.
template <typename Parameter> static Parameter fromParameter(Parameter value) {
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

PipelineSettings llmptx::pipelineSettingsOf(llmgen::TargetAttr target) {
  PipelineSettings settings;
#define LLMGEN_PIPELINE(Name, Type, Default, Getter)                           \
  settings.Name = fromParameter(target.Getter());
#define LLMGEN_ENVIRONMENT(Name, Getter, Variable)                             \
  settings.Name = withEnvironment(target.Getter(), Variable);
#include "llmptx/Dialect/LLMGen/IR/LLMGenSettings.inc"
  settings.resolveDefaults();
  return settings;
}
