// nvasync.bulk_commit closes the thread's open bulk group: it lowers to
// nvvm.cp.async.bulk.commit.group and then to cp.async.bulk.commit_group.
// RUN: fuser-opt %s -p fuser-lower-nvasync | FileCheck %s --check-prefix=NVVM
// RUN: fuser-opt %s --emit=ptx -o %t.ptx && FileCheck %s --check-prefix=PTX < %t.ptx && %ptxas %t.ptx -o %t.cubin

// NVVM-NOT: nvasync.
// NVVM: scf.if
// NVVM-NEXT: nvvm.cp.async.bulk.commit.group
// NVVM-NOT: nvasync.

// PTX: elect.sync
// PTX: cp.async.bulk.commit_group;

module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @k() kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %elected = "nvasync.elect_one"() : () -> i1
    scf.if %elected {
      "nvasync.bulk_commit"() : () -> ()
    }
    gpu.return
  }
}
}
