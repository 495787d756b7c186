//! name: tma-mbarrier-2d
//! language: cuda
//! does: The Hopper TMA and mbarrier primitives as inline-asm device functions: a shared-space address, mbarrier init and the fence that publishes it to the async proxy, arrive.expect_tx with a transaction byte count, a plain arrive, a parity wait (try_wait.parity; traps after 2^28 polls instead of hanging), a 2-D tile load (cp.async.bulk.tensor.2d ... mbarrier::complete_tx::bytes) and the tensor-map prefetch
//! chips: sm_90a
//! ptx: 8.0
//! needs: a tensor map argument by value: `struct alignas(64) TensorMap { unsigned long long opaque[16]; };` and a parameter `const __grid_constant__ TensorMap tmA` after the memref parameters, asked for in the launch block's "tensor_maps" (its box, "swizzle": "128B"); the map pointer passed here is &tmA; dst and bar are 32-bit shared-space addresses (smem_u32), dst 1024-byte aligned for the 128B swizzle, bar 8-byte aligned; one thread runs mbar_init for every barrier, then mbar_init_fence, then __syncthreads before any use; the expect_tx byte count is the bytes of every box that completes on that barrier in that phase (a box partly outside the tensor counts in full: TMA writes zeros there)
//! requires: nothing
//! ops: tma, async, copy, shared, matmul, mma
//! reads: bar, count (arrivals a phase needs), bytes (transaction bytes), parity (the phase to wait for: round & 1), dst, map, c0 (innermost coordinate: the element in a row), c1 (the row)
//! writes: the barrier (arrivals, transaction count, phase); the box at dst, asynchronously, complete when bar's phase completes
//! defines: smem_u32, mbar_init, mbar_init_fence, mbar_arrive_expect_tx, mbar_arrive, mbar_wait, tma_load_2d, tma_prefetch_desc
//! adapt: 3-D to 5-D: cp.async.bulk.tensor.3d with {c0, c1, c2} and so on (tma-mbarrier-3d); box sizes live in the tensor map, not here; with the 128B swizzle the inner box is at most 128 bytes (64 f16 or bf16 elements), so a wider tile is several loads at dst + k * rows * 128, all counted in one expect_tx; bf16 or f32 tiles: the same code, only the map's data type differs; .multicast::cluster needs a cluster launch, which the launch block does not offer
//! proof: hgemm_tma (fragments/proofs/hgemm_tma.txt, lines 136-203)
__device__ __forceinline__ unsigned smem_u32(const void *p) {
  unsigned r;
  asm("{\n.reg .u64 t;\ncvta.to.shared.u64 t, %1;\ncvt.u32.u64 %0, t;\n}\n"
      : "=r"(r)
      : "l"(p));
  return r;
}

__device__ __forceinline__ void mbar_init(unsigned bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count)
               : "memory");
}

// Make the initialized barriers visible to the other threads and to the
// async proxy (TMA's complete_tx) before anyone uses them.
__device__ __forceinline__ void mbar_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

__device__ __forceinline__ void mbar_arrive_expect_tx(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar),
               "r"(bytes)
               : "memory");
}

__device__ __forceinline__ void mbar_arrive(unsigned bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}

// Wait until the phase of parity `parity` of the barrier has completed. A
// wait that never ends (a broken pipeline) traps instead of hanging the GPU.
__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity) {
  unsigned done;
  unsigned spins = 0;
  while (true) {
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n"
        "}\n"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
    if (done)
      break;
    if (++spins == (1u << 28))
      __trap();
  }
}

// 2-D TMA tile load into shared memory, completing on `bar` (bytes counted
// as transactions). c0 is the innermost coordinate (element index in a row),
// c1 the row.
__device__ __forceinline__ void tma_load_2d(unsigned dst, const TensorMap *map, int c0,
                                            int c1, unsigned bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
      "l"(reinterpret_cast<unsigned long long>(map)), "r"(c0), "r"(c1), "r"(bar)
      : "memory");
}

__device__ __forceinline__ void tma_prefetch_desc(const TensorMap *map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<unsigned long long>(map))
               : "memory");
}
