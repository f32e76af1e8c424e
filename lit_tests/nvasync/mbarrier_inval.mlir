// nvasync.mbarrier_inval on barriers[stage] lowers to nvvm.mbarrier.inval and then to
// mbarrier.inval.shared.b64 [addr] (stage 1 of an array at offset 16 is byte 24).
// RUN: fuser-opt %s -p fuser-lower-nvasync | FileCheck %s --check-prefix=NVVM
// RUN: fuser-opt %s --emit=ptx -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx && %ptxas %t.ptx -o %t.cubin

// NVVM-NOT: nvasync.
// NVVM: %[[PTR:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<3>
// NVVM-NEXT: nvvm.mbarrier.inval %[[PTR]] : !llvm.ptr<3>
// NVVM-NOT: nvasync.

// PTX: mbarrier.inval.shared.b64 [__dynamic_shmem__0+24];

!bars = memref<2xi64, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k() kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %bars = "nvasync.smem_buffer"() {offset = 16 : i64} : () -> !bars
    %c1 = arith.constant 1 : index
    %elected = "nvasync.elect_one"() : () -> i1
    scf.if %elected {
      "nvasync.mbarrier_inval"(%bars, %c1) : (!bars, index) -> ()
    }
    gpu.return
  }
}
}
