// Attention forward with online softmax, head dimension 128: for every
// slice bh of the batch * heads dimension,
//   O[bh] = softmax(scale * Q[bh] K[bh]^T [+ causal mask]) V[bh]
// with Q, K, V and O of shape (BH, S, 128) in f16, row-major. The mask, when
// `causal` is not 0, hides key j from query i for j > i (top-left aligned,
// queries and keys of the same length S), as
// torch.nn.functional.scaled_dot_product_attention(is_causal=True) does.
//
// The reference is one pass over the keys per query row, the online softmax
// of FlashAttention written plainly: the score s = scale * (q . k_j) summed
// in f32 in d order (each f16 product exact in f32), the running maximum m,
// the running sum l = l * exp(m_old - m) + exp(s - m), and the output row
// o = o * exp(m_old - m) + exp(s - m) * v_j; at the end O = o / l rounded
// to f16. Each block of 128 threads owns 64 query rows of one slice (grid
// ceildiv(S, 64) x BH): thread t works on row t mod 64 and on output columns
// [64 * (t / 64), 64 * (t / 64) + 64), computes the whole score itself and
// keeps its part of o in shared memory (column-major, so the 32 threads of
// a warp touch 32 banks); q, k and v are read from global memory. That is
// slow and simple. The launch is the one a tensor-core kernel uses (four
// warps of 16 query rows each), so an answer may keep it.
//
// The facts are those of such a kernel: pointers 16-byte aligned, S a
// multiple of 64 (whole tiles of queries and keys), inputs in [-1, 1].
// What an answer may do differently is the order of the additions and the
// rounding of the probabilities: a tensor-core kernel multiplies P, rounded
// to f16 (relative error 2^-11), with V, rescales per key tile instead of
// per key and may use exp2 with log2(e) folded into the scale. With |v| <= 1
// the rounding of P moves an output by at most 2^-11 * max|v| ~ 4.9e-4 and
// the f16 rounding of O by 2.4e-4 more; abs = 2e-3 (outputs are averages of
// v, mostly near zero) and rel = 2e-3 cover that with room to spare, while a
// dropped key, a wrong mask or a missing rescale moves the outputs of the
// first rows (which average a handful of keys) by a sizeable fraction of
// |v| on the small shapes. `flops` counts 4 * S * S * 128 per slice, halved
// when causal, as FlashAttention's benchmarks do. Sizes are positive, so
// the size C is 1 + causal (C = 1: no mask, C = 2: causal; `causal` is
// C - 1) and the flops are divided by C. Speed is decided at BH = 8,
// S = 4096, not causal (68.7 GFLOP; `timing`).
module attributes {gpu.container_module} {
  gpu.module @attention_d128_module {
    gpu.func @attention_d128(%q: memref<?x?x128xf16>, %k: memref<?x?x128xf16>,
                            %v: memref<?x?x128xf16>, %o: memref<?x?x128xf16>,
                            %scale: f32, %causal: i32)
        workgroup(%acc: memref<128x64xf32, #gpu.address_space<workgroup>>)
        kernel attributes {known_block_size = array<i32: 128, 1, 1>,
          llmgen.spec = "attention forward: O[bh] = softmax(scale * Q[bh] K[bh]^T, keys j > query i masked when causal != 0) V[bh]; f16 in and out, f32 scores, online softmax",
          llmgen.harness = #llmgen.harness<sizes = ["BH", "S", "C"],
              shapes = [[1, 64, 1], [1, 64, 2], [2, 128, 2], [3, 192, 1],
                        [2, 320, 2], [1, 512, 1], [2, 1024, 2], [2, 1024, 1]],
              args = ["BH, S", "BH, S", "BH, S", "BH, S", "0.08838834764831843", "C - 1"],
              grid = ["ceildiv(S, 64)", "BH", "1"], outputs = [3],
              tolerance = {rel = 2.0e-3, abs = 2.0e-3},
              facts = {align = 16, divisible = {S = 64},
                       range = {arg0 = [-1.0, 1.0], arg1 = [-1.0, 1.0],
                                arg2 = [-1.0, 1.0]}},
              flops = "4 * BH * S * S * 128 / C",
              timing = [8, 4096, 1]>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c64 = arith.constant 64 : index
      %cd = arith.constant 128 : index
      %chalf = arith.constant 64 : index
      %zero = arith.constant 0.0 : f32
      %ninf = arith.constant 0xFF800000 : f32
      %false = arith.constant 0 : i32
      %s = memref.dim %q, %c1 : memref<?x?x128xf16>
      %tid = gpu.thread_id x
      %bx = gpu.block_id x
      %bh = gpu.block_id y
      %r = arith.remui %tid, %c64 : index
      %part = arith.divui %tid, %c64 : index
      %d0 = arith.muli %part, %chalf : index
      %rbase = arith.muli %bx, %c64 : index
      %row = arith.addi %rbase, %r : index
      %inside = arith.cmpi ult, %row, %s : index
      scf.if %inside {
        %masked = arith.cmpi ne, %causal, %false : i32
        %rowp1 = arith.addi %row, %c1 : index
        %kend = arith.select %masked, %rowp1, %s : index
        scf.for %c = %c0 to %chalf step %c1 {
          %d = arith.addi %d0, %c : index
          memref.store %zero, %acc[%d, %r] : memref<128x64xf32, #gpu.address_space<workgroup>>
        }
        %ml:2 = scf.for %j = %c0 to %kend step %c1
            iter_args(%m = %ninf, %l = %zero) -> (f32, f32) {
          %dot = scf.for %d = %c0 to %cd step %c1 iter_args(%t = %zero) -> (f32) {
            %qh = memref.load %q[%bh, %row, %d] : memref<?x?x128xf16>
            %kh = memref.load %k[%bh, %j, %d] : memref<?x?x128xf16>
            %qf = arith.extf %qh : f16 to f32
            %kf = arith.extf %kh : f16 to f32
            %p = arith.mulf %qf, %kf : f32
            %u = arith.addf %t, %p : f32
            scf.yield %u : f32
          }
          %sc = arith.mulf %dot, %scale : f32
          %mn = arith.maximumf %m, %sc : f32
          %dm = arith.subf %m, %mn : f32
          %corr = math.exp %dm : f32
          %ds = arith.subf %sc, %mn : f32
          %pj = math.exp %ds : f32
          %lc = arith.mulf %l, %corr : f32
          %ln = arith.addf %lc, %pj : f32
          scf.for %c = %c0 to %chalf step %c1 {
            %d = arith.addi %d0, %c : index
            %a = memref.load %acc[%d, %r] : memref<128x64xf32, #gpu.address_space<workgroup>>
            %vh = memref.load %v[%bh, %j, %d] : memref<?x?x128xf16>
            %vf = arith.extf %vh : f16 to f32
            %ac = arith.mulf %a, %corr : f32
            %pv = arith.mulf %pj, %vf : f32
            %an = arith.addf %ac, %pv : f32
            memref.store %an, %acc[%d, %r] : memref<128x64xf32, #gpu.address_space<workgroup>>
          }
          scf.yield %mn, %ln : f32, f32
        }
        scf.for %c = %c0 to %chalf step %c1 {
          %d = arith.addi %d0, %c : index
          %a = memref.load %acc[%d, %r] : memref<128x64xf32, #gpu.address_space<workgroup>>
          %y = arith.divf %a, %ml#1 : f32
          %yh = arith.truncf %y : f32 to f16
          memref.store %yh, %o[%bh, %row, %d] : memref<?x?x128xf16>
        }
      }
      gpu.return
    }
  }
}
