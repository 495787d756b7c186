//===- ChipProbe.h - The chip of the GPU the runner reaches -----*- C++ -*-===//
//
// chip=auto: the target is the chip of the GPU the configured runner runs
// on, asked with `<runner> --probe` (llmptx-runner prints its device).
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_PIPELINE_CHIPPROBE_H
#define LLMPTX_PIPELINE_CHIPPROBE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace llmptx {

struct ProbedChip {
  /// "sm_90a": the device's sm, with 'a' from Hopper on (the instructions
  /// only the arch-specific target enables: wgmma, setmaxnreg, ...).
  std::string chip;
  /// "NVIDIA H200", as the runner names it.
  std::string device;
};

/// Runs `<runnerCommand> --probe` (empty: the llmptx-runner next to this
/// executable or on PATH) once per command in the process, within 60 s;
/// the error says why no chip came back.
llvm::Expected<ProbedChip> probeRunnerChip(llvm::StringRef runnerCommand);

/// The chip and device of `llmptx-runner --probe`'s output ("device 0:
/// NAME", "chip: sm_90"); empty fields where it says nothing.
ProbedChip parseProbe(llvm::StringRef text);

} // namespace llmptx

#endif // LLMPTX_PIPELINE_CHIPPROBE_H
