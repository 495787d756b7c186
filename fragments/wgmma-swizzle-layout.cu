//! name: wgmma-swizzle-layout
//! language: cuda
//! does: Where TMA's 128B swizzle puts element (r, c) of a tile in shared memory, a wgmma descriptor with LBO and SBO as arguments and the 128B-swizzle mode, and the start addresses of k16 step kk for K-major operands (Q and K: LBO 16, SBO 1024, + 32 bytes per step inside a 64-column chunk, the next chunk R * 128 bytes on) and an MN-major one (V: LBO = the next 64-column chunk, SBO 1024, + 16 rows of 128 bytes per step)
//! chips: sm_90a
//! ptx: 8.0
//! needs: BM = BN = 128 (the proof's enum); tiles at 1024-aligned shared addresses written by TMA with CU_TENSOR_MAP_SWIZZLE_128B and 128-byte (64-element) inner boxes, one R x 128-byte chunk per 64 columns; cwg * 64 * 128 selects consumer warpgroup cwg's 64 rows; ATTN_HD is __host__ __device__ in the proof (it checks these addresses on the host too)
//! requires: nothing
//! ops: matmul, mma, softmax, shared, tma
//! reads: R, r, c; addr, lbo, sbo; q_base, k_base, v_base, cwg, kk
//! writes: nothing
//! defines: tile_offset, make_desc, q_desc_addr, k_desc_addr, v_desc_addr, QK_LBO, QK_SBO, V_LBO, V_SBO
//! adapt: a GEMM's A is Q's case (K-major), a row-major B is V's case (MN-major, transpose-b 1); tile_offset also places the epilogue's stores into a swizzled tile without bank conflicts; other tile heights: the chunk stride R * 128 follows R
//! proof: attn_fwd_d64 (fragments/proofs/attn_fwd_d64.txt, lines 161-182)
// Byte offset, inside a tile of R rows, of element (r, c) as TMA writes it
// with CU_TENSOR_MAP_SWIZZLE_128B and a {64, R, 1} box (tile base 1024-aligned).
ATTN_HD constexpr unsigned tile_offset(int R, int r, int c) {
  return (unsigned)((c / 64) * R * 128 + r * 128 + ((((c % 64) / 8) ^ (r % 8)) << 4) + (c % 8) * 2);
}

// wgmma matrix descriptor.
ATTN_HD constexpr unsigned long long make_desc(unsigned addr, unsigned lbo, unsigned sbo) {
  return (unsigned long long)((addr & 0x3FFFFu) >> 4) |
         ((unsigned long long)((lbo >> 4) & 0x3FFFu) << 16) |
         ((unsigned long long)((sbo >> 4) & 0x3FFFu) << 32) |
         (1ull << 62);  // 128-byte swizzle
}
// Start addresses of the k16 step kk (shared-space byte addresses).
ATTN_HD constexpr unsigned q_desc_addr(unsigned q_base, int cwg, int kk) {
  return q_base + (kk / 4) * BM * 128 + cwg * 64 * 128 + (kk % 4) * 32;
}
ATTN_HD constexpr unsigned k_desc_addr(unsigned k_base, int kk) {
  return k_base + (kk / 4) * BN * 128 + (kk % 4) * 32;
}
ATTN_HD constexpr unsigned v_desc_addr(unsigned v_base, int kk) { return v_base + kk * 16 * 128; }
enum : unsigned { QK_LBO = 16, QK_SBO = 1024, V_LBO = BN * 128, V_SBO = 1024 };
