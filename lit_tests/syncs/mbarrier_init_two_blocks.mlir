// Rule (mbarrier init, inits in two blocks): fence.mbarrier_init goes once, after the
// initialising thread's *last* mbarrier.init -- it covers every earlier init of that thread -- so
// when the elected thread initialises the full barriers in one scf.if and the empty barriers in
// a second one, with no use in between, only the second block gets the fence; plus one barrier
// after the inits, before the first use.
// RUN: fuser-opt %s -p fuser-insert-syncs -p fuser-insert-proxy-fences -p fuser-flush-wgmma | FileCheck %s
// RUN: fuser-opt %s -p fuser-insert-syncs -p fuser-insert-proxy-fences -p fuser-flush-wgmma | fuser-opt -p fuser-verify-syncs -o /dev/null
// RUN: not fuser-opt %s -p fuser-verify-syncs 2>&1 | FileCheck %s --check-prefix=RAW

// CHECK-LABEL: gpu.func @two_init_blocks
// CHECK: scf.if %[[E:.*]] {
// CHECK-NEXT: "nvasync.mbarrier_init"(%{{.*}}, %c0) {count = 1 : i32}
// CHECK-NEXT: "nvasync.mbarrier_init"(%{{.*}}, %c1) {count = 1 : i32}
// CHECK-NEXT: {{^ *}}}{{$}}
// CHECK-NEXT: scf.if %[[E]] {
// CHECK-NEXT: "nvasync.mbarrier_init"(%{{.*}}, %c0) {count = 256 : i32}
// CHECK-NEXT: "nvasync.mbarrier_init"(%{{.*}}, %c1) {count = 256 : i32}
// CHECK-NEXT: "nvasync.fence_mbarrier_init"() {fuser.derived
// CHECK-NEXT: {{^ *}}}{{$}}
// CHECK-NEXT: "nvasync.sync_threads"() {fuser.derived = "{{RAW}}: nvasync.mbarrier_init@{{[0-9:]+}} -> nvasync.mbarrier_arrive@{{[0-9:]+}}"}
// CHECK-NEXT: "nvasync.mbarrier_arrive"
// CHECK-NEXT: "nvasync.mbarrier_try_wait_parity"
// CHECK-NEXT: gpu.return

!bars = memref<2xi64, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @two_init_blocks() kernel attributes {gpu.known_block_size = array<i32: 256, 1, 1>} {
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
    }
    scf.if %e {
      "nvasync.mbarrier_init"(%empty, %c0) {count = 256 : i32} : (!bars, index) -> ()
      "nvasync.mbarrier_init"(%empty, %c1) {count = 256 : i32} : (!bars, index) -> ()
    }
    "nvasync.mbarrier_arrive"(%empty, %c0) : (!bars, index) -> ()
    "nvasync.mbarrier_try_wait_parity"(%full, %c1, %p0) : (!bars, index, i32) -> ()
    gpu.return
  }
}
}


// RAW: mbarrier_init_two_blocks.mlir:[[#@LINE-7]]:5: error: unsynchronized hazard: mbarrier init not fenced (fence.mbarrier_init) before its use: 'nvasync.mbarrier_init' at [[#@LINE-14]]:7 -> 'nvasync.mbarrier_try_wait_parity' at [[#@LINE-7]]:5
// RAW: mbarrier_init_two_blocks.mlir:[[#@LINE-9]]:5: error: unsynchronized hazard: mbarrier init not fenced (fence.mbarrier_init) before its use: 'nvasync.mbarrier_init' at [[#@LINE-12]]:7 -> 'nvasync.mbarrier_arrive' at [[#@LINE-9]]:5
// RAW-NOT: error:
