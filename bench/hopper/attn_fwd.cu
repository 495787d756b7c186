// attn_fwd.cu -- attention forward for Hopper (sm_90a): TMA + mbarrier + wgmma,
// a producer and two consumer warpgroups (FlashAttention-3 style).
//
// Compile (as the pipeline does, NVRTC):
//   build/bin/llmptx-ptx cuda --chip sm_90a bench/hopper/attn_fwd.cu -o bench/hopper/attn_fwd.ptx
//   (NVRTC flags -arch=compute_90a -default-device -std=c++17 -lineinfo)
//
// What it computes, per (batch * head) bh:
//   O[bh] = softmax(Q[bh] K[bh]^T * scale [+ causal mask]) V[bh]
// Q, K, V, O: (BH, S, D) f16, row-major; f32 accumulation; O rounded to f16.
// Causal: key j is visible to query i iff j <= i (top-left aligned; S_q = S_k).
//
// Entry points (D is a template parameter, causal a run-time flag):
//   attn_fwd_d64, attn_fwd_d128        288 threads: consumer warpgroups 0, 1
//                                      and one producer warp; no setmaxnreg
//                                      (168 registers for every thread: D = 64
//                                      overlaps softmax with P V inside a
//                                      warpgroup, D = 128 runs them in sequence
//                                      to fit without spills)
//   attn_fwd_ws_d64, attn_fwd_ws_d128  384 threads: producer warpgroup 0
//                                      (setmaxnreg.dec 24) and consumer
//                                      warpgroups 1, 2 (setmaxnreg.inc 224 / 240),
//                                      softmax/P V overlap for both D. Needs the
//                                      JIT to give 160 / 168 registers at entry
//                                      (see the note at the entries below).
// Parameters: the memref ABI of q, k, v, o in order, 9 each
//   (__half *allocated, __half *aligned, long long offset,
//    long long size0 (BH), size1 (S), size2 (D),
//    long long stride0, stride1, stride2)          -- elements, not bytes
// then float scale (1/sqrt(D)), int causal (0/1), then three tensor maps by
// value: const __grid_constant__ TensorMap tmQ, tmK, tmV (128 bytes each,
// .param .align 64 .b8 [128]).
//
// Requirements
//   * D = size2 = 64 (_d64) or 128 (_d128); anything else traps.
//   * Any S >= 1 (no multiple-of-tile requirement): the tensor maps zero-fill
//     rows past S, keys >= S are masked to -inf, rows >= S are not stored.
//   * Q, K, V, O contiguous in the last dimension (stride2 == 1); Q/K/V strides
//     as encoded in their tensor maps (the harness encodes the memref's own
//     strides: bytes multiples of 16, base 16-byte aligned -- TMA's rules).
//   * O: aligned + offset 16-byte aligned and stride0, stride1 multiples of 8
//     elements (16-byte vector stores).
//   * BH <= 65535 (grid.y).
//   * 1 CTA per SM; dynamic shared memory 83072 (D=64) or 164992 (D=128)
//     bytes -- above 48 KB, so the host must raise
//     CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES.
//
// Design
//   CTA = a BM = 128-row query block of one bh: two consumer warpgroups of 64
//   rows each, and a producer.
//   * Producer: one thread issues every TMA copy (cp.async.bulk.tensor.3d,
//     128-byte swizzle): Q once, then per key tile j (BN = 128 keys) K_j and
//     V_j into a 2-stage ring, each with its own "full" mbarrier
//     (arrive.expect_tx with the box bytes) and "empty" mbarrier (8 arrivals:
//     lane 0 of each consumer warp, after its wgmma reading the stage is done).
//   * Consumers: each keeps in registers S (64x128 f32: 64 per thread),
//     P (f16 A fragments: 32 per thread) and O (64xD f32: D/2 per thread).
//       S_j   = Q K_j^T    wgmma m64n128k16, A and B from shared memory
//                          (both K-major, 128B swizzle), D/16 instructions
//       O    += P_j V_j    wgmma m64nDk16, A = P from registers, B = V from
//                          shared memory, MN-major (trans-b), 128B swizzle,
//                          BN/16 = 8 instructions
//     With the overlap (FA-3 algorithm 2) iteration j issues S_j and then
//     O += P_{j-1} V_{j-1}, waits for S_j only (wgmma.wait_group 1), runs the
//     softmax of tile j while P V is still on the tensor core, then waits for
//     it, rescales O and converts P_j to f16. Without it: S_j, wait, softmax,
//     rescale, P_j, O += P_j V_j, wait. Either way the two warpgroups overlap
//     each other.
//   * Online softmax in the log2 domain: scores kept raw, m = running row max,
//     p = exp2(s * scale*log2(e) - m * scale*log2(e)) (ex2.approx.ftz), row sum
//     l kept per thread (quad-reduced once at the end); O and l rescaled by
//     alpha = exp2((m_old - m_new) * scale*log2(e)). A row whose max is still
//     -inf uses 0 as its base (no inf - inf), and l == 0 stores 0, so a fully
//     masked row gives 0 rather than NaN (cannot happen with S_q = S_k).
//   * Masking only on tiles that need it (uniform per warpgroup): the last
//     tile when S % 128 != 0, and with causal the tiles whose last key is past
//     the warpgroup's first row. Causal tile skipping: the block m processes
//     key tiles 0 .. ceil(min(S, 128 (m + 1)) / 128) - 1; blocks are launched
//     heaviest first (m = gridDim.x - 1 - blockIdx.x) for a shorter tail.
//   * Epilogue: O / l to f16, written by each consumer warpgroup into its own
//     64 rows of the Q tile in shared memory (same 128B swizzle, conflict-free),
//     then read back 16 bytes per thread and stored coalesced (rows < S only).
//
// Shared memory (dynamic, base rounded up to 1024 bytes; one "tile" of R rows
// is D/64 chunks of R x 128 bytes, chunk c holding columns 64c .. 64c+63, each
// chunk in TMA's 128-byte swizzle: 16-byte unit u of row r at unit u ^ (r % 8))
//   Q       : 128 x D f16                       (16 KB or 32 KB)
//   K[2]    : 128 x D f16 each                  (2 x 16 KB or 2 x 32 KB)
//   V[2]    : 128 x D f16 each
//   barriers: Q full, K full[2], V full[2], K empty[2], V empty[2] (8 bytes each)
//   total   = 1024 (alignment slack) + 5 tiles + 128  =  83072 (D=64), 164992 (D=128)
//
// wgmma shared-memory descriptors (PTX ISA "Matrix Descriptor Format"):
//   start >> 4 in bits 0-13, LBO >> 4 in 16-29, SBO >> 4 in 32-45, base offset 0,
//   swizzle mode 1 (128B) in bits 62-63.
//   Q, K (K-major, 128B swizzle): LBO 16 (unused, "assumed 1"), SBO 1024 (next 8
//     rows); k step kk (16 columns) starts at chunk kk/4 + 32 (kk % 4) bytes.
//   V (MN-major, 128B swizzle): LBO = 128 * 128 bytes (next 64 columns = next
//     chunk), SBO 1024 (next 8 keys); k step kk starts at 16 kk rows = 2048 kk.
//   bench/hopper/attn_layout_check.cpp checks these addresses element by
//   element against the PTX ISA's canonical layouts and TMA's swizzle (host).
//
// Launch and tensor maps (bench/hopper/attn_fwd.launch.json holds all four
// entries; memref order, outer first; the host encodes each map with
// cuTensorMapEncodeTiled over aligned + offset, dims innermost first
// {D, S, BH}, strides {stride1 * 2, stride0 * 2} bytes, element strides 1):
//   attn_fwd_d64:
//   {"block": [288, 1, 1], "grid": ["ceildiv(S, 128)", "BH", "1"],
//    "dynamic_shared_bytes": 83072,
//    "tensor_maps": [
//      {"name": "tmQ", "arg": 0, "box": [1, 128, 64], "swizzle": "128B", "interleave": "none", "l2_promotion": "128B", "oob_fill": "none"},
//      {"name": "tmK", "arg": 1, "box": [1, 128, 64], "swizzle": "128B", "interleave": "none", "l2_promotion": "128B", "oob_fill": "none"},
//      {"name": "tmV", "arg": 2, "box": [1, 128, 64], "swizzle": "128B", "interleave": "none", "l2_promotion": "128B", "oob_fill": "none"}]}
//   attn_fwd_d128: the same with "dynamic_shared_bytes": 164992 (the box
//   stays [1, 128, 64]: 128-byte swizzle caps the inner box at 128 bytes, so
//   a D=128 tile is two copies, columns 0-63 and 64-127).
//   attn_fwd_ws_d64 / attn_fwd_ws_d128: as _d64 / _d128 with "block": [384, 1, 1].
//   "oob_fill": "none" = CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE, i.e. zeros.

