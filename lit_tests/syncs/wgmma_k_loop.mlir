// Rule (fuser-flush-wgmma, k-loop): a loop issuing a k-block of wgmma each iteration gets one
// wgmma.fence per iteration's group (inside the loop, before the first wgmma of the group, not
// before each wgmma) and one wgmma.commit_group after the group; the accumulator, carried out of
// the loop, is flushed by exactly one `wgmma_wait {pending = 0}` after the loop (not inside it),
// right before the first reader; the second reader gets no further wait.  @reader_loop: when the
// reader is a loop whose body reads the accumulator, the flush goes before that loop, not in it.
// RUN: fuser-opt %s -p fuser-insert-syncs -p fuser-insert-proxy-fences -p fuser-flush-wgmma | FileCheck %s
// RUN: fuser-opt %s -p fuser-insert-syncs -p fuser-insert-proxy-fences -p fuser-flush-wgmma | fuser-opt -p fuser-verify-syncs -o /dev/null
// RUN: not fuser-opt %s -p fuser-verify-syncs 2>&1 | FileCheck %s --check-prefix=RAW

// CHECK-LABEL: gpu.func @k_loop
// CHECK-NOT: nvasync.wgmma_
// CHECK: scf.for
// CHECK-NEXT: "nvasync.wgmma_fence"() {fuser.derived = "order accumulator/operand accesses before nvasync.wgmma@{{[0-9:]+}}"}
// CHECK-NEXT: "nvasync.wgmma"
// CHECK-NEXT: "nvasync.wgmma"
// CHECK-NEXT: "nvasync.wgmma_commit"() {fuser.derived = "commit the wgmma group before scf.yield@{{[0-9:]+}}"}
// CHECK-NEXT: scf.yield %
// CHECK-NEXT: {{^ *}}}{{$}}
// CHECK-NEXT: gpu.thread_id
// CHECK-NEXT: "nvasync.wgmma_wait"() {fuser.derived = "flush wgmma before reading the accumulator: vector.extract@{{[0-9:]+}}", pending = 0 : i32}
// CHECK-NEXT: vector.extract %{{.*}}[0]
// CHECK-NEXT: memref.store
// CHECK-NEXT: vector.extract %{{.*}}[1]
// CHECK-NEXT: memref.store
// CHECK-NEXT: gpu.return
// CHECK-NOT: nvasync.sync_threads

// CHECK-LABEL: gpu.func @reader_loop
// CHECK-NOT: nvasync.wgmma_
// CHECK: scf.for
// CHECK-NEXT: "nvasync.wgmma_fence"()
// CHECK-NEXT: "nvasync.wgmma"
// CHECK-NEXT: "nvasync.wgmma_commit"() {fuser.derived = "{{[^"]*}}"} : () -> ()
// CHECK-NEXT: scf.yield %
// CHECK-NEXT: {{^ *}}}{{$}}
// CHECK-NEXT: gpu.thread_id
// CHECK-NEXT: "nvasync.wgmma_wait"() {fuser.derived = "flush wgmma before reading the accumulator: scf.for@{{[0-9:]+}}", pending = 0 : i32}
// CHECK-NEXT: scf.for
// CHECK-NEXT: vector.extract
// CHECK-NEXT: memref.store
// CHECK-NEXT: {{^ *}}}{{$}}
// CHECK-NEXT: gpu.return

!a = memref<64x16xbf16, #gpu.address_space<workgroup>>
!b = memref<64x16xbf16, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k_loop(%out: memref<128x32xf32>, %kblocks: index) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %a0 = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !a
    %b0 = "nvasync.smem_buffer"() {offset = 2048 : i64} : () -> !b
    %a1 = "nvasync.smem_buffer"() {offset = 4096 : i64} : () -> !a
    %b1 = "nvasync.smem_buffer"() {offset = 6144 : i64} : () -> !b
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %z = arith.constant dense<0.0> : vector<32xf32>
    %acc = scf.for %k = %c0 to %kblocks step %c1 iter_args(%c = %z) -> (vector<32xf32>) {
      %r0 = "nvasync.wgmma"(%a0, %b0, %c) {swizzle = 32 : i32, accumulate = true} : (!a, !b, vector<32xf32>) -> vector<32xf32>
      %r1 = "nvasync.wgmma"(%a1, %b1, %r0) {swizzle = 32 : i32, accumulate = true} : (!a, !b, vector<32xf32>) -> vector<32xf32>
      scf.yield %r1 : vector<32xf32>
    }
    %tid = gpu.thread_id x
    %x = vector.extract %acc[0] : f32 from vector<32xf32>
    memref.store %x, %out[%tid, %c0] : memref<128x32xf32>
    %y = vector.extract %acc[1] : f32 from vector<32xf32>
    memref.store %y, %out[%tid, %c1] : memref<128x32xf32>
    gpu.return
  }
  gpu.func @reader_loop(%out: memref<128x32xf32>, %kblocks: index) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %a0 = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !a
    %b0 = "nvasync.smem_buffer"() {offset = 2048 : i64} : () -> !b
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %z = arith.constant dense<0.0> : vector<32xf32>
    %acc = scf.for %k = %c0 to %kblocks step %c1 iter_args(%c = %z) -> (vector<32xf32>) {
      %r0 = "nvasync.wgmma"(%a0, %b0, %c) {swizzle = 32 : i32, accumulate = true} : (!a, !b, vector<32xf32>) -> vector<32xf32>
      scf.yield %r0 : vector<32xf32>
    }
    %tid = gpu.thread_id x
    scf.for %j = %c0 to %c32 step %c1 {
      %x = vector.extract %acc[%j] : f32 from vector<32xf32>
      memref.store %x, %out[%tid, %j] : memref<128x32xf32>
    }
    gpu.return
  }
}
}

// RAW: wgmma_k_loop.mlir:[[#@LINE-32]]:13: error: unsynchronized hazard: wgmma without a wgmma.fence opening its group: 'nvasync.wgmma' at [[#@LINE-32]]:13
// RAW: wgmma_k_loop.mlir:[[#@LINE-32]]:13: error: unsynchronized hazard: wgmma without a wgmma.fence opening its group: 'nvasync.wgmma' at [[#@LINE-32]]:13
// RAW: wgmma_k_loop.mlir:[[#@LINE-29]]:10: error: unsynchronized hazard: wgmma not committed (wgmma.commit_group) before its result is read: 'nvasync.wgmma' at [[#@LINE-33]]:13 -> 'vector.extract' at [[#@LINE-29]]:10
// RAW: wgmma_k_loop.mlir:[[#@LINE-16]]:13: error: unsynchronized hazard: wgmma without a wgmma.fence opening its group: 'nvasync.wgmma' at [[#@LINE-16]]:13
// RAW: wgmma_k_loop.mlir:[[#@LINE-12]]:12: error: unsynchronized hazard: wgmma not committed (wgmma.commit_group) before its result is read: 'nvasync.wgmma' at [[#@LINE-17]]:13 -> 'vector.extract' at [[#@LINE-12]]:12
// RAW-NOT: error:
