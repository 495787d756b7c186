//! name: attn-issue-qk-pv
//! language: cuda
//! does: Issue (not wait for) the wgmma of one key tile: S = Q K^T as D / 16 k16 steps of m64n128k16 (scale-d 0 at the first step, so S needs no zeroing), and O += P V as BN / 16 = 8 k16 steps of m64nDk16 with P from registers
//! chips: sm_90a
//! ptx: 8.0
//! needs: wgmma-ss-m64n128k16, wgmma-rs-m64n64k16 (and its D = 128 twin behind wgmma_pv<D>, answer lines 326-335), make_desc and the address helpers of wgmma-swizzle-layout; called between wgmma_fence and wgmma_commit by the 128 threads of a consumer warpgroup (attn-overlap-loop)
//! requires: nothing
//! ops: attention, softmax, matmul, mma
//! reads: s, o, p, q_base, k_base, v_base, cwg, D, BN
//! writes: s, o (asynchronously, until the wait)
//! defines: issue_qk<D>, issue_pv<D>
//! adapt: other D: D / 16 steps for S, an m64nDk16 for P V; other key tile widths: BN / 16 steps and an m64nBNk16 for S
//! proof: attn_fwd_d64 (fragments/proofs/attn_fwd_d64.txt, lines 340-353)
// S = Q K^T for this warpgroup's 64 rows and one 128-key tile (issue only).
template <int D>
__device__ __forceinline__ void issue_qk(float (&s)[BN / 2], unsigned q_base, unsigned k_base, int cwg) {
#pragma unroll
  for (int kk = 0; kk < D / 16; ++kk)
    wgmma_m64n128k16_ss(s, make_desc(q_desc_addr(q_base, cwg, kk), QK_LBO, QK_SBO),
                        make_desc(k_desc_addr(k_base, kk), QK_LBO, QK_SBO), kk > 0 ? 1 : 0);
}
// O += P V for one 128-key tile (issue only).
template <int D>
__device__ __forceinline__ void issue_pv(float (&o)[D / 2], const unsigned (&p)[BN / 16][4], unsigned v_base) {
#pragma unroll
  for (int kk = 0; kk < BN / 16; ++kk) wgmma_pv<D>(o, p[kk], make_desc(v_desc_addr(v_base, kk), V_LBO, V_SBO));
}