#ifndef ATTN_HOST_CHECK
#include <cuda_fp16.h>
#define ATTN_HD __host__ __device__
#else
#define ATTN_HD
#endif

struct alignas(64) TensorMap { unsigned long long opaque[16]; };

namespace attn {

// ---------------------------------------------------------------------------
// Tiling and layout (pure integer functions; also compiled on the host by
// bench/hopper/attn_layout_check.cpp with -DATTN_HOST_CHECK).
// ---------------------------------------------------------------------------
// (enumerators, not constexpr variables: under -default-device those would
// become .global symbols of the module)
enum : int {
  BM = 128,        // query rows per CTA (2 consumer warpgroups x 64)
  BN = 128,        // keys per tile
  NTHREADS = 384,  // producer warpgroup + 2 consumer warpgroups
  STAGES = 2,      // K/V ring depth
  BOX_COLS = 64    // inner TMA box: 64 f16 = 128 bytes (the swizzle span)
};

template <int D> ATTN_HD constexpr unsigned q_bytes() { return BM * D * 2; }
template <int D> ATTN_HD constexpr unsigned kv_bytes() { return BN * D * 2; }
template <int D> ATTN_HD constexpr unsigned off_q() { return 0; }
template <int D> ATTN_HD constexpr unsigned off_k(int s) { return q_bytes<D>() + s * kv_bytes<D>(); }
template <int D> ATTN_HD constexpr unsigned off_v(int s) { return q_bytes<D>() + (STAGES + s) * kv_bytes<D>(); }
template <int D> ATTN_HD constexpr unsigned off_bar() { return q_bytes<D>() + 2 * STAGES * kv_bytes<D>(); }
// barrier index: 0 Q full, 1+s K full, 3+s V full, 5+s K empty, 7+s V empty
template <int D> ATTN_HD constexpr unsigned smem_bytes() { return 1024 + off_bar<D>() + 128; }

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

// Accumulator fragment of wgmma m64nN (f32): element idx = 4 i + e of a thread
// (warp w of its warpgroup, lane l) is row 16 w + l / 4 + 8 (e / 2), column
// 8 i + 2 (l % 4) + e % 2.
ATTN_HD constexpr int acc_row(int warp, int lane, int idx) { return 16 * warp + (lane >> 2) + 8 * ((idx >> 1) & 1); }
ATTN_HD constexpr int acc_col(int lane, int idx) { return 8 * (idx >> 2) + 2 * (lane & 3) + (idx & 1); }

// Key tiles the query block mblk needs.
ATTN_HD constexpr int num_key_tiles(int mblk, int S, int causal) {
  return causal ? ((S < (mblk + 1) * BM ? S : (mblk + 1) * BM) + BN - 1) / BN : (S + BN - 1) / BN;
}
ATTN_HD constexpr bool is_masked(int row, int col, int S, int causal) {
  return col >= S || (causal && col > row);
}
// Does tile j need masking anywhere in the 64 rows of consumer warpgroup cwg?
ATTN_HD constexpr bool tile_needs_mask(int j, int mblk, int cwg, int S, int causal) {
  return (j + 1) * BN > S || (causal && (j + 1) * BN - 1 > mblk * BM + 64 * cwg);
}

}  // namespace attn

