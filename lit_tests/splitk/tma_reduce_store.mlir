// fuser-tma-reduce-store: a split-K tile's non-last splits add their f32 partial into the tile's
// workspace and release the tile's semaphore; the last split waits for them all.  deterministic:
// each split first waits for its predecessor (wait_flag >= split), split 0 plain-stores and the
// others reduce-add.  atomic has no designated last split and no wait: every split reduce-adds
// its partial and arrives (atom.acq_rel add), and the split whose arrival completes the count runs
// the epilogue.  The issuer hands the old count on through an smem cell; the branch on what the
// block reads there is uniform, so the barriers of the epilogue sit inside it.  The syncs come
// from the sync passes; the wait before the arrival (without .read: the adds complete) also frees
// the partial's smem for the epilogue, so no wait.read follows it.
// RUN: fuser-opt %s -p fuser-tma-reduce-store -p fuser-insert-syncs -p fuser-insert-proxy-fences -p fuser-verify-syncs | FileCheck %s
// RUN: fuser-opt %s -p fuser-tma-reduce-store -p fuser-insert-syncs -p fuser-insert-proxy-fences --emit=ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx && %ptxas %t.ptx -o %t.cubin
// Without the derived syncs the verifier names both missing rules:
// RUN: not fuser-opt %s -p fuser-tma-reduce-store -p fuser-verify-syncs 2>&1 | FileCheck %s --check-prefix=RAW

// CHECK-LABEL: gpu.func @deterministic
// CHECK: %[[ISSUER:.*]] = arith.andi
// CHECK: scf.if
// CHECK-NEXT: scf.if %[[ISSUER]] {
// CHECK: "nvasync.wait_flag"(%{{.*}}, %{{.*}}) {for_group = true, fuser.split_k = "wait"}
// CHECK-NEXT: "nvasync.reset_flag"(%{{.*}}) {fuser.split_k = "wait"}
// CHECK-NEXT: }
// CHECK-NEXT: "nvasync.sync_threads"() {fuser.derived = "acquire -> the group's later accesses: nvasync.wait_flag
// CHECK-NEXT: } else {
// CHECK: "nvasync.fence_proxy_async"() {{.*}}space = "shared::cta"
// CHECK-NEXT: "nvasync.sync_threads"
// CHECK-NEXT: scf.if
// CHECK-NEXT: "nvasync.wait_flag"(%{{.*}}, %[[SPLIT:.*]]) {for_group = false, fuser.split_k = "deterministic"}
// CHECK-NEXT: "nvasync.fence_proxy_async"() {fuser.derived = "acquire -> async-proxy global writes{{.*}}space = "global"
// CHECK: scf.if
// CHECK-NEXT: "nvasync.tma_store"
// CHECK-NEXT: "nvasync.bulk_commit"
// CHECK-NEXT: } else {
// CHECK-NEXT: "nvasync.tma_reduce"{{.*}}kind = "add"
// CHECK-NEXT: "nvasync.bulk_commit"
// CHECK-NEXT: {{^ *}}}
// CHECK: "nvasync.bulk_wait"() {fuser.derived = "global writes of {{.*}}pending = 0 : i32, read = false}
// CHECK-NEXT: "nvasync.release_flag"

