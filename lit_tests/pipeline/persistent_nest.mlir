// fuser-pipeline-mbarriers on a K loop nested in a persistent tile loop, carrying an accumulator:
// the loop's global iteration count g = g0 + k is carried through the tile loop (an extra
// iter_arg, advanced by the trip count), so stage g % S and phase g / S continue across tiles
// and never reset; the steady state runs rounds g0 / S .. ceil((g0 + n) / S), each stage under
// g0 <= g < g0 + n.  In warp_specialized mode the producer runs a copy of the tile loop that keeps
// only what its loads and trip counts need; the consumers run the tile loop and the epilogue.
// fuser-verify-pipelines explores both trip counts (tiles and K steps) as part of the RUN below.
// RUN: fuser-opt %s -p fuser-pipeline-mbarriers | FileCheck %s
// RUN: fuser-opt %s -p fuser-pipeline-mbarriers -p fuser-insert-syncs -p fuser-insert-proxy-fences -p fuser-flush-wgmma -p fuser-verify-syncs -p fuser-verify-pipelines | FileCheck %s --check-prefix=SYNCED
// RUN: fuser-opt %s --emit=ptx -o %t.ptx
// RUN: %ptxas %t.ptx -o %t.cubin

!box = memref<8x128xf32, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @nest_pipelined(%d: !llvm.ptr, %n: index, %tiles: index, %out: !llvm.ptr<1>) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !box
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %zero = arith.constant 0.0 : f32
    %tid = gpu.thread_id x
    scf.for %t = %c0 to %tiles step %c1 {
      %x = arith.index_cast %t : index to i32
      %sum = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> f32 {
        %k8 = arith.muli %k, %c8 : index
        %y = arith.index_cast %k8 : index to i32
        "nvasync.pipeline_load"(%d, %buf, %y, %x) {role = "a"} : (!llvm.ptr, !box, i32, i32) -> ()
        %v = memref.load %buf[%c0, %tid] : !box
        %s = arith.addf %acc, %v : f32
        scf.yield %s : f32
      } {nvasync.pipeline = {stages = 2 : i64, mode = "pipelined"}}
      %i64 = arith.index_cast %tid : index to i64
      %dst = llvm.getelementptr %out[%i64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      llvm.store %sum, %dst : f32, !llvm.ptr<1>
    }
    gpu.return
  }

  gpu.func @nest_warp_specialized(%d: !llvm.ptr, %n: index, %tiles: index, %out: !llvm.ptr<1>) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !box
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %zero = arith.constant 0.0 : f32
    %tid = gpu.thread_id x
    scf.for %t = %c0 to %tiles step %c1 {
      %x = arith.index_cast %t : index to i32
      %sum = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> f32 {
        %k8 = arith.muli %k, %c8 : index
        %y = arith.index_cast %k8 : index to i32
        "nvasync.pipeline_load"(%d, %buf, %y, %x) {role = "a"} : (!llvm.ptr, !box, i32, i32) -> ()
        %v = memref.load %buf[%c0, %tid] : !box
        %s = arith.addf %acc, %v : f32
        scf.yield %s : f32
      } {nvasync.pipeline = {stages = 2 : i64, mode = "warp_specialized"}}
      %i64 = arith.index_cast %tid : index to i64
      %dst = llvm.getelementptr %out[%i64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      llvm.store %sum, %dst : f32, !llvm.ptr<1>
    }
    gpu.return
  }
}
}

