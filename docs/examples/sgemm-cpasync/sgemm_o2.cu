// Register-tiled SGEMM with a two-stage cp.async pipeline, for @sgemm of
// test/Inputs/host/sgemm_program.mlir (docs/suite/kernels/sgemm.mlir); the
// source of the PTX in sgemm.o2.txt. A 128 x 128 tile of C per block of 256
// threads (8 warps as 2 x 4 warp tiles of 64 x 32), 8 x 8 outputs per
// thread in registers, K walked in tiles of 16 through two shared buffers
// that cp.async fills directly (no staging registers): the copies of tile
// t + 1 are in flight while tile t is consumed, one barrier per tile.
// Launch: block (256, 1, 1), grid (ceildiv(N, 128), ceildiv(M, 128), 1).
//
// The PTX was produced with CUDA 13.0:
//   nvcc -ptx -arch=sm_90 -O3 sgemm_o2.cu -o sgemm_o2.ptx
// then, as for sgemm128.cu, the header was set to the reference's
// (.version 8.0, .target sm_90, .address_size 64), the parameter list
// replaced by the reference's (sgemm_param_0..20, `.ptr .align 1` on the six
// pointers), the two shared arrays renamed sgemm_as and sgemm_bs, and
// nvcc's comments removed.
// ptxas -arch=sm_90 -v: 127 registers, no spills, 33280 bytes of shared
// memory, so two blocks fit on an SM (__launch_bounds__(256, 2)).
//
// The parameters are the expanded memref descriptors of A (M x K), B (K x N)
// and C (M x N): allocated pointer, aligned pointer, offset, two sizes, two
// strides. As in the reference, element (i, j) is at aligned + i * stride0
// + j. Nothing is assumed about alignment beyond 4 bytes: the 16-byte paths
// (B copies, C stores) are taken only when a run-time test shows that every
// address they touch is 16-byte aligned; otherwise 4-byte copies and
// stores do the same work.

#define BM 128
#define BN 128
#define BK 16
#define STAGES 2 // shared buffers: tile t + 1 is copied while tile t is used
#define TM 8
#define TN (BN / 16)
// Row stride of the transposed A tile: 132 words keep the 16-byte reads
// aligned, and the 4-byte copies of a warp (4 rows x 8 k) land on 32
// different banks.
#define AS_STRIDE (BM + 4)
#define BV_COPIES (BK * BN / 4 / 256) // 16-byte copies of B per thread
#define BV_STEP (1024 / BN)           // rows between them
#define BS_COPIES (BK * BN / 256)     // 4-byte copies of B per thread
#define BS_STEP (256 / BN)            // rows between them

__device__ __forceinline__ void cp_async4(unsigned dst, const float *src,
                                          unsigned size) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst),
               "l"(src), "r"(size));
}

__device__ __forceinline__ void cp_async4(unsigned dst, const float *src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(dst),
               "l"(src));
}

__device__ __forceinline__ void cp_async16(unsigned dst, const float *src,
                                           unsigned size) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst),
               "l"(src), "r"(size));
}

__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::);
}

template <int N> __device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

