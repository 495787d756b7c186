//===- UniformGroupOps.cpp - Uniform group ops before outlining -*- C++ -*-===//
//
// Implements `llmgen-uniform-group-ops` (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "llmptx/Dialect/LLMGen/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace llmptx::llmgen {
#define GEN_PASS_DEF_LLMGENUNIFORMGROUPOPS
#include "llmptx/Dialect/LLMGen/Transforms/Passes.h.inc"
} // namespace llmptx::llmgen

using namespace mlir;

namespace {
struct UniformGroupOps
    : llmptx::llmgen::impl::LLMGenUniformGroupOpsBase<UniformGroupOps> {
  void runOnOperation() override {
    getOperation()->walk([](gpu::LaunchOp launch) {
      launch.getBody().walk([](Operation *op) {
        if (!isa<gpu::AllReduceOp, gpu::SubgroupReduceOp>(op))
          return;
        // The op's own folder decides (entry block of the launch) and, when
        // it can, sets `uniform` in place.
        SmallVector<OpFoldResult> folded;
        (void)op->fold(folded);
      });
    });
  }
};
} // namespace
