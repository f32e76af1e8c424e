// With no input file (or `-`), fuser-opt reads the module from stdin; diagnostics then name the
// input `<stdin>`, with the line and column in the text read.
// RUN: fuser-opt < %s | FileCheck %s
// RUN: fuser-opt - -p fuser-lower-nvasync < %s | FileCheck %s --check-prefix=LOWER
// RUN: printf 'func.func @f() {\n  "nvasync.fence_proxy_async"() {space = "smem"} : () -> ()\n  return\n}\n' | not fuser-opt 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: printf 'func.func @f() {\n  return\n}\n// -----\nfunc.func @g() {\n\n  "nvasync.wgmma_wait"() {pending = 8 : i32} : () -> ()\n  return\n}\n' | not fuser-opt --split-input-file 2>&1 | FileCheck %s --check-prefix=SPLIT-ERR

// CHECK: gpu.func @k()
// CHECK-NEXT: "nvasync.sync_threads"() : () -> ()
// LOWER: gpu.func @k()
// LOWER: nvvm.barrier0
// ERR: <stdin>:2:3: error: 'nvasync.fence_proxy_async' op space must be one of shared::cta, shared::cluster, global, all, got 'smem'
// SPLIT-ERR: <stdin>:7:3: error: 'nvasync.wgmma_wait' op pending must be in [0, 7], got 8

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k() kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    "nvasync.sync_threads"() : () -> ()
    gpu.return
  }
}
}
