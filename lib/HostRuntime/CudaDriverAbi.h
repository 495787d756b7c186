//===- CudaDriverAbi.h - CUDA driver types of the host runtime --*- C++ -*-===//
//
// The host runtime never links libcuda and must build without the CUDA
// toolkit, so it declares the few driver types, constants and structures it
// passes across the dlopen'ed boundary. The values are those of the driver
// ABI, which NVIDIA keeps stable; GpuRuntime.cpp checks them against cuda.h
// whenever the build found it (LLMPTX_HAVE_CUDA_H).
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_LIB_HOSTRUNTIME_CUDADRIVERABI_H
#define LLMPTX_LIB_HOSTRUNTIME_CUDADRIVERABI_H

#include <cstddef>
#include <cstdint>

namespace llmptx::hostruntime::cu {

using Result = int;
using Device = int;
using DevicePtr = unsigned long long;
using Context = struct CUctx_st *;
using Module = struct CUmod_st *;
using Function = struct CUfunc_st *;
using Stream = struct CUstream_st *;
using Event = struct CUevent_st *;
using JitOption = int;

constexpr Result SUCCESS = 0;
constexpr Result ERROR_DEINITIALIZED = 4;
constexpr Result ERROR_NO_DEVICE = 100;

constexpr unsigned STREAM_NON_BLOCKING = 0x1;
constexpr unsigned EVENT_DISABLE_TIMING = 0x2;
constexpr unsigned MEM_ATTACH_GLOBAL = 0x1;

constexpr int DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;
constexpr int FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
constexpr int FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14;
constexpr JitOption JIT_ERROR_LOG_BUFFER = 5;
constexpr JitOption JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
constexpr JitOption JIT_OPTIMIZATION_LEVEL = 7;
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

} // namespace llmptx::hostruntime::cu

#endif // LLMPTX_LIB_HOSTRUNTIME_CUDADRIVERABI_H
