// nvasync.pipeline_load verifies like a TMA load without its mbarrier; it exists only until
// fuser-pipeline-mbarriers rewrites its loop, so lowering one is a located error.
// RUN: fuser-opt %s --split-input-file --verify-diagnostics -p fuser-lower-nvasync

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%desc: !llvm.ptr, %c: i32) kernel {
    %b = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<8x64xbf16, #gpu.address_space<workgroup>>
    // expected-error @below {{nvasync.pipeline_load outside a loop that fuser-pipeline-mbarriers rewrote}}
    "nvasync.pipeline_load"(%desc, %b, %c, %c) {role = "producer"} : (!llvm.ptr, memref<8x64xbf16, #gpu.address_space<workgroup>>, i32, i32) -> ()
    gpu.return
  }
}
}

// -----

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%desc: !llvm.ptr, %c: i32) kernel {
    %b = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<8x512xbf16, #gpu.address_space<workgroup>>
    // expected-error @below {{TMA box dimensions must be at most 256 elements}}
    "nvasync.pipeline_load"(%desc, %b, %c, %c) {role = "producer"} : (!llvm.ptr, memref<8x512xbf16, #gpu.address_space<workgroup>>, i32, i32) -> ()
    gpu.return
  }
}
}
