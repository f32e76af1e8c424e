// Rule (multi-buffered TMA stores): a TMA store reads its smem source until its bulk group
// completes, so before any thread rewrites that buffer the issuer commits the group and waits
// `bulk_wait {read = true, pending = N}` *before* the barrier that releases the writers (the wait
// goes first: barrier -> wait would let the writers run ahead of it), N = the bulk groups the
// issuer surely commits between the store and that barrier.  The loop over rounds unrolls one
// stage per output buffer (write buf s, fence, barrier, elected store of buf s, commit).  The
// barrier that releases buf s for round r + 1 is the one of the previous stage, so the wait lets
// the groups committed in between stay in flight: N = buffers - 2 here (the "buffers - 1" of
// HOPPER.md counts from a wait placed right after the commit, one commit later).
//  * @double_buffered: 2 buffers -> pending = 0 before each stage's barrier.
//  * @triple_buffered_guarded: 3 buffers under pointwise-style stage guards `r*3 + s < tiles`
//    -> pending = 1 (the later stage's guard implies the earlier stage's commit ran).
// Both end with the issuer's `bulk_wait {pending = 0, read = true}` before exit.  Bulk groups are
// per thread, so every wait runs under the very predicate that issued the stores (%e, computed
// once before the loop: a second elect_one could elect another lane).
// RUN: fuser-opt %s -p fuser-insert-syncs -p fuser-insert-proxy-fences -p fuser-flush-wgmma | FileCheck %s
// RUN: fuser-opt %s -p fuser-insert-syncs -p fuser-insert-proxy-fences -p fuser-flush-wgmma | fuser-opt -p fuser-verify-syncs -o /dev/null
// RUN: not fuser-opt %s -p fuser-verify-syncs 2>&1 | FileCheck %s --check-prefix=RAW

// CHECK-LABEL: gpu.func @double_buffered
// CHECK: %[[B0:.*]] = "nvasync.smem_buffer"() {offset = 0 : i64}
// CHECK: %[[B1:.*]] = "nvasync.smem_buffer"() {offset = 1024 : i64}
// CHECK: %[[E:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK-NOT: nvasync.sync_threads
// CHECK-NOT: nvasync.bulk_wait
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %[[B0]][%thread_id_x]
// CHECK-NOT: nvasync.sync_threads
// CHECK: scf.if %[[E]] {
// CHECK-NEXT: "nvasync.bulk_wait"() {fuser.derived = "WAR: nvasync.tma_store@{{[0-9:]+}} reads smem -> memref.store@{{[0-9:]+}}", pending = 0 : i32, read = true}
// CHECK-NEXT: } {fuser.derived
// CHECK-NEXT: "nvasync.fence_proxy_async"() {{.*}}space = "shared::cta"
// CHECK-NEXT: "nvasync.sync_threads"()
// CHECK-NEXT: scf.if %[[E]] {
// CHECK-NEXT: arith.index_cast
// CHECK-NEXT: "nvasync.tma_store"(%{{.*}}, %[[B0]], %{{.*}})
// CHECK-NEXT: "nvasync.bulk_commit"()
// CHECK-NEXT: {{^ *}}}{{$}}
// CHECK: memref.store %{{.*}}, %[[B1]][%thread_id_x]
// CHECK-NOT: nvasync.sync_threads
// CHECK: scf.if %[[E]] {
// CHECK-NEXT: "nvasync.bulk_wait"() {fuser.derived = "WAR: nvasync.tma_store@{{[0-9:]+}} reads smem -> memref.store@{{[0-9:]+}}", pending = 0 : i32, read = true}
// CHECK-NEXT: } {fuser.derived
// CHECK-NEXT: "nvasync.fence_proxy_async"() {{.*}}space = "shared::cta"
// CHECK-NEXT: "nvasync.sync_threads"()
// CHECK-NEXT: scf.if %[[E]] {
// CHECK-NEXT: arith.index_cast
// CHECK-NEXT: "nvasync.tma_store"(%{{.*}}, %[[B1]], %{{.*}})
// CHECK-NEXT: "nvasync.bulk_commit"()
// CHECK-NEXT: {{^ *}}}{{$}}
// CHECK-NEXT: {{^ *}}}{{$}}
// CHECK-NOT: nvasync.sync_threads
// CHECK: scf.if %[[E]] {
// CHECK-NEXT: "nvasync.bulk_wait"() {{.*}}pending = 0 : i32, read = true}
// CHECK-NEXT: } {fuser.derived
// CHECK-NEXT: gpu.return

