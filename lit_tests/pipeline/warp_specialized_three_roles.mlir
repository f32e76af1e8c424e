// Three producer roles (A, B and an epilogue operand C), two stages, no register budgets: three
// producer warps with a full/empty pair each; the consumer warpgroup waits on all three.  The
// protocol checker explores trip counts 0..5 (idle, fewer than, equal to and more than the
// stages) and finds every role in every phase; PTX assembles.
// RUN: fuser-opt %s -p fuser-pipeline-mbarriers | FileCheck %s
// RUN: fuser-opt %s -p fuser-pipeline-mbarriers -p fuser-insert-syncs -p fuser-verify-pipelines --emit=ptx -o %t.ptx
// RUN: %ptxas %t.ptx -o %t.cubin

!tile = memref<32x64xf16, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @three_roles(%da: !llvm.ptr, %db: !llvm.ptr, %dc: !llvm.ptr, %n: index, %out: memref<128xf16>) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %a = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !tile
    %b = "nvasync.smem_buffer"() {offset = 4096 : i64} : () -> !tile
    %c = "nvasync.smem_buffer"() {offset = 8192 : i64} : () -> !tile
    %tid = gpu.thread_id x
    %c32 = arith.constant 32 : index
    %row = arith.remui %tid, %c32 : index
    scf.for %i = %c0 to %n step %c1 {
      %k = arith.index_cast %i : index to i32
      %c0_i32 = arith.constant 0 : i32
      "nvasync.pipeline_load"(%da, %a, %k, %c0_i32) {role = "a"} : (!llvm.ptr, !tile, i32, i32) -> ()
      "nvasync.pipeline_load"(%db, %b, %c0_i32, %k) {role = "b"} : (!llvm.ptr, !tile, i32, i32) -> ()
      "nvasync.pipeline_load"(%dc, %c, %k, %k) {role = "c"} : (!llvm.ptr, !tile, i32, i32) -> ()
      %va = memref.load %a[%row, %c0] : !tile
      %vb = memref.load %b[%row, %c1] : !tile
      %vc = memref.load %c[%row, %c0] : !tile
      %ab = arith.mulf %va, %vb : f16
      %r = arith.addf %ab, %vc : f16
      memref.store %r, %out[%tid] : memref<128xf16>
    } {nvasync.pipeline = {stages = 2 : i64, mode = "warp_specialized"}}
    gpu.return
  }
}
}

// CHECK: gpu.func @three_roles{{.*}}gpu.known_block_size = array<i32: 256, 1, 1>
// CHECK-COUNT-6: "nvasync.mbarrier_init"({{.*}}) {count = {{1|4}} : i32
// CHECK-NOT: setmaxnreg
// CHECK: arith.cmpi eq, %{{.*}}, %c4
// CHECK: "nvasync.tma_load"(%arg0
// CHECK: arith.cmpi eq, %{{.*}}, %c5
// CHECK: "nvasync.tma_load"(%arg1
// CHECK: arith.cmpi eq, %{{.*}}, %c6
// CHECK: "nvasync.tma_load"(%arg2
// CHECK: }) {first_warp = 4 : i32, num_warps = 4 : i32}
// CHECK-COUNT-3: "nvasync.mbarrier_try_wait_parity"
// CHECK: "nvasync.warp_sync"
// CHECK-COUNT-3: "nvasync.mbarrier_arrive"(
// CHECK: }) {first_warp = 0 : i32, num_warps = 4 : i32}
