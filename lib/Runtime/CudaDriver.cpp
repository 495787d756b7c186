//===- CudaDriver.cpp - The dlopen'ed CUDA driver -------------------------===//

#include "llmptx/Runtime/CudaDriver.h"

#include "CudaDriverApi.h"

#include <cstdlib>
#include <dlfcn.h>
#include <type_traits>

using namespace llmptx::runtime;

#ifdef LLMPTX_HAVE_CUDA_H
// The fallback declarations in CudaDriverApi.h must keep these values.
static_assert(CUDA_ERROR_ILLEGAL_ADDRESS == 700 &&
                  CUDA_ERROR_MISALIGNED_ADDRESS == 716 &&
                  CUDA_ERROR_INVALID_ADDRESS_SPACE == 717 &&
                  CUDA_ERROR_NO_DEVICE == 100,
              "CUDA error codes changed");
static_assert(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE == 38 &&
                  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT == 16 &&
                  CU_DEVICE_ATTRIBUTE_CLOCK_RATE == 13 &&
                  CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE == 36 &&
                  CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH == 37 &&
                  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR == 39 &&
                  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR == 75 &&
                  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR == 76 &&
                  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN == 97,
              "CUDA device attributes changed");
static_assert(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES == 8 &&
                  CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK == 0 &&
                  CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES == 1 &&
                  CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES == 3 &&
                  CU_FUNC_ATTRIBUTE_NUM_REGS == 4 &&
                  CU_JIT_INFO_LOG_BUFFER == 3 &&
                  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES == 4 &&
                  CU_JIT_ERROR_LOG_BUFFER == 5 &&
                  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES == 6,
              "CUDA function attributes or JIT options changed");
static_assert(sizeof(CUdeviceptr) == 8, "64-bit device pointers expected");
#endif

std::string CudaDriverApi::describe(CUresult result) const {
  const char *name = nullptr;
  const char *text = nullptr;
  if (cuGetErrorName)
    cuGetErrorName(result, &name);
  if (cuGetErrorString)
    cuGetErrorString(result, &text);
  std::string description = name ? name : "CUDA error";
  description += " (" + std::to_string(static_cast<int>(result)) + ")";
  if (text)
    description += std::string(": ") + text;
  return description;
}

