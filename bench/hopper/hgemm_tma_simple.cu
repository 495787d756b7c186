// hgemm_tma_simple: C = A x B on Hopper (sm_90a), CUDA C++ for NVRTC. The
// fallback of bench/hopper/hgemm_tma.cu: the same TMA loads, tensor maps,
// 128B swizzle and wgmma descriptors, without warp specialization.
//
//   A (M x K) f16 row-major, B (K x N) f16 row-major, C (M x N) f32 row-major,
//   f32 accumulation (wgmma f32.f16.f16).
//
// Design
//   * Block tile 128 x 128, K step 64, one warpgroup (128 threads) that both
//     loads (thread 0 issues the TMA copies) and computes; 3-stage ring, so
//     two blocks fit on an SM (2 x 99392 bytes of shared memory).
//   * Each K step: wait full[s] (mbarrier parity (kt / 3) & 1); 4 k16 steps x
//     (2 row halves x 2 column boxes) wgmma.mma_async m64n64k16 f32.f16.f16
//     (one 64-column box per instruction: the B descriptor's LBO is never
//     used, unlike the n256 instructions of hgemm_tma); commit;
//     wait_group 0; bar.sync (every warp is done reading stage s); thread 0
//     refills stage s with K step kt + 3 (arrive.expect_tx + TMA).
//   * Accumulators: acc[h][b][32] for row half h, column box b; fragment of
//     m64n64: warp w, lane l, g = l / 4, q = l % 4: acc[4i + j] is row
//     64h + 16w + g + 8(j / 2), column 64b + 8i + 2q + (j % 2), i = 0..7.
//     Stored with st.global.v2.f32.
//
// Shared memory (dynamic, base rounded up to 1024): stage s at 32768 s:
//   A 128 x 64 (16384 B, one TMA box {64, 128}, row m at 128 m), then B as
//   two boxes {64 (N), 64 (K)} of 8192 B (k row at 128 k); all 128B-swizzled.
//   full[3] barriers at 98304. 1024 + 98304 + 64 -> 99392 bytes.
//
// Descriptors (layout 1 = 128B swizzle at bits 62-63):
//   A K-major: LBO 16 (unused), SBO 1024; row half h: + 8192 h; k16 step kk:
//     + 32 kk bytes.
//   B MN-major (trans-b 1): LBO 8192 (unused by n64), SBO 1024; box b:
//     + 8192 b; k16 step kk: + 2048 kk bytes.
//
// Launch and tensor maps (the pipeline's launch block):
// {"block": [128, 1, 1], "grid": ["ceildiv(N, 128)", "ceildiv(M, 128)", "1"],
//  "dynamic_shared_bytes": 99392,
//  "tensor_maps": [
//    {"name": "tmA", "arg": 0, "box": [128, 64], "swizzle": "128B",
//     "interleave": "none", "l2_promotion": "256B", "oob_fill": "none"},
//    {"name": "tmB", "arg": 1, "box": [64, 64], "swizzle": "128B",
//     "interleave": "none", "l2_promotion": "256B", "oob_fill": "none"}]}
//   (the same maps as hgemm_tma: tmA globalDim {K, M}, box {64, 128}; tmB
//   globalDim {N, K}, box {64, 64}; strides {row stride * 2}).
//
// Requirements as hgemm_tma: innermost strides 1, 16-byte aligned bases and
// row strides (K % 8 == 0, N % 8 == 0), C 8-byte aligned with an even row
// stride; any M, N, K otherwise (TMA zero-fills partial tiles, the epilogue
// guards them). 99392 bytes of dynamic shared memory (> 48 KB).
//
// Build: build/bin/llmptx-ptx cuda --chip sm_90a bench/hopper/hgemm_tma_simple.cu
//          -o bench/hopper/hgemm_tma_simple.ptx
// Run:   python3 bench/hopper/run_gemm.py (runs both kernels)
#include <cuda_fp16.h>

struct alignas(64) TensorMap {
  unsigned long long opaque[16];
};

