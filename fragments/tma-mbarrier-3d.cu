//! name: tma-mbarrier-3d
//! language: cuda
//! does: The attention kernel's compact TMA and mbarrier primitives: a shared-space address, mbarrier init, arrive.expect_tx, arrive, a parity wait loop, and a 3-D tile load (cp.async.bulk.tensor.3d, coordinates innermost first: {column, row, batch*head}) completing on an mbarrier
//! chips: sm_90a
//! ptx: 8.0
//! needs: a tensor map argument by value: `struct alignas(64) TensorMap { unsigned long long opaque[16]; };` and a parameter `const __grid_constant__ TensorMap tmQ` after the memref parameters, asked for in the launch block's "tensor_maps" (its box, "swizzle": "128B"); the map pointer passed here is &tmQ; a 3-D map with dims {D, S, BH} innermost first and box {64, 128, 1} (the launch block lists the box outer first: [1, 128, 64]); dst 1024-byte aligned for the 128B swizzle; one thread initialises the barriers, then fence.mbarrier_init.release.cluster, fence.proxy.async.shared::cta and __syncthreads (written inline in this proof); no hang guard: a broken pipeline waits until the runner's watchdog
//! requires: nothing
//! ops: attention, matmul, mma, tma, async, copy, shared
//! reads: bar, count, bytes, parity, dst, map, c0 (column), c1 (row), c2 (batch*head)
//! writes: the barrier; the box at dst, asynchronously
//! defines: smem_u32, mbar_init, mbar_expect_tx, mbar_arrive, mbar_wait, tma_load_3d
//! adapt: a D = 128 row is two boxes (columns 0-63 and 64-127) at dst + c * rows * 128, both counted in one expect_tx; 2-D: tma-mbarrier-2d; 4-D, 5-D: .4d, .5d with more coordinates
//! proof: attn_fwd_d64 (fragments/proofs/attn_fwd_d64.txt, lines 210-243)
__device__ __forceinline__ unsigned smem_u32(const void* p) {
  return (unsigned)__cvta_generic_to_shared(p);
}
__device__ __forceinline__ void mbar_init(unsigned bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_expect_tx(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_arrive(unsigned bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
// Wait until the phase with the given parity has completed.
__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity) {
  unsigned done;
  do {
    asm volatile(
        "{\n.reg .pred p;\n"
        "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
  } while (!done);
}
// 3-D tiled TMA load into shared memory, completion counted on bar.
__device__ __forceinline__ void tma_load_3d(unsigned dst, const TensorMap* map, unsigned bar, int c0, int c1,
                                            int c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];" ::"r"(
          dst),
      "l"(reinterpret_cast<unsigned long long>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(bar)
      : "memory");
}
