// nvasync.setmaxnreg {regs, action} lowers to nvvm.setmaxregister increase|decrease regs and then
// to setmaxnreg.{inc|dec}.sync.aligned.u32 regs.  As in a warp-specialised kernel, the producer
// warpgroup (warps 0-3) gives registers away (dec 40) and the consumer warpgroup (warps 4-7) takes
// them (inc 232); each sits in its own warp_role branch.
// RUN: fuser-opt %s -p fuser-lower-nvasync | FileCheck %s --check-prefix=NVVM
// RUN: fuser-opt %s --emit=ptx -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx && %ptxas %t.ptx -o %t.cubin

// NVVM-NOT: nvasync.
// NVVM: scf.if
// NVVM-NEXT: nvvm.setmaxregister decrease 40
// NVVM: scf.if
// NVVM-NEXT: nvvm.setmaxregister increase 232
// NVVM-NOT: nvasync.

// PTX: .reqntid 256, 1, 1
// PTX: setmaxnreg.dec.sync.aligned.u32 40;
// PTX: setmaxnreg.inc.sync.aligned.u32 232;

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k() kernel attributes {gpu.known_block_size = array<i32: 256, 1, 1>} {
    "nvasync.warp_role"() ({
      "nvasync.setmaxnreg"() {regs = 40 : i32, action = "dec"} : () -> ()
      gpu.yield
    }) {first_warp = 0 : i32, num_warps = 4 : i32} : () -> ()
    "nvasync.warp_role"() ({
      "nvasync.setmaxnreg"() {regs = 232 : i32, action = "inc"} : () -> ()
      gpu.yield
    }) {first_warp = 4 : i32, num_warps = 4 : i32} : () -> ()
    gpu.return
  }
}
}
