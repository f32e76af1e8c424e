// fuser-pipeline-mbarriers with a multicast role over a cluster of 2 CTAs (`cluster = 2`,
// `multicast = "b"`; the kernel's nvvm.cluster_dim): role "b"'s loads become tma_load_multicast
// (each CTA loads half of the tile into both CTAs, so each CTA's full[b] still receives the whole
// tile and its own expect-tx announces it); a stage of "b" is free only when both CTAs' consumers
// have released it, so empty[b] counts 2 x 4 warps and each consumer warp also arrives, remotely,
// on the peer's empty[b] (rank + 1) % 2.  Role "a" stays local (empty[a] counts 4).
// fuser-insert-syncs then derives the cluster barriers the remote uses need: after the inits
// (and their fence), before any peer arrives or multicasts; and before the invalidation (which
// is also before exit), so no CTA leaves while its peer may still reach its barriers.  No
// bar.sync: the cluster barrier orders the CTA's own threads too.  fuser-verify-pipelines runs
// both CTAs of the cluster over every trip count; test_pipelines.py perturbs each protocol op.
// RUN: fuser-opt %s -p fuser-pipeline-mbarriers | FileCheck %s
// RUN: fuser-opt %s -p fuser-pipeline-mbarriers -p fuser-insert-syncs -p fuser-verify-syncs -p fuser-verify-pipelines | FileCheck %s --check-prefix=SYNCED
// RUN: fuser-opt %s --emit=ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %ptxas %t.ptx -o %t.cubin

!a = memref<8x128xf32, #gpu.address_space<workgroup>>
!b = memref<16x128xf32, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @multicast(%da: !llvm.ptr, %db: !llvm.ptr, %n: index, %tiles: index, %out: !llvm.ptr<1>) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>, nvvm.cluster_dim = array<i32: 2, 1, 1>} {
    %a = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !a
    %b = "nvasync.smem_buffer"() {offset = 4096 : i64} : () -> !b
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
        "nvasync.pipeline_load"(%da, %a, %y, %x) {role = "a"} : (!llvm.ptr, !a, i32, i32) -> ()
        "nvasync.pipeline_load"(%db, %b, %y, %x) {role = "b"} : (!llvm.ptr, !b, i32, i32) -> ()
        %va = memref.load %a[%c0, %tid] : !a
        %vb = memref.load %b[%c8, %tid] : !b
        %p = arith.mulf %va, %vb : f32
        %s = arith.addf %acc, %p : f32
        scf.yield %s : f32
      } {nvasync.pipeline = {stages = 2 : i64, mode = "warp_specialized", cluster = 2 : i64, multicast = "b"}}
      %i64 = arith.index_cast %tid : index to i64
      %dst = llvm.getelementptr %out[%i64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
      llvm.store %sum, %dst : f32, !llvm.ptr<1>
    }
    gpu.return
  }
}
}

// CHECK-LABEL: gpu.func @multicast
// CHECK-DAG: %[[FA:.*]] = "nvasync.smem_buffer"() {offset = 24576 : i64} : () -> memref<2xi64
// CHECK-DAG: %[[EA:.*]] = "nvasync.smem_buffer"() {offset = 24592 : i64} : () -> memref<2xi64
// CHECK-DAG: %[[FB:.*]] = "nvasync.smem_buffer"() {offset = 24608 : i64} : () -> memref<2xi64
// CHECK-DAG: %[[EB:.*]] = "nvasync.smem_buffer"() {offset = 24624 : i64} : () -> memref<2xi64
// CHECK: "nvasync.mbarrier_init"(%[[EA]], %{{.*}}) {count = 4 : i32, fuser.pipeline = "empty[a]: init (4 arrivals: one per consumer warp)"}
// CHECK: "nvasync.mbarrier_init"(%[[FB]], %{{.*}}) {count = 1 : i32
// CHECK: "nvasync.mbarrier_init"(%[[EB]], %{{.*}}) {count = 8 : i32, fuser.pipeline = "empty[b]: init (8 arrivals: one per consumer warp of each of the cluster's 2 CTAs)"}
// Producers: "a" loads locally; "b" announces the whole 8 KiB tile and multicasts its half.
// CHECK: "nvasync.mbarrier_arrive_expect_tx"(%[[FA]], %{{.*}}) {bytes = 4096 : i32
// CHECK: "nvasync.tma_load"(%arg0, %{{.*}}, %[[FA]]
// CHECK: "nvasync.mbarrier_try_wait_parity"(%[[EB]]
// CHECK: "nvasync.mbarrier_arrive_expect_tx"(%[[FB]], %{{.*}}) {bytes = 8192 : i32
// CHECK: "nvasync.tma_load_multicast"(%arg1, %{{.*}}, %[[FB]], %{{.*}}) {ctas = 2 : i32}
// Consumers: the peer is (rank + 1) % 2; a warp releases a's stage locally, b's in both CTAs.
// CHECK: %[[RANK:.*]] = "nvasync.cluster_rank"() : () -> i32
// CHECK: %[[NEXT:.*]] = arith.addi %[[RANK]], %c1_i32
// CHECK: %[[PEER:.*]] = arith.remui %[[NEXT]], %c2_i32
// CHECK: "nvasync.warp_sync"
// CHECK: "nvasync.mbarrier_arrive"(%[[EA]]
// CHECK-NOT: "nvasync.mbarrier_arrive_cluster"(%[[EA]]
// CHECK: "nvasync.mbarrier_arrive"(%[[EB]]
// CHECK: "nvasync.mbarrier_arrive_cluster"(%[[EB]], %{{.*}}, %[[PEER]])

// SYNCED: "nvasync.fence_mbarrier_init"
// SYNCED: "nvasync.cluster_sync"() {fuser.derived = "RAW: nvasync.mbarrier_init{{.*}} -> nvasync.tma_load_multicast{{.*}}"}
// SYNCED-NOT: "nvasync.sync_threads"
// SYNCED: "nvasync.warp_role"
// SYNCED: "nvasync.cluster_sync"() {fuser.derived = "WAR: nvasync.tma_load_multicast{{.*}} -> nvasync.mbarrier_inval{{.*}}"}
// SYNCED-NEXT: scf.if
// SYNCED: "nvasync.mbarrier_inval"
// SYNCED-NOT: "nvasync.cluster_sync"

// PTX: .reqnctapercluster 2, 1, 1
// PTX: fence.mbarrier_init.release.cluster;
// PTX: barrier.cluster.arrive.aligned;
// PTX-NEXT: barrier.cluster.wait.aligned;
// PTX-DAG: mov.u32 %{{r[0-9]+}}, %cluster_ctarank;
// PTX-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
// PTX-DAG: mapa.shared::cluster.u64
// PTX-DAG: mbarrier.arrive.shared::cluster.b64
// PTX: barrier.cluster.arrive.aligned;
// PTX-NEXT: barrier.cluster.wait.aligned;
// PTX: mbarrier.inval.shared.b64
