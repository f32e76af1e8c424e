// nvasync.mbarrier_try_wait_parity lowers to nvvm.mbarrier.try_wait.parity (with the suspend-time
// hint 10000000) and then to a retry loop around mbarrier.try_wait.parity.shared.b64: the loop
// branches back until the predicate says the phase with the given parity has completed.  The
// parity is a runtime value (a kernel argument) and reaches the instruction unchanged.
// RUN: fuser-opt %s -p fuser-lower-nvasync | FileCheck %s --check-prefix=NVVM
// RUN: fuser-opt %s --emit=ptx -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx && %ptxas %t.ptx -o %t.cubin

// NVVM-NOT: nvasync.
// NVVM: gpu.func @k(%[[PARITY:[a-z0-9]+]]: i32)
// NVVM: %[[TICKS:.*]] = arith.constant 10000000 : i32
// NVVM-NEXT: nvvm.mbarrier.try_wait.parity %{{.*}}, %[[PARITY]], %[[TICKS]] : !llvm.ptr<3>, i32, i32
// NVVM-NOT: nvasync.

// PTX: ld.param.b32 [[PARITY:%r[0-9]+]], [k_param_0];
// PTX: LAB_WAIT:
// PTX-NEXT: mbarrier.try_wait.parity.shared.b64 [[P:[A-Za-z0-9]+]], [%r{{[0-9]+}}], [[PARITY]], 10000000;
// PTX-NEXT: @[[P]] bra.uni DONE;
// PTX-NEXT: bra.uni LAB_WAIT;
// PTX-NEXT: DONE:

!bars = memref<2xi64, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%parity: i32) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %bars = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !bars
    %c1 = arith.constant 1 : index
    "nvasync.mbarrier_try_wait_parity"(%bars, %c1, %parity) : (!bars, index, i32) -> ()
    gpu.return
  }
}
}
