//===- fake_libcuda.c - A CUDA driver on host memory, for tests ---*- C -*-===//
//
// Built as a shared library and loaded by libllmptx_gpu_runtime.so through
// LLMPTX_LIBCUDA, it lets the default (GPU-less) lit suite run a whole host
// program: "device" memory is host memory, and cuLaunchKernel runs the one
// kernel it knows, `vadd` with the memref ABI of vadd_program.mlir, on the
// CPU, after checking that every pointer it gets lies in a "device"
// allocation. Each entry point prints a line to stderr when FAKE_CUDA_TRACE
// is set; FAKE_CUDA_FAIL=<entry point> makes that one fail, and
// FAKE_CUDA_INIT=<code> makes cuInit return <code>.
//
// Streams and events are distinct handles that are never freed, so a
// destroyed one, or a stream passed where an event belongs, is caught:
// CUDA_ERROR_INVALID_HANDLE, and a trace line saying what was wrong.
//
// It implements exactly the entry points the runtime resolves; anything a
// test does not need answers CUDA_ERROR_NOT_SUPPORTED.
//
//===----------------------------------------------------------------------===//

#define _GNU_SOURCE // PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

enum {
  SUCCESS = 0,
  INVALID_VALUE = 1,
  NOT_INITIALIZED = 3,
  NO_DEVICE = 100,
  INVALID_DEVICE = 101,
  INVALID_IMAGE = 200,
  INVALID_CONTEXT = 201,
  INVALID_HANDLE = 400,
  NOT_FOUND = 500,
  ILLEGAL_ADDRESS = 700,
  LAUNCH_FAILED = 719,
  NOT_SUPPORTED = 801,
};

static int initialized;
static int contextCurrent;
static char theContext;

/// A stream or an event. Handles stay allocated after their destruction so
/// that a later use is recognized as such.
typedef struct {
  enum { STREAM = 0x5354, EVENT = 0x4556 } kind;
  int live;
} FakeHandle;

static void *newHandle(int kind) {
  FakeHandle *handle = malloc(sizeof *handle);
  handle->kind = kind;
  handle->live = 1;
  return handle;
}

/// Whether `handle` is a live object of `kind`; the null stream (the
/// default stream) is one.
static int isLive(const void *handle, int kind) {
  if (!handle)
    return kind == STREAM;
  const FakeHandle *h = handle;
  return h->kind == kind && h->live;
}

static int tracing(void) { return getenv("FAKE_CUDA_TRACE") != NULL; }

static void trace(const char *format, ...)
    __attribute__((format(printf, 1, 2)));

static void trace(const char *format, ...) {
  if (!tracing())
    return;
  va_list args;
  va_start(args, format);
  fputs("fake cuda: ", stderr);
  vfprintf(stderr, format, args);
  fputc('\n', stderr);
  va_end(args);
}

/// Every call but cuInit and the error strings needs cuInit and, for
/// context-bound work, a current context.
static CUresult enter(const char *name, int needsContext) {
  const char *fail = getenv("FAKE_CUDA_FAIL");
  if (fail && !strcmp(fail, name))
    return LAUNCH_FAILED;
  if (!initialized)
    return NOT_INITIALIZED;
  if (needsContext && !contextCurrent)
    return INVALID_CONTEXT;
  return SUCCESS;
}

/// Fails the call when `handle` is not a live stream (or event).
#define CHECK_HANDLE(call, handle, kind)                                       \
  do {                                                                         \
    if (!isLive(handle, kind)) {                                               \
      fprintf(stderr, "fake cuda: %s: not a live %s\n", call,                   \
              kind == STREAM ? "stream" : "event");                            \
      return INVALID_HANDLE;                                                   \
    }                                                                          \
  } while (0)

/// Entry points run one at a time (host programs with the async dialect
/// call the driver from several threads); the lock is released when the
/// entry point returns.
static pthread_mutex_t entryMutex = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

static pthread_mutex_t *lockEntry(void) {
  pthread_mutex_lock(&entryMutex);
  return &entryMutex;
}

static void unlockEntry(pthread_mutex_t **mutex) {
  pthread_mutex_unlock(*mutex);
}

