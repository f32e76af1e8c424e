// Rule (smem_model.is_divergent): a value every thread reads from one shared-memory word (uniform
// indices) is uniform -- the sync passes order each write of the word against each read, so the
// threads reading it at one point read the same write.  That is how one thread hands its block a
// value (a split-K semaphore count): a branch on it keeps the block together, and a barrier for
// an exchange inside that branch goes inside it (handed_on_value_by_index.mlir: the same branch on
// a word each thread picks by its index).
// RUN: fuser-opt %s -p fuser-insert-syncs | FileCheck %s
// RUN: fuser-opt %s -p fuser-insert-syncs | fuser-opt -p fuser-verify-syncs -o /dev/null

// CHECK-LABEL: gpu.func @handed_on
// CHECK: scf.if
// CHECK-NEXT: memref.store
// CHECK-NEXT: }
// CHECK-NEXT: "nvasync.sync_threads"() {fuser.derived = "{{RAW}}: memref.store@{{[0-9:]+}} -> memref.load@{{[0-9:]+}}"}
// CHECK-NEXT: %[[COUNT:.*]] = memref.load
// CHECK: scf.if
// CHECK: memref.store
// CHECK-NEXT: arith.subi
// CHECK-NEXT: "nvasync.sync_threads"() {fuser.derived = "{{RAW}}: memref.store@{{[0-9:]+}} -> memref.load@{{[0-9:]+}}"}
// CHECK-NEXT: memref.load

!cell = memref<1xi32, #gpu.address_space<workgroup>>
!smem = memref<256xf32, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @handed_on(%out: memref<256xf32>, %count: i32) kernel attributes {gpu.known_block_size = array<i32: 256, 1, 1>} {
    %cell = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !cell
    %buf = "nvasync.smem_buffer"() {offset = 16 : i64} : () -> !smem
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c255 = arith.constant 255 : index
    %zero = arith.constant 0 : i32
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      memref.store %count, %cell[%c0] : !cell
    }
    %seen = memref.load %cell[%c0] : !cell
    %go = arith.cmpi sgt, %seen, %zero : i32
    scf.if %go {
      %v = arith.constant 1.0 : f32
      memref.store %v, %buf[%tid] : !smem
      %other = arith.subi %c255, %tid : index
      %w = memref.load %buf[%other] : !smem
      memref.store %w, %out[%tid] : memref<256xf32>
    }
    gpu.return
  }
}
}
