//===- GpuRuntime.cpp - The mgpu* C ABI on the dlopen'ed CUDA driver ------===//
//
// Host code lowered by MLIR 22's gpu-to-llvm, and the module load/launch code
// that the #gpu.select_object translation emits, call a fixed set of C
// functions (mgpuModuleLoad, mgpuLaunchKernel, mgpuMemAlloc ...). Upstream
// implements them in libmlir_cuda_runtime.so, which Debian does not ship and
// which links libcuda. This library implements the same ABI on the CUDA
// Driver API loaded with dlopen at first use, so an executable and this .so
// can be copied together to any machine with an NVIDIA driver, and report
// "no GPU" (exit status 2) on one without.
//
// The signatures follow the declarations of MLIR 22.1.8 (checked by lowering
// and translating host code with Debian's mlir-opt-22 / mlir-translate-22;
// see docs/host-programs.md). A failing driver call cannot be handed back to
// the caller (the ABI has no error results), so it is reported with the
// call and the CUDA error name, and the process aborts.
//
//===----------------------------------------------------------------------===//

#include "llmptx/Runtime/CudaDriverAbi.h"

#include <dlfcn.h>

#include <climits>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <type_traits>

#define LLMPTX_EXPORT extern "C" __attribute__((visibility("default")))

namespace cu = llmptx::cu;

namespace {

constexpr int kNoGpuExitStatus = 2;
constexpr size_t kJitLogBytes = 16 * 1024;
constexpr int kMaxDevices = 64;

/// The driver entry points, resolved by their versioned ABI names (the
/// names cuda.h's macros expand to without per-thread default streams).
struct Driver {
  cu::Result (*cuInit)(unsigned);
  cu::Result (*cuGetErrorName)(cu::Result, const char **);
  cu::Result (*cuGetErrorString)(cu::Result, const char **);
  cu::Result (*cuDeviceGetCount)(int *);
  cu::Result (*cuDeviceGet)(cu::Device *, int);
  cu::Result (*cuDeviceGetAttribute)(int *, int, cu::Device);
  cu::Result (*cuDevicePrimaryCtxRetain)(cu::Context *, cu::Device);
  cu::Result (*cuCtxGetCurrent)(cu::Context *);
  cu::Result (*cuCtxSetCurrent)(cu::Context);
  cu::Result (*cuModuleLoadData)(cu::Module *, const void *);
  cu::Result (*cuModuleLoadDataEx)(cu::Module *, const void *, unsigned,
                                   cu::JitOption *, void **);
  cu::Result (*cuModuleUnload)(cu::Module);
  cu::Result (*cuModuleGetFunction)(cu::Function *, cu::Module, const char *);
  cu::Result (*cuFuncSetAttribute)(cu::Function, int, int);
  cu::Result (*cuLaunchKernel)(cu::Function, unsigned, unsigned, unsigned,
                               unsigned, unsigned, unsigned, unsigned,
                               cu::Stream, void **, void **);
  // Optional: CUDA 12 and later; only cluster launches need it.
  cu::Result (*cuLaunchKernelEx)(const cu::LaunchConfig *, cu::Function,
                                 void **, void **);
  cu::Result (*cuStreamCreate)(cu::Stream *, unsigned);
  cu::Result (*cuStreamDestroy)(cu::Stream);
  cu::Result (*cuStreamSynchronize)(cu::Stream);
  cu::Result (*cuStreamWaitEvent)(cu::Stream, cu::Event, unsigned);
  cu::Result (*cuEventCreate)(cu::Event *, unsigned);
  cu::Result (*cuEventDestroy)(cu::Event);
  cu::Result (*cuEventSynchronize)(cu::Event);
  cu::Result (*cuEventRecord)(cu::Event, cu::Stream);
  cu::Result (*cuMemAlloc)(cu::DevicePtr *, size_t);
  cu::Result (*cuMemAllocManaged)(cu::DevicePtr *, size_t, unsigned);
  cu::Result (*cuMemFree)(cu::DevicePtr);
  cu::Result (*cuMemcpyAsync)(cu::DevicePtr, cu::DevicePtr, size_t, cu::Stream);
  cu::Result (*cuMemsetD32Async)(cu::DevicePtr, unsigned, size_t, cu::Stream);
  cu::Result (*cuMemsetD16Async)(cu::DevicePtr, unsigned short, size_t,
                                 cu::Stream);
  cu::Result (*cuMemHostRegister)(void *, size_t, unsigned);
  cu::Result (*cuMemHostUnregister)(void *);
  cu::Result (*cuMemcpyHtoD)(cu::DevicePtr, const void *, size_t);
  // Optional: CUDA 12 and later; only TMA descriptors need it.
  cu::Result (*cuTensorMapEncodeTiled)(cu::TensorMap *, int, unsigned, void *,
                                       const uint64_t *, const uint64_t *,
                                       const unsigned *, const unsigned *, int,
                                       int, int, int);
};

[[noreturn]] void fatal(const char *format, ...)
    __attribute__((format(printf, 1, 2)));

void fatal(const char *format, ...) {
  va_list args;
  va_start(args, format);
  std::fputs("llmptx gpu runtime: ", stderr);
  std::vfprintf(stderr, format, args);
  std::fputs("\nllmptx gpu runtime: the program cannot continue\n", stderr);
  va_end(args);
  std::fflush(stderr);
  std::abort();
}

/// "No GPU" is not a bug of the program: say so and exit with the status
/// that tests and the llmptx tools use for it.
[[noreturn]] void noGpu(const char *format, ...)
    __attribute__((format(printf, 1, 2)));

void noGpu(const char *format, ...) {
  va_list args;
  va_start(args, format);
  std::fputs("llmptx gpu runtime: ", stderr);
  std::vfprintf(stderr, format, args);
  std::fputc('\n', stderr);
  va_end(args);
  std::fflush(stderr);
  std::exit(kNoGpuExitStatus);
}

Driver loadDriver() {
  const char *name = std::getenv("LLMPTX_LIBCUDA");
  if (!name || !*name)
    name = "libcuda.so.1";
  void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    noGpu("cannot load %s: %s", name, why ? why : "unknown dlopen error");
  }

