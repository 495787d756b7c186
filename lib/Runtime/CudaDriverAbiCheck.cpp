//===- CudaDriverAbiCheck.cpp - CudaDriverAbi.h against cuda.h ------------===//
//
// Compiled only when the build found cuda.h (LLMPTX_HAVE_CUDA_H): every
// type, constant and structure of llmptx/Runtime/CudaDriverAbi.h must be
// the driver's, or the build stops here. Nothing else includes cuda.h.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_HAVE_CUDA_H
#error "CudaDriverAbiCheck.cpp is compiled only where cuda.h was found"
#endif

#include "llmptx/Runtime/CudaDriverAbi.h"

#include <cstddef>
#include <cuda.h>
#include <type_traits>

namespace cu = llmptx::cu;

static_assert(std::is_same_v<cu::Device, CUdevice> &&
                  std::is_same_v<cu::DevicePtr, CUdeviceptr> &&
                  std::is_same_v<cu::Context, CUcontext> &&
                  std::is_same_v<cu::Module, CUmodule> &&
                  std::is_same_v<cu::Function, CUfunction> &&
                  std::is_same_v<cu::Stream, CUstream> &&
                  std::is_same_v<cu::Event, CUevent>,
              "handle types differ from cuda.h");
// cuda.h's enums are passed as int through the dlsym'ed entry points.
static_assert(sizeof(cu::Result) == sizeof(CUresult) &&
                  sizeof(cu::DeviceAttribute) == sizeof(CUdevice_attribute) &&
                  sizeof(cu::FunctionAttribute) ==
                      sizeof(CUfunction_attribute) &&
                  sizeof(cu::JitOption) == sizeof(CUjit_option),
              "enum sizes differ from cuda.h");

static_assert(cu::SUCCESS == CUDA_SUCCESS &&
                  cu::ERROR_DEINITIALIZED == CUDA_ERROR_DEINITIALIZED &&
                  cu::ERROR_ILLEGAL_ADDRESS == CUDA_ERROR_ILLEGAL_ADDRESS &&
                  cu::ERROR_MISALIGNED_ADDRESS ==
                      CUDA_ERROR_MISALIGNED_ADDRESS &&
                  cu::ERROR_INVALID_ADDRESS_SPACE ==
                      CUDA_ERROR_INVALID_ADDRESS_SPACE,
              "error codes differ from cuda.h");

static_assert(cu::STREAM_NON_BLOCKING == CU_STREAM_NON_BLOCKING &&
                  cu::EVENT_DISABLE_TIMING == CU_EVENT_DISABLE_TIMING &&
                  cu::MEM_ATTACH_GLOBAL == CU_MEM_ATTACH_GLOBAL,
              "stream, event or managed-memory flags differ from cuda.h");

static_assert(cu::DEVICE_ATTRIBUTE_CLOCK_RATE ==
                      CU_DEVICE_ATTRIBUTE_CLOCK_RATE &&
                  cu::DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT ==
                      CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT &&
                  cu::DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE ==
                      CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE &&
                  cu::DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH ==
                      CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH &&
                  cu::DEVICE_ATTRIBUTE_L2_CACHE_SIZE ==
                      CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE &&
                  cu::DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR ==
                      CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR &&
                  cu::DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR ==
                      CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR &&
                  cu::DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR ==
                      CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR &&
                  cu::DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN ==
                      CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
              "device attribute numbers differ from cuda.h");

static_assert(cu::FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK ==
                      CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK &&
                  cu::FUNC_ATTRIBUTE_SHARED_SIZE_BYTES ==
                      CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES &&
                  cu::FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES ==
                      CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES &&
                  cu::FUNC_ATTRIBUTE_NUM_REGS == CU_FUNC_ATTRIBUTE_NUM_REGS &&
                  cu::FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES ==
                      CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES &&
                  cu::FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED ==
                      CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
              "function attribute numbers differ from cuda.h");

static_assert(cu::JIT_INFO_LOG_BUFFER == CU_JIT_INFO_LOG_BUFFER &&
                  cu::JIT_INFO_LOG_BUFFER_SIZE_BYTES ==
                      CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES &&
                  cu::JIT_ERROR_LOG_BUFFER == CU_JIT_ERROR_LOG_BUFFER &&
                  cu::JIT_ERROR_LOG_BUFFER_SIZE_BYTES ==
                      CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES &&
                  cu::JIT_OPTIMIZATION_LEVEL == CU_JIT_OPTIMIZATION_LEVEL,
              "JIT option numbers differ from cuda.h");

static_assert(cu::LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION ==
                  CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
              "launch attribute numbers differ from cuda.h");
static_assert(sizeof(cu::LaunchAttribute) == sizeof(CUlaunchAttribute) &&
                  offsetof(cu::LaunchAttribute, value) ==
                      offsetof(CUlaunchAttribute, value),
              "CUlaunchAttribute layout differs from cuda.h");
static_assert(sizeof(cu::LaunchConfig) == sizeof(CUlaunchConfig) &&
                  offsetof(cu::LaunchConfig, sharedMemBytes) ==
                      offsetof(CUlaunchConfig, sharedMemBytes) &&
                  offsetof(cu::LaunchConfig, hStream) ==
                      offsetof(CUlaunchConfig, hStream) &&
                  offsetof(cu::LaunchConfig, attrs) ==
                      offsetof(CUlaunchConfig, attrs) &&
                  offsetof(cu::LaunchConfig, numAttrs) ==
                      offsetof(CUlaunchConfig, numAttrs),
              "CUlaunchConfig layout differs from cuda.h");
static_assert(sizeof(cu::DevicePtr) == 8, "64-bit device pointers expected");
static_assert(sizeof(cu::TensorMap) == sizeof(CUtensorMap) &&
                  alignof(cu::TensorMap) == alignof(CUtensorMap),
              "CUtensorMap layout differs from cuda.h");
static_assert(CU_TENSOR_MAP_DATA_TYPE_UINT8 == 0 &&
                  CU_TENSOR_MAP_DATA_TYPE_FLOAT16 == 6 &&
                  CU_TENSOR_MAP_DATA_TYPE_FLOAT64 == 8 &&
                  CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 == 9 &&
                  CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ ==
                      cu::TENSOR_MAP_DATA_TYPE_COUNT - 1,
              "CUtensorMapDataType numbers differ from cuda.h");
