//===- LLMGenAttrs.td - llmgen attributes ------------------*- tablegen -*-===//
//
// `#llmgen.target` (a GPU target) and `#llmgen.harness` (verification facts
// stated by a kernel author).
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_DIALECT_LLMGEN_IR_LLMGENATTRS_TD
#define LLMPTX_DIALECT_LLMGEN_IR_LLMGENATTRS_TD

include "llmptx/Dialect/LLMGen/IR/LLMGenDialect.td"
include "llmptx/Dialect/LLMGen/IR/LLMGenSettings.td"
include "mlir/Dialect/GPU/IR/CompilationAttrInterfaces.td"
include "mlir/IR/AttrTypeBase.td"

class LLMGen_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<LLMGen_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

//===----------------------------------------------------------------------===//
// #llmgen.target
//===----------------------------------------------------------------------===//

def LLMGen_TargetAttr : LLMGen_Attr<"Target", "target",
    [DeclareAttrInterfaceMethods<GPUTargetAttrVerifyInterface>]> {
  let summary = "GPU target that asks an LLM for PTX, verified against NVPTX";
  let description = [{
    A GPU target attribute (it implements `gpu::TargetAttrInterface` through an
    external model registered by `registerLLMGenTargetInterfaceExternalModels`).
    Serializing a `gpu.module` with it builds the conventional NVVM/NVPTX
    object (the reference) and, when a provider is configured, LLM candidates
    for each kernel; the selection policy decides which object the slot gets.
    The created `#gpu.object` always carries `#nvvm.target` with the same
    chip, so everything downstream of `gpu-module-to-binary` is unchanged, and
    its properties carry `llmgen.source = "llm"` or `"nvptx"` plus provenance.

    Every parameter is optional. Settings left at their default are taken
    from the environment when the module is serialized (`LLMPTX_PROVIDER`,
    `LLMPTX_MODEL`, `LLMPTX_BASE_URL`, `LLMPTX_EXEC_COMMAND`, `LLMPTX_CACHE`,
    `LLMPTX_CACHE_DIR`, `LLMPTX_RUNNER`); with no provider at all the
    reference is used and a remark says so.

    A module that lists two targets, `slot = selected` then
    `slot = alternate`, gets a `gpu.binary` with both objects: index 0 is the
    one the policy selected, index 1 the other one (the best LLM candidate
    when the reference was selected, the reference otherwise), so a pipeline
    can A/B them with `#gpu.select_object<0>` / `<1>`. The work is done once:
    the alternate slot reuses what the selected slot computed.

    Example:
    ```mlir
    gpu.module @kernels [#llmgen.target<chip = "sm_90", provider = "openai",
                                        model = "gpt-5", samples = 4,
                                        verification = exec>] {
      ...
    }
    ```
  }];
  // One parameter per row of LLMGenSettings.td, in its order.
  let parameters = !dag(ins,
      !foreach(setting, LLMGen_TargetParameters, setting.parameter),
      !foreach(setting, LLMGen_TargetParameters, setting.name));
  let assemblyFormat = [{
    (`<` struct(params)^ `>`)?
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The `#nvvm.target` of the reference path: same chip, features, opt
    /// level, flags and link list.
    ::mlir::Attribute getReferenceTarget() const;
  }];
}

//===----------------------------------------------------------------------===//
// #llmgen.harness
//===----------------------------------------------------------------------===//

def LLMGen_HarnessAttr : LLMGen_Attr<"Harness", "harness"> {
  let summary = "problem sizes, launch grid and facts for verifying a kernel";
  let description = [{
    Put on a `gpu.func` kernel (as `llmgen.harness`) to tell the verifier how
    to run it when the module's host code does not say enough. Sizes are named
    symbols; expressions over them use integers, size names, `+ - * / %`
    (integer, floor division), parentheses, `ceildiv`, `min` and `max`.

    - `sizes`: the problem size names, e.g. `["M", "N"]`.
    - `shapes`: optional list of bindings to test, each a list of integers in
      the order of `sizes`; when absent a standard set is used (1, small
      primes, non-multiples of the block, a large size).
    - `args`: one entry per kernel argument. For a memref, its dynamic
      dimensions as a comma-separated list of expressions (`"M, N"`); for a
      scalar, its value as an expression or a float literal. Static memref
      dimensions need no entry (write `""`).
    - `grid`: three expressions for the grid size. The block size comes from
      `known_block_size` unless `block` is given.
    - `outputs`: optional indices of the arguments the kernel writes (default:
      inferred from the stores in the body).
    - `tolerance`: optional `{ulp = N, rel = R, abs = A}` for float outputs.
    - `facts`: optional facts a candidate may rely on, and the only ones:
      `align = A` (the aligned pointers of all memref arguments are A-byte
      aligned), `divisible = {N = 4}` (a size is a multiple), and
      `range = {arg1 = [0, 255]}` (the values an input argument holds).
      They are stated in the prompt, and verification tests exactly at their
      edge: pointers aligned to A and no more, sizes that are multiples of the
      divisor and no more, inputs that span the range (and no special
      values outside it).
    - `flops`: optional expression of the sizes giving the floating-point
      operations of one launch (e.g. `"2 * M * N * K"`), so measurements can
      say what fraction of the device's peak a kernel reaches. It is a
      measure, not a fact: nothing may rely on it.
    - `timing`: optional values of the sizes (in the order of `sizes`) at
      which speed is decided, the production shape. Without it the largest
      shape is scaled up (every size doubled, which keeps stated
      divisibility) until the reference's compulsory traffic reaches
      256 MiB or its `flops` 64 GFLOP, with its allocations within 4 GiB.
      Small shapes are for correctness; a decision taken at an 8 us kernel
      is a decision about launch overhead.

    Example:
    ```mlir
    gpu.func @saxpy(%x: memref<?xf32>, %y: memref<?xf32>, %a: f32, %n: index)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>,
          llmgen.harness = #llmgen.harness<sizes = ["N"],
              args = ["N", "N", "2.5", "N"],
              grid = ["ceildiv(N, 256)", "1", "1"]>}
    ```
  }];
  let parameters = (ins
    "::mlir::ArrayAttr":$sizes,
    OptionalParameter<"::mlir::ArrayAttr">:$shapes,
    OptionalParameter<"::mlir::ArrayAttr">:$args,
    OptionalParameter<"::mlir::ArrayAttr">:$grid,
    OptionalParameter<"::mlir::DenseI32ArrayAttr">:$block,
    OptionalParameter<"::mlir::DenseI32ArrayAttr">:$outputs,
    OptionalParameter<"::mlir::DictionaryAttr">:$tolerance,
    OptionalParameter<"::mlir::DictionaryAttr">:$facts,
    OptionalParameter<"::mlir::StringAttr">:$flops,
    OptionalParameter<"::mlir::ArrayAttr">:$timing
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // LLMPTX_DIALECT_LLMGEN_IR_LLMGENATTRS_TD