// CHECK-LABEL: gpu.func @triple_buffered_guarded
// CHECK: %[[T0:.*]] = "nvasync.smem_buffer"() {offset = 0 : i64}
// CHECK: %[[T1:.*]] = "nvasync.smem_buffer"() {offset = 1024 : i64}
// CHECK: %[[T2:.*]] = "nvasync.smem_buffer"() {offset = 2048 : i64}
// CHECK: %[[E:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK-NOT: nvasync.sync_threads
// CHECK-NOT: nvasync.bulk_wait
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %[[T0]][%thread_id_x]
// CHECK-NOT: nvasync.sync_threads
// CHECK: scf.if %[[E]] {
// CHECK-NEXT: "nvasync.bulk_wait"() {{.*}}pending = 1 : i32, read = true}
// CHECK-NEXT: } {fuser.derived
// CHECK-NEXT: "nvasync.fence_proxy_async"()
// CHECK-NEXT: "nvasync.sync_threads"()
// CHECK-NEXT: scf.if %[[E]] {
// CHECK-NEXT: arith.index_cast
// CHECK-NEXT: "nvasync.tma_store"(%{{.*}}, %[[T0]], %{{.*}})
// CHECK-NEXT: "nvasync.bulk_commit"()
// CHECK: memref.store %{{.*}}, %[[T1]][%thread_id_x]
// CHECK-NOT: nvasync.sync_threads
// CHECK: scf.if %[[E]] {
// CHECK-NEXT: "nvasync.bulk_wait"() {{.*}}pending = 1 : i32, read = true}
// CHECK-NEXT: } {fuser.derived
// CHECK-NEXT: "nvasync.fence_proxy_async"()
// CHECK-NEXT: "nvasync.sync_threads"()
// CHECK-NEXT: scf.if %[[E]] {
// CHECK-NEXT: arith.index_cast
// CHECK-NEXT: "nvasync.tma_store"(%{{.*}}, %[[T1]], %{{.*}})
// CHECK-NEXT: "nvasync.bulk_commit"()
// CHECK: memref.store %{{.*}}, %[[T2]][%thread_id_x]
// CHECK-NOT: nvasync.sync_threads
// CHECK: scf.if %[[E]] {
// CHECK-NEXT: "nvasync.bulk_wait"() {{.*}}pending = 1 : i32, read = true}
// CHECK-NEXT: } {fuser.derived
// CHECK-NEXT: "nvasync.fence_proxy_async"()
// CHECK-NEXT: "nvasync.sync_threads"()
// CHECK-NEXT: scf.if %[[E]] {
// CHECK-NEXT: arith.index_cast
// CHECK-NEXT: "nvasync.tma_store"(%{{.*}}, %[[T2]], %{{.*}})
// CHECK-NEXT: "nvasync.bulk_commit"()
// CHECK-NOT: nvasync.sync_threads
// CHECK: scf.if %[[E]] {
// CHECK-NEXT: "nvasync.bulk_wait"() {{.*}}pending = 0 : i32, read = true}
// CHECK-NEXT: } {fuser.derived
// CHECK-NEXT: gpu.return

