//===- LLMGenEnums.td - Enumerated settings of llmgen ------*- tablegen -*-===//
//
// The enumerations of `#llmgen.target` that only the dialect knows. The
// settings the pipeline reads are plain enums of their libraries
// (llmptx/Pipeline/SettingEnums.h, llmptx/LLM/CacheMode.h), so each has one
// spelling outside MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_DIALECT_LLMGEN_IR_LLMGENENUMS_TD
#define LLMPTX_DIALECT_LLMGEN_IR_LLMGENENUMS_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def LLMGen_Slot : I32EnumAttr<"Slot",
    "which of the two objects of a module a target produces", [
    I32EnumAttrCase<"Selected", 0, "selected">,
    I32EnumAttrCase<"Alternate", 1, "alternate">]> {
  let cppNamespace = "::llmptx::llmgen";
  let genSpecializedAttr = 0;
}

#endif // LLMPTX_DIALECT_LLMGEN_IR_LLMGENENUMS_TD
