//! name: attn-wgmma-helpers
//! language: cuda
//! does: The attention kernel's small helpers: a named barrier (bar.sync id, count) for one warpgroup, wgmma.fence / commit_group / wait_group N, register fences for f32 accumulators and for f16x2 A fragments (so the compiler keeps them in place across the asynchronous MMA), exp2 by ex2.approx.ftz.f32, and two floats packed as an f16x2 (low half first)
//! chips: sm_90a
//! ptx: 8.0
//! needs: named barrier ids other than 0 (which __syncthreads uses) and a count that is a multiple of 32; ex2.approx.ftz flushes denormals and is approximate: the proof's tolerance (rel and abs 2e-3) allows it, a kernel whose tolerance is tighter needs exact expf
//! requires: nothing
//! ops: attention, softmax, exp, matmul, mma
//! reads: id, count; r (registers to fence); x; lo, hi
//! writes: nothing but ordering; the results
//! defines: named_bar_sync, wgmma_fence, wgmma_commit, wgmma_wait<N>, fence_regs<N> (two overloads), ex2, pack_half2
//! adapt: bf16: __floats2bfloat162_rn in pack_half2; fence_regs for other shapes of register arrays with "+f" or "+r"
//! proof: attn_fwd_d64 (fragments/proofs/attn_fwd_d64.txt, lines 244-274)
__device__ __forceinline__ void named_bar_sync(unsigned id, unsigned count) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
}
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}
// Keep the compiler from moving register accesses across wgmma issue/wait.
template <int N>
__device__ __forceinline__ void fence_regs(float (&r)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(r[i])::"memory");
}
template <int N>
__device__ __forceinline__ void fence_regs(unsigned (&r)[N][4]) {
#pragma unroll
  for (int i = 0; i < N; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) asm volatile("" : "+r"(r[i][j])::"memory");
}
__device__ __forceinline__ float ex2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
__device__ __forceinline__ unsigned pack_half2(float lo, float hi) {
  __half2 h = __floats2half2_rn(lo, hi);  // .x (low 16 bits) = lo
  return *reinterpret_cast<unsigned*>(&h);
}
