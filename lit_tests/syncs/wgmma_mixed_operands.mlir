// Rule (wgmma operands from two proxies): a wgmma operand written by generic stores needs, in the
// writing threads, fence.proxy.async.shared::cta and then a barrier before the wgmma; the other
// operand, delivered by a TMA load that completes on an mbarrier every consumer waits on, needs
// no proxy fence (mbarrier completion carries the async->generic ordering; nvFuser
// allMmaInputsGuardedByMBarrier).  Exactly one fence.proxy.async per kernel, placed right before
// the barrier that hands A over to the wgmma, outside the issuer's scf.if, and none after the TMA
// load or the mbarrier wait.  The mbarrier itself gets fence.mbarrier_init in the issuer and a
// barrier right after the init block (before any use, the issuer's own arrive.expect_tx included).
//  * @mixed_operands: A is written before the mbarrier wait;
//  * @generic_after_wait: A is written after the wait.
// RUN: fuser-opt %s -p fuser-insert-syncs -p fuser-insert-proxy-fences -p fuser-flush-wgmma | FileCheck %s
// RUN: fuser-opt %s -p fuser-insert-syncs -p fuser-insert-proxy-fences -p fuser-flush-wgmma | fuser-opt -p fuser-verify-syncs -o /dev/null
// RUN: not fuser-opt %s -p fuser-verify-syncs 2>&1 | FileCheck %s --check-prefix=RAW

// CHECK-LABEL: gpu.func @mixed_operands
// CHECK-NOT: nvasync.fence_proxy_async
// CHECK-NOT: nvasync.sync_threads
// CHECK: scf.if %[[E:.*]] {
// CHECK-NEXT: "nvasync.mbarrier_init"
// CHECK-NEXT: "nvasync.fence_mbarrier_init"() {fuser.derived
// CHECK-NEXT: {{^ *}}}{{$}}
// CHECK-NEXT: "nvasync.sync_threads"() {fuser.derived = "{{RAW}}: nvasync.mbarrier_init@{{[0-9:]+}} -> nvasync.mbarrier_arrive_expect_tx@{{[0-9:]+}}"}
// CHECK-NEXT: scf.if %[[E]] {
// CHECK-NEXT: "nvasync.mbarrier_arrive_expect_tx"
// CHECK-NEXT: "nvasync.tma_load"
// CHECK-NEXT: {{^ *}}}{{$}}
// CHECK-NOT: nvasync.fence_proxy_async
// CHECK-NOT: nvasync.sync_threads
// CHECK: vector.store %{{.*}} : memref<64x16xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// CHECK-NEXT: "nvasync.mbarrier_try_wait_parity"
// CHECK-NEXT: arith.constant dense<0.000000e+00> : vector<32xf32>
// CHECK-NEXT: "nvasync.fence_proxy_async"() {fuser.derived = "generic writes -> async proxy: vector.store@{{[0-9:]+}} -> nvasync.wgmma@{{[0-9:]+}}", space = "shared::cta"}
// CHECK-NEXT: "nvasync.sync_threads"() {fuser.derived = "{{RAW}}: vector.store@{{[0-9:]+}} -> nvasync.wgmma@{{[0-9:]+}}"}
// CHECK-NEXT: "nvasync.wgmma_fence"
// CHECK-NEXT: "nvasync.wgmma"
// CHECK-NEXT: "nvasync.wgmma_commit"
// CHECK-NEXT: "nvasync.wgmma_wait"
// CHECK-NOT: nvasync.fence_proxy_async
// CHECK-NOT: nvasync.sync_threads
// CHECK: gpu.return

// CHECK-LABEL: gpu.func @generic_after_wait
// CHECK-NOT: nvasync.fence_proxy_async
// CHECK-NOT: nvasync.sync_threads
// CHECK: scf.if %[[E:.*]] {
// CHECK-NEXT: "nvasync.mbarrier_init"
// CHECK-NEXT: "nvasync.fence_mbarrier_init"() {fuser.derived
// CHECK-NEXT: {{^ *}}}{{$}}
// CHECK-NEXT: "nvasync.sync_threads"() {fuser.derived = "{{RAW}}: nvasync.mbarrier_init@{{[0-9:]+}} -> nvasync.mbarrier_arrive_expect_tx@{{[0-9:]+}}"}
// CHECK-NEXT: scf.if %[[E]] {
// CHECK-NEXT: "nvasync.mbarrier_arrive_expect_tx"
// CHECK-NEXT: "nvasync.tma_load"
// CHECK-NEXT: {{^ *}}}{{$}}
// CHECK-NOT: nvasync.fence_proxy_async
// CHECK-NOT: nvasync.sync_threads
// CHECK: "nvasync.mbarrier_try_wait_parity"
// CHECK-NEXT: vector.store %{{.*}} : memref<64x16xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// CHECK-NEXT: arith.constant dense<0.000000e+00> : vector<32xf32>
// CHECK-NEXT: "nvasync.fence_proxy_async"() {fuser.derived = "generic writes -> async proxy: vector.store@{{[0-9:]+}} -> nvasync.wgmma@{{[0-9:]+}}", space = "shared::cta"}
// CHECK-NEXT: "nvasync.sync_threads"() {fuser.derived = "{{RAW}}: vector.store@{{[0-9:]+}} -> nvasync.wgmma@{{[0-9:]+}}"}
// CHECK-NEXT: "nvasync.wgmma_fence"
// CHECK-NEXT: "nvasync.wgmma"
// CHECK-NOT: nvasync.fence_proxy_async
// CHECK-NOT: nvasync.sync_threads
// CHECK: gpu.return

!bars = memref<1xi64, #gpu.address_space<workgroup>>
!a = memref<64x16xbf16, #gpu.address_space<workgroup>>
!b = memref<64x16xbf16, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @mixed_operands(%desc: !llvm.ptr, %in: memref<64x16xbf16>, %out: memref<128x32xf32>, %x: i32, %y: i32) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %bars = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !bars
    %A = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> !a
    %B = "nvasync.smem_buffer"() {offset = 4096 : i64} : () -> !b
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %p0 = arith.constant 0 : i32
    %tid = gpu.thread_id x
    %w0 = arith.cmpi ult, %tid, %c32 : index
    %el = "nvasync.elect_one"() : () -> i1
    %e = arith.andi %w0, %el : i1
    scf.if %e {
      "nvasync.mbarrier_init"(%bars, %c0) {count = 1 : i32} : (!bars, index) -> ()
    }
    scf.if %e {
      "nvasync.mbarrier_arrive_expect_tx"(%bars, %c0) {bytes = 2048 : i32} : (!bars, index) -> ()
      "nvasync.tma_load"(%desc, %B, %bars, %c0, %x, %y) : (!llvm.ptr, !b, !bars, index, i32, i32) -> ()
    }
    // A: each thread converts 8 elements of one half-row.
    %row = arith.divui %tid, %c2 : index
    %half = arith.remui %tid, %c2 : index
    %col0 = arith.muli %half, %c8 : index
    %v = vector.load %in[%row, %col0] : memref<64x16xbf16>, vector<8xbf16>
    vector.store %v, %A[%row, %col0] : !a, vector<8xbf16>
    "nvasync.mbarrier_try_wait_parity"(%bars, %c0, %p0) : (!bars, index, i32) -> ()
    %z = arith.constant dense<0.0> : vector<32xf32>
    %r = "nvasync.wgmma"(%A, %B, %z) {swizzle = 32 : i32, accumulate = false} : (!a, !b, vector<32xf32>) -> vector<32xf32>
    vector.store %r, %out[%tid, %c0] : memref<128x32xf32>, vector<32xf32>
    gpu.return
  }
  gpu.func @generic_after_wait(%desc: !llvm.ptr, %in: memref<64x16xbf16>, %out: memref<128x32xf32>, %x: i32, %y: i32) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %bars = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !bars
    %A = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> !a
    %B = "nvasync.smem_buffer"() {offset = 4096 : i64} : () -> !b
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %p0 = arith.constant 0 : i32
    %tid = gpu.thread_id x
    %w0 = arith.cmpi ult, %tid, %c32 : index
    %el = "nvasync.elect_one"() : () -> i1
    %e = arith.andi %w0, %el : i1
    scf.if %e {
      "nvasync.mbarrier_init"(%bars, %c0) {count = 1 : i32} : (!bars, index) -> ()
    }
    scf.if %e {
      "nvasync.mbarrier_arrive_expect_tx"(%bars, %c0) {bytes = 2048 : i32} : (!bars, index) -> ()
      "nvasync.tma_load"(%desc, %B, %bars, %c0, %x, %y) : (!llvm.ptr, !b, !bars, index, i32, i32) -> ()
    }
    // A: each thread converts 8 elements of one half-row.
    %row = arith.divui %tid, %c2 : index
    %half = arith.remui %tid, %c2 : index
    %col0 = arith.muli %half, %c8 : index
    %v = vector.load %in[%row, %col0] : memref<64x16xbf16>, vector<8xbf16>
    "nvasync.mbarrier_try_wait_parity"(%bars, %c0, %p0) : (!bars, index, i32) -> ()
    vector.store %v, %A[%row, %col0] : !a, vector<8xbf16>
    %z = arith.constant dense<0.0> : vector<32xf32>
    %r = "nvasync.wgmma"(%A, %B, %z) {swizzle = 32 : i32, accumulate = false} : (!a, !b, vector<32xf32>) -> vector<32xf32>
    vector.store %r, %out[%tid, %c0] : memref<128x32xf32>, vector<32xf32>
    gpu.return
  }
}
}



