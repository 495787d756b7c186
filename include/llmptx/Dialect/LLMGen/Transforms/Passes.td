//===- Passes.td - llmgen passes ---------------------------*- tablegen -*-===//
//
// Passes of the llmgen dialect. The `llm-lower` pipeline (Passes.h) strings
// them together with the upstream lowering to NVVM.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_DIALECT_LLMGEN_TRANSFORMS_PASSES_TD
#define LLMPTX_DIALECT_LLMGEN_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

// The `#llmgen.target` settings, shared by the pass options of
// llmgen-attach-target. Enumerated settings reject unknown values when the
// option string is parsed.
defvar LLMGenTargetOptions = [
  Option<"moduleMatcher", "module", "std::string", /*default=*/[{""}],
         "Regex matching the names of the gpu.modules to target (empty: all)">,
  Option<"chip", "chip", "std::string", /*default=*/[{"sm_90"}],
         "Target chip (sm_XX)">,
  Option<"optLevel", "O", "unsigned", /*default=*/"3",
         "LLVM optimization level of the reference">,
  Option<"features", "features", "std::string", /*default=*/[{""}],
         "LLVM target features of the reference (e.g. +ptx80)">,
  Option<"fastFlag", "fast", "bool", /*default=*/"false",
         "Fast math in the reference (#nvvm.target flag)">,
  Option<"ftzFlag", "ftz", "bool", /*default=*/"false",
         "Flush denormals to zero in the reference (#nvvm.target flag)">,
  Option<"provider", "provider", "std::string", /*default=*/[{""}],
         "openai, anthropic, exec or replay (empty: $LLMPTX_PROVIDER)">,
  Option<"model", "model", "std::string", /*default=*/[{""}],
         "Model name (empty: $LLMPTX_MODEL)">,
  Option<"baseUrl", "base-url", "std::string", /*default=*/[{""}],
         "Provider base URL (empty: $LLMPTX_BASE_URL)">,
  Option<"execCommand", "exec-command", "std::string", /*default=*/[{""}],
         "Command of the exec provider (empty: $LLMPTX_EXEC_COMMAND)">,
  Option<"samples", "samples", "unsigned", /*default=*/"1",
         "Candidates asked for per kernel">,
  Option<"repairs", "repairs", "unsigned", /*default=*/"2",
         "Repair rounds per candidate">,
  Option<"rounds", "rounds", "int", /*default=*/"-1",
         "Optimization rounds after verification by execution (-1: 2 with "
         "mode=optimize, 0 with mode=translate)">,
  Option<"mode", "mode", "::llmptx::llmgen::Mode",
         /*default=*/"::llmptx::llmgen::Mode::Translate",
         "What the model is asked to do", [{::llvm::cl::values(
           clEnumValN(::llmptx::llmgen::Mode::Translate, "translate",
                      "Translate the gpu.func into PTX"),
           clEnumValN(::llmptx::llmgen::Mode::Optimize, "optimize",
                      "Improve on the reference PTX"))}]>,
  Option<"verification", "verify", "::llmptx::llmgen::VerifyLevel",
         /*default=*/"::llmptx::llmgen::VerifyLevel::Compile",
         "How far LLM kernels are checked", [{::llvm::cl::values(
           clEnumValN(::llmptx::llmgen::VerifyLevel::None, "none",
                      "Extraction only"),
           clEnumValN(::llmptx::llmgen::VerifyLevel::Compile, "compile",
                      "Lint, ABI check and a real compile"),
           clEnumValN(::llmptx::llmgen::VerifyLevel::Exec, "exec",
                      "Execution against the reference on a GPU"))}]>,
  Option<"select", "select", "::llmptx::llmgen::SelectPolicy",
         /*default=*/"::llmptx::llmgen::SelectPolicy::Auto",
         "Which object is selected", [{::llvm::cl::values(
           clEnumValN(::llmptx::llmgen::SelectPolicy::Auto, "auto",
                      "An LLM kernel only if verified by execution and not "
                      "slower"),
           clEnumValN(::llmptx::llmgen::SelectPolicy::LLM, "llm",
                      "The best LLM kernel at the highest level reached"),
           clEnumValN(::llmptx::llmgen::SelectPolicy::NVPTX, "nvptx",
                      "Always the reference"))}]>,
  Option<"strict", "strict", "bool", /*default=*/"false",
         "Fail instead of falling back to the reference">,
  Option<"cache", "cache", "::llmptx::llmgen::CacheMode",
         /*default=*/"::llmptx::llmgen::CacheMode::ReadWrite",
         "Response cache use", [{::llvm::cl::values(
           clEnumValN(::llmptx::llmgen::CacheMode::ReadWrite, "readwrite",
                      "Read and write the cache"),
           clEnumValN(::llmptx::llmgen::CacheMode::Read, "read",
                      "Read only"),
           clEnumValN(::llmptx::llmgen::CacheMode::Off, "off",
                      "No cache"))}]>,
  Option<"cacheDir", "cache-dir", "std::string", /*default=*/[{""}],
         "Cache directory (empty: $LLMPTX_CACHE_DIR or the user cache)">,
  Option<"runner", "runner", "std::string", /*default=*/[{""}],
         "Command that runs llmptx-runner (empty: $LLMPTX_RUNNER)">,
  Option<"report", "report", "std::string", /*default=*/[{""}],
         "Path of the JSON report">,
  Option<"emitBundles", "emit-bundles", "std::string", /*default=*/[{""}],
         "Directory for verification bundles">,
  Option<"jobs", "jobs", "unsigned", /*default=*/"0",
         "Model calls in flight (0: automatic)">,
  Option<"alternate", "alternate", "bool", /*default=*/"true",
         "Also attach the alternate slot, so the gpu.binary keeps both the "
         "selected object and the other one">
];

