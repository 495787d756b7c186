// attn_layout_check.cpp -- CPU checks of the indexing in attn_fwd.cu and
// attn_fwd_mma.cu, against models of what the hardware does as the PTX ISA
// documents it. It includes the kernels' own layout functions (the parts of
// the .cu files outside the device code, compiled with -DATTN_HOST_CHECK).
//
//   g++ -std=c++17 -O1 -Wall -o /tmp/attn_layout_check bench/hopper/attn_layout_check.cpp && /tmp/attn_layout_check
//
// Models used (PTX ISA 9.0):
//  * TMA tiled load, CU_TENSOR_MAP_SWIZZLE_128B, box {64, R, 1} into a
//    1024-byte-aligned destination: element (r, c) lands at byte r * 128 + 2 c
//    with bits [4:6] XOR bits [7:9] (16-byte unit u of row r at u ^ (r % 8)).
//  * wgmma shared-memory descriptor (start, LBO, SBO, mode 1 = 128B swizzle),
//    canonical layouts in elements, T = 8 for f16 (section "Shared Memory
//    Matrix Layout", canonical layouts table):
//      K-major 128B:  ((8,m),(T,2k)):((8T,SBO),(1,T))   -> row i, k:
//                     start + (i%8)*128 + (i/8)*SBO + 2k
//      MN-major 128B: ((T,8,m),(8,k)):((1,T,LBO),(8T,SBO)) -> n, k:
//                     start + 2(n%64) + (n/64)*LBO + (k%8)*128 + (k/8)*SBO
//    then the same swizzle on the byte address (bits [4:6] ^= bits [7:9]).
//  * wgmma m64nNk16 f32 accumulator and f16 A-register fragments, mma.sync
//    m16n8k16 fragments, ldmatrix (.trans) distribution.
#define ATTN_HOST_CHECK 1
#include "attn_fwd.cu"
#include "attn_fwd_mma.cu"

#include <cstdio>
#include <cstdlib>
#include <set>
#include <vector>

static int failures = 0;
static long checks = 0;
#define CHECK(cond, ...)                         \
  do {                                           \
    ++checks;                                    \
    if (!(cond)) {                               \
      if (++failures <= 20) {                    \
        std::printf("FAIL %s:%d: ", __FILE__, __LINE__); \
        std::printf(__VA_ARGS__);                \
        std::printf("\n");                       \
      }                                          \
    }                                            \
  } while (0)

static unsigned swz128(unsigned addr) { return addr ^ (((addr >> 7) & 7u) << 4); }

// TMA model: byte address of element (r, c) of a tile of R rows, D columns, at
// a 1024-aligned base, loaded as D/64 boxes {64, R} at base + chunk * R * 128.
static unsigned tma_addr(unsigned base, int R, int r, int c) {
  const unsigned chunk_base = base + (unsigned)((c / 64) * R * 128);
  return chunk_base + swz128((unsigned)(r * 128 + (c % 64) * 2));  // chunk_base % 1024 == 0
}

struct Desc {
  unsigned start, lbo, sbo, base_off, mode;
};
static Desc decode(unsigned long long d) {
  Desc r;
  r.start = (unsigned)(d & 0x3FFF) << 4;
  r.lbo = (unsigned)((d >> 16) & 0x3FFF) << 4;
  r.sbo = (unsigned)((d >> 32) & 0x3FFF) << 4;
  r.base_off = (unsigned)((d >> 49) & 7);
  r.mode = (unsigned)(d >> 62);
  return r;
}
static unsigned kmajor_addr(const Desc& d, int i, int k) {
  return swz128(d.start + (unsigned)((i % 8) * 128 + (i / 8) * d.sbo + 2 * k));
}
static unsigned mnmajor_addr(const Desc& d, int n, int k) {
  return swz128(d.start + (unsigned)(2 * (n % 64) + (n / 64) * d.lbo + (k % 8) * 128 + (k / 8) * d.sbo));
}

