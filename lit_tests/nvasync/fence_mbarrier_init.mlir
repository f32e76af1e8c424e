// nvasync.fence_mbarrier_init lowers to nvvm.fence.mbarrier.init and then to
// fence.mbarrier_init.release.cluster (makes the preceding mbarrier.init visible to the async
// proxy before the barrier is used by TMA).
// RUN: fuser-opt %s -p fuser-lower-nvasync | FileCheck %s --check-prefix=NVVM
// RUN: fuser-opt %s --emit=ptx -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx && %ptxas %t.ptx -o %t.cubin

// NVVM-NOT: nvasync.
// NVVM: nvvm.mbarrier.init
// NVVM-NEXT: nvvm.fence.mbarrier.init
// NVVM-NOT: nvasync.

// PTX: mbarrier.init.shared.b64
// PTX-NEXT: fence.mbarrier_init.release.cluster;

!bars = memref<1xi64, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k() kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %bars = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !bars
    %c0 = arith.constant 0 : index
    %elected = "nvasync.elect_one"() : () -> i1
    scf.if %elected {
      "nvasync.mbarrier_init"(%bars, %c0) {count = 1 : i32} : (!bars, index) -> ()
      "nvasync.fence_mbarrier_init"() : () -> ()
    }
    gpu.return
  }
}
}
