// nvasync.wgmma_fence (orders register/smem accesses before the next wgmma) lowers to
// nvvm.wgmma.fence.aligned and then to wgmma.fence.sync.aligned.
// RUN: fuser-opt %s -p fuser-lower-nvasync | FileCheck %s --check-prefix=NVVM
// RUN: fuser-opt %s --emit=ptx -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx && %ptxas %t.ptx -o %t.cubin

// NVVM-NOT: nvasync.
// NVVM: gpu.func @k()
// NVVM-NEXT: nvvm.wgmma.fence.aligned
// NVVM-NEXT: gpu.return
// NVVM-NOT: nvasync.

// PTX: wgmma.fence.sync.aligned;

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k() kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    "nvasync.wgmma_fence"() : () -> ()
    gpu.return
  }
}
}