template <int D>
static void check_wgmma_kernel() {
  using namespace attn;
  // Dynamic shared memory base: any 16-byte-aligned address; the kernel rounds up.
  for (unsigned raw : {0u, 16u, 400u, 1008u}) {
    const unsigned base = (raw + 1023u) & ~1023u;
    CHECK(base - raw + off_bar<D>() + 72 <= smem_bytes<D>(), "smem budget D=%d raw=%u", D, raw);
    CHECK(base + off_bar<D>() + 72 < (1u << 18), "descriptor start field range");
    CHECK(off_k<D>(0) % 1024 == 0 && off_k<D>(1) % 1024 == 0 && off_v<D>(0) % 1024 == 0 &&
              off_v<D>(1) % 1024 == 0 && off_bar<D>() % 8 == 0,
          "tile alignment D=%d", D);
    const unsigned sQ = base + off_q<D>();
    // Q as A (K-major): warpgroup cwg, k step kk, element (i, k) = Q[64 cwg + i][16 kk + k].
    for (int cwg = 0; cwg < 2; ++cwg)
      for (int kk = 0; kk < D / 16; ++kk) {
        const Desc d = decode(make_desc(q_desc_addr(sQ, cwg, kk), QK_LBO, QK_SBO));
        CHECK(d.mode == 1 && d.base_off == 0, "Q desc mode");
        for (int i = 0; i < 64; ++i)
          for (int k = 0; k < 16; ++k)
            CHECK(kmajor_addr(d, i, k) == tma_addr(sQ, BM, 64 * cwg + i, 16 * kk + k),
                  "Q D=%d cwg=%d kk=%d i=%d k=%d", D, cwg, kk, i, k);
      }
    for (int s = 0; s < STAGES; ++s) {
      const unsigned sK = base + off_k<D>(s), sV = base + off_v<D>(s);
      // K as B (K-major): element (n, k) of B = K[n][16 kk + k].
      for (int kk = 0; kk < D / 16; ++kk) {
        const Desc d = decode(make_desc(k_desc_addr(sK, kk), QK_LBO, QK_SBO));
        CHECK(d.mode == 1 && d.base_off == 0, "K desc mode");
        for (int n = 0; n < BN; ++n)
          for (int k = 0; k < 16; ++k)
            CHECK(kmajor_addr(d, n, k) == tma_addr(sK, BN, n, 16 * kk + k), "K D=%d kk=%d n=%d k=%d", D, kk, n, k);
      }
      // V as B (MN-major, trans-b): element (k, n) of B = V[16 kk + k][n], n < D.
      for (int kk = 0; kk < BN / 16; ++kk) {
        const Desc d = decode(make_desc(v_desc_addr(sV, kk), V_LBO, V_SBO));
        CHECK(d.mode == 1 && d.base_off == 0, "V desc mode");
        for (int n = 0; n < D; ++n)
          for (int k = 0; k < 16; ++k)
            CHECK(mnmajor_addr(d, n, k) == tma_addr(sV, BN, 16 * kk + k, n), "V D=%d kk=%d n=%d k=%d", D, kk, n, k);
      }
    }
    // Epilogue: the kernel's tile_offset is the TMA layout, and the 16-byte
    // units it reads back hold the 8 consecutive columns it wrote.
    for (int r = 0; r < BM; ++r)
      for (int c = 0; c < D; ++c) {
        CHECK(sQ + tile_offset(BM, r, c) == tma_addr(sQ, BM, r, c), "tile_offset r=%d c=%d", r, c);
        if (c % 8 == 0)
          for (int e = 0; e < 8; ++e) CHECK(tile_offset(BM, r, c + e) == tile_offset(BM, r, c) + 2 * e, "unit");
      }
  }
  // Epilogue store pattern: every (row, 2-column pair) of the warpgroup's 64 x D
  // block written once; st.shared.b32 of a warp conflict-free; read-back units
  // cover the block once; ld.shared.v4 per 8-lane phase conflict-free.
  for (int cwg = 0; cwg < 2; ++cwg) {
    std::set<unsigned> written;
    for (int w = 0; w < 4; ++w)
      for (int i = 0; i < D / 8; ++i)
        for (int half = 0; half < 2; ++half) {
          std::set<unsigned> banks;
          for (int lane = 0; lane < 32; ++lane) {
            const int rl = 64 * cwg + acc_row(w, lane, 4 * i) + 8 * half;
            const int c = acc_col(lane, 4 * i);
            const unsigned a = tile_offset(BM, rl, c);
            CHECK(written.insert(a).second, "epilogue write twice");
            banks.insert((a / 4) % 32);
          }
          CHECK(banks.size() == 32, "epilogue st.shared bank conflict D=%d w=%d i=%d", D, w, i);
        }
    CHECK((int)written.size() == 64 * D / 2, "epilogue writes cover");
    std::set<std::pair<int, int>> units;
    constexpr int UNITS_PER_ROW = D / 8;
    for (int it = 0; it < 64 * UNITS_PER_ROW / 128; ++it)
      for (int t = 0; t < 128; ++t) {
        const int u = it * 128 + t;
        const int rl = 64 * cwg + u / UNITS_PER_ROW;
        const int c = (u % UNITS_PER_ROW) * 8;
        CHECK(units.insert({rl, c}).second, "unit twice");
        CHECK(rl >= 64 * cwg && rl < 64 * cwg + 64, "unit row outside warpgroup");
        if (t % 8 == 0) {
          std::set<unsigned> groups;
          for (int tt = t; tt < t + 8; ++tt) {
            const int uu = it * 128 + tt;
            groups.insert((tile_offset(BM, 64 * cwg + uu / UNITS_PER_ROW, (uu % UNITS_PER_ROW) * 8) / 16) % 8);
          }
          CHECK(groups.size() == 8, "epilogue ld.shared.v4 conflict");
        }
      }
    CHECK((int)units.size() == 64 * D / 8, "read-back covers");
  }
}