// CHECK-LABEL: gpu.func @atomic
// CHECK: "nvasync.sync_threads"() {fuser.derived = "{{R}}AW: vector.store{{.*}} -> nvasync.tma_reduce
// CHECK-NEXT: scf.if %[[ISSUER:.*]] {
// CHECK-NEXT: "nvasync.tma_reduce"{{.*}}fuser.split_k = "atomic", kind = "add"
// CHECK-NEXT: "nvasync.bulk_commit"
// CHECK-NOT: "nvasync.release_flag"
// CHECK: scf.if %[[ISSUER]] {
// CHECK: "nvasync.bulk_wait"() {fuser.derived = "global writes of nvasync.tma_reduce{{.*}} complete before nvasync.arrive_flag{{.*}}", pending = 0 : i32, read = false}
// CHECK-NEXT: %[[OLD:.*]] = "nvasync.arrive_flag"(%[[FLAG:.*]], %{{.*}}) {for_group = true, fuser.split_k = "last"}
// CHECK-NEXT: "nvasync.fence_proxy_async"() {fuser.derived = "acquire -> async-proxy global writes: nvasync.arrive_flag{{.*}} -> nvasync.tma_store{{.*}}space = "global"
// CHECK-NEXT: memref.store %[[OLD]], %[[CELL:[0-9]+]][
// CHECK-NEXT: {{^ *}}}
// CHECK-NOT: "nvasync.bulk_wait"
// CHECK: "nvasync.sync_threads"() {fuser.derived = "acquire -> the group's later accesses: nvasync.arrive_flag
// CHECK-NEXT: %[[BEFORE:.*]] = memref.load %[[CELL]][
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %[[BEFORE]], %c3_i32
// CHECK-NEXT: scf.if %[[LAST]] {
// CHECK-NEXT: scf.if %[[ISSUER]] {
// CHECK-NEXT: "nvasync.reset_flag"(%[[FLAG]]) {fuser.split_k = "last"}
// CHECK: scf.if %[[LAST]] {
// CHECK: "nvasync.sync_threads"
// CHECK: "nvasync.tma_store"

// slots: each split stores its partial into a slot of its own (no predecessor wait, no reduce);
// the last split folds the slots in split order (schedulers/outer_reduction_kernel.py).
// CHECK-LABEL: gpu.func @slots
// CHECK: "nvasync.wait_flag"
// CHECK: } else {
// CHECK-NOT: "nvasync.wait_flag"
// CHECK-NOT: "nvasync.tma_reduce"
// CHECK: "nvasync.tma_store"{{.*}}fuser.split_k = "slots"
// CHECK-NEXT: "nvasync.bulk_commit"
// CHECK: "nvasync.bulk_wait"() {{.*}}pending = 0 : i32, read = false}
// CHECK-NEXT: "nvasync.release_flag"{{.*}}fuser.split_k = "slots"

// slots with a split_k_last (the matmul's): the arrival releases the stored slot, no release_flag;
// the last to arrive folds the slots (schedulers/matmul_kernel.py).
// CHECK-LABEL: gpu.func @slots_last
// CHECK-NOT: "nvasync.tma_reduce"
// CHECK: "nvasync.tma_store"{{.*}}fuser.split_k = "slots"
// CHECK-NEXT: "nvasync.bulk_commit"
// CHECK-NOT: "nvasync.release_flag"
// CHECK: "nvasync.bulk_wait"() {fuser.derived = "global writes of nvasync.tma_store{{.*}} complete before nvasync.arrive_flag{{.*}}", pending = 0 : i32, read = false}
// CHECK-NEXT: "nvasync.arrive_flag"{{.*}}fuser.split_k = "last"
// CHECK-NOT: "nvasync.release_flag"
// CHECK: gpu.return

// PTX-LABEL: .entry deterministic
// PTX: ld.acquire.gpu.global.b32
// PTX-NOT: atom
// PTX: st.relaxed.gpu.global.b32 {{.*}}, 0;
// PTX: bar.sync 0;
// PTX: ld.acquire.gpu.global.b32
// PTX: fence.proxy.async.global;
// PTX-DAG: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// PTX-DAG: cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group
// PTX: cp.async.bulk.commit_group;
// PTX-NEXT: cp.async.bulk.wait_group{{[[:space:]]+}}0;
// PTX: red.release.gpu.global.add.s32
// PTX-LABEL: .entry atomic
// PTX-NOT: red.release
// PTX-NOT: ld.acquire
// PTX: cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group
// PTX: cp.async.bulk.wait_group{{[[:space:]]+}}0;
// PTX: atom.acq_rel.gpu.global.add.u32
// PTX: st.relaxed.gpu.global.b32 {{.*}}, 0;
// PTX-LABEL: .entry slots
// PTX-NOT: cp.reduce.async.bulk
// PTX: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// PTX: cp.async.bulk.wait_group{{[[:space:]]+}}0;
// PTX: red.release.gpu.global.add.s32
// PTX-LABEL: .entry slots_last
// PTX-NOT: red.release
// PTX-NOT: cp.reduce.async.bulk
// PTX: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// PTX: cp.async.bulk.wait_group{{[[:space:]]+}}0;
// PTX: atom.acq_rel.gpu.global.add.u32
// PTX-NOT: red.release

