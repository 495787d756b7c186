// An sm_90 kernel: out = x * alpha + beta where each block moves its tile of
// 4096 floats with the Hopper bulk-copy engine (cp.async.bulk, the 1-D form
// of TMA) instead of per-thread loads: thread 0 arms an mbarrier with the
// expected byte count and starts a global -> shared bulk copy, every thread
// waits on the barrier's phase, transforms the tile in shared memory, and
// after a proxy fence and a block barrier thread 0 writes the tile back with
// a shared -> global bulk copy and waits until it has been read. Bulk copies
// need 16-byte aligned addresses and sizes that are multiples of 16, so the
// harness states 16-byte alignment and the last one to three elements of a
// tile whose length is not a multiple of four take the ordinary path.
module attributes {gpu.container_module} {
  gpu.module @tma_affine_module {
    memref.global "private" @tile : memref<4096xf32, #gpu.address_space<workgroup>> {alignment = 128 : i64}
    memref.global "private" @bar : memref<1xi64, #gpu.address_space<workgroup>> {alignment = 8 : i64}
    gpu.func @tma_affine(%x: memref<?xf32>, %out: memref<?xf32>, %alpha: f32,
                         %beta: f32, %n: index)
        kernel attributes {known_block_size = array<i32: 256, 1, 1>,
          llmgen.spec = "out = x * alpha + beta (no contraction), tiles of 4096 moved with cp.async.bulk",
          llmgen.harness = #llmgen.harness<sizes = ["N"],
              args = ["N", "N", "-0.625", "2.5", "N"],
              grid = ["ceildiv(N, 4096)", "1", "1"], facts = {align = 16}>} {
      %c0 = arith.constant 0 : index
      %c256 = arith.constant 256 : index
      %c4096 = arith.constant 4096 : index
      %cm4 = arith.constant -4 : index
      %c4i = arith.constant 4 : i64
      %one = arith.constant 1 : i32
      %phase = arith.constant 0 : i32
      %ticks = arith.constant 1000000 : i32
      %bid = gpu.block_id x
      %tid = gpu.thread_id x
      %base = arith.muli %bid, %c4096 : index
      %rem = arith.subi %n, %base : index
      %count = arith.minui %rem, %c4096 : index
      %bulk = arith.andi %count, %cm4 : index
      %bulk64 = arith.index_cast %bulk : index to i64
      %bytes64 = arith.muli %bulk64, %c4i : i64
      %bytes = arith.trunci %bytes64 : i64 to i32
      %tile = memref.get_global @tile : memref<4096xf32, #gpu.address_space<workgroup>>
      %bar = memref.get_global @bar : memref<1xi64, #gpu.address_space<workgroup>>
      %tilei = memref.extract_aligned_pointer_as_index %tile : memref<4096xf32, #gpu.address_space<workgroup>> -> index
      %bari = memref.extract_aligned_pointer_as_index %bar : memref<1xi64, #gpu.address_space<workgroup>> -> index
      %tile64 = arith.index_cast %tilei : index to i64
      %bar64 = arith.index_cast %bari : index to i64
      %tilep = llvm.inttoptr %tile64 : i64 to !llvm.ptr<3>
      %barp = llvm.inttoptr %bar64 : i64 to !llvm.ptr<3>
      %tilec = llvm.addrspacecast %tilep : !llvm.ptr<3> to !llvm.ptr<7>
      %xi = memref.extract_aligned_pointer_as_index %x : memref<?xf32> -> index
      %oi = memref.extract_aligned_pointer_as_index %out : memref<?xf32> -> index
      %x64 = arith.index_cast %xi : index to i64
      %o64 = arith.index_cast %oi : index to i64
      %base64 = arith.index_cast %base : index to i64
      %off64 = arith.muli %base64, %c4i : i64
      %xs = arith.addi %x64, %off64 : i64
      %os = arith.addi %o64, %off64 : i64
      %xgen = llvm.inttoptr %xs : i64 to !llvm.ptr
      %ogen = llvm.inttoptr %os : i64 to !llvm.ptr
      %xg = llvm.addrspacecast %xgen : !llvm.ptr to !llvm.ptr<1>
      %og = llvm.addrspacecast %ogen : !llvm.ptr to !llvm.ptr<1>
      %leader = arith.cmpi eq, %tid, %c0 : index
      scf.if %leader {
        nvvm.mbarrier.init %barp, %one : !llvm.ptr<3>, i32
        nvvm.fence.mbarrier.init
      }
      gpu.barrier
      %any = arith.cmpi ugt, %bulk, %c0 : index
      scf.if %any {
        scf.if %leader {
          nvvm.mbarrier.arrive.expect_tx %barp, %bytes : !llvm.ptr<3>, i32
          nvvm.cp.async.bulk.shared.cluster.global %tilec, %xg, %barp, %bytes : !llvm.ptr<7>, !llvm.ptr<1>
        }
        nvvm.mbarrier.try_wait.parity %barp, %phase, %ticks : !llvm.ptr<3>, i32, i32
        scf.for %j = %tid to %bulk step %c256 {
          %v = memref.load %tile[%j] : memref<4096xf32, #gpu.address_space<workgroup>>
          %m = arith.mulf %v, %alpha : f32
          %s = arith.addf %m, %beta : f32
          memref.store %s, %tile[%j] : memref<4096xf32, #gpu.address_space<workgroup>>
        }
        nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
        gpu.barrier
        scf.if %leader {
          nvvm.cp.async.bulk.global.shared.cta %og, %tilep, %bytes : !llvm.ptr<1>, !llvm.ptr<3>
          nvvm.cp.async.bulk.commit.group
          nvvm.cp.async.bulk.wait_group 0 {read}
        }
      }
      // The one to three elements past the last multiple of four.
      %j = arith.addi %bulk, %tid : index
      %tail = arith.cmpi ult, %j, %count : index
      scf.if %tail {
        %g = arith.addi %base, %j : index
        %v = memref.load %x[%g] : memref<?xf32>
        %m = arith.mulf %v, %alpha : f32
        %s = arith.addf %m, %beta : f32
        memref.store %s, %out[%g] : memref<?xf32>
      }
      gpu.return
    }
  }
}