// Accumulator -> A fragment (P): register r, half h of k step kk must be the
// m16n8k16 A element (row g + 8 (r % 2), col 16 kk + 2 t + h + 8 (r / 2)).
static void check_p_fragments() {
  using namespace attn;
  for (int w = 0; w < 4; ++w)
    for (int lane = 0; lane < 32; ++lane)
      for (int kk = 0; kk < BN / 16; ++kk)
        for (int r = 0; r < 4; ++r)
          for (int h = 0; h < 2; ++h) {
            const int idx = 8 * kk + 2 * r + h;  // convert_p: p[kk][r] = pack(s[8kk+2r], s[8kk+2r+1])
            const int row = 16 * w + (lane >> 2) + 8 * (r % 2);
            const int col = 16 * kk + 2 * (lane & 3) + h + 8 * (r / 2);
            CHECK(acc_row(w, lane, idx) == row && acc_col(lane, idx) == col, "P fragment w=%d lane=%d kk=%d r=%d h=%d",
                  w, lane, kk, r, h);
          }
  // The kernel's softmax uses row0 + 8 ((idx >> 1) & 1) and col0 + 8 (idx >> 2) + (idx & 1)
  // with row0 = acc_row(w, lane, 0), col0 = acc_col(lane, 0).
  for (int w = 0; w < 4; ++w)
    for (int lane = 0; lane < 32; ++lane)
      for (int idx = 0; idx < 64; ++idx) {
        CHECK(acc_row(w, lane, 0) + 8 * ((idx >> 1) & 1) == acc_row(w, lane, idx), "row formula");
        CHECK(acc_col(lane, 0) + 8 * (idx >> 2) + (idx & 1) == acc_col(lane, idx), "col formula");
      }
  // Quad reduction: the 4 lanes sharing a row are lane ^ 1, lane ^ 2.
  for (int lane = 0; lane < 32; ++lane)
    for (int x : {1, 2, 3}) CHECK(acc_row(0, lane ^ x, 0) == acc_row(0, lane, 0), "quad");
}