#define ENTER(name, needsContext)                                              \
  pthread_mutex_t *entryLock __attribute__((cleanup(unlockEntry), unused)) =   \
      lockEntry();                                                             \
  do {                                                                         \
    CUresult entered = enter(name, needsContext);                              \
    if (entered != SUCCESS)                                                    \
      return entered;                                                          \
  } while (0)

//===----------------------------------------------------------------------===//
// Errors, devices, contexts
//===----------------------------------------------------------------------===//

CUresult cuInit(unsigned flags) {
  trace("cuInit(%u)", flags);
  const char *code = getenv("FAKE_CUDA_INIT");
  if (code)
    return atoi(code);
  initialized = 1;
  return SUCCESS;
}

CUresult cuGetErrorName(CUresult error, const char **name) {
  switch (error) {
  case SUCCESS:
    *name = "CUDA_SUCCESS";
    return SUCCESS;
  case INVALID_VALUE:
    *name = "CUDA_ERROR_INVALID_VALUE";
    return SUCCESS;
  case NOT_INITIALIZED:
    *name = "CUDA_ERROR_NOT_INITIALIZED";
    return SUCCESS;
  case NO_DEVICE:
    *name = "CUDA_ERROR_NO_DEVICE";
    return SUCCESS;
  case INVALID_DEVICE:
    *name = "CUDA_ERROR_INVALID_DEVICE";
    return SUCCESS;
  case INVALID_IMAGE:
    *name = "CUDA_ERROR_INVALID_IMAGE";
    return SUCCESS;
  case INVALID_CONTEXT:
    *name = "CUDA_ERROR_INVALID_CONTEXT";
    return SUCCESS;
  case INVALID_HANDLE:
    *name = "CUDA_ERROR_INVALID_HANDLE";
    return SUCCESS;
  case NOT_FOUND:
    *name = "CUDA_ERROR_NOT_FOUND";
    return SUCCESS;
  case ILLEGAL_ADDRESS:
    *name = "CUDA_ERROR_ILLEGAL_ADDRESS";
    return SUCCESS;
  case LAUNCH_FAILED:
    *name = "CUDA_ERROR_LAUNCH_FAILED";
    return SUCCESS;
  case NOT_SUPPORTED:
    *name = "CUDA_ERROR_NOT_SUPPORTED";
    return SUCCESS;
  }
  *name = NULL;
  return INVALID_VALUE;
}

CUresult cuGetErrorString(CUresult error, const char **text) {
  *text = error == LAUNCH_FAILED ? "failure injected by FAKE_CUDA_FAIL"
                                 : "fake driver error";
  return SUCCESS;
}

CUresult cuDeviceGetCount(int *count) {
  ENTER("cuDeviceGetCount", 0);
  *count = 1;
  return SUCCESS;
}

CUresult cuDeviceGet(int *device, int ordinal) {
  ENTER("cuDeviceGet", 0);
  trace("cuDeviceGet(%d)", ordinal);
  if (ordinal != 0)
    return INVALID_DEVICE;
  *device = 0;
  return SUCCESS;
}

CUresult cuDeviceGetAttribute(int *value, int attribute, int device) {
  ENTER("cuDeviceGetAttribute", 0);
  (void)device;
  if (attribute != 97) // MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
    return NOT_SUPPORTED;
  *value = 227 * 1024;
  return SUCCESS;
}

CUresult cuDevicePrimaryCtxRetain(void **context, int device) {
  ENTER("cuDevicePrimaryCtxRetain", 0);
  trace("cuDevicePrimaryCtxRetain(%d)", device);
  *context = &theContext;
  return SUCCESS;
}

CUresult cuCtxGetCurrent(void **context) {
  ENTER("cuCtxGetCurrent", 0);
  *context = contextCurrent ? &theContext : NULL;
  return SUCCESS;
}

CUresult cuCtxSetCurrent(void *context) {
  ENTER("cuCtxSetCurrent", 0);
  trace("cuCtxSetCurrent");
  contextCurrent = context == &theContext;
  return SUCCESS;
}

//===----------------------------------------------------------------------===//
// Modules and launches
//===----------------------------------------------------------------------===//

typedef struct {
  char *image; // NUL-terminated copy
} FakeModule;

typedef struct {
  char name[64];
} FakeFunction;

