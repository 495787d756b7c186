//===- DeviceSession.cpp - GPU work of one child process ------------------===//

#include "DeviceSession.h"

#include <algorithm>
#include <cstring>

using namespace llmptx::runtime;
namespace cu = llmptx::cu;

ValueOrError<std::unique_ptr<DeviceSession>>
DeviceSession::open(const std::string &library, int ordinal) {
  auto loaded = loadCudaDriverApi(library);
  if (!loaded)
    return Failure{loaded.error()};
  std::unique_ptr<DeviceSession> session(new DeviceSession());
  session->driver = *loaded;
  const CudaDriverApi &api = session->driver;
  cu::Result status = api.cuInit(0);
  if (status != cu::SUCCESS)
    return Failure{"cuInit failed: " + api.describe(status)};
  status = api.cuDeviceGet(&session->device, ordinal);
  if (status != cu::SUCCESS)
    return Failure{"cuDeviceGet(" + std::to_string(ordinal) +
                   ") failed: " + api.describe(status)};
  // The primary context: CUDA 13 renamed cuCtxCreate, this has not moved.
  status = api.cuDevicePrimaryCtxRetain(&session->context, session->device);
  if (status != cu::SUCCESS)
    return Failure{"cuDevicePrimaryCtxRetain failed: " + api.describe(status)};
  status = api.cuCtxSetCurrent(session->context);
  if (status != cu::SUCCESS)
    return Failure{"cuCtxSetCurrent failed: " + api.describe(status)};
  int l2 = 0;
  api.cuDeviceGetAttribute(&l2, cu::DEVICE_ATTRIBUTE_L2_CACHE_SIZE,
                           session->device);
  session->l2 = static_cast<uint64_t>(l2);
  int threads = 0;
  if (api.cuDeviceGetAttribute(
          &threads, cu::DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,
          session->device) == cu::SUCCESS)
    session->maxThreadsPerSm = threads;
  return session;
}

DeviceSession::~DeviceSession() {
  // After a sticky error these calls fail harmlessly; the process exits.
  for (cu::Module module : modules)
    driver.cuModuleUnload(module);
  if (context)
    driver.cuDevicePrimaryCtxRelease(device);
}

DeviceStatus DeviceSession::executionError(cu::Result result,
                                           const std::string &what) const {
  DeviceStatus status;
  if (result == cu::SUCCESS)
    return status;
  status.details = what + ": " + driver.describe(result);
  status.sticky = true;
  switch (result) {
  case cu::ERROR_ILLEGAL_ADDRESS:
  case cu::ERROR_MISALIGNED_ADDRESS:
  case cu::ERROR_INVALID_ADDRESS_SPACE:
    status.verdict = Verdict::IllegalAddress;
    break;
  default:
    status.verdict = Verdict::CudaError;
    break;
  }
  return status;
}

