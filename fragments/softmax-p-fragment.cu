//! name: softmax-p-fragment
//! language: cuda
//! does: P (f32 in the wgmma accumulator layout) converted to the f16 A-operand register fragments of the next wgmma (four f16x2 per k16 step, the m16n8k16 A layout per warp), and the rescale of O's two rows by alpha
//! chips: sm_90a
//! ptx: 8.0
//! needs: pack_half2 (attn-wgmma-helpers); BN = 128 keys per tile; the accumulator layout of wgmma-m64n256k16 (n8 block i holds columns 8 i .. 8 i + 7), so k step kk takes blocks 2 kk and 2 kk + 1
//! requires: nothing
//! ops: attention, softmax, matmul, mma
//! reads: s (p), o, alpha
//! writes: p[BN / 16][4], o
//! defines: convert_p, rescale_o<D>
//! adapt: bf16 P: __floats2bfloat162_rn and a .bf16 wgmma; the same conversion feeds any GEMM whose A operand is the result of a previous wgmma (back-to-back GEMMs)
//! proof: attn_fwd_d64 (fragments/proofs/attn_fwd_d64.txt, lines 400-421)
// P (f32 accumulator layout) -> f16 A fragments: k step kk covers columns
// 16 kk .. 16 kk + 15, i.e. accumulator n8 blocks 2 kk and 2 kk + 1.
__device__ __forceinline__ void convert_p(const float (&s)[BN / 2], unsigned (&p)[BN / 16][4]) {
#pragma unroll
  for (int kk = 0; kk < BN / 16; ++kk) {
    p[kk][0] = pack_half2(s[8 * kk + 0], s[8 * kk + 1]);  // row g,     cols 2t, 2t+1
    p[kk][1] = pack_half2(s[8 * kk + 2], s[8 * kk + 3]);  // row g + 8, cols 2t, 2t+1
    p[kk][2] = pack_half2(s[8 * kk + 4], s[8 * kk + 5]);  // row g,     cols 8+2t, 8+2t+1
    p[kk][3] = pack_half2(s[8 * kk + 6], s[8 * kk + 7]);  // row g + 8, cols 8+2t, 8+2t+1
  }
}

template <int D>
__device__ __forceinline__ void rescale_o(float (&o)[D / 2], const float (&alpha)[2]) {
#pragma unroll
  for (int i = 0; i < D / 8; ++i) {
    o[4 * i + 0] *= alpha[0];
    o[4 * i + 1] *= alpha[0];
    o[4 * i + 2] *= alpha[1];
    o[4 * i + 3] *= alpha[1];
  }
}
