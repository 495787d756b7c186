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

/// A parameter's value into its setting; an absent optional parameter leaves
/// the setting's default (the environment may fill it next).
template <typename Parameter>
static void assign(Parameter &setting, Parameter value) {
  setting = value;
}
static void assign(std::string &setting, llvm::StringRef value) {
  setting = value.str();
}
template <typename Value>
static void assign(Value &setting, std::optional<Value> value) {
  if (value)
    setting = *value;
}

/// The variable, when the parameter is unset and the variable is set.
static void fillFromEnvironment(std::string &setting, llvm::StringRef value,
                                const char *variable, std::string &) {
  if (value.empty())
    setting = environment(variable).str();
}

/// The variable's mode, else readwrite. An unknown spelling in the variable
/// is reported by the provider's configuration, which reads the same
/// variable.
static void fillFromEnvironment(llm::CacheMode &setting,
                                std::optional<llm::CacheMode> value,
                                const char *variable, std::string &) {
  if (!value)
    setting = llm::symbolizeCacheMode(environment(variable))
                  .value_or(llm::CacheMode::ReadWrite);
}

/// The variable's spelling, when the parameter is unset; a variable that
/// spells no value is a problem the driver reports.
static void fillFromEnvironment(Language &setting,
                                std::optional<Language> value,
                                const char *variable, std::string &problem) {
  llvm::StringRef spelled = environment(variable);
  if (value || spelled.empty())
    return;
  if (std::optional<Language> language = settingFromSpelling<Language>(spelled))
    setting = *language;
  else
    problem = std::string(variable) + "='" + spelled.str() +
              "' is not one of " + settingSpellings<Language>();
}

PipelineSettings llmptx::pipelineSettingsOf(llmgen::TargetAttr target) {
  PipelineSettings settings;
#define LLMGEN_PIPELINE(Name, Type, Default, Getter)                           \
  assign(settings.Name, target.Getter());
#define LLMGEN_ENVIRONMENT(Name, Getter, Variable)                             \
  fillFromEnvironment(settings.Name, target.Getter(), Variable,                \
                      settings.environmentProblem);
#include "llmptx/Dialect/LLMGen/IR/LLMGenSettings.inc"
  if (mlir::DictionaryAttr flags = target.getFlags()) {
    settings.referenceFastMath = flags.contains("fast");
    settings.referenceFlushesDenormals = flags.contains("ftz");
  }
  settings.resolveDefaults();
  return settings;
}
