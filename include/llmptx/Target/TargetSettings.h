//===- TargetSettings.h - Resolved settings of #llmgen.target ---*- C++ -*-===//
//
// The settings of one serialization: the attribute's parameters, with empty
// strings filled from the LLMPTX_* environment.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_TARGET_TARGETSETTINGS_H
#define LLMPTX_TARGET_TARGETSETTINGS_H

#include "llmptx/Dialect/LLMGen/IR/LLMGenAttrs.h"

#include <string>

namespace llmptx {

struct TargetSettings {
  std::string chip;
  std::string provider; ///< Empty: no provider, the reference is used.
  std::string model;
  std::string baseUrl;
  std::string execCommand;
  int samples = 1;
  int repairs = 2;
  /// Optimization rounds after verification by execution (the attribute's
  /// -1 resolved by mode).
  int rounds = 0;
  llmgen::Mode mode = llmgen::Mode::Translate;
  llmgen::VerifyLevel verification = llmgen::VerifyLevel::Compile;
  llmgen::SelectPolicy select = llmgen::SelectPolicy::Auto;
  bool strict = false;
  llmgen::CacheMode cache = llmgen::CacheMode::ReadWrite;
  std::string cacheDir; ///< Empty: the LLM layer's default.
  std::string runner;
  std::string report;
  std::string emitBundles;
  int jobs = 0;
  llmgen::Slot slot = llmgen::Slot::Selected;

  /// Reads the attribute; string settings it leaves empty come from
  /// LLMPTX_PROVIDER, LLMPTX_MODEL, LLMPTX_BASE_URL, LLMPTX_EXEC_COMMAND,
  /// LLMPTX_CACHE_DIR and LLMPTX_RUNNER.
  static TargetSettings resolve(llmgen::TargetAttr target);
};

} // namespace llmptx

#endif // LLMPTX_TARGET_TARGETSETTINGS_H