#define HS_BM 128
#define HS_BN 128
#define HS_BK 64
#define HS_STAGES 3
#define HS_A_BYTES 16384
#define HS_B_BOX_BYTES 8192
#define HS_STAGE_BYTES 32768
#define HS_BAR_OFFSET 98304

#define HS_DESC_A_HI ((1ull << 62) | ((unsigned long long)(1024 >> 4) << 32) | ((unsigned long long)(16 >> 4) << 16))
#define HS_DESC_B_HI ((1ull << 62) | ((unsigned long long)(1024 >> 4) << 32) | ((unsigned long long)(8192 >> 4) << 16))

// ---------------------------------------------------------------------------
// PTX helpers
// ---------------------------------------------------------------------------
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

// Grouped tile order: tiles t = 0.. of a tilesM x tilesN grid, GROUP_M
// tile rows per group, tile rows fastest inside a group.
__device__ __forceinline__ void tile_coords(int t, int tilesM, int tilesN, int groupM, int &tm,
                                            int &tn) {
  const int perGroup = groupM * tilesN;
  const int group = t / perGroup;
  const int firstM = group * groupM;
  const int rows = min(tilesM - firstM, groupM);
  const int in = t - group * perGroup;
  tm = firstM + in % rows;
  tn = in / rows;
}

// m64n64k16, f32 += f16 x f16, A K-major (trans-a 0), B MN-major (trans-b 1),
// scale-d 1 (accumulate; the accumulators start at zero).
__device__ __forceinline__ void wgmma_m64n64k16(float (&d)[32], unsigned long long da,
                                               unsigned long long db) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
      " %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31},"
      " %32, %33, p, 1, 1, 0, 1;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(da), "l"(db), "r"(1)
      : "memory");
}
// ---------------------------------------------------------------------------
// The kernel
// ---------------------------------------------------------------------------
__device__ __forceinline__ void hs_load_stage(unsigned base, unsigned fullBar, int s, int kt,
                                              int m0, int n0, int boxes,
                                              const TensorMap *tmA, const TensorMap *tmB) {
  const unsigned full = fullBar + 8 * s;
  const unsigned sa = base + s * HS_STAGE_BYTES;
  mbar_arrive_expect_tx(full, HS_A_BYTES + HS_B_BOX_BYTES * boxes);
  tma_load_2d(sa, tmA, kt * HS_BK, m0, full);
  for (int j = 0; j < boxes; ++j)
    tma_load_2d(sa + HS_A_BYTES + j * HS_B_BOX_BYTES, tmB, n0 + 64 * j, kt * HS_BK, full);
}

__device__ __forceinline__ void hs_store(float *c, long long ldc, long long M, long long N,
                                         long long r0, long long col0, bool full,
                                         const float (&acc)[32]) {
  float *p0 = c + r0 * ldc + col0;
  float *p8 = p0 + 8 * ldc;
  if (full) {
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      *reinterpret_cast<float2 *>(p0 + 8 * i) = make_float2(acc[4 * i], acc[4 * i + 1]);
      *reinterpret_cast<float2 *>(p8 + 8 * i) = make_float2(acc[4 * i + 2], acc[4 * i + 3]);
    }
  } else {
    const bool ok0 = r0 < M, ok8 = r0 + 8 < M;
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      if (col0 + 8 * i < N) {
        if (ok0)
          *reinterpret_cast<float2 *>(p0 + 8 * i) = make_float2(acc[4 * i], acc[4 * i + 1]);
        if (ok8)
          *reinterpret_cast<float2 *>(p8 + 8 * i) = make_float2(acc[4 * i + 2], acc[4 * i + 3]);
      }
    }
  }
}

