//===- ObjectProvenance.cpp - What each object says of its kernels --------===//
//
// Secrets never reach a property: reasons are redacted like the report.
//
//===----------------------------------------------------------------------===//

#include "ObjectProvenance.h"

#include "llmptx/Dialect/LLMGen/IR/LLMGenAttrs.h"
#include "llmptx/Dialect/LLMGen/IR/LLMGenProperties.h"
#include "llmptx/LLM/Secrets.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace llmptx;

static NamedAttribute named(Builder &builder, StringRef name, StringRef value) {
  return builder.getNamedAttr(name, builder.getStringAttr(value));
}

/// The launch an object needs for a kernel, with where the host reads each
/// size (the first source of each).
static DictionaryAttr launchRecord(Builder &builder, const LaunchConfig &launch,
                                   const LaunchFreedom &freedom) {
  SmallVector<Attribute> grid;
  for (const std::string &dim : launch.grid)
    grid.push_back(builder.getStringAttr(dim));
  SmallVector<NamedAttribute> sizes;
  for (const SizeSource &source : freedom.sources) {
    if (llvm::any_of(sizes, [&](const NamedAttribute &entry) {
          return entry.getName() == source.size;
        }))
      continue;
    SmallVector<int64_t> where = {source.argIndex};
    if (source.dim >= 0)
      where.push_back(source.dim);
    sizes.push_back(
        builder.getNamedAttr(source.size, builder.getDenseI64ArrayAttr(where)));
  }
  return builder.getDictionaryAttr(
      {builder.getNamedAttr(llmgen::kLaunchBlock,
                            builder.getDenseI64ArrayAttr(launch.block)),
       builder.getNamedAttr(llmgen::kLaunchGrid, builder.getArrayAttr(grid)),
       builder.getNamedAttr(llmgen::kLaunchSizes,
                            builder.getDictionaryAttr(sizes))});
}

/// What an object records of the candidate it uses.
static void describeCandidate(Builder &builder, const Candidate &used,
                              SmallVectorImpl<NamedAttribute> &entries) {
  entries.push_back(named(builder, "candidate", used.name()));
  entries.push_back(named(builder, "model", used.model));
  entries.push_back(named(builder, "prompt_hash", used.promptHash));
  entries.push_back(
      named(builder, "verification", checkLevelName(used.verification())));
  if (!used.fixes.empty())
    entries.push_back(named(builder, "fixes", llvm::join(used.fixes, "; ")));
  // A CUDA C++ candidate records its source and how NVRTC made the PTX.
  if (used.language == llm::SourceLanguage::CUDA) {
    entries.push_back(named(builder, "language", "cuda"));
    entries.push_back(named(builder, "cuda_compiler", used.cudaCompiler));
    entries.push_back(named(builder, "cuda_source", used.cudaSource));
  }
  if (!used.timing)
    return;
  entries.push_back(builder.getNamedAttr(
      "speedup", builder.getF64FloatAttr(used.timing->speedup.speedup)));
  entries.push_back(builder.getNamedAttr(
      "reference_ms", builder.getF64FloatAttr(used.timing->referenceMs.median)));
  entries.push_back(builder.getNamedAttr(
      "candidate_ms", builder.getF64FloatAttr(used.timing->candidateMs.median)));
}

DictionaryAttr llmptx::kernelProvenance(Builder &builder,
                                        const KernelWork &work,
                                        const Candidate *used,
                                        StringRef reason,
                                        const LaunchConfig *launch) {
  SmallVector<NamedAttribute> entries;
  if (launch)
    entries.push_back(builder.getNamedAttr(
        llmgen::kLaunchEntry,
        launchRecord(builder, *launch, work.description->launch)));
  unsigned attempts = 0;
  for (const SampleOutcome *sample : work.allSamples())
    attempts += sample->attempts.size();
  entries.push_back(named(builder, "source", used ? "llm" : "nvptx"));
  entries.push_back(named(builder, "reason", llm::redactSecrets(reason)));
  entries.push_back(
      builder.getNamedAttr("attempts", builder.getI64IntegerAttr(attempts)));
  if (used)
    describeCandidate(builder, *used, entries);
  return builder.getDictionaryAttr(entries);
}

DictionaryAttr llmptx::slotRecord(Builder &builder, StringRef ptx, bool llm,
                                  StringRef reason, DictionaryAttr perKernel,
                                  StringRef model, StringRef provider) {
  SmallVector<NamedAttribute> properties = {
      named(builder, llmgen::kSourceProperty, llm ? "llm" : "nvptx"),
      named(builder, llmgen::kReasonProperty, llm::redactSecrets(reason)),
      builder.getNamedAttr(llmgen::kKernelsAttrName, perKernel)};
  if (llm && !model.empty())
    properties.push_back(named(builder, llmgen::kModelProperty, model));
  properties.push_back(named(builder, llmgen::kProviderProperty, provider));
  return builder.getDictionaryAttr(
      {named(builder, llmgen::kOutcomePtx, ptx),
       builder.getNamedAttr(llmgen::kOutcomeProperties,
                            builder.getDictionaryAttr(properties))});
}

DictionaryAttr llmptx::referenceOnlyOutcome(MLIRContext *context,
                                            StringRef ptx, StringRef reason) {
  Builder builder(context);
  NamedAttribute provenance[] = {
      named(builder, llmgen::kSourceProperty, "nvptx"),
      named(builder, llmgen::kReasonProperty, reason)};
  DictionaryAttr slot = builder.getDictionaryAttr(
      {named(builder, llmgen::kOutcomePtx, ptx),
       builder.getNamedAttr(llmgen::kOutcomeProperties,
                            builder.getDictionaryAttr(provenance))});
  return builder.getDictionaryAttr(
      {builder.getNamedAttr(llmgen::stringifySlot(llmgen::Slot::Selected), slot),
       builder.getNamedAttr(llmgen::stringifySlot(llmgen::Slot::Alternate),
                            slot)});
}