// CHECK-LABEL: gpu.func @nest_pipelined
// The tile loop carries the count (from 0) and yields it advanced by n.
// CHECK: %[[F:.*]] = "nvasync.smem_buffer"() {offset = 8192 : i64} : () -> memref<2xi64
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %arg2 step %{{.*}} iter_args(%[[G0:.*]] = %{{.*}}) -> (index) {
// CHECK: %[[END:.*]] = arith.addi %[[G0]], %arg1 : index
// Prologue: the iteration landing in stage s is k = (s + S - g0 % S) % S, loaded if k < P and k < n.
// CHECK: arith.remui %[[G0]], %{{.*}} : index
// CHECK: "nvasync.tma_load"(%arg0, %{{.*}}, %[[F]]
// CHECK: "nvasync.tma_load"(%arg0, %{{.*}}, %[[F]]
// Steady state: rounds g0 / S .. ceil((g0 + n) / S), carrying the accumulator.
// CHECK: %[[FIRST:.*]] = arith.divui %[[G0]], %{{.*}} : index
// CHECK: %[[LAST:.*]] = arith.ceildivui %{{.*}}, %{{.*}} : index
// CHECK: %[[SUM:.*]] = scf.for %[[R:.*]] = %[[FIRST]] to %[[LAST]] step %{{.*}} iter_args(%{{.*}} = %cst) -> (f32) {
// CHECK: arith.cmpi uge, %{{.*}}, %[[G0]] : index
// CHECK: scf.if %{{.*}} -> (f32) {
// CHECK: "nvasync.mbarrier_try_wait_parity"(%[[F]]
// CHECK: } else {
// CHECK: llvm.store %[[SUM]]
// CHECK: scf.yield %[[END]] : index

// CHECK-LABEL: gpu.func @nest_warp_specialized{{.*}}array<i32: 256, 1, 1>
// Producer: its own copy of the tile loop with the count, and the load's coordinate slice.
// CHECK: "nvasync.warp_role"() ({
// CHECK: scf.for %{{.*}} = %{{.*}} to %arg2 step %{{.*}} iter_args(%[[PG0:.*]] = %{{.*}}) -> (index) {
// CHECK: arith.index_cast
// CHECK: %[[PEND:.*]] = arith.addi %[[PG0]], %arg1 : index
// CHECK: "nvasync.mbarrier_try_wait_parity"
// CHECK: "nvasync.tma_load"
// CHECK-NOT: memref.load
// CHECK-NOT: llvm.store
// CHECK: scf.yield %[[PEND]] : index
// CHECK: }) {first_warp = 4 : i32, num_warps = 4 : i32}
// Consumers: the tile loop, the K rounds carrying the accumulator, and the epilogue store.
// CHECK: "nvasync.warp_role"() ({
// CHECK: scf.for %{{.*}} = %{{.*}} to %arg2 step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (index) {
// CHECK: scf.for {{.*}} -> (f32) {
// CHECK: "nvasync.mbarrier_try_wait_parity"
// CHECK: memref.load
// CHECK: "nvasync.warp_sync"
// CHECK: "nvasync.mbarrier_arrive"
// CHECK: llvm.store
// CHECK: }) {first_warp = 0 : i32, num_warps = 4 : i32}
// CHECK: "nvasync.mbarrier_inval"

// Pipelined (prefetch = stages): each stage's reads are followed by one barrier before its refill,
// which also orders them before the next tile's prologue and the inval: no other barrier.  Warp
// specialized: the empty mbarriers order the consumers' reads before the refills; the only CTA
// barriers are after the init and before the inval.
// SYNCED-LABEL: gpu.func @nest_pipelined
// SYNCED: scf.for
// SYNCED-NOT: "nvasync.sync_threads"
// SYNCED: scf.for
// SYNCED-COUNT-2: "nvasync.sync_threads"() {fuser.derived = "WAR: memref.load
// SYNCED-NOT: "nvasync.sync_threads"
// SYNCED-LABEL: gpu.func @nest_warp_specialized
// SYNCED: "nvasync.sync_threads"() {fuser.derived = "RAW: nvasync.mbarrier_init
// SYNCED-NOT: "nvasync.sync_threads"
// SYNCED-NOT: "nvasync.named_barrier"
// SYNCED: "nvasync.sync_threads"() {fuser.derived = "WAR: nvasync.mbarrier_try_wait_parity
