// attn_fwd_mma.cu -- attention forward, the simple fallback: FlashAttention-2
// style on mma.sync m16n8k16 + ldmatrix + cp.async (runs on sm_80 and up; built
// for sm_90a here). No tensor maps.
//
// Compile (as the pipeline does, NVRTC):
//   build/bin/llmptx-ptx cuda --chip sm_90a bench/hopper/attn_fwd_mma.cu -o bench/hopper/attn_fwd_mma.ptx
//
// What it computes: the same as attn_fwd.cu. Per bh,
//   O[bh] = softmax(Q[bh] K[bh]^T * scale [+ causal mask]) V[bh]
// Q, K, V, O: (BH, S, D) f16 row-major, f32 accumulation, O rounded to f16.
// Causal: key j visible to query i iff j <= i.
//
// Entry points: attn_fwd_mma_d64, attn_fwd_mma_d128
// Parameters: the memref ABI of q, k, v, o (9 each: allocated, aligned,
// offset, size0 = BH, size1 = S, size2 = D, stride0, stride1, stride2; in
// elements), then float scale, int causal. No tensor maps.
//
// Requirements
//   * D = size2 = 64 or 128 (matching the entry), else trap. Any S >= 1.
//   * stride2 == 1; aligned + offset 16-byte aligned and stride0, stride1
//     multiples of 8 elements for q, k, v and o (16-byte cp.async / stores).
//   * BH <= 65535.
//
// Design
//   CTA = 4 warps (128 threads), BM = 64 query rows (16 per warp), key tiles
//   of BN = 64, K and V double-buffered in shared memory with cp.async
//   (16 bytes, zero-fill past S), Q loaded once and kept as mma A fragments.
//   Per tile: S = Q K^T (mma.sync m16n8k16, K via ldmatrix.x4), mask when
//   the tile needs it (last tile past S; causal tiles past the warp's first
//   row), online softmax in the log2 domain (as attn_fwd.cu), P re-used from
//   the accumulators as f16 A fragments, O += P V (V via ldmatrix.x4.trans).
//   Causal: tiles 0 .. ceil(min(S, 64 (m + 1)) / 64) - 1, heaviest blocks
//   first. Epilogue: O / l to f16 through the warp's own Q rows in shared
//   memory, 16-byte coalesced stores of rows < S.
//   Shared memory rows are padded to D + 8 halves (conflict-free ldmatrix).
//
// Launch:
//   {"block": [128, 1, 1], "grid": ["ceildiv(S, 64)", "BH", "1"],
//    "dynamic_shared_bytes": 46080 (D=64) / 87040 (D=128), "tensor_maps": []}
//   (87040 > 48 KB: raise CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES.)

#ifndef ATTN_HOST_CHECK
#include <cuda_fp16.h>
#define ATTN_HD __host__ __device__
#else
#ifndef ATTN_HD
#define ATTN_HD
#endif
#endif

