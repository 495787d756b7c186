//===- DeviceSession.h - GPU work of a child process (private) -*- C++ -*-===//
//
// Runs inside a child process only: owns the primary context of one device,
// loads modules, allocates the guarded buffers of a plan, copies images and
// launches kernels. Every CUDA error comes back as a value; errors that
// poison the context ("sticky": illegal address, trap, ...) are marked so
// the child reports them and exits.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_LIB_RUNTIME_DEVICESESSION_H
#define LLMPTX_LIB_RUNTIME_DEVICESESSION_H

#include "CudaDriverApi.h"
#include "llmptx/Runtime/Plan.h"
#include "llmptx/Runtime/Results.h"
#include "llmptx/Runtime/TensorMap.h"
#include "llmptx/Runtime/Verdict.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llmptx::runtime {

/// The outcome of a CUDA operation that may fail.
struct DeviceStatus {
  Verdict verdict = Verdict::Pass;
  /// The context is unusable after this error.
  bool sticky = false;
  std::string details;
  bool ok() const { return verdict == Verdict::Pass; }
};

class DeviceSession {
public:
  static ValueOrError<std::unique_ptr<DeviceSession>>
  open(const std::string &library, int ordinal);
  ~DeviceSession();

  struct Kernel {
    cu::Module module = nullptr;
    cu::Function function = nullptr;
    /// Tensor maps built at each launch and passed after the plan's
    /// parameters (a candidate's; the reference has none).
    std::vector<TensorMapSpec> tensorMaps;
  };

  /// Loads PTX, finds `entry` and, when the driver can tell
  /// (cuFuncGetParamInfo), checks the parameter sizes. Failures are
  /// load-error with the JIT log in the details.
  DeviceStatus loadKernel(const std::string &ptx, const std::string &entry,
                          const std::vector<unsigned> &paramSizes,
                          Kernel &kernel);

  /// One allocation per buffer of a plan.
  struct BufferSet {
    std::vector<cu::DevicePtr> allocations;
    std::vector<uint64_t> bytes;
  };
  DeviceStatus allocate(const ShapePlan &plan, BufferSet &set);
  void release(BufferSet &set);

  DeviceStatus upload(const BufferSet &set,
                      const std::vector<std::vector<uint8_t>> &images);
  DeviceStatus download(const BufferSet &set,
                        std::vector<std::vector<uint8_t>> &images);

  /// Launches with the plan's parameters bound to `set`, then the kernel's
  /// tensor maps encoded over `set`'s buffers at the plan's layouts. With
  /// `synchronize`, waits and classifies execution errors.
  DeviceStatus launch(const Kernel &kernel, const LaunchDims &dims,
                      const ShapePlan &plan, const BufferSet &set,
                      cu::Stream stream = nullptr, bool synchronize = true);

  /// What the driver says about `kernel` (registers, local and static
  /// shared bytes, block limit) and its occupancy when launched with `dims`.
  /// A query that fails leaves its field absent; nothing here changes a
  /// verdict.
  KernelResources measureResources(const Kernel &kernel,
                                   const LaunchDims &dims);

  /// Classifies an error returned by a synchronising call.
  DeviceStatus executionError(cu::Result result, const std::string &what) const;

  const CudaDriverApi &api() const { return driver; }
  uint64_t l2Bytes() const { return l2; }

private:
  /// Fills `map` for `spec` over `set` at `plan`'s layout; the problem when
  /// the layout or the driver refuses it.
  std::optional<std::string> encodeTensorMap(const TensorMapSpec &spec,
                                             const ShapePlan &plan,
                                             const BufferSet &set,
                                             cu::TensorMap &map);

  DeviceSession() = default;
  CudaDriverApi driver;
  cu::Device device = 0;
  cu::Context context = nullptr;
  uint64_t l2 = 0;
  int maxThreadsPerSm = 0;
  std::vector<cu::Module> modules;
};

} // namespace llmptx::runtime

#endif // LLMPTX_LIB_RUNTIME_DEVICESESSION_H
