//===- LLMGenDialect.cpp - The llmgen dialect -------------------*- C++ -*-===//
//
// Registers the dialect's attributes and promises the GPU target interface,
// whose implementation lives in the LLMPTXTarget library.
//
//===----------------------------------------------------------------------===//

#include "llmptx/Dialect/LLMGen/IR/LLMGenDialect.h"
#include "llmptx/Dialect/LLMGen/IR/LLMGenAttrs.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace llmptx::llmgen;

#include "llmptx/Dialect/LLMGen/IR/LLMGenDialect.cpp.inc"

void LLMGenDialect::initialize() {
  registerAttributes();
  // The serialization pulls in the NVVM target and the LLM pipeline, so it is
  // attached as an external model; promising it lets `gpu.module` verify its
  // target list without that library loaded.
  declarePromisedInterface<gpu::TargetAttrInterface, TargetAttr>();
}
