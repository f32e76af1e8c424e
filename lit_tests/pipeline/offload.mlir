// fuser-pipeline-mbarriers on an nvasync.offload: the offload's body runs on idle warps of the
// producer warpgroup (here warps 5-6: the consumers are warps 0-3, role "a" warp 4), in a copy of
// the tile loop that keeps what the body uses, a tile behind the consumers.  The smem the body
// uses (the staged tile) is handed over each tile through a full/empty pair of single mbarriers:
// every consumer thread waits on `empty` before its staging store, and each consumer warp arrives
// on `full` where the offload stood (a warp sync, then one lane); every offload thread waits on `full` before the body and arrives on `empty` after
// it.  The sync passes order everything else by those handoffs: no barrier between the roles.
//  * @offloaded: the consumers stage their K loop's sum; the offload's 64 threads add pairs of it
//    and store them to global memory;
//  * @offloaded_store: the offload doubles the staged tile in place and its first warp's elected
//    lane TMA-stores it: its issue predicate is computed once, before the offload's loop, and the
//    derived `wait_group.read` comes before the issuing thread's `empty` arrival, the consumers'
//    proxy fence before their `full` arrival.  That round trip (`empty` to the consumers, `full`
//    back) also orders the next tile's in-place writes after the store's reads: no barrier opens
//    the offload's iteration.
// fuser-verify-syncs and fuser-verify-pipelines (every trip count of both loops) pass on both.
// RUN: fuser-opt %s -p fuser-pipeline-mbarriers | FileCheck %s
// RUN: fuser-opt %s -p fuser-pipeline-mbarriers -p fuser-insert-syncs -p fuser-insert-proxy-fences -p fuser-flush-wgmma -p fuser-verify-syncs -p fuser-verify-pipelines | FileCheck %s --check-prefix=SYNCED
// RUN: fuser-opt %s --emit=ptx -o %t.ptx
// RUN: %ptxas %t.ptx -o %t.cubin

// CHECK-LABEL: gpu.func @offloaded
// CHECK: "nvasync.mbarrier_init"(%[[FULL:[0-9]+]], %{{.*}}) {count = 4 : i32, fuser.pipeline = "full[offload0]: init (4 arrivals: one per consumer warp)"}
// CHECK: "nvasync.mbarrier_init"(%[[EMPTY:[0-9]+]], %{{.*}}) {count = 64 : i32, fuser.pipeline = "empty[offload0]: init (64 arrivals: every thread of the offload)"}
// CHECK: "nvasync.warp_role"
// CHECK: %[[WARP:.*]] = arith.divui %thread_id_x{{.*}}, %c32
// CHECK: %[[FROM:.*]] = arith.cmpi uge, %[[WARP]], %c5
// CHECK: %[[TO:.*]] = arith.cmpi ult, %[[WARP]], %c7
// CHECK: %[[IN:.*]] = arith.andi %[[FROM]], %[[TO]]
// CHECK: scf.if %[[IN]] {
// CHECK: arith.subi %thread_id_x{{.*}}, %c160
// CHECK: scf.for %[[T:.*]] = %c0 to %arg2 step %c1 {
// CHECK: "nvasync.mbarrier_try_wait_parity"(%[[FULL]], {{.*}} {fuser.pipeline = "full[offload0]: wait"}
// CHECK: memref.load
// CHECK: memref.load
// CHECK: llvm.store
// CHECK: "nvasync.mbarrier_arrive"(%[[EMPTY]], {{.*}} {fuser.pipeline = "empty[offload0]: arrive (offload thread)"}
// CHECK: first_warp = 4 : i32, num_warps = 4 : i32
// CHECK: "nvasync.warp_role"
// CHECK: "nvasync.mbarrier_try_wait_parity"(%[[EMPTY]], {{.*}} {fuser.pipeline = "empty[offload0]: wait"}
// CHECK-NEXT: memref.store
// CHECK: "nvasync.warp_sync"
// CHECK: "nvasync.mbarrier_arrive"(%[[FULL]], {{.*}} {fuser.pipeline = "full[offload0]: arrive (consumer warp)"}
// CHECK-NOT: nvasync.offload
// CHECK: first_warp = 0 : i32, num_warps = 4 : i32
// CHECK: "nvasync.mbarrier_inval"(%[[FULL]]
// CHECK: "nvasync.mbarrier_inval"(%[[EMPTY]]

