// An atomic split-K partial that no split_k_last announces would leave its tile without an
// epilogue (no split would ever find the others in): fuser-tma-reduce-store names it.
// RUN: not fuser-opt %s -p fuser-tma-reduce-store 2>&1 | FileCheck %s
// CHECK: error: fuser-tma-reduce-store: an atomic split_k_store needs a split_k_last on its flag
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @unannounced(%desc: !llvm.ptr, %flags: !llvm.ptr, %m: i32, %n: i32) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %box = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<64x32xf32, #gpu.address_space<workgroup>>
    %c0 = arith.constant 0 : i32
    %el = "nvasync.elect_one"() : () -> i1
    scf.if %el {
      "nvasync.split_k_store"(%desc, %box, %flags, %c0, %m, %n) {mode = "atomic"} : (!llvm.ptr, memref<64x32xf32, #gpu.address_space<workgroup>>, !llvm.ptr, i32, i32, i32) -> ()
    }
    gpu.return
  }
}
}