namespace attn_mma {

enum : int { BM = 64, BN = 64, NTHREADS = 128 };

template <int D> ATTN_HD constexpr int ld() { return D + 8; }  // padded row, halves
template <int D> ATTN_HD constexpr int tile_halves() { return 64 * ld<D>(); }
// shared layout (halves): Q, K[0], K[1], V[0], V[1]
template <int D> ATTN_HD constexpr int off_q() { return 0; }
template <int D> ATTN_HD constexpr int off_k(int s) { return (1 + s) * tile_halves<D>(); }
template <int D> ATTN_HD constexpr int off_v(int s) { return (3 + s) * tile_halves<D>(); }
template <int D> ATTN_HD constexpr int smem_bytes() { return 5 * tile_halves<D>() * 2; }

// ldmatrix row addresses (in halves, relative to the tile) given by lane L.
// Q as A of m16n8k16, warp w, k step kk: matrices (rows 0-7, k 0-7),
// (rows 8-15, k 0-7), (rows 0-7, k 8-15), (rows 8-15, k 8-15) -> a0..a3.
template <int D> ATTN_HD constexpr int q_ldm_off(int w, int L, int kk) {
  return (16 * w + (L & 7) + 8 * ((L >> 3) & 1)) * ld<D>() + 16 * kk + 8 * (L >> 4);
}
// K as B (k = d, n = key), n8 blocks nb, nb + 1, k step kk: matrices
// (keys 8nb.., d 16kk..), (keys 8nb.., d 16kk+8..), (keys 8nb+8.., d 16kk..),
// (keys 8nb+8.., d 16kk+8..) -> b0(nb), b1(nb), b0(nb+1), b1(nb+1).
template <int D> ATTN_HD constexpr int k_ldm_off(int L, int nb, int kk) {
  return (8 * (nb + (L >> 4)) + (L & 7)) * ld<D>() + 16 * kk + 8 * ((L >> 3) & 1);
}
// V as B (k = key, n = d), transposed load, d blocks nb, nb + 1, k step kk:
// matrices (keys 16kk.., d 8nb..), (keys 16kk+8.., d 8nb..),
// (keys 16kk.., d 8nb+8..), (keys 16kk+8.., d 8nb+8..) -> b0(nb), b1(nb), b0(nb+1), b1(nb+1).
template <int D> ATTN_HD constexpr int v_ldm_off(int L, int nb, int kk) {
  return (16 * kk + 8 * ((L >> 3) & 1) + (L & 7)) * ld<D>() + 8 * (nb + (L >> 4));
}

ATTN_HD constexpr int num_key_tiles(int mblk, int S, int causal) {
  return causal ? ((S < (mblk + 1) * BM ? S : (mblk + 1) * BM) + BN - 1) / BN : (S + BN - 1) / BN;
}
ATTN_HD constexpr bool is_masked(int row, int col, int S, int causal) { return col >= S || (causal && col > row); }
// Does tile j need masking anywhere in warp w's 16 rows?
ATTN_HD constexpr bool tile_needs_mask(int j, int mblk, int w, int S, int causal) {
  return (j + 1) * BN > S || (causal && (j + 1) * BN - 1 > mblk * BM + 16 * w);
}

}  // namespace attn_mma

