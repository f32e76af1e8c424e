// nvasync.tma_store lowers to nvvm.cp.async.bulk.tensor.global.shared.cta and then to
// cp.async.bulk.tensor.Nd.global.shared::cta.tile.bulk_group.  Rules checked: a 3-D box gives a
// .3d instruction; coordinates (%c0, %c1, %c2), written outermost-first, reach PTX
// innermost-first as {c2, c1, c0}; the source is the smem buffer at its byte offset (1024);
// the descriptor argument is recorded in fuser.tensormap_args.
// RUN: fuser-opt %s -p fuser-lower-nvasync | FileCheck %s --check-prefix=NVVM
// RUN: fuser-opt %s --emit=ptx -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx && %ptxas %t.ptx -o %t.cubin

// NVVM-NOT: nvasync.
// NVVM: gpu.func @k(%[[DESC:[a-z0-9]+]]: !llvm.ptr, %[[C0:[a-z0-9]+]]: i32, %[[C1:[a-z0-9]+]]: i32, %[[C2:[a-z0-9]+]]: i32)
// NVVM-SAME: fuser.tensormap_args = array<i32: 0>
// NVVM: scf.if
// NVVM: nvvm.cp.async.bulk.tensor.global.shared.cta %[[DESC]], %{{.*}}, box[%[[C2]], %[[C1]], %[[C0]]] : !llvm.ptr, <3>
// NVVM-NOT: nvasync.

// PTX: .param .align 64 .b8 k_param_0[128],
// PTX-DAG: ld.param.b32 [[C0:%r[0-9]+]], [k_param_1];
// PTX-DAG: ld.param.b32 [[C1:%r[0-9]+]], [k_param_2];
// PTX-DAG: ld.param.b32 [[C2:%r[0-9]+]], [k_param_3];
// PTX: cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [%rd{{[0-9]+}}, {[[C2]], [[C1]], [[C0]]}], [__dynamic_shmem__0+1024];

!box = memref<4x8x64xf16, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%desc: !llvm.ptr, %c0: i32, %c1: i32, %c2: i32) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %buf = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> !box
    %elected = "nvasync.elect_one"() : () -> i1
    scf.if %elected {
      "nvasync.tma_store"(%desc, %buf, %c0, %c1, %c2) : (!llvm.ptr, !box, i32, i32, i32) -> ()
    }
    gpu.return
  }
}
}
