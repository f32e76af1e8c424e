// nvasync.elect_one lowers to nvvm.elect.sync -> i1 and then to elect.sync %r|%p, -1 (the full
// 0xffffffff member mask); the predicate guards the elected thread's work.
// RUN: fuser-opt %s -p fuser-lower-nvasync | FileCheck %s --check-prefix=NVVM
// RUN: fuser-opt %s --emit=ptx -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx && %ptxas %t.ptx -o %t.cubin

// NVVM-NOT: nvasync.
// NVVM: %[[E:.*]] = nvvm.elect.sync -> i1
// NVVM-NEXT: scf.if %[[E]] {
// NVVM-NOT: nvasync.

// PTX: elect.sync %r{{[0-9]+}}|[[P:%p[0-9]+]], -1;
// PTX-NEXT: not.pred [[NP:%p[0-9]+]], [[P]];
// PTX-NEXT: @[[NP]] bra
// PTX: st.global.b32

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k(%out: memref<1xi32>) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1 : i32
    %elected = "nvasync.elect_one"() : () -> i1
    scf.if %elected {
      memref.store %one, %out[%c0] : memref<1xi32>
    }
    gpu.return
  }
}
}
