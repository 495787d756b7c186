// Token chains that share streams, for llmgen-host-async: the two deallocs
// and the copy are on the stream of %t0, and so is the host-shared
// allocation's dependency.
func.func @aliased(%n: index, %h: memref<?xf32>) {
  %t0 = gpu.wait async
  %d, %t1 = gpu.alloc async [%t0] (%n) : memref<?xf32>
  %s, %t2 = gpu.alloc async [%t0] host_shared (%n) : memref<?xf32>
  %t3 = gpu.memcpy async [%t1] %d, %h : memref<?xf32>, memref<?xf32>
  %t4 = gpu.dealloc async [%t3] %d : memref<?xf32>
  %t5 = gpu.dealloc async [%t2] %s : memref<?xf32>
  gpu.wait [%t3, %t4, %t5]
  return
}
