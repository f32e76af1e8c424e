// fuser-pipeline-mbarriers, mode `warp_specialized`, two producer roles: each role's warp (in a
// producer warpgroup after the consumer warps) has its own full/empty pair; consumers wait on
// both roles' full barriers and release each stage with one arrival per warp; setmaxnreg moves
// registers from the producers to the consumers within the SM's budget.
// RUN: fuser-opt %s -p fuser-pipeline-mbarriers | FileCheck %s
// RUN: fuser-opt %s -p fuser-pipeline-mbarriers -p fuser-insert-syncs -p fuser-verify-pipelines --emit=ptx -o %t.ptx
// RUN: %ptxas %t.ptx -o %t.cubin

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @two_roles(%da: !llvm.ptr, %db: !llvm.ptr, %n: index, %out: memref<256xf32>) kernel attributes {gpu.known_block_size = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %a = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<64x64xbf16, #gpu.address_space<workgroup>>
    %b = "nvasync.smem_buffer"() {offset = 8192 : i64} : () -> memref<64x64xbf16, #gpu.address_space<workgroup>>
    %tid = gpu.thread_id x
    %col = arith.remui %tid, %c1 : index
    scf.for %i = %c0 to %n step %c1 {
      %k = arith.index_cast %i : index to i32
      %c64 = arith.constant 64 : i32
      %x = arith.muli %k, %c64 : i32
      %c0_i32 = arith.constant 0 : i32
      "nvasync.pipeline_load"(%da, %a, %c0_i32, %x) {role = "a"} : (!llvm.ptr, memref<64x64xbf16, #gpu.address_space<workgroup>>, i32, i32) -> ()
      "nvasync.pipeline_load"(%db, %b, %x, %c0_i32) {role = "b"} : (!llvm.ptr, memref<64x64xbf16, #gpu.address_space<workgroup>>, i32, i32) -> ()
      %row = arith.remui %tid, %c1 : index
      %va = memref.load %a[%row, %col] : memref<64x64xbf16, #gpu.address_space<workgroup>>
      %vb = memref.load %b[%row, %col] : memref<64x64xbf16, #gpu.address_space<workgroup>>
      %p = arith.mulf %va, %vb : bf16
      %f = arith.extf %p : bf16 to f32
      memref.store %f, %out[%tid] : memref<256xf32>
    } {nvasync.pipeline = {stages = 3 : i64, mode = "warp_specialized", producer_regs = 40 : i64, consumer_regs = 232 : i64}}
    gpu.return
  }
}
}

// CHECK: gpu.func @two_roles{{.*}}gpu.known_block_size = array<i32: 384, 1, 1>
// CHECK-DAG: %[[FA:.*]] = "nvasync.smem_buffer"() {offset = 49152 : i64} : () -> memref<3xi64
// CHECK-DAG: %[[EA:.*]] = "nvasync.smem_buffer"() {offset = 49184 : i64} : () -> memref<3xi64
// CHECK-DAG: %[[FB:.*]] = "nvasync.smem_buffer"() {offset = 49216 : i64} : () -> memref<3xi64
// CHECK-DAG: %[[EB:.*]] = "nvasync.smem_buffer"() {offset = 49248 : i64} : () -> memref<3xi64
// CHECK: "nvasync.mbarrier_init"(%[[FA]], %{{.*}}) {count = 1 : i32
// CHECK: "nvasync.mbarrier_init"(%[[EA]], %{{.*}}) {count = 8 : i32
// Producer warpgroup: warps 8-11, setmaxnreg.dec, warp 8 loads A, warp 9 loads B.
// CHECK: "nvasync.warp_role"() ({
// CHECK: "nvasync.setmaxnreg"() {action = "dec", regs = 40 : i32}
// CHECK: arith.cmpi eq, %{{.*}}, %c8
// CHECK: "nvasync.mbarrier_try_wait_parity"(%[[EA]]
// CHECK: "nvasync.mbarrier_arrive_expect_tx"(%[[FA]], %{{.*}}) {bytes = 8192 : i32
// CHECK: "nvasync.tma_load"(%arg0, %{{.*}}, %[[FA]]
// CHECK-NOT: "nvasync.tma_load"(%arg1, %{{.*}}, %[[FA]]
// CHECK: arith.cmpi eq, %{{.*}}, %c9
// CHECK: "nvasync.mbarrier_try_wait_parity"(%[[EB]]
// CHECK: "nvasync.tma_load"(%arg1, %{{.*}}, %[[FB]]
// CHECK: }) {first_warp = 8 : i32, num_warps = 4 : i32}
// Consumers: warps 0-7, setmaxnreg.inc, wait on both roles, one arrival per warp on each empty.
// CHECK: "nvasync.warp_role"() ({
// CHECK: "nvasync.setmaxnreg"() {action = "inc", regs = 232 : i32}
// CHECK: "nvasync.mbarrier_try_wait_parity"(%[[FA]]
// CHECK: "nvasync.mbarrier_try_wait_parity"(%[[FB]]
// CHECK: memref.load
// CHECK: "nvasync.warp_sync"
// CHECK: "nvasync.mbarrier_arrive"(%[[EA]]
// CHECK: "nvasync.mbarrier_arrive"(%[[EB]]
// CHECK: }) {first_warp = 0 : i32, num_warps = 8 : i32}
// CHECK-COUNT-12: "nvasync.mbarrier_inval"
