// fuser-unroll-loops: a marked loop of no iterations disappears; a step below 1 or more
// iterations than it unrolls is an error at the loop (not an exception, not an endless unroll).
// RUN: fuser-opt %s --split-input-file --verify-diagnostics -p fuser-unroll-loops | FileCheck %s

// CHECK-LABEL: gpu.func @no_iterations
// CHECK-NOT: scf.for
// CHECK-NOT: memref.load
// CHECK: gpu.return
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @no_iterations() kernel attributes {gpu.known_block_size = array<i32: 64, 1, 1>} {
    %lo = arith.constant 4 : index
    %hi = arith.constant 0 : index
    %st = arith.constant 1 : index
    %two = arith.constant 2.0 : f32
    %tid = gpu.thread_id x
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<64x4xf32, #gpu.address_space<workgroup>>
    scf.for %i = %lo to %hi step %st {
      %v = memref.load %buf[%tid, %i] : memref<64x4xf32, #gpu.address_space<workgroup>>
      %w = arith.mulf %v, %two : f32
      memref.store %w, %buf[%tid, %i] : memref<64x4xf32, #gpu.address_space<workgroup>>
    } {fuser.unroll}
    gpu.return
  }
}
}

// -----

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @step_zero() kernel attributes {gpu.known_block_size = array<i32: 64, 1, 1>} {
    %lo = arith.constant 0 : index
    %hi = arith.constant 4 : index
    %st = arith.constant 0 : index
    %tid = gpu.thread_id x
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<64x4xf32, #gpu.address_space<workgroup>>
    // expected-error @below {{fuser-unroll-loops: a loop marked fuser.unroll needs a step of at least 1, got 0}}
    scf.for %i = %lo to %hi step %st {
      %v = memref.load %buf[%tid, %i] : memref<64x4xf32, #gpu.address_space<workgroup>>
    } {fuser.unroll}
    gpu.return
  }
}
}

// -----

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @too_many() kernel attributes {gpu.known_block_size = array<i32: 64, 1, 1>} {
    %lo = arith.constant 0 : index
    %hi = arith.constant 100000000 : index
    %st = arith.constant 1 : index
    %tid = gpu.thread_id x
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<64x4xf32, #gpu.address_space<workgroup>>
    // expected-error @below {{fuser-unroll-loops: a loop marked fuser.unroll has 100000000 iterations; at most 4096 are unrolled}}
    scf.for %i = %lo to %hi step %st {
      %v = memref.load %buf[%tid, %lo] : memref<64x4xf32, #gpu.address_space<workgroup>>
    } {fuser.unroll}
    gpu.return
  }
}
}
