//! name: tma-gemm-constants
//! language: cuda
//! does: Tile sizes, shared-memory layout and the constant high bits of the wgmma descriptors of a 128 x 256 f16 GEMM tile with K steps of 64: four ring stages of 49152 bytes (A 128 x 64 as one 128B-swizzled TMA box, B 64 x 256 as four 64 x 64 boxes), the full/empty barriers after the ring, 8 consumer arrivals, a 40/200 register split; A's descriptor K-major (LBO 16, SBO 1024), B's MN-major (LBO 8192: the next 64-column box, SBO 1024: the next 8 k rows), layout 1 (128B swizzle) at bit 62
//! chips: sm_90a
//! ptx: 8.0
//! needs: every stage and box at a 1024-byte aligned shared address: the dynamic shared base rounded up to 1024, so the launch block asks for 1024 + 4 * 49152 + 64 = 197760 bytes of dynamic shared memory; A row-major (M x K, K contiguous) and B row-major (K x N, N contiguous) so A is K-major and B MN-major; B's descriptor is used with the transpose-b immediate 1 (wgmma-m64n256k16)
//! requires: nothing
//! ops: matmul, mma, tma, shared
//! reads: nothing
//! writes: nothing
//! defines: the HG_* macros
//! adapt: BN 128: two B boxes, 32768-byte stages, the same descriptor constants; keep BK 64 for f16/bf16 (64 elements = the 128-byte swizzle span; BK 32 would need the 64B swizzle mode and other SBO); more stages while 1024 + stages * stage bytes + barriers stays within the 227 KB a block may have; a K-major B (C = A B^T, Q K^T): LBO 16, SBO 1024 like A and transpose-b 0 (wgmma-swizzle-layout)
//! proof: hgemm_tma (fragments/proofs/hgemm_tma.txt, lines 116-131)
#define HG_BM 128
#define HG_BN 256
#define HG_BK 64
#define HG_STAGES 4
#define HG_GROUP_M 16
#define HG_A_BYTES 16384      // 128 x 64 f16
#define HG_B_BOX_BYTES 8192   // 64 (K) x 64 (N) f16
#define HG_STAGE_BYTES 49152  // A + 4 B boxes
#define HG_BAR_OFFSET 196608  // HG_STAGES * HG_STAGE_BYTES
#define HG_CONSUMER_ARRIVALS 8
#define HG_PRODUCER_REGS 40
#define HG_CONSUMER_REGS 200

// Descriptor constants (see the header): layout 1 (128B swizzle) at bit 62.
#define HG_DESC_A_HI ((1ull << 62) | ((unsigned long long)(1024 >> 4) << 32) | ((unsigned long long)(16 >> 4) << 16))
#define HG_DESC_B_HI ((1ull << 62) | ((unsigned long long)(1024 >> 4) << 32) | ((unsigned long long)(8192 >> 4) << 16))