// Masking and tile counts (both kernels' formulas, parametrized by their BM, BN
// and rows per masking unit).
template <typename F1, typename F2, typename F3>
static void check_masks(const char* name, int BMk, int BNk, int unit_rows, F1 num_tiles, F2 needs_mask, F3 masked) {
  for (int S : {1, 2, 7, 63, 64, 65, 100, 127, 128, 129, 191, 192, 200, 255, 256, 257, 300, 383, 384, 385, 1000, 1024})
    for (int causal = 0; causal < 2; ++causal) {
      const int nmb = (S + BMk - 1) / BMk;
      for (int mblk = 0; mblk < nmb; ++mblk) {
        const int nt = num_tiles(mblk, S, causal);
        CHECK(nt >= 1, "%s nt >= 1", name);
        for (int row = mblk * BMk; row < mblk * BMk + BMk; ++row) {
          // every visible key of a real row is inside the processed tiles
          if (row < S) {
            const int last_visible = causal ? row : S - 1;
            CHECK(last_visible < nt * BNk, "%s S=%d causal=%d mblk=%d row=%d: key %d beyond %d tiles", name, S,
                  causal, mblk, row, last_visible, nt);
            // tile 0 has a visible key for every row (the running max is finite after it)
            CHECK(!masked(row, 0, S, causal), "%s key 0 visible", name);
          }
        }
        for (int j = 0; j < nt; ++j)
          for (int u = 0; u < BMk / unit_rows; ++u) {
            bool any = false;
            for (int row = mblk * BMk + u * unit_rows; row < mblk * BMk + (u + 1) * unit_rows; ++row)
              for (int col = j * BNk; col < (j + 1) * BNk; ++col) any = any || masked(row, col, S, causal);
            if (any)
              CHECK(needs_mask(j, mblk, u, S, causal), "%s S=%d causal=%d mblk=%d j=%d unit=%d: mask skipped", name,
                    S, causal, mblk, j, u);
          }
      }
    }
}

