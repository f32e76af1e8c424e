// nvasync.tma_reduce {kind} lowers to nvvm.cp.async.bulk.tensor.reduce with
// #nvvm.tma_redux_kind<kind> and then to
// cp.reduce.async.bulk.tensor.Nd.global.shared::cta.{add|min|max}.tile.bulk_group.  Rules checked:
// each kind (add, min, max) maps to its PTX reduction; the dimensionality follows the number of
// coordinates (1-D, 2-D, 5-D); coordinates are reversed (outermost-first -> innermost-first).
// RUN: fuser-opt %s -p fuser-lower-nvasync | FileCheck %s --check-prefix=NVVM
// RUN: fuser-opt %s --emit=ptx -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx && %ptxas %t.ptx -o %t.cubin

// NVVM-NOT: nvasync.
// NVVM: gpu.func @k(%[[DESC:[a-z0-9]+]]: !llvm.ptr, %[[A:[a-z0-9]+]]: i32, %[[B:[a-z0-9]+]]: i32, %[[C:[a-z0-9]+]]: i32, %[[D:[a-z0-9]+]]: i32, %[[E:[a-z0-9]+]]: i32)
// NVVM-SAME: fuser.tensormap_args = array<i32: 0>
// NVVM: nvvm.cp.async.bulk.tensor.reduce %[[DESC]], %{{.*}}, box[%[[B]], %[[A]]] {redKind = #nvvm.tma_redux_kind<add>} : !llvm.ptr, <3>
// NVVM: nvvm.cp.async.bulk.tensor.reduce %[[DESC]], %{{.*}}, box[%[[A]]] {redKind = #nvvm.tma_redux_kind<min>} : !llvm.ptr, <3>
// NVVM: nvvm.cp.async.bulk.tensor.reduce %[[DESC]], %{{.*}}, box[%[[E]], %[[D]], %[[C]], %[[B]], %[[A]]] {redKind = #nvvm.tma_redux_kind<max>} : !llvm.ptr, <3>
// NVVM-NOT: nvasync.

// PTX-DAG: ld.param.b32 [[A:%r[0-9]+]], [k_param_1];
// PTX-DAG: ld.param.b32 [[B:%r[0-9]+]], [k_param_2];
// PTX-DAG: ld.param.b32 [[C:%r[0-9]+]], [k_param_3];
// PTX-DAG: ld.param.b32 [[D:%r[0-9]+]], [k_param_4];
// PTX-DAG: ld.param.b32 [[E:%r[0-9]+]], [k_param_5];
// PTX: cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%rd{{[0-9]+}}, {[[B]], [[A]]}], [%rd{{[0-9]+}}];
// PTX: cp.reduce.async.bulk.tensor.1d.global.shared::cta.min.tile.bulk_group [%rd{{[0-9]+}}, {[[A]]}], [%rd{{[0-9]+}}];
// PTX: cp.reduce.async.bulk.tensor.5d.global.shared::cta.max.tile.bulk_group [%rd{{[0-9]+}}, {[[E]], [[D]], [[C]], [[B]], [[A]]}], [%rd{{[0-9]+}}];

!box2 = memref<64x32xf32, #gpu.address_space<workgroup>>
!box1 = memref<256xf32, #gpu.address_space<workgroup>>
!box5 = memref<2x2x2x4x32xf32, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%desc: !llvm.ptr, %a: i32, %b: i32, %c: i32, %d: i32, %e: i32) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %s2 = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !box2
    %s1 = "nvasync.smem_buffer"() {offset = 8192 : i64} : () -> !box1
    %s5 = "nvasync.smem_buffer"() {offset = 16384 : i64} : () -> !box5
    %elected = "nvasync.elect_one"() : () -> i1
    scf.if %elected {
      "nvasync.tma_reduce"(%desc, %s2, %a, %b) {kind = "add"} : (!llvm.ptr, !box2, i32, i32) -> ()
      "nvasync.tma_reduce"(%desc, %s1, %a) {kind = "min"} : (!llvm.ptr, !box1, i32) -> ()
      "nvasync.tma_reduce"(%desc, %s5, %a, %b, %c, %d, %e) {kind = "max"} : (!llvm.ptr, !box5, i32, i32, i32, i32, i32) -> ()
    }
    gpu.return
  }
}
}