// SYNCED-LABEL: gpu.func @offloaded
// SYNCED: "nvasync.sync_threads"() {fuser.derived = "RAW: nvasync.mbarrier_init
// SYNCED-NOT: "nvasync.sync_threads"
// SYNCED-NOT: "nvasync.named_barrier"
// SYNCED: "nvasync.sync_threads"() {fuser.derived = "WAR: nvasync.mbarrier_try_wait_parity
// SYNCED-LABEL: gpu.func @offloaded_store
// SYNCED: arith.subi %thread_id_x{{.*}}, %c160
// SYNCED: "nvasync.elect_one"
// SYNCED: scf.for
// SYNCED: "full[offload0]: wait"
// SYNCED-NOT: {{named_barrier|bulk_wait}}
// SYNCED: "nvasync.named_barrier"() {fuser.derived = "RAW: memref.store{{.*}} -> nvasync.tma_store{{.*}}", id = 1 : i32, threads = 64 : i32}
// SYNCED: "nvasync.tma_store"
// SYNCED-NEXT: "nvasync.bulk_commit"
// SYNCED: "nvasync.bulk_wait"() {fuser.derived = "WAR: nvasync.tma_store{{.*}} reads smem -> memref.store{{.*}}", pending = 0 : i32, read = true}
// SYNCED-NEXT: } {fuser.derived
// SYNCED-NEXT: "nvasync.mbarrier_arrive"{{.*}}"empty[offload0]: arrive (offload thread)"
// SYNCED: "empty[offload0]: wait"
// SYNCED-NEXT: memref.store
// SYNCED: "nvasync.fence_proxy_async"() {fuser.derived = "generic writes -> async proxy, handed on by an mbarrier: {{.*}}", space = "shared::cta"}
// SYNCED-NEXT: "nvasync.warp_sync"
// SYNCED: "nvasync.mbarrier_arrive"{{.*}}"full[offload0]: arrive (consumer warp)"

!box = memref<8x128xf32, #gpu.address_space<workgroup>>
!stage = memref<128xf32, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @offloaded(%d: !llvm.ptr, %n: index, %tiles: index, %out: !llvm.ptr<1>) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !box
    %staged = "nvasync.smem_buffer"() {offset = 4096 : i64} : () -> !stage
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
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
      memref.store %sum, %staged[%tid] : !stage
      %row = arith.muli %t, %c64 : index
      "nvasync.offload"() ({
      ^bb0(%u: index):
        %i = arith.muli %u, %c2 : index
        %j = arith.addi %i, %c1 : index
        %a = memref.load %staged[%i] : !stage
        %b = memref.load %staged[%j] : !stage
        %ab = arith.addf %a, %b : f32
        %at = arith.addi %row, %u : index
        %i64 = arith.index_cast %at : index to i64
        %dst = llvm.getelementptr %out[%i64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
        llvm.store %ab, %dst : f32, !llvm.ptr<1>
        gpu.yield
      }) {warps = 2 : i32} : () -> ()
    }
    gpu.return
  }

  gpu.func @offloaded_store(%d: !llvm.ptr, %n: index, %tiles: index, %od: !llvm.ptr) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !box
    %staged = "nvasync.smem_buffer"() {offset = 4096 : i64} : () -> !stage
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
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
      memref.store %sum, %staged[%tid] : !stage
      %row = arith.muli %t, %c64 : index
      "nvasync.offload"() ({
      ^bb0(%u: index):
        %a = memref.load %staged[%u] : !stage
        %two = arith.addf %a, %a : f32
        memref.store %two, %staged[%u] : !stage
        %c32 = arith.constant 32 : index
        %w0 = arith.cmpi ult, %u, %c32 : index
        %el = "nvasync.elect_one"() : () -> i1
        %issuer = arith.andi %w0, %el : i1
        scf.if %issuer {
          %r32 = arith.index_cast %row : index to i32
          "nvasync.tma_store"(%od, %staged, %r32) : (!llvm.ptr, !stage, i32) -> ()
        }
        gpu.yield
      }) {warps = 2 : i32} : () -> ()
    }
    gpu.return
  }
}
}
