//===- HostAsync.cpp - Host gpu ops in gpu-to-llvm's async form -*- C++ -*-===//
//
// Implements `llmgen-host-async` (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "llmptx/Dialect/LLMGen/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"

namespace llmptx::llmgen {
#define GEN_PASS_DEF_LLMGENHOSTASYNC
#include "llmptx/Dialect/LLMGen/Transforms/Passes.h.inc"
} // namespace llmptx::llmgen

using namespace mlir;

namespace {

/// `%m, %t = gpu.alloc async [deps] host_shared (...)` becomes
/// `gpu.wait [deps]`, `%m = gpu.alloc host_shared (...)`,
/// `%t = gpu.wait async`: a managed allocation is synchronous anyway.
void makeHostSharedSynchronous(gpu::AllocOp alloc) {
  OpBuilder builder(alloc);
  Location loc = alloc.getLoc();
  if (!alloc.getAsyncDependencies().empty())
    gpu::WaitOp::create(builder, loc, Type(), alloc.getAsyncDependencies());
  auto synchronous = gpu::AllocOp::create(
      builder, loc, alloc.getMemref().getType(), /*asyncToken=*/Type(),
      /*asyncDependencies=*/ValueRange(), alloc.getDynamicSizes(),
      alloc.getSymbolOperands(), /*hostShared=*/true);
  Value token = gpu::WaitOp::create(builder, loc,
                                    gpu::AsyncTokenType::get(alloc.getContext()),
                                    ValueRange())
                    .getAsyncToken();
  alloc.getMemref().replaceAllUsesWith(synchronous.getMemref());
  alloc.getAsyncToken().replaceAllUsesWith(token);
  alloc.erase();
}

/// Several async dependencies of `op` (one of the ops gpu-to-llvm lowers)
/// become one: `gpu.wait async [deps]`.
template <typename Op> void joinDependencies(Op op) {
  OpBuilder builder(op);
  SmallVector<Value> dependencies(op.getAsyncDependencies());
  Value joined =
      gpu::WaitOp::create(builder, op.getLoc(),
                          gpu::AsyncTokenType::get(op.getContext()),
                          dependencies)
          .getAsyncToken();
  op.getAsyncDependenciesMutable().assign(joined);
}

struct HostAsync : llmptx::llmgen::impl::LLMGenHostAsyncBase<HostAsync> {
  void runOnOperation() override {
    SmallVector<gpu::AllocOp> shared;
    SmallVector<Operation *> joins;
    getOperation()->walk([&](Operation *op) {
      if (op->getParentOfType<gpu::GPUModuleOp>())
        return;
      if (auto alloc = dyn_cast<gpu::AllocOp>(op);
          alloc && alloc.getHostShared() && alloc.getAsyncToken()) {
        shared.push_back(alloc);
        return;
      }
      auto async = dyn_cast<gpu::AsyncOpInterface>(op);
      if (async && async.getAsyncDependencies().size() > 1)
        joins.push_back(op);
    });
    for (gpu::AllocOp alloc : shared)
      makeHostSharedSynchronous(alloc);
    for (Operation *op : joins)
      llvm::TypeSwitch<Operation *>(op)
          .Case<gpu::LaunchFuncOp, gpu::MemcpyOp, gpu::MemsetOp, gpu::AllocOp,
                gpu::DeallocOp>([](auto typed) { joinDependencies(typed); });
  }
};
} // namespace