static CUresult loadModule(void **module, const void *image) {
  const char *text = image;
  if (!strstr(text, ".entry"))
    return INVALID_IMAGE;
  FakeModule *m = malloc(sizeof *m);
  m->image = strdup(text);
  *module = m;
  return SUCCESS;
}

CUresult cuModuleLoadData(void **module, const void *image) {
  ENTER("cuModuleLoadData", 1);
  trace("cuModuleLoadData(%zu bytes of text)", strlen(image));
  return loadModule(module, image);
}

CUresult cuModuleLoadDataEx(void **module, const void *image,
                            unsigned numOptions, int *options, void **values) {
  ENTER("cuModuleLoadDataEx", 1);
  long optLevel = -1;
  for (unsigned i = 0; i < numOptions; ++i)
    if (options[i] == 7) // CU_JIT_OPTIMIZATION_LEVEL
      optLevel = (long)(intptr_t)values[i];
  trace("cuModuleLoadDataEx(%zu bytes of text, %u options, O%ld)",
        strlen(image), numOptions, optLevel);
  return loadModule(module, image);
}

CUresult cuModuleUnload(void *module) {
  ENTER("cuModuleUnload", 1);
  trace("cuModuleUnload");
  FakeModule *m = module;
  free(m->image);
  free(m);
  return SUCCESS;
}

CUresult cuModuleGetFunction(void **function, void *module, const char *name) {
  ENTER("cuModuleGetFunction", 1);
  trace("cuModuleGetFunction(%s)", name);
  char entry[96];
  snprintf(entry, sizeof entry, ".entry %s(", name);
  if (!strstr(((FakeModule *)module)->image, entry) ||
      strlen(name) >= sizeof(((FakeFunction *)0)->name))
    return NOT_FOUND;
  FakeFunction *f = malloc(sizeof *f);
  strcpy(f->name, name);
  *function = f; // leaked, like the driver's, until the module goes
  return SUCCESS;
}

CUresult cuFuncSetAttribute(void *function, int attribute, int value) {
  ENTER("cuFuncSetAttribute", 1);
  trace("cuFuncSetAttribute(%s, %d, %d)", ((FakeFunction *)function)->name,
        attribute, value);
  return SUCCESS;
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

enum { kMaxAllocations = 256 };
static struct {
  char *base;
  size_t bytes;
} allocations[kMaxAllocations];

static int isDevice(const void *pointer, size_t bytes) {
  const char *p = pointer;
  for (int i = 0; i < kMaxAllocations; ++i)
    if (allocations[i].base && p >= allocations[i].base &&
        p + bytes <= allocations[i].base + allocations[i].bytes)
      return 1;
  return 0;
}

static CUresult allocate(CUdeviceptr *pointer, size_t bytes) {
  if (bytes == 0)
    return INVALID_VALUE;
  for (int i = 0; i < kMaxAllocations; ++i)
    if (!allocations[i].base) {
      allocations[i].base = malloc(bytes);
      allocations[i].bytes = bytes;
      *pointer = (CUdeviceptr)(uintptr_t)allocations[i].base;
      return SUCCESS;
    }
  return INVALID_VALUE;
}

CUresult cuMemAlloc_v2(CUdeviceptr *pointer, size_t bytes) {
  ENTER("cuMemAlloc_v2", 1);
  trace("cuMemAlloc_v2(%zu)", bytes);
  return allocate(pointer, bytes);
}

CUresult cuMemAllocManaged(CUdeviceptr *pointer, size_t bytes, unsigned flags) {
  ENTER("cuMemAllocManaged", 1);
  trace("cuMemAllocManaged(%zu, %u)", bytes, flags);
  return allocate(pointer, bytes);
}

CUresult cuMemFree_v2(CUdeviceptr pointer) {
  ENTER("cuMemFree_v2", 1);
  trace("cuMemFree_v2");
  for (int i = 0; i < kMaxAllocations; ++i)
    if (allocations[i].base == (char *)(uintptr_t)pointer) {
      free(allocations[i].base);
      allocations[i].base = NULL;
      return SUCCESS;
    }
  return INVALID_VALUE;
}

CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                       void *stream) {
  ENTER("cuMemcpyAsync", 1);
  void *d = (void *)(uintptr_t)dst, *s = (void *)(uintptr_t)src;
  trace("cuMemcpyAsync(%zu bytes, %s to %s, %s)", bytes,
        isDevice(s, bytes) ? "device" : "host",
        isDevice(d, bytes) ? "device" : "host",
        stream ? "stream" : "default stream");
  CHECK_HANDLE("cuMemcpyAsync", stream, STREAM);
  memcpy(d, s, bytes);
  return SUCCESS;
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t bytes) {
  ENTER("cuMemcpyHtoD_v2", 1);
  void *d = (void *)(uintptr_t)dst;
  trace("cuMemcpyHtoD_v2(%zu bytes, to %s)", bytes,
        isDevice(d, bytes) ? "device" : "host");
  if (!isDevice(d, bytes))
    return INVALID_VALUE;
  memcpy(d, src, bytes);
  return SUCCESS;
}