  Driver d{};
  std::string missing;
  auto resolve = [&](auto &slot, const char *symbol, bool required) {
    void *address = dlsym(library, symbol);
    if (!address && required)
      missing += missing.empty() ? symbol : std::string(", ") + symbol;
    slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(address);
  };
  resolve(d.cuInit, "cuInit", true);
  resolve(d.cuGetErrorName, "cuGetErrorName", true);
  resolve(d.cuGetErrorString, "cuGetErrorString", true);
  resolve(d.cuDeviceGetCount, "cuDeviceGetCount", true);
  resolve(d.cuDeviceGet, "cuDeviceGet", true);
  resolve(d.cuDeviceGetAttribute, "cuDeviceGetAttribute", true);
  resolve(d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", true);
  resolve(d.cuCtxGetCurrent, "cuCtxGetCurrent", true);
  resolve(d.cuCtxSetCurrent, "cuCtxSetCurrent", true);
  resolve(d.cuModuleLoadData, "cuModuleLoadData", true);
  resolve(d.cuModuleLoadDataEx, "cuModuleLoadDataEx", true);
  resolve(d.cuModuleUnload, "cuModuleUnload", true);
  resolve(d.cuModuleGetFunction, "cuModuleGetFunction", true);
  resolve(d.cuFuncSetAttribute, "cuFuncSetAttribute", true);
  resolve(d.cuLaunchKernel, "cuLaunchKernel", true);
  resolve(d.cuLaunchKernelEx, "cuLaunchKernelEx", false);
  resolve(d.cuStreamCreate, "cuStreamCreate", true);
  resolve(d.cuStreamDestroy, "cuStreamDestroy_v2", true);
  resolve(d.cuStreamSynchronize, "cuStreamSynchronize", true);
  resolve(d.cuStreamWaitEvent, "cuStreamWaitEvent", true);
  resolve(d.cuEventCreate, "cuEventCreate", true);
  resolve(d.cuEventDestroy, "cuEventDestroy_v2", true);
  resolve(d.cuEventSynchronize, "cuEventSynchronize", true);
  resolve(d.cuEventRecord, "cuEventRecord", true);
  resolve(d.cuMemAlloc, "cuMemAlloc_v2", true);
  resolve(d.cuMemAllocManaged, "cuMemAllocManaged", true);
  resolve(d.cuMemFree, "cuMemFree_v2", true);
  resolve(d.cuMemcpyAsync, "cuMemcpyAsync", true);
  resolve(d.cuMemsetD32Async, "cuMemsetD32Async", true);
  resolve(d.cuMemsetD16Async, "cuMemsetD16Async", true);
  resolve(d.cuMemHostRegister, "cuMemHostRegister_v2", true);
  resolve(d.cuMemHostUnregister, "cuMemHostUnregister", true);
  resolve(d.cuMemcpyHtoD, "cuMemcpyHtoD_v2", true);
  resolve(d.cuTensorMapEncodeTiled, "cuTensorMapEncodeTiled", false);
  if (!missing.empty())
    noGpu("the CUDA driver %s lacks entry points: %s", name, missing.c_str());

  cu::Result status = d.cuInit(0);
  if (status != cu::SUCCESS) {
    const char *errorName = nullptr;
    if (d.cuGetErrorName(status, &errorName) != cu::SUCCESS || !errorName)
      errorName = "an unknown CUDA error";
    noGpu("no usable GPU: cuInit failed with %s", errorName);
  }
  return d;
}

/// The driver, loaded and initialized on first use by any entry point.
const Driver &driver() {
  static const Driver loaded = loadDriver();
  return loaded;
}

const char *errorName(cu::Result status) {
  const char *name = nullptr;
  if (driver().cuGetErrorName(status, &name) != cu::SUCCESS || !name)
    return "an unknown CUDA error";
  return name;
}

const char *errorString(cu::Result status) {
  const char *text = nullptr;
  if (driver().cuGetErrorString(status, &text) != cu::SUCCESS || !text)
    return "no description";
  return text;
}

/// Aborts with the failed call, the error's name and its description.
void check(cu::Result status, const char *call) {
  if (status == cu::SUCCESS)
    return;
  fatal("%s failed with %s (%s)", call, errorName(status), errorString(status));
}

/// Teardown calls run from global destructors, possibly after the driver
/// began its own shutdown; that one error is no reason to abort there.
void checkTeardown(cu::Result status, const char *call) {
  if (status != cu::ERROR_DEINITIALIZED)
    check(status, call);
}

thread_local int defaultDevice = 0;

/// Primary contexts, retained once per device and never released: modules,
/// streams and allocations of the program live in them until it exits.
struct PrimaryContexts {
  std::mutex mutex;
  cu::Context contexts[kMaxDevices] = {};
  cu::Device devices[kMaxDevices] = {};
};

PrimaryContexts &primaryContexts() {
  static PrimaryContexts table;
  return table;
}

/// Makes the primary context of the calling thread's default device current.
cu::Device makeCurrent() {
  const Driver &d = driver();
  int ordinal = defaultDevice;
  PrimaryContexts &table = primaryContexts();
  cu::Context context;
  cu::Device device;
  {
    std::lock_guard<std::mutex> lock(table.mutex);
    if (!table.contexts[ordinal]) {
      int count = 0;
      check(d.cuDeviceGetCount(&count), "cuDeviceGetCount");
      if (count == 0)
        noGpu("no usable GPU: the driver reports no device");
      if (ordinal >= count)
        fatal("device %d was selected (mgpuSetDefaultDevice) but the driver "
              "reports %d device(s)",
              ordinal, count);
      check(d.cuDeviceGet(&table.devices[ordinal], ordinal), "cuDeviceGet");
      check(d.cuDevicePrimaryCtxRetain(&table.contexts[ordinal],
                                       table.devices[ordinal]),
            "cuDevicePrimaryCtxRetain");
    }
    context = table.contexts[ordinal];
    device = table.devices[ordinal];
  }
  cu::Context current = nullptr;
  check(d.cuCtxGetCurrent(&current), "cuCtxGetCurrent");
  if (current != context)
    check(d.cuCtxSetCurrent(context), "cuCtxSetCurrent");
  return device;
}

/// makeCurrent for calls from global destructors: false when the driver
/// already shut down, so there is nothing left to release.
bool makeCurrentForTeardown() {
  cu::Context current = nullptr;
  cu::Result status = driver().cuCtxGetCurrent(&current);
  if (status == cu::ERROR_DEINITIALIZED)
    return false;
  check(status, "cuCtxGetCurrent");
  makeCurrent();
  return true;
}

cu::DevicePtr devicePtr(const void *pointer) {
  return reinterpret_cast<cu::DevicePtr>(pointer);
}

/// Launch dimensions arrive as MLIR index values (intptr_t); the driver
/// takes unsigned ints, so a value that does not fit is a program error.
unsigned launchDim(intptr_t value, const char *what) {
  if (value < 1 || static_cast<uintmax_t>(value) > UINT_MAX)
    fatal("kernel launch with %s = %lld (must be in [1, %u])", what,
          static_cast<long long>(value), UINT_MAX);
  return static_cast<unsigned>(value);
}

/// Above 48 KiB of dynamic shared memory a kernel must opt in first.
void allowDynamicSharedMemory(cu::Function function, cu::Device device,
                              int32_t bytes) {
  constexpr int32_t kDefaultLimit = 48 * 1024;
  if (bytes < 0)
    fatal("kernel launch with %d bytes of dynamic shared memory", bytes);
  if (bytes <= kDefaultLimit)
    return;
  const Driver &d = driver();
  int optIn = 0;
  check(d.cuDeviceGetAttribute(
            &optIn, cu::DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
            device),
        "cuDeviceGetAttribute(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)");
  if (bytes > optIn)
    fatal("kernel launch with %d bytes of dynamic shared memory; the device "
          "allows at most %d per block",
          bytes, optIn);
  check(d.cuFuncSetAttribute(
            function, cu::FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes),
        "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
}

/// The start of a ranked memref descriptor as the LLVM lowering lays it
/// out; `rank` sizes and then `rank` strides (int64_t each) follow.
struct MemRefDescriptorHead {
  char *allocated;
  char *aligned;
  int64_t offset;
};

/// The bytes a strided memref can touch: from its first element to its
/// last, whatever the strides. Empty memrefs span nothing.
struct ByteSpan {
  char *begin;
  uint64_t bytes;
};

ByteSpan memrefSpan(int64_t rank, const void *descriptor, int64_t elementBytes,
                    const char *call) {
  if (!descriptor || rank < 0 || elementBytes <= 0)
    fatal("%s: bad memref (rank %lld, element size %lld)", call,
          static_cast<long long>(rank), static_cast<long long>(elementBytes));
  const auto *head = static_cast<const MemRefDescriptorHead *>(descriptor);
  const auto *sizes = reinterpret_cast<const int64_t *>(head + 1);
  const int64_t *strides = sizes + rank;
  uint64_t lastElement = 0;
  for (int64_t i = 0; i < rank; ++i) {
    if (sizes[i] == 0)
      return {nullptr, 0};
    if (sizes[i] < 0 || strides[i] < 0)
      fatal("%s: memref dimension %lld has size %lld and stride %lld (only "
            "non-negative strides can be registered)",
            call, static_cast<long long>(i), static_cast<long long>(sizes[i]),
            static_cast<long long>(strides[i]));
    lastElement += static_cast<uint64_t>(sizes[i] - 1) * strides[i];
  }
  return {head->aligned + head->offset * elementBytes,
          (lastElement + 1) * static_cast<uint64_t>(elementBytes)};
}

} // namespace

//===----------------------------------------------------------------------===//
// Modules and functions
//===----------------------------------------------------------------------===//

/// A cubin, fatbin or PTX image of `size` bytes (gpu.object format bin or
/// fatbin). The driver reads PTX up to a NUL, which a sized image need not
/// have, so it gets a NUL-terminated copy.
LLMPTX_EXPORT cu::Module mgpuModuleLoad(void *data, size_t size) {
  const Driver &d = driver();
  makeCurrent();
  char *image = static_cast<char *>(std::malloc(size + 1));
  if (!image)
    fatal("mgpuModuleLoad: out of host memory for a %zu-byte image", size);
  std::memcpy(image, data, size);
  image[size] = '\0';
  cu::Module module = nullptr;
  cu::Result status = d.cuModuleLoadData(&module, image);
  std::free(image);
  check(status, "cuModuleLoadData");
  return module;
}

/// PTX text (gpu.object format isa), compiled by the driver's JIT at
/// `optLevel`. MLIR 22 passes no size: the translation stores the assembly
/// with a terminating NUL, which is what the driver reads up to.
LLMPTX_EXPORT cu::Module mgpuModuleLoadJIT(void *data, int optLevel) {
  const Driver &d = driver();
  makeCurrent();
  char errorLog[kJitLogBytes] = {};
  cu::JitOption options[] = {cu::JIT_OPTIMIZATION_LEVEL,
                             cu::JIT_ERROR_LOG_BUFFER,
                             cu::JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {reinterpret_cast<void *>(static_cast<intptr_t>(optLevel)),
                    errorLog, reinterpret_cast<void *>(sizeof(errorLog) - 1)};
  cu::Module module = nullptr;
  cu::Result status = d.cuModuleLoadDataEx(
      &module, data, sizeof(options) / sizeof(options[0]), options, values);
  if (status != cu::SUCCESS)
    fatal("cuModuleLoadDataEx (PTX JIT at -O%d) failed with %s (%s)%s%s",
          optLevel, errorName(status), errorString(status),
          errorLog[0] ? "; JIT log:\n" : "", errorLog);
  return module;
}

LLMPTX_EXPORT void mgpuModuleUnload(cu::Module module) {
  if (!module || !makeCurrentForTeardown())
    return;
  checkTeardown(driver().cuModuleUnload(module), "cuModuleUnload");
}

LLMPTX_EXPORT cu::Function mgpuModuleGetFunction(cu::Module module,
                                                 const char *name) {
  makeCurrent();
  cu::Function function = nullptr;
  cu::Result status = driver().cuModuleGetFunction(&function, module, name);
  if (status != cu::SUCCESS)
    fatal("cuModuleGetFunction(\"%s\") failed with %s (%s)", name,
          errorName(status), errorString(status));
  return function;
}

//===----------------------------------------------------------------------===//
// Launches
//===----------------------------------------------------------------------===//

/// `params` is the array the lowering builds: one pointer per kernel
/// argument, each to a stack slot holding the value. `paramsCount` (its
/// length) needs no use: the driver knows the kernel's parameter list.
LLMPTX_EXPORT void mgpuLaunchKernel(cu::Function function, intptr_t gridX,
                                    intptr_t gridY, intptr_t gridZ,
                                    intptr_t blockX, intptr_t blockY,
                                    intptr_t blockZ, int32_t smem,
                                    cu::Stream stream, void **params,
                                    void **extra, size_t /*paramsCount*/) {
  cu::Device device = makeCurrent();
  allowDynamicSharedMemory(function, device, smem);
  check(driver().cuLaunchKernel(
            function, launchDim(gridX, "grid x"), launchDim(gridY, "grid y"),
            launchDim(gridZ, "grid z"), launchDim(blockX, "block x"),
            launchDim(blockY, "block y"), launchDim(blockZ, "block z"),
            static_cast<unsigned>(smem), stream, params, extra),
        "cuLaunchKernel");
}

/// gpu.launch_func with `clusters in`: the grid is still counted in blocks
/// and must be a multiple of the cluster shape (the driver checks).
LLMPTX_EXPORT void
mgpuLaunchClusterKernel(cu::Function function, intptr_t clusterX,
                        intptr_t clusterY, intptr_t clusterZ, intptr_t gridX,
                        intptr_t gridY, intptr_t gridZ, intptr_t blockX,
                        intptr_t blockY, intptr_t blockZ, int32_t smem,
                        cu::Stream stream, void **params, void **extra) {
  const Driver &d = driver();
  cu::Device device = makeCurrent();
  if (!d.cuLaunchKernelEx)
    fatal("a cluster launch needs cuLaunchKernelEx, which this CUDA driver "
          "lacks (CUDA 12 or later)");
  allowDynamicSharedMemory(function, device, smem);

  cu::LaunchAttribute cluster{};
  cluster.id = cu::LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  cluster.value.clusterDim.x = launchDim(clusterX, "cluster x");
  cluster.value.clusterDim.y = launchDim(clusterY, "cluster y");
  cluster.value.clusterDim.z = launchDim(clusterZ, "cluster z");
  // More than 8 blocks per cluster is "non-portable" and must be allowed.
  uint64_t clusterBlocks = uint64_t(cluster.value.clusterDim.x) *
                           cluster.value.clusterDim.y *
                           cluster.value.clusterDim.z;
  if (clusterBlocks > 8)
    check(
        d.cuFuncSetAttribute(
            function, cu::FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1),
        "cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED)");

  cu::LaunchConfig config{};
  config.gridDimX = launchDim(gridX, "grid x");
  config.gridDimY = launchDim(gridY, "grid y");
  config.gridDimZ = launchDim(gridZ, "grid z");
  config.blockDimX = launchDim(blockX, "block x");
  config.blockDimY = launchDim(blockY, "block y");
  config.blockDimZ = launchDim(blockZ, "block z");
  config.sharedMemBytes = static_cast<unsigned>(smem);
  config.hStream = stream;
  config.attrs = &cluster;
  config.numAttrs = 1;
  check(d.cuLaunchKernelEx(&config, function, params, extra),
        "cuLaunchKernelEx (cluster launch)");
}

//===----------------------------------------------------------------------===//
// Streams and events
//===----------------------------------------------------------------------===//

LLMPTX_EXPORT cu::Stream mgpuStreamCreate() {
  makeCurrent();
  cu::Stream stream = nullptr;
  check(driver().cuStreamCreate(&stream, cu::STREAM_NON_BLOCKING),
        "cuStreamCreate");
  return stream;
}

LLMPTX_EXPORT void mgpuStreamDestroy(cu::Stream stream) {
  if (!makeCurrentForTeardown())
    return;
  checkTeardown(driver().cuStreamDestroy(stream), "cuStreamDestroy");
}

/// Errors of earlier asynchronous work (a kernel's illegal address ...)
/// surface here.
LLMPTX_EXPORT void mgpuStreamSynchronize(cu::Stream stream) {
  makeCurrent();
  check(driver().cuStreamSynchronize(stream), "cuStreamSynchronize");
}

LLMPTX_EXPORT void mgpuStreamWaitEvent(cu::Stream stream, cu::Event event) {
  makeCurrent();
  check(driver().cuStreamWaitEvent(stream, event, /*flags=*/0),
        "cuStreamWaitEvent");
}

LLMPTX_EXPORT cu::Event mgpuEventCreate() {
  makeCurrent();
  cu::Event event = nullptr;
  check(driver().cuEventCreate(&event, cu::EVENT_DISABLE_TIMING),
        "cuEventCreate");
  return event;
}

LLMPTX_EXPORT void mgpuEventDestroy(cu::Event event) {
  if (!makeCurrentForTeardown())
    return;
  checkTeardown(driver().cuEventDestroy(event), "cuEventDestroy");
}

LLMPTX_EXPORT void mgpuEventSynchronize(cu::Event event) {
  makeCurrent();
  check(driver().cuEventSynchronize(event), "cuEventSynchronize");
}

LLMPTX_EXPORT void mgpuEventRecord(cu::Event event, cu::Stream stream) {
  makeCurrent();
  check(driver().cuEventRecord(event, stream), "cuEventRecord");
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

/// gpu.alloc: device memory, or managed memory that host and device share
/// (`host_shared`, passed as an i8). The allocation is synchronous, so
/// `stream` orders nothing. A zero-byte request gets a null pointer, which
/// mgpuMemFree accepts (the driver rejects zero-byte allocations).
LLMPTX_EXPORT void *mgpuMemAlloc(uint64_t sizeBytes, cu::Stream /*stream*/,
                                 uint8_t isHostShared) {
  if (sizeBytes == 0)
    return nullptr;
  makeCurrent();
  cu::DevicePtr pointer = 0;
  if (isHostShared)
    check(
        driver().cuMemAllocManaged(&pointer, sizeBytes, cu::MEM_ATTACH_GLOBAL),
        "cuMemAllocManaged");
  else
    check(driver().cuMemAlloc(&pointer, sizeBytes), "cuMemAlloc");
  return reinterpret_cast<void *>(pointer);
}

/// gpu.dealloc. cuMemFree does not wait for work queued on other streams,
/// so the stream the dealloc is ordered on finishes first.
LLMPTX_EXPORT void mgpuMemFree(void *pointer, cu::Stream stream) {
  if (!pointer)
    return;
  makeCurrent();
  if (stream)
    check(driver().cuStreamSynchronize(stream),
          "cuStreamSynchronize (before cuMemFree)");
  check(driver().cuMemFree(devicePtr(pointer)), "cuMemFree");
}

/// gpu.memcpy between any two of host and device memory (unified
/// addressing tells the driver which is which).
LLMPTX_EXPORT void mgpuMemcpy(void *dst, void *src, size_t sizeBytes,
                              cu::Stream stream) {
  if (sizeBytes == 0)
    return;
  makeCurrent();
  check(
      driver().cuMemcpyAsync(devicePtr(dst), devicePtr(src), sizeBytes, stream),
      "cuMemcpyAsync");
}

/// gpu.memset of 32-bit elements: `count` elements, not bytes.
LLMPTX_EXPORT void mgpuMemset32(void *dst, unsigned int value, size_t count,
                                cu::Stream stream) {
  if (count == 0)
    return;
  makeCurrent();
  check(driver().cuMemsetD32Async(devicePtr(dst), value, count, stream),
        "cuMemsetD32Async");
}

/// gpu.memset of 16-bit elements: `count` elements, not bytes.
LLMPTX_EXPORT void mgpuMemset16(void *dst, unsigned short value, size_t count,
                                cu::Stream stream) {
  if (count == 0)
    return;
  makeCurrent();
  check(driver().cuMemsetD16Async(devicePtr(dst), value, count, stream),
        "cuMemsetD16Async");
}

/// Page-locks host memory and maps it for the device.
LLMPTX_EXPORT void mgpuMemHostRegister(void *pointer, uint64_t sizeBytes) {
  if (sizeBytes == 0)
    return;
  makeCurrent();
  check(driver().cuMemHostRegister(pointer, sizeBytes, /*flags=*/0),
        "cuMemHostRegister");
}

LLMPTX_EXPORT void mgpuMemHostUnregister(void *pointer) {
  makeCurrent();
  check(driver().cuMemHostUnregister(pointer), "cuMemHostUnregister");
}

/// gpu.host_register: `descriptor` is the ranked descriptor behind an
/// unranked memref. The whole strided span of its elements is registered.
LLMPTX_EXPORT void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                                             int64_t elementSizeBytes) {
  ByteSpan span = memrefSpan(rank, descriptor, elementSizeBytes,
                             "mgpuMemHostRegisterMemRef");
  mgpuMemHostRegister(span.begin, span.bytes);
}

/// gpu.host_unregister: the same span as mgpuMemHostRegisterMemRef.
LLMPTX_EXPORT void mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                                               int64_t elementSizeBytes) {
  ByteSpan span = memrefSpan(rank, descriptor, elementSizeBytes,
                             "mgpuMemHostUnregisterMemRef");
  if (span.bytes != 0)
    mgpuMemHostUnregister(span.begin);
}

//===----------------------------------------------------------------------===//
// Tensor memory access (TMA) descriptors
//===----------------------------------------------------------------------===//

/// cuTensorMapEncodeTiled with its arguments as cuda.h declares them (the
/// enums as ints): fills `tensorMap` on the host.
LLMPTX_EXPORT void mgpuTensorMapEncodeTiled(
    cu::TensorMap *tensorMap, int dataType, unsigned rank, void *globalAddress,
    const uint64_t *globalDim, const uint64_t *globalStrides,
    const unsigned *boxDim, const unsigned *elementStrides, int interleave,
    int swizzle, int l2Promotion, int oobFill) {
  makeCurrent();
  if (!driver().cuTensorMapEncodeTiled)
    fatal("cuTensorMapEncodeTiled: the CUDA driver has no TMA (CUDA 12 or "
          "later is needed)");
  check(driver().cuTensorMapEncodeTiled(
            tensorMap, dataType, rank, globalAddress, globalDim, globalStrides,
            boxDim, elementStrides, interleave, swizzle, l2Promotion, oobFill),
        "cuTensorMapEncodeTiled");
}

/// nvgpu.tma.create.descriptor: the tiled TMA descriptor of the memref
/// behind `descriptor` (rank `rank`, ranked descriptor as the LLVM lowering
/// lays it out), boxes of `boxDims` (outermost first), in device memory,
/// where the kernel that takes it reads it. The driver wants dimensions
/// innermost first and the strides of all but the innermost in bytes.
LLMPTX_EXPORT void *mgpuTensorMapEncodeTiledMemref(
    int64_t rank, void *descriptor, int64_t dataType, int64_t interleave,
    int64_t swizzle, int64_t l2Promotion, int64_t oobFill,
    const int64_t *boxDims) {
  constexpr int64_t kMaxRank = 5;
  if (rank < 1 || rank > kMaxRank || !descriptor || !boxDims)
    fatal("mgpuTensorMapEncodeTiledMemref: rank %lld (TMA takes 1 to %lld)",
          static_cast<long long>(rank), static_cast<long long>(kMaxRank));
  if (dataType < 0 || dataType >= cu::TENSOR_MAP_DATA_TYPE_COUNT)
    fatal("mgpuTensorMapEncodeTiledMemref: unknown element type %lld",
          static_cast<long long>(dataType));
  const auto *head = static_cast<const MemRefDescriptorHead *>(descriptor);
  const auto *sizes = reinterpret_cast<const int64_t *>(head + 1);
  const int64_t *strides = sizes + rank;
  uint64_t elementBytes = cu::kTensorMapElementBytes[dataType];
  uint64_t globalDim[kMaxRank], globalStrides[kMaxRank];
  unsigned boxDim[kMaxRank], elementStrides[kMaxRank];
  for (int64_t i = 0; i < rank; ++i) {
    int64_t outer = rank - 1 - i;
    globalDim[i] = static_cast<uint64_t>(sizes[outer]);
    boxDim[i] = static_cast<unsigned>(boxDims[outer]);
    elementStrides[i] = 1;
    if (i + 1 < rank)
      globalStrides[i] = static_cast<uint64_t>(strides[outer - 1]) *
                         elementBytes;
  }
  cu::TensorMap tensorMap;
  mgpuTensorMapEncodeTiled(
      &tensorMap, static_cast<int>(dataType), static_cast<unsigned>(rank),
      head->aligned + head->offset * static_cast<int64_t>(elementBytes),
      globalDim, globalStrides, boxDim, elementStrides,
      static_cast<int>(interleave), static_cast<int>(swizzle),
      static_cast<int>(l2Promotion), static_cast<int>(oobFill));
  cu::DevicePtr onDevice = 0;
  check(driver().cuMemAlloc(&onDevice, sizeof tensorMap),
        "cuMemAlloc (TMA descriptor)");
  check(driver().cuMemcpyHtoD(onDevice, &tensorMap, sizeof tensorMap),
        "cuMemcpyHtoD (TMA descriptor)");
  return reinterpret_cast<void *>(onDevice);
}

//===----------------------------------------------------------------------===//
// Devices
//===----------------------------------------------------------------------===//

/// gpu.set_default_device: later calls of this thread use that device's
/// primary context. Modules are loaded by global constructors, before any
/// of these calls, on device 0.
LLMPTX_EXPORT void mgpuSetDefaultDevice(int32_t device) {
  if (device < 0 || device >= kMaxDevices)
    fatal("mgpuSetDefaultDevice(%d): device ordinals go from 0 to %d", device,
          kMaxDevices - 1);
  defaultDevice = device;
}

//===----------------------------------------------------------------------===//
// Printing (vector.print)
//===----------------------------------------------------------------------===//
//
// vector.print lowers to calls of these, which upstream's
// libmlir_c_runner_utils.so defines; that library needs libMLIR and libLLVM,
// which a GPU machine with only the driver lacks, so the runtime prints the
// same way itself: "( 1, 2.5 )" for a vector, %g for floats, "-nan" for a
// negative NaN.

namespace {
template <typename Float> void printFloat(Float value) {
  if (std::isnan(value) && std::signbit(value))
    std::fputs("-nan", stdout);
  else
    std::printf("%g", static_cast<double>(value));
}

/// IEEE half and bfloat16 bits to float.
float halfToFloat(uint16_t bits) {
  uint32_t sign = (bits & 0x8000u) << 16, exponent = (bits >> 10) & 0x1f,
           mantissa = bits & 0x3ffu, word;
  if (exponent == 0x1f) {
    word = sign | 0x7f800000u | (mantissa << 13);
  } else if (exponent != 0) {
    word = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    word = sign;
  } else {
    // A subnormal half is a normal float: shift the mantissa up.
    exponent = 113;
    while (!(mantissa & 0x400u)) {
      mantissa <<= 1;
      --exponent;
    }
    word = sign | (exponent << 23) | ((mantissa & 0x3ffu) << 13);
  }
  float value;
  std::memcpy(&value, &word, sizeof value);
  return value;
}

float bfloatToFloat(uint16_t bits) {
  uint32_t word = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &word, sizeof value);
  return value;
}
} // namespace