extern "C" __global__ void __launch_bounds__(256, 2)
sgemm(const float *a_alloc, const float *a, long long a_offset, long long m,
      long long k, long long a_stride0, long long a_stride1,
      const float *b_alloc, const float *b, long long b_offset,
      long long b_size0, long long n, long long b_stride0,
      long long b_stride1, float *c_alloc, float *c, long long c_offset,
      long long c_size0, long long c_size1, long long c_stride0,
      long long c_stride1) {
  __shared__ __align__(16) float as[STAGES][BK][AS_STRIDE];
  __shared__ __align__(16) float bs[STAGES][BK][BN];

  const int tid = threadIdx.x;
  const long long row0 = (long long)blockIdx.y * BM;
  const long long col0 = (long long)blockIdx.x * BN;

  // The reference pads K to a multiple of 16 with zero terms; walking the
  // same padded range keeps every output's chain of fused multiply-adds
  // identical to the reference's, term for term.
  const int ntiles = k > 0 ? (int)(((k + 15) / 16) * (16 / BK)) : 0;

  // Copies of A: thread tid moves A(row0 + ar + 32 j, kt + ak + 8 h) to
  // as[.][ak + 8 h][ar + 32 j]; a warp reads 4 rows x 32 bytes per copy.
  // Rows past M copy row M - 1 instead: they only feed outputs that are not
  // stored. Columns past K (in the last tiles only) read nothing
  // (src-size 0) and are zero-filled, as in the reference.
  const int ak = tid & 7, ar = tid >> 3;
  const float *pa[4];
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const long long r = row0 + ar + 32 * j;
    pa[j] = a + (r < m ? r : m - 1) * a_stride0 + ak;
  }
  const unsigned as_base = (unsigned)__cvta_generic_to_shared(&as[0][0][0]);
  const unsigned bs_base = (unsigned)__cvta_generic_to_shared(&bs[0][0][0]);
  const unsigned as_dst = as_base + (ak * AS_STRIDE + ar) * 4;

  // Copies of B. With a 16-byte aligned pointer and a stride0 that is a
  // multiple of 4 (checked here, at run time), thread tid moves
  // B(kt + bkv + BV_STEP q, col0 + bcv + 0..3) with one 16-byte copy whose
  // src-size stops at N (zero-filling the rest); a warp reads 512
  // contiguous bytes. Otherwise thread tid moves B(kt + bks + BS_STEP q,
  // col0 + bcs) with 4-byte copies; a warp reads 128 contiguous bytes, and
  // a column past N copies column N - 1 instead (it only feeds outputs
  // that are not stored). Rows past K (last tiles only) read nothing.
  const bool bvec = ((((unsigned long long)b) & 15) == 0) &&
                    ((b_stride0 & 3) == 0);
  const int bkv = tid / (BN / 4), bcv = (tid % (BN / 4)) * 4;
  const int bks = tid / BN, bcs = tid % BN;
  const int bk = bvec ? bkv : bks;
  const long long bcol = col0 + (bvec ? bcv : bcs);
  const long long bleft = n - bcol;
  const unsigned bsz =
      bleft >= 4 ? 16u : (bleft > 0 ? (unsigned)bleft * 4u : 0u);
  const float *pb =
      b + (long long)bk * b_stride0 +
      (bleft > 0 ? bcol : (bvec ? 0 : n - 1)); // vector: src-size 0 past N
  const unsigned bs_dst =
      bs_base + (bk * BN + (bvec ? bcv : bcs)) * 4;

  // Tile t into stage s. Full tiles (t * BK + BK <= K) need no K checks.
  auto load_tile = [&](int t, int s) {
    const long long kt = (long long)t * BK;
    const unsigned sa = as_dst + s * (BK * AS_STRIDE * 4);
    const unsigned sb = bs_dst + s * (BK * BN * 4);
    const bool full = kt + BK <= k;
    if (full) {
#pragma unroll
      for (int h = 0; h < BK / 8; ++h)
#pragma unroll
        for (int j = 0; j < 4; ++j)
          cp_async4(sa + (8 * h * AS_STRIDE + 32 * j) * 4, pa[j] + kt + 8 * h);
    } else {
#pragma unroll
      for (int h = 0; h < BK / 8; ++h) {
        const bool kok = kt + 8 * h + ak < k;
#pragma unroll
        for (int j = 0; j < 4; ++j)
          cp_async4(sa + (8 * h * AS_STRIDE + 32 * j) * 4,
                    pa[j] + (kok ? kt + 8 * h : 0), kok ? 4u : 0u);
      }
    }
    if (bvec) {
#pragma unroll
      for (int q = 0; q < BV_COPIES; ++q) {
        const bool kok = full || kt + bk + q * BV_STEP < k;
        cp_async16(sb + q * BV_STEP * BN * 4,
                   kok ? pb + (kt + q * BV_STEP) * b_stride0 : b,
                   kok ? bsz : 0u);
      }
    } else {
#pragma unroll
      for (int q = 0; q < BS_COPIES; ++q) {
        const float *src = pb + (kt + q * BS_STEP) * b_stride0;
        if (full)
          cp_async4(sb + q * BS_STEP * BN * 4, src);
        else if (kt + bk + q * BS_STEP < k)
          cp_async4(sb + q * BS_STEP * BN * 4, src, 4u);
        else
          cp_async4(sb + q * BS_STEP * BN * 4, b, 0u);
      }
    }
  };

  // Compute: warp w owns rows 64 (w / 4) .. + 63 and columns
  // 32 (w % 4) .. + 31 of the tile; lane (lr, lc) = (lane / 4, lane % 4)
  // owns rows 4 lr + {0..3} and 32 + 4 lr + {0..3}, columns 4 lc + 16 q +
  // {0..3}. A warp's 16-byte shared reads touch 8 (A) and 4 (B) distinct
  // 16-byte words: one wavefront each, no bank conflicts.
  const int warp = tid >> 5, lane = tid & 31;
  const int wr = warp >> 2, wc = warp & 3;
  const int lr = lane >> 2, lc = lane & 3;
  const int arow = wr * 64 + 4 * lr;
  const int bcolc = wc * (BN / 4) + 4 * lc;

  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j)
      acc[i][j] = 0.0f;