// RAW: error: unsynchronized hazard: semaphore released before the TMA store's global writes completed
// RAW: error: unsynchronized hazard: async-proxy global writes after an acquire without fence.proxy.async.global
// RAW: error: unsynchronized hazard: a semaphore acquired by the issuing thread of all threads for its group is not followed by a barrier over all threads
module attributes {gpu.container_module} {
gpu.module @kernels {
  gpu.func @deterministic(%desc: !llvm.ptr, %flags: !llvm.ptr, %m: i32, %n: i32) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %box = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<64x32xf32, #gpu.address_space<workgroup>>
    %flat = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<2048xf32, #gpu.address_space<workgroup>>
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %w0 = arith.cmpi ult, %tid, %c32 : index
    %el = "nvasync.elect_one"() : () -> i1
    %issuer = arith.andi %w0, %el : i1
    %split_index = arith.remui %bid, %c4 : index
    %split = arith.index_cast %split_index : index to i32
    %tile = arith.divui %bid, %c4 : index
    %tile64 = arith.index_cast %tile : index to i64
    %flag = llvm.getelementptr %flags[%tile64] : (!llvm.ptr, i64) -> !llvm.ptr, i32
    %last = arith.cmpi eq, %split_index, %c3 : index
    scf.if %last {
      "nvasync.split_k_wait"(%flag, %issuer) {splits = 4 : i32} : (!llvm.ptr, i1) -> ()
    } else {
      %e = arith.muli %tid, %c16 : index
      %v = arith.constant dense<1.0> : vector<16xf32>
      vector.store %v, %flat[%e] : memref<2048xf32, #gpu.address_space<workgroup>>, vector<16xf32>
      scf.if %issuer {
        "nvasync.split_k_store"(%desc, %box, %flag, %split, %m, %n) {mode = "deterministic"} : (!llvm.ptr, memref<64x32xf32, #gpu.address_space<workgroup>>, !llvm.ptr, i32, i32, i32) -> ()
      }
    }
    gpu.return
  }
  gpu.func @atomic(%desc: !llvm.ptr, %out: !llvm.ptr, %flags: !llvm.ptr, %m: i32, %n: i32) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %box = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<64x32xf32, #gpu.address_space<workgroup>>
    %flat = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<2048xf32, #gpu.address_space<workgroup>>
    %cell = "nvasync.smem_buffer"() {offset = 8192 : i64} : () -> memref<1xi32, #gpu.address_space<workgroup>>
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %w0 = arith.cmpi ult, %tid, %c32 : index
    %el = "nvasync.elect_one"() : () -> i1
    %issuer = arith.andi %w0, %el : i1
    %split_index = arith.remui %bid, %c4 : index
    %split = arith.index_cast %split_index : index to i32
    %tile = arith.divui %bid, %c4 : index
    %tile64 = arith.index_cast %tile : index to i64
    %flag = llvm.getelementptr %flags[%tile64] : (!llvm.ptr, i64) -> !llvm.ptr, i32
    %e = arith.muli %tid, %c16 : index
    %v = arith.constant dense<1.0> : vector<16xf32>
    vector.store %v, %flat[%e] : memref<2048xf32, #gpu.address_space<workgroup>>, vector<16xf32>
    scf.if %issuer {
      "nvasync.split_k_store"(%desc, %box, %flag, %split, %m, %n) {mode = "atomic"} : (!llvm.ptr, memref<64x32xf32, #gpu.address_space<workgroup>>, !llvm.ptr, i32, i32, i32) -> ()
    }
    %last = "nvasync.split_k_last"(%flag, %issuer, %cell) {splits = 4 : i32} : (!llvm.ptr, i1, memref<1xi32, #gpu.address_space<workgroup>>) -> i1
    scf.if %last {
      %r = arith.constant dense<2.0> : vector<16xf32>
      vector.store %r, %flat[%e] : memref<2048xf32, #gpu.address_space<workgroup>>, vector<16xf32>
      scf.if %issuer {
        "nvasync.tma_store"(%out, %box, %m, %n) : (!llvm.ptr, memref<64x32xf32, #gpu.address_space<workgroup>>, i32, i32) -> ()
      }
    }
    gpu.return
  }
  gpu.func @slots(%desc: !llvm.ptr, %flags: !llvm.ptr, %m: i32, %n: i32) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %box = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<64x32xf32, #gpu.address_space<workgroup>>
    %flat = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<2048xf32, #gpu.address_space<workgroup>>
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %w0 = arith.cmpi ult, %tid, %c32 : index
    %el = "nvasync.elect_one"() : () -> i1
    %issuer = arith.andi %w0, %el : i1
    %split_index = arith.remui %bid, %c4 : index
    %split = arith.index_cast %split_index : index to i32
    %tile = arith.divui %bid, %c4 : index
    %tile64 = arith.index_cast %tile : index to i64
    %flag = llvm.getelementptr %flags[%tile64] : (!llvm.ptr, i64) -> !llvm.ptr, i32
    %last = arith.cmpi eq, %split_index, %c3 : index
    scf.if %last {
      "nvasync.split_k_wait"(%flag, %issuer) {splits = 4 : i32} : (!llvm.ptr, i1) -> ()
    } else {
      %e = arith.muli %tid, %c16 : index
      %v = arith.constant dense<1.0> : vector<16xf32>
      vector.store %v, %flat[%e] : memref<2048xf32, #gpu.address_space<workgroup>>, vector<16xf32>
      scf.if %issuer {
        "nvasync.split_k_store"(%desc, %box, %flag, %split, %m, %n) {mode = "slots"} : (!llvm.ptr, memref<64x32xf32, #gpu.address_space<workgroup>>, !llvm.ptr, i32, i32, i32) -> ()
      }
    }
    gpu.return
  }
  gpu.func @slots_last(%desc: !llvm.ptr, %out: !llvm.ptr, %flags: !llvm.ptr, %m: i32, %n: i32) kernel attributes {gpu.known_block_size = array<i32: 128, 1, 1>} {
    %box = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<64x32xf32, #gpu.address_space<workgroup>>
    %flat = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<2048xf32, #gpu.address_space<workgroup>>
    %cell = "nvasync.smem_buffer"() {offset = 8192 : i64} : () -> memref<1xi32, #gpu.address_space<workgroup>>
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %c4 = arith.constant 4 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %w0 = arith.cmpi ult, %tid, %c32 : index
    %el = "nvasync.elect_one"() : () -> i1
    %issuer = arith.andi %w0, %el : i1
    %split_index = arith.remui %bid, %c4 : index
    %split = arith.index_cast %split_index : index to i32
    %tile = arith.divui %bid, %c4 : index
    %tile64 = arith.index_cast %tile : index to i64
    %flag = llvm.getelementptr %flags[%tile64] : (!llvm.ptr, i64) -> !llvm.ptr, i32
    %e = arith.muli %tid, %c16 : index
    %v = arith.constant dense<1.0> : vector<16xf32>
    vector.store %v, %flat[%e] : memref<2048xf32, #gpu.address_space<workgroup>>, vector<16xf32>
    scf.if %issuer {
      %slot_rows = arith.muli %split, %m : i32
      "nvasync.split_k_store"(%desc, %box, %flag, %split, %slot_rows, %n) {mode = "slots"} : (!llvm.ptr, memref<64x32xf32, #gpu.address_space<workgroup>>, !llvm.ptr, i32, i32, i32) -> ()
    }
    %last = "nvasync.split_k_last"(%flag, %issuer, %cell) {splits = 4 : i32} : (!llvm.ptr, i1, memref<1xi32, #gpu.address_space<workgroup>>) -> i1
    scf.if %last {
      %r = arith.constant dense<2.0> : vector<16xf32>
      vector.store %r, %flat[%e] : memref<2048xf32, #gpu.address_space<workgroup>>, vector<16xf32>
      scf.if %issuer {
        "nvasync.tma_store"(%out, %box, %m, %n) : (!llvm.ptr, memref<64x32xf32, #gpu.address_space<workgroup>>, i32, i32) -> ()
      }
    }
    gpu.return
  }
}
}
