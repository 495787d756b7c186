//===- TargetSettings.h - #llmgen.target as pipeline settings ---*- C++ -*-===//
//
// The MLIR side of the settings: `#llmgen.target`'s parameters mapped onto
// the pipeline's plain PipelineSettings (one field per pipeline row of
// LLMGenSettings.td), the environment filling those the attribute leaves
// unset.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_TARGET_TARGETSETTINGS_H
#define LLMPTX_TARGET_TARGETSETTINGS_H

#include "llmptx/Dialect/LLMGen/IR/LLMGenAttrs.h"
#include "llmptx/Pipeline/Settings.h"

namespace llmptx {

/// Reads the attribute. A setting it leaves unset takes the value of its
/// environment variable (LLMPTX_PROVIDER, LLMPTX_MODEL, LLMPTX_BASE_URL,
/// LLMPTX_EXEC_COMMAND, LLMPTX_CACHE, LLMPTX_CACHE_DIR, LLMPTX_RUNNER) when
/// that is set; then PipelineSettings::resolveDefaults.
PipelineSettings pipelineSettingsOf(llmgen::TargetAttr target);

} // namespace llmptx

#endif // LLMPTX_TARGET_TARGETSETTINGS_H