#ifndef ATTN_HOST_CHECK
namespace attn {

// ---------------------------------------------------------------------------
// PTX wrappers
// ---------------------------------------------------------------------------
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

// D[64 x 128] += A[64 x 16] * B[16 x 128], as above.
__device__ __forceinline__ void wgmma_m64n128k16_rs(float (&d)[64], const unsigned (&a)[4],
                                                   unsigned long long desc_b) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, {%64, %65, %66, %67}, %68, p, 1, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(1));
}

template <int D>
__device__ __forceinline__ void wgmma_pv(float (&o)[D / 2], const unsigned (&a)[4], unsigned long long desc_b);
template <>
__device__ __forceinline__ void wgmma_pv<64>(float (&o)[32], const unsigned (&a)[4], unsigned long long desc_b) {
  wgmma_m64n64k16_rs(o, a, desc_b);
}
template <>
__device__ __forceinline__ void wgmma_pv<128>(float (&o)[64], const unsigned (&a)[4], unsigned long long desc_b) {
  wgmma_m64n128k16_rs(o, a, desc_b);
}

// ---------------------------------------------------------------------------
// Consumer pieces
// ---------------------------------------------------------------------------
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

// Online softmax of one tile: masks (when asked), updates the running max m and
// per-thread partial sum l of the thread's two rows, turns s into p (f32,
// unnormalized) and returns the two rescale factors of O.
template <bool MASK>
__device__ __forceinline__ void softmax_tile(float (&s)[BN / 2], float (&m)[2], float (&l)[2], float (&alpha)[2],
                                             float sl2, int row0, int col0, int S, int causal) {
  if (MASK) {
#pragma unroll
    for (int idx = 0; idx < BN / 2; ++idx) {
      const int row = row0 + 8 * ((idx >> 1) & 1);
      const int col = col0 + 8 * (idx >> 2) + (idx & 1);
      if (is_masked(row, col, S, causal)) s[idx] = -__int_as_float(0x7f800000);
    }
  }
  float mx[2] = {m[0], m[1]};
#pragma unroll
  for (int i = 0; i < BN / 8; ++i) {
    mx[0] = fmaxf(mx[0], fmaxf(s[4 * i + 0], s[4 * i + 1]));
    mx[1] = fmaxf(mx[1], fmaxf(s[4 * i + 2], s[4 * i + 3]));
  }
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 1));
    mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 2));
  }
  float base[2], sum[2] = {0.f, 0.f};
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    base[r] = (mx[r] == -__int_as_float(0x7f800000)) ? 0.f : mx[r] * sl2;
    alpha[r] = ex2(m[r] * sl2 - base[r]);  // m = -inf gives 0 (O and l are 0 then)
    m[r] = mx[r];
  }
