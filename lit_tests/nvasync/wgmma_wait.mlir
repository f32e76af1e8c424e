// nvasync.wgmma_wait {pending} lowers to nvvm.wgmma.wait.group.sync.aligned pending and then to
// wgmma.wait_group.sync.aligned N; the pending count is passed through (1, then 7).
// RUN: fuser-opt %s -p fuser-lower-nvasync | FileCheck %s --check-prefix=NVVM
// RUN: fuser-opt %s --emit=ptx -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx && %ptxas %t.ptx -o %t.cubin

// NVVM-NOT: nvasync.
// NVVM: nvvm.wgmma.wait.group.sync.aligned 1{{$}}
// NVVM-NEXT: nvvm.wgmma.wait.group.sync.aligned 7{{$}}
// NVVM-NOT: nvasync.

// PTX: wgmma.wait_group.sync.aligned 1;
// PTX-NEXT: wgmma.wait_group.sync.aligned 7;

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k() kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    "nvasync.wgmma_wait"() {pending = 1 : i32} : () -> ()
    "nvasync.wgmma_wait"() {pending = 7 : i32} : () -> ()
    gpu.return
  }
}
}
