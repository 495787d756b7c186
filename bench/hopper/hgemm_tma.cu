// hgemm_tma: C = A x B on Hopper (sm_90a), CUDA C++ for NVRTC.
//
//   A (M x K) f16 row-major, B (K x N) f16 row-major, C (M x N) f32 row-major,
//   f32 accumulation (wgmma f32.f16.f16). Proof kernel for issue 27 item 3.
//
// Design
//   * Block tile 128 x 256 (BM x BN), K step BK = 64, 4-stage smem ring.
//   * 384 threads = 3 warpgroups (WG):
//       WG0 producer: setmaxnreg.dec 40; one thread issues the TMA loads
//         (cp.async.bulk.tensor.2d ... mbarrier::complete_tx::bytes), the
//         other producer warps exit.
//       WG1, WG2 consumers: setmaxnreg.inc 200; consumer c = WG - 1 owns
//         rows 64c..64c+63 of the tile: 4 x wgmma.mma_async m64n256k16
//         f32.f16.f16 per K step, 128 f32 accumulators per thread.
//   * Persistent: grid = min(132, tiles); block b takes tiles b, b + grid,
//     ... in a grouped order (16 tile rows per group, tile rows fastest
//     inside a group) so concurrent tiles share A and B panels in L2. The
//     producer runs ahead into the next tile while consumers store C.
//   * Pipeline: full[s] (count 1: the producer's arrive.expect_tx + the
//     TMA bytes) and empty[s] (count 8: lane 0 of each of the 8 consumer
//     warps, after wgmma.wait_group shows the stage's MMAs are done).
//     Ring use (it = the running K-step counter, s = it % 4,
//     r = it / 4): consumers wait full[s] with parity r & 1; the producer
//     waits empty[s] with parity (r & 1) ^ 1 (a fresh barrier passes
//     parity 1 at once, so round 0 does not wait).
//   * Consumer K loop: wait full[s]; wgmma.fence; 4 wgmma (k16 steps);
//     commit; wgmma.wait_group 1 (so step it-1 is done) and release
//     stage of it-1; after the last step wait_group 0 and release.
//   * Epilogue: direct st.global.v2.f32 of the accumulator fragment:
//     warp w (of the WG), lane l, g = l / 4, q = l % 4: d[4i + j] is row
//     64c + 16w + g + 8(j / 2), column 8i + 2q + (j % 2), i = 0..31. Each
//     warp store writes 8 rows x 32 contiguous bytes (full sectors).
//
// Shared memory (dynamic; base rounded up to 1024 bytes in the kernel):
//   stage s at 49152 s: A tile 128 x 64 f16 (16384 B, one TMA box
//   {64, 128}: row m at 128 m, 128B-swizzled), then B tile 64 x 256 f16
//   as four TMA boxes {64 (N), 64 (K)} of 8192 B each (box j = columns
//   64j..64j+63; k row at 128 k, 128B-swizzled). Barriers after the ring:
//   full[4], empty[4] at 196608. Bytes: 1024 (alignment slack) + 196608
//   + 64 (barriers) -> 197760 dynamic.
//
// wgmma descriptors (bits 0-13 addr >> 4, 16-29 LBO >> 4, 32-45 SBO >> 4,
// 49-51 base offset 0, 62-63 layout 1 = 128B swizzle):
//   A, K-major (imm-trans-a 0): LBO 16 (unused for swizzled K-major), SBO
//     1024 (next 8 rows); consumer c: + 8192 c; k16 step kk: + 32 kk bytes.
//   B, MN-major (imm-trans-b 1): LBO 8192 (next 64-column box), SBO 1024
//     (next 8 k rows); k16 step kk: + 2048 kk bytes (16 k rows).
//   Every stage and every box starts 1024-aligned, so TMA's 128B swizzle
//   (16-byte chunk index ^= row % 8 inside each 1024-byte atom) and wgmma's
//   agree.
//
// Launch and tensor maps (the pipeline's launch block):
// {"block": [384, 1, 1],
//  "grid": ["min(132, ceildiv(M, 128) * ceildiv(N, 256))", "1", "1"],
//  "dynamic_shared_bytes": 197760,
//  "tensor_maps": [
//    {"name": "tmA", "arg": 0, "box": [128, 64], "swizzle": "128B",
//     "interleave": "none", "l2_promotion": "256B", "oob_fill": "none"},
//    {"name": "tmB", "arg": 1, "box": [64, 64], "swizzle": "128B",
//     "interleave": "none", "l2_promotion": "256B", "oob_fill": "none"}]}
//   tmA: f16, globalDim {K, M}, globalStrides {a.stride0 * 2}, box {64, 128}.
//   tmB: f16, globalDim {N, K}, globalStrides {b.stride0 * 2}, box {64, 64}.
//   Base: aligned pointer + offset. Element strides 1.
//
// Requirements: innermost strides 1 (a, b, c row-major); base pointers and
// row strides in bytes multiples of 16 (so K % 8 == 0 and N % 8 == 0, which
// TMA needs); C 8-byte aligned with an even row stride. Any M, N, K >= 1
// otherwise: partial tiles are zero-filled by TMA (OOB fill none = zeros,
// and the transaction count is the whole box) and guarded in the epilogue.
// Whole tiles (M % 128 == 0 and N % 256 == 0, as at the timing sizes; with
// N % 256 == 128 the last tile column is half empty) take the unguarded
// store path; K % 64 == 0 wastes no MMA. Dynamic shared memory 197760 bytes
// (> 48 KB: the host sets CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES).
//
// ptxas 13.0: hgemm_tma 168 registers, hgemm_tma_plain 157, no spills, no
// wgmma serialization warning. llmptx-ptx lint warns that about 309
// registers are live at the per-tile accumulator reset: NVVM's copies of the
// 128 accumulators, which ptxas coalesces (no spills).
//
// Registers and setmaxnreg: setmaxnreg.inc takes registers from the CTA's
// pool, which is what the launch allocated: 384 x (the entry's register
// count rounded up to 8). The launch bound (384, 1) caps that count at 168
// but does not fix it: ptxas 13.0 gives hgemm_tma 168, nvJitLink 13.0 (and
// so, likely, the driver's JIT) 157. The split is therefore sized for any
// count from 145 up: 128 x 40 + 256 x 200 = 56320 <= 384 x 152, and 200 is
// above every count the entry can have, so .inc always increases. Below 145
// registers setmaxnreg.inc 200 would wait forever; run_gemm.py checks the
// count (CU_FUNC_ATTRIBUTE_NUM_REGS) before it launches hgemm_tma. The
// consumers' code fits 157 registers without spills anyway, so the split
// buys headroom, not speed; hgemm_tma_plain is the same kernel without it.
//
// Entries: hgemm_tma (with setmaxnreg), hgemm_tma_plain (without); same
// ABI, launch block and tensor maps.
//
// Build: build/bin/llmptx-ptx cuda --chip sm_90a bench/hopper/hgemm_tma.cu
//          -o bench/hopper/hgemm_tma.ptx
//        /usr/local/cuda/bin/ptxas -arch=sm_90a -v bench/hopper/hgemm_tma.ptx
//          -o /dev/null
// Run:   python3 bench/hopper/run_gemm.py --ptx bench/hopper/hgemm_tma.ptx
#include <cuda_fp16.h>