#pragma unroll
  for (int i = 0; i < BN / 8; ++i) {
    s[4 * i + 0] = ex2(fmaf(s[4 * i + 0], sl2, -base[0]));
    s[4 * i + 1] = ex2(fmaf(s[4 * i + 1], sl2, -base[0]));
    s[4 * i + 2] = ex2(fmaf(s[4 * i + 2], sl2, -base[1]));
    s[4 * i + 3] = ex2(fmaf(s[4 * i + 3], sl2, -base[1]));
    sum[0] += s[4 * i + 0] + s[4 * i + 1];
    sum[1] += s[4 * i + 2] + s[4 * i + 3];
  }
  l[0] = l[0] * alpha[0] + sum[0];
  l[1] = l[1] * alpha[1] + sum[1];
}

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

// ---------------------------------------------------------------------------
// The kernel body
// ---------------------------------------------------------------------------
// WS = true: producer warpgroup 0 (setmaxnreg.dec 24) + consumer warpgroups 1, 2
//   (setmaxnreg.inc 240), 384 threads.
// WS = false: consumer warpgroups 0, 1 (threads 0-255) + one producer warp
//   (threads 256-287), 288 threads, no setmaxnreg (every thread may use 224
//   registers): nothing depends on the register count the JIT picks.
// OVERLAP = true: FA-3's intra-warpgroup overlap (softmax of tile j while
//   P_{j-1} V_{j-1} runs); S, P and O are live together (64 + 32 + D/2 per thread).
// OVERLAP = false: S_j, softmax, P_j V_j in sequence (the two warpgroups still
//   overlap each other).
template <int D, bool WS, bool OVERLAP>
__device__ __forceinline__ void attn_fwd_body(const long long q_size0, const long long q_size1,
                                              const long long q_size2, __half* __restrict__ o_ptr,
                                              const long long o_stride0, const long long o_stride1, const float scale,
                                              const int causal, const TensorMap* tmQ, const TensorMap* tmK,
                                              const TensorMap* tmV) {
  extern __shared__ unsigned char smem_raw[];
  if (q_size2 != D) asm volatile("trap;");
  const int S = (int)q_size1;
  const int bh = blockIdx.y;
  const int mblk = causal ? (int)(gridDim.x - 1 - blockIdx.x) : (int)blockIdx.x;
  const int m0 = mblk * BM;
  const int nt = num_key_tiles(mblk, S, causal);
  (void)q_size0;

  const unsigned base = (smem_u32(smem_raw) + 1023u) & ~1023u;
  const unsigned sQ = base + off_q<D>();
  const unsigned bars = base + off_bar<D>();
  const unsigned barQ = bars;
  auto barKfull = [&](int s) { return bars + 8u * (1 + s); };
  auto barVfull = [&](int s) { return bars + 8u * (3 + s); };
  auto barKempty = [&](int s) { return bars + 8u * (5 + s); };
  auto barVempty = [&](int s) { return bars + 8u * (7 + s); };

  const int tid = threadIdx.x;
  const bool producer = WS ? tid < 128 : tid >= 256;
  const int producer_thread = WS ? 0 : 256;  // issues every TMA copy

  if (tid == 0) {
    mbar_init(barQ, 1);
#pragma unroll
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(barKfull(s), 1);
      mbar_init(barVfull(s), 1);
      mbar_init(barKempty(s), 8);  // lane 0 of each of the 8 consumer warps
      mbar_init(barVempty(s), 8);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();

  if (producer) {
    // ------------------------------ producer ------------------------------
    if (WS) asm volatile("setmaxnreg.dec.sync.aligned.u32 24;\n" ::: "memory");
    if (tid == producer_thread) {
      mbar_expect_tx(barQ, q_bytes<D>());
#pragma unroll
      for (int c = 0; c < D / BOX_COLS; ++c) tma_load_3d(sQ + c * BM * 128, tmQ, barQ, c * BOX_COLS, m0, bh);
      for (int j = 0; j < nt; ++j) {
        const int s = j & 1;
        const unsigned ph_empty = ((j >> 1) - 1) & 1;  // completion (j/2 - 1) of the empty barrier
        const unsigned sK = base + off_k<D>(s), sV = base + off_v<D>(s);
        if (j >= STAGES) mbar_wait(barKempty(s), ph_empty);
        mbar_expect_tx(barKfull(s), kv_bytes<D>());
#pragma unroll
        for (int c = 0; c < D / BOX_COLS; ++c) tma_load_3d(sK + c * BN * 128, tmK, barKfull(s), c * BOX_COLS, j * BN, bh);
        if (j >= STAGES) mbar_wait(barVempty(s), ph_empty);
        mbar_expect_tx(barVfull(s), kv_bytes<D>());
#pragma unroll
        for (int c = 0; c < D / BOX_COLS; ++c) tma_load_3d(sV + c * BN * 128, tmV, barVfull(s), c * BOX_COLS, j * BN, bh);
      }
    }
    return;
  }

  // ------------------------------ consumers ------------------------------
  if (WS) {
    // 240 registers for D = 128 (needs 168 at entry); 224 is plenty for D = 64
    // and needs only 160 at entry ((224 - 160) * 256 <= (160 - 24) * 128).
    if (D == 128)
      asm volatile("setmaxnreg.inc.sync.aligned.u32 240;\n" ::: "memory");
    else
      asm volatile("setmaxnreg.inc.sync.aligned.u32 224;\n" ::: "memory");
  }
  const int cwg = WS ? tid / 128 - 1 : tid / 128;  // 0 or 1: rows 64 cwg .. 64 cwg + 63 of the block
  const int warp = (tid / 32) & 3;   // warp in the warpgroup
  const int lane = tid & 31;
  const int row0 = m0 + 64 * cwg + acc_row(warp, lane, 0);  // this thread's rows: row0, row0 + 8
  const float sl2 = scale * 1.4426950408889634f;

  float s[BN / 2];
  float o[D / 2];
  unsigned p[BN / 16][4];
  float m[2] = {-__int_as_float(0x7f800000), -__int_as_float(0x7f800000)};
  float l[2] = {0.f, 0.f};
  float alpha[2];
#pragma unroll
  for (int i = 0; i < D / 2; ++i) o[i] = 0.f;
#pragma unroll
  for (int i = 0; i < BN / 2; ++i) s[i] = 0.f;

  mbar_wait(barQ, 0);

  if constexpr (OVERLAP) {
    // Tile 0: S_0, softmax, P_0.
    mbar_wait(barKfull(0), 0);
    fence_regs(s);
    wgmma_fence();
    issue_qk<D>(s, sQ, base + off_k<D>(0), cwg);
    wgmma_commit();
    wgmma_wait<0>();
    fence_regs(s);
    __syncwarp();
    if (lane == 0) mbar_arrive(barKempty(0));
    if (tile_needs_mask(0, mblk, cwg, S, causal))
      softmax_tile<true>(s, m, l, alpha, sl2, row0, acc_col(lane, 0), S, causal);
    else
      softmax_tile<false>(s, m, l, alpha, sl2, row0, acc_col(lane, 0), S, causal);
    convert_p(s, p);  // O is 0: no rescale

    for (int j = 1; j < nt; ++j) {
      const int sc = j & 1, sp = (j - 1) & 1;
      mbar_wait(barKfull(sc), (j >> 1) & 1);
      mbar_wait(barVfull(sp), ((j - 1) >> 1) & 1);
      fence_regs(s);
      fence_regs(o);
      fence_regs(p);
      wgmma_fence();
      issue_qk<D>(s, sQ, base + off_k<D>(sc), cwg);  // S_j
      wgmma_commit();
      issue_pv<D>(o, p, base + off_v<D>(sp));  // O += P_{j-1} V_{j-1}
      wgmma_commit();
      wgmma_wait<1>();  // S_j done; P V still running
      fence_regs(s);
      __syncwarp();
      if (lane == 0) mbar_arrive(barKempty(sc));
      if (tile_needs_mask(j, mblk, cwg, S, causal))
        softmax_tile<true>(s, m, l, alpha, sl2, row0, j * BN + acc_col(lane, 0), S, causal);
      else
        softmax_tile<false>(s, m, l, alpha, sl2, row0, j * BN + acc_col(lane, 0), S, causal);
      wgmma_wait<0>();  // P_{j-1} V_{j-1} done
      fence_regs(o);
      fence_regs(p);
      __syncwarp();
      if (lane == 0) mbar_arrive(barVempty(sp));
      rescale_o<D>(o, alpha);
      convert_p(s, p);
    }

    // Last P V.
    const int sp = (nt - 1) & 1;
    mbar_wait(barVfull(sp), ((nt - 1) >> 1) & 1);
    fence_regs(o);
    fence_regs(p);
    wgmma_fence();
    issue_pv<D>(o, p, base + off_v<D>(sp));
    wgmma_commit();
    wgmma_wait<0>();
    fence_regs(o);
    fence_regs(p);
    __syncwarp();
    if (lane == 0) mbar_arrive(barVempty(sp));
  } else {
    // Sequential: S_j, softmax, P_j, O += P_j V_j. S and P are never live
    // together with the next S, so D = 128 fits 168 registers.
    for (int j = 0; j < nt; ++j) {
      const int sc = j & 1;
      const unsigned ph = (j >> 1) & 1;
      mbar_wait(barKfull(sc), ph);
      fence_regs(s);
      wgmma_fence();
      issue_qk<D>(s, sQ, base + off_k<D>(sc), cwg);
      wgmma_commit();
      wgmma_wait<0>();
      fence_regs(s);
      __syncwarp();
      if (lane == 0) mbar_arrive(barKempty(sc));
      if (tile_needs_mask(j, mblk, cwg, S, causal))
        softmax_tile<true>(s, m, l, alpha, sl2, row0, j * BN + acc_col(lane, 0), S, causal);
      else
        softmax_tile<false>(s, m, l, alpha, sl2, row0, j * BN + acc_col(lane, 0), S, causal);
      rescale_o<D>(o, alpha);  // alpha = 0 at j = 0, O = 0
      convert_p(s, p);
      mbar_wait(barVfull(sc), ph);
      fence_regs(o);
      fence_regs(p);
      wgmma_fence();
      issue_pv<D>(o, p, base + off_v<D>(sc));
      wgmma_commit();
      wgmma_wait<0>();
      fence_regs(o);
      fence_regs(p);
      __syncwarp();
      if (lane == 0) mbar_arrive(barVempty(sc));
    }
  }

  // ------------------------------ epilogue ------------------------------
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    l[r] += __shfl_xor_sync(0xffffffffu, l[r], 1);
    l[r] += __shfl_xor_sync(0xffffffffu, l[r], 2);
  }
  const float inv0 = l[0] > 0.f ? 1.f / l[0] : 0.f;
  const float inv1 = l[1] > 0.f ? 1.f / l[1] : 0.f;

  // All four warps of this warpgroup are past their last wgmma (which read
  // its Q rows) before any of them overwrites those rows.
  named_bar_sync(1 + cwg, 128);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#pragma unroll
  for (int i = 0; i < D / 8; ++i) {
    const int rl = 64 * cwg + acc_row(warp, lane, 4 * i);  // row in the CTA tile
    const int c = acc_col(lane, 4 * i);
    const unsigned a0 = sQ + tile_offset(BM, rl, c);
    const unsigned a1 = sQ + tile_offset(BM, rl + 8, c);
    asm volatile("st.shared.b32 [%0], %1;" ::"r"(a0), "r"(pack_half2(o[4 * i + 0] * inv0, o[4 * i + 1] * inv0))
                 : "memory");
    asm volatile("st.shared.b32 [%0], %1;" ::"r"(a1), "r"(pack_half2(o[4 * i + 2] * inv1, o[4 * i + 3] * inv1))
                 : "memory");
  }
  named_bar_sync(1 + cwg, 128);
  const int t = tid & 127;  // 0..127 in the warpgroup
  constexpr int UNITS_PER_ROW = D / 8;  // 16-byte units
#pragma unroll
  for (int it = 0; it < 64 * UNITS_PER_ROW / 128; ++it) {
    const int u = it * 128 + t;
    const int rl = 64 * cwg + u / UNITS_PER_ROW;
    const int c = (u % UNITS_PER_ROW) * 8;
    const int grow = m0 + rl;
    uint4 val;
    asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(val.x), "=r"(val.y), "=r"(val.z), "=r"(val.w)
                 : "r"(sQ + tile_offset(BM, rl, c))
                 : "memory");
    if (grow < S)
      *reinterpret_cast<uint4*>(o_ptr + (long long)bh * o_stride0 + (long long)grow * o_stride1 + c) = val;
  }
}

}  // namespace attn

