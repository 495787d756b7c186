//===- Sass.h - Instruction statistics of a kernel's SASS -------*- C++ -*-===//
//
// What the GPU actually runs, for optimization feedback: the kernel's PTX is
// assembled with ptxas for the device's chip and disassembled with nvdisasm,
// and the instructions of its entry are counted by opcode. Needs both tools
// (the CUDA toolkit on the GPU machine); without them nothing is measured.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_RUNTIME_SASS_H
#define LLMPTX_RUNTIME_SASS_H

#include "llmptx/Runtime/ValueOrError.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace llmptx::runtime {

struct SassStatistics {
  /// Instructions of the entry, without the NOPs that pad its end.
  unsigned instructions = 0;
  /// Count per opcode, most frequent first (ties by name). An opcode is the
  /// mnemonic before its first '.', plus the access width of a memory
  /// instruction when it is wider than 32 bits (LDG.128, LDS.64, STG.128).
  std::vector<std::pair<std::string, unsigned>> opcodes;
};

/// Counts the instructions of `entry` in an nvdisasm listing (its
/// `.text.<entry>` section; the whole listing when it has no sections).
SassStatistics parseNvdisasmListing(std::string_view listing,
                                    const std::string &entry);

struct SassTools {
  std::string ptxas;
  std::string nvdisasm;
};

/// ptxas and nvdisasm, each found by findCudaTool (CudaToolkit.h: CUDA_HOME,
/// CUDA_PATH, PATH, /usr/local/cuda); nothing when either is missing.
std::optional<SassTools> findSassTools();

/// Assembles `ptx` for `chip` in `workDir` and counts the SASS of `entry`.
ValueOrError<SassStatistics> measureSass(const SassTools &tools,
                                         const std::string &ptx,
                                         const std::string &entry,
                                         const std::string &chip,
                                         const std::string &workDir);

} // namespace llmptx::runtime

#endif // LLMPTX_RUNTIME_SASS_H
