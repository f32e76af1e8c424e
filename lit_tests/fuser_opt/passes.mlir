// `-p PASS` may be repeated; the passes run in the order given, and project passes
// (fuser-lower-nvasync) mix freely with upstream ones (canonicalize, cse).
// RUN: fuser-opt %s -p fuser-lower-nvasync -p canonicalize -p cse | FileCheck %s --check-prefix=ALL
// RUN: fuser-opt %s -p cse | FileCheck %s --check-prefix=CSE
// RUN: fuser-opt %s -p canonicalize -p fuser-lower-nvasync | FileCheck %s --check-prefix=CANON-FIRST
// RUN: fuser-opt %s | FileCheck %s --check-prefix=NONE

// All three: nvasync is lowered, the constant add is folded, the duplicate i32 constants the
// lowering creates are merged.
// ALL-NOT: nvasync.
// ALL: gpu.func @k
// ALL-DAG: %[[C1:.*]] = arith.constant 1 : i32
// ALL-DAG: %[[C128:.*]] = arith.constant 128 : i32
// ALL-DAG: %[[C14:.*]] = arith.constant 14 : i32
// ALL: nvvm.barrier id = %[[C1]] number_of_threads = %[[C128]]
// ALL-NEXT: nvvm.barrier id = %[[C1]] number_of_threads = %[[C128]]
// ALL-NEXT: memref.store %[[C14]]
// ALL-NOT: arith.addi
// ALL-NOT: nvasync.

// Only cse: the two equal constants become one; nvasync ops stay; the add is not folded.
// CSE: %[[C7:.*]] = arith.constant 7 : i32
// CSE-NOT: arith.constant 7 : i32
// CSE: arith.addi %[[C7]], %[[C7]] : i32
// CSE: "nvasync.named_barrier"() {id = 1 : i32, threads = 128 : i32} : () -> ()

// Canonicalize before the lowering: the add is folded, but the constants the lowering creates
// afterwards are not cleaned up (one pair per barrier).
// CANON-FIRST: arith.constant 14 : i32
// CANON-FIRST-NOT: arith.addi
// CANON-FIRST-COUNT-2: arith.constant 128 : i32
// CANON-FIRST-NOT: nvasync.

// No pass: the module comes back as parsed (after the implicit dialect verification).
// NONE: arith.addi
// NONE-COUNT-2: "nvasync.named_barrier"

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%out: memref<4xi32>) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %a = arith.constant 7 : i32
    %b = arith.constant 7 : i32
    %s = arith.addi %a, %b : i32
    "nvasync.named_barrier"() {id = 1 : i32, threads = 128 : i32} : () -> ()
    "nvasync.named_barrier"() {id = 1 : i32, threads = 128 : i32} : () -> ()
    memref.store %s, %out[%c0] : memref<4xi32>
    gpu.return
  }
}
}