def LLMGenAttachTarget : Pass<"llmgen-attach-target", "mlir::ModuleOp"> {
  let summary = "Attach #llmgen.target to gpu.module ops";
  let description = [{
    Like `nvvm-attach-target`: appends `#llmgen.target` to the target list of
    every `gpu.module` whose name matches `module` (all when empty). With
    `alternate=true` (the default) it appends two targets, `slot = selected`
    and `slot = alternate`, so `gpu-module-to-binary` produces a `gpu.binary`
    holding the selected object at index 0 and the other one at index 1.
    Options equal to their defaults are left out of the attribute, so settings
    the user did not give come from the environment at serialization time.

    Before:
    ```mlir
    gpu.module @kernels {
      llvm.func @vadd(...) attributes {gpu.kernel, nvvm.kernel} { ... }
    }
    ```
    After `-llmgen-attach-target="provider=replay samples=2"`:
    ```mlir
    gpu.module @kernels [#llmgen.target<provider = "replay", samples = 2>,
                         #llmgen.target<provider = "replay", samples = 2,
                                        slot = alternate>] {
      ...
    }
    ```
  }];
  let dependentDialects = ["::llmptx::llmgen::LLMGenDialect"];
  let options = LLMGenTargetOptions;
}

def LLMGenRecordKernels : Pass<"llmgen-record-kernels", "mlir::ModuleOp"> {
  let summary = "Record each gpu.func kernel's source for the LLM prompt";
  let description = [{
    Lowering to NVVM turns `gpu.func` into `llvm.func`, losing the form the
    kernel author wrote. Run before the lowering, this pass records, for every
    kernel, in a dictionary on its `gpu.module` under `llmgen.kernels`:
    `source`, the MLIR text the prompt shows the model; `function_type`, the
    original signature (memref types and layouts), from which the ABI roles
    of the lowered parameters follow; and `access`, per argument `read`,
    `write`, `readwrite` or `none` for memrefs (`value` for scalars), which
    tells verification which buffers are outputs; and `align`, per argument
    the alignment in bytes the kernel states for its aligned pointer
    (`llvm.align` on the argument or `memref.assume_alignment`; 0 for none),
    the only alignment a candidate may rely on. Modules already recorded are
    left alone.

    Before:
    ```mlir
    gpu.module @kernels {
      gpu.func @vadd(%a: memref<?xf32>, ...) kernel { ... }
    }
    ```
    After:
    ```mlir
    gpu.module @kernels attributes {llmgen.kernels = {
        vadd = {access = ["read", "read", "write", "value"],
                align = array<i64: 16, 0, 0, 0>,
                function_type = (memref<?xf32>, ...) -> (),
                source = "gpu.func @vadd(%a: memref<?xf32>, ...) kernel {...}"}}} {
      gpu.func @vadd(%a: memref<?xf32>, ...) kernel { ... }
    }
    ```
  }];
}

def LLMGenSelectObject : Pass<"llmgen-select-object", "mlir::ModuleOp"> {
  let summary = "Select an object of each llmgen gpu.binary and launch its "
                "kernels as that object needs";
  let description = [{
    A kernel from the model may come with its own launch configuration
    (block size, and a grid computed from the problem sizes); it is selected
    only after verification by execution under that launch. The objects of a
    `gpu.binary` then need different launches: for each such kernel, every
    object records in its `llmgen.kernels` properties the `launch` it needs
    (`block`, `grid` as expressions of the sizes, and `sizes`: where each
    size is read at a launch, `array<i64: arg>` for a scalar argument or
    `array<i64: arg, dim>` for a memref dimension).

    This pass picks object `index` of every gpu.binary that llm-lower made
    (by setting `#gpu.select_object<index>`; `-1`, the default, keeps each
    binary's current selection, index 0 unless a handler says otherwise) and
    rewrites the block and grid operands of every `gpu.launch_func` of each
    kernel whose launch that object records: the sizes are read from the
    launch's own operands (`memref.dim`, `arith.index_cast`), the grid is
    computed with `arith` ops on `index` (floor division and modulo,
    `arith.ceildivsi`, `arith.minsi`/`maxsi`), the block is constant. Kernels
    whose objects record no launch are left as they are. `llm-lower` runs
    it with the default index; running it again with `index=1` switches a
    program to the other object for A/B, launches included.

    Before (object 0 records block 128 and grid ceildiv(N, 512)):
    ```mlir
    gpu.launch_func @kernels::@vadd blocks in (%g, %c1, %c1)
        threads in (%c256, %c1, %c1) args(%a : memref<?xf32>, ..., %n : index)
    ```
    After:
    ```mlir
    %c512 = arith.constant 512 : index
    %0 = arith.ceildivsi %n, %c512 : index
    %c128 = arith.constant 128 : index
    gpu.launch_func @kernels::@vadd blocks in (%0, %c1_0, %c1_1)
        threads in (%c128, %c1_2, %c1_3) args(%a : memref<?xf32>, ..., %n : index)
    ```
  }];
  let options = [
    Option<"index", "index", "int", /*default=*/"-1",
           "Object to select in every llmgen gpu.binary (-1: keep each "
           "binary's selection)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

#endif // LLMPTX_DIALECT_LLMGEN_TRANSFORMS_PASSES_TD
