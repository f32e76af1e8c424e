// A kernel already written as gpu.module/gpu.func that synchronizes through NVGPU mbarriers
// (create, init, arrive, try_wait.parity) lowers with --emit=ptx alone: convert-nvgpu-to-nvvm
// is part of the lowering, and it places the mbarrier storage in the kernel's gpu.module.
// RUN: fuser-opt %s --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %ptxas %t.ptx -o %t.cubin

// CHECK: .visible .entry k(
// CHECK: .shared .align 8 .b8 __mbarrier[16];
// CHECK: mbarrier.init.shared.b64 [__mbarrier+8], {{%r[0-9]+}};
// CHECK: fence.mbarrier_init.release.cluster;
// CHECK: mbarrier.arrive.shared.b64
// CHECK: mbarrier.try_wait.parity.shared.b64
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%out: memref<32xi32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %phase = arith.constant false
    %ticks = arith.constant 1000000 : index
    %bars = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
    %tx = gpu.thread_id x
    %leader = arith.cmpi eq, %tx, %c0 : index
    scf.if %leader {
      nvgpu.mbarrier.init %bars[%c1], %c32 : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
      nvvm.fence.mbarrier.init
    }
    gpu.barrier
    %token = nvgpu.mbarrier.arrive %bars[%c1] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
    nvgpu.mbarrier.try_wait.parity %bars[%c1], %phase, %ticks : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
    %t = arith.index_cast %tx : index to i32
    memref.store %t, %out[%tx] : memref<32xi32>
    gpu.return
  }
}
}
