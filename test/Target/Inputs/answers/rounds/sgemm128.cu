// Register-tiled SGEMM for @sgemm of docs/suite/kernels/sgemm.mlir, the
// source of the PTX in sgemm.o1.txt (and sgemm.o2.txt): a 128 x 128 tile
// of C per block of 256 threads, 8 x 8 outputs per thread in registers, K
// walked in tiles of 8 through double-buffered shared memory with a register
// prefetch of the next tile. Launch: block (256, 1, 1), grid (ceildiv(N, 128), ceildiv(M, 128)).
//
// The PTX was produced with CUDA 13.0:
//   nvcc -ptx -arch=sm_90 -O3 sgemm128.cu -o sgemm128.ptx
// then the header was set to the reference's (.version 8.0, .target sm_90,
// .address_size 64), the parameter list replaced by the reference's
// (sgemm_param_0..20, `.ptr .align 1` on the six pointers), the two shared
// arrays renamed sgemm_as and sgemm_bs, and nvcc's comments removed.
// ptxas -arch=sm_90 -v: 128 registers, no spills, 16640 bytes of shared
// memory, so two blocks fit on an SM (__launch_bounds__(256, 2)).
//
// The parameters are the expanded memref descriptors of A (M x K), B (K x N)
// and C (M x N): allocated pointer, aligned pointer, offset, two sizes, two
// strides. As in the reference, element (i, j) is at aligned + i * stride0
// + j.

#define BM 128
#define BN 128
#define BK 8
// Row stride of the transposed A tile: 132 words keep the 16-byte reads
// aligned and put the four stores of a warp on 32 different banks.
#define AS_STRIDE (BM + 4)

extern "C" __global__ void __launch_bounds__(256, 2)
sgemm(const float *a_alloc, const float *a, long long a_offset, long long m,
      long long k, long long a_stride0, long long a_stride1,
      const float *b_alloc, const float *b, long long b_offset,
      long long b_size0, long long n, long long b_stride0,
      long long b_stride1, float *c_alloc, float *c, long long c_offset,
      long long c_size0, long long c_size1, long long c_stride0,
      long long c_stride1) {
  __shared__ __align__(16) float as[2][BK][AS_STRIDE];
  __shared__ __align__(16) float bs[2][BK][BN];

  const int tid = threadIdx.x;
  const unsigned long long row0 = (unsigned long long)blockIdx.y * BM;
  const unsigned long long col0 = (unsigned long long)blockIdx.x * BN;
  const unsigned long long um = m, un = n;

  // Staging: thread tid loads A(row0 + ar, kt + ak + 0..3) and
  // B(kt + bk, col0 + bc + 0..3); a warp covers 16 rows x 32 bytes of A and
  // 512 contiguous bytes of B. Elements past M or N are zero-filled too
  // (they only feed outputs that are not stored); past K they must be,
  // as the reference's tiles are.
  const int ar = tid >> 1, ak = (tid & 1) * 4;
  const int bk = tid >> 5, bc = (tid & 31) * 4;
  const bool arow = row0 + ar < um;
  bool bcol[4];
#pragma unroll
  for (int j = 0; j < 4; ++j)
    bcol[j] = col0 + bc + j < un;
  const float *pa = a + (long long)(row0 + ar) * a_stride0 + ak;
  const float *pb = b + (long long)bk * b_stride0 + (long long)(col0 + bc);
  const long long bstep = BK * b_stride0;

  // Compute: thread (tx, ty) owns rows 4 ty + {0..3} and 64 + 4 ty + {0..3},
  // columns 4 tx + {0..3} and 64 + 4 tx + {0..3} of the tile, so that the
  // 16-byte shared reads of eight consecutive threads are contiguous (no
  // bank conflicts).
  const int tx = tid & 15, ty = tid >> 4;

  float acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j)
      acc[i][j] = 0.0f;

  // The reference pads K to a multiple of 16 with zero terms; walking the
  // same padded range keeps every output's chain of fused multiply-adds
  // identical to the reference's, term for term.
  const long long ntiles = k > 0 ? 2 * ((k + 15) / 16) : 0;

  float ra[4], rb[4];
  if (ntiles > 0) {
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      ra[j] = (arow && ak + j < k) ? pa[j] : 0.0f;
      rb[j] = (bcol[j] && bk < k) ? pb[j] : 0.0f;
    }
#pragma unroll
    for (int j = 0; j < 4; ++j)
      as[0][ak + j][ar] = ra[j];
    *(float4 *)&bs[0][bk][bc] = make_float4(rb[0], rb[1], rb[2], rb[3]);
    __syncthreads();

    for (long long t = 0; t < ntiles; ++t) {
      const int cur = (int)(t & 1);
      const bool more = t + 1 < ntiles;
      if (more) {
        // Register prefetch: the next tile's global loads are in flight
        // while this tile is consumed.
        const long long krem = k - (t + 1) * BK;
        pa += BK;
        pb += bstep;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          ra[j] = (arow && ak + j < krem) ? pa[j] : 0.0f;
          rb[j] = (bcol[j] && bk < krem) ? pb[j] : 0.0f;
        }
      }
#pragma unroll
      for (int kk = 0; kk < BK; ++kk) {
        const float4 a0 = *(const float4 *)&as[cur][kk][4 * ty];
        const float4 a1 = *(const float4 *)&as[cur][kk][64 + 4 * ty];
        const float4 b0 = *(const float4 *)&bs[cur][kk][4 * tx];
        const float4 b1 = *(const float4 *)&bs[cur][kk][64 + 4 * tx];
        const float av[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
        const float bv[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
        for (int i = 0; i < 8; ++i)
#pragma unroll
          for (int j = 0; j < 8; ++j)
            acc[i][j] = __fmaf_rn(av[i], bv[j], acc[i][j]);
      }
      if (more) {
        // The other buffer was last read before the previous barrier, so
        // one barrier per tile suffices.
#pragma unroll
        for (int j = 0; j < 4; ++j)
          as[cur ^ 1][ak + j][ar] = ra[j];
        *(float4 *)&bs[cur ^ 1][bk][bc] =
            make_float4(rb[0], rb[1], rb[2], rb[3]);
        __syncthreads();
      }
    }
  }

#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const unsigned long long r =
        row0 + (i < 4 ? 4 * ty + i : 64 + 4 * ty + i - 4);
    if (r >= um)
      continue;
    float *pc = c + (long long)r * c_stride0;
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      const unsigned long long col =
          col0 + (j < 4 ? 4 * tx + j : 64 + 4 * tx + j - 4);
      if (col < un)
        pc[col] = acc[i][j];
    }
  }
}
