// nvasync.tma_load lowers to nvvm.cp.async.bulk.tensor.shared.cluster.global and then to
// cp.async.bulk.tensor.Nd.shared::cluster.global.tile.mbarrier::complete_tx::bytes.  Rules checked:
//   * nvasync coordinates are outermost-first; PTX wants innermost-first, so (%outer, %inner)
//     becomes box[%inner, %outer] / {inner, outer};
//   * the mbarrier is barriers[stage] (stage 1 of an i64 array at offset 0 is byte 8);
//   * kernel ABI: the descriptor argument is recorded in fuser.tensormap_args and passed by value
//     (.param .align 64 .b8 k_param_0[128]); dynamic smem is .extern .shared .align 1024.
// RUN: fuser-opt %s -p fuser-lower-nvasync | FileCheck %s --check-prefix=NVVM
// RUN: fuser-opt %s --emit=ptx -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx && %ptxas %t.ptx -o %t.cubin

// NVVM-NOT: nvasync.
// NVVM: gpu.func @k(
// NVVM-SAME: %[[DESC:[a-z0-9]+]]: !llvm.ptr, %[[OUTER:[a-z0-9]+]]: i32, %[[INNER:[a-z0-9]+]]: i32)
// NVVM-SAME: fuser.dynamic_smem_bytes = 9216 : i64, fuser.tensormap_args = array<i32: 0>
// NVVM: nvvm.elect.sync
// NVVM: scf.if
// NVVM: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[DESC]], %{{.*}}, box[%[[INNER]], %[[OUTER]]] : !llvm.ptr<7>, !llvm.ptr
// NVVM-NOT: nvasync.

// PTX: .extern .shared .align 1024 .b8 __dynamic_shmem__0[];
// PTX: .visible .entry k(
// PTX-NEXT: .param .align 64 .b8 k_param_0[128],
// PTX-NEXT: .param .u32 k_param_1,
// PTX-NEXT: .param .u32 k_param_2
// PTX-NEXT: )
// PTX-DAG: ld.param.b32 [[OUTER:%r[0-9]+]], [k_param_1];
// PTX-DAG: ld.param.b32 [[INNER:%r[0-9]+]], [k_param_2];
// PTX: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd{{[0-9]+}}], [%rd{{[0-9]+}}, {[[INNER]], [[OUTER]]}], [__dynamic_shmem__0+8];

!bars = memref<2xi64, #gpu.address_space<workgroup>>
!box = memref<64x64xbf16, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%desc: !llvm.ptr, %outer: i32, %inner: i32) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %bars = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !bars
    %buf = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> !box
    %c1 = arith.constant 1 : index
    %elected = "nvasync.elect_one"() : () -> i1
    scf.if %elected {
      "nvasync.tma_load"(%desc, %buf, %bars, %c1, %outer, %inner) : (!llvm.ptr, !box, !bars, index, i32, i32) -> ()
    }
    gpu.return
  }
}
}
