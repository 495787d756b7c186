//===- CompileCheck.h - Real PTX compile with ptxas/nvJitLink ---*- C++ -*-===//
//
// Compiles PTX with the CUDA toolkit that is found (never assumed): ptxas as
// a subprocess when present, otherwise the nvJitLink library in a forked
// child process, both with a time and a memory limit. Their messages are parsed
// into Diagnostics and the resource report (registers, spills,
// shared/local/constant bytes, barriers) into data, so the repair loop sees
// compile errors exactly like lint errors.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_PTX_COMPILECHECK_H
#define LLMPTX_PTX_COMPILECHECK_H

#include "llmptx/PTX/Diagnostic.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace llmptx::ptx {

struct CudaToolkit {
  /// Toolkit root (the folder holding bin/ and lib64/), may be empty when
  /// only a ptxas on PATH was found.
  std::string root;
  /// Empty when not found.
  std::string ptxasPath;
  /// Path of libnvJitLink.so*, empty when not found.
  std::string nvJitLinkPath;
  /// Path of libnvrtc.so* (CUDA C++ candidates), empty when not found, and
  /// the folders of the toolkit's headers it compiles against.
  std::string nvrtcPath;
  std::vector<std::string> includeFolders;
};

/// The toolkit of llmptx/Runtime/CudaToolkit.h's search: `cudaPathOption`
/// (--cuda-path) alone when given, since an explicit choice never falls
/// back; otherwise CUDA_HOME, CUDA_PATH, the folder above ptxas on PATH,
/// /usr/local/cuda. Fails when neither ptxas nor nvJitLink is found.
llvm::Expected<CudaToolkit> findCudaToolkit(llvm::StringRef cudaPathOption);

struct ResourceReport {
  std::string entry;
  unsigned registers = 0;
  unsigned spillStores = 0, spillLoads = 0;
  unsigned sharedBytes = 0;
  unsigned localBytes = 0; ///< stack frame
  unsigned constantBytes = 0;
  unsigned barriers = 0;
};
llvm::json::Value toJson(const ResourceReport &report);

enum class CompileBackend {
  Auto,      ///< ptxas when there is one, else nvJitLink
  NvJitLink, ///< nvJitLink only
  Ptxas,     ///< ptxas only
};

struct CompileOptions {
  CompileBackend backend = CompileBackend::Auto;
  /// -O level passed to the assembler.
  unsigned optLevel = 3;
  /// Extra assembler options ("-lineinfo", "--maxrregcount=64", ...).
  std::vector<std::string> extraArgs;
  /// Kill the assembler after this many seconds (0 = no limit).
  unsigned timeoutSeconds = 120;
  /// The assembler's memory limit in MiB (0 = none): ptxas's data segment,
  /// nvJitLink's child process's address space beyond what it inherits.
  unsigned memoryLimitMB = 8192;
};

struct CompileResult {
  bool ok = false;
  /// "nvJitLink" or "ptxas".
  std::string tool;
  std::vector<Diagnostic> diagnostics;
  std::vector<ResourceReport> resources;
  /// The compiled cubin bytes (empty on failure).
  std::string cubin;
  /// The tool's raw output (info and error log).
  std::string log;
};

/// Compiles `ptxText` for `chip` ("sm_90"). Never aborts: a missing tool or
/// a crash of ptxas is an error diagnostic with code "compile-tool".
CompileResult compilePtx(llvm::StringRef ptxText, llvm::StringRef chip,
                         const CudaToolkit &toolkit,
                         const CompileOptions &options = {});

/// Parses ptxas / nvJitLink output ("ptxas f.ptx, line 3; error   : ...",
/// "ptxas info    : Used 12 registers, ...") into diagnostics and
/// resource reports. Exposed for tests and for logs produced elsewhere.
void parseAssemblerLog(llvm::StringRef log, std::vector<Diagnostic> &diags,
                       std::vector<ResourceReport> &resources);

} // namespace llmptx::ptx

#endif // LLMPTX_PTX_COMPILECHECK_H
