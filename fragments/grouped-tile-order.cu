//! name: grouped-tile-order
//! language: cuda
//! does: Tile t of a tilesM x tilesN grid in grouped order (groupM tile rows per group, tile rows fastest inside a group), so the tiles running at the same time share A and B panels in L2
//! chips: sm_90a
//! ptx: 8.0
//! needs: a persistent loop `for (int t = blockIdx.x; t < numTiles; t += gridDim.x)` over a grid of min(SMs, tiles) blocks (the proof's launch grid: "min(132, ceildiv(M, 128) * ceildiv(N, 256))"; H100 and H200 have 132 SMs), walked in the same order by the producer and the consumers
//! requires: nothing
//! ops: matmul, loop
//! reads: t (the tile index), tilesM, tilesN, groupM (16 in the proof)
//! writes: tm, tn (the tile row and column)
//! defines: tile_coords
//! adapt: groupM trades L2 reuse of B panels against A panels; a non-persistent launch computes the same from blockIdx.x alone; batched problems: the batch index as an outer coordinate of t
//! proof: hgemm_tma (fragments/proofs/hgemm_tma.txt, lines 228-239)
// Grouped tile order: tiles t = 0.. of a tilesM x tilesN grid, GROUP_M
// tile rows per group, tile rows fastest inside a group.
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
