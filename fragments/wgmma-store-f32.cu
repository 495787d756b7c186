//! name: wgmma-store-f32
//! language: cuda
//! does: The epilogue of a consumer warpgroup: its 64 x 256 f32 accumulators (d[4 i + j]: row 16 w + l / 4 + 8 (j / 2), column 8 i + 2 (l % 4) + j % 2) stored straight to global memory as float2 pairs, unguarded for whole tiles, with row and column checks at the edges
//! chips: sm_90a
//! ptx: 8.0
//! needs: inside the tile loop of wgmma-consumer-warpgroup, after wgmma_wait<0>; C row-major with an even row stride and 8-byte aligned (float2 stores; the proof states 16-byte alignment and N % 8 == 0), so the pair col, col + 1 is wholly in or out
//! requires: align 8
//! ops: matmul, mma
//! reads: d, tm, tn, cw, warp, lane, c (aligned pointer + offset), c_stride0, M, N
//! writes: the warpgroup's 64 x 256 part of C's tile
//! defines: r0, col0, p0, p8, ok0, ok8
//! adapt: f16 or bf16 output: __floats2half2_rn per pair and 4-byte stores; a bias + activation epilogue applies to d[] before the store (column col0 + 8 i + j % 2); each warp store covers 8 rows x 32 contiguous bytes, full sectors; no TMA store (cp.async.bulk.tensor shared to global) is proven in the library yet
//! proof: hgemm_tma (fragments/proofs/hgemm_tma.txt, lines 396-418)
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
