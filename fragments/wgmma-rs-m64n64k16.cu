//! name: wgmma-rs-m64n64k16
//! language: cuda
//! does: wgmma.mma_async m64n64k16 f32.f16.f16 with A from registers (four f16x2 per thread) and B from a shared-memory descriptor, MN-major (transpose-b 1), always accumulating: O += P V for D = 64
//! chips: sm_90a
//! ptx: 8.0
//! needs: the 128 threads of a warpgroup, between wgmma_fence and wgmma_commit; a from softmax-p-fragment; desc_b from make_desc (wgmma-swizzle-layout: v_desc_addr, V_LBO, V_SBO); fence the register operands (fence_regs in the proof) so they are not rewritten before the wait
//! requires: nothing
//! ops: attention, matmul, mma
//! reads: d (32 accumulators), a[4], desc_b
//! writes: d (asynchronously, until the wait)
//! defines: wgmma_m64n64k16_rs
//! adapt: D = 128: m64n128k16 with 64 accumulators and operands renumbered (the proof's wgmma_m64n128k16_rs); bf16: .f32.bf16.bf16
//! proof: attn_fwd_d64 (fragments/proofs/attn_fwd_d64.txt, lines 294-307)
// D[64 x 64] += A[64 x 16] * B[16 x 64], A from registers (four f16x2 per thread,
// the m16n8k16 A layout per warp), B from a shared-memory descriptor, MN-major
// (trans-b = 1); always accumulates.
__device__ __forceinline__ void wgmma_m64n64k16_rs(float (&d)[32], const unsigned (&a)[4],
                                                  unsigned long long desc_b) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, p, 1, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(1));
}
