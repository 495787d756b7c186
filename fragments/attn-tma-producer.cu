//! name: attn-tma-producer
//! language: cuda
//! does: Barrier set-up and the producer of the attention kernel: thread 0 initialises the Q barrier and a 2-stage ring of K and V full (1 arrival + the TMA bytes) and empty (8 arrivals) barriers, fences them to the async proxy, then one producer thread loads Q once and, per key tile j, waits until stage j % 2 is empty again (from j = 2 on, parity ((j / 2) - 1) & 1), arms its full barrier with expect_tx and loads K_j and V_j as 64-column boxes of a 3-D map
//! chips: sm_90a
//! ptx: 8.0
//! needs: tma-mbarrier-3d above it and the proof's layout helpers (q_bytes, kv_bytes, off_k, off_v, barKfull and the other barrier lambdas, answer lines 152-159 and 450-457); a block of 288 threads in the proof's entry (consumer warpgroups on threads 0-255, the producer warp 256-287: WS false, so its setmaxnreg line does not run in the verified entries; the WS entries attn_fwd_ws_* put the producer in warpgroup 0 with setmaxnreg.dec 24 and are launched by bench/hopper/run_attention.py only when the JIT's register count allows it); tensor maps tmQ, tmK, tmV with dims {D, S, BH} and box {64, 128, 1}; the consumers arrive on the empty barriers (attn-overlap-loop)
//! requires: warps
//! ops: attention, matmul, mma, tma, async, copy, shared, warp
//! reads: tid, WS, D, nt (key tiles of this query block), m0 (first query row), bh, base, sQ, tmQ, tmK, tmV
//! writes: the Q tile and the K and V ring stages, asynchronously; the barriers
//! defines: producer, producer_thread; in the producer j, s, ph_empty, sK, sV, c
//! adapt: a deeper ring: stage j % STAGES and empty parity ((j / STAGES) - 1) & 1 from j = STAGES on; a persistent attention: the same ring carried across query blocks, as tma-producer-warpgroup carries it across GEMM tiles; causal: nt stops at the diagonal tile
//! proof: attn_fwd_d64 (fragments/proofs/attn_fwd_d64.txt, lines 459-499)
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