DeviceStatus DeviceSession::loadKernel(const std::string &ptx,
                                       const std::string &entry,
                                       const std::vector<unsigned> &paramSizes,
                                       Kernel &kernel) {
  DeviceStatus status;
  char errorLog[16384] = {0};
  char infoLog[4096] = {0};
  cu::JitOption options[] = {
      cu::JIT_ERROR_LOG_BUFFER, cu::JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
      cu::JIT_INFO_LOG_BUFFER, cu::JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {errorLog, reinterpret_cast<void *>(sizeof(errorLog) - 1),
                    infoLog, reinterpret_cast<void *>(sizeof(infoLog) - 1)};
  // cuModuleLoadDataEx needs NUL-terminated PTX; std::string provides it.
  cu::Result result = driver.cuModuleLoadDataEx(&kernel.module, ptx.c_str(), 4,
                                                options, values);
  if (result != cu::SUCCESS) {
    status.verdict = Verdict::LoadError;
    status.details = "cuModuleLoadDataEx: " + driver.describe(result);
    if (errorLog[0])
      status.details += "\n" + std::string(errorLog);
    return status;
  }
  modules.push_back(kernel.module);
  result = driver.cuModuleGetFunction(&kernel.function, kernel.module,
                                      entry.c_str());
  if (result != cu::SUCCESS) {
    status.verdict = Verdict::LoadError;
    status.details =
        "cuModuleGetFunction('" + entry + "'): " + driver.describe(result);
    return status;
  }
  if (driver.cuFuncGetParamInfo) {
    // Only indices the ABI has are asked for: probing past the end would
    // be an API error, which compute-sanitizer reports as an error of the
    // run. A kernel with more parameters is caught by the PTX signature
    // check before any launch.
    for (size_t index = 0; index < paramSizes.size(); ++index) {
      size_t offset = 0, size = 0;
      if (driver.cuFuncGetParamInfo(kernel.function, index, &offset, &size) !=
          cu::SUCCESS) {
        status.verdict = Verdict::LoadError;
        status.details = "ABI mismatch of '" + entry +
                         "': the loaded kernel "
                         "has " +
                         std::to_string(index) + " parameters, the ABI has " +
                         std::to_string(paramSizes.size());
        return status;
      }
      if (size != paramSizes[index]) {
        status.verdict = Verdict::LoadError;
        status.details = "ABI mismatch of '" + entry + "': parameter " +
                         std::to_string(index) + " has " +
                         std::to_string(size) + " bytes, the ABI's has " +
                         std::to_string(paramSizes[index]);
        return status;
      }
    }
  }
  return status;
}

KernelResources DeviceSession::measureResources(const Kernel &kernel,
                                                const LaunchDims &dims) {
  KernelResources resources;
  if (!kernel.function)
    return resources;
  if (driver.cuFuncGetAttribute) {
    auto attribute = [&](cu::FunctionAttribute which) -> std::optional<int> {
      int value = 0;
      if (driver.cuFuncGetAttribute(&value, which, kernel.function) !=
          cu::SUCCESS)
        return std::nullopt;
      return value;
    };
    resources.registers = attribute(cu::FUNC_ATTRIBUTE_NUM_REGS);
    resources.localBytes = attribute(cu::FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
    resources.staticSharedBytes =
        attribute(cu::FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
    resources.maxThreadsPerBlock =
        attribute(cu::FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  }
  // Each block dimension is at most 1024 (the plan checks), so this fits.
  uint64_t threads = uint64_t(dims.block[0]) * dims.block[1] * dims.block[2];
  resources.blockThreads = static_cast<int>(threads);
  // The driver's occupancy calculator answers for any block size, but a
  // block larger than the kernel's limit (.maxntid, registers) cannot
  // launch at all (measured on an H200: 4 blocks of 512 reported for a
  // `.maxntid 256` kernel that cuLaunchKernel refuses): no block is resident.
  if (resources.maxThreadsPerBlock &&
      threads > static_cast<uint64_t>(*resources.maxThreadsPerBlock)) {
    resources.blocksPerSm = 0;
    resources.occupancy = 0.0;
  } else if (driver.cuOccupancyMaxActiveBlocksPerMultiprocessor) {
    // As for a launch: more than 48 KiB of dynamic shared memory needs the
    // kernel's opt-in first, or the driver counts it as not fitting.
    bool optedIn = true;
    if (dims.dynamicSharedBytes > 48 * 1024)
      optedIn =
          driver.cuFuncSetAttribute(
              kernel.function, cu::FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
              static_cast<int>(dims.dynamicSharedBytes)) == cu::SUCCESS;
    int blocks = 0;
    if (optedIn &&
        driver.cuOccupancyMaxActiveBlocksPerMultiprocessor(
            &blocks, kernel.function, static_cast<int>(threads),
            dims.dynamicSharedBytes) == cu::SUCCESS &&
        blocks >= 0) {
      resources.blocksPerSm = blocks;
      if (maxThreadsPerSm > 0)
        resources.occupancy = static_cast<double>(blocks) *
                              static_cast<double>(threads) / maxThreadsPerSm;
    }
  }
  return resources;
}

DeviceStatus DeviceSession::allocate(const ShapePlan &plan, BufferSet &set) {
  DeviceStatus status;
  for (const BufferLayout &layout : plan.buffers) {
    cu::DevicePtr pointer = 0;
    cu::Result result = driver.cuMemAlloc(&pointer, layout.allocationBytes);
    if (result != cu::SUCCESS) {
      status.verdict = Verdict::CudaError;
      status.details = "cuMemAlloc(" + std::to_string(layout.allocationBytes) +
                       " bytes for '" + layout.name +
                       "'): " + driver.describe(result);
      release(set);
      return status;
    }
    set.allocations.push_back(pointer);
    set.bytes.push_back(layout.allocationBytes);
  }
  return status;
}

void DeviceSession::release(BufferSet &set) {
  for (cu::DevicePtr pointer : set.allocations)
    driver.cuMemFree(pointer);
  set.allocations.clear();
  set.bytes.clear();
}

DeviceStatus
DeviceSession::upload(const BufferSet &set,
                      const std::vector<std::vector<uint8_t>> &images) {
  for (size_t i = 0; i < set.allocations.size(); ++i) {
    cu::Result result =
        driver.cuMemcpyHtoD(set.allocations[i], images[i].data(), set.bytes[i]);
    if (result != cu::SUCCESS)
      return executionError(result, "cuMemcpyHtoD");
  }
  return {};
}

DeviceStatus
DeviceSession::download(const BufferSet &set,
                        std::vector<std::vector<uint8_t>> &images) {
  images.resize(set.allocations.size());
  for (size_t i = 0; i < set.allocations.size(); ++i) {
    images[i].resize(set.bytes[i]);
    cu::Result result =
        driver.cuMemcpyDtoH(images[i].data(), set.allocations[i], set.bytes[i]);
    if (result != cu::SUCCESS)
      return executionError(result, "cuMemcpyDtoH");
  }
  return {};
}

std::optional<std::string>
DeviceSession::encodeTensorMap(const TensorMapSpec &spec, const ShapePlan &plan,
                               const BufferSet &set, cu::TensorMap &map) {
  if (!driver.cuTensorMapEncodeTiled)
    return std::string("the driver has no cuTensorMapEncodeTiled (CUDA 12 or "
                       "later is needed)");
  auto layout = std::find_if(
      plan.buffers.begin(), plan.buffers.end(),
      [&](const BufferLayout &buffer) { return buffer.name == spec.buffer; });
  if (layout == plan.buffers.end())
    return "no buffer '" + spec.buffer + "'";
  cu::DevicePtr base =
      set.allocations[layout->index] + layout->firstElementByteOffset();
  ValueOrError<TensorMapArgs> args = tensorMapArgs(
      spec, layout->element, layout->sizes, layout->strides, base);
  if (!args)
    return args.error();
  cu::Result result = driver.cuTensorMapEncodeTiled(
      &map, args->dataType, args->rank, reinterpret_cast<void *>(base),
      args->globalDim, args->globalStrides, args->boxDim, args->elementStrides,
      args->interleave, args->swizzle, args->l2Promotion, args->oobFill);
  if (result != cu::SUCCESS)
    return "cuTensorMapEncodeTiled: " + driver.describe(result);
  return std::nullopt;
}

DeviceStatus DeviceSession::launch(const Kernel &kernel, const LaunchDims &dims,
                                   const ShapePlan &plan, const BufferSet &set,
                                   cu::Stream stream, bool synchronize) {
  DeviceStatus status;
  if (dims.empty())
    return status; // nothing to run for an empty grid
  // Each parameter's bytes live in a 16-byte slot; the driver copies as
  // many bytes as the kernel declares (checked against the ABI before).
  struct Slot {
    alignas(16) unsigned char bytes[16];
  };
  std::vector<Slot> storage(plan.params.size());
  std::vector<void *> pointers(plan.params.size());
  for (size_t i = 0; i < plan.params.size(); ++i) {
    const ParamSlot &param = plan.params[i];
    std::memset(storage[i].bytes, 0, sizeof(storage[i].bytes));
    if (param.kind == ParamSlot::Kind::BufferAddress) {
      cu::DevicePtr address = set.allocations[param.buffer] + param.byteOffset;
      std::memcpy(storage[i].bytes, &address, sizeof(address));
    } else {
      std::memcpy(storage[i].bytes, param.bytes.data(),
                  std::min<size_t>(param.bytes.size(), 16));
    }
    pointers[i] = storage[i].bytes;
  }
  std::vector<cu::TensorMap> maps(kernel.tensorMaps.size());
  for (size_t i = 0; i < maps.size(); ++i) {
    if (std::optional<std::string> problem =
            encodeTensorMap(kernel.tensorMaps[i], plan, set, maps[i])) {
      status.verdict = Verdict::LaunchError;
      status.details = "tensor map '" + kernel.tensorMaps[i].name + "' over '" +
                       kernel.tensorMaps[i].buffer +
                       "' at this shape: " + *problem;
      return status;
    }
    pointers.push_back(&maps[i]);
  }
  if (dims.dynamicSharedBytes > 48 * 1024) {
    cu::Result result = driver.cuFuncSetAttribute(
        kernel.function, cu::FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
        static_cast<int>(dims.dynamicSharedBytes));
    if (result != cu::SUCCESS) {
      status.verdict = Verdict::LaunchError;
      status.details = "cuFuncSetAttribute(max dynamic shared " +
                       std::to_string(dims.dynamicSharedBytes) +
                       "): " + driver.describe(result);
      return status;
    }
  }
  cu::Result result = driver.cuLaunchKernel(
      kernel.function, dims.grid[0], dims.grid[1], dims.grid[2], dims.block[0],
      dims.block[1], dims.block[2], dims.dynamicSharedBytes, stream,
      pointers.data(), nullptr);
  if (result != cu::SUCCESS) {
    // A refused launch leaves the context usable, unless the error is one
    // of the sticky execution errors of an earlier kernel.
    DeviceStatus sticky = executionError(result, "cuLaunchKernel");
    if (sticky.verdict == Verdict::IllegalAddress)
      return sticky;
    status.verdict = Verdict::LaunchError;
    status.details =
        "cuLaunchKernel(" + dims.describe() + "): " + driver.describe(result);
    return status;
  }
  if (!synchronize)
    return status;
  result =
      stream ? driver.cuStreamSynchronize(stream) : driver.cuCtxSynchronize();
  return executionError(result, "kernel execution");
}
