//===- Passes.td - llmgen passes ---------------------------*- tablegen -*-===//
//
// Passes of the llmgen dialect. The `llm-lower` pipeline (Passes.h) strings
// them together with the upstream lowering to NVVM.
//
//===----------------------------------------------------------------------===//

#ifndef LLMPTX_DIALECT_LLMGEN_TRANSFORMS_PASSES_TD
#define LLMPTX_DIALECT_LLMGEN_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

include "llmptx/Dialect/LLMGen/IR/LLMGenSettings.td"

// The options of a pass that attaches `#llmgen.target`: one per setting of
// LLMGenSettings.td that has a flag. Enumerated settings accept their
// spellings only (optionSpellings, LLMGenSettings.h).
defvar LLMGen_TargetOptions =
    !foreach(setting,
             !filter(setting, LLMGen_TargetSettings.all, !ne(setting.flag, "")),
             Option<setting.cppName, setting.flag, setting.optionType,
                    setting.optionDefault, setting.summary,
                    "::llmptx::llmgen::optionSpellings<" # setting.optionType #
                        ">()">);

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
  let options = !listconcat([
    Option<"moduleMatcher", "module", "std::string", /*default=*/[{""}],
           "Regex matching the names of the gpu.modules to target (empty: "
           "all)">], LLMGen_TargetOptions);
}

def LLMGenUniformGroupOps
    : Pass<"llmgen-uniform-group-ops", "mlir::ModuleOp"> {
  let summary = "Mark the group ops of gpu.launch bodies uniform before "
                "outlining";
  let description = [{
    `gpu.all_reduce` and `gpu.subgroup_reduce` lower to NVVM only when they
    are `uniform` (every thread of the group reaches them); their folders
    mark them so when they sit in the entry block of a `gpu.launch`, which
    outlining erases. `-gpu-lower-to-nvvm-pipeline` gets the fold from its
    first conversion, which runs on the whole module before outlining; this
    pass applies exactly those folders, to those ops only, so a program that
    pipeline accepts lowers here too and the host code is left as it is.
  }];
}

def LLMGenHostAsync : Pass<"llmgen-host-async", "mlir::ModuleOp"> {
  let summary = "Put host gpu ops in the async form gpu-to-llvm lowers";
  let description = [{
    MLIR 22's `gpu-to-llvm` lowers an async `gpu.launch_func`,
    `gpu.memcpy`, `gpu.memset`, `gpu.alloc` or `gpu.dealloc` only with at
    most one async dependency, and a `gpu.alloc host_shared` only in its
    synchronous form; programs written with explicit token chains, and
    `gpu-async-region` itself, make both. Run after `gpu-async-region`, this
    pass joins several dependencies with one `gpu.wait async [...]` (which
    lowers to events and stream waits), and turns an async host-shared
    allocation into `gpu.wait [deps]`, the synchronous allocation, and a
    fresh `gpu.wait async` token for its users. It also mends two of
    `gpu-to-llvm`'s stream lifetimes: a synchronous `gpu.wait` keeps one
    dependency per stream (it destroys the stream of each), and a gpu token
    that an `async.execute` region yields becomes an event recorded on its
    stream (`mgpuEventCreate`/`mgpuEventRecord` calls), which is what the
    consuming tasks wait for and destroy.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
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

    An object may also record `dynamic_shared_bytes` (set as the launch's
    dynamic shared memory; the launch's constant before the first rewrite is
    kept in `llmgen.shared_bytes` to restore it for an object without one)
    and `tensor_maps`: TMA descriptors its kernel takes by value after its
    arguments. Each is built by a private helper,
    `@__llmgen_tensor_map_<kernel>_<i>(memref) -> !llvm.array<16 x i64>`,
    that calls the host runtime's `mgpuTensorMapEncodeTiled` over the
    memref's aligned pointer plus offset, sizes and strides (innermost
    first, strides in bytes); the call is placed right after the memref's
    definition, so a buffer that stays the same across launches (a loop) is
    described once. The launch gets the maps as extra operands and
    `llmgen.tensor_maps = N`, so selecting another object drops them again.

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
                           "::mlir::memref::MemRefDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

#endif // LLMPTX_DIALECT_LLMGEN_TRANSFORMS_PASSES_TD