#define ATTN_MEMREF(n)                                                                                      \
  __half *n##_allocated, __half *n##_aligned, long long n##_offset, long long n##_size0, long long n##_size1, \
      long long n##_size2, long long n##_stride0, long long n##_stride1, long long n##_stride2

#define ATTN_ENTRY(NAME, D, WS, OVERLAP, THREADS)                                                                      \
  extern "C" __global__ void __launch_bounds__(THREADS, 1)                                                    \
      NAME(ATTN_MEMREF(q), ATTN_MEMREF(k), ATTN_MEMREF(v), ATTN_MEMREF(o), float scale, int causal,           \
           const __grid_constant__ TensorMap tmQ, const __grid_constant__ TensorMap tmK,                      \
           const __grid_constant__ TensorMap tmV) {                                                            \
    attn::attn_fwd_body<D, WS, OVERLAP>(q_size0, q_size1, q_size2, o_aligned + o_offset, o_stride0, o_stride1, scale,  \
                               causal, &tmQ, &tmK, &tmV);                                                      \
  }

// The default entries: 288 threads, no setmaxnreg.
ATTN_ENTRY(attn_fwd_d64, 64, false, true, 288)
ATTN_ENTRY(attn_fwd_d128, 128, false, false, 288)
// Warp-specialized with setmaxnreg (FA-3's register split): 384 threads.
// setmaxnreg.inc takes its registers from the CTA's pool, which holds only
// what the producer's setmaxnreg.dec 24 released: consumers at C registers
// need the JIT to give the kernel R registers at entry with
// (C - R) * 256 <= (R - 24) * 128, i.e. R >= 168 for C = 240 (D = 128) and
// R >= 160 for C = 224 (D = 64). ptxas 13.0 gives 168 (it budgets each
// region by its setmaxnreg); nvJitLink 13.0 gives 154 (D = 64) and 166 (D =
// 128, with spills: it ignores the regions). With too few the consumers
// would wait forever, so the harness checks the entry's register count
// (CU_FUNC_ATTRIBUTE_NUM_REGS) against the launch JSON's "setmaxnreg" before
// it launches these.
ATTN_ENTRY(attn_fwd_ws_d64, 64, true, true, 384)
ATTN_ENTRY(attn_fwd_ws_d128, 128, true, true, 384)
#endif  // ATTN_HOST_CHECK
