// nvasync.mbarrier_arrive on barriers[stage] lowers to nvvm.mbarrier.arrive (returning the i64
// state) and then to mbarrier.arrive.shared.b64 state, [addr].  The stage is a runtime index
// here, so the address is base + 8 * stage.
// RUN: fuser-opt %s -p fuser-lower-nvasync | FileCheck %s --check-prefix=NVVM
// RUN: fuser-opt %s --emit=ptx -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx && %ptxas %t.ptx -o %t.cubin

// NVVM-NOT: nvasync.
// NVVM: %[[C8:.*]] = arith.constant 8 : index
// NVVM: arith.muli %{{.*}}, %[[C8]] : index
// NVVM: %[[PTR:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<3>
// NVVM-NEXT: nvvm.mbarrier.arrive %[[PTR]] : !llvm.ptr<3> -> i64
// NVVM-NOT: nvasync.

// PTX: ld.param.b64 [[STAGE:%rd[0-9]+]], [k_param_0];
// PTX-NEXT: shl.b64 [[OFF:%rd[0-9]+]], [[STAGE]], 3;
// PTX-NEXT: mov.b64 [[BASE:%rd[0-9]+]], __dynamic_shmem__0;
// PTX-NEXT: add.s64 [[ADDR:%rd[0-9]+]], [[OFF]], [[BASE]];
// PTX-NEXT: mbarrier.arrive.shared.b64 %rd{{[0-9]+}}, [[[ADDR]]];

!bars = memref<4xi64, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%stage: index) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %bars = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !bars
    "nvasync.mbarrier_arrive"(%bars, %stage) : (!bars, index) -> ()
    gpu.return
  }
}
}
