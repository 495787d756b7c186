//===- CudaSource.h - CUDA C++ candidates compiled by NVRTC -----*- C++ -*-===//
//
// A candidate may be written in CUDA C++ instead of PTX. NVRTC, found with
// the toolkit (never assumed) and run in a limited child like nvJitLink,
// turns it into PTX, which is then checked like any PTX answer. A candidate
// may include only the toolkit headers the prompt names; NVRTC's messages
// become diagnostics with the candidate's line and column, so the repair
// loop treats them like lint errors.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_PTX_CUDASOURCE_H
#define LLMPTX_PTX_CUDASOURCE_H

#include "llmptx/PTX/CompileCheck.h"
#include "llmptx/PTX/Diagnostic.h"

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace llmptx::ptx {

/// The headers a candidate may include: those the toolkit ships for device
/// code that the prompt offers.
const std::vector<std::string> &allowedCudaIncludes();

/// One error per `#include` of a header outside allowedCudaIncludes(), at
/// its line and column.
std::vector<Diagnostic> checkCudaIncludes(llvm::StringRef source);

struct CudaCompileOptions {
  /// sm_90a -> -arch=compute_90a.
  std::string chip = "sm_90";
  /// --use_fast_math / -ftz=true, only when the reference was built so.
  bool fastMath = false;
  bool flushDenormals = false;
  /// The child's limits (LimitedChild.h) and the largest PTX accepted.
  unsigned timeoutSeconds = 120;
  unsigned memoryLimitMB = 4096;
  size_t maxPtxBytes = 8u << 20;

  /// The defaults, with LLMPTX_NVRTC_TIMEOUT_S and LLMPTX_NVRTC_MEMORY_MB
  /// (positive integers; anything else leaves the default).
  static CudaCompileOptions fromEnvironment();
};

struct CudaCompileResult {
  bool ok = false;
  std::string ptx;
  /// Errors and warnings at the candidate's lines ("candidate.cu").
  std::vector<Diagnostic> diagnostics;
  /// NVRTC's log as it printed it.
  std::string log;
  /// "NVRTC 13.0" and the options it was given: what a replay needs.
  std::string compiler;
  std::vector<std::string> arguments;
};

/// The NVRTC options of `options` for `toolkit`: -arch, -default-device,
/// -std=c++17, -lineinfo, the header folders, fast math only when asked.
std::vector<std::string> nvrtcArguments(const CudaCompileOptions &options,
                                        const CudaToolkit &toolkit);

/// Compiles `source` ("candidate.cu") with the toolkit's NVRTC. Fails with a
/// "compile-tool" diagnostic when NVRTC is missing, crashes, hangs or
/// exceeds its memory. The PTX names the source "candidate.cu" in its line
/// info, wherever it was compiled, so the same answer gives the same PTX.
CudaCompileResult compileCuda(llvm::StringRef source,
                              const CudaToolkit &toolkit,
                              const CudaCompileOptions &options);

/// NVRTC's log as diagnostics: "candidate.cu(4): error: ..." with the
/// caret line below it giving the column.
std::vector<Diagnostic> parseNvrtcLog(llvm::StringRef log);

} // namespace llmptx::ptx

#endif // LLMPTX_PTX_CUDASOURCE_H