struct alignas(64) TensorMap {
  unsigned long long opaque[16];
};

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

// m64n256k16, f32 += f16 x f16, A K-major (trans-a 0), B MN-major (trans-b 1),
// scale-d 1 (accumulate; the accumulators are zeroed per tile).
__device__ __forceinline__ void wgmma_m64n256k16(float (&d)[128], unsigned long long da,
                                               unsigned long long db) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "setp.ne.b32 p, %130, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
      " %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31,"
      " %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47,"
      " %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63,"
      " %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79,"
      " %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95,"
      " %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111,"
      " %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127},"
      " %128, %129, p, 1, 1, 0, 1;\n"
      "}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
        "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
        "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
        "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
        "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
        "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
        "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
        "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
        "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "l"(da), "l"(db), "r"(1)
      : "memory");
}
// ---------------------------------------------------------------------------
// The kernel
// ---------------------------------------------------------------------------
// The kernel body; kSetMaxNReg: the producer/consumer register split.
template <bool kSetMaxNReg>
__device__ __forceinline__ void hgemm_tma_body(long long M, long long K, long long N, float *c,
                                               long long c_stride0, const TensorMap *tmA,
                                               const TensorMap *tmB) {
  extern __shared__ unsigned char hg_smem[];
  // 1024-aligned base: TMA's and wgmma's 128B swizzle are functions of the
  // address bits 4-9, so every tile must start on a 1024-byte boundary.
  const unsigned base = (smem_u32(hg_smem) + 1023u) & ~1023u;
  const unsigned fullBar = base + HG_BAR_OFFSET;  // full[s] at fullBar + 8 s
  const unsigned emptyBar = fullBar + 8 * HG_STAGES;

  const int tid = threadIdx.x;
  const int tilesM = (int)((M + HG_BM - 1) / HG_BM);
  const int tilesN = (int)((N + HG_BN - 1) / HG_BN);
  const int numTiles = tilesM * tilesN;
  const int kTiles = (int)((K + HG_BK - 1) / HG_BK);

  if (tid == 0) {
#pragma unroll
    for (int s = 0; s < HG_STAGES; ++s) {
      mbar_init(fullBar + 8 * s, 1);
      mbar_init(emptyBar + 8 * s, HG_CONSUMER_ARRIVALS);
    }
    mbar_init_fence();
  }
  __syncthreads();

  const int wg = tid / 128;
  if (wg == 0) {
    // ---------------- producer warpgroup ----------------
    if (kSetMaxNReg)
      asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(HG_PRODUCER_REGS));
    if (tid == 0) {
      tma_prefetch_desc(tmA);
      tma_prefetch_desc(tmB);
      int s = 0;
      unsigned phase = 0;  // r & 1 of the ring round of stage s
      for (int t = blockIdx.x; t < numTiles; t += gridDim.x) {
        int tm, tn;
        tile_coords(t, tilesM, tilesN, HG_GROUP_M, tm, tn);
        const int m0 = tm * HG_BM, n0 = tn * HG_BN;
        // B boxes wholly right of N are not loaded (their columns are never
        // stored); partial boxes are zero-filled by TMA and count in full.
        const long long nLeft = N - n0;
        const int boxes = nLeft >= 256 ? 4 : (int)((nLeft + 63) / 64);
        const unsigned txBytes = HG_A_BYTES + HG_B_BOX_BYTES * boxes;
        for (int kt = 0; kt < kTiles; ++kt) {
          mbar_wait(emptyBar + 8 * s, phase ^ 1);
          const unsigned full = fullBar + 8 * s;
          const unsigned sa = base + s * HG_STAGE_BYTES;
          mbar_arrive_expect_tx(full, txBytes);
          tma_load_2d(sa, tmA, kt * HG_BK, m0, full);
          for (int j = 0; j < boxes; ++j)
            tma_load_2d(sa + HG_A_BYTES + j * HG_B_BOX_BYTES, tmB, n0 + 64 * j, kt * HG_BK,
                        full);
          if (++s == HG_STAGES) {
            s = 0;
            phase ^= 1;
          }
        }
      }
    }
    return;
  }

  // ---------------- consumer warpgroups ----------------
  if (kSetMaxNReg)
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(HG_CONSUMER_REGS));
  const int cw = wg - 1;             // rows 64 cw .. 64 cw + 63 of the tile
  const int warp = (tid / 32) & 3;   // warp within the warpgroup
  const int lane = tid & 31;
  int s = 0;
  unsigned phase = 0;
  float d[128];
  for (int t = blockIdx.x; t < numTiles; t += gridDim.x) {
    int tm, tn;
    tile_coords(t, tilesM, tilesN, HG_GROUP_M, tm, tn);
#pragma unroll
    for (int i = 0; i < 128; ++i)
      d[i] = 0.0f;
    int prev = -1;
    for (int kt = 0; kt < kTiles; ++kt) {
      mbar_wait(fullBar + 8 * s, phase);
      const unsigned sa = base + s * HG_STAGE_BYTES;
      const unsigned long long da = make_desc(sa + cw * 8192, HG_DESC_A_HI);
      const unsigned long long db = make_desc(sa + HG_A_BYTES, HG_DESC_B_HI);
      fence_acc(d);
      wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < 4; ++kk)
        // A: + 32 bytes per k16 step (2 in the >> 4 field); B: + 2048 bytes
        // (16 k rows of 128 bytes; 128 in the >> 4 field).
        wgmma_m64n256k16(d, da + 2 * kk, db + 128 * kk);
      wgmma_commit();
      fence_acc(d);
      if (prev >= 0) {
        // Step kt - 1's MMAs are done: its stage may be refilled.
        wgmma_wait<1>();
        fence_acc(d);
        if (lane == 0)
          mbar_arrive(emptyBar + 8 * prev);
      }
      prev = s;
      if (++s == HG_STAGES) {
        s = 0;
        phase ^= 1;
      }
    }
    wgmma_wait<0>();
    fence_acc(d);
    if (prev >= 0 && lane == 0)
      mbar_arrive(emptyBar + 8 * prev);

    // Epilogue: thread holds rows r0 and r0 + 8, columns col0 + 8 i (+1).
    const long long r0 = (long long)tm * HG_BM + cw * 64 + warp * 16 + (lane >> 2);
    const long long col0 = (long long)tn * HG_BN + (lane & 3) * 2;
    float *p0 = c + r0 * c_stride0 + col0;
    float *p8 = p0 + 8 * c_stride0;
    if ((long long)(tm + 1) * HG_BM <= M && (long long)(tn + 1) * HG_BN <= N) {
#pragma unroll
      for (int i = 0; i < 32; ++i) {
        *reinterpret_cast<float2 *>(p0 + 8 * i) = make_float2(d[4 * i], d[4 * i + 1]);
        *reinterpret_cast<float2 *>(p8 + 8 * i) = make_float2(d[4 * i + 2], d[4 * i + 3]);
      }
    } else {
      const bool ok0 = r0 < M, ok8 = r0 + 8 < M;
#pragma unroll
      for (int i = 0; i < 32; ++i) {
        if (col0 + 8 * i < N) {  // N even: the pair col, col + 1 is in or out
          if (ok0)
            *reinterpret_cast<float2 *>(p0 + 8 * i) = make_float2(d[4 * i], d[4 * i + 1]);
          if (ok8)
            *reinterpret_cast<float2 *>(p8 + 8 * i) = make_float2(d[4 * i + 2], d[4 * i + 3]);
        }
      }
    }
  }
}

