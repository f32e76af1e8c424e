// --pass-pipeline='builtin.module(...)' mixes project and upstream passes at the top level, in
// order; upstream elements may nest (gpu.module(canonicalize)).  A project pass walks the whole
// module, so naming it inside a nested pipeline is an error (reported as `file: error:`, exit 1),
// as is an unknown pass or a malformed pipeline.
// RUN: fuser-opt %s --pass-pipeline='builtin.module(fuser-lower-nvasync,canonicalize,cse)' | FileCheck %s --check-prefix=MIX
// RUN: fuser-opt %s --pass-pipeline='builtin.module(fuser-lower-nvasync,gpu.module(canonicalize))' | FileCheck %s --check-prefix=NESTED-UPSTREAM
// RUN: fuser-opt %s --pass-pipeline='builtin.module(cse)' -p fuser-lower-nvasync | FileCheck %s --check-prefix=BOTH
// RUN: not fuser-opt %s --pass-pipeline='builtin.module(gpu.module(fuser-lower-nvasync))' 2>&1 | FileCheck %s --check-prefix=NESTED-PROJECT
// RUN: not fuser-opt %s --pass-pipeline='builtin.module(fuser-lower-nvasync{foo=1})' 2>&1 | FileCheck %s --check-prefix=OPTIONS
// RUN: not fuser-opt %s --pass-pipeline='builtin.module(canonicalize,no-such-pass)' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not fuser-opt %s --pass-pipeline='builtin.module(canonicalize' 2>&1 | FileCheck %s --check-prefix=MALFORMED
// RUN: not fuser-opt %s --pass-pipeline='builtin.module(cse))' 2>&1 | FileCheck %s --check-prefix=UNBALANCED

// MIX-NOT: nvasync.
// MIX-DAG: %[[C1:.*]] = arith.constant 1 : i32
// MIX-DAG: %[[C128:.*]] = arith.constant 128 : i32
// MIX: nvvm.barrier id = %[[C1]] number_of_threads = %[[C128]]
// MIX-NEXT: nvvm.barrier id = %[[C1]] number_of_threads = %[[C128]]
// MIX-NOT: nvasync.

// NESTED-UPSTREAM-NOT: nvasync.
// NESTED-UPSTREAM: nvvm.barrier
// NESTED-UPSTREAM-NOT: arith.addi

// BOTH: arith.addi %[[C7:.*]], %[[C7]] : i32
// BOTH: nvvm.barrier
// BOTH-NOT: nvasync.

// NESTED-PROJECT: pass_pipeline.mlir: error: project pass 'fuser-lower-nvasync' must be a top-level element of builtin.module(...)
// OPTIONS: pass_pipeline.mlir: error: pass 'fuser-lower-nvasync' takes no options or nested passes
// UNKNOWN: pass_pipeline.mlir: error: invalid pass pipeline 'canonicalize,no-such-pass': {{.*}}'no-such-pass' does not refer to a registered pass or pass pipeline
// MALFORMED: pass_pipeline.mlir: error: malformed pass pipeline 'builtin.module(canonicalize': expected builtin.module(...)
// UNBALANCED: pass_pipeline.mlir: error: unbalanced ')' in pass pipeline

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
