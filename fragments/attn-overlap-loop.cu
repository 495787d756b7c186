//! name: attn-overlap-loop
//! language: cuda
//! does: The consumer main loop of an attention forward with FlashAttention-3's intra-warpgroup overlap: per key tile j it waits K_j and V_{j-1} (parity (j / 2) & 1 of a 2-stage ring), issues S_j = Q K_j^T and then O += P_{j-1} V_{j-1} as two wgmma groups, waits for S_j only (wait_group 1), releases K_j, runs the softmax of tile j while P V is still on the tensor core, then waits, releases V_{j-1}, rescales O and converts P_j
//! chips: sm_90a
//! ptx: 8.0
//! needs: tile 0 done before it and the last P V after it (answer lines 531-544 and 575-587); issue_qk and issue_pv (attn-issue-qk-pv), wgmma_fence/commit/wait and fence_regs (attn-wgmma-helpers), softmax_tile (online-softmax-tile), convert_p and rescale_o (softmax-p-fragment), the barriers barKfull/barVfull/barKempty/barVempty with 8 arrivals on the empty ones (lane 0 of each consumer warp), a producer filling the ring (tma-mbarrier-3d); S (64), P (32) and O (D / 2) registers live together: it fits without spills at D = 64 (the proof's attn_fwd_d64); for D = 128 the proof runs S, softmax, P V in sequence instead (attn_fwd_d128)
//! requires: warps
//! ops: attention, softmax, exp, max, matmul, mma, loop, async
//! reads: nt, s, o, p, m, l, alpha, sQ, base, cwg, lane, mblk, S, causal, sl2, row0
//! writes: s, o, p, m, l, alpha; arrivals on the empty barriers
//! defines: j, sc, sp
//! adapt: a deeper ring: stage j % STAGES and parity (j / STAGES) & 1; D = 128 without spills: the sequential order (wait S_j, softmax, P_j V_j) or consumer registers raised with setmaxnreg
//! proof: attn_fwd_d64 (fragments/proofs/attn_fwd_d64.txt, lines 546-573)
    for (int j = 1; j < nt; ++j) {
      const int sc = j & 1, sp = (j - 1) & 1;
      mbar_wait(barKfull(sc), (j >> 1) & 1);
      mbar_wait(barVfull(sp), ((j - 1) >> 1) & 1);
      fence_regs(s);
      fence_regs(o);
      fence_regs(p);
      wgmma_fence();
      issue_qk<D>(s, sQ, base + off_k<D>(sc), cwg);  // S_j
      wgmma_commit();
      issue_pv<D>(o, p, base + off_v<D>(sp));  // O += P_{j-1} V_{j-1}
      wgmma_commit();
      wgmma_wait<1>();  // S_j done; P V still running
      fence_regs(s);
      __syncwarp();
      if (lane == 0) mbar_arrive(barKempty(sc));
      if (tile_needs_mask(j, mblk, cwg, S, causal))
        softmax_tile<true>(s, m, l, alpha, sl2, row0, j * BN + acc_col(lane, 0), S, causal);
      else
        softmax_tile<false>(s, m, l, alpha, sl2, row0, j * BN + acc_col(lane, 0), S, causal);
      wgmma_wait<0>();  // P_{j-1} V_{j-1} done
      fence_regs(o);
      fence_regs(p);
      __syncwarp();
      if (lane == 0) mbar_arrive(barVempty(sp));
      rescale_o<D>(o, alpha);
      convert_p(s, p);
    }
