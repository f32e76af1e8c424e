// Rule (fuser-insert-syncs, WAR across loop iterations through aliased views): smem_buffer views
// alias exactly when their byte ranges overlap, whatever their types.  In @aliased_war, %A
// (256 x f32, bytes [0, 1024)) and %B (16x32 x f16 at offset 512, bytes [512, 1536)) overlap; each
// iteration writes %B early and reads other threads' elements of %A late, so the reads of
// iteration r race with the writes of iteration r + 1 (loop-carried WAR) -> a barrier at the top
// of the body before the write, besides the forward RAW barrier between write and read.
// @disjoint_views moves %B to offset 1024 (bytes [1024, 2048)): no overlap, no barrier at all.
// RUN: fuser-opt %s -p fuser-insert-syncs -p fuser-insert-proxy-fences -p fuser-flush-wgmma | FileCheck %s
// RUN: fuser-opt %s -p fuser-insert-syncs -p fuser-insert-proxy-fences -p fuser-flush-wgmma | fuser-opt -p fuser-verify-syncs -o /dev/null
// RUN: not fuser-opt %s -p fuser-verify-syncs 2>&1 | FileCheck %s --check-prefix=RAW

// CHECK-LABEL: gpu.func @aliased_war
// CHECK-NOT: nvasync.sync_threads
// CHECK: scf.for
// CHECK-NEXT: memref.load %{{.*}} : memref<256xf16>
// CHECK-NEXT: "nvasync.sync_threads"() {fuser.derived = "WAR: memref.load@{{[0-9:]+}} -> memref.store@{{[0-9:]+}}"}
// CHECK-NEXT: memref.store %{{.*}} : memref<16x32xf16, #gpu.address_space<workgroup>>
// CHECK-NEXT: "nvasync.sync_threads"() {fuser.derived = "{{RAW}}: memref.store@{{[0-9:]+}} -> memref.load@{{[0-9:]+}}"}
// CHECK-NEXT: memref.load %{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: arith.addf
// CHECK-NEXT: scf.yield
// CHECK-NOT: nvasync.
// CHECK-LABEL: gpu.func @disjoint_views
// CHECK-NOT: nvasync.sync_threads
// CHECK: gpu.return

!a = memref<256xf32, #gpu.address_space<workgroup>>
!b = memref<16x32xf16, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @aliased_war(%in: memref<256xf16>, %out: memref<256xf32>, %n: index) kernel attributes {gpu.known_block_size = array<i32: 256, 1, 1>} {
    %A = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !a
    %B = "nvasync.smem_buffer"() {offset = 512 : i64} : () -> !b
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c255 = arith.constant 255 : index
    %zero = arith.constant 0.0 : f32
    %tid = gpu.thread_id x
    %row = arith.divui %tid, %c8 : index
    %col = arith.remui %tid, %c8 : index
    %rev = arith.subi %c255, %tid : index
    %total = scf.for %r = %c0 to %n step %c1 iter_args(%t = %zero) -> (f32) {
      %h = memref.load %in[%tid] : memref<256xf16>
      // RAW: war_aliased_loop.mlir:[[#@LINE+3]]:12: error: unsynchronized hazard: generic smem accesses by different threads without a barrier: 'memref.store' at [[#@LINE+2]]:7 -> 'memref.load' at [[#@LINE+3]]:12
      // RAW: war_aliased_loop.mlir:[[#@LINE+1]]:7: error: unsynchronized hazard: generic smem accesses by different threads without a barrier: 'memref.load' at [[#@LINE+2]]:12 -> 'memref.store' at [[#@LINE+1]]:7
      memref.store %h, %B[%row, %col] : !b
      %x = memref.load %A[%rev] : !a
      %s = arith.addf %t, %x : f32
      scf.yield %s : f32
    }
    memref.store %total, %out[%tid] : memref<256xf32>
    gpu.return
  }
  // RAW-NOT: error:
  gpu.func @disjoint_views(%in: memref<256xf16>, %out: memref<256xf32>, %n: index) kernel attributes {gpu.known_block_size = array<i32: 256, 1, 1>} {
    %A = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !a
    %B = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> !b
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c255 = arith.constant 255 : index
    %zero = arith.constant 0.0 : f32
    %tid = gpu.thread_id x
    %row = arith.divui %tid, %c8 : index
    %col = arith.remui %tid, %c8 : index
    %rev = arith.subi %c255, %tid : index
    %total = scf.for %r = %c0 to %n step %c1 iter_args(%t = %zero) -> (f32) {
      %h = memref.load %in[%tid] : memref<256xf16>
      memref.store %h, %B[%row, %col] : !b
      %x = memref.load %A[%rev] : !a
      %s = arith.addf %t, %x : f32
      scf.yield %s : f32
    }
    memref.store %total, %out[%tid] : memref<256xf32>
    gpu.return
  }
}
}
