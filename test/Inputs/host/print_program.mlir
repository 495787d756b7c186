// Host code that prints with vector.print (vectors, scalars of every width,
// strings) the way MLIR's integration tests check their results; no GPU.
module {
  func.func @run() attributes {llvm.emit_c_interface} {
    %v = arith.constant dense<[1.0, 2.5, -3.0, 0x7FC00000]> : vector<4xf32>
    %i = arith.constant dense<[-1, 2]> : vector<2xi32>
    %d = arith.constant 0.125 : f64
    %h = arith.constant 1.5 : f16
    %b = arith.constant -2.5 : bf16
    %t = arith.constant true
    %x = arith.constant 7 : index
    %u = arith.constant 200 : i8
    vector.print %v : vector<4xf32>
    vector.print %i : vector<2xi32>
    vector.print %d : f64
    vector.print %h : f16
    vector.print %b : bf16
    vector.print %t : i1
    vector.print %x : index
    vector.print %u : i8
    vector.print str "done\n"
    return
  }
}
