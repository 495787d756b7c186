//! name: wgmma-ss-m64n128k16
//! language: cuda
//! does: wgmma.mma_async m64n128k16 f32.f16.f16 with A and B from shared-memory descriptors, both K-major (transpose-a = transpose-b = 0: S = Q K^T with K stored row-major by key), scale-d from an argument (0 overwrites d, 1 accumulates); 64 f32 accumulators per thread
//! chips: sm_90a
//! ptx: 8.0
//! needs: the 128 threads of a warpgroup issue it together between wgmma_fence and wgmma_commit; descriptors from make_desc over 128B-swizzled K-major tiles (wgmma-swizzle-layout: q_desc_addr, k_desc_addr, QK_LBO, QK_SBO); d a float[64] indexed by constants only
//! requires: nothing
//! ops: attention, matmul, mma
//! reads: d, desc_a, desc_b, scale_d
//! writes: d (asynchronously, until the wait)
//! defines: wgmma_m64n128k16_ss
//! adapt: a GEMM with a K-major (transposed) B uses this form; another N: m64nNk16 with N/2 accumulators and the operands renumbered; bf16: .f32.bf16.bf16; B MN-major: the last immediate 1 (wgmma-m64n256k16)
//! proof: attn_fwd_d64 (fragments/proofs/attn_fwd_d64.txt, lines 276-292)
// D[64 x 128] (+)= A[64 x 16] * B[16 x 128], A and B from shared-memory descriptors,
// both K-major (trans-a = trans-b = 0); scale_d == 0 overwrites D.
__device__ __forceinline__ void wgmma_m64n128k16_ss(float (&d)[64], unsigned long long desc_a,
                                                   unsigned long long desc_b, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(desc_a), "l"(desc_b), "r"(scale_d));
}
