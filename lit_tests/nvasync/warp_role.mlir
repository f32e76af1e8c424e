// nvasync.warp_role {first_warp, num_warps} runs its body on warps [first_warp, first_warp +
// num_warps) only: it lowers to a warp-uniform branch, scf.if ((tid.x / 32) - first_warp <u
// num_warps), whose then-block holds the (lowered) body and no gpu.yield.  The PTX shifts %tid.x
// right by 5 (the warp index) and compares it with the role's range.
// RUN: fuser-opt %s -p fuser-lower-nvasync | FileCheck %s --check-prefix=NVVM
// RUN: fuser-opt %s --emit=ptx -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx && %ptxas %t.ptx -o %t.cubin

// NVVM-NOT: nvasync.
// NVVM: gpu.thread_id x
// NVVM: %[[TID:.*]] = gpu.thread_id x
// NVVM-NEXT: %[[C32:.*]] = arith.constant 32 : index
// NVVM-NEXT: %[[WARP:.*]] = arith.divui %[[TID]], %[[C32]] : index
// NVVM-NEXT: %[[FIRST:.*]] = arith.constant 2 : index
// NVVM-NEXT: %[[REL:.*]] = arith.subi %[[WARP]], %[[FIRST]] : index
// NVVM-NEXT: %[[NUM:.*]] = arith.constant 3 : index
// NVVM-NEXT: %[[IN:.*]] = arith.cmpi ult, %[[REL]], %[[NUM]] : index
// NVVM-NEXT: scf.if %[[IN]] {
// NVVM-NEXT: memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<256xi32>
// NVVM-NEXT: }
// NVVM-NOT: gpu.yield
// NVVM-NOT: nvasync.

// PTX: mov.u32 [[TID:%r[0-9]+]], %tid.x;
// PTX-NEXT: cvt.u64.u32 [[TID64:%rd[0-9]+]], [[TID]];
// PTX-NEXT: shr.u64 [[WARP:%rd[0-9]+]], [[TID64]], 5;
// PTX-NEXT: add.s64 [[REL:%rd[0-9]+]], [[WARP]], -2;
// PTX-NEXT: setp.gt.u64 [[OUT:%p[0-9]+]], [[REL]], 2;
// PTX-NEXT: @[[OUT]] bra [[SKIP:\$L__BB[0-9_]+]];
// PTX: st.global.b32 [%rd{{[0-9]+}}], 1;
// PTX-NEXT: [[SKIP]]:

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%out: memref<256xi32>) kernel attributes {gpu.known_block_size = array<i32: 256, 1, 1>} {
    %tid = gpu.thread_id x
    %one = arith.constant 1 : i32
    "nvasync.warp_role"() ({
      memref.store %one, %out[%tid] : memref<256xi32>
      gpu.yield
    }) {first_warp = 2 : i32, num_warps = 3 : i32} : () -> ()
    gpu.return
  }
}
}
