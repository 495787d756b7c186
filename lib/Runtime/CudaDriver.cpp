//===- CudaDriver.cpp - The dlopen'ed CUDA driver -------------------------===//

#include "llmptx/Runtime/CudaDriver.h"

#include "CudaDriverApi.h"

#include <cstdlib>
#include <dlfcn.h>
#include <type_traits>

using namespace llmptx::runtime;
namespace cu = llmptx::cu;

std::string CudaDriverApi::describe(cu::Result result) const {
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
  resolve(api.cuTensorMapEncodeTiled, "cuTensorMapEncodeTiled", false);
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
  cu::Result status = api.cuInit(0);
  if (status != cu::SUCCESS)
    return Failure{"cuInit failed: " + api.describe(status)};
  DeviceInfo info;
  api.cuDriverGetVersion(&info.driverVersion);
  int count = 0;
  status = api.cuDeviceGetCount(&count);
  if (status != cu::SUCCESS)
    return Failure{"cuDeviceGetCount failed: " + api.describe(status)};
  if (count == 0)
    return Failure{"the CUDA driver reports no device"};
  if (ordinal < 0 || ordinal >= count)
    return Failure{"device " + std::to_string(ordinal) +
                   " does not exist (the driver reports " +
                   std::to_string(count) + ")"};
  cu::Device device;
  status = api.cuDeviceGet(&device, ordinal);
  if (status != cu::SUCCESS)
    return Failure{"cuDeviceGet failed: " + api.describe(status)};
  char name[256] = {0};
  api.cuDeviceGetName(name, sizeof(name) - 1, device);
  info.name = name;
  int value = 0;
  auto attribute = [&](cu::DeviceAttribute which) {
    value = 0;
    api.cuDeviceGetAttribute(&value, which, device);
    return value;
  };
  info.smMajor = attribute(cu::DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  info.smMinor = attribute(cu::DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  info.multiprocessors = attribute(cu::DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  info.l2Bytes =
      static_cast<uint64_t>(attribute(cu::DEVICE_ATTRIBUTE_L2_CACHE_SIZE));
  // The attributes of the peaks stay 0 (absent from the results) when the
  // driver does not answer, or answers nonsense.
  auto measured = [&](cu::DeviceAttribute which) {
    int answer = 0;
    if (api.cuDeviceGetAttribute(&answer, which, device) != cu::SUCCESS)
      return 0;
    return answer > 0 ? answer : 0;
  };
  info.clockKhz = measured(cu::DEVICE_ATTRIBUTE_CLOCK_RATE);
  info.memoryClockKhz = measured(cu::DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
  info.memoryBusBits = measured(cu::DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
  info.maxThreadsPerSm =
      measured(cu::DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
  size_t memory = 0;
  api.cuDeviceTotalMem(&memory, device);
  info.memoryBytes = memory;
  // The library stays loaded: unloading a driver after cuInit is not safe.
  return info;
}
