//! name: online-softmax-tile
//! language: cuda
//! does: The online softmax of one 64 x 128 score tile held in a wgmma accumulator fragment (two rows per thread): optional masking to -inf, the running row maximum over the thread's values and its quad (shuffles xor 1, 2), exp2 of the scaled scores (p, unnormalised), the per-thread partial row sums and the rescale factors alpha of O
//! chips: sm_90a
//! ptx: 8.0
//! needs: ex2 (attn-wgmma-helpers) and is_masked (answer lines 194-196); scores raw, the scale applied in the exponent as sl2 = scale * log2(e); approximate exp2 is within the proof's tolerance (rel and abs 2e-3 against the reference's math.exp) -- check the kernel's tolerance; m starts at -inf and l at 0; a row whose maximum is still -inf uses 0 as its base, so no inf - inf; l is reduced over the quad once, at the end
//! requires: warps
//! ops: attention, softmax, exp, max, warp
//! reads: s (scores of the tile), m, l (running max and partial sum of rows row0, row0 + 8), sl2, row0, col0, S, causal
//! writes: s (now p), m, l, alpha
//! defines: softmax_tile<MASK>
//! adapt: D does not enter here; another key tile width: BN / 2 scores per thread, BN / 8 groups; without the causal mask MASK is needed only for the last tile when S % BN != 0; exact expf where the tolerance demands it (slower)
//! proof: attn_fwd_d64 (fragments/proofs/attn_fwd_d64.txt, lines 355-398)
// Online softmax of one tile: masks (when asked), updates the running max m and
// per-thread partial sum l of the thread's two rows, turns s into p (f32,
// unnormalized) and returns the two rescale factors of O.
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
    alpha[r] = ex2(m[r] * sl2 - base[r]);  // m = -inf gives 0 (O and l are 0 then)
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
