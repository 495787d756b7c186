//===- Driver.h - The one driver of the kernel pipeline ---------*- C++ -*-===//
//
// Every front end runs its kernels through this driver: `#llmgen.target`
// (lib/Target, the kernels of a gpu.module) and `llmptx-kernels` (kernels
// described in JSON). It owns what both need around the stages:
//
//   runStages: provider set-up, then search -> verify by execution ->
//              optimize -> select; when no model can be asked, every
//              kernel stays on its reference with the reason
//   composeSlots (a front end whose kernels share one reference module)
//   settle:    provider warnings, one remark per kernel, strict refusals
//   report:    the kernels' records appended to `report=`
//
// What the user should know leaves through the hooks, so the MLIR adapter
// turns it into diagnostics on the module and a command-line tool into
// lines on stderr; nothing here depends on MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_PIPELINE_DRIVER_H
#define LLMPTX_PIPELINE_DRIVER_H

#include "llmptx/Pipeline/KernelDescription.h"
#include "llmptx/Pipeline/KernelWork.h"
#include "llmptx/Pipeline/Settings.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/JSON.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llmptx {

class KernelStages;

/// Where the driver's messages go. Each message is one line and starts with
/// "llmgen: ".
struct DriverHooks {
  using Sink = std::function<void(const llvm::Twine &)>;
  /// Decisions and fallbacks.
  Sink remark;
  /// Problems that did not change a decision (an ignored cache entry, a
  /// report that could not be written).
  Sink warning;
  /// What strict mode refuses.
  Sink error;
};

/// The two objects of a module whose kernels share one reference module.
struct ComposedSlots {
  /// The reference with the selected candidates composed in.
  std::string selected;
  /// The other object: the reference when any kernel was selected, else
  /// the best unselected candidates composed in (when they compile).
  std::string alternate;
  bool anySelected = false;
  bool alternateIsLLM = false;
};

class PipelineDriver {
public:
  /// `setName` names the bundles (`<setName>.<kernel>.bundle.json`) and the
  /// report's module; `toolkitPath` is where the reference was compiled
  /// from (empty: the usual search). Kernels that only carry their name
  /// are enough when no model will be asked.
  PipelineDriver(const PipelineSettings &settings, std::string setName,
                 std::vector<KernelDescription> kernels, DriverHooks hooks,
                 std::string toolkitPath = "");
  ~PipelineDriver();
  PipelineDriver(const PipelineDriver &) = delete;
  PipelineDriver &operator=(const PipelineDriver &) = delete;

  /// Asks the model and runs the stages on every kernel. When no model can
  /// be asked (no provider configured, no kernels, the provider
  /// unavailable), nothing runs and `unavailable()` says why.
  void runStages();
  /// Why no model was asked (empty when the stages ran).
  const std::string &unavailable() const { return unavailableReason; }

  /// The module's two objects from the per-kernel choices, each composed
  /// into `referencePtx` and compiled once more. When the selected slot
  /// does not compile, every kernel goes back to the reference with that
  /// reason. Only after the stages ran.
  ComposedSlots composeSlots(const std::string &referencePtx);

  /// Says the outcome through the hooks: provider warnings once each, then
  /// a remark per kernel (or, when no model was asked, one for the set);
  /// under strict, an error for each fallback instead. Returns false when
  /// strict refuses the outcome.
  bool settle();

  /// Why the set got what it got: "2 of 3 kernel(s) from the LLM", the one
  /// kernel's reason, or why no model was asked.
  std::string setReason() const;
  bool anySelected() const;

  /// The report's record of each kernel; with `withPtx`, a selected
  /// kernel's PTX under "ptx" (for front ends that substitute it
  /// themselves).
  llvm::json::Array kernelRecords(bool withPtx = false) const;
  /// Appends the set and `records` to the report of `report=` (nothing when
  /// it is not set; a warning when it cannot be written).
  void writeReport(llvm::json::Array records) const;

  /// The stages' work, one item per kernel (empty when no model was asked).
  const std::vector<KernelWork> &work() const;
  const std::vector<KernelDescription> &kernels() const;

private:
  /// "NVPTX reference", "IREE reference": what the remarks call the set's
  /// reference.
  std::string referenceName() const;

  const PipelineSettings &settings;
  std::string setName;
  std::vector<KernelDescription> described;
  DriverHooks hooks;
  std::string toolkitPath;
  std::unique_ptr<KernelStages> stages;
  std::string unavailableReason;
  /// Whether the user asked for LLM kernels and gets none because no model
  /// could be asked (strict refuses that; an empty set is no fallback).
  bool unavailableIsFallback = false;
  /// Set by composeSlots: whether the alternate object holds LLM kernels.
  std::optional<bool> alternateIsLLM;
};

} // namespace llmptx

#endif // LLMPTX_PIPELINE_DRIVER_H