#ifndef ATTN_HOST_CHECK
namespace attn_mma {

__device__ __forceinline__ unsigned smem_u32(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void cp_async16(unsigned dst, const void* src, unsigned src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(src_bytes) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}
__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr)
               : "memory");
}
__device__ __forceinline__ void ldmatrix_x4_trans(unsigned (&r)[4], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr)
               : "memory");
}
// c[4] += A (a[4], m16 x k16, row) * B (b0, b1, k16 x n8, col)
__device__ __forceinline__ void mma16816(float* c, const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
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

// Copy rows r0 .. r0 + 63 (zero past S) of one (S, D) matrix into a padded tile.
template <int D>
__device__ __forceinline__ void load_tile(unsigned dst, const __half* src, long long stride1, int r0, int S,
                                          int tid) {
  constexpr int UNITS = D / 8;  // 16-byte units per row
#pragma unroll
  for (int it = 0; it < 64 * UNITS / NTHREADS; ++it) {
    const int u = it * NTHREADS + tid;
    const int r = u / UNITS, c = (u % UNITS) * 8;
    const int grow = r0 + r;
    const bool ok = grow < S;
    cp_async16(dst + (unsigned)(r * ld<D>() + c) * 2u, src + (long long)(ok ? grow : 0) * stride1 + c, ok ? 16u : 0u);
  }
}

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
    alpha[r] = ex2(m[r] * sl2 - base[r]);
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

template <int D>
__device__ __forceinline__ void attn_fwd_mma_body(const __half* __restrict__ q, const __half* __restrict__ k,
                                                  const __half* __restrict__ v, __half* __restrict__ o,
                                                  long long q_size1, long long q_size2, long long q_st0,
                                                  long long q_st1, long long k_st0, long long k_st1,
                                                  long long v_st0, long long v_st1, long long o_st0,
                                                  long long o_st1, float scale, int causal) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  if (q_size2 != D) asm volatile("trap;");
  const int S = (int)q_size1;
  const int bh = blockIdx.y;
  const int mblk = causal ? (int)(gridDim.x - 1 - blockIdx.x) : (int)blockIdx.x;
  const int m0 = mblk * BM;
  const int nt = num_key_tiles(mblk, S, causal);
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;

  const unsigned sbase = smem_u32(smem_raw);
  const unsigned sQ = sbase + off_q<D>() * 2;
  const __half* qh = q + (long long)bh * q_st0;
  const __half* kh = k + (long long)bh * k_st0;
  const __half* vh = v + (long long)bh * v_st0;

  load_tile<D>(sQ, qh, q_st1, m0, S, tid);
  load_tile<D>(sbase + off_k<D>(0) * 2, kh, k_st1, 0, S, tid);
  load_tile<D>(sbase + off_v<D>(0) * 2, vh, v_st1, 0, S, tid);
  cp_async_commit();

  const int row0 = m0 + 16 * warp + (lane >> 2);  // this thread's rows: row0, row0 + 8
  const float sl2 = scale * 1.4426950408889634f;
  unsigned qf[D / 16][4];
  float o_acc[D / 2];
#pragma unroll
  for (int i = 0; i < D / 2; ++i) o_acc[i] = 0.f;
  float m[2] = {-__int_as_float(0x7f800000), -__int_as_float(0x7f800000)};
  float l[2] = {0.f, 0.f};

  for (int j = 0; j < nt; ++j) {
    const int st = j & 1;
    if (j + 1 < nt) {
      load_tile<D>(sbase + off_k<D>(st ^ 1) * 2, kh, k_st1, (j + 1) * BN, S, tid);
      load_tile<D>(sbase + off_v<D>(st ^ 1) * 2, vh, v_st1, (j + 1) * BN, S, tid);
    }
    cp_async_commit();
    cp_async_wait<1>();  // everything but the newest group: tile j (and Q) landed
    __syncthreads();
    if (j == 0) {
#pragma unroll
      for (int kk = 0; kk < D / 16; ++kk) ldmatrix_x4(qf[kk], sQ + q_ldm_off<D>(warp, lane, kk) * 2);
    }
    const unsigned sK = sbase + off_k<D>(st) * 2, sV = sbase + off_v<D>(st) * 2;

    float s[BN / 2];
#pragma unroll
    for (int i = 0; i < BN / 2; ++i) s[i] = 0.f;
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
#pragma unroll
      for (int nb = 0; nb < BN / 8; nb += 2) {
        unsigned b[4];
        ldmatrix_x4(b, sK + k_ldm_off<D>(lane, nb, kk) * 2);
        mma16816(&s[4 * nb], qf[kk], b[0], b[1]);
        mma16816(&s[4 * (nb + 1)], qf[kk], b[2], b[3]);
      }
    }

    float alpha[2];
    if (tile_needs_mask(j, mblk, warp, S, causal))
      softmax_tile<true>(s, m, l, alpha, sl2, row0, j * BN + 2 * (lane & 3), S, causal);
    else
      softmax_tile<false>(s, m, l, alpha, sl2, row0, j * BN + 2 * (lane & 3), S, causal);
#pragma unroll
    for (int i = 0; i < D / 8; ++i) {
      o_acc[4 * i + 0] *= alpha[0];
      o_acc[4 * i + 1] *= alpha[0];
      o_acc[4 * i + 2] *= alpha[1];
      o_acc[4 * i + 3] *= alpha[1];
    }
#pragma unroll
    for (int kk = 0; kk < BN / 16; ++kk) {
      unsigned p[4];
      p[0] = pack_half2(s[8 * kk + 0], s[8 * kk + 1]);
      p[1] = pack_half2(s[8 * kk + 2], s[8 * kk + 3]);
      p[2] = pack_half2(s[8 * kk + 4], s[8 * kk + 5]);
      p[3] = pack_half2(s[8 * kk + 6], s[8 * kk + 7]);
#pragma unroll
      for (int nb = 0; nb < D / 8; nb += 2) {
        unsigned b[4];
        ldmatrix_x4_trans(b, sV + v_ldm_off<D>(lane, nb, kk) * 2);
        mma16816(&o_acc[4 * nb], p, b[0], b[1]);
        mma16816(&o_acc[4 * (nb + 1)], p, b[2], b[3]);
      }
    }
    __syncthreads();  // stage st is refilled in iteration j + 1
  }
  cp_async_wait<0>();

  // Epilogue: normalize, stage the warp's 16 rows through its own Q rows.
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    l[r] += __shfl_xor_sync(0xffffffffu, l[r], 1);
    l[r] += __shfl_xor_sync(0xffffffffu, l[r], 2);
  }
  const float inv0 = l[0] > 0.f ? 1.f / l[0] : 0.f;
  const float inv1 = l[1] > 0.f ? 1.f / l[1] : 0.f;
  const int rl0 = 16 * warp + (lane >> 2);
