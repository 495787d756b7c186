// The answer of sample 1 (model study, bench/hopper/study/run.sh), its launch block:
// {"block": [384, 1, 1], "grid": ["min(132, ceildiv(M, 128) * ceildiv(N, 256))", "1", "1"], "dynamic_shared_bytes": 197760, "tensor_maps": [{"name": "tmA", "arg": 0, "box": [128, 64], "swizzle": "128B", "interleave": "none", "l2_promotion": "128B", "oob_fill": "none"}, {"name": "tmB", "arg": 1, "box": [64, 64], "swizzle": "128B", "interleave": "none", "l2_promotion": "128B", "oob_fill": "none"}]}
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

// Descriptor constants: layout 1 (128B swizzle) at bit 62.
#define HG_DESC_A_HI ((1ull << 62) | ((unsigned long long)(1024 >> 4) << 32) | ((unsigned long long)(16 >> 4) << 16))
#define HG_DESC_B_HI ((1ull << 62) | ((unsigned long long)(1024 >> 4) << 32) | ((unsigned long long)(8192 >> 4) << 16))

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

template <int R> __device__ __forceinline__ void fence_acc(float (&d)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i)
    asm volatile("" : "+f"(d[i])::"memory");
}

__device__ __forceinline__ unsigned long long make_desc(unsigned addr, unsigned long long hi) {
  return hi | (unsigned long long)((addr & 0x3FFFFu) >> 4);
}

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

// m64n256k16, f32 += f16 x f16, A K-major (trans-a 0), B MN-major (trans-b 1).
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

extern "C" __global__ void __launch_bounds__(384, 1) hgemm(
    __half *arg0_allocated,
    __half *arg0,
    long long arg0_offset,
    long long arg0_size0,
    long long arg0_size1,
    long long arg0_stride0,
    long long arg0_stride1,
    __half *arg1_allocated,
    __half *arg1,
    long long arg1_offset,
    long long arg1_size0,
    long long arg1_size1,
    long long arg1_stride0,
    long long arg1_stride1,
    float *arg2_allocated,
    float *arg2,
    long long arg2_offset,
    long long arg2_size0,
    long long arg2_size1,
    long long arg2_stride0,
    long long arg2_stride1,
    const __grid_constant__ TensorMap tmA,
    const __grid_constant__ TensorMap tmB) {
  const long long M = arg0_size0;
  const long long K = arg0_size1;
  const long long N = arg1_size1;
  float *const c = arg2 + arg2_offset;
  const long long cs0 = arg2_stride0;
  const long long cs1 = arg2_stride1;

  extern __shared__ unsigned char hg_smem[];
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
    if (tid == 0) {
      tma_prefetch_desc(&tmA);
      tma_prefetch_desc(&tmB);
      int s = 0;
      unsigned phase = 0;
      for (int t = blockIdx.x; t < numTiles; t += gridDim.x) {
        int tm, tn;
        tile_coords(t, tilesM, tilesN, HG_GROUP_M, tm, tn);
        const int m0 = tm * HG_BM, n0 = tn * HG_BN;
        const long long nLeft = N - n0;
        const int boxes = nLeft >= 256 ? 4 : (int)((nLeft + 63) / 64);
        const unsigned txBytes = HG_A_BYTES + HG_B_BOX_BYTES * boxes;
        for (int kt = 0; kt < kTiles; ++kt) {
          mbar_wait(emptyBar + 8 * s, phase ^ 1);
          const unsigned full = fullBar + 8 * s;
          const unsigned sa = base + s * HG_STAGE_BYTES;
          mbar_arrive_expect_tx(full, txBytes);
          tma_load_2d(sa, &tmA, kt * HG_BK, m0, full);
          for (int j = 0; j < boxes; ++j)
            tma_load_2d(sa + HG_A_BYTES + j * HG_B_BOX_BYTES, &tmB, n0 + 64 * j, kt * HG_BK,
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
  const int cw = wg - 1;
  const int warp = (tid / 32) & 3;
  const int lane = tid & 31;
  const bool vec = (cs1 == 1) && ((cs0 & 1) == 0) &&
                   ((((unsigned long long)c) & 7ull) == 0ull);
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
        wgmma_m64n256k16(d, da + 2 * kk, db + 128 * kk);
      wgmma_commit();
      fence_acc(d);
      if (prev >= 0) {
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
    if (vec && (long long)(tm + 1) * HG_BM <= M && (long long)(tn + 1) * HG_BN <= N) {
      float *p0 = c + r0 * cs0 + col0;
      float *p8 = p0 + 8 * cs0;
#pragma unroll
      for (int i = 0; i < 32; ++i) {
        *reinterpret_cast<float2 *>(p0 + 8 * i) = make_float2(d[4 * i], d[4 * i + 1]);
        *reinterpret_cast<float2 *>(p8 + 8 * i) = make_float2(d[4 * i + 2], d[4 * i + 3]);
      }
    } else {
      const bool ok0 = r0 < M, ok8 = r0 + 8 < M;
#pragma unroll
      for (int i = 0; i < 32; ++i) {
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          const long long row = r0 + 8 * (j >> 1);
          const long long col = col0 + 8 * i + (j & 1);
          const bool okr = (j >> 1) ? ok8 : ok0;
          if (okr && col < N)
            c[row * cs0 + col * cs1] = d[4 * i + j];
        }
      }
    }
  }
}
