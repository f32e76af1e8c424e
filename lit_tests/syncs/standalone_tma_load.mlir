// Rule (standalone TMA load): a TMA load whose mbarrier nobody initialises gets the single-use
// protocol -- the issuer initialises the mbarrier (count 1), fence.mbarrier_init and one barrier
// publish it, arrive.expect_tx announces the bytes of every box loaded on it (two 64x64 bf16
// boxes: 16384 bytes), and every consumer waits with parity 0 before its first read.  No proxy
// fence: mbarrier completion already orders TMA data for generic readers.
// RUN: fuser-opt %s -p fuser-insert-syncs -p fuser-insert-proxy-fences | FileCheck %s
// RUN: fuser-opt %s -p fuser-insert-syncs -p fuser-insert-proxy-fences -p fuser-verify-syncs -o /dev/null
// RUN: not fuser-opt %s -p fuser-verify-syncs 2>&1 | FileCheck %s --check-prefix=RAW
// RUN: fuser-opt %s -p fuser-insert-syncs -p fuser-insert-proxy-fences --emit=ptx -o %t.ptx && %ptxas %t.ptx -o %t.cubin

// CHECK: scf.if
// CHECK-NEXT: "nvasync.mbarrier_init"({{.*}}) {count = 1 : i32, fuser.derived = "standalone TMA load
// CHECK-NEXT: "nvasync.fence_mbarrier_init"() {fuser.derived
// CHECK: "nvasync.sync_threads"() {fuser.derived
// CHECK-NEXT: scf.if
// CHECK-NEXT: "nvasync.mbarrier_arrive_expect_tx"({{.*}}) {bytes = 16384 : i32, fuser.derived
// CHECK-NEXT: "nvasync.tma_load"
// CHECK-NEXT: "nvasync.tma_load"
// CHECK: "nvasync.mbarrier_try_wait_parity"({{.*}}) {fuser.derived
// CHECK-NEXT: vector.load
// CHECK-NOT: fence_proxy_async
// CHECK-NOT: sync_threads

// RAW: error: unsynchronized hazard: TMA load used without waiting on its mbarrier
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @load_then_read(%da: !llvm.ptr, %db: !llvm.ptr, %out: memref<1024xbf16>, %x: i32) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %bar = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<1xi64, #gpu.address_space<workgroup>>
    %a = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> memref<64x64xbf16, #gpu.address_space<workgroup>>
    %b = "nvasync.smem_buffer"() {offset = 9216 : i64} : () -> memref<64x64xbf16, #gpu.address_space<workgroup>>
    %flat = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> memref<8192xbf16, #gpu.address_space<workgroup>>
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %c8 = arith.constant 8 : index
    %tid = gpu.thread_id x
    %w0 = arith.cmpi ult, %tid, %c32 : index
    %el = "nvasync.elect_one"() : () -> i1
    %issuer = arith.andi %w0, %el : i1
    scf.if %issuer {
      "nvasync.tma_load"(%da, %a, %bar, %c0, %x, %x) : (!llvm.ptr, memref<64x64xbf16, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>, index, i32, i32) -> ()
      "nvasync.tma_load"(%db, %b, %bar, %c0, %x, %x) : (!llvm.ptr, memref<64x64xbf16, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>, index, i32, i32) -> ()
    }
    %e = arith.muli %tid, %c8 : index
    %v = vector.load %flat[%e] : memref<8192xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
    vector.store %v, %out[%e] : memref<1024xbf16>, vector<8xbf16>
    gpu.return
  }
}
}