!tile = memref<256xf32, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @double_buffered(%desc: !llvm.ptr, %in: memref<?xf32>, %rounds: index) kernel attributes {gpu.known_block_size = array<i32: 256, 1, 1>} {
    %out0 = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !tile
    %out1 = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> !tile
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %c256 = arith.constant 256 : index
    %tid = gpu.thread_id x
    %w0 = arith.cmpi ult, %tid, %c32 : index
    %el = "nvasync.elect_one"() : () -> i1
    %e = arith.andi %w0, %el : i1
    scf.for %r = %c0 to %rounds step %c1 {
      %r2 = arith.muli %r, %c2 : index
      // stage 0
      %t0 = arith.addi %r2, %c0 : index
      %g0 = arith.muli %t0, %c256 : index
      %a0 = arith.addi %g0, %tid : index
      %v0 = memref.load %in[%a0] : memref<?xf32>
      memref.store %v0, %out0[%tid] : !tile
      scf.if %e {
        %x0 = arith.index_cast %g0 : index to i32
        "nvasync.tma_store"(%desc, %out0, %x0) : (!llvm.ptr, !tile, i32) -> ()
      }
      // stage 1
      %t1 = arith.addi %r2, %c1 : index
      %g1 = arith.muli %t1, %c256 : index
      %a1 = arith.addi %g1, %tid : index
      %v1 = memref.load %in[%a1] : memref<?xf32>
      memref.store %v1, %out1[%tid] : !tile
      scf.if %e {
        %x1 = arith.index_cast %g1 : index to i32
        "nvasync.tma_store"(%desc, %out1, %x1) : (!llvm.ptr, !tile, i32) -> ()
      }
    }
    gpu.return
  }
  gpu.func @triple_buffered_guarded(%desc: !llvm.ptr, %in: memref<?xf32>, %tiles: index) kernel attributes {gpu.known_block_size = array<i32: 256, 1, 1>} {
    %out0 = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !tile
    %out1 = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> !tile
    %out2 = "nvasync.smem_buffer"() {offset = 2048 : i64} : () -> !tile
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c32 = arith.constant 32 : index
    %c256 = arith.constant 256 : index
    %tid = gpu.thread_id x
    %w0 = arith.cmpi ult, %tid, %c32 : index
    %el = "nvasync.elect_one"() : () -> i1
    %e = arith.andi %w0, %el : i1
    %rounds = arith.ceildivui %tiles, %c3 : index
    scf.for %r = %c0 to %rounds step %c1 {
      %r3 = arith.muli %r, %c3 : index
      // stage 0: tile r*3 + 0
      %t0 = arith.addi %r3, %c0 : index
      %in0 = arith.cmpi ult, %t0, %tiles : index
      scf.if %in0 {
        %g0 = arith.muli %t0, %c256 : index
        %a0 = arith.addi %g0, %tid : index
        %v0 = memref.load %in[%a0] : memref<?xf32>
        memref.store %v0, %out0[%tid] : !tile
        scf.if %e {
          %x0 = arith.index_cast %g0 : index to i32
          "nvasync.tma_store"(%desc, %out0, %x0) : (!llvm.ptr, !tile, i32) -> ()
        }
      }
      // stage 1: tile r*3 + 1
      %t1 = arith.addi %r3, %c1 : index
      %in1 = arith.cmpi ult, %t1, %tiles : index
      scf.if %in1 {
        %g1 = arith.muli %t1, %c256 : index
        %a1 = arith.addi %g1, %tid : index
        %v1 = memref.load %in[%a1] : memref<?xf32>
        memref.store %v1, %out1[%tid] : !tile
        scf.if %e {
          %x1 = arith.index_cast %g1 : index to i32
          "nvasync.tma_store"(%desc, %out1, %x1) : (!llvm.ptr, !tile, i32) -> ()
        }
      }
      // stage 2: tile r*3 + 2
      %t2 = arith.addi %r3, %c2 : index
      %in2 = arith.cmpi ult, %t2, %tiles : index
      scf.if %in2 {
        %g2 = arith.muli %t2, %c256 : index
        %a2 = arith.addi %g2, %tid : index
        %v2 = memref.load %in[%a2] : memref<?xf32>
        memref.store %v2, %out2[%tid] : !tile
        scf.if %e {
          %x2 = arith.index_cast %g2 : index to i32
          "nvasync.tma_store"(%desc, %out2, %x2) : (!llvm.ptr, !tile, i32) -> ()
        }
      }
    }
    gpu.return
  }
}
}


