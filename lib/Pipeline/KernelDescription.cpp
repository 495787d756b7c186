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
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llmptx;

std::string LaunchConfig::str() const {
  std::string text =
      llvm::formatv("grid ({0}), block ({1}, {2}, {3})", llvm::join(grid, ", "),
                    block[0], block[1], block[2])
          .str();
  if (dynamicSharedBytes)
    text += llvm::formatv(", {0} bytes of dynamic shared memory",
                          dynamicSharedBytes);
  for (const TensorMapRequest &map : tensorMaps)
    text +=
        llvm::formatv(", tensor map {0} over %arg{1}", map.spec.name, map.arg);
  return text;
}

llvm::json::Object LaunchConfig::toJson() const {
  llvm::json::Array gridJson, blockJson;
  for (unsigned i = 0; i < 3; ++i) {
    gridJson.push_back(grid[i]);
    blockJson.push_back(block[i]);
  }
  llvm::json::Object object{{"grid", std::move(gridJson)},
                            {"block", std::move(blockJson)}};
  if (dynamicSharedBytes)
    object["dynamic_shared_bytes"] = dynamicSharedBytes;
  if (!tensorMaps.empty()) {
    llvm::json::Array maps;
    for (const TensorMapRequest &map : tensorMaps) {
      llvm::json::Array box;
      for (uint32_t extent : map.spec.box)
        box.push_back(static_cast<int64_t>(extent));
      maps.push_back(llvm::json::Object{{"name", map.spec.name},
                                        {"arg", static_cast<int64_t>(map.arg)},
                                        {"box", std::move(box)},
                                        {"swizzle", map.spec.swizzle},
                                        {"interleave", map.spec.interleave},
                                        {"l2_promotion", map.spec.l2Promotion},
                                        {"oob_fill", map.spec.oobFill}});
    }
    object["tensor_maps"] = std::move(maps);
  }
  return object;
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

/// The CUDA type of an element in the runtime's spelling ("f16", "i32").
static llvm::StringRef cudaElementType(llvm::StringRef element) {
  return llvm::StringSwitch<llvm::StringRef>(element)
      .Case("f16", "__half")
      .Case("bf16", "__nv_bfloat16")
      .Case("f32", "float")
      .Case("f64", "double")
      .Case("i1", "unsigned char")
      .Case("i8", "signed char")
      .Case("i16", "short")
      .Case("i32", "int")
      .Case("i64", "long long")
      .Default("");
}

/// The CUDA type whose parameter NVRTC spells as `ptxType` of `bytes`, for
/// parameters whose argument is not described.
static std::string cudaTypeOfParam(const ptx::AbiParam &param) {
  llvm::StringRef type = param.ptxType;
  if (type == ".f32")
    return "float";
  if (type == ".f64")
    return "double";
  switch (param.sizeBytes) {
  case 1:
    return "unsigned char";
  case 2:
    return "unsigned short";
  case 4:
    return "int";
  default:
    return "long long";
  }
}

std::string llmptx::cudaPrototype(const KernelDescription &kernel) {
  std::vector<std::string> params;
  for (const ptx::AbiParam &param : kernel.abi.params) {
    const ArgumentInfo *arg = param.argIndex < kernel.args.size()
                                  ? &kernel.args[param.argIndex]
                                  : nullptr;
    std::string name = "arg" + std::to_string(param.argIndex);
    llvm::StringRef element =
        arg ? cudaElementType(arg->element) : llvm::StringRef();
    std::string pointer =
        (element.empty() ? std::string("void") : element.str()) + " *";
    switch (param.role) {
    case ptx::AbiRole::BarePointer:
    case ptx::AbiRole::MemrefAlignedPointer:
      params.push_back(pointer + name);
      break;
    case ptx::AbiRole::MemrefAllocatedPointer:
      params.push_back(pointer + name + "_allocated");
      break;
    case ptx::AbiRole::MemrefOffset:
      params.push_back("long long " + name + "_offset");
      break;
    case ptx::AbiRole::MemrefSize:
      params.push_back("long long " + name + "_size" +
                       std::to_string(param.dim));
      break;
    case ptx::AbiRole::MemrefStride:
      params.push_back("long long " + name + "_stride" +
                       std::to_string(param.dim));
      break;
    case ptx::AbiRole::TensorMap:
      params.push_back("const __grid_constant__ TensorMap tensor_map" +
                       std::to_string(params.size()));
      break;
    case ptx::AbiRole::Scalar:
      // i1 scalars travel as bytes; f16/bf16 as their CUDA types.
      params.push_back((element.empty() || element == "unsigned char"
                            ? cudaTypeOfParam(param)
                            : element.str()) +
                       " " + name);
      break;
    }
  }
  // The headers of the element types the prototype names come first.
  std::string text;
  for (const ArgumentInfo &arg : kernel.args) {
    const char *header = arg.element == "f16"    ? "<cuda_fp16.h>"
                         : arg.element == "bf16" ? "<cuda_bf16.h>"
                                                 : nullptr;
    std::string line = header ? "#include " + std::string(header) + "\n" : "";
    if (!line.empty() &&
        llvm::StringRef(text).find(line) == llvm::StringRef::npos)
      text += line;
  }
  text += "extern \"C\" __global__ void " + kernel.name + "(";
  for (auto [index, param] : llvm::enumerate(params))
    text += (index ? ",\n    " : "\n    ") + param;
  return text + ")";
}