/// Records what a TMA descriptor would describe; the "descriptor" holds
/// the global address and the rank.
CUresult cuTensorMapEncodeTiled(void *tensorMap, int dataType, unsigned rank,
                                void *globalAddress, const uint64_t *globalDim,
                                const uint64_t *globalStrides,
                                const unsigned *boxDim,
                                const unsigned *elementStrides, int interleave,
                                int swizzle, int l2Promotion, int oobFill) {
  ENTER("cuTensorMapEncodeTiled", 1);
  char dims[128] = "", strides[128] = "", boxes[128] = "";
  for (unsigned i = 0; i < rank; ++i) {
    snprintf(dims + strlen(dims), sizeof dims - strlen(dims), "%s%llu",
             i ? "," : "", (unsigned long long)globalDim[i]);
    snprintf(boxes + strlen(boxes), sizeof boxes - strlen(boxes), "%s%u/%u",
             i ? "," : "", boxDim[i], elementStrides[i]);
    if (i + 1 < rank)
      snprintf(strides + strlen(strides), sizeof strides - strlen(strides),
               "%s%llu", i ? "," : "", (unsigned long long)globalStrides[i]);
  }
  trace("cuTensorMapEncodeTiled(type %d, rank %u, address %s, dims [%s], "
        "strides [%s] bytes, box/stride [%s], interleave %d, swizzle %d, "
        "l2 %d, oob %d)",
        dataType, rank, isDevice(globalAddress, 1) ? "device" : "host", dims,
        strides, boxes, interleave, swizzle, l2Promotion, oobFill);
  memset(tensorMap, 0, 128);
  memcpy(tensorMap, &globalAddress, sizeof globalAddress);
  memcpy((char *)tensorMap + 8, &rank, sizeof rank);
  return SUCCESS;
}

CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned value, size_t count,
                          void *stream) {
  ENTER("cuMemsetD32Async", 1);
  CHECK_HANDLE("cuMemsetD32Async", stream, STREAM);
  if (!isDevice((void *)(uintptr_t)dst, count * 4))
    return ILLEGAL_ADDRESS;
  for (size_t i = 0; i < count; ++i)
    memcpy((char *)(uintptr_t)dst + 4 * i, &value, 4);
  return SUCCESS;
}

CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short value, size_t count,
                          void *stream) {
  ENTER("cuMemsetD16Async", 1);
  CHECK_HANDLE("cuMemsetD16Async", stream, STREAM);
  if (!isDevice((void *)(uintptr_t)dst, count * 2))
    return ILLEGAL_ADDRESS;
  for (size_t i = 0; i < count; ++i)
    memcpy((char *)(uintptr_t)dst + 2 * i, &value, 2);
  return SUCCESS;
}

CUresult cuMemHostRegister_v2(void *pointer, size_t bytes, unsigned flags) {
  ENTER("cuMemHostRegister_v2", 1);
  (void)pointer;
  trace("cuMemHostRegister_v2(%zu, %u)", bytes, flags);
  return SUCCESS;
}

CUresult cuMemHostUnregister(void *pointer) {
  ENTER("cuMemHostUnregister", 1);
  (void)pointer;
  trace("cuMemHostUnregister");
  return SUCCESS;
}

//===----------------------------------------------------------------------===//
// The vadd kernel, on the CPU
//===----------------------------------------------------------------------===//

/// The parameters of a memref<?xf32> in the kernel ABI: allocated pointer,
/// aligned pointer, offset, size, stride.
typedef struct {
  float *aligned;
  int64_t offset, size, stride;
} MemRefParam;

