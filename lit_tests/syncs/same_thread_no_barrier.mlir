// Rule (fuser-insert-syncs, identical thread mapping): no barrier when every thread reads only the
// smem elements it wrote itself -- the write and the read index the buffer with identical
// expressions of gpu.thread_id x (nvFuser CircularBufferingTest.NoSync):
//  * @same_value: the same SSA index %tid;
//  * @recomputed_index: tid * 4 + 3 computed twice from two gpu.thread_id ops;
//  * @same_thread_loop: vector store then load at tid * 4 every iteration (also no loop-carried WAR).
// @different_mapping reads element tid + 1 (another thread's) and is the control: it gets the only
// barrier, and it is the only hazard the verifier reports on the input.
// RUN: fuser-opt %s -p fuser-insert-syncs -p fuser-insert-proxy-fences -p fuser-flush-wgmma | FileCheck %s
// RUN: fuser-opt %s -p fuser-insert-syncs -p fuser-insert-proxy-fences -p fuser-flush-wgmma | fuser-opt -p fuser-verify-syncs -o /dev/null
// RUN: not fuser-opt %s -p fuser-verify-syncs 2>&1 | FileCheck %s --check-prefix=RAW

// CHECK-LABEL: gpu.func @same_value
// CHECK-NOT: nvasync.sync_threads
// CHECK-LABEL: gpu.func @recomputed_index
// CHECK-NOT: nvasync.sync_threads
// CHECK-LABEL: gpu.func @same_thread_loop
// CHECK-NOT: nvasync.sync_threads
// CHECK-LABEL: gpu.func @different_mapping
// CHECK: memref.store %{{.*}} : memref<1024xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: "nvasync.sync_threads"() {fuser.derived = "{{RAW}}: memref.store@{{[0-9:]+}} -> memref.load@{{[0-9:]+}}"}
// CHECK-NEXT: memref.load %{{.*}} : memref<1024xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: nvasync.sync_threads

!smem = memref<1024xf32, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @same_value(%out: memref<256xf32>) kernel attributes {gpu.known_block_size = array<i32: 256, 1, 1>} {
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !smem
    %tid = gpu.thread_id x
    %v = memref.load %out[%tid] : memref<256xf32>
    memref.store %v, %buf[%tid] : !smem
    %x = memref.load %buf[%tid] : !smem
    %y = arith.mulf %x, %x : f32
    memref.store %y, %out[%tid] : memref<256xf32>
    gpu.return
  }
  gpu.func @recomputed_index(%out: memref<256xf32>) kernel attributes {gpu.known_block_size = array<i32: 256, 1, 1>} {
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !smem
    %c4 = arith.constant 4 : index
    %c3 = arith.constant 3 : index
    %tid = gpu.thread_id x
    %w0 = arith.muli %tid, %c4 : index
    %w = arith.addi %w0, %c3 : index
    %v = memref.load %out[%tid] : memref<256xf32>
    memref.store %v, %buf[%w] : !smem
    %tid2 = gpu.thread_id x
    %r0 = arith.muli %tid2, %c4 : index
    %r = arith.addi %r0, %c3 : index
    %x = memref.load %buf[%r] : !smem
    memref.store %x, %out[%tid] : memref<256xf32>
    gpu.return
  }
  gpu.func @same_thread_loop(%out: memref<256xf32>, %n: index) kernel attributes {gpu.known_block_size = array<i32: 256, 1, 1>} {
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !smem
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %tid = gpu.thread_id x
    %base = arith.muli %tid, %c4 : index
    %zero = arith.constant dense<0.0> : vector<4xf32>
    %acc = scf.for %i = %c0 to %n step %c1 iter_args(%a = %zero) -> (vector<4xf32>) {
      %g = vector.load %out[%base] : memref<256xf32>, vector<4xf32>
      vector.store %g, %buf[%base] : !smem, vector<4xf32>
      %x = vector.load %buf[%base] : !smem, vector<4xf32>
      %s = arith.addf %a, %x : vector<4xf32>
      scf.yield %s : vector<4xf32>
    }
    vector.store %acc, %out[%base] : memref<256xf32>, vector<4xf32>
    gpu.return
  }
  gpu.func @different_mapping(%out: memref<256xf32>) kernel attributes {gpu.known_block_size = array<i32: 256, 1, 1>} {
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !smem
    %c1 = arith.constant 1 : index
    %tid = gpu.thread_id x
    %next = arith.addi %tid, %c1 : index
    %v = memref.load %out[%tid] : memref<256xf32>
    // RAW: same_thread_no_barrier.mlir:[[#@LINE+3]]:10: error: unsynchronized hazard: generic smem accesses by different threads without a barrier: 'memref.store' at [[#@LINE+2]]:5 -> 'memref.load' at [[#@LINE+3]]:10
    // RAW-NOT: error:
    memref.store %v, %buf[%tid] : !smem
    %x = memref.load %buf[%next] : !smem
    memref.store %x, %out[%tid] : memref<256xf32>
    gpu.return
  }
}
}
