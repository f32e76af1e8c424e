// Rule (TMA-store epilogue): smem written by generic stores and read by a TMA store needs, in
// every writing thread, fence.proxy.async.shared::cta after the last write, then a barrier between
// the writers and the issuer, then the elected issue; the store's bulk group is committed right
// after it (in the issuer) and the issuer waits `bulk_wait {pending = 0, read = true}` before the
// kernel exits.  The fence sits in the block of the barrier -- never inside the issuer's scf.if
// (nvFuser PR #4810: divergence right before bar.sync) -- and is the shared::cta form.  The exit
// wait runs under the store's own issue predicate %e (bulk groups are per thread; a new
// elect_one could pick another lane).
// RUN: fuser-opt %s -p fuser-insert-syncs -p fuser-insert-proxy-fences -p fuser-flush-wgmma | FileCheck %s
// RUN: fuser-opt %s -p fuser-insert-syncs -p fuser-insert-proxy-fences -p fuser-flush-wgmma | fuser-opt -p fuser-verify-syncs -o /dev/null
// RUN: not fuser-opt %s -p fuser-verify-syncs 2>&1 | FileCheck %s --check-prefix=RAW

// CHECK-LABEL: gpu.func @epilogue
// CHECK-NOT: nvasync.fence_proxy_async
// CHECK-NOT: nvasync.sync_threads
// CHECK: memref.store %{{.*}} : memref<16x16xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[W0:.*]] = arith.cmpi ult, %thread_id_x, %c32 : index
// CHECK-NEXT: %[[EL:.*]] = "nvasync.elect_one"() : () -> i1
// CHECK-NEXT: %[[E:.*]] = arith.andi %[[W0]], %[[EL]] : i1
// CHECK-NEXT: "nvasync.fence_proxy_async"() {fuser.derived = "generic writes -> async proxy: memref.store@{{[0-9:]+}} -> nvasync.tma_store@{{[0-9:]+}}", space = "shared::cta"}
// CHECK-NEXT: "nvasync.sync_threads"() {fuser.derived = "{{RAW}}: memref.store@{{[0-9:]+}} -> nvasync.tma_store@{{[0-9:]+}}"}
// CHECK-NEXT: scf.if %[[E]] {
// CHECK-NEXT: "nvasync.tma_store"
// CHECK-NEXT: "nvasync.bulk_commit"() {fuser.derived = "commit the bulk group of nvasync.tma_store@{{[0-9:]+}}"}
// CHECK-NEXT: }
// CHECK-NOT: nvasync.fence_proxy_async
// CHECK-NOT: nvasync.sync_threads
// CHECK-NOT: nvasync.elect_one
// CHECK: scf.if %[[E]] {
// CHECK-NEXT: "nvasync.bulk_wait"() {fuser.derived = "{{.*}}", pending = 0 : i32, read = true}
// CHECK-NEXT: } {fuser.derived
// CHECK-NEXT: gpu.return

!tile = memref<16x16xf32, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @epilogue(%desc: !llvm.ptr, %in: memref<256xf32>, %x: i32, %y: i32) kernel attributes {gpu.known_block_size = array<i32: 256, 1, 1>} {
    %out = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> !tile
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %tid = gpu.thread_id x
    %row = arith.divui %tid, %c16 : index
    %col = arith.remui %tid, %c16 : index
    %v = memref.load %in[%tid] : memref<256xf32>
    // RAW: tma_store_epilogue.mlir:[[#@LINE+8]]:7: error: unsynchronized hazard: generic writes read by the async proxy without fence.proxy.async: 'memref.store' at [[#@LINE+1]]:5 -> 'nvasync.tma_store' at [[#@LINE+8]]:7
    memref.store %v, %out[%row, %col] : !tile
    %w0 = arith.cmpi ult, %tid, %c32 : index
    %el = "nvasync.elect_one"() : () -> i1
    %e = arith.andi %w0, %el : i1
    scf.if %e {
      // RAW: tma_store_epilogue.mlir:[[#@LINE+2]]:7: error: unsynchronized hazard: TMA store may still read smem at kernel exit (no covering commit + wait_group): 'nvasync.tma_store' at [[#@LINE+2]]:7
      // RAW-NOT: error:
      "nvasync.tma_store"(%desc, %out, %x, %y) : (!llvm.ptr, !tile, i32, i32) -> ()
    }
    gpu.return
  }
}
}
