//===- TargetSettings.h - Resolved settings of #llmgen.target ---*- C++ -*-===//
//
// The settings of one serialization: the attribute's parameters (one field
// per row of LLMGenSettings.td), with the environment filling those the
// attribute leaves unset.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_TARGET_TARGETSETTINGS_H
#define LLMPTX_TARGET_TARGETSETTINGS_H

#include "llmptx/Dialect/LLMGen/IR/LLMGenAttrs.h"
#include "llmptx/LLM/Provider.h"

#include "llvm/Support/JSON.h"

#include <optional>
#include <string>

namespace llmptx {

/// How a parameter type is held: strings by value, the rest as they are.
template <typename Parameter>
struct SettingStorage {
  using type = Parameter;
};
template <>
struct SettingStorage<llvm::StringRef> {
  using type = std::string;
};
/// A parameter that may be unset is resolved (the environment, else the
/// built-in default).
template <typename Value>
struct SettingStorage<std::optional<Value>> {
  using type = Value;
};

struct TargetSettings {
#define LLMGEN_PARAMETER(Name, Type, Getter)                                   \
  typename SettingStorage<Type>::type Name{};
#include "llmptx/Dialect/LLMGen/IR/LLMGenSettings.inc"

  /// Reads the attribute. A setting it leaves unset takes the value of its
  /// environment variable (LLMPTX_PROVIDER, LLMPTX_MODEL,
  /// LLMPTX_BASE_URL, LLMPTX_EXEC_COMMAND, LLMPTX_CACHE, LLMPTX_CACHE_DIR,
  /// LLMPTX_RUNNER) when that is set; `rounds` = -1 becomes 2 in optimize
  /// mode and 0 in translate mode.
  static TargetSettings resolve(llmgen::TargetAttr target);

  /// The provider these settings ask for: the LLM library's configuration
  /// from the environment (timeouts, retries, requests in flight, ...), with
  /// the provider, model, URL, command and cache of these settings, and
  /// `jobs` requests in flight when it is not 0.
  llm::ProviderConfig providerConfig() const;

  /// The settings the report lists, keyed by option name.
  llvm::json::Object reportRecord() const;
};

} // namespace llmptx

#endif // LLMPTX_TARGET_TARGETSETTINGS_H