// ldmatrix model: lane L gives the row address of matrix L / 8, row L % 8;
// thread l receives (row l/4, cols 2(l%4), +1) of each matrix, or with .trans
// (rows 2(l%4), +1, col l/4).
template <int D>
static void check_mma_kernel() {
  using namespace attn_mma;
  const int LD = ld<D>();
  auto rc = [&](int off) { return std::pair<int, int>(off / LD, off % LD); };
  for (int w = 0; w < 4; ++w)
    for (int kk = 0; kk < D / 16; ++kk)
      for (int l = 0; l < 32; ++l)
        for (int reg = 0; reg < 4; ++reg)
          for (int h = 0; h < 2; ++h) {
            // Q: matrix reg, thread l gets (row l/4, col 2(l%4)+h) of matrix reg.
            const int L = 8 * reg + (l >> 2);
            auto p = rc(q_ldm_off<D>(w, L, kk));
            const int row = p.first, col = p.second + 2 * (l & 3) + h;
            const int want_row = 16 * w + (l >> 2) + 8 * (reg % 2), want_col = 16 * kk + 2 * (l & 3) + h + 8 * (reg / 2);
            CHECK(row == want_row && col == want_col, "Q ldmatrix D=%d w=%d kk=%d l=%d reg=%d", D, w, kk, l, reg);
            CHECK(p.second % 8 == 0, "ldmatrix row address alignment");
          }
  // K (B of S = Q K^T, B[k][n] = K[n][16kk + k]): b0(nb): k = 2(l%4)+h, n = l/4; b1: k + 8.
  for (int kk = 0; kk < D / 16; ++kk)
    for (int nb = 0; nb < BN / 8; nb += 2)
      for (int l = 0; l < 32; ++l)
        for (int reg = 0; reg < 4; ++reg)
          for (int h = 0; h < 2; ++h) {
            const int L = 8 * reg + (l >> 2);
            auto p = rc(k_ldm_off<D>(L, nb, kk));
            const int key = p.first, d = p.second + 2 * (l & 3) + h;
            const int n_blk = nb + reg / 2, kb = reg % 2;
            CHECK(key == 8 * n_blk + (l >> 2) && d == 16 * kk + 8 * kb + 2 * (l & 3) + h, "K ldmatrix D=%d", D);
          }
  // V (B of O = P V, B[k][n] = V[16kk + k][n]), .trans: thread l gets (row 2(l%4)+h, col l/4) of each matrix.
  for (int kk = 0; kk < BN / 16; ++kk)
    for (int nb = 0; nb < D / 8; nb += 2)
      for (int l = 0; l < 32; ++l)
        for (int reg = 0; reg < 4; ++reg)
          for (int h = 0; h < 2; ++h) {
            const int Lrow = 8 * reg + 2 * (l & 3) + h;  // the lane whose address is that matrix row
            auto p = rc(v_ldm_off<D>(Lrow, nb, kk));
            const int key = p.first, d = p.second + (l >> 2);
            const int n_blk = nb + reg / 2, kb = reg % 2;
            CHECK(key == 16 * kk + 8 * kb + 2 * (l & 3) + h && d == 8 * n_blk + (l >> 2), "V ldmatrix D=%d", D);
          }
  // ldmatrix bank conflicts: the 8 row addresses of each matrix in distinct 16-byte bank groups.
  for (int kk = 0; kk < D / 16; ++kk)
    for (int m = 0; m < 4; ++m) {
      std::set<int> gq, gk, gv;
      for (int r = 0; r < 8; ++r) {
        gq.insert((q_ldm_off<D>(0, 8 * m + r, kk) * 2 / 16) % 8);
        gk.insert((k_ldm_off<D>(8 * m + r, 0, kk) * 2 / 16) % 8);
        if (kk < BN / 16) gv.insert((v_ldm_off<D>(8 * m + r, 0, kk) * 2 / 16) % 8);
      }
      CHECK(gq.size() == 8 && gk.size() == 8 && (kk >= BN / 16 || gv.size() == 8), "ldmatrix conflicts D=%d", D);
    }
  CHECK(smem_bytes<D>() <= 227 * 1024, "fallback smem");
  CHECK((LD * 2) % 16 == 0, "row pitch 16-byte multiple");
}

int main() {
  check_wgmma_kernel<64>();
  check_wgmma_kernel<128>();
  check_p_fragments();
  check_masks(
      "wgmma", attn::BM, attn::BN, 64, [](int m, int S, int c) { return attn::num_key_tiles(m, S, c); },
      [](int j, int m, int u, int S, int c) { return attn::tile_needs_mask(j, m, u, S, c); },
      [](int r, int c, int S, int ca) { return attn::is_masked(r, c, S, ca); });
  check_masks(
      "mma", attn_mma::BM, attn_mma::BN, 16, [](int m, int S, int c) { return attn_mma::num_key_tiles(m, S, c); },
      [](int j, int m, int u, int S, int c) { return attn_mma::tile_needs_mask(j, m, u, S, c); },
      [](int r, int c, int S, int ca) { return attn_mma::is_masked(r, c, S, ca); });
  check_mma_kernel<64>();
  check_mma_kernel<128>();
  std::printf("smem bytes: wgmma d64 %u, d128 %u; mma d64 %d, d128 %d\n", attn::smem_bytes<64>(),
              attn::smem_bytes<128>(), attn_mma::smem_bytes<64>(), attn_mma::smem_bytes<128>());
  std::printf("%ld checks, %d failures\n", checks, failures);
  return failures ? 1 : 0;
}
