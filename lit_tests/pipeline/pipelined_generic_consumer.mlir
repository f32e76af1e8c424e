// fuser-pipeline-mbarriers, mode `pipelined`, on a loop whose consumers read the loaded tile with
// generic loads (every thread) and keep a result in registers.
// RUN: fuser-opt %s -p fuser-pipeline-mbarriers | FileCheck %s
// RUN: fuser-opt %s -p fuser-pipeline-mbarriers -p fuser-insert-syncs -p fuser-insert-proxy-fences -p fuser-flush-wgmma -p fuser-verify-syncs | FileCheck %s --check-prefix=SYNCED
// RUN: fuser-opt %s --pass-pipeline='builtin.module(fuser-pipeline-mbarriers,fuser-insert-syncs,fuser-insert-proxy-fences,fuser-flush-wgmma,fuser-verify-syncs)' --emit=ptx -o %t.ptx
// RUN: %ptxas %t.ptx -o %t.cubin

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @sum_tiles(%desc: !llvm.ptr, %n: index, %out: memref<128xf32>) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<64x128xf32, #gpu.address_space<workgroup>>
    %tid = gpu.thread_id x
    scf.for %i = %c0 to %n step %c1 {
      %row = arith.index_cast %i : index to i32
      %c0_i32 = arith.constant 0 : i32
      %r = arith.muli %row, %c0_i32 : i32
      "nvasync.pipeline_load"(%desc, %buf, %r, %c0_i32) {role = "producer"} : (!llvm.ptr, memref<64x128xf32, #gpu.address_space<workgroup>>, i32, i32) -> ()
      %v = memref.load %buf[%c0, %tid] : memref<64x128xf32, #gpu.address_space<workgroup>>
      memref.store %v, %out[%tid] : memref<128xf32>
    } {nvasync.pipeline = {stages = 3 : i64, prefetch = 2 : i64, mode = "pipelined"}}
    gpu.return
  }
}
}

// Stage copies at 32 KiB and 64 KiB (one stage is 32 KiB), the full barriers after them.
// CHECK-DAG: %[[S0:.*]] = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<64x128xf32
// CHECK-DAG: %[[S1:.*]] = "nvasync.smem_buffer"() {offset = 32768 : i64} : () -> memref<64x128xf32
// CHECK-DAG: %[[S2:.*]] = "nvasync.smem_buffer"() {offset = 65536 : i64} : () -> memref<64x128xf32
// CHECK-DAG: %[[ISSUER:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK: %[[FULL:.*]] = "nvasync.smem_buffer"() {offset = 98304 : i64} : () -> memref<3xi64
// CHECK: scf.if %[[ISSUER]] {
// CHECK-COUNT-3: "nvasync.mbarrier_init"(%[[FULL]], %{{.*}}) {count = 1 : i32
// Prologue: prefetch 2 iterations, each guarded by k < n.
// CHECK: scf.if %[[ISSUER]] {
// CHECK: arith.cmpi ult, %{{.*}}, %arg1
// CHECK: "nvasync.mbarrier_arrive_expect_tx"(%[[FULL]], %{{.*}}) {bytes = 32768 : i32
// CHECK: "nvasync.tma_load"(%arg0, %[[S0]], %[[FULL]]
// CHECK: "nvasync.mbarrier_arrive_expect_tx"(%[[FULL]], %{{.*}}) {bytes = 32768 : i32
// CHECK: "nvasync.tma_load"(%arg0, %[[S1]], %[[FULL]]
// CHECK-NOT: "nvasync.tma_load"
// Steady state: rounds of 3 unrolled stages; stage s waits with parity r & 1 right before its
// first read of the stage (after the body's index math) and refills stage (s + 2) % 3 with
// iteration i + 2.
// CHECK: %[[ROUNDS:.*]] = arith.ceildivui %arg1, %{{.*}} : index
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %[[ROUNDS]]
// CHECK: arith.muli %{{.*}}, %c0_i32 : i32
// CHECK: %[[BIT:.*]] = arith.andi %[[R]], %{{.*}} : index
// CHECK-NEXT: %[[PAR:.*]] = arith.index_cast %[[BIT]] : index to i32
// CHECK-NEXT: "nvasync.mbarrier_try_wait_parity"(%[[FULL]], %{{.*}}, %[[PAR]])
// CHECK-NEXT: memref.load %[[S0]]
// CHECK: "nvasync.tma_load"(%arg0, %[[S2]], %[[FULL]]
// CHECK: "nvasync.mbarrier_try_wait_parity"(%[[FULL]], %{{.*}}, %{{.*}})
// CHECK-NEXT: memref.load %[[S1]]
// CHECK: "nvasync.tma_load"(%arg0, %[[S0]], %[[FULL]]
// CHECK: "nvasync.mbarrier_try_wait_parity"(%[[FULL]], %{{.*}}, %{{.*}})
// CHECK-NEXT: memref.load %[[S2]]
// CHECK: "nvasync.tma_load"(%arg0, %[[S1]], %[[FULL]]
// CHECK: scf.if %[[ISSUER]] {
// CHECK-COUNT-3: "nvasync.mbarrier_inval"(%[[FULL]]
// CHECK-NOT: nvasync.pipeline_load
// CHECK-NOT: sync_threads

// The sync passes add the init fence and barrier, and a barrier before a refill overwrites a
// stage other threads read (one per stage covers the next stage's refill too).
// SYNCED: "nvasync.fence_mbarrier_init"
// SYNCED: "nvasync.sync_threads"
// SYNCED: scf.for
// SYNCED: "nvasync.sync_threads"(){{.*}}fuser.derived = "WAR
// SYNCED: "nvasync.tma_load"
// SYNCED: "nvasync.sync_threads"(){{.*}}fuser.derived = "WAR
// SYNCED: "nvasync.tma_load"
// SYNCED: "nvasync.mbarrier_inval"
