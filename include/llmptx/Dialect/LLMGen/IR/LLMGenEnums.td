//===- LLMGenEnums.td - Enumerated settings of llmgen ------*- tablegen -*-===//
//
// The enumerations of `#llmgen.target` settings. The cache mode is the LLM
// library's own enum (llmptx/LLM/CacheMode.h), so there is one spelling of
// it; the others exist only here.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_DIALECT_LLMGEN_IR_LLMGENENUMS_TD
#define LLMPTX_DIALECT_LLMGEN_IR_LLMGENENUMS_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def LLMGen_Mode : I32EnumAttr<"Mode", "what the model is asked to do", [
    I32EnumAttrCase<"Translate", 0, "translate">,
    I32EnumAttrCase<"Optimize", 1, "optimize">]> {
  let cppNamespace = "::llmptx::llmgen";
  let genSpecializedAttr = 0;
}

def LLMGen_VerifyLevel : I32EnumAttr<"VerifyLevel",
    "how far an LLM kernel is checked before it may be selected", [
    I32EnumAttrCase<"None", 0, "none">,
    I32EnumAttrCase<"Compile", 1, "compile">,
    I32EnumAttrCase<"Exec", 2, "exec">]> {
  let cppNamespace = "::llmptx::llmgen";
  let genSpecializedAttr = 0;
}

def LLMGen_SelectPolicy : I32EnumAttr<"SelectPolicy",
    "which object a module gets", [
    I32EnumAttrCase<"Auto", 0, "auto">,
    I32EnumAttrCase<"LLM", 1, "llm">,
    I32EnumAttrCase<"NVPTX", 2, "nvptx">]> {
  let cppNamespace = "::llmptx::llmgen";
  let genSpecializedAttr = 0;
}

def LLMGen_Slot : I32EnumAttr<"Slot",
    "which of the two objects of a module a target produces", [
    I32EnumAttrCase<"Selected", 0, "selected">,
    I32EnumAttrCase<"Alternate", 1, "alternate">]> {
  let cppNamespace = "::llmptx::llmgen";
  let genSpecializedAttr = 0;
}

#endif // LLMPTX_DIALECT_LLMGEN_IR_LLMGENENUMS_TD
