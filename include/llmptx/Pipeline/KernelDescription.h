//===- KernelDescription.h - What the pipeline knows of a kernel -*- C++
//-*-===//
//
// Plain data describing one kernel of a gpu.module, extracted from the IR on
// the main thread so the generation and verification workers never touch
// MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_PIPELINE_KERNELDESCRIPTION_H
#define LLMPTX_PIPELINE_KERNELDESCRIPTION_H

#include "llmptx/PTX/AbiContract.h"
#include "llmptx/Runtime/TensorMap.h"

#include "llvm/Support/JSON.h"

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace llmptx {
namespace ptx {
struct Function;
} // namespace ptx

/// One argument of the kernel as written (before lowering).
struct ArgumentInfo {
  bool isMemref = false;
  /// The MLIR type as printed: "memref<?xf32, strided<[?], offset: ?>>".
  std::string mlirType;
  /// Element type (memrefs) or the scalar's type, in the runtime's
  /// spelling: f16 bf16 f32 f64 i1 i8 i16 i32 i64 (index is i64).
  std::string element;
  /// Memrefs: static sizes, -1 for a dynamic dimension.
  std::vector<int64_t> shape;
  /// Memrefs: layout strides (-1 dynamic); empty for the identity layout.
  std::vector<int64_t> strides;
  /// Memrefs: layout offset, -1 when dynamic.
  int64_t offset = 0;
  /// Memrefs: "read", "write", "readwrite", "none" or "" when unknown.
  std::string access;
  /// Bytes of alignment the module states for the aligned pointer (0: only
  /// the element size is known).
  uint64_t alignment = 0;
};

/// The `#llmgen.harness` facts, as plain strings.
struct HarnessFacts {
  std::vector<std::string> sizes;
  std::vector<std::vector<int64_t>> shapes;
  std::vector<std::string> args; ///< One expression per argument ("" = none).
  std::array<std::string, 3> grid;
  bool hasGrid = false;
  std::array<int64_t, 3> block{0, 0, 0};
  std::vector<int64_t> outputs;
  std::optional<uint64_t> ulp;
  std::optional<double> rel, abs;
  uint64_t align = 0;
  /// facts.divisible: size name -> divisor.
  std::vector<std::pair<std::string, int64_t>> divisible;
  /// facts.range: argument index -> [lo, hi].
  std::vector<std::pair<unsigned, std::pair<double, double>>> ranges;
  /// Floating-point operations of one launch, an expression of the sizes
  /// ("" when not given); a measure for throughput, never a fact.
  std::string flops;
  /// The sizes speed is decided at, in the order of `sizes` (empty: scaled
  /// from the largest shape).
  std::vector<int64_t> timing;
};

/// A host launch whose operands are all constants.
struct ConstantLaunch {
  std::array<int64_t, 3> grid{1, 1, 1};
  std::array<int64_t, 3> block{1, 1, 1};
  int64_t dynamicSharedBytes = 0;
  /// Per kernel argument: the constant scalar value, or the static shape of
  /// the memref passed ("" when the argument is not a constant).
  std::vector<std::string> scalarValues;
  std::vector<std::vector<int64_t>> memrefShapes;

  bool operator==(const ConstantLaunch &other) const {
    return grid == other.grid && block == other.block &&
           dynamicSharedBytes == other.dynamicSharedBytes &&
           scalarValues == other.scalarValues &&
           memrefShapes == other.memrefShapes;
  }
};

/// A tensor map a candidate asks for over memref argument `arg`
/// (runtime/TensorMap.h; its `buffer` is left to the bundle).
struct TensorMapRequest {
  unsigned arg = 0;
  runtime::TensorMapSpec spec;
  bool operator==(const TensorMapRequest &other) const {
    const runtime::TensorMapSpec &a = spec, &b = other.spec;
    return arg == other.arg && a.name == b.name && a.box == b.box &&
           a.swizzle == b.swizzle && a.interleave == b.interleave &&
           a.l2Promotion == b.l2Promotion && a.oobFill == b.oobFill;
  }
};

/// A launch configuration: constant block dimensions and a grid of
/// expressions of the kernel's sizes, in the bundle expression language
/// (runtime/Expression.h); a candidate's may add dynamic shared memory and
/// tensor maps, passed after the memref parameters.
struct LaunchConfig {
  std::array<std::string, 3> grid{"1", "1", "1"};
  std::array<int64_t, 3> block{1, 1, 1};
  int64_t dynamicSharedBytes = 0;
  std::vector<TensorMapRequest> tensorMaps;

  bool operator==(const LaunchConfig &other) const {
    return grid == other.grid && block == other.block &&
           dynamicSharedBytes == other.dynamicSharedBytes &&
           tensorMaps == other.tensorMaps;
  }
  bool operator!=(const LaunchConfig &other) const { return !(*this == other); }
  /// "grid (ceildiv(N, 256), 1, 1), block (256, 1, 1)".
  std::string str() const;
  /// {"block": [256, 1, 1], "grid": ["ceildiv(N, 256)", "1", "1"]}: the
  /// launch block of an answer, and of a candidate in the report.
  llvm::json::Object toJson() const;
};

/// Where the host code reads a size at every launch of the kernel: a scalar
/// argument, or one dimension of a memref argument.
struct SizeSource {
  std::string size;
  unsigned argIndex = 0;
  int64_t dim = -1; ///< -1: the scalar argument itself.
};

/// Whether a candidate may bring its own launch configuration. It may when
/// the module holds every launch of the kernel, each launch can be rebuilt
/// from the sizes, and verification by execution will check the candidate
/// under its launch against the reference under the original one.
struct LaunchFreedom {
  bool allowed = false;
  /// Why not (empty when allowed).
  std::string reason;
  /// The launch the reference is verified under, which every host launch
  /// was checked to match.
  LaunchConfig original;
  /// The sizes a grid may use and where each can be read at a launch (a
  /// size the harness gives several arguments has several sources; the
  /// first one is where rewritten launches read it).
  std::vector<SizeSource> sources;
  /// The shapes verification tests (where a proposed grid is evaluated).
  std::vector<std::map<std::string, int64_t>> shapes;
  /// Host launches found.
  unsigned launches = 0;
};

struct KernelDescription {
  std::string name;
  /// The PTX module holding the kernel's reference entry (a gpu.module's
  /// whole reference build; for an IREE dispatch, IREE's own PTX).
  std::string referencePtx;
  /// What the reports and bundles call the reference: "nvptx", "iree".
  std::string referenceKind = "nvptx";
  /// The kernel as written (llmgen-record-kernels), else the lowered
  /// llvm.func.
  std::string source;
  bool sourceIsLowered = false;
  /// `llmgen.spec` of the kernel.
  std::string intent;
  /// Arguments as written; empty when the signature was not recorded.
  std::vector<ArgumentInfo> args;
  bool barePointers = false;
  /// The lowered ABI: parameter types from the reference PTX, roles from the
  /// recorded signature.
  ptx::AbiContract abi;
  /// known_block_size / known_grid_size (0 when unknown).
  std::array<int64_t, 3> blockSize{0, 0, 0};
  std::array<int64_t, 3> gridSize{0, 0, 0};
  std::optional<HarnessFacts> harness;
  std::optional<ConstantLaunch> hostLaunch;
  /// Without a constant host launch: which fact the host code lacks.
  std::string hostLaunchMissing;
  /// Facts the model may rely on, one per line (alignment, static shapes).
  std::vector<std::string> statedFacts;
  /// Launch facts spelled for the prompt.
  std::string launchFacts;
  LaunchFreedom launch;
};

/// Roles of the lowered parameters, in order, for `args`: memrefs as bare
/// pointers or as memref descriptors, everything else a scalar.
std::vector<ptx::AbiParam> abiRolesFor(const std::vector<ArgumentInfo> &args,
                                       bool barePointers);

/// `kernel.abi` from its reference `entry`: the parameter types from the
/// entry, the roles from `roles` (one per parameter; empty: each parameter
/// a scalar of its own).
void setAbiFromEntry(KernelDescription &kernel, const ptx::Function &entry,
                     const std::vector<ptx::AbiParam> &roles);

/// The kernel's entry as the `extern "C" __global__` prototype a CUDA C++
/// candidate defines: one parameter per .param of the ABI, in order, named
/// after the argument and its role (arg0_allocated, arg0, arg0_offset,
/// arg0_size0, arg0_stride0, arg3), typed so that NVRTC gives each the
/// contract's size and alignment; preceded by the includes of the f16/bf16
/// types it names.
std::string cudaPrototype(const KernelDescription &kernel);

} // namespace llmptx

#endif // LLMPTX_PIPELINE_KERNELDESCRIPTION_H
