// --emit selects what fuser-opt writes: mlir (the default: the IR after the requested passes),
// llvm (the module lowered to the LLVM/NVVM dialects, with the kernel ABI applied) or ptx (the
// whole lowering to PTX, one `// gpu.module @name` section per gpu.module, which ptxas accepts).
// RUN: fuser-opt %s | FileCheck %s --check-prefix=MLIR
// RUN: fuser-opt %s --emit=mlir | FileCheck %s --check-prefix=MLIR
// RUN: fuser-opt %s --emit=llvm | FileCheck %s --check-prefix=LLVM
// RUN: fuser-opt %s --emit=ptx -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx && %ptxas %t.ptx -o %t.cubin
// RUN: fuser-opt %s --emit=ptx --features=+ptx83 -o %t.83.ptx && FileCheck %s --check-prefix=PTX83 < %t.83.ptx && %ptxas %t.83.ptx -o %t.83.cubin
// RUN: not fuser-opt %s --emit=cubin 2>&1 | FileCheck %s --check-prefix=BAD

// MLIR: gpu.func @k(%{{.*}}: !llvm.ptr, %{{.*}}: i32) kernel
// MLIR: "nvasync.elect_one"() : () -> i1
// MLIR: "nvasync.tma_store"

// LLVM-NOT: nvasync.
// LLVM: gpu.module @kernels [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80"
// LLVM-NEXT: llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 1024 : i64}
// LLVM-NEXT: llvm.func @k(%{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %{{.*}}: i32)
// LLVM-SAME: nvvm.kernel
// LLVM-SAME: nvvm.reqntid = array<i32: 128, 1, 1>
// LLVM: nvvm.elect.sync
// LLVM: nvvm.cp.async.bulk.tensor.global.shared.cta
// LLVM-NOT: nvasync.

// PTX: // gpu.module @kernels
// PTX: .version 8.0
// PTX-NEXT: .target sm_90a
// PTX-NEXT: .address_size 64
// PTX: .visible .entry k(
// PTX: cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group
// PTX: cp.async.bulk.commit_group;

// PTX83: .version 8.3
// PTX83-NEXT: .target sm_90a

// BAD: invalid choice: 'cubin'

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%desc: !llvm.ptr, %x: i32) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %buf = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<64xf32, #gpu.address_space<workgroup>>
    %elected = "nvasync.elect_one"() : () -> i1
    scf.if %elected {
      "nvasync.tma_store"(%desc, %buf, %x) : (!llvm.ptr, memref<64xf32, #gpu.address_space<workgroup>>, i32) -> ()
      "nvasync.bulk_commit"() : () -> ()
    }
    gpu.return
  }
}
}
