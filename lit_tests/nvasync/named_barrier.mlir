// nvasync.named_barrier {id, threads} lowers to nvvm.barrier id = .. number_of_threads = .. and
// then to bar.sync id, threads.  Rules checked: both values are passed through unchanged, in
// that order (1, 128) and (15, 64).
// RUN: fuser-opt %s -p fuser-lower-nvasync | FileCheck %s --check-prefix=NVVM
// RUN: fuser-opt %s --emit=ptx -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx && %ptxas %t.ptx -o %t.cubin

// NVVM-NOT: nvasync.
// NVVM-DAG: %[[C1:.*]] = arith.constant 1 : i32
// NVVM-DAG: %[[C128:.*]] = arith.constant 128 : i32
// NVVM: nvvm.barrier id = %[[C1]] number_of_threads = %[[C128]]
// NVVM-DAG: %[[C15:.*]] = arith.constant 15 : i32
// NVVM-DAG: %[[C64:.*]] = arith.constant 64 : i32
// NVVM: nvvm.barrier id = %[[C15]] number_of_threads = %[[C64]]
// NVVM-NOT: nvasync.

// PTX: bar.sync 1, 128;
// PTX: bar.sync 15, 64;

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k() kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    "nvasync.named_barrier"() {id = 1 : i32, threads = 128 : i32} : () -> ()
    "nvasync.named_barrier"() {id = 15 : i32, threads = 64 : i32} : () -> ()
    gpu.return
  }
}
}
