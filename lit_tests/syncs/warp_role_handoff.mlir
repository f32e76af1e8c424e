// Rule (warp roles hand a buffer on through mbarriers): the nvasync.warp_role regions of a kernel
// run concurrently, so no barrier can order an access in one role before an access in another (a
// barrier between the roles would hold the second until the first ends, and deadlock where the
// first waits on the second).  An mbarrier handoff orders them instead: the role that accessed
// the buffer arrives on an mbarrier after its access, the other waits on it before its own.
// fuser-insert-syncs derives no barrier for such a hazard, only what the handoff needs beside the
// arrive: a TMA store's `wait_group.read` on its issuer before the issuer's arrive that hands the
// buffer back; fuser-insert-proxy-fences puts the writers' `fence.proxy.async` right before
// their arrive where the other role's async proxy reads what they wrote.  fuser-verify-syncs
// checks each pair in the protocol's order: the earlier iteration first, in one iteration the
// write (each role's i-th use pairs with the other's i-th); fuser-verify-pipelines the phases.
//  * @handoff: warps 0-7 store buf[tid] and arrive on full; warps 8-11 wait on full, load
//    buf[tid - 128] (other threads' elements) and arrive on empty, which the writers wait on
//    before they store again.
//  * @handoff_to_store: the same writers; warp 8's elected lane waits on full, TMA-stores buf and
//    arrives on empty (count 1).
// RUN: fuser-opt %s -p fuser-insert-syncs -p fuser-insert-proxy-fences | FileCheck %s
// RUN: fuser-opt %s -p fuser-insert-syncs -p fuser-insert-proxy-fences | fuser-opt -p fuser-verify-syncs -p fuser-verify-pipelines -o /dev/null

// CHECK-LABEL: gpu.func @handoff
// CHECK: "nvasync.fence_mbarrier_init"
// CHECK: "nvasync.sync_threads"() {fuser.derived = "RAW: nvasync.mbarrier_init
// CHECK-NOT: nvasync.sync_threads
// CHECK-NOT: nvasync.named_barrier
// CHECK: gpu.return

// CHECK-LABEL: gpu.func @handoff_to_store
// CHECK: "nvasync.sync_threads"() {fuser.derived = "RAW: nvasync.mbarrier_init
// CHECK-NOT: nvasync.sync_threads
// CHECK: "nvasync.tma_store"
// CHECK-NEXT: "nvasync.bulk_commit"
// CHECK-NEXT: "nvasync.bulk_wait"() {fuser.derived = "WAR: nvasync.tma_store@{{[0-9:]+}} reads smem -> memref.store@{{[0-9:]+}}", pending = 0 : i32, read = true}
// CHECK-NEXT: "nvasync.mbarrier_arrive"
// CHECK: memref.store %{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: "nvasync.fence_proxy_async"() {fuser.derived = "generic writes -> async proxy, handed on by an mbarrier: memref.store@{{[0-9:]+}} -> nvasync.tma_store@{{[0-9:]+}}", space = "shared::cta"}
// CHECK-NEXT: "nvasync.mbarrier_arrive"
// CHECK-NOT: nvasync.sync_threads
// CHECK: gpu.return

!buf = memref<256xf32, #gpu.address_space<workgroup>>
!bars = memref<2xi64, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @handoff(%in: memref<384xf32>, %out: memref<384xf32>, %n: index) kernel attributes {gpu.known_block_size = array<i32: 384, 1, 1>} {
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !buf
    %bars = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> !bars
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %one = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %w0 = arith.cmpi ult, %tid, %c32 : index
    %el = "nvasync.elect_one"() : () -> i1
    %e = arith.andi %w0, %el : i1
    scf.if %e {
      "nvasync.mbarrier_init"(%bars, %c0) {count = 256 : i32} : (!bars, index) -> ()
      "nvasync.mbarrier_init"(%bars, %c1) {count = 128 : i32} : (!bars, index) -> ()
    }
    "nvasync.warp_role"() ({
      scf.for %i = %c0 to %n step %c1 {
        %i32 = arith.index_cast %i : index to i32
        %p = arith.andi %i32, %one : i32
        "nvasync.mbarrier_try_wait_parity"(%bars, %c0, %p) : (!bars, index, i32) -> ()
        %j = arith.subi %tid, %c128 : index
        %x = memref.load %buf[%j] : !buf
        memref.store %x, %out[%tid] : memref<384xf32>
        "nvasync.mbarrier_arrive"(%bars, %c1) : (!bars, index) -> ()
      }
      gpu.yield
    }) {first_warp = 8 : i32, num_warps = 4 : i32} : () -> ()
    "nvasync.warp_role"() ({
      scf.for %i = %c0 to %n step %c1 {
        %i32 = arith.index_cast %i : index to i32
        %p = arith.andi %i32, %one : i32
        %q = arith.xori %p, %one : i32
        "nvasync.mbarrier_try_wait_parity"(%bars, %c1, %q) : (!bars, index, i32) -> ()
        %v = memref.load %in[%tid] : memref<384xf32>
        memref.store %v, %buf[%tid] : !buf
        "nvasync.mbarrier_arrive"(%bars, %c0) : (!bars, index) -> ()
      }
      gpu.yield
    }) {first_warp = 0 : i32, num_warps = 8 : i32} : () -> ()
    gpu.return
  }

  gpu.func @handoff_to_store(%desc: !llvm.ptr, %in: memref<384xf32>, %n: index) kernel attributes {gpu.known_block_size = array<i32: 384, 1, 1>} {
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !buf
    %bars = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> !bars
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %one = arith.constant 1 : i32
    %tid = gpu.thread_id x
    %warp = arith.divui %tid, %c32 : index
    %w8 = arith.cmpi eq, %warp, %c8 : index
    %el = "nvasync.elect_one"() : () -> i1
    %issuer = arith.andi %w8, %el : i1
    scf.if %issuer {
      "nvasync.mbarrier_init"(%bars, %c0) {count = 256 : i32} : (!bars, index) -> ()
      "nvasync.mbarrier_init"(%bars, %c1) {count = 1 : i32} : (!bars, index) -> ()
    }
    "nvasync.warp_role"() ({
      scf.for %i = %c0 to %n step %c1 {
        %i32 = arith.index_cast %i : index to i32
        %p = arith.andi %i32, %one : i32
        scf.if %issuer {
          "nvasync.mbarrier_try_wait_parity"(%bars, %c0, %p) : (!bars, index, i32) -> ()
          "nvasync.tma_store"(%desc, %buf, %i32) : (!llvm.ptr, !buf, i32) -> ()
          "nvasync.mbarrier_arrive"(%bars, %c1) : (!bars, index) -> ()
        }
      }
      gpu.yield
    }) {first_warp = 8 : i32, num_warps = 4 : i32} : () -> ()
    "nvasync.warp_role"() ({
      scf.for %i = %c0 to %n step %c1 {
        %i32 = arith.index_cast %i : index to i32
        %p = arith.andi %i32, %one : i32
        %q = arith.xori %p, %one : i32
        "nvasync.mbarrier_try_wait_parity"(%bars, %c1, %q) : (!bars, index, i32) -> ()
        %v = memref.load %in[%tid] : memref<384xf32>
        memref.store %v, %buf[%tid] : !buf
        "nvasync.mbarrier_arrive"(%bars, %c0) : (!bars, index) -> ()
      }
      gpu.yield
    }) {first_warp = 0 : i32, num_warps = 8 : i32} : () -> ()
    gpu.return
  }
}
}
