//===- Settings.h - What a run of the kernel pipeline is asked --*- C++ -*-===//
//
// The settings of the pipeline as plain data: the rows of the settings table
// (include/llmptx/Dialect/LLMGen/IR/LLMGenSettings.td) that the stages read,
// one field each, and the enumerations they take. The table is the one
// declaration of every setting; `#llmgen.target` carries the same rows as
// attribute parameters, and lib/Target maps the attribute (with the
// environment filling what it leaves unset) onto this struct. Nothing here
// depends on MLIR: the table's X-macro list is plain text.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_PIPELINE_SETTINGS_H
#define LLMPTX_PIPELINE_SETTINGS_H

#include "llmptx/LLM/Provider.h"
#include "llmptx/Pipeline/SettingEnums.h"

#include "llvm/Support/JSON.h"

#include <string>

namespace llmptx {

struct PipelineSettings {
  // One field per pipeline row of the settings table, with the table's
  // default: strings by value, the cache mode decided.
#define LLMGEN_PIPELINE(Name, Type, Default, Getter) Type Name = Default;
#include "llmptx/Dialect/LLMGen/IR/LLMGenSettings.inc"

  /// The reference's `fast` and `ftz` flags (#nvvm.target): CUDA C++
  /// candidates are compiled with fast math or flush-to-zero only then.
  bool referenceFastMath = false;
  bool referenceFlushesDenormals = false;

  /// A setting's environment variable that spells no value
  /// ("LLMPTX_LANGUAGE='rust' is not one of ptx, cuda, auto"): no model is
  /// asked, as for a provider configuration that does not hold.
  std::string environmentProblem;

  /// Settles what the table leaves to the mode: `rounds` = -1 becomes 2 in
  /// optimize mode and 0 in translate mode.
  void resolveDefaults() {
    if (rounds < 0)
      rounds = mode == Mode::Optimize ? 2 : 0;
  }

  /// The provider these settings ask for: the LLM library's configuration
  /// from the environment (timeouts, retries, requests in flight, ...), with
  /// the provider, model, URL, command and cache of these settings, and
  /// `jobs` requests in flight when it is not 0.
  llm::ProviderConfig providerConfig() const;

  /// The settings the report lists, keyed by option name.
  llvm::json::Object reportRecord() const;
};

} // namespace llmptx

#endif // LLMPTX_PIPELINE_SETTINGS_H
