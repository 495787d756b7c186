//===- CudaDriverApi.h - The dlopen'ed CUDA driver (private) ----*- C++ -*-===//
//
// libcuda is never linked: the runner must start (and say "no GPU") on a
// machine without a driver. The types come from cuda.h when the build found
// it (LLMPTX_HAVE_CUDA_H); otherwise the few types and constants the runner
// uses are declared here with the driver ABI's values, which NVIDIA keeps
// stable. CudaDriver.cpp checks the two agree whenever cuda.h is present.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_LIB_RUNTIME_CUDADRIVERAPI_H
#define LLMPTX_LIB_RUNTIME_CUDADRIVERAPI_H

#include "llmptx/Runtime/ValueOrError.h"

#include <cstddef>
#include <string>

#ifdef LLMPTX_HAVE_CUDA_H
#include <cuda.h>
#else
extern "C" {
typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef int CUdevice_attribute;
typedef int CUfunction_attribute;
typedef int CUjit_option;
}
enum : int {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_ILLEGAL_ADDRESS = 700,
  CUDA_ERROR_MISALIGNED_ADDRESS = 716,
  CUDA_ERROR_INVALID_ADDRESS_SPACE = 717,
  CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13,
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE = 36,
  CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH = 37,
  CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38,
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR = 39,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
  CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
  CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
  CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
  CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
  CU_JIT_INFO_LOG_BUFFER = 3,
  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
};
#endif

namespace llmptx::runtime {

/// The driver entry points the runner calls, resolved with dlsym by their
/// versioned ABI names (cuMemAlloc_v2 ...), which every driver since CUDA
/// 4 exports.
struct CudaDriverApi {
  void *library = nullptr;
  CUresult (*cuInit)(unsigned) = nullptr;
  CUresult (*cuDriverGetVersion)(int *) = nullptr;
  CUresult (*cuDeviceGetCount)(int *) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice *, int) = nullptr;
  CUresult (*cuDeviceGetName)(char *, int, CUdevice) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int *, CUdevice_attribute,
                                   CUdevice) = nullptr;
  CUresult (*cuDeviceTotalMem)(size_t *, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned,
                                 CUjit_option *, void **) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule,
                                  const char *) = nullptr;
  CUresult (*cuFuncSetAttribute)(CUfunction, CUfunction_attribute,
                                 int) = nullptr;
  /// Optional (CUDA 12.4+): the parameter layout of a loaded kernel.
  CUresult (*cuFuncGetParamInfo)(CUfunction, size_t, size_t *,
                                 size_t *) = nullptr;
  /// Optional: kernel resources and occupancy are measurements; a driver
  /// without them leaves those results absent.
  CUresult (*cuFuncGetAttribute)(int *, CUfunction_attribute,
                                 CUfunction) = nullptr;
  CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int *, CUfunction,
                                                          int,
                                                          size_t) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, CUstream, void **,
                             void **) = nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t) = nullptr;
  CUresult (*cuMemFree)(CUdeviceptr) = nullptr;
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t) = nullptr;
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t) = nullptr;
  CUresult (*cuMemsetD8Async)(CUdeviceptr, unsigned char, size_t,
                              CUstream) = nullptr;
  CUresult (*cuStreamCreate)(CUstream *, unsigned) = nullptr;
  CUresult (*cuStreamSynchronize)(CUstream) = nullptr;
  CUresult (*cuEventCreate)(CUevent *, unsigned) = nullptr;
  CUresult (*cuEventRecord)(CUevent, CUstream) = nullptr;
  CUresult (*cuEventSynchronize)(CUevent) = nullptr;
  CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent) = nullptr;
  CUresult (*cuEventDestroy)(CUevent) = nullptr;
  CUresult (*cuGetErrorName)(CUresult, const char **) = nullptr;
  CUresult (*cuGetErrorString)(CUresult, const char **) = nullptr;

  /// "CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access was
  /// encountered".
  std::string describe(CUresult result) const;
};

/// dlopen()s `library` and resolves every entry point (cuInit not yet
/// called). The error says which step failed.
ValueOrError<CudaDriverApi> loadCudaDriverApi(const std::string &library);

} // namespace llmptx::runtime

#endif // LLMPTX_LIB_RUNTIME_CUDADRIVERAPI_H