#pragma unroll
  for (int i = 0; i < D / 8; ++i) {
    const int c = 8 * i + 2 * (lane & 3);
    asm volatile("st.shared.b32 [%0], %1;" ::"r"(sQ + (unsigned)(rl0 * ld<D>() + c) * 2u),
                 "r"(pack_half2(o_acc[4 * i + 0] * inv0, o_acc[4 * i + 1] * inv0))
                 : "memory");
    asm volatile("st.shared.b32 [%0], %1;" ::"r"(sQ + (unsigned)((rl0 + 8) * ld<D>() + c) * 2u),
                 "r"(pack_half2(o_acc[4 * i + 2] * inv1, o_acc[4 * i + 3] * inv1))
                 : "memory");
  }
  __syncwarp();
  constexpr int UNITS = D / 8;
  __half* oh = o + (long long)bh * o_st0;
#pragma unroll
  for (int it = 0; it < 16 * UNITS / 32; ++it) {
    const int u = it * 32 + lane;
    const int rl = 16 * warp + u / UNITS, c = (u % UNITS) * 8;
    uint4 val;
    asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(val.x), "=r"(val.y), "=r"(val.z), "=r"(val.w)
                 : "r"(sQ + (unsigned)(rl * ld<D>() + c) * 2u)
                 : "memory");
    const int grow = m0 + rl;
    if (grow < S) *reinterpret_cast<uint4*>(oh + (long long)grow * o_st1 + c) = val;
  }
}

}  // namespace attn_mma

#define ATTN_MMA_MEMREF(n)                                                                                  \
  __half *n##_allocated, __half *n##_aligned, long long n##_offset, long long n##_size0, long long n##_size1, \
      long long n##_size2, long long n##_stride0, long long n##_stride1, long long n##_stride2

#define ATTN_MMA_CALL(D)                                                                                         \
  attn_mma::attn_fwd_mma_body<D>(q_aligned + q_offset, k_aligned + k_offset, v_aligned + v_offset,               \
                                 o_aligned + o_offset, q_size1, q_size2, q_stride0, q_stride1, k_stride0,        \
                                 k_stride1, v_stride0, v_stride1, o_stride0, o_stride1, scale, causal)

extern "C" __global__ void __launch_bounds__(128, 2)
    attn_fwd_mma_d64(ATTN_MMA_MEMREF(q), ATTN_MMA_MEMREF(k), ATTN_MMA_MEMREF(v), ATTN_MMA_MEMREF(o), float scale,
                     int causal) {
  ATTN_MMA_CALL(64);
}

extern "C" __global__ void __launch_bounds__(128, 2)
    attn_fwd_mma_d128(ATTN_MMA_MEMREF(q), ATTN_MMA_MEMREF(k), ATTN_MMA_MEMREF(v), ATTN_MMA_MEMREF(o), float scale,
                      int causal) {
  ATTN_MMA_CALL(128);
}
#endif  // ATTN_HOST_CHECK