LLMPTX_EXPORT void printI64(int64_t value) {
  std::printf("%lld", static_cast<long long>(value));
}
LLMPTX_EXPORT void printU64(uint64_t value) {
  std::printf("%llu", static_cast<unsigned long long>(value));
}
LLMPTX_EXPORT void printF32(float value) { printFloat(value); }
LLMPTX_EXPORT void printF64(double value) { printFloat(value); }
LLMPTX_EXPORT void printF16(uint16_t bits) { printFloat(halfToFloat(bits)); }
LLMPTX_EXPORT void printBF16(uint16_t bits) {
  printFloat(bfloatToFloat(bits));
}
LLMPTX_EXPORT void printString(const char *text) { std::fputs(text, stdout); }
LLMPTX_EXPORT void printOpen() { std::fputs("( ", stdout); }
LLMPTX_EXPORT void printClose() { std::fputs(" )", stdout); }
LLMPTX_EXPORT void printComma() { std::fputs(", ", stdout); }
LLMPTX_EXPORT void printNewline() { std::fputc('\n', stdout); }

//===----------------------------------------------------------------------===//
// Printing memrefs (printMemref*)
//===----------------------------------------------------------------------===//
//
// The layout of upstream's libmlir_runner_utils.so, which MLIR's GPU tests
// check against: a metadata line ending in "data = ", then the elements as
// nested brackets, "," and rank + 1 spaces between innermost elements, ", "
// a newline and one space per level of depth between rows. An empty memref
// prints "[]" (upstream prints the element at the offset, which does not
// exist).

