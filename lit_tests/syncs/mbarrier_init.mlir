// Rule (mbarrier init -> first use): the initialising (elected) thread runs
// fence.mbarrier_init.release.cluster once, after its last mbarrier.init (inside the issuer's
// scf.if, one fence for all inits), and one barrier right after the init block makes the
// initialised mbarriers visible before any use -- the issuer's own arrive.expect_tx / TMA loads
// included (CUTLASS's convention; nvFuser #1552: hang without it).  Later uses by any thread are
// covered by that barrier: no second one.
//  * @init_then_wait: two full barriers; the issuer arms both and issues two TMA loads; every
//    thread waits on full[0] then full[1].
//  * @init_then_arrive: full and empty barriers in one block; every thread arrives on empty[0],
//    empty[1] then waits on full[0].
// RUN: fuser-opt %s -p fuser-insert-syncs -p fuser-insert-proxy-fences -p fuser-flush-wgmma | FileCheck %s
// RUN: fuser-opt %s -p fuser-insert-syncs -p fuser-insert-proxy-fences -p fuser-flush-wgmma | fuser-opt -p fuser-verify-syncs -o /dev/null
// RUN: not fuser-opt %s -p fuser-verify-syncs 2>&1 | FileCheck %s --check-prefix=RAW

// CHECK-LABEL: gpu.func @init_then_wait
// CHECK-NOT: nvasync.fence_mbarrier_init
// CHECK-NOT: nvasync.sync_threads
// CHECK: scf.if %[[E:.*]] {
// CHECK-NEXT: "nvasync.mbarrier_init"(%{{.*}}, %c0)
// CHECK-NEXT: "nvasync.mbarrier_init"(%{{.*}}, %c1)
// CHECK-NEXT: "nvasync.fence_mbarrier_init"() {fuser.derived = "mbarrier init visible to the async proxy: nvasync.mbarrier_init@{{[0-9:]+}}"}
// CHECK-NEXT: {{^ *}}}{{$}}
// CHECK-NEXT: "nvasync.sync_threads"() {fuser.derived = "{{RAW}}: nvasync.mbarrier_init@{{[0-9:]+}} -> nvasync.mbarrier_arrive_expect_tx@{{[0-9:]+}}"}
// CHECK-NEXT: scf.if %[[E]] {
// CHECK-NEXT: "nvasync.mbarrier_arrive_expect_tx"
// CHECK-NEXT: "nvasync.tma_load"
// CHECK-NEXT: "nvasync.mbarrier_arrive_expect_tx"
// CHECK-NEXT: "nvasync.tma_load"
// CHECK-NEXT: {{^ *}}}{{$}}
// CHECK-NOT: nvasync.sync_threads
// CHECK: "nvasync.mbarrier_try_wait_parity"(%{{.*}}, %c0,
// CHECK-NEXT: memref.load
// CHECK-NEXT: "nvasync.mbarrier_try_wait_parity"(%{{.*}}, %c1,
// CHECK-NOT: nvasync.fence_mbarrier_init
// CHECK-NOT: nvasync.sync_threads
// CHECK: gpu.return

// CHECK-LABEL: gpu.func @init_then_arrive
// CHECK-NOT: nvasync.fence_mbarrier_init
// CHECK-NOT: nvasync.sync_threads
// CHECK: scf.if
// CHECK-COUNT-4: "nvasync.mbarrier_init"
// CHECK-NEXT: "nvasync.fence_mbarrier_init"() {fuser.derived
// CHECK-NEXT: {{^ *}}}{{$}}
// CHECK-NEXT: "nvasync.sync_threads"() {fuser.derived = "{{RAW}}: nvasync.mbarrier_init@{{[0-9:]+}} -> nvasync.mbarrier_arrive@{{[0-9:]+}}"}
// CHECK-NEXT: "nvasync.mbarrier_arrive"
// CHECK-NEXT: "nvasync.mbarrier_arrive"
// CHECK-NEXT: "nvasync.mbarrier_try_wait_parity"
// CHECK-NEXT: gpu.return