// RAW: wgmma_mixed_operands.mlir:[[#@LINE-53]]:7: error: unsynchronized hazard: mbarrier init not fenced (fence.mbarrier_init) before its use: 'nvasync.mbarrier_init' at [[#@LINE-56]]:7 -> 'nvasync.mbarrier_arrive_expect_tx' at [[#@LINE-53]]:7
// RAW: wgmma_mixed_operands.mlir:[[#@LINE-53]]:7: error: unsynchronized hazard: mbarrier init not fenced (fence.mbarrier_init) before its use: 'nvasync.mbarrier_init' at [[#@LINE-57]]:7 -> 'nvasync.tma_load' at [[#@LINE-53]]:7
// RAW: wgmma_mixed_operands.mlir:[[#@LINE-46]]:5: error: unsynchronized hazard: mbarrier init not fenced (fence.mbarrier_init) before its use: 'nvasync.mbarrier_init' at [[#@LINE-58]]:7 -> 'nvasync.mbarrier_try_wait_parity' at [[#@LINE-46]]:5
// RAW: wgmma_mixed_operands.mlir:[[#@LINE-45]]:10: error: unsynchronized hazard: generic writes read by the async proxy without fence.proxy.async: 'vector.store' at [[#@LINE-48]]:5 -> 'nvasync.wgmma' at [[#@LINE-45]]:10
// RAW: wgmma_mixed_operands.mlir:[[#@LINE-46]]:10: error: unsynchronized hazard: wgmma without a wgmma.fence opening its group: 'nvasync.wgmma' at [[#@LINE-46]]:10
// RAW: wgmma_mixed_operands.mlir:[[#@LINE-46]]:5: error: unsynchronized hazard: wgmma not committed (wgmma.commit_group) before its result is read: 'nvasync.wgmma' at [[#@LINE-47]]:10 -> 'vector.store' at [[#@LINE-46]]:5
// RAW: wgmma_mixed_operands.mlir:[[#@LINE-26]]:7: error: unsynchronized hazard: mbarrier init not fenced (fence.mbarrier_init) before its use: 'nvasync.mbarrier_init' at [[#@LINE-29]]:7 -> 'nvasync.mbarrier_arrive_expect_tx' at [[#@LINE-26]]:7
// RAW: wgmma_mixed_operands.mlir:[[#@LINE-26]]:7: error: unsynchronized hazard: mbarrier init not fenced (fence.mbarrier_init) before its use: 'nvasync.mbarrier_init' at [[#@LINE-30]]:7 -> 'nvasync.tma_load' at [[#@LINE-26]]:7
// RAW: wgmma_mixed_operands.mlir:[[#@LINE-20]]:5: error: unsynchronized hazard: mbarrier init not fenced (fence.mbarrier_init) before its use: 'nvasync.mbarrier_init' at [[#@LINE-31]]:7 -> 'nvasync.mbarrier_try_wait_parity' at [[#@LINE-20]]:5
// RAW: wgmma_mixed_operands.mlir:[[#@LINE-18]]:10: error: unsynchronized hazard: generic writes read by the async proxy without fence.proxy.async: 'vector.store' at [[#@LINE-20]]:5 -> 'nvasync.wgmma' at [[#@LINE-18]]:10
// RAW: wgmma_mixed_operands.mlir:[[#@LINE-19]]:10: error: unsynchronized hazard: wgmma without a wgmma.fence opening its group: 'nvasync.wgmma' at [[#@LINE-19]]:10
// RAW: wgmma_mixed_operands.mlir:[[#@LINE-19]]:5: error: unsynchronized hazard: wgmma not committed (wgmma.commit_group) before its result is read: 'nvasync.wgmma' at [[#@LINE-20]]:10 -> 'vector.store' at [[#@LINE-19]]:5
// RAW-NOT: error:
