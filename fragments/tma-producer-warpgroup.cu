//! name: tma-producer-warpgroup
//! language: cuda
//! does: Block set-up and the producer of a persistent warp-specialized GEMM: the 1024-aligned dynamic shared base, full[s] (1 arrival + the TMA bytes) and empty[s] (8 arrivals, one per consumer warp) mbarriers initialised by thread 0, then warpgroup 0 lowers its registers (setmaxnreg.dec 40 when kSetMaxNReg) and one thread walks the block's tiles in grouped order: per K step of 64 it waits on empty[s] with parity phase ^ 1 (a fresh barrier passes at once), arms full[s] with expect_tx and loads the A box and up to four B boxes
//! chips: sm_90a
//! ptx: 8.0
//! needs: a block of 384 threads: warpgroup 0 the producer, 1 and 2 the consumers (wgmma-consumer-warpgroup); tma-mbarrier-2d, grouped-tile-order and tma-gemm-constants above it; tensor maps tmA (dims {K, M}, box {64, 128}) and tmB (dims {N, K}, box {64, 64}), 128B swizzle; B boxes wholly right of N are skipped and left out of the byte count, partial boxes count in full; the setmaxnreg lines run only in the kSetMaxNReg = true instance: the entry the runner verifies in this proof (hgemm_tma) is the false instance, the split is the sibling entry hgemm_tma_setmaxnreg of the same answer (bench/hopper/README.md says when the harness launches it); setmaxnreg.inc waits until the CTA's register pool holds what it asks for, and the pool is what the launch allocated, threads x the entry's register count, which the driver's JIT chooses (nvJitLink 13.0 gave this kernel 157, ptxas 168), so 128 x dec + 256 x inc must not exceed 384 x that count or the consumers wait forever; without the split every warp keeps the launch's registers
//! requires: block 384
//! ops: matmul, mma, tma, async, copy, shared, loop, warp
//! reads: M, K, N, tmA, tmB (pointers to the tensor-map parameters), kSetMaxNReg
//! writes: the ring's A and B boxes and the full barriers' transaction counts (asynchronously)
//! defines: hg_smem, base, fullBar, emptyBar, tid, tilesM, tilesN, numTiles, kTiles, wg; in the producer s, phase, t, tm, tn, m0, n0, nLeft, boxes, txBytes, kt, full, sa
//! adapt: one consumer warpgroup (256 threads): empty count 4; other tiles: the box loop and txBytes from tma-gemm-constants; bf16: nothing changes here; the producer keeps running into the next tile while the consumers store the last one, so the ring needs no reset between tiles (s and phase carry on)
//! proof: hgemm_tma (fragments/proofs/hgemm_tma.txt, lines 287-346)
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
