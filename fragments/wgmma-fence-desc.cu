//! name: wgmma-fence-desc
//! language: cuda
//! does: wgmma.fence, commit_group and wait_group N wrappers, a register fence that keeps the compiler from moving accumulator reads and writes across the asynchronous MMA, and a shared-memory matrix descriptor: the start address >> 4 in bits 0-13 ORed into constant high bits (LBO, SBO, swizzle mode)
//! chips: sm_90a
//! ptx: 8.0
//! needs: all 128 threads of a warpgroup execute every .sync.aligned instruction together (no divergence around them); wgmma_fence before the first wgmma of a group; fence_acc(d) after the commit and after each wait, so the accumulators stay in place in registers; addr is the shared-space byte address (smem_u32) of a 1024-aligned 128B-swizzled tile, plus the k16 step's offset (K-major: + 32 bytes, i.e. + 2 in the >> 4 field; MN-major: + 16 rows of 128 bytes)
//! requires: nothing
//! ops: matmul, mma
//! reads: d (the accumulator array), addr, hi (descriptor bits 14-63, tma-gemm-constants)
//! writes: nothing (ordering only)
//! defines: wgmma_fence, wgmma_commit, wgmma_wait<N>, fence_acc<R>, make_desc
//! adapt: wait_group 1 keeps one committed group in flight (the K loop of wgmma-consumer-warpgroup), wait_group 0 drains before the accumulators are read; a register A operand (unsigned f16x2 fragments) needs the same fence with "+r"; a descriptor with LBO and SBO as arguments: wgmma-swizzle-layout
//! proof: hgemm_tma (fragments/proofs/hgemm_tma.txt, lines 205-226)
__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
template <int N> __device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

// Keep the compiler from moving accumulator accesses across the async MMA.
template <int R> __device__ __forceinline__ void fence_acc(float (&d)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i)
    asm volatile("" : "+f"(d[i])::"memory");
}

// Shared-memory matrix descriptor: start address >> 4 in bits 0-13, the
// rest (LBO, SBO, layout) from `hi`.
__device__ __forceinline__ unsigned long long make_desc(unsigned addr, unsigned long long hi) {
  return hi | (unsigned long long)((addr & 0x3FFFFu) >> 4);
}
