// Rule (identical thread mapping needs identical footprints): "each thread reads only what it
// wrote" holds when the write and the read cover the same elements per thread, not merely when
// their index expressions match.  A vector<4> store and a vector<8> load at the same index tid*4
// (or a scalar store and a vector<2> load at tid) make thread t read elements written by thread
// t + 1: a cross-thread RAW that needs a barrier, and that the verifier must report.
// RUN: fuser-opt %s -p fuser-insert-syncs -p fuser-insert-proxy-fences -p fuser-flush-wgmma | FileCheck %s
// RUN: fuser-opt %s -p fuser-insert-syncs -p fuser-insert-proxy-fences -p fuser-flush-wgmma | fuser-opt -p fuser-verify-syncs -o /dev/null
// RUN: not fuser-opt %s -p fuser-verify-syncs 2>&1 | FileCheck %s --check-prefix=RAW

// CHECK-LABEL: gpu.func @wider_vector_read
// CHECK: vector.store %{{.*}} : memref<1024xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK-NEXT: "nvasync.sync_threads"() {fuser.derived = "{{RAW}}: vector.store@{{[0-9:]+}} -> vector.load@{{[0-9:]+}}"}
// CHECK-NEXT: vector.load %{{.*}} : memref<1024xf32, #gpu.address_space<workgroup>>, vector<8xf32>
// CHECK-NOT: nvasync.sync_threads
// CHECK-LABEL: gpu.func @scalar_write_vector_read
// CHECK: memref.store %{{.*}} : memref<1024xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: "nvasync.sync_threads"() {fuser.derived = "{{RAW}}: memref.store@{{[0-9:]+}} -> vector.load@{{[0-9:]+}}"}
// CHECK-NEXT: vector.load %{{.*}} : memref<1024xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// CHECK-NOT: nvasync.sync_threads

!smem = memref<1024xf32, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @wider_vector_read(%out: memref<1024xf32>) kernel attributes {gpu.known_block_size = array<i32: 256, 1, 1>} {
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !smem
    %c4 = arith.constant 4 : index
    %tid = gpu.thread_id x
    %base = arith.muli %tid, %c4 : index
    %g = vector.load %out[%base] : memref<1024xf32>, vector<4xf32>
    // RAW: same_thread_wider_access.mlir:[[#@LINE+2]]:10: error: unsynchronized hazard: generic smem accesses by different threads without a barrier: 'vector.store' at [[#@LINE+1]]:5 -> 'vector.load' at [[#@LINE+2]]:10
    vector.store %g, %buf[%base] : !smem, vector<4xf32>
    %x = vector.load %buf[%base] : !smem, vector<8xf32>
    %y = vector.extract_strided_slice %x {offsets = [4], sizes = [4], strides = [1]} : vector<8xf32> to vector<4xf32>
    vector.store %y, %out[%base] : memref<1024xf32>, vector<4xf32>
    gpu.return
  }
  gpu.func @scalar_write_vector_read(%out: memref<1024xf32>) kernel attributes {gpu.known_block_size = array<i32: 256, 1, 1>} {
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !smem
    %tid = gpu.thread_id x
    %v = memref.load %out[%tid] : memref<1024xf32>
    // RAW: same_thread_wider_access.mlir:[[#@LINE+3]]:10: error: unsynchronized hazard: generic smem accesses by different threads without a barrier: 'memref.store' at [[#@LINE+2]]:5 -> 'vector.load' at [[#@LINE+3]]:10
    // RAW-NOT: error:
    memref.store %v, %buf[%tid] : !smem
    %x = vector.load %buf[%tid] : !smem, vector<2xf32>
    %y = vector.extract %x[1] : f32 from vector<2xf32>
    memref.store %y, %out[%tid] : memref<1024xf32>
    gpu.return
  }
}
}
