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

/// The tensor maps of `launch` as the host rewrite builds them: the memref
/// argument, the box and the driver's enums.
static ArrayAttr tensorMapRecords(Builder &builder, const LaunchConfig &launch,
                                  const KernelDescription &kernel) {
  SmallVector<Attribute> maps;
  for (const TensorMapRequest &map : launch.tensorMaps) {
    std::optional<runtime::ElementType> element =
        map.arg < kernel.args.size()
            ? runtime::parseElementType(kernel.args[map.arg].element)
            : std::nullopt;
    runtime::TensorMapEnums enums = runtime::tensorMapEnums(
        map.spec, element.value_or(runtime::ElementType::I8));
    SmallVector<int64_t> box(map.spec.box.begin(), map.spec.box.end());
    auto number = [&](StringRef name, int64_t value) {
      return builder.getNamedAttr(name, builder.getI64IntegerAttr(value));
    };
    maps.push_back(builder.getDictionaryAttr(
        {number("arg", map.arg),
         builder.getNamedAttr("box", builder.getDenseI64ArrayAttr(box)),
         number("data_type", enums.dataType),
         number("interleave", enums.interleave),
         named(builder, "name", map.spec.name),
         number("l2_promotion", enums.l2Promotion),
         number("oob_fill", enums.oobFill), number("swizzle", enums.swizzle)}));
  }
  return builder.getArrayAttr(maps);
}

/// The launch an object needs for a kernel, with where the host reads each
/// size (the first source of each), and the dynamic shared memory and
/// tensor maps it asks for.
static DictionaryAttr launchRecord(Builder &builder, const LaunchConfig &launch,
                                   const KernelDescription &kernel) {
  const LaunchFreedom &freedom = kernel.launch;
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
  SmallVector<NamedAttribute> record = {
      builder.getNamedAttr(llmgen::kLaunchBlock,
                           builder.getDenseI64ArrayAttr(launch.block)),
      builder.getNamedAttr(llmgen::kLaunchGrid, builder.getArrayAttr(grid)),
      builder.getNamedAttr(llmgen::kLaunchSizes,
                           builder.getDictionaryAttr(sizes))};
  if (launch.dynamicSharedBytes)
    record.push_back(builder.getNamedAttr(
        llmgen::kLaunchSharedBytes,
        builder.getI64IntegerAttr(launch.dynamicSharedBytes)));
  if (!launch.tensorMaps.empty())
    record.push_back(builder.getNamedAttr(
        llmgen::kLaunchTensorMaps, tensorMapRecords(builder, launch, kernel)));
  return builder.getDictionaryAttr(record);
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
      "reference_ms",
      builder.getF64FloatAttr(used.timing->referenceMs.median)));
  entries.push_back(builder.getNamedAttr(
      "candidate_ms",
      builder.getF64FloatAttr(used.timing->candidateMs.median)));
}

DictionaryAttr llmptx::kernelProvenance(Builder &builder,
                                        const KernelWork &work,
                                        const Candidate *used, StringRef reason,
                                        const LaunchConfig *launch) {
  SmallVector<NamedAttribute> entries;
  if (launch)
    entries.push_back(builder.getNamedAttr(
        llmgen::kLaunchEntry,
        launchRecord(builder, *launch, *work.description)));
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

DictionaryAttr llmptx::referenceOnlyOutcome(MLIRContext *context, StringRef ptx,
                                            StringRef reason) {
  Builder builder(context);
  NamedAttribute provenance[] = {
      named(builder, llmgen::kSourceProperty, "nvptx"),
      named(builder, llmgen::kReasonProperty, reason)};
  DictionaryAttr slot = builder.getDictionaryAttr(
      {named(builder, llmgen::kOutcomePtx, ptx),
       builder.getNamedAttr(llmgen::kOutcomeProperties,
                            builder.getDictionaryAttr(provenance))});
  return builder.getDictionaryAttr(
      {builder.getNamedAttr(llmgen::stringifySlot(llmgen::Slot::Selected),
                            slot),
       builder.getNamedAttr(llmgen::stringifySlot(llmgen::Slot::Alternate),
                            slot)});
}