!bars = memref<2xi64, #gpu.address_space<workgroup>>
!box = memref<32x64xbf16, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @init_then_wait(%desc: !llvm.ptr, %out: memref<256xbf16>, %x: i32) kernel attributes {gpu.known_block_size = array<i32: 256, 1, 1>} {
    %full = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !bars
    %buf0 = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> !box
    %buf1 = "nvasync.smem_buffer"() {offset = 5120 : i64} : () -> !box
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    %p0 = arith.constant 0 : i32
    %y0 = arith.constant 0 : i32
    %y1 = arith.constant 32 : i32
    %tid = gpu.thread_id x
    %w0 = arith.cmpi ult, %tid, %c32 : index
    %el = "nvasync.elect_one"() : () -> i1
    %e = arith.andi %w0, %el : i1
    scf.if %e {
      "nvasync.mbarrier_init"(%full, %c0) {count = 1 : i32} : (!bars, index) -> ()
      "nvasync.mbarrier_init"(%full, %c1) {count = 1 : i32} : (!bars, index) -> ()
    }
    scf.if %e {
      "nvasync.mbarrier_arrive_expect_tx"(%full, %c0) {bytes = 4096 : i32} : (!bars, index) -> ()
      "nvasync.tma_load"(%desc, %buf0, %full, %c0, %y0, %x) : (!llvm.ptr, !box, !bars, index, i32, i32) -> ()
      "nvasync.mbarrier_arrive_expect_tx"(%full, %c1) {bytes = 4096 : i32} : (!bars, index) -> ()
      "nvasync.tma_load"(%desc, %buf1, %full, %c1, %y1, %x) : (!llvm.ptr, !box, !bars, index, i32, i32) -> ()
    }
    %row = arith.divui %tid, %c64 : index
    %col = arith.remui %tid, %c64 : index
    "nvasync.mbarrier_try_wait_parity"(%full, %c0, %p0) : (!bars, index, i32) -> ()
    %v0 = memref.load %buf0[%row, %col] : !box
    "nvasync.mbarrier_try_wait_parity"(%full, %c1, %p0) : (!bars, index, i32) -> ()
    %v1 = memref.load %buf1[%row, %col] : !box
    %s = arith.addf %v0, %v1 : bf16
    memref.store %s, %out[%tid] : memref<256xbf16>
    gpu.return
  }
  gpu.func @init_then_arrive(%out: memref<256xf32>) kernel attributes {gpu.known_block_size = array<i32: 256, 1, 1>} {
    %full = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !bars
    %empty = "nvasync.smem_buffer"() {offset = 16 : i64} : () -> !bars
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %p0 = arith.constant 0 : i32
    %tid = gpu.thread_id x
    %w0 = arith.cmpi ult, %tid, %c32 : index
    %el = "nvasync.elect_one"() : () -> i1
    %e = arith.andi %w0, %el : i1
    scf.if %e {
      "nvasync.mbarrier_init"(%full, %c0) {count = 1 : i32} : (!bars, index) -> ()
      "nvasync.mbarrier_init"(%full, %c1) {count = 1 : i32} : (!bars, index) -> ()
      "nvasync.mbarrier_init"(%empty, %c0) {count = 256 : i32} : (!bars, index) -> ()
      "nvasync.mbarrier_init"(%empty, %c1) {count = 256 : i32} : (!bars, index) -> ()
    }
    "nvasync.mbarrier_arrive"(%empty, %c0) : (!bars, index) -> ()
    "nvasync.mbarrier_arrive"(%empty, %c1) : (!bars, index) -> ()
    "nvasync.mbarrier_try_wait_parity"(%full, %c0, %p0) : (!bars, index, i32) -> ()
    gpu.return
  }
}
}


// RAW: mbarrier_init.mlir:[[#@LINE-41]]:7: error: unsynchronized hazard: mbarrier init not fenced (fence.mbarrier_init) before its use: 'nvasync.mbarrier_init' at [[#@LINE-45]]:7 -> 'nvasync.mbarrier_arrive_expect_tx' at [[#@LINE-41]]:7
// RAW: mbarrier_init.mlir:[[#@LINE-41]]:7: error: unsynchronized hazard: mbarrier init not fenced (fence.mbarrier_init) before its use: 'nvasync.mbarrier_init' at [[#@LINE-46]]:7 -> 'nvasync.tma_load' at [[#@LINE-41]]:7
// RAW: mbarrier_init.mlir:[[#@LINE-36]]:5: error: unsynchronized hazard: mbarrier init not fenced (fence.mbarrier_init) before its use: 'nvasync.mbarrier_init' at [[#@LINE-47]]:7 -> 'nvasync.mbarrier_try_wait_parity' at [[#@LINE-36]]:5
// RAW: mbarrier_init.mlir:[[#@LINE-42]]:7: error: unsynchronized hazard: mbarrier init not fenced (fence.mbarrier_init) before its use: 'nvasync.mbarrier_init' at [[#@LINE-47]]:7 -> 'nvasync.mbarrier_arrive_expect_tx' at [[#@LINE-42]]:7
// RAW: mbarrier_init.mlir:[[#@LINE-42]]:7: error: unsynchronized hazard: mbarrier init not fenced (fence.mbarrier_init) before its use: 'nvasync.mbarrier_init' at [[#@LINE-48]]:7 -> 'nvasync.tma_load' at [[#@LINE-42]]:7
// RAW: mbarrier_init.mlir:[[#@LINE-37]]:5: error: unsynchronized hazard: mbarrier init not fenced (fence.mbarrier_init) before its use: 'nvasync.mbarrier_init' at [[#@LINE-49]]:7 -> 'nvasync.mbarrier_try_wait_parity' at [[#@LINE-37]]:5
// RAW: mbarrier_init.mlir:[[#@LINE-13]]:5: error: unsynchronized hazard: mbarrier init not fenced (fence.mbarrier_init) before its use: 'nvasync.mbarrier_init' at [[#@LINE-20]]:7 -> 'nvasync.mbarrier_try_wait_parity' at [[#@LINE-13]]:5
// RAW: mbarrier_init.mlir:[[#@LINE-16]]:5: error: unsynchronized hazard: mbarrier init not fenced (fence.mbarrier_init) before its use: 'nvasync.mbarrier_init' at [[#@LINE-19]]:7 -> 'nvasync.mbarrier_arrive' at [[#@LINE-16]]:5
// RAW: mbarrier_init.mlir:[[#@LINE-16]]:5: error: unsynchronized hazard: mbarrier init not fenced (fence.mbarrier_init) before its use: 'nvasync.mbarrier_init' at [[#@LINE-19]]:7 -> 'nvasync.mbarrier_arrive' at [[#@LINE-16]]:5
// RAW-NOT: error:
