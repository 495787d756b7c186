// Host code with the async dialect only: tasks, values, dependencies and a
// group, awaited blocking and from inside other tasks.
module {
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %buf = memref.alloc() : memref<8xi64>
    // Eight tasks, one per element, joined by a group.
    %group = async.create_group %c8 : !async.group
    scf.for %i = %c0 to %c8 step %c1 {
      %token = async.execute {
        %v = arith.index_cast %i : index to i64
        %sq = arith.muli %v, %v : i64
        memref.store %sq, %buf[%i] : memref<8xi64>
        async.yield
      }
      %rank = async.add_to_group %token, %group : !async.token
    }
    // A task that waits for the group inside itself and yields a value.
    %t1, %sum = async.execute -> !async.value<i64> {
      async.await_all %group
      %zero = arith.constant 0 : i64
      %s = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> i64 {
        %x = memref.load %buf[%i] : memref<8xi64>
        %n = arith.addi %acc, %x : i64
        scf.yield %n : i64
      }
      async.yield %s : i64
    }
    // A task that depends on the first one's token and takes its value.
    %t2, %twice = async.execute [%t1] (%sum as %s : !async.value<i64>)
        -> !async.value<i64> {
      %d = arith.addi %s, %s : i64
      async.yield %d : i64
    }
    async.await %t2 : !async.token
    %r1 = async.await %sum : !async.value<i64>
    %r2 = async.await %twice : !async.value<i64>
    %all = vector.transfer_read %buf[%c0], %r1 : memref<8xi64>, vector<8xi64>
    vector.print %all : vector<8xi64>
    vector.print %r1 : i64
    vector.print %r2 : i64
    memref.dealloc %buf : memref<8xi64>
    return
  }
}
