// A host program that makes the lowered code call the rest of the mgpu*
// ABI: gpu.memset of 32- and 16-bit elements, gpu.host_register and
// gpu.host_unregister (a kernel works on registered host memory in place),
// a launch with 64 KiB of dynamic shared memory (above the 48 KiB default,
// so the runtime must opt the kernel in), a cluster launch (sm_90) and
// gpu.set_default_device. test/Inputs/host/runtime_calls_driver.c checks
// every result.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // out[i] = a[i] + b[i] (b zero-extended): a and b come from gpu.memset.
    gpu.func @widen_add(%a: memref<?xi32>, %b: memref<?xi16>,
                        %out: memref<?xi32>, %n: index) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>} {
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %tid = gpu.thread_id x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %in = arith.cmpi ult, %i, %n : index
      scf.if %in {
        %x = memref.load %a[%i] : memref<?xi32>
        %y = memref.load %b[%i] : memref<?xi16>
        %w = arith.extui %y : i16 to i32
        %s = arith.addi %x, %w : i32
        memref.store %s, %out[%i] : memref<?xi32>
      }
      gpu.return
    }

    // h[i] = 2 * h[i] + 1, on host memory registered with the driver.
    gpu.func @scale_in_place(%h: memref<?xf32>, %n: index) kernel
        attributes {known_block_size = array<i32: 128, 1, 1>} {
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %tid = gpu.thread_id x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %in = arith.cmpi ult, %i, %n : index
      scf.if %in {
        %x = memref.load %h[%i] : memref<?xf32>
        %two = arith.constant 2.0 : f32
        %one = arith.constant 1.0 : f32
        %d = arith.mulf %x, %two : f32
        %r = arith.addf %d, %one : f32
        memref.store %r, %h[%i] : memref<?xf32>
      }
      gpu.return
    }

    // Each block reverses 256 floats through dynamic shared memory, with
    // the elements 64 floats apart: 256 * 64 * 4 bytes = 64 KiB.
    gpu.func @reverse_blocks(%in: memref<?xf32>, %out: memref<?xf32>) kernel
        attributes {known_block_size = array<i32: 256, 1, 1>} {
      %c0 = arith.constant 0 : index
      %c64 = arith.constant 64 : index
      %c255 = arith.constant 255 : index
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %tid = gpu.thread_id x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %raw = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %shm = memref.view %raw[%c0][] : memref<?xi8, #gpu.address_space<workgroup>>
          to memref<16384xf32, #gpu.address_space<workgroup>>
      %x = memref.load %in[%i] : memref<?xf32>
      %slot = arith.muli %tid, %c64 : index
      memref.store %x, %shm[%slot] : memref<16384xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %other = arith.subi %c255, %tid : index
      %from = arith.muli %other, %c64 : index
      %y = memref.load %shm[%from] : memref<16384xf32, #gpu.address_space<workgroup>>
      memref.store %y, %out[%i] : memref<?xf32>
      gpu.return
    }

    // ids[block] = 100 * cluster id + rank of the block in its cluster.
    gpu.func @cluster_ids(%ids: memref<?xi32>) kernel
        attributes {known_block_size = array<i32: 32, 1, 1>} {
      %tid = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        %bid = gpu.block_id x
        %cid = gpu.cluster_id x
        %rank = gpu.cluster_block_id x
        %c100 = arith.constant 100 : index
        %hi = arith.muli %cid, %c100 : index
        %v = arith.addi %hi, %rank : index
        %vi = arith.index_cast %v : index to i32
        memref.store %vi, %ids[%bid] : memref<?xi32>
      }
      gpu.return
    }
  }

  // out = 0x01020304 + 0x0506 on every element, through two gpu.memsets.
  func.func @run_memsets(%out: memref<?xi32>) attributes {llvm.emit_c_interface} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %dev = arith.constant 0 : i32
    gpu.set_default_device %dev
    %n = memref.dim %out, %c0 : memref<?xi32>
    %a = gpu.alloc (%n) : memref<?xi32>
    %b = gpu.alloc (%n) : memref<?xi16>
    %o = gpu.alloc (%n) : memref<?xi32>
    %v32 = arith.constant 16909060 : i32
    %v16 = arith.constant 1286 : i16
    gpu.memset %a, %v32 : memref<?xi32>, i32
    gpu.memset %b, %v16 : memref<?xi16>, i16
    %blocks = arith.ceildivui %n, %c128 : index
    gpu.launch_func @kernels::@widen_add blocks in (%blocks, %c1, %c1)
        threads in (%c128, %c1, %c1)
        args(%a : memref<?xi32>, %b : memref<?xi16>, %o : memref<?xi32>,
             %n : index)
    gpu.memcpy %out, %o : memref<?xi32>, memref<?xi32>
    gpu.dealloc %a : memref<?xi32>
    gpu.dealloc %b : memref<?xi16>
    gpu.dealloc %o : memref<?xi32>
    return
  }

  // h = 2 * h + 1 in place, on the registered host buffer.
  func.func @run_registered(%h: memref<?xf32>) attributes {llvm.emit_c_interface} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %n = memref.dim %h, %c0 : memref<?xf32>
    %u = memref.cast %h : memref<?xf32> to memref<*xf32>
    gpu.host_register %u : memref<*xf32>
    %blocks = arith.ceildivui %n, %c128 : index
    gpu.launch_func @kernels::@scale_in_place blocks in (%blocks, %c1, %c1)
        threads in (%c128, %c1, %c1) args(%h : memref<?xf32>, %n : index)
    %t = gpu.wait async
    gpu.wait [%t]
    gpu.host_unregister %u : memref<*xf32>
    return
  }

  // out = in reversed within each block of 256 (size: a multiple of 256).
  func.func @run_reverse(%in: memref<?xf32>, %out: memref<?xf32>)
      attributes {llvm.emit_c_interface} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %smem = arith.constant 65536 : i32
    %n = memref.dim %in, %c0 : memref<?xf32>
    %din = gpu.alloc (%n) : memref<?xf32>
    %dout = gpu.alloc (%n) : memref<?xf32>
    gpu.memcpy %din, %in : memref<?xf32>, memref<?xf32>
    %blocks = arith.divui %n, %c256 : index
    gpu.launch_func @kernels::@reverse_blocks blocks in (%blocks, %c1, %c1)
        threads in (%c256, %c1, %c1) dynamic_shared_memory_size %smem
        args(%din : memref<?xf32>, %dout : memref<?xf32>)
    gpu.memcpy %out, %dout : memref<?xf32>, memref<?xf32>
    gpu.dealloc %din : memref<?xf32>
    gpu.dealloc %dout : memref<?xf32>
    return
  }

  // ids[b] for a grid of size(ids) blocks in clusters of 2.
  func.func @run_clusters(%ids: memref<?xi32>) attributes {llvm.emit_c_interface} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %n = memref.dim %ids, %c0 : memref<?xi32>
    %d = gpu.alloc (%n) : memref<?xi32>
    gpu.launch_func @kernels::@cluster_ids clusters in (%c2, %c1, %c1)
        blocks in (%n, %c1, %c1) threads in (%c32, %c1, %c1)
        args(%d : memref<?xi32>)
    gpu.memcpy %ids, %d : memref<?xi32>, memref<?xi32>
    gpu.dealloc %d : memref<?xi32>
    return
  }
}
