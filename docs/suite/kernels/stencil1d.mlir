// A 7-point 1-D stencil (a symmetric smoothing filter of radius 3):
// out[i] = w0 * in[i] + w1 * (in[i-1] + in[i+1]) + w2 * (in[i-2] + in[i+2])
//        + w3 * (in[i-3] + in[i+3]) inside, out[i] = in[i] within 3 of
// either end. One output per thread, each reading its seven inputs from
// global memory. No fastmath flags: the association above is the semantics.
module attributes {gpu.container_module} {
  gpu.module @stencil1d_module {
    gpu.func @stencil1d(%in: memref<?xf32>, %out: memref<?xf32>, %n: index)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>,
          llmgen.spec = "radius-3 symmetric stencil; boundary elements copied",
          llmgen.harness = #llmgen.harness<sizes = ["N"],
              args = ["N", "N", "N"], grid = ["ceildiv(N, 256)", "1", "1"],
              facts = {align = 16}>} {
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %w0 = arith.constant 0.4 : f32
      %w1 = arith.constant 0.2 : f32
      %w2 = arith.constant 0.07 : f32
      %w3 = arith.constant 0.03 : f32
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %tid = gpu.thread_id x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %inb = arith.cmpi ult, %i, %n : index
      scf.if %inb {
        %lo = arith.cmpi uge, %i, %c3 : index
        %i3 = arith.addi %i, %c3 : index
        %hi = arith.cmpi ult, %i3, %n : index
        %inside = arith.andi %lo, %hi : i1
        %r = scf.if %inside -> (f32) {
          %im1 = arith.subi %i, %c1 : index
          %im2 = arith.subi %i, %c2 : index
          %im3 = arith.subi %i, %c3 : index
          %ip1 = arith.addi %i, %c1 : index
          %ip2 = arith.addi %i, %c2 : index
          %x0 = memref.load %in[%i] : memref<?xf32>
          %l1 = memref.load %in[%im1] : memref<?xf32>
          %r1 = memref.load %in[%ip1] : memref<?xf32>
          %l2 = memref.load %in[%im2] : memref<?xf32>
          %r2 = memref.load %in[%ip2] : memref<?xf32>
          %l3 = memref.load %in[%im3] : memref<?xf32>
          %r3 = memref.load %in[%i3] : memref<?xf32>
          %t0 = arith.mulf %w0, %x0 : f32
          %p1 = arith.addf %l1, %r1 : f32
          %t1 = arith.mulf %w1, %p1 : f32
          %s1 = arith.addf %t0, %t1 : f32
          %p2 = arith.addf %l2, %r2 : f32
          %t2 = arith.mulf %w2, %p2 : f32
          %s2 = arith.addf %s1, %t2 : f32
          %p3 = arith.addf %l3, %r3 : f32
          %t3 = arith.mulf %w3, %p3 : f32
          %s3 = arith.addf %s2, %t3 : f32
          scf.yield %s3 : f32
        } else {
          %x0 = memref.load %in[%i] : memref<?xf32>
          scf.yield %x0 : f32
        }
        memref.store %r, %out[%i] : memref<?xf32>
      }
      gpu.return
    }
  }
}
