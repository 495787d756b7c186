// vadd_program.mlir's kernel, launched from host code written with async
// tokens as MLIR's GPU integration tests write it: several dependencies
// per op, and a host-shared allocation among async ones. MLIR 22's
// gpu-to-llvm lowers neither as written; host_build's llmgen-host-async
// puts them in the form it lowers.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // c = a + b
    gpu.func @vadd(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>,
                   %n: index) kernel
        attributes {known_block_size = array<i32: 256, 1, 1>,
          llmgen.spec = "element-wise vector add",
          llmgen.harness = #llmgen.harness<sizes = ["N"],
              args = ["N", "N", "N", "N"], grid = ["ceildiv(N, 256)", "1", "1"]>} {
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %tid = gpu.thread_id x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %in = arith.cmpi ult, %i, %n : index
      scf.if %in {
        %x = memref.load %a[%i] : memref<?xf32>
        %y = memref.load %b[%i] : memref<?xf32>
        %s = arith.addf %x, %y : f32
        memref.store %s, %c[%i] : memref<?xf32>
      }
      gpu.return
    }
  }

  // c = a + b on the GPU; the three host buffers have the same size.
  // The same computation written with explicit async tokens: the two
  // inputs are allocated and copied on chains of their own, the launch
  // waits for both (two dependencies), and the output is host-shared
  // (managed) memory.
  func.func @run_vadd(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>)
      attributes {llvm.emit_c_interface} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %n = memref.dim %a, %c0 : memref<?xf32>
    %t0 = gpu.wait async
    %da, %ta = gpu.alloc async [%t0] (%n) : memref<?xf32>
    %db, %tb = gpu.alloc async [%t0] (%n) : memref<?xf32>
    %dc = gpu.alloc host_shared (%n) : memref<?xf32>
    %ta2 = gpu.memcpy async [%ta] %da, %a : memref<?xf32>, memref<?xf32>
    %tb2 = gpu.memcpy async [%tb] %db, %b : memref<?xf32>, memref<?xf32>
    %blocks = arith.ceildivui %n, %c256 : index
    %tl = gpu.launch_func async [%ta2, %tb2] @kernels::@vadd
        blocks in (%blocks, %c1, %c1) threads in (%c256, %c1, %c1)
        args(%da : memref<?xf32>, %db : memref<?xf32>, %dc : memref<?xf32>,
             %n : index)
    %tc = gpu.memcpy async [%tl] %c, %dc : memref<?xf32>, memref<?xf32>
    %t1 = gpu.dealloc async [%tc] %da : memref<?xf32>
    %t2 = gpu.dealloc async [%tc] %db : memref<?xf32>
    gpu.wait [%t1, %t2]
    gpu.dealloc %dc : memref<?xf32>
    return
  }
}
