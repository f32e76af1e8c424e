// Rule (fence spaces before a TMA store): generic writes to the CTA's shared memory read by the
// async proxy need a `fence.proxy.async` that covers the CTA's shared memory in the writing
// threads: `.shared::cta` (what fuser-insert-proxy-fences emits), `.shared::cluster` (the cluster's
// shared memory includes the CTA's) or the bare form (every state space).  `.global` does not
// cover it.
//  * @cluster_fence, @bare_fence: hand-synchronized epilogues; the verifier accepts them and the
//    insertion passes add nothing.
//  * @global_fence: the verifier reports the missing fence; fuser-insert-proxy-fences adds the
//    `.shared::cta` one before the barrier.
// RUN: not fuser-opt %s -p fuser-verify-syncs 2>&1 | FileCheck %s --check-prefix=RAW
// RUN: fuser-opt %s -p fuser-insert-syncs -p fuser-insert-proxy-fences -p fuser-flush-wgmma | FileCheck %s
// RUN: fuser-opt %s -p fuser-insert-syncs -p fuser-insert-proxy-fences -p fuser-flush-wgmma | fuser-opt -p fuser-verify-syncs -o /dev/null

// CHECK-LABEL: gpu.func @cluster_fence
// CHECK-NOT: fuser.derived
// CHECK-LABEL: gpu.func @bare_fence
// CHECK-NOT: fuser.derived
// CHECK-LABEL: gpu.func @global_fence
// CHECK: "nvasync.fence_proxy_async"() {space = "global"}
// CHECK-NEXT: "nvasync.fence_proxy_async"() {fuser.derived = "generic writes -> async proxy: memref.store@{{[0-9:]+}} -> nvasync.tma_store@{{[0-9:]+}}", space = "shared::cta"}
// CHECK-NEXT: "nvasync.sync_threads"()
// CHECK-NOT: fuser.derived

!tile = memref<16x16xf32, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @cluster_fence(%desc: !llvm.ptr, %in: memref<256xf32>, %x: i32, %y: i32) kernel attributes {gpu.known_block_size = array<i32: 256, 1, 1>} {
    %out = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> !tile
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %tid = gpu.thread_id x
    %row = arith.divui %tid, %c16 : index
    %col = arith.remui %tid, %c16 : index
    %w0 = arith.cmpi ult, %tid, %c32 : index
    %el = "nvasync.elect_one"() : () -> i1
    %e = arith.andi %w0, %el : i1
    %v = memref.load %in[%tid] : memref<256xf32>
    memref.store %v, %out[%row, %col] : !tile
    "nvasync.fence_proxy_async"() {space = "shared::cluster"} : () -> ()
    "nvasync.sync_threads"() : () -> ()
    scf.if %e {
      "nvasync.tma_store"(%desc, %out, %x, %y) : (!llvm.ptr, !tile, i32, i32) -> ()
      "nvasync.bulk_commit"() : () -> ()
      "nvasync.bulk_wait"() {pending = 0 : i32, read = true} : () -> ()
    }
    gpu.return
  }
  gpu.func @bare_fence(%desc: !llvm.ptr, %in: memref<256xf32>, %x: i32, %y: i32) kernel attributes {gpu.known_block_size = array<i32: 256, 1, 1>} {
    %out = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> !tile
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %tid = gpu.thread_id x
    %row = arith.divui %tid, %c16 : index
    %col = arith.remui %tid, %c16 : index
    %w0 = arith.cmpi ult, %tid, %c32 : index
    %el = "nvasync.elect_one"() : () -> i1
    %e = arith.andi %w0, %el : i1
    %v = memref.load %in[%tid] : memref<256xf32>
    memref.store %v, %out[%row, %col] : !tile
    "nvasync.fence_proxy_async"() {space = "all"} : () -> ()
    "nvasync.sync_threads"() : () -> ()
    scf.if %e {
      "nvasync.tma_store"(%desc, %out, %x, %y) : (!llvm.ptr, !tile, i32, i32) -> ()
      "nvasync.bulk_commit"() : () -> ()
      "nvasync.bulk_wait"() {pending = 0 : i32, read = true} : () -> ()
    }
    gpu.return
  }
  gpu.func @global_fence(%desc: !llvm.ptr, %in: memref<256xf32>, %x: i32, %y: i32) kernel attributes {gpu.known_block_size = array<i32: 256, 1, 1>} {
    %out = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> !tile
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %tid = gpu.thread_id x
    %row = arith.divui %tid, %c16 : index
    %col = arith.remui %tid, %c16 : index
    %w0 = arith.cmpi ult, %tid, %c32 : index
    %el = "nvasync.elect_one"() : () -> i1
    %e = arith.andi %w0, %el : i1
    %v = memref.load %in[%tid] : memref<256xf32>
    memref.store %v, %out[%row, %col] : !tile
    "nvasync.fence_proxy_async"() {space = "global"} : () -> ()
    "nvasync.sync_threads"() : () -> ()
    scf.if %e {
      // RAW: fence_proxy_spaces.mlir:[[#@LINE+2]]:7: error: unsynchronized hazard: generic writes read by the async proxy without fence.proxy.async: 'memref.store' at [[#@LINE-4]]:5 -> 'nvasync.tma_store' at [[#@LINE+2]]:7
      // RAW-NOT: error:
      "nvasync.tma_store"(%desc, %out, %x, %y) : (!llvm.ptr, !tile, i32, i32) -> ()
      "nvasync.bulk_commit"() : () -> ()
      "nvasync.bulk_wait"() {pending = 0 : i32, read = true} : () -> ()
    }
    gpu.return
  }
}
}
