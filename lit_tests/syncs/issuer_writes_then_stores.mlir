// Rule (generic write -> async read by one thread): when the elected thread itself writes the smem
// tile with generic stores and then issues the TMA store, no other thread is involved: no barrier
// (one under the issue predicate would hang), only `fence.proxy.async.shared::cta` in that thread
// right before the store, then the usual commit and the wait before exit.
// RUN: fuser-opt %s -p fuser-insert-syncs -p fuser-insert-proxy-fences -p fuser-flush-wgmma | FileCheck %s
// RUN: fuser-opt %s -p fuser-insert-syncs -p fuser-insert-proxy-fences -p fuser-flush-wgmma | fuser-opt -p fuser-verify-syncs -o /dev/null
// RUN: not fuser-opt %s -p fuser-verify-syncs 2>&1 | FileCheck %s --check-prefix=RAW

// CHECK-LABEL: gpu.func @issuer_writes_then_stores
// CHECK-NOT: nvasync.sync_threads
// CHECK: scf.if %[[E:.*]] {
// CHECK-NEXT: memref.store
// CHECK-NEXT: "nvasync.fence_proxy_async"() {fuser.derived = "generic writes -> async proxy: memref.store@{{[0-9:]+}} -> nvasync.tma_store@{{[0-9:]+}}", space = "shared::cta"}
// CHECK-NEXT: "nvasync.tma_store"
// CHECK-NEXT: "nvasync.bulk_commit"
// CHECK-NEXT: {{^ *}}}{{$}}
// CHECK-NEXT: scf.if %[[E]] {
// CHECK-NEXT: "nvasync.bulk_wait"() {fuser.derived = "{{.*}}", pending = 0 : i32, read = true}
// CHECK-NOT: nvasync.sync_threads

!tile = memref<16x16xf32, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @issuer_writes_then_stores(%desc: !llvm.ptr, %x: i32, %y: i32, %v: f32) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %out = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> !tile
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %tid = gpu.thread_id x
    %w0 = arith.cmpi ult, %tid, %c32 : index
    %el = "nvasync.elect_one"() : () -> i1
    %e = arith.andi %w0, %el : i1
    scf.if %e {
      memref.store %v, %out[%c0, %c0] : !tile
      // RAW: issuer_writes_then_stores.mlir:[[#@LINE+3]]:7: error: unsynchronized hazard: generic writes read by the async proxy without fence.proxy.async: 'memref.store' at [[#@LINE-1]]:7 -> 'nvasync.tma_store' at [[#@LINE+3]]:7
      // RAW: issuer_writes_then_stores.mlir:[[#@LINE+2]]:7: error: unsynchronized hazard: TMA store may still read smem at kernel exit (no covering commit + wait_group): 'nvasync.tma_store' at [[#@LINE+2]]:7
      // RAW-NOT: error:
      "nvasync.tma_store"(%desc, %out, %x, %y) : (!llvm.ptr, !tile, i32, i32) -> ()
    }
    gpu.return
  }
}
}