extern "C" __global__ void __launch_bounds__(128, 2)
hgemm_tma_simple(const __half *a_allocated, const __half *a_aligned, long long a_offset,
                 long long a_size0, long long a_size1, long long a_stride0, long long a_stride1,
                 const __half *b_allocated, const __half *b_aligned, long long b_offset,
                 long long b_size0, long long b_size1, long long b_stride0, long long b_stride1,
                 float *c_allocated, float *c_aligned, long long c_offset, long long c_size0,
                 long long c_size1, long long c_stride0, long long c_stride1,
                 const __grid_constant__ TensorMap tmA, const __grid_constant__ TensorMap tmB) {
  extern __shared__ unsigned char hs_smem[];
  const unsigned base = (smem_u32(hs_smem) + 1023u) & ~1023u;
  const unsigned fullBar = base + HS_BAR_OFFSET;

  const int tid = threadIdx.x;
  const int warp = tid / 32, lane = tid & 31;
  const long long M = a_size0, K = a_size1, N = b_size1;
  const int kTiles = (int)((K + HS_BK - 1) / HS_BK);
  const int m0 = blockIdx.y * HS_BM, n0 = blockIdx.x * HS_BN;
  const long long nLeft = N - n0;
  // B boxes wholly right of N are not loaded (their columns are never
  // stored); n0 < N, so the first box always is.
  const int boxes = nLeft > 64 ? 2 : 1;

  if (tid == 0) {
    tma_prefetch_desc(&tmA);
    tma_prefetch_desc(&tmB);
#pragma unroll
    for (int s = 0; s < HS_STAGES; ++s)
      mbar_init(fullBar + 8 * s, 1);
    mbar_init_fence();
  }
  __syncthreads();
  if (tid == 0)
    for (int kt = 0; kt < HS_STAGES && kt < kTiles; ++kt)
      hs_load_stage(base, fullBar, kt, kt, m0, n0, boxes, &tmA, &tmB);

  float acc00[32], acc01[32], acc10[32], acc11[32];
#pragma unroll
  for (int i = 0; i < 32; ++i) {
    acc00[i] = 0.0f;
    acc01[i] = 0.0f;
    acc10[i] = 0.0f;
    acc11[i] = 0.0f;
  }

  int s = 0;
  unsigned phase = 0;
  for (int kt = 0; kt < kTiles; ++kt) {
    mbar_wait(fullBar + 8 * s, phase);
    const unsigned sa = base + s * HS_STAGE_BYTES;
    const unsigned long long da0 = make_desc(sa, HS_DESC_A_HI);
    const unsigned long long da1 = make_desc(sa + 8192, HS_DESC_A_HI);
    const unsigned long long db0 = make_desc(sa + HS_A_BYTES, HS_DESC_B_HI);
    const unsigned long long db1 = make_desc(sa + HS_A_BYTES + HS_B_BOX_BYTES, HS_DESC_B_HI);
    fence_acc(acc00);
    fence_acc(acc01);
    fence_acc(acc10);
    fence_acc(acc11);
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      wgmma_m64n64k16(acc00, da0 + 2 * kk, db0 + 128 * kk);
      wgmma_m64n64k16(acc01, da0 + 2 * kk, db1 + 128 * kk);
      wgmma_m64n64k16(acc10, da1 + 2 * kk, db0 + 128 * kk);
      wgmma_m64n64k16(acc11, da1 + 2 * kk, db1 + 128 * kk);
    }
    wgmma_commit();
    wgmma_wait<0>();
    fence_acc(acc00);
    fence_acc(acc01);
    fence_acc(acc10);
    fence_acc(acc11);
    // Every warp has finished reading stage s: refill it.
    __syncthreads();
    if (tid == 0 && kt + HS_STAGES < kTiles)
      hs_load_stage(base, fullBar, s, kt + HS_STAGES, m0, n0, boxes, &tmA, &tmB);
    if (++s == HS_STAGES) {
      s = 0;
      phase ^= 1;
    }
  }

  float *const c = c_aligned + c_offset;
  const bool full = (long long)m0 + HS_BM <= M && (long long)n0 + HS_BN <= N;
  const long long r0 = (long long)m0 + warp * 16 + (lane >> 2);
  const long long col0 = (long long)n0 + (lane & 3) * 2;
  hs_store(c, c_stride0, M, N, r0, col0, full, acc00);
  hs_store(c, c_stride0, M, N, r0, col0 + 64, full, acc01);
  hs_store(c, c_stride0, M, N, r0 + 64, col0, full, acc10);
  hs_store(c, c_stride0, M, N, r0 + 64, col0 + 64, full, acc11);
}
