// Rule: a store into a peer CTA's shared memory (nvasync.store_peer: mapa + st.shared::cluster)
// is ordered before any access of that buffer by a cluster barrier (barrier.cluster.arrive
// release + wait acquire, every thread of every CTA of the cluster), which also keeps the peer
// from exiting while the store is in flight.  Here each CTA of a cluster of 4 folds its threads'
// values through one smem slot (a bar.sync, CTA-local), thread p < 4 stores the CTA's total
// into slot [rank] of CTA p, and every thread reads the 4 slots: one derived cluster barrier,
// after the branch of the stores, in the kernel's top-level block; it also serves kernel exit.
// Before the first distributed store every CTA of the cluster must have started (its shared
// memory exists; compute-sanitizer racecheck reports the store otherwise): a relaxed cluster
// arrive first thing and its wait just before the stores' branch.
// RUN: fuser-opt %s -p fuser-insert-syncs | FileCheck %s
// RUN: fuser-opt %s -p fuser-insert-syncs -p fuser-verify-syncs -o /dev/null
// RUN: not fuser-opt %s -p fuser-verify-syncs 2>&1 | FileCheck %s --check-prefix=UNSYNCED
// RUN: fuser-opt %s -p fuser-insert-syncs --emit=ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx && %ptxas %t.ptx -o %t.cubin

// CHECK: gpu.func @cluster_total
// CHECK-NEXT: "nvasync.cluster_arrive"() {fuser.derived = "peers started before the distributed store nvasync.store_peer
// CHECK: memref.store
// CHECK: "nvasync.sync_threads"() {fuser.derived = "RAW: memref.store@{{.*}} -> memref.load
// CHECK: "nvasync.cluster_wait"() {fuser.derived = "peers started
// CHECK: scf.if
// CHECK: "nvasync.store_peer"
// CHECK-NEXT: }
// CHECK-NEXT: "nvasync.cluster_sync"() {fuser.derived = "RAW: nvasync.store_peer@{{.*}} -> memref.load
// CHECK-NOT: nvasync.cluster_sync
// CHECK: gpu.return

// UNSYNCED: error: unsynchronized hazard: generic smem accesses by different threads without a barrier
// UNSYNCED: error: unsynchronized hazard: shared memory stored by a peer CTA (store_peer) and accessed without a cluster barrier
// UNSYNCED: error: unsynchronized hazard: a store into a peer CTA's shared memory may land after the peer exits
// UNSYNCED: error: unsynchronized hazard: a store into a peer CTA's shared memory before a cluster barrier has shown that every CTA of the cluster started

// PTX: .explicitcluster
// PTX-NEXT: .reqnctapercluster 4, 1, 1
// PTX: barrier.cluster.arrive.relaxed.aligned;
// PTX: bar.sync 0
// PTX: barrier.cluster.wait.aligned;
// PTX: mapa.shared::cluster.u64
// PTX-NEXT: st.shared::cluster.b32
// PTX: barrier.cluster.arrive.aligned;
// PTX-NEXT: barrier.cluster.wait.aligned;
!warps = memref<4xf32, #gpu.address_space<workgroup>>
!slots = memref<4xf32, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @cluster_total(%out: !llvm.ptr<1>) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>, nvvm.cluster_dim = array<i32: 4, 1, 1>} {
    %partials = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !warps
    %slots = "nvasync.smem_buffer"() {offset = 16 : i64} : () -> !slots
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    %rank = "nvasync.cluster_rank"() : () -> i32
    %tid = gpu.thread_id x
    %warp = arith.divui %tid, %c32 : index
    %lane = arith.remui %tid, %c32 : index
    %one = arith.constant 1.0 : f32
    %first = arith.cmpi eq, %lane, %c0 : index
    scf.if %first {
      memref.store %one, %partials[%warp] : !warps
    }
    %p0 = memref.load %partials[%c0] : !warps
    %p1 = memref.load %partials[%c1] : !warps
    %p2 = memref.load %partials[%c2] : !warps
    %p3 = memref.load %partials[%c3] : !warps
    %s01 = arith.addf %p0, %p1 : f32
    %s23 = arith.addf %p2, %p3 : f32
    %total = arith.addf %s01, %s23 : f32
    %peers = arith.cmpi ult, %tid, %c4 : index
    scf.if %peers {
      %peer = arith.index_cast %tid : index to i32
      %at = arith.index_cast %rank : i32 to index
      "nvasync.store_peer"(%total, %slots, %peer, %at) : (f32, !slots, i32, index) -> ()
    }
    %q0 = memref.load %slots[%c0] : !slots
    %q1 = memref.load %slots[%c1] : !slots
    %q2 = memref.load %slots[%c2] : !slots
    %q3 = memref.load %slots[%c3] : !slots
    %t01 = arith.addf %q0, %q1 : f32
    %t23 = arith.addf %q2, %q3 : f32
    %sum = arith.addf %t01, %t23 : f32
    %is0 = arith.cmpi eq, %tid, %c0 : index
    scf.if %is0 {
      llvm.store %sum, %out : f32, !llvm.ptr<1>
    }
    gpu.return
  }
}
}
