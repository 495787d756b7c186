//===- CudaToolkit.h - Where the CUDA toolkit is found ----------*- C++ -*-===//
//
// The one search for the CUDA toolkit and its tools, shared by the compile
// checks (ptxas, nvJitLink), the reference build (libdevice), the SASS
// statistics (ptxas, nvdisasm) and the runner's profilers (ncu,
// compute-sanitizer). The toolkit is found, never assumed, always in this
// order; the first place that holds one wins:
//
//   1. the explicit root the caller was given (--cuda-path, the target's
//      toolkit path), when it holds a toolkit;
//   2. $CUDA_HOME;
//   3. $CUDA_PATH;
//   4. the folder above the folder of the ptxas found on PATH (for a tool:
//      the tool found on PATH);
//   5. /usr/local/cuda.
//
// A root counts as a toolkit when it has an executable bin/ptxas or a
// libnvJitLink. LLVM-free (lib/Runtime links no LLVM): plain getenv, stat
// and access.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_RUNTIME_CUDATOOLKIT_H
#define LLMPTX_RUNTIME_CUDATOOLKIT_H

#include <optional>
#include <string>
#include <vector>

namespace llmptx::runtime {

/// The root every search ends with.
inline constexpr const char *kDefaultCudaToolkitRoot = "/usr/local/cuda";

/// What a CUDA toolkit root holds.
struct CudaToolkitLocation {
  /// The folder holding bin/ and lib64/; empty when all that was found is a
  /// ptxas on PATH outside any toolkit.
  std::string root;
  /// An executable ptxas (root/bin/ptxas, or the one on PATH); empty when
  /// the root has only libnvJitLink.
  std::string ptxas;
  /// libnvJitLink.so* below the root (lib64/, lib/, targets/<arch>/lib/);
  /// empty when there is none.
  std::string nvJitLink;
  /// libnvrtc.so* there (CUDA C++ candidates); empty when there is none.
  std::string nvrtc;
  /// With NVRTC: the folders holding the toolkit's headers.
  std::vector<std::string> includeFolders;
};

/// What `root` holds; nothing when it is not a folder with an executable
/// bin/ptxas or a libnvJitLink. Looks at `root` alone.
std::optional<CudaToolkitLocation>
probeCudaToolkitRoot(const std::string &root);

/// The first toolkit root in the search order above, starting with
/// `explicitRoot` when it is not empty. An explicit root that holds no
/// toolkit is passed over like any other place; a caller whose explicit
/// choice must never fall back probes it alone (probeCudaToolkitRoot).
/// When no place holds a toolkit but a ptxas is on PATH outside any
/// toolkit's bin/, the result is that ptxas with no root. Nothing when
/// there is neither.
std::optional<CudaToolkitLocation>
locateCudaToolkit(const std::string &explicitRoot = {});

/// The first executable `relativePath` below the bin/ folder of each place
/// in the search order (explicit root, $CUDA_HOME, $CUDA_PATH, then PATH
/// itself, then /usr/local/cuda). `relativePath` is a tool name (`ptxas`,
/// `nvdisasm`, `ncu`) or a path such as
/// `../compute-sanitizer/compute-sanitizer`; a path is not looked up on
/// PATH. Empty when none is found.
std::string findCudaTool(const std::string &relativePath,
                         const std::string &explicitRoot = {});

/// `explicitPath` when it is an executable, else compute-sanitizer found
/// as a tool (bin/compute-sanitizer, then the toolkit's
/// compute-sanitizer/ folder); empty when none is installed.
std::string findComputeSanitizer(const std::string &explicitPath);

} // namespace llmptx::runtime

#endif // LLMPTX_RUNTIME_CUDATOOLKIT_H
