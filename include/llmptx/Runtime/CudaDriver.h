//===- CudaDriver.h - Finding and describing the GPU ------------*- C++ -*-===//

#ifndef LLMPTX_RUNTIME_CUDADRIVER_H
#define LLMPTX_RUNTIME_CUDADRIVER_H

#include "llmptx/Runtime/Results.h"
#include "llmptx/Runtime/ValueOrError.h"

#include <string>

namespace llmptx::runtime {

inline constexpr const char *kDefaultCudaLibrary = "libcuda.so.1";

/// The driver library to dlopen: `explicitPath` when non-empty, else
/// $LLMPTX_LIBCUDA when set, else libcuda.so.1.
std::string cudaLibraryPath(const std::string &explicitPath = {});

/// Loads the driver, initialises it and describes device `ordinal`
/// (name, compute capability, L2 size, memory, driver version). The error
/// says why there is no usable GPU: no driver library, cuInit failed, no
/// device. Creates no context, so the caller may fork afterwards.
ValueOrError<DeviceInfo> probeCudaDevice(const std::string &library,
                                         int ordinal);

} // namespace llmptx::runtime

#endif // LLMPTX_RUNTIME_CUDADRIVER_H