// The memref ABI (a, b, c: allocated, aligned, offset, size0, size1, stride0,
// stride1), then the tensor maps by value.
#define HG_PARAMS                                                                          \
  const __half *a_allocated, const __half *a_aligned, long long a_offset, long long a_size0, \
      long long a_size1, long long a_stride0, long long a_stride1,                           \
      const __half *b_allocated, const __half *b_aligned, long long b_offset,                \
      long long b_size0, long long b_size1, long long b_stride0, long long b_stride1,        \
      float *c_allocated, float *c_aligned, long long c_offset, long long c_size0,           \
      long long c_size1, long long c_stride0, long long c_stride1,                           \
      const __grid_constant__ TensorMap tmA, const __grid_constant__ TensorMap tmB

// Producer warpgroup at 40 registers, consumers at 200 (see the header).
extern "C" __global__ void __launch_bounds__(384, 1) hgemm_tma(HG_PARAMS) {
  hgemm_tma_body<true>(a_size0, a_size1, b_size1, c_aligned + c_offset, c_stride0, &tmA, &tmB);
}

// The same kernel without setmaxnreg (every warp keeps the registers of the
// launch): for a JIT that gives the entry too few registers for the split.
extern "C" __global__ void __launch_bounds__(384, 1) hgemm_tma_plain(HG_PARAMS) {
  hgemm_tma_body<false>(a_size0, a_size1, b_size1, c_aligned + c_offset, c_stride0, &tmA, &tmB);
}
