// Rule (fuser-insert-syncs, RAW placement at the right loop level): generic smem writes read by
// other threads need one barrier between them, at the outermost loop level that covers the
// hazard -- never inside a loop that only the reader is in.
//  * @raw_before_loop: writes before an scf.for, reads of other threads' elements inside it ->
//    one sync_threads right before the loop, none in its body.
//  * @inner_loop_reader: write and inner-loop reads inside one outer loop body -> the RAW barrier
//    sits in the outer body before the inner loop (not inside it); the loop-carried WAR (reads of
//    iteration r -> write of r + 1) gets its own barrier before the write.
// RUN: fuser-opt %s -p fuser-insert-syncs -p fuser-insert-proxy-fences -p fuser-flush-wgmma | FileCheck %s
// RUN: fuser-opt %s -p fuser-insert-syncs -p fuser-insert-proxy-fences -p fuser-flush-wgmma | fuser-opt -p fuser-verify-syncs -o /dev/null
// RUN: not fuser-opt %s -p fuser-verify-syncs 2>&1 | FileCheck %s --check-prefix=RAW

// CHECK-LABEL: gpu.func @raw_before_loop
// CHECK-NOT: nvasync.sync_threads
// CHECK: memref.store %{{.*}}, %{{.*}}[%thread_id_x] : memref<256xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: "nvasync.sync_threads"() {fuser.derived = "{{RAW}}: memref.store@{{[0-9:]+}} -> memref.load@{{[0-9:]+}}"}
// CHECK-NEXT: scf.for
// CHECK-NOT: nvasync.
// CHECK: gpu.return

// CHECK-LABEL: gpu.func @inner_loop_reader
// CHECK-NOT: nvasync.sync_threads
// CHECK: scf.for
// CHECK-NEXT: memref.load %{{.*}} : memref<256xf32>
// CHECK-NEXT: "nvasync.sync_threads"() {fuser.derived = "WAR: memref.load@{{[0-9:]+}} -> memref.store@{{[0-9:]+}}"}
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%thread_id_x] : memref<256xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: "nvasync.sync_threads"() {fuser.derived = "{{RAW}}: memref.store@{{[0-9:]+}} -> memref.load@{{[0-9:]+}}"}
// CHECK-NEXT: scf.for
// CHECK-NEXT: memref.load %{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: arith.addf
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }
// CHECK-NOT: nvasync.
// CHECK: gpu.return

// RAW-NOT: error:

!smem = memref<256xf32, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @raw_before_loop(%out: memref<256xf32>, %n: index) kernel attributes {gpu.known_block_size = array<i32: 256, 1, 1>} {
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !smem
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %zero = arith.constant 0.0 : f32
    %tid = gpu.thread_id x
    %v = memref.load %out[%tid] : memref<256xf32>
    // RAW: raw_loop_level.mlir:[[#@LINE+3]]:12: error: unsynchronized hazard: generic smem accesses by different threads without a barrier: 'memref.store' at [[#@LINE+1]]:5 -> 'memref.load' at [[#@LINE+3]]:12
    memref.store %v, %buf[%tid] : !smem
    %sum = scf.for %i = %c0 to %c256 step %c1 iter_args(%acc = %zero) -> (f32) {
      %x = memref.load %buf[%i] : !smem
      %s = arith.addf %acc, %x : f32
      scf.yield %s : f32
    }
    memref.store %sum, %out[%tid] : memref<256xf32>
    gpu.return
  }
  gpu.func @inner_loop_reader(%out: memref<256xf32>, %n: index) kernel attributes {gpu.known_block_size = array<i32: 256, 1, 1>} {
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !smem
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %zero = arith.constant 0.0 : f32
    %tid = gpu.thread_id x
    %total = scf.for %r = %c0 to %n step %c1 iter_args(%t = %zero) -> (f32) {
      %v = memref.load %out[%tid] : memref<256xf32>
      // RAW: raw_loop_level.mlir:[[#@LINE+4]]:14: error: unsynchronized hazard: generic smem accesses by different threads without a barrier: 'memref.store' at [[#@LINE+2]]:7 -> 'memref.load' at [[#@LINE+4]]:14
      // RAW: raw_loop_level.mlir:[[#@LINE+1]]:7: error: unsynchronized hazard: generic smem accesses by different threads without a barrier: 'memref.load' at [[#@LINE+3]]:14 -> 'memref.store' at [[#@LINE+1]]:7
      memref.store %v, %buf[%tid] : !smem
      %sum = scf.for %i = %c0 to %c256 step %c1 iter_args(%acc = %t) -> (f32) {
        %x = memref.load %buf[%i] : !smem
        %s = arith.addf %acc, %x : f32
        scf.yield %s : f32
      }
      scf.yield %sum : f32
    }
    // RAW-NOT: error:
    memref.store %total, %out[%tid] : memref<256xf32>
    gpu.return
  }
}
}