static MemRefParam memrefParam(void **params, int first) {
  MemRefParam m;
  m.aligned = *(float **)params[first + 1];
  m.offset = *(int64_t *)params[first + 2];
  m.size = *(int64_t *)params[first + 3];
  m.stride = *(int64_t *)params[first + 4];
  return m;
}

CUresult cuLaunchKernel(void *function, unsigned gridX, unsigned gridY,
                        unsigned gridZ, unsigned blockX, unsigned blockY,
                        unsigned blockZ, unsigned smem, void *stream,
                        void **params, void **extra) {
  ENTER("cuLaunchKernel", 1);
  const char *name = ((FakeFunction *)function)->name;
  trace("cuLaunchKernel(%s, grid=(%u,%u,%u), block=(%u,%u,%u), smem=%u, %s)",
        name, gridX, gridY, gridZ, blockX, blockY, blockZ, smem,
        stream ? "stream" : "default stream");
  CHECK_HANDLE("cuLaunchKernel", stream, STREAM);
  if (extra || !params || strcmp(name, "vadd"))
    return NOT_SUPPORTED;
  MemRefParam a = memrefParam(params, 0), b = memrefParam(params, 5),
              c = memrefParam(params, 10);
  int64_t n = *(int64_t *)params[15];
  if (!isDevice(a.aligned + a.offset, (size_t)a.size * 4) ||
      !isDevice(b.aligned + b.offset, (size_t)b.size * 4) ||
      !isDevice(c.aligned + c.offset, (size_t)c.size * 4))
    return ILLEGAL_ADDRESS;
  uint64_t threads = (uint64_t)gridX * gridY * gridZ * blockX * blockY * blockZ;
  for (uint64_t i = 0; i < threads && (int64_t)i < n; ++i)
    c.aligned[c.offset + i * c.stride] =
        a.aligned[a.offset + i * a.stride] + b.aligned[b.offset + i * b.stride];
  return SUCCESS;
}

//===----------------------------------------------------------------------===//
// Streams and events (everything above ran synchronously)
//===----------------------------------------------------------------------===//

CUresult cuStreamCreate(void **stream, unsigned flags) {
  ENTER("cuStreamCreate", 1);
  trace("cuStreamCreate(%u)", flags);
  *stream = newHandle(STREAM);
  return SUCCESS;
}

CUresult cuStreamDestroy_v2(void *stream) {
  ENTER("cuStreamDestroy_v2", 1);
  trace("cuStreamDestroy_v2");
  CHECK_HANDLE("cuStreamDestroy_v2", stream, STREAM);
  if (stream)
    ((FakeHandle *)stream)->live = 0;
  return SUCCESS;
}

CUresult cuStreamSynchronize(void *stream) {
  ENTER("cuStreamSynchronize", 1);
  trace("cuStreamSynchronize");
  CHECK_HANDLE("cuStreamSynchronize", stream, STREAM);
  return SUCCESS;
}

CUresult cuStreamWaitEvent(void *stream, void *event, unsigned flags) {
  ENTER("cuStreamWaitEvent", 1);
  (void)flags;
  trace("cuStreamWaitEvent");
  CHECK_HANDLE("cuStreamWaitEvent", stream, STREAM);
  CHECK_HANDLE("cuStreamWaitEvent", event, EVENT);
  return SUCCESS;
}

CUresult cuEventCreate(void **event, unsigned flags) {
  ENTER("cuEventCreate", 1);
  trace("cuEventCreate(%u)", flags);
  *event = newHandle(EVENT);
  return SUCCESS;
}

CUresult cuEventDestroy_v2(void *event) {
  ENTER("cuEventDestroy_v2", 1);
  CHECK_HANDLE("cuEventDestroy_v2", event, EVENT);
  ((FakeHandle *)event)->live = 0;
  return SUCCESS;
}

CUresult cuEventSynchronize(void *event) {
  ENTER("cuEventSynchronize", 1);
  CHECK_HANDLE("cuEventSynchronize", event, EVENT);
  return SUCCESS;
}

CUresult cuEventRecord(void *event, void *stream) {
  ENTER("cuEventRecord", 1);
  CHECK_HANDLE("cuEventRecord", event, EVENT);
  CHECK_HANDLE("cuEventRecord", stream, STREAM);
  return SUCCESS;
}
