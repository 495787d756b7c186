// printMemref* of every element type the runtime prints, in the ranks and
// layouts MLIR's tests use (0-d, 1-d, 2-d, 3-d, a strided subview), with
// and without llvm.emit_c_interface on the declaration.
module {
  func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
  func.func private @printMemrefF64(memref<*xf64>) attributes {llvm.emit_c_interface}
  func.func private @printMemrefF16(memref<*xf16>) attributes {llvm.emit_c_interface}
  func.func private @printMemrefBF16(memref<*xbf16>) attributes {llvm.emit_c_interface}
  func.func private @printMemrefI8(memref<*xi8>) attributes {llvm.emit_c_interface}
  func.func private @printMemrefI16(memref<*xi16>) attributes {llvm.emit_c_interface}
  func.func private @printMemrefI32(memref<*xi32>)
  func.func private @printMemrefI64(memref<*xi64>) attributes {llvm.emit_c_interface}
  func.func private @printMemrefInd(memref<*xindex>) attributes {llvm.emit_c_interface}
  func.func @run() attributes {llvm.emit_c_interface} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %a = memref.alloc() : memref<3x4xf32>
    scf.for %i = %c0 to %c3 step %c1 {
      scf.for %j = %c0 to %c4 step %c1 {
        %k = arith.muli %i, %c4 : index
        %l = arith.addi %k, %j : index
        %li = arith.index_cast %l : index to i32
        %f = arith.sitofp %li : i32 to f32
        %q = arith.constant 0.25 : f32
        %g = arith.subf %f, %q : f32
        memref.store %g, %a[%i, %j] : memref<3x4xf32>
      }
    }
    %ua = memref.cast %a : memref<3x4xf32> to memref<*xf32>
    call @printMemrefF32(%ua) : (memref<*xf32>) -> ()
    %sub = memref.subview %a[1, 1] [2, 2] [1, 2] : memref<3x4xf32> to memref<2x2xf32, strided<[4, 2], offset: 5>>
    %us = memref.cast %sub : memref<2x2xf32, strided<[4, 2], offset: 5>> to memref<*xf32>
    call @printMemrefF32(%us) : (memref<*xf32>) -> ()
    %d = memref.alloc() : memref<2xf64>
    %pi = arith.constant 3.14159265358979 : f64
    %tiny = arith.constant 1.0e-300 : f64
    memref.store %pi, %d[%c0] : memref<2xf64>
    memref.store %tiny, %d[%c1] : memref<2xf64>
    %ud = memref.cast %d : memref<2xf64> to memref<*xf64>
    call @printMemrefF64(%ud) : (memref<*xf64>) -> ()
    %h = memref.alloc() : memref<2xf16>
    %hv = arith.constant -1.5 : f16
    linalg.fill ins(%hv : f16) outs(%h : memref<2xf16>)
    %uh = memref.cast %h : memref<2xf16> to memref<*xf16>
    call @printMemrefF16(%uh) : (memref<*xf16>) -> ()
    %b = memref.alloc() : memref<2xbf16>
    %bv = arith.constant 2.5 : bf16
    linalg.fill ins(%bv : bf16) outs(%b : memref<2xbf16>)
    %ub = memref.cast %b : memref<2xbf16> to memref<*xbf16>
    call @printMemrefBF16(%ub) : (memref<*xbf16>) -> ()
    %i8 = memref.alloc() : memref<3xi8>
    %m5 = arith.constant -5 : i8
    linalg.fill ins(%m5 : i8) outs(%i8 : memref<3xi8>)
    %u8 = memref.cast %i8 : memref<3xi8> to memref<*xi8>
    call @printMemrefI8(%u8) : (memref<*xi8>) -> ()
    %i16 = memref.alloc() : memref<2xi16>
    %v16 = arith.constant 300 : i16
    linalg.fill ins(%v16 : i16) outs(%i16 : memref<2xi16>)
    %u16 = memref.cast %i16 : memref<2xi16> to memref<*xi16>
    call @printMemrefI16(%u16) : (memref<*xi16>) -> ()
    %i32 = memref.alloc() : memref<2x2x2xi32>
    %v32 = arith.constant 7 : i32
    linalg.fill ins(%v32 : i32) outs(%i32 : memref<2x2x2xi32>)
    %u32 = memref.cast %i32 : memref<2x2x2xi32> to memref<*xi32>
    call @printMemrefI32(%u32) : (memref<*xi32>) -> ()
    %i64 = memref.alloc() : memref<i64>
    %v64 = arith.constant -9000000000 : i64
    memref.store %v64, %i64[] : memref<i64>
    %u64 = memref.cast %i64 : memref<i64> to memref<*xi64>
    call @printMemrefI64(%u64) : (memref<*xi64>) -> ()
    %ix = memref.alloc() : memref<2xindex>
    memref.store %c3, %ix[%c0] : memref<2xindex>
    memref.store %c4, %ix[%c1] : memref<2xindex>
    %ui = memref.cast %ix : memref<2xindex> to memref<*xindex>
    call @printMemrefInd(%ui) : (memref<*xindex>) -> ()
    return
  }
}
