//===- HostAsync.cpp - Host gpu ops in gpu-to-llvm's async form -*- C++ -*-===//
//
// Implements `llmgen-host-async` (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "llmptx/Dialect/LLMGen/Transforms/Passes.h"

#include "mlir/Dialect/Async/IR/Async.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

namespace llmptx::llmgen {
#define GEN_PASS_DEF_LLMGENHOSTASYNC
#include "llmptx/Dialect/LLMGen/Transforms/Passes.h.inc"
} // namespace llmptx::llmgen

using namespace mlir;

namespace {

/// `%m, %t = gpu.alloc async [deps] host_shared (...)` becomes
/// `%j = gpu.wait async [deps]`, `gpu.wait [%j]`,
/// `%m = gpu.alloc host_shared (...)`, `%t = gpu.wait async`: a managed
/// allocation is synchronous anyway. The host waits on a stream of its own
/// (`gpu.wait [deps]` would destroy the streams of `deps`, which later ops
/// may still use).
void makeHostSharedSynchronous(gpu::AllocOp alloc) {
  OpBuilder builder(alloc);
  Location loc = alloc.getLoc();
  Type tokenType = gpu::AsyncTokenType::get(alloc.getContext());
  if (!alloc.getAsyncDependencies().empty()) {
    Value joined = gpu::WaitOp::create(builder, loc, tokenType,
                                       alloc.getAsyncDependencies())
                       .getAsyncToken();
    gpu::WaitOp::create(builder, loc, Type(), joined);
  }
  auto synchronous = gpu::AllocOp::create(
      builder, loc, alloc.getMemref().getType(), /*asyncToken=*/Type(),
      /*asyncDependencies=*/ValueRange(), alloc.getDynamicSizes(),
      alloc.getSymbolOperands(), /*hostShared=*/true);
  Value token =
      gpu::WaitOp::create(builder, loc, tokenType, ValueRange()).getAsyncToken();
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

/// The value gpu-to-llvm turns `token` into: an async op's token is the
/// stream of its first dependency, `gpu.wait async` makes a new stream, and
/// any other token (a block argument, a value loaded from an async.value) is
/// an event. Tokens with the same root are one stream (or one event).
Value streamRoot(Value token) {
  while (Operation *op = token.getDefiningOp()) {
    auto async = dyn_cast<gpu::AsyncOpInterface>(op);
    if (!async || isa<gpu::WaitOp>(op) || async.getAsyncDependencies().empty())
      break;
    token = async.getAsyncDependencies().front();
  }
  return token;
}

bool isStream(Value root) {
  auto wait = root.getDefiningOp<gpu::WaitOp>();
  return wait && wait.getAsyncToken() == root;
}

/// `gpu.wait [a, b]` synchronizes and destroys the stream (or event) of
/// each dependency: two on one stream would destroy it twice. Keeps the
/// first dependency of each root.
void dropAliasedDependencies(gpu::WaitOp wait) {
  llvm::SmallDenseSet<Value> roots;
  SmallVector<Value> kept;
  for (Value token : wait.getAsyncDependencies())
    if (roots.insert(streamRoot(token)).second)
      kept.push_back(token);
  wait.getAsyncDependenciesMutable().assign(kept);
}

/// A gpu token yielded by an async.execute region reaches other tasks as an
/// event (they wait for it with cuStreamWaitEvent and destroy it), but MLIR
/// 22's gpu-to-llvm yields the producer's stream instead (its structural
/// async.yield conversion wins over the one that records events). So each
/// yielded stream token becomes an event recorded on that stream here, one
/// per operand (each consumer destroys its own), and the stream is
/// destroyed once its work is recorded (the work still completes).
void yieldEvents(async::YieldOp yield) {
  OpBuilder builder(yield);
  Location loc = yield.getLoc();
  MLIRContext *context = yield.getContext();
  auto module = yield->getParentOfType<ModuleOp>();
  Type pointer = LLVM::LLVMPointerType::get(context);
  Type token = gpu::AsyncTokenType::get(context);
  auto declare = [&](StringRef name, Type result, ArrayRef<Type> arguments) {
    return LLVM::lookupOrCreateFn(builder, module, name, arguments, result);
  };
  auto create = declare("mgpuEventCreate", pointer, {});
  auto record = declare("mgpuEventRecord", LLVM::LLVMVoidType::get(context),
                        {pointer, pointer});
  auto destroy = declare("mgpuStreamDestroy", LLVM::LLVMVoidType::get(context),
                         {pointer});
  if (failed(create) || failed(record) || failed(destroy))
    return;
  auto cast = [&](Value value, Type to) {
    return UnrealizedConversionCastOp::create(builder, loc, to, value)
        .getResult(0);
  };
  SmallVector<Value> streams;
  llvm::SmallDenseSet<Value> seen;
  for (OpOperand &operand : yield->getOpOperands()) {
    if (!isa<gpu::AsyncTokenType>(operand.get().getType()) ||
        !isStream(streamRoot(operand.get())))
      continue;
    Value stream = cast(operand.get(), pointer);
    Value event = LLVM::CallOp::create(builder, loc, *create, ValueRange())
                      .getResult();
    LLVM::CallOp::create(builder, loc, *record, ValueRange{event, stream});
    if (seen.insert(streamRoot(operand.get())).second)
      streams.push_back(stream);
    operand.set(cast(event, token));
  }
  for (Value stream : streams)
    LLVM::CallOp::create(builder, loc, *destroy, stream);
}

struct HostAsync : llmptx::llmgen::impl::LLMGenHostAsyncBase<HostAsync> {
  void runOnOperation() override {
    SmallVector<gpu::AllocOp> shared;
    SmallVector<Operation *> joins;
    SmallVector<gpu::WaitOp> waits;
    SmallVector<async::YieldOp> yields;
    getOperation()->walk([&](Operation *op) {
      if (op->getParentOfType<gpu::GPUModuleOp>())
        return;
      if (auto wait = dyn_cast<gpu::WaitOp>(op);
          wait && !wait.getAsyncToken() &&
          wait.getAsyncDependencies().size() > 1) {
        waits.push_back(wait);
        return;
      }
      if (auto yield = dyn_cast<async::YieldOp>(op);
          yield && llvm::any_of(yield.getOperandTypes(),
                                llvm::IsaPred<gpu::AsyncTokenType>)) {
        yields.push_back(yield);
        return;
      }
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
    for (gpu::WaitOp wait : waits)
      dropAliasedDependencies(wait);
    for (async::YieldOp yield : yields)
      yieldEvents(yield);
  }
};
} // namespace
