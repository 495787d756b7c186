// The attention forward of the Hopper model study (docs/benchmarks.md,
// "Hopper"): fragments/proofs/attn_fwd.mlir's D = 64 kernel named
// @attention, lowered for sm_90a in optimize mode, answered by a model
// through the model bridge. Causal is S % 2; timed at BH = 64, S = 4096.
module attributes {gpu.container_module} {
  gpu.module @attention_module {
    gpu.func @attention(%q: memref<?x?x64xf16>, %k: memref<?x?x64xf16>,
                          %v: memref<?x?x64xf16>, %o: memref<?x?x64xf16>,
                          %scale: f32, %causal: i32)
        kernel attributes {known_block_size = array<i32: 128, 1, 1>,
          llmgen.spec = "O = softmax(Q K^T * scale, causal mask when causal != 0) V per batch*head, f32 math, O rounded to f16",
          llmgen.harness = #llmgen.harness<sizes = ["BH", "S"],
              shapes = [[3, 1], [3, 7], [2, 100], [2, 129], [2, 777],
                        [2, 778], [4, 1024], [2, 1023]],
              args = ["BH, S", "BH, S", "BH, S", "BH, S", "0.125", "S % 2"],
              grid = ["ceildiv(S, 128)", "BH", "1"],
              tolerance = {rel = 2.0e-3, abs = 2.0e-3},
              facts = {align = 16, range = {arg0 = [-1.0, 1.0], arg1 = [-1.0, 1.0], arg2 = [-1.0, 1.0]}},
              flops = "4 * BH * S * S * 64", timing = [64, 4096]>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c128 = arith.constant 128 : index
      %cD = arith.constant 64 : index
      %zero = arith.constant 0.0 : f32
      %ninf = arith.constant 0xFF800000 : f32
      %izero = arith.constant 0 : i32
      %s = memref.dim %q, %c1 : memref<?x?x64xf16>
      %bx = gpu.block_id x
      %bh = gpu.block_id y
      %tid = gpu.thread_id x
      %base = arith.muli %bx, %c128 : index
      %row = arith.addi %base, %tid : index
      %inrange = arith.cmpi ult, %row, %s : index
      scf.if %inrange {
        %iscausal = arith.cmpi ne, %causal, %izero : i32
        %rowp1 = arith.addi %row, %c1 : index
        %kmax = arith.select %iscausal, %rowp1, %s : index
        %acc = memref.alloca() : memref<64xf32>
        // Pass 1: the row's largest score.
        %m = scf.for %j = %c0 to %kmax step %c1 iter_args(%mx = %ninf) -> (f32) {
          %dot = scf.for %d = %c0 to %cD step %c1 iter_args(%t = %zero) -> (f32) {
            %a = memref.load %q[%bh, %row, %d] : memref<?x?x64xf16>
            %b = memref.load %k[%bh, %j, %d] : memref<?x?x64xf16>
            %af = arith.extf %a : f16 to f32
            %bf = arith.extf %b : f16 to f32
            %p = arith.mulf %af, %bf : f32
            %u = arith.addf %t, %p : f32
            scf.yield %u : f32
          }
          %sc = arith.mulf %dot, %scale : f32
          %nm = arith.maximumf %mx, %sc : f32
          scf.yield %nm : f32
        }
        scf.for %d = %c0 to %cD step %c1 {
          memref.store %zero, %acc[%d] : memref<64xf32>
        }
        // Pass 2: exp(score - max), its sum, and the weighted rows of V.
        %l = scf.for %j = %c0 to %kmax step %c1 iter_args(%sum = %zero) -> (f32) {
          %dot = scf.for %d = %c0 to %cD step %c1 iter_args(%t = %zero) -> (f32) {
            %a = memref.load %q[%bh, %row, %d] : memref<?x?x64xf16>
            %b = memref.load %k[%bh, %j, %d] : memref<?x?x64xf16>
            %af = arith.extf %a : f16 to f32
            %bf = arith.extf %b : f16 to f32
            %p = arith.mulf %af, %bf : f32
            %u = arith.addf %t, %p : f32
            scf.yield %u : f32
          }
          %sc = arith.mulf %dot, %scale : f32
          %diff = arith.subf %sc, %m : f32
          %w = math.exp %diff : f32
          scf.for %d = %c0 to %cD step %c1 {
            %x = memref.load %v[%bh, %j, %d] : memref<?x?x64xf16>
            %xf = arith.extf %x : f16 to f32
            %old = memref.load %acc[%d] : memref<64xf32>
            %prod = arith.mulf %w, %xf : f32
            %new = arith.addf %old, %prod : f32
            memref.store %new, %acc[%d] : memref<64xf32>
          }
          %ns = arith.addf %sum, %w : f32
          scf.yield %ns : f32
        }
        scf.for %d = %c0 to %cD step %c1 {
          %t = memref.load %acc[%d] : memref<64xf32>
          %y = arith.divf %t, %l : f32
          %h = arith.truncf %y : f32 to f16
          memref.store %h, %o[%bh, %row, %d] : memref<?x?x64xf16>
        }
      }
      gpu.return
    }
  }

  func.func @run_attention_d64(%q: memref<?x?x64xf16>, %k: memref<?x?x64xf16>,
                               %v: memref<?x?x64xf16>, %o: memref<?x?x64xf16>,
                               %scale: f32, %causal: i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %bh = memref.dim %q, %c0 : memref<?x?x64xf16>
    %s = memref.dim %q, %c1 : memref<?x?x64xf16>
    %gx = arith.ceildivui %s, %c128 : index
    gpu.launch_func @attention_module::@attention blocks in (%gx, %bh, %c1)
        threads in (%c128, %c1, %c1)
        args(%q : memref<?x?x64xf16>, %k : memref<?x?x64xf16>, %v : memref<?x?x64xf16>,
             %o : memref<?x?x64xf16>, %scale : f32, %causal : i32)
    return
  }
}
