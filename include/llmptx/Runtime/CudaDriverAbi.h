//===- CudaDriverAbi.h - The CUDA driver types, without cuda.h --*- C++ -*-===//
//
// libcuda is never linked: the runner and the host runtime dlopen it, so
// they must build without the CUDA toolkit and start (and say "no GPU") on a
// machine without a driver. This header declares, once, the driver types,
// constants and structures they pass across that boundary, with the values
// of the driver ABI, which NVIDIA keeps stable. It never includes cuda.h;
// lib/Runtime/CudaDriverAbiCheck.cpp checks every declaration here against
// cuda.h whenever the build found it (LLMPTX_HAVE_CUDA_H).
//
// The names are cuda.h's without their prefix (CUresult -> cu::Result,
// CUDA_SUCCESS -> cu::SUCCESS, CU_FUNC_ATTRIBUTE_NUM_REGS ->
// cu::FUNC_ATTRIBUTE_NUM_REGS). LLVM-free: lib/HostRuntime links no LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_RUNTIME_CUDADRIVERABI_H
#define LLMPTX_RUNTIME_CUDADRIVERABI_H

// The driver's own tags (cuda.h declares the same), so that a handle here is
// the very type of cuda.h's handle.
struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUstream_st;
struct CUevent_st;

namespace llmptx::cu {

using Result = int;
using Device = int;
using DevicePtr = unsigned long long;
using Context = CUctx_st *;
using Module = CUmod_st *;
using Function = CUfunc_st *;
using Stream = CUstream_st *;
using Event = CUevent_st *;
using DeviceAttribute = int;
using FunctionAttribute = int;
using JitOption = int;

// Results.
constexpr Result SUCCESS = 0;
constexpr Result ERROR_DEINITIALIZED = 4;
constexpr Result ERROR_ILLEGAL_ADDRESS = 700;
constexpr Result ERROR_MISALIGNED_ADDRESS = 716;
constexpr Result ERROR_INVALID_ADDRESS_SPACE = 717;

// Flags of cuStreamCreate, cuEventCreate and cuMemAllocManaged.
constexpr unsigned STREAM_NON_BLOCKING = 0x1;
constexpr unsigned EVENT_DISABLE_TIMING = 0x2;
constexpr unsigned MEM_ATTACH_GLOBAL = 0x1;

// Device attributes.
constexpr DeviceAttribute DEVICE_ATTRIBUTE_CLOCK_RATE = 13;
constexpr DeviceAttribute DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr DeviceAttribute DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE = 36;
constexpr DeviceAttribute DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH = 37;
constexpr DeviceAttribute DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38;
constexpr DeviceAttribute DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR = 39;
constexpr DeviceAttribute DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr DeviceAttribute DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr DeviceAttribute DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN =
    97;

// Function attributes.
constexpr FunctionAttribute FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0;
constexpr FunctionAttribute FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1;
constexpr FunctionAttribute FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3;
constexpr FunctionAttribute FUNC_ATTRIBUTE_NUM_REGS = 4;
constexpr FunctionAttribute FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
constexpr FunctionAttribute FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED =
    14;

// Options of cuModuleLoadDataEx.
constexpr JitOption JIT_INFO_LOG_BUFFER = 3;
constexpr JitOption JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4;
constexpr JitOption JIT_ERROR_LOG_BUFFER = 5;
constexpr JitOption JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
constexpr JitOption JIT_OPTIMIZATION_LEVEL = 7;

// Attributes of cuLaunchKernelEx.
constexpr int LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4;

/// CUlaunchAttribute: an id padded to 8 bytes, then a 64-byte value union.
struct LaunchAttribute {
  int id;
  char pad[8 - sizeof(int)];
  union {
    char bytes[64];
    struct {
      unsigned x, y, z;
    } clusterDim;
  } value;
};

/// CUlaunchConfig, the argument of cuLaunchKernelEx.
struct LaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  Stream hStream;
  LaunchAttribute *attrs;
  unsigned numAttrs;
};

/// CUtensorMap, the opaque TMA descriptor cuTensorMapEncodeTiled fills.
struct alignas(128) TensorMap {
  unsigned long long opaque[16];
};
/// CUtensorMapDataType: the element types, numbered as cuda.h numbers them
/// (UINT8 = 0 ... TFLOAT32_FTZ = 12); their sizes in bytes.
constexpr int TENSOR_MAP_DATA_TYPE_COUNT = 13;
constexpr unsigned char kTensorMapElementBytes[TENSOR_MAP_DATA_TYPE_COUNT] = {
    1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};

} // namespace llmptx::cu

#endif // LLMPTX_RUNTIME_CUDADRIVERABI_H
