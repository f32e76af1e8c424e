// A buffer the kernel also uses outside a pipelined loop is one memory for every stage: the tile an
// epilogue stages after one K loop and finishes inside the next one's steps, beside the wgmmas.
//   * the stage buffers (A, B) get a copy a stage; the tile keeps its one smem_buffer;
//   * its reads in the K step run after the step's wgmmas are committed and before the wait
//     that retires them (fuser-flush-wgmma waits only before the release);
//   * its hazards are the sync passes': the store before the loop reaches the loads through the
//     barrier after the mbarrier inits; the loads before the store after the loop get a barrier.
// RUN: fuser-opt %s -p fuser-pipeline-mbarriers -p fuser-insert-syncs -p fuser-insert-proxy-fences -p fuser-flush-wgmma -p fuser-verify-syncs -p fuser-verify-pipelines | FileCheck %s

// CHECK-LABEL: gpu.func @beside(
// CHECK-COUNT-4: "nvasync.smem_buffer"() {offset = {{[0-9]+}} : i64} : () -> memref<64x64xf16
// CHECK-NEXT: %[[TILE:.*]] = "nvasync.smem_buffer"() {offset = 16384 : i64} : () -> memref<128xf32
// CHECK-NOT: memref<128xf32, #gpu.address_space<workgroup>>
// CHECK: memref.store %{{.*}}, %[[TILE]][
// CHECK: "nvasync.sync_threads"() {fuser.derived = "RAW: nvasync.mbarrier_init
// CHECK: "nvasync.warp_role"
// CHECK: "nvasync.warp_role"
// CHECK: "nvasync.mbarrier_try_wait_parity"({{.*}}) {fuser.pipeline = "full[tiles]: wait"}
// CHECK: "nvasync.wgmma_commit"() {fuser.derived = "commit the wgmma group before scf.if
// CHECK-NEXT: scf.if
// CHECK: memref.load %[[TILE]][
// CHECK: "nvasync.wgmma_wait"() {fuser.derived = "wgmma still reads its smem operands: wait before the empty-barrier arrive
// CHECK: "nvasync.mbarrier_arrive"({{.*}}) {fuser.pipeline = "empty[tiles]: arrive (consumer warp)"}
// The second stage of the unrolled round reads the same tile.
// CHECK: "nvasync.wgmma_commit"() {fuser.derived = "commit the wgmma group before scf.if
// CHECK-NEXT: scf.if
// CHECK: memref.load %[[TILE]][
// CHECK: "nvasync.wgmma_wait"
// CHECK: "nvasync.named_barrier"() {fuser.derived = "WAR: memref.load@{{[0-9:]+}} -> memref.store@{{[0-9:]+}}", id = 1 : i32, threads = 128 : i32}
// CHECK-NEXT: memref.store %{{.*}}, %[[TILE]][
// CHECK: gpu.return

#ws = #gpu.address_space<workgroup>
!t = memref<64x64xf16, #ws>
!s0 = memref<64x16xf16, strided<[64, 1]>, #ws>
!s1 = memref<64x16xf16, strided<[64, 1], offset: 16>, #ws>
!s2 = memref<64x16xf16, strided<[64, 1], offset: 32>, #ws>
!s3 = memref<64x16xf16, strided<[64, 1], offset: 48>, #ws>
!tile = memref<128xf32, #ws>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @beside(%da: !llvm.ptr, %db: !llvm.ptr, %c: !llvm.ptr<1>, %n: index) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %a = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !t
    %b = "nvasync.smem_buffer"() {offset = 8192 : i64} : () -> !t
    %tile = "nvasync.smem_buffer"() {offset = 16384 : i64} : () -> !tile
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c127 = arith.constant 127 : index
    %tid = gpu.thread_id x
    %one = arith.constant 1.0 : f32
    memref.store %one, %tile[%tid] : !tile
    %zero = arith.constant dense<0.0> : vector<32xf32>
    %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (vector<32xf32>) {
      %i32 = arith.index_cast %i : index to i32
      %c64 = arith.constant 64 : i32
      %kx = arith.muli %i32, %c64 : i32
      %c0_i32 = arith.constant 0 : i32
      "nvasync.pipeline_load"(%da, %a, %c0_i32, %kx) {role = "tiles"} : (!llvm.ptr, !t, i32, i32) -> ()
      "nvasync.pipeline_load"(%db, %b, %c0_i32, %kx) {role = "tiles"} : (!llvm.ptr, !t, i32, i32) -> ()
      %a0 = memref.subview %a[0, 0] [64, 16] [1, 1] : !t to !s0
      %a1 = memref.subview %a[0, 16] [64, 16] [1, 1] : !t to !s1
      %a2 = memref.subview %a[0, 32] [64, 16] [1, 1] : !t to !s2
      %a3 = memref.subview %a[0, 48] [64, 16] [1, 1] : !t to !s3
      %b0 = memref.subview %b[0, 0] [64, 16] [1, 1] : !t to !s0
      %b1 = memref.subview %b[0, 16] [64, 16] [1, 1] : !t to !s1
      %b2 = memref.subview %b[0, 32] [64, 16] [1, 1] : !t to !s2
      %b3 = memref.subview %b[0, 48] [64, 16] [1, 1] : !t to !s3
      %r0 = "nvasync.wgmma"(%a0, %b0, %acc) {swizzle = 128 : i32, accumulate = true} : (!s0, !s0, vector<32xf32>) -> vector<32xf32>
      %r1 = "nvasync.wgmma"(%a1, %b1, %r0) {swizzle = 128 : i32, accumulate = true} : (!s1, !s1, vector<32xf32>) -> vector<32xf32>
      %r2 = "nvasync.wgmma"(%a2, %b2, %r1) {swizzle = 128 : i32, accumulate = true} : (!s2, !s2, vector<32xf32>) -> vector<32xf32>
      %r3 = "nvasync.wgmma"(%a3, %b3, %r2) {swizzle = 128 : i32, accumulate = true} : (!s3, !s3, vector<32xf32>) -> vector<32xf32>
      %first = arith.cmpi eq, %i, %c0 : index
      scf.if %first {
        %next = arith.addi %tid, %c1 : index
        %other = arith.andi %next, %c127 : index
        %v = memref.load %tile[%other] : !tile
        %t64 = arith.index_cast %tid : index to i64
        %p = llvm.getelementptr %c[%t64] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
        llvm.store %v, %p : f32, !llvm.ptr<1>
      }
      scf.yield %r3 : vector<32xf32>
    } {nvasync.pipeline = {stages = 2 : i64, mode = "warp_specialized"}}
    %x = vector.extract %sum[0] : f32 from vector<32xf32>
    memref.store %x, %tile[%tid] : !tile
    gpu.return
  }
}
}