namespace {
struct UnrankedMemRef {
  int64_t rank;
  void *descriptor;
};

using ElementPrinter = void (*)(const char *base, int64_t index);

void printElements(const char *base, int64_t rank, int64_t depth,
                   int64_t offset, const int64_t *sizes,
                   const int64_t *strides, ElementPrinter print) {
  std::fputc('[', stdout);
  for (int64_t i = 0; i < sizes[depth]; ++i) {
    if (i > 0) {
      if (depth + 1 == rank) {
        std::fputc(',', stdout);
        for (int64_t s = 0; s < rank + 1; ++s)
          std::fputc(' ', stdout);
      } else {
        std::fputs(", \n", stdout);
        for (int64_t s = 0; s <= depth; ++s)
          std::fputc(' ', stdout);
      }
    }
    int64_t at = offset + i * strides[depth];
    if (depth + 1 == rank)
      print(base, at);
    else
      printElements(base, rank, depth + 1, at, sizes, strides, print);
  }
  std::fputc(']', stdout);
}

void printMemref(int64_t rank, void *descriptor, ElementPrinter print) {
  const auto *head = static_cast<const MemRefDescriptorHead *>(descriptor);
  const auto *sizes = reinterpret_cast<const int64_t *>(head + 1);
  const int64_t *strides = sizes + rank;
  auto list = [&](const int64_t *values) {
    for (int64_t i = 0; i < rank; ++i)
      std::printf(i ? ", %lld" : "%lld", static_cast<long long>(values[i]));
  };
  // A pointer as std::ostream prints it: 0x... , or 0 for null.
  uintptr_t address = reinterpret_cast<uintptr_t>(head->aligned);
  std::printf(address ? "Unranked Memref base@ = 0x%llx" : "Unranked Memref "
                                                           "base@ = %llu",
              static_cast<unsigned long long>(address));
  std::printf(" rank = %lld offset = %lld sizes = [",
              static_cast<long long>(rank),
              static_cast<long long>(head->offset));
  list(sizes);
  std::fputs("] strides = [", stdout);
  list(strides);
  std::fputs("] data = \n", stdout);
  bool empty = false;
  for (int64_t i = 0; i < rank; ++i)
    empty |= sizes[i] == 0;
  if (rank == 0) {
    std::fputc('[', stdout);
    print(head->aligned, head->offset);
    std::fputc(']', stdout);
  } else if (empty) {
    std::fputs("[]", stdout);
  } else {
    printElements(head->aligned, rank, 0, head->offset, sizes, strides, print);
  }
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

template <typename T> T elementAt(const char *base, int64_t index) {
  T value;
  std::memcpy(&value, base + index * static_cast<int64_t>(sizeof(T)),
              sizeof value);
  return value;
}
} // namespace

// Each element type has the entry point a plain call of the function lowers
// to (rank, descriptor) and the one `llvm.emit_c_interface` lowers to.
#define LLMPTX_PRINT_MEMREF(Suffix, PrintElement)                              \
  LLMPTX_EXPORT void printMemref##Suffix(int64_t rank, void *descriptor) {     \
    printMemref(rank, descriptor, PrintElement);                               \
  }                                                                            \
  LLMPTX_EXPORT void _mlir_ciface_printMemref##Suffix(UnrankedMemRef *m) {     \
    printMemref(m->rank, m->descriptor, PrintElement);                         \
  }

