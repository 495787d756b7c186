//===- KernelDescription.h - What the pipeline knows of a kernel -*- C++
//-*-===//
//
// Plain data describing one kernel of a gpu.module, extracted from the IR on
// the main thread so the generation and verification workers never touch
// MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_LIB_TARGET_KERNELDESCRIPTION_H
#define LLMPTX_LIB_TARGET_KERNELDESCRIPTION_H

#include "llmptx/PTX/AbiContract.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llmptx {

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
};

struct KernelDescription {
  std::string name;
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
  /// Facts the model may rely on, one per line (alignment, static shapes).
  std::vector<std::string> statedFacts;
  /// Launch facts spelled for the prompt.
  std::string launchFacts;
};

} // namespace llmptx

#endif // LLMPTX_LIB_TARGET_KERNELDESCRIPTION_H