#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < ntiles)
      load_tile(s, s);
    cp_async_commit();
  }

  // The fragments of step kk of a tile: rows arow + {0..3, 32..35} of A
  // and columns bcolc + 16 q + {0..3} of B.
  auto load_frag = [&](int stage, int kk, float *av, float *bv) {
    const float *pak = &as[stage][kk][0] + arow;
    const float4 a0 = *(const float4 *)pak;
    const float4 a1 = *(const float4 *)(pak + 32);
    av[0] = a0.x; av[1] = a0.y; av[2] = a0.z; av[3] = a0.w;
    av[4] = a1.x; av[5] = a1.y; av[6] = a1.z; av[7] = a1.w;
#pragma unroll
    for (int q = 0; q < TN / 4; ++q) {
      const float4 b0 = *(const float4 *)(&bs[stage][kk][0] + bcolc + 16 * q);
      bv[4 * q] = b0.x; bv[4 * q + 1] = b0.y;
      bv[4 * q + 2] = b0.z; bv[4 * q + 3] = b0.w;
    }
  };

  int rs = 0;          // stage read this iteration
  int ws = STAGES - 1; // stage written this iteration
  for (int t = 0; t < ntiles; ++t) {
    // Tile t has landed for this thread; the barrier makes every thread's
    // copies visible and ends all reads of stage ws (tile t - 1), which
    // the copies of tile t + 1 then refill.
    cp_async_wait<STAGES - 2>();
    __syncthreads();
    if (t + STAGES - 1 < ntiles)
      load_tile(t + STAGES - 1, ws);
    cp_async_commit();
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      float av[TM], bv[TN];
      load_frag(rs, kk, av, bv);
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
          acc[i][j] = __fmaf_rn(av[i], bv[j], acc[i][j]);
    }
    rs = rs + 1 == STAGES ? 0 : rs + 1;
    ws = ws + 1 == STAGES ? 0 : ws + 1;
  }
  // Stores: 16-byte when the pointer is 16-byte aligned, stride0 is a
  // multiple of 4 and the four columns are inside N; otherwise scalar.
  const bool cvec = ((((unsigned long long)c) & 15) == 0) &&
                    ((c_stride0 & 3) == 0);
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const long long r = row0 + arow + (i < 4 ? i : 32 + i - 4);
    if (r >= m)
      continue;
    float *pc = c + r * c_stride0;
#pragma unroll
    for (int q = 0; q < TN / 4; ++q) {
      const long long col = col0 + bcolc + 16 * q;
      if (cvec && col + 3 < n) {
        *(float4 *)(pc + col) = make_float4(acc[i][4 * q], acc[i][4 * q + 1],
                                            acc[i][4 * q + 2],
                                            acc[i][4 * q + 3]);
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j)
          if (col + j < n)
            pc[col + j] = acc[i][4 * q + j];
      }
    }
  }
}
