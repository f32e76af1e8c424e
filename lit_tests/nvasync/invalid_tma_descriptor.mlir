// A TMA descriptor must be a kernel argument (tensor maps are passed by value as
// __grid_constant__ parameters).  IRDL and fuser-verify-dialects cannot see where the !llvm.ptr
// comes from, so fuser-lower-nvasync reports it, at the TMA op, for tma_load, tma_store and
// tma_reduce alike (one error per kernel: the kernel's lowering stops at its first error).
// RUN: fuser-opt %s -p fuser-lower-nvasync --split-input-file --verify-diagnostics
// RUN: not fuser-opt %s --split-input-file --emit=ptx 2>&1 | FileCheck %s

// Parsing and verification alone accept the module: the rule belongs to the lowering.
// RUN: fuser-opt %s --split-input-file -o /dev/null

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%x: i32) kernel {
    %buf = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> memref<64xf32, #gpu.address_space<workgroup>>
    %desc = llvm.mlir.zero : !llvm.ptr
    // CHECK: invalid_tma_descriptor.mlir:[[@LINE+2]]:5: error: a TMA descriptor must be a kernel argument: tensor maps are passed by value as __grid_constant__ parameters
    // expected-error @below {{a TMA descriptor must be a kernel argument: tensor maps are passed by value as __grid_constant__ parameters}}
    "nvasync.tma_store"(%desc, %buf, %x) : (!llvm.ptr, memref<64xf32, #gpu.address_space<workgroup>>, i32) -> ()
    gpu.return
  }
}
}

// -----
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%descs: !llvm.ptr, %x: i32) kernel {
    %buf = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> memref<64xf32, #gpu.address_space<workgroup>>
    %bars = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<1xi64, #gpu.address_space<workgroup>>
    %c0 = arith.constant 0 : index
    %elected = "nvasync.elect_one"() : () -> i1
    scf.if %elected {
      %desc = llvm.getelementptr %descs[1] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<128 x i8>
      // CHECK: invalid_tma_descriptor.mlir:[[@LINE+2]]:7: error: a TMA descriptor must be a kernel argument
      // expected-error @below {{a TMA descriptor must be a kernel argument}}
      "nvasync.tma_load"(%desc, %buf, %bars, %c0, %x) : (!llvm.ptr, memref<64xf32, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>, index, i32) -> ()
    }
    gpu.return
  }
}
}

// -----
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%x: i32) kernel {
    %buf = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> memref<64xf32, #gpu.address_space<workgroup>>
    %desc = llvm.mlir.zero : !llvm.ptr
    "nvasync.warp_role"() ({
      // CHECK: invalid_tma_descriptor.mlir:[[@LINE+2]]:7: error: a TMA descriptor must be a kernel argument
      // expected-error @below {{a TMA descriptor must be a kernel argument}}
      "nvasync.tma_reduce"(%desc, %buf, %x) {kind = "max"} : (!llvm.ptr, memref<64xf32, #gpu.address_space<workgroup>>, i32) -> ()
      gpu.yield
    }) {first_warp = 0 : i32, num_warps = 1 : i32} : () -> ()
    gpu.return
  }
}
}
