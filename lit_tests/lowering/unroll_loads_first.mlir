// fuser-unroll-loops: where an unrolled body updates shared memory in place, every iteration's
// loads go first -- but only when no thread's load reads a byte one of its own earlier stores
// wrote, each access evaluated for every thread of the block.
// RUN: fuser-opt %s --split-input-file -p fuser-unroll-loops | FileCheck %s

// Each thread updates its own row, one element an iteration: the four loads, then the stores.
// CHECK-LABEL: gpu.func @in_place
// CHECK-COUNT-4: memref.load
// CHECK-NOT: memref.load
// CHECK-COUNT-4: memref.store
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @in_place() kernel attributes {gpu.known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %two = arith.constant 2.0 : f32
    %tid = gpu.thread_id x
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<64x4xf32, #gpu.address_space<workgroup>>
    scf.for %i = %c0 to %c4 step %c1 {
      %v = memref.load %buf[%tid, %i] : memref<64x4xf32, #gpu.address_space<workgroup>>
      %w = arith.mulf %v, %two : f32
      memref.store %w, %buf[%tid, %i] : memref<64x4xf32, #gpu.address_space<workgroup>>
    } {fuser.unroll}
    gpu.return
  }
}
}

// -----

// Iteration i + 1 reads what iteration i wrote (a running sum along the row): the order stays.
// CHECK-LABEL: gpu.func @carried
// CHECK: memref.load
// CHECK-NOT: memref.load
// CHECK: memref.store
// CHECK: memref.load
// CHECK-NOT: memref.load
// CHECK: memref.store
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @carried() kernel attributes {gpu.known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %two = arith.constant 2.0 : f32
    %tid = gpu.thread_id x
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<64x4xf32, #gpu.address_space<workgroup>>
    scf.for %i = %c0 to %c3 step %c1 {
      %v = memref.load %buf[%tid, %i] : memref<64x4xf32, #gpu.address_space<workgroup>>
      %w = arith.mulf %v, %two : f32
      %next = arith.addi %i, %c1 : index
      memref.store %w, %buf[%tid, %next] : memref<64x4xf32, #gpu.address_space<workgroup>>
    } {fuser.unroll}
    gpu.return
  }
}
}

// -----

// The row is a kernel argument: no per-thread bytes to compare, so the order stays.
// CHECK-LABEL: gpu.func @unknown_row
// CHECK: memref.load
// CHECK-NOT: memref.load
// CHECK: memref.store
// CHECK: memref.load
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @unknown_row(%row: index) kernel attributes {gpu.known_block_size = array<i32: 64, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %two = arith.constant 2.0 : f32
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<64x4xf32, #gpu.address_space<workgroup>>
    scf.for %i = %c0 to %c4 step %c1 {
      %v = memref.load %buf[%row, %i] : memref<64x4xf32, #gpu.address_space<workgroup>>
      %w = arith.mulf %v, %two : f32
      memref.store %w, %buf[%row, %i] : memref<64x4xf32, #gpu.address_space<workgroup>>
    } {fuser.unroll}
    gpu.return
  }
}
}