ValueOrError<CudaDriverApi>
llmptx::runtime::loadCudaDriverApi(const std::string &library) {
  CudaDriverApi api;
  api.library = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!api.library) {
    const char *reason = ::dlerror();
    return Failure{"cannot load the CUDA driver " + library + ": " +
                   (reason ? reason : "unknown reason")};
  }
  std::string missing;
  auto resolve = [&](auto &function, const char *symbol, bool required) {
    void *address = ::dlsym(api.library, symbol);
    if (!address && required)
      missing += (missing.empty() ? "" : ", ") + std::string(symbol);
    function =
        reinterpret_cast<std::remove_reference_t<decltype(function)>>(address);
  };
  resolve(api.cuInit, "cuInit", true);
  resolve(api.cuDriverGetVersion, "cuDriverGetVersion", true);
  resolve(api.cuDeviceGetCount, "cuDeviceGetCount", true);
  resolve(api.cuDeviceGet, "cuDeviceGet", true);
  resolve(api.cuDeviceGetName, "cuDeviceGetName", true);
  resolve(api.cuDeviceGetAttribute, "cuDeviceGetAttribute", true);
  resolve(api.cuDeviceTotalMem, "cuDeviceTotalMem_v2", true);
  resolve(api.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", true);
  resolve(api.cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", true);
  resolve(api.cuCtxSetCurrent, "cuCtxSetCurrent", true);
  resolve(api.cuCtxSynchronize, "cuCtxSynchronize", true);
  resolve(api.cuModuleLoadDataEx, "cuModuleLoadDataEx", true);
  resolve(api.cuModuleUnload, "cuModuleUnload", true);
  resolve(api.cuModuleGetFunction, "cuModuleGetFunction", true);
  resolve(api.cuFuncSetAttribute, "cuFuncSetAttribute", true);
  resolve(api.cuFuncGetParamInfo, "cuFuncGetParamInfo", false);
  resolve(api.cuFuncGetAttribute, "cuFuncGetAttribute", false);
  resolve(api.cuOccupancyMaxActiveBlocksPerMultiprocessor,
          "cuOccupancyMaxActiveBlocksPerMultiprocessor", false);
  resolve(api.cuLaunchKernel, "cuLaunchKernel", true);
  resolve(api.cuMemAlloc, "cuMemAlloc_v2", true);
  resolve(api.cuMemFree, "cuMemFree_v2", true);
  resolve(api.cuMemcpyHtoD, "cuMemcpyHtoD_v2", true);
  resolve(api.cuMemcpyDtoH, "cuMemcpyDtoH_v2", true);
  resolve(api.cuMemsetD8Async, "cuMemsetD8Async", true);
  resolve(api.cuStreamCreate, "cuStreamCreate", true);
  resolve(api.cuStreamSynchronize, "cuStreamSynchronize", true);
  resolve(api.cuEventCreate, "cuEventCreate", true);
  resolve(api.cuEventRecord, "cuEventRecord", true);
  resolve(api.cuEventSynchronize, "cuEventSynchronize", true);
  // CUDA 12.8 added a _v2 (CUDA 13's cuda.h maps to it); older drivers
  // have only the first version, which means the same for our events.
  resolve(api.cuEventElapsedTime, "cuEventElapsedTime_v2", false);
  if (!api.cuEventElapsedTime)
    resolve(api.cuEventElapsedTime, "cuEventElapsedTime", true);
  resolve(api.cuEventDestroy, "cuEventDestroy_v2", true);
  resolve(api.cuGetErrorName, "cuGetErrorName", true);
  resolve(api.cuGetErrorString, "cuGetErrorString", true);
  if (!missing.empty()) {
    ::dlclose(api.library);
    return Failure{"the CUDA driver " + library +
                   " lacks entry points: " + missing};
  }
  return api;
}

std::string llmptx::runtime::cudaLibraryPath(const std::string &explicitPath) {
  if (!explicitPath.empty())
    return explicitPath;
  if (const char *fromEnvironment = std::getenv("LLMPTX_LIBCUDA"))
    if (*fromEnvironment)
      return fromEnvironment;
  return kDefaultCudaLibrary;
}

ValueOrError<DeviceInfo>
llmptx::runtime::probeCudaDevice(const std::string &library, int ordinal) {
  auto loaded = loadCudaDriverApi(library);
  if (!loaded)
    return Failure{loaded.error()};
  const CudaDriverApi &api = *loaded;
  CUresult status = api.cuInit(0);
  if (status != CUDA_SUCCESS)
    return Failure{"cuInit failed: " + api.describe(status)};
  DeviceInfo info;
  api.cuDriverGetVersion(&info.driverVersion);
  int count = 0;
  status = api.cuDeviceGetCount(&count);
  if (status != CUDA_SUCCESS)
    return Failure{"cuDeviceGetCount failed: " + api.describe(status)};
  if (count == 0)
    return Failure{"the CUDA driver reports no device"};
  if (ordinal < 0 || ordinal >= count)
    return Failure{"device " + std::to_string(ordinal) +
                   " does not exist (the driver reports " +
                   std::to_string(count) + ")"};
  CUdevice device;
  status = api.cuDeviceGet(&device, ordinal);
  if (status != CUDA_SUCCESS)
    return Failure{"cuDeviceGet failed: " + api.describe(status)};
  char name[256] = {0};
  api.cuDeviceGetName(name, sizeof(name) - 1, device);
  info.name = name;
  int value = 0;
  auto attribute = [&](CUdevice_attribute which) {
    value = 0;
    api.cuDeviceGetAttribute(&value, which, device);
    return value;
  };
  info.smMajor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  info.smMinor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  info.multiprocessors = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  info.l2Bytes =
      static_cast<uint64_t>(attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE));
  // The attributes of the peaks stay 0 (absent from the results) when the
  // driver does not answer, or answers nonsense.
  auto measured = [&](CUdevice_attribute which) {
    int answer = 0;
    if (api.cuDeviceGetAttribute(&answer, which, device) != CUDA_SUCCESS)
      return 0;
    return answer > 0 ? answer : 0;
  };
  info.clockKhz = measured(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
  info.memoryClockKhz = measured(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
  info.memoryBusBits = measured(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
  info.maxThreadsPerSm =
      measured(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
  size_t memory = 0;
  api.cuDeviceTotalMem(&memory, device);
  info.memoryBytes = memory;
  // The library stays loaded: unloading a driver after cuInit is not safe.
  return info;
}
