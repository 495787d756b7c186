//===- CudaDriverApi.h - The dlopen'ed CUDA driver (private) ----*- C++ -*-===//
//
// libcuda is never linked: the runner must start (and say "no GPU") on a
// machine without a driver. The entry points are resolved with dlsym into
// this table; their types and constants are llmptx/Runtime/CudaDriverAbi.h's,
// which never includes cuda.h.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_LIB_RUNTIME_CUDADRIVERAPI_H
#define LLMPTX_LIB_RUNTIME_CUDADRIVERAPI_H

#include "llmptx/Runtime/CudaDriverAbi.h"
#include "llmptx/Runtime/ValueOrError.h"

#include <cstddef>
#include <string>

namespace llmptx::runtime {

/// The driver entry points the runner calls, resolved with dlsym by their
/// versioned ABI names (cuMemAlloc_v2 ...), which every driver since CUDA
/// 4 exports.
struct CudaDriverApi {
  void *library = nullptr;
  cu::Result (*cuInit)(unsigned) = nullptr;
  cu::Result (*cuDriverGetVersion)(int *) = nullptr;
  cu::Result (*cuDeviceGetCount)(int *) = nullptr;
  cu::Result (*cuDeviceGet)(cu::Device *, int) = nullptr;
  cu::Result (*cuDeviceGetName)(char *, int, cu::Device) = nullptr;
  cu::Result (*cuDeviceGetAttribute)(int *, cu::DeviceAttribute,
                                     cu::Device) = nullptr;
  cu::Result (*cuDeviceTotalMem)(size_t *, cu::Device) = nullptr;
  cu::Result (*cuDevicePrimaryCtxRetain)(cu::Context *, cu::Device) = nullptr;
  cu::Result (*cuDevicePrimaryCtxRelease)(cu::Device) = nullptr;
  cu::Result (*cuCtxSetCurrent)(cu::Context) = nullptr;
  cu::Result (*cuCtxSynchronize)() = nullptr;
  cu::Result (*cuModuleLoadDataEx)(cu::Module *, const void *, unsigned,
                                   cu::JitOption *, void **) = nullptr;
  cu::Result (*cuModuleUnload)(cu::Module) = nullptr;
  cu::Result (*cuModuleGetFunction)(cu::Function *, cu::Module,
                                    const char *) = nullptr;
  cu::Result (*cuFuncSetAttribute)(cu::Function, cu::FunctionAttribute,
                                   int) = nullptr;
  /// Optional (CUDA 12.4+): the parameter layout of a loaded kernel.
  cu::Result (*cuFuncGetParamInfo)(cu::Function, size_t, size_t *,
                                   size_t *) = nullptr;
  /// Optional: kernel resources and occupancy are measurements; a driver
  /// without them leaves those results absent.
  cu::Result (*cuFuncGetAttribute)(int *, cu::FunctionAttribute,
                                   cu::Function) = nullptr;
  cu::Result (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int *, cu::Function,
                                                            int,
                                                            size_t) = nullptr;
  cu::Result (*cuLaunchKernel)(cu::Function, unsigned, unsigned, unsigned,
                               unsigned, unsigned, unsigned, unsigned,
                               cu::Stream, void **, void **) = nullptr;
  cu::Result (*cuMemAlloc)(cu::DevicePtr *, size_t) = nullptr;
  cu::Result (*cuMemFree)(cu::DevicePtr) = nullptr;
  cu::Result (*cuMemcpyHtoD)(cu::DevicePtr, const void *, size_t) = nullptr;
  cu::Result (*cuMemcpyDtoH)(void *, cu::DevicePtr, size_t) = nullptr;
  cu::Result (*cuMemsetD8Async)(cu::DevicePtr, unsigned char, size_t,
                                cu::Stream) = nullptr;
  cu::Result (*cuStreamCreate)(cu::Stream *, unsigned) = nullptr;
  cu::Result (*cuStreamSynchronize)(cu::Stream) = nullptr;
  cu::Result (*cuEventCreate)(cu::Event *, unsigned) = nullptr;
  cu::Result (*cuEventRecord)(cu::Event, cu::Stream) = nullptr;
  cu::Result (*cuEventSynchronize)(cu::Event) = nullptr;
  cu::Result (*cuEventElapsedTime)(float *, cu::Event, cu::Event) = nullptr;
  cu::Result (*cuEventDestroy)(cu::Event) = nullptr;
  /// Optional (CUDA 12+): TMA descriptors for candidates that ask for them.
  cu::Result (*cuTensorMapEncodeTiled)(cu::TensorMap *, int, unsigned, void *,
                                       const uint64_t *, const uint64_t *,
                                       const unsigned *, const unsigned *, int,
                                       int, int, int) = nullptr;
  cu::Result (*cuGetErrorName)(cu::Result, const char **) = nullptr;
  cu::Result (*cuGetErrorString)(cu::Result, const char **) = nullptr;

  /// "cu::ERROR_ILLEGAL_ADDRESS (700): an illegal memory access was
  /// encountered".
  std::string describe(cu::Result result) const;
};

/// dlopen()s `library` and resolves every entry point (cuInit not yet
/// called). The error says which step failed.
ValueOrError<CudaDriverApi> loadCudaDriverApi(const std::string &library);

} // namespace llmptx::runtime

#endif // LLMPTX_LIB_RUNTIME_CUDADRIVERAPI_H
