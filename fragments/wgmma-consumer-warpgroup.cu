//! name: wgmma-consumer-warpgroup
//! language: cuda
//! does: A consumer warpgroup of the same GEMM: raises its registers (setmaxnreg.inc 200 when kSetMaxNReg), and per tile of the persistent loop zeroes 128 accumulators and runs the K loop: wait full[s] with parity phase, the stage's descriptors, fence, four wgmma m64n256k16 (k16 steps: A + 32 bytes, B + 2048 bytes), commit, then wait_group 1 so the previous step's MMAs are done and lane 0 of each warp arrives on that step's empty barrier; after the loop wait_group 0 and the last release. The tile loop stays open: the epilogue (wgmma-store-f32) follows and closes it
//! chips: sm_90a
//! ptx: 8.0
//! needs: tma-producer-warpgroup (base, the barriers, the ring) before it, wgmma-fence-desc, wgmma-m64n256k16 and grouped-tile-order above it; warpgroups 1 and 2 of a 384-thread block, consumer cw on rows 64 cw .. 64 cw + 63 of the 128-row tile (A descriptor + 8192 cw bytes); empty barriers initialised with 8 arrivals (2 warpgroups x 4 warps); the setmaxnreg lines run only in the kSetMaxNReg = true instance: the entry the runner verifies in this proof (hgemm_tma) is the false instance, the split is the sibling entry hgemm_tma_setmaxnreg of the same answer (bench/hopper/README.md says when the harness launches it); setmaxnreg.inc waits until the CTA's register pool holds what it asks for, and the pool is what the launch allocated, threads x the entry's register count, which the driver's JIT chooses (nvJitLink 13.0 gave this kernel 157, ptxas 168), so 128 x dec + 256 x inc must not exceed 384 x that count or the consumers wait forever; without the split every warp keeps the launch's registers
//! requires: block 384
//! ops: matmul, mma, async, shared, loop, warp
//! reads: base, fullBar, emptyBar, numTiles, tilesM, tilesN, kTiles, wg, tid, kSetMaxNReg
//! writes: d[128] (the warpgroup's 64 x 256 f32 accumulators), arrivals on empty[s]
//! defines: cw, warp, lane, s, phase, d, t, tm, tn, prev, kt, sa, da, db, kk
//! adapt: BN 128: m64n128k16, 64 accumulators, B + 2048 bytes per k16 step still; one consumer warpgroup: empty count 4 and no cw offset; bf16: only the wgmma type; wait_group 1 releases each stage one K step late, so with S stages the producer runs at most S - 2 steps ahead of the MMAs in flight
//! proof: hgemm_tma (fragments/proofs/hgemm_tma.txt, lines 348-394)
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
