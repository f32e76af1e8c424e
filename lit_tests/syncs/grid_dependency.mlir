// Rule (fuser-grid-dependency): the runtime launches a kernel holding `grid_dependency_wait` as a
// programmatic dependent of the kernel before it in the stream, which may still be running.  So
// each kernel that touches global memory waits once, in its top-level block, right before the
// first op that may access global memory there or in its regions; what comes before (thread
// indices, shared-memory work, L2 prefetches: hints no thread observes) overlaps the end of the
// previous kernel.  No `launch_dependents`: a kernel's dependents launch as its CTAs exit.  A
// kernel without global accesses gets no wait, and one that holds either op already is left as it
// is.  fuser-verify-syncs accepts every result.
// RUN: fuser-opt %s -p fuser-grid-dependency | FileCheck %s
// RUN: fuser-opt %s -p fuser-grid-dependency -p fuser-verify-syncs -o /dev/null
// RUN: fuser-opt %s -p fuser-grid-dependency --emit=ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %ptxas %t.ptx -o %t.cubin

module attributes {gpu.container_module} {
gpu.module @kernels {
  // CHECK-LABEL: gpu.func @copy_through_smem
  // CHECK-NOT: launch_dependents
  // CHECK: gpu.thread_id x
  // CHECK: vector.store
  // CHECK-NEXT: arith.cmpi
  // CHECK-NEXT: "nvasync.grid_dependency_wait"() {fuser.grid_dependency = "no global access before the previous kernel in the stream completed: first llvm.load"}
  // CHECK-NEXT: scf.if
  // CHECK-NEXT: llvm.load
  // CHECK-NOT: grid_dependency_wait
  // CHECK: gpu.return
  gpu.func @copy_through_smem(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %c32 = arith.constant 32 : index
    %zero = arith.constant dense<0.0> : vector<2xf32>
    %tile = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<256xf32, #gpu.address_space<workgroup>>
    %tid = gpu.thread_id x
    %two = arith.constant 2 : index
    %at = arith.muli %tid, %two : index
    vector.store %zero, %tile[%at] : memref<256xf32, #gpu.address_space<workgroup>>, vector<2xf32>
    %lo = arith.cmpi ult, %tid, %c32 : index
    scf.if %lo {
      %v = llvm.load %in : !llvm.ptr<1> -> f32
      llvm.store %v, %out : f32, !llvm.ptr<1>
    }
    gpu.return
  }

  // CHECK-LABEL: gpu.func @smem_only
  // CHECK-NOT: grid_dependency
  // CHECK-NOT: launch_dependents
  // CHECK: gpu.return
  gpu.func @smem_only() kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %zero = arith.constant dense<0.0> : vector<2xf32>
    %tile = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<256xf32, #gpu.address_space<workgroup>>
    %tid = gpu.thread_id x
    %two = arith.constant 2 : index
    %at = arith.muli %tid, %two : index
    vector.store %zero, %tile[%at] : memref<256xf32, #gpu.address_space<workgroup>>, vector<2xf32>
    gpu.return
  }

  // CHECK-LABEL: gpu.func @prefetch_first
  // CHECK-NOT: launch_dependents
  // CHECK: scf.if
  // CHECK-NEXT: "nvasync.tma_prefetch"
  // CHECK: "nvasync.grid_dependency_wait"() {fuser.grid_dependency = "no global access before the previous kernel in the stream completed: first llvm.load"}
  // CHECK-NEXT: llvm.load
  gpu.func @prefetch_first(%desc: !llvm.ptr, %in: !llvm.ptr<1>, %out: !llvm.ptr<1>, %row: i32, %col: i32) kernel attributes {gpu.known_block_size = array<i32: 32, 1, 1>} {
    %elected = "nvasync.elect_one"() : () -> i1
    scf.if %elected {
      "nvasync.tma_prefetch"(%desc, %row, %col) : (!llvm.ptr, i32, i32) -> ()
    }
    %v = llvm.load %in : !llvm.ptr<1> -> f32
    llvm.store %v, %out : f32, !llvm.ptr<1>
    gpu.return
  }

  // CHECK-LABEL: gpu.func @placed_already
  // CHECK-NEXT: "nvasync.grid_dependency_wait"() : () -> ()
  // CHECK-NEXT: llvm.load
  // CHECK-NOT: grid_dependency
  // CHECK-NOT: launch_dependents
  // CHECK: gpu.return
  gpu.func @placed_already(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>) kernel attributes {gpu.known_block_size = array<i32: 32, 1, 1>} {
    "nvasync.grid_dependency_wait"() : () -> ()
    %v = llvm.load %in : !llvm.ptr<1> -> f32
    llvm.store %v, %out : f32, !llvm.ptr<1>
    gpu.return
  }

  // A trigger written by hand (the next kernel may launch once every CTA has run it) is kept.
  // CHECK-LABEL: gpu.func @triggered_by_hand
  // CHECK-NEXT: "nvasync.launch_dependents"() : () -> ()
  // CHECK-NEXT: "nvasync.grid_dependency_wait"() : () -> ()
  // CHECK-NOT: grid_dependency
  // CHECK: gpu.return
  gpu.func @triggered_by_hand(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>) kernel attributes {gpu.known_block_size = array<i32: 32, 1, 1>} {
    "nvasync.launch_dependents"() : () -> ()
    "nvasync.grid_dependency_wait"() : () -> ()
    %v = llvm.load %in : !llvm.ptr<1> -> f32
    llvm.store %v, %out : f32, !llvm.ptr<1>
    gpu.return
  }
}
}

// PTX-LABEL: .entry copy_through_smem
// PTX-NOT: griddepcontrol.launch_dependents;
// PTX: st.shared
// PTX: griddepcontrol.wait;
// PTX: ld.global

// Coordinates innermost first, as every TMA op's.
// PTX-LABEL: .entry prefetch_first
// PTX-NOT: griddepcontrol.launch_dependents;
// PTX: cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%rd{{[0-9]+}}, {%r{{[0-9]+}}, %r{{[0-9]+}}}];
// PTX: griddepcontrol.wait;
// PTX: ld.global

// PTX-LABEL: .entry triggered_by_hand
// PTX: griddepcontrol.launch_dependents;
// PTX: griddepcontrol.wait;
// PTX-NEXT: ld.global
