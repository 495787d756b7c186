//===- ResultsJson.h - Result pieces as JSON (private) ----------*- C++ -*-===//
//
// The child processes send shape results, timings and kernel resources to
// the runner as JSON lines in the results format's own encoding.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_LIB_RUNTIME_RESULTSJSON_H
#define LLMPTX_LIB_RUNTIME_RESULTSJSON_H

#include "JsonSupport.h"
#include "llmptx/Runtime/Results.h"

namespace llmptx::runtime {

json_support::OrderedJson shapeResultJson(const ShapeResult &shape);
json_support::OrderedJson timingJson(const CandidateTiming &timing);
json_support::OrderedJson kernelResourcesJson(const KernelResources &resources);
bool readShapeResultJson(const json_support::Json &value, ShapeResult &result,
                         std::string &error);
bool readTimingJson(const json_support::Json &value, CandidateTiming &result,
                    std::string &error);
bool readKernelResourcesJson(const json_support::Json &value,
                             KernelResources &result, std::string &error);

} // namespace llmptx::runtime

#endif // LLMPTX_LIB_RUNTIME_RESULTSJSON_H