// RAW: tma_store_multibuffer.mlir:[[#@LINE-78]]:9: error: unsynchronized hazard: generic writes read by the async proxy without fence.proxy.async: 'memref.store' at [[#@LINE-81]]:7 -> 'nvasync.tma_store' at [[#@LINE-78]]:9
// RAW: tma_store_multibuffer.mlir:[[#@LINE-82]]:7: error: unsynchronized hazard: TMA store never committed before its smem is rewritten: 'nvasync.tma_store' at [[#@LINE-79]]:9 -> 'memref.store' at [[#@LINE-82]]:7
// RAW: tma_store_multibuffer.mlir:[[#@LINE-70]]:9: error: unsynchronized hazard: generic writes read by the async proxy without fence.proxy.async: 'memref.store' at [[#@LINE-73]]:7 -> 'nvasync.tma_store' at [[#@LINE-70]]:9
// RAW: tma_store_multibuffer.mlir:[[#@LINE-74]]:7: error: unsynchronized hazard: TMA store never committed before its smem is rewritten: 'nvasync.tma_store' at [[#@LINE-71]]:9 -> 'memref.store' at [[#@LINE-74]]:7
// RAW: tma_store_multibuffer.mlir:[[#@LINE-82]]:9: error: unsynchronized hazard: TMA store may still read smem at kernel exit (no covering commit + wait_group): 'nvasync.tma_store' at [[#@LINE-82]]:9
// RAW: tma_store_multibuffer.mlir:[[#@LINE-73]]:9: error: unsynchronized hazard: TMA store may still read smem at kernel exit (no covering commit + wait_group): 'nvasync.tma_store' at [[#@LINE-73]]:9
// RAW: tma_store_multibuffer.mlir:[[#@LINE-42]]:11: error: unsynchronized hazard: generic writes read by the async proxy without fence.proxy.async: 'memref.store' at [[#@LINE-45]]:9 -> 'nvasync.tma_store' at [[#@LINE-42]]:11
// RAW: tma_store_multibuffer.mlir:[[#@LINE-46]]:9: error: unsynchronized hazard: TMA store never committed before its smem is rewritten: 'nvasync.tma_store' at [[#@LINE-43]]:11 -> 'memref.store' at [[#@LINE-46]]:9
// RAW: tma_store_multibuffer.mlir:[[#@LINE-31]]:11: error: unsynchronized hazard: generic writes read by the async proxy without fence.proxy.async: 'memref.store' at [[#@LINE-34]]:9 -> 'nvasync.tma_store' at [[#@LINE-31]]:11
// RAW: tma_store_multibuffer.mlir:[[#@LINE-35]]:9: error: unsynchronized hazard: TMA store never committed before its smem is rewritten: 'nvasync.tma_store' at [[#@LINE-32]]:11 -> 'memref.store' at [[#@LINE-35]]:9
// RAW: tma_store_multibuffer.mlir:[[#@LINE-20]]:11: error: unsynchronized hazard: generic writes read by the async proxy without fence.proxy.async: 'memref.store' at [[#@LINE-23]]:9 -> 'nvasync.tma_store' at [[#@LINE-20]]:11
// RAW: tma_store_multibuffer.mlir:[[#@LINE-24]]:9: error: unsynchronized hazard: TMA store never committed before its smem is rewritten: 'nvasync.tma_store' at [[#@LINE-21]]:11 -> 'memref.store' at [[#@LINE-24]]:9
// RAW: tma_store_multibuffer.mlir:[[#@LINE-48]]:11: error: unsynchronized hazard: TMA store may still read smem at kernel exit (no covering commit + wait_group): 'nvasync.tma_store' at [[#@LINE-48]]:11
// RAW: tma_store_multibuffer.mlir:[[#@LINE-36]]:11: error: unsynchronized hazard: TMA store may still read smem at kernel exit (no covering commit + wait_group): 'nvasync.tma_store' at [[#@LINE-36]]:11
// RAW: tma_store_multibuffer.mlir:[[#@LINE-24]]:11: error: unsynchronized hazard: TMA store may still read smem at kernel exit (no covering commit + wait_group): 'nvasync.tma_store' at [[#@LINE-24]]:11
// RAW-NOT: error:
