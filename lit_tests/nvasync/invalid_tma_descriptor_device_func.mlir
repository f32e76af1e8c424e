// BUG: a TMA descriptor that is an argument of a non-kernel gpu.func (a device function) passes
// fuser-lower-nvasync: _FunctionLowering.descriptor only checks that the value is an argument of
// the function's entry block, not that the function is a kernel.  The descriptor then lands in
// fuser.tensormap_args, fuser-kernel-abi puts nvvm.grid_constant on a non-kernel llvm.func, and
// --emit=ptx fails in the LLVM-dialect verifier with "'"nvvm.grid_constant"' attribute must be
// present only on kernel arguments" at the function (plus a dump of the lowered function).
// Expected: fuser-lower-nvasync's own error, at the TMA op, as for any descriptor that is not a
// kernel argument (only a kernel parameter can be a __grid_constant__ tensor map).
// RUN: fuser-opt %s -p fuser-lower-nvasync --verify-diagnostics
// RUN: not fuser-opt %s --emit=ptx 2>&1 | FileCheck %s

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @store_tile(%desc: !llvm.ptr, %x: i32) {
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<64xf32, #gpu.address_space<workgroup>>
    // CHECK: invalid_tma_descriptor_device_func.mlir:[[@LINE+2]]:5: error: a TMA descriptor must be a kernel argument
    // expected-error @below {{a TMA descriptor must be a kernel argument}}
    "nvasync.tma_store"(%desc, %buf, %x) : (!llvm.ptr, memref<64xf32, #gpu.address_space<workgroup>>, i32) -> ()
    gpu.return
  }
  gpu.func @k(%desc: !llvm.ptr, %x: i32) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    gpu.return
  }
}
}
