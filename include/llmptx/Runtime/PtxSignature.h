//===- PtxSignature.h - Kernel parameter lists of PTX entries ---*- C++ -*-===//
//
// Before a candidate is launched, its .entry parameter list is checked
// against the bundle's ABI: cuLaunchKernel reads as many parameter
// pointers as the kernel declares, so a candidate with a different list
// must never be launched with the bundle's arguments.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_RUNTIME_PTXSIGNATURE_H
#define LLMPTX_RUNTIME_PTXSIGNATURE_H

#include "llmptx/Runtime/Bundle.h"
#include "llmptx/Runtime/ValueOrError.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llmptx::runtime {

struct PtxParam {
  std::string name;
  /// The PTX type without the dot: "u64", "f32", "b8".
  std::string type;
  /// Size in bytes (arrays: element size times count).
  unsigned bytes = 0;
};

struct PtxEntrySignature {
  std::string name;
  std::vector<PtxParam> params;
};

/// Finds `.entry <name>(...)` in PTX text (comments ignored).
ValueOrError<PtxEntrySignature> findPtxEntry(std::string_view ptx,
                                             std::string_view name);

/// Compares an entry's parameter sizes with the bundle's ABI as `kernel`
/// declares it (the bundle's parameters, then its tensor maps); returns a
/// message naming the first difference, or nullopt when they agree.
std::optional<std::string> checkAbi(const PtxEntrySignature &entry,
                                    const VerificationBundle &bundle,
                                    const KernelObject &kernel);

} // namespace llmptx::runtime

#endif // LLMPTX_RUNTIME_PTXSIGNATURE_H
