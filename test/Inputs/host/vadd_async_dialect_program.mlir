// vadd_program.mlir's kernel, launched from host code written with the async
// dialect: two tasks copy the inputs to the device, each on a stream of its
// own, and a third, which depends on both, launches the kernel and copies
// the result back. gpu-async-region passes each task's GPU work to the next
// as a gpu token in an async value, which reaches the consumer as an event.
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

  func.func @run_vadd(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>)
      attributes {llvm.emit_c_interface} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %n = memref.dim %a, %c0 : memref<?xf32>
    %ta, %va = async.execute -> !async.value<memref<?xf32>> {
      %da = gpu.alloc (%n) : memref<?xf32>
      gpu.memcpy %da, %a : memref<?xf32>, memref<?xf32>
      async.yield %da : memref<?xf32>
    }
    %tb, %vb = async.execute -> !async.value<memref<?xf32>> {
      %db = gpu.alloc (%n) : memref<?xf32>
      gpu.memcpy %db, %b : memref<?xf32>, memref<?xf32>
      async.yield %db : memref<?xf32>
    }
    %tc = async.execute [%ta, %tb] (%va as %da : !async.value<memref<?xf32>>,
                                    %vb as %db : !async.value<memref<?xf32>>) {
      %dc = gpu.alloc (%n) : memref<?xf32>
      %blocks = arith.ceildivui %n, %c256 : index
      gpu.launch_func @kernels::@vadd
          blocks in (%blocks, %c1, %c1) threads in (%c256, %c1, %c1)
          args(%da : memref<?xf32>, %db : memref<?xf32>, %dc : memref<?xf32>,
               %n : index)
      gpu.memcpy %c, %dc : memref<?xf32>, memref<?xf32>
      gpu.dealloc %da : memref<?xf32>
      gpu.dealloc %db : memref<?xf32>
      gpu.dealloc %dc : memref<?xf32>
      async.yield
    }
    async.await %tc : !async.token
    return
  }
}
