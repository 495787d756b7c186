//===- KernelDescription.cpp - What the pipeline knows of a kernel -*- C++ -*-//
//
// The lowered ABI of a kernel from its arguments, and the spellings of a
// launch configuration, shared by every front end (MLIR, kernel sets).
//
//===----------------------------------------------------------------------===//

#include "llmptx/Pipeline/KernelDescription.h"

#include "llmptx/PTX/Module.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llmptx;

std::string LaunchConfig::str() const {
  return llvm::formatv("grid ({0}), block ({1}, {2}, {3})",
                       llvm::join(grid, ", "), block[0], block[1], block[2])
      .str();
}

llvm::json::Object LaunchConfig::toJson() const {
  llvm::json::Array gridJson, blockJson;
  for (unsigned i = 0; i < 3; ++i) {
    gridJson.push_back(grid[i]);
    blockJson.push_back(block[i]);
  }
  return llvm::json::Object{{"grid", std::move(gridJson)},
                            {"block", std::move(blockJson)}};
}

std::vector<ptx::AbiParam>
llmptx::abiRolesFor(const std::vector<ArgumentInfo> &args, bool barePointers) {
  std::vector<ptx::AbiParam> params;
  auto push = [&](ptx::AbiRole role, unsigned arg, unsigned dim) {
    ptx::AbiParam param;
    param.role = role;
    param.argIndex = arg;
    param.dim = dim;
    params.push_back(param);
  };
  for (auto [index, arg] : llvm::enumerate(args)) {
    if (!arg.isMemref) {
      push(ptx::AbiRole::Scalar, index, 0);
      continue;
    }
    if (barePointers) {
      push(ptx::AbiRole::BarePointer, index, 0);
      continue;
    }
    push(ptx::AbiRole::MemrefAllocatedPointer, index, 0);
    push(ptx::AbiRole::MemrefAlignedPointer, index, 0);
    push(ptx::AbiRole::MemrefOffset, index, 0);
    for (unsigned dim = 0; dim < arg.shape.size(); ++dim)
      push(ptx::AbiRole::MemrefSize, index, dim);
    for (unsigned dim = 0; dim < arg.shape.size(); ++dim)
      push(ptx::AbiRole::MemrefStride, index, dim);
  }
  return params;
}

void llmptx::setAbiFromEntry(KernelDescription &kernel,
                             const ptx::Function &entry,
                             const std::vector<ptx::AbiParam> &roles) {
  kernel.abi.entryName = kernel.name;
  kernel.abi.params.clear();
  for (auto [index, param] : llvm::enumerate(entry.params)) {
    ptx::AbiParam abi;
    if (!roles.empty()) {
      abi = roles[index];
    } else {
      abi.role = ptx::AbiRole::Scalar;
      abi.argIndex = index;
    }
    abi.ptxType = param.type.str();
    abi.sizeBytes = param.sizeBytes();
    abi.alignBytes = param.align ? param.align : abi.sizeBytes;
    kernel.abi.params.push_back(std::move(abi));
  }
}
