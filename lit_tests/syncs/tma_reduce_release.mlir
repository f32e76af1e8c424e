// Rule: a TMA reduce-store (split-K partial) followed by a semaphore release.  `.read` only says
// the smem source was read; other CTAs must see the global writes, so the issuer waits
// `cp.async.bulk.wait_group 0` WITHOUT `.read` before `red.release.gpu`; that wait also covers
// kernel exit, so no second wait is added.
// RUN: fuser-opt %s -p fuser-insert-syncs -p fuser-insert-proxy-fences | FileCheck %s
// RUN: fuser-opt %s -p fuser-insert-syncs -p fuser-insert-proxy-fences -p fuser-verify-syncs -o /dev/null
// RUN: not fuser-opt %s -p fuser-verify-syncs 2>&1 | FileCheck %s --check-prefix=RAW
// RUN: fuser-opt %s -p fuser-insert-syncs -p fuser-insert-proxy-fences --emit=ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx && %ptxas %t.ptx -o %t.cubin

// CHECK: vector.store
// CHECK-NEXT: "nvasync.fence_proxy_async"() {fuser.derived = {{.*}}space = "shared::cta"
// CHECK-NEXT: "nvasync.sync_threads"() {fuser.derived
// CHECK-NEXT: scf.if
// CHECK-NEXT: "nvasync.tma_reduce"
// CHECK-NEXT: "nvasync.bulk_commit"() {fuser.derived
// CHECK-NEXT: "nvasync.bulk_wait"() {fuser.derived = "global writes of {{.*}}pending = 0 : i32, read = false}
// CHECK-NEXT: "nvasync.release_flag"
// CHECK-NEXT: }
// CHECK-NEXT: gpu.return

// RAW: error: unsynchronized hazard: generic writes read by the async proxy without fence.proxy.async
// RAW: error: unsynchronized hazard: semaphore released before the TMA store's global writes completed

// PTX: cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group
// PTX-NEXT: cp.async.bulk.commit_group;
// PTX-NEXT: cp.async.bulk.wait_group 0;
// PTX: red.release.gpu.global.add.s32
// PTX-NOT: cp.async.bulk.wait_group
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @split_k_partial(%desc: !llvm.ptr, %flag: !llvm.ptr, %m: i32, %n: i32) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %tile = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> memref<64x64xf32, #gpu.address_space<workgroup>>
    %flat = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> memref<4096xf32, #gpu.address_space<workgroup>>
    %tid = gpu.thread_id x
    %c32 = arith.constant 32 : index
    %c8 = arith.constant 8 : index
    %one = arith.constant 1 : i32
    %w0 = arith.cmpi ult, %tid, %c32 : index
    %el = "nvasync.elect_one"() : () -> i1
    %issuer = arith.andi %w0, %el : i1
    %e = arith.muli %tid, %c8 : index
    %v = arith.constant dense<1.0> : vector<8xf32>
    vector.store %v, %flat[%e] : memref<4096xf32, #gpu.address_space<workgroup>>, vector<8xf32>
    scf.if %issuer {
      "nvasync.tma_reduce"(%desc, %tile, %m, %n) {kind = "add"} : (!llvm.ptr, memref<64x64xf32, #gpu.address_space<workgroup>>, i32, i32) -> ()
      "nvasync.release_flag"(%flag, %one) : (!llvm.ptr, i32) -> ()
    }
    gpu.return
  }
}
}
