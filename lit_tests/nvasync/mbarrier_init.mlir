// nvasync.mbarrier_init {count} on barriers[stage] lowers to nvvm.mbarrier.init on the address of
// element `stage` of the i64 mbarrier array and then to mbarrier.init.shared.b64 [addr], count.
// Rules checked: the arrival count is passed through (128); stage 3 of an array at offset 64 is
// byte 64 + 3*8 = 88 of dynamic shared memory.
// RUN: fuser-opt %s -p fuser-lower-nvasync | FileCheck %s --check-prefix=NVVM
// RUN: fuser-opt %s --emit=ptx -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx && %ptxas %t.ptx -o %t.cubin

// NVVM-NOT: nvasync.
// NVVM: %[[COUNT:.*]] = arith.constant 128 : i32
// NVVM-NEXT: nvvm.mbarrier.init %{{.*}}, %[[COUNT]] : !llvm.ptr<3>, i32
// NVVM-NOT: nvasync.

// PTX: mov.b32 [[COUNT:%r[0-9]+]], 128;
// PTX: mbarrier.init.shared.b64 [__dynamic_shmem__0+88], [[COUNT]];

!bars = memref<4xi64, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k() kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %bars = "nvasync.smem_buffer"() {offset = 64 : i64} : () -> !bars
    %c3 = arith.constant 3 : index
    %elected = "nvasync.elect_one"() : () -> i1
    scf.if %elected {
      "nvasync.mbarrier_init"(%bars, %c3) {count = 128 : i32} : (!bars, index) -> ()
    }
    gpu.return
  }
}
}
