// nvasync.bulk_wait {pending, read} lowers to nvvm.cp.async.bulk.wait_group pending ({read}) and
// then to cp.async.bulk.wait_group[.read] N.  Rules checked: read = true gives the .read form
// (waits only until the smem sources have been read); read = false gives the full wait; the
// pending count is passed through unchanged (0, 5, 63).
// RUN: fuser-opt %s -p fuser-lower-nvasync | FileCheck %s --check-prefix=NVVM
// RUN: fuser-opt %s --emit=ptx -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx && %ptxas %t.ptx -o %t.cubin

// NVVM-NOT: nvasync.
// NVVM: nvvm.cp.async.bulk.wait_group 0 {read}
// NVVM-NEXT: nvvm.cp.async.bulk.wait_group 5{{$}}
// NVVM-NEXT: nvvm.cp.async.bulk.wait_group 63 {read}
// NVVM-NEXT: nvvm.cp.async.bulk.wait_group 0{{$}}
// NVVM-NOT: nvasync.

// PTX: cp.async.bulk.wait_group.read 0;
// PTX-NEXT: cp.async.bulk.wait_group 5;
// PTX-NEXT: cp.async.bulk.wait_group.read 63;
// PTX-NEXT: cp.async.bulk.wait_group 0;

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k() kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %elected = "nvasync.elect_one"() : () -> i1
    scf.if %elected {
      "nvasync.bulk_wait"() {pending = 0 : i32, read = true} : () -> ()
      "nvasync.bulk_wait"() {pending = 5 : i32, read = false} : () -> ()
      "nvasync.bulk_wait"() {pending = 63 : i32, read = true} : () -> ()
      "nvasync.bulk_wait"() {pending = 0 : i32, read = false} : () -> ()
    }
    gpu.return
  }
}
}