LLMPTX_PRINT_MEMREF(F32, [](const char *base, int64_t i) {
  printFloat(elementAt<float>(base, i));
})
LLMPTX_PRINT_MEMREF(F64, [](const char *base, int64_t i) {
  printFloat(elementAt<double>(base, i));
})
LLMPTX_PRINT_MEMREF(F16, [](const char *base, int64_t i) {
  printFloat(halfToFloat(elementAt<uint16_t>(base, i)));
})
LLMPTX_PRINT_MEMREF(BF16, [](const char *base, int64_t i) {
  printFloat(bfloatToFloat(elementAt<uint16_t>(base, i)));
})
LLMPTX_PRINT_MEMREF(I8, [](const char *base, int64_t i) {
  std::printf("%d", elementAt<int8_t>(base, i));
})
LLMPTX_PRINT_MEMREF(I16, [](const char *base, int64_t i) {
  std::printf("%d", elementAt<int16_t>(base, i));
})
LLMPTX_PRINT_MEMREF(I32, [](const char *base, int64_t i) {
  std::printf("%d", elementAt<int32_t>(base, i));
})
LLMPTX_PRINT_MEMREF(I64, [](const char *base, int64_t i) {
  std::printf("%lld", static_cast<long long>(elementAt<int64_t>(base, i)));
})
LLMPTX_PRINT_MEMREF(Ind, [](const char *base, int64_t i) {
  std::printf("%lld", static_cast<long long>(elementAt<int64_t>(base, i)));
})
