// Rule (fuser-insert-syncs, cluster barriers): a cluster barrier waits for every thread of every
// CTA of the cluster, so the pass places one only in the kernel's top-level block (whether a
// condition or loop is uniform over a cluster is not modelled) and reports a distributed-store
// hazard that no such point separates (fuser-verify-syncs: barrier_uniformity_invalid.mlir).
// RUN: fuser-opt %s -p fuser-insert-syncs --split-input-file --verify-diagnostics

!slots = memref<4xf32, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @store_and_read_in_a_loop(%n: index) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>, nvvm.cluster_dim = array<i32: 4, 1, 1>} {
    %slots = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !slots
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %one = arith.constant 1.0 : f32
    %zero = arith.constant 0 : i32
    scf.for %i = %c0 to %n step %c1 {
      "nvasync.store_peer"(%one, %slots, %zero, %c0) : (f32, !slots, i32, index) -> ()
      // expected-error @below {{no cluster barrier can order RAW: nvasync.store_peer}}
      %v = memref.load %slots[%c0] : !slots
    }
    gpu.return
  }
}
}
