// Every value check of the nvasync dialect (dialects/nvasync.py `_CHECKS`, run by
// fuser-verify-dialects right after parsing) is reported at the offending op with its message.
// RUN: fuser-opt %s --split-input-file --verify-diagnostics

!smem = memref<64x64xbf16, #gpu.address_space<workgroup>>
!bars = memref<2xi64, #gpu.address_space<workgroup>>

// --- smem_buffer ---------------------------------------------------------------------------------
func.func @smem_offset_not_16() {
  // expected-error @below {{'nvasync.smem_buffer' op offset must be a non-negative multiple of 16 bytes, got 8}}
  %b = "nvasync.smem_buffer"() {offset = 8 : i64} : () -> !smem
  return
}

// -----
func.func @smem_offset_negative() {
  // expected-error @below {{offset must be a non-negative multiple of 16 bytes, got -16}}
  %b = "nvasync.smem_buffer"() {offset = -16 : i64} : () -> memref<4xf32, #gpu.address_space<workgroup>>
  return
}

// -----
func.func @smem_global_space() {
  // expected-error @below {{result must be a memref in #gpu.address_space<workgroup>, got memref<4xf32>}}
  %b = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<4xf32>
  return
}

// -----
func.func @smem_private_space() {
  // expected-error @below {{result must be a memref in #gpu.address_space<workgroup>, got memref<4xf32, #gpu.address_space<private>>}}
  %b = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<4xf32, #gpu.address_space<private>>
  return
}

// -----
func.func @smem_dynamic_shape() {
  // expected-error @below {{smem buffers need a static shape, got memref<?xf32, #gpu.address_space<workgroup>>}}
  %b = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<?xf32, #gpu.address_space<workgroup>>
  return
}

// -----
func.func @smem_strided_layout() {
  // expected-error @below {{smem buffers need the identity layout, got strided<[1, 64]>}}
  %b = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<64x64xf32, strided<[1, 64]>, #gpu.address_space<workgroup>>
  return
}

// -----
// The numeric memory space 3 is accepted as workgroup memory.
func.func @smem_numeric_space_ok() {
  %b = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<4xf32, 3>
  return
}

// --- TMA -----------------------------------------------------------------------------------------
// -----
!smem = memref<64x64xbf16, #gpu.address_space<workgroup>>
!bars = memref<2xi64, #gpu.address_space<workgroup>>
func.func @tma_no_coords(%d: !llvm.ptr) {
  %b = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> !smem
  // expected-error @below {{'nvasync.tma_store' op TMA takes 1 to 5 coordinates, got 0}}
  "nvasync.tma_store"(%d, %b) : (!llvm.ptr, !smem) -> ()
  return
}

// -----
func.func @tma_six_coords(%d: !llvm.ptr, %i: i32) {
  %b = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> memref<1x1x1x1x1x16xf32, #gpu.address_space<workgroup>>
  // expected-error @below {{TMA takes 1 to 5 coordinates, got 6}}
  "nvasync.tma_store"(%d, %b, %i, %i, %i, %i, %i, %i) : (!llvm.ptr, memref<1x1x1x1x1x16xf32, #gpu.address_space<workgroup>>, i32, i32, i32, i32, i32, i32) -> ()
  return
}

// -----
func.func @prefetch_six_coords(%d: !llvm.ptr, %i: i32) {
  // expected-error @below {{'nvasync.tma_prefetch' op TMA takes 1 to 5 coordinates, got 6}}
  "nvasync.tma_prefetch"(%d, %i, %i, %i, %i, %i, %i) : (!llvm.ptr, i32, i32, i32, i32, i32, i32) -> ()
  return
}

// -----
!smem = memref<64x64xbf16, #gpu.address_space<workgroup>>
!bars = memref<2xi64, #gpu.address_space<workgroup>>
func.func @tma_rank_mismatch(%d: !llvm.ptr, %i: i32) {
  %b = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> !smem
  %bars = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !bars
  %c0 = arith.constant 0 : index
  // expected-error @below {{'nvasync.tma_load' op the smem box has rank 2 but 1 coordinate(s) were given}}
  "nvasync.tma_load"(%d, %b, %bars, %c0, %i) : (!llvm.ptr, !smem, !bars, index, i32) -> ()
  return
}

// -----
!smem = memref<64x64xbf16, #gpu.address_space<workgroup>>
!bars = memref<2xi64, #gpu.address_space<workgroup>>
func.func @tma_multicast_slices(%d: !llvm.ptr, %i: i32) {
  %b = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> !smem
  %bars = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !bars
  %c0 = arith.constant 0 : index
  // expected-error @below {{'nvasync.tma_load_multicast' op dst's 64 rows of 128 bytes do not split into 16 slices of whole 1024-byte units}}
  "nvasync.tma_load_multicast"(%d, %b, %bars, %c0, %i, %i) {ctas = 16 : i32} : (!llvm.ptr, !smem, !bars, index, i32, i32) -> ()
  return
}

// -----
!smem = memref<64x64xbf16, #gpu.address_space<workgroup>>
!bars = memref<2xi64, #gpu.address_space<workgroup>>
func.func @tma_multicast_ctas(%d: !llvm.ptr, %i: i32) {
  %b = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> !smem
  %bars = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> !bars
  %c0 = arith.constant 0 : index
  // expected-error @below {{'nvasync.tma_load_multicast' op ctas must be a cluster size in [2, 16], got 1}}
  "nvasync.tma_load_multicast"(%d, %b, %bars, %c0, %i, %i) {ctas = 1 : i32} : (!llvm.ptr, !smem, !bars, index, i32, i32) -> ()
  return
}

// -----
func.func @tma_element_type(%d: !llvm.ptr, %i: i32) {
  %b = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> memref<64xf8E4M3FN, #gpu.address_space<workgroup>>
  // expected-error @below {{TMA does not move element type f8E4M3FN}}
  "nvasync.tma_store"(%d, %b, %i) : (!llvm.ptr, memref<64xf8E4M3FN, #gpu.address_space<workgroup>>, i32) -> ()
  return
}

// -----
func.func @tma_box_too_large(%d: !llvm.ptr, %i: i32) {
  %b = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> memref<8x512xf16, #gpu.address_space<workgroup>>
  // expected-error @below {{TMA box dimensions must be at most 256 elements, got [8, 512]}}
  "nvasync.tma_store"(%d, %b, %i, %i) : (!llvm.ptr, memref<8x512xf16, #gpu.address_space<workgroup>>, i32, i32) -> ()
  return
}

// -----
func.func @tma_box_256_ok(%d: !llvm.ptr, %i: i32) {
  %b = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> memref<256xf16, #gpu.address_space<workgroup>>
  "nvasync.tma_store"(%d, %b, %i) : (!llvm.ptr, memref<256xf16, #gpu.address_space<workgroup>>, i32) -> ()
  return
}

// -----
func.func @tma_misaligned(%d: !llvm.ptr, %i: i32) {
  %b = "nvasync.smem_buffer"() {offset = 64 : i64} : () -> memref<64xf32, #gpu.address_space<workgroup>>
  // expected-error @below {{'nvasync.tma_reduce' op TMA smem buffers must be 128-byte aligned, buffer offset is 64}}
  "nvasync.tma_reduce"(%d, %b, %i) {kind = "add"} : (!llvm.ptr, memref<64xf32, #gpu.address_space<workgroup>>, i32) -> ()
  return
}

// -----
func.func @tma_global_box(%d: !llvm.ptr, %i: i32, %g: memref<64xf32>) {
  // expected-error @below {{'src' (TMA box) must be a shared-memory memref (memory space #gpu.address_space<workgroup>), got memref<64xf32>}}
  "nvasync.tma_store"(%d, %g, %i) : (!llvm.ptr, memref<64xf32>, i32) -> ()
  return
}

// -----
func.func @tma_dynamic_box(%d: !llvm.ptr, %i: i32, %s: memref<?xf32, #gpu.address_space<workgroup>>) {
  // expected-error @below {{'src' (TMA box) must have a static shape, got memref<?xf32, #gpu.address_space<workgroup>>}}
  "nvasync.tma_store"(%d, %s, %i) : (!llvm.ptr, memref<?xf32, #gpu.address_space<workgroup>>, i32) -> ()
  return
}

// -----
func.func @tma_load_global_dst(%d: !llvm.ptr, %i: i32, %g: memref<64xf32>) {
  %bars = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<2xi64, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  // expected-error @below {{'dst' (TMA box) must be a shared-memory memref}}
  "nvasync.tma_load"(%d, %g, %bars, %c0, %i) : (!llvm.ptr, memref<64xf32>, memref<2xi64, #gpu.address_space<workgroup>>, index, i32) -> ()
  return
}

// -----
func.func @tma_load_bad_barrier(%d: !llvm.ptr, %i: i32) {
  %b = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> memref<64xf32, #gpu.address_space<workgroup>>
  %bars = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<2xi32, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  // expected-error @below {{'barriers' must be a 1-D memref of i64 mbarriers, got memref<2xi32, #gpu.address_space<workgroup>>}}
  "nvasync.tma_load"(%d, %b, %bars, %c0, %i) : (!llvm.ptr, memref<64xf32, #gpu.address_space<workgroup>>, memref<2xi32, #gpu.address_space<workgroup>>, index, i32) -> ()
  return
}

// -----
func.func @tma_reduce_kind(%d: !llvm.ptr, %i: i32) {
  %b = "nvasync.smem_buffer"() {offset = 1024 : i64} : () -> memref<64xf32, #gpu.address_space<workgroup>>
  // expected-error @below {{'nvasync.tma_reduce' op kind must be one of add, min, max, got 'mul'}}
  "nvasync.tma_reduce"(%d, %b, %i) {kind = "mul"} : (!llvm.ptr, memref<64xf32, #gpu.address_space<workgroup>>, i32) -> ()
  return
}

// --- bulk groups ---------------------------------------------------------------------------------
// -----
func.func @bulk_wait_pending_too_large() {
  // expected-error @below {{'nvasync.bulk_wait' op pending must be in [0, 63], got 64}}
  "nvasync.bulk_wait"() {pending = 64 : i32, read = false} : () -> ()
  return
}

// -----
func.func @bulk_wait_pending_negative() {
  // expected-error @below {{pending must be in [0, 63], got -1}}
  "nvasync.bulk_wait"() {pending = -1 : i32, read = true} : () -> ()
  return
}

// --- mbarriers -----------------------------------------------------------------------------------
// -----
func.func @mbarrier_init_count_zero() {
  %bars = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<2xi64, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  // expected-error @below {{'nvasync.mbarrier_init' op arrival count must be in [1, 2^20), got 0}}
  "nvasync.mbarrier_init"(%bars, %c0) {count = 0 : i32} : (memref<2xi64, #gpu.address_space<workgroup>>, index) -> ()
  // expected-error @below {{arrival count must be in [1, 2^20), got 1048576}}
  "nvasync.mbarrier_init"(%bars, %c0) {count = 1048576 : i32} : (memref<2xi64, #gpu.address_space<workgroup>>, index) -> ()
  return
}

// -----
func.func @mbarrier_element_type() {
  %bars = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<2xi32, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  // expected-error @below {{'nvasync.mbarrier_arrive' op 'barriers' must be a 1-D memref of i64 mbarriers, got memref<2xi32, #gpu.address_space<workgroup>>}}
  "nvasync.mbarrier_arrive"(%bars, %c0) : (memref<2xi32, #gpu.address_space<workgroup>>, index) -> ()
  return
}

// -----
func.func @mbarrier_rank_2() {
  %bars = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<2x2xi64, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %p = arith.constant 0 : i32
  // expected-error @below {{'nvasync.mbarrier_try_wait_parity' op 'barriers' must be a 1-D memref of i64 mbarriers, got memref<2x2xi64, #gpu.address_space<workgroup>>}}
  "nvasync.mbarrier_try_wait_parity"(%bars, %c0, %p) : (memref<2x2xi64, #gpu.address_space<workgroup>>, index, i32) -> ()
  return
}

// -----
func.func @mbarrier_global(%bars: memref<2xi64>) {
  %c0 = arith.constant 0 : index
  // expected-error @below {{'nvasync.mbarrier_inval' op 'barriers' (mbarrier array) must be a shared-memory memref (memory space #gpu.address_space<workgroup>), got memref<2xi64>}}
  "nvasync.mbarrier_inval"(%bars, %c0) : (memref<2xi64>, index) -> ()
  return
}

// -----
func.func @expect_tx_bytes() {
  %bars = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<2xi64, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  // expected-error @below {{'nvasync.mbarrier_arrive_expect_tx' op expected transaction bytes must be in [1, 2^20), got 0}}
  "nvasync.mbarrier_arrive_expect_tx"(%bars, %c0) {bytes = 0 : i32} : (memref<2xi64, #gpu.address_space<workgroup>>, index) -> ()
  // expected-error @below {{expected transaction bytes must be in [1, 2^20), got 1048576}}
  "nvasync.mbarrier_arrive_expect_tx"(%bars, %c0) {bytes = 1048576 : i32} : (memref<2xi64, #gpu.address_space<workgroup>>, index) -> ()
  return
}

// -----
func.func @expect_tx_element_type() {
  %bars = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<2xf64, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  // expected-error @below {{'barriers' must be a 1-D memref of i64 mbarriers, got memref<2xf64, #gpu.address_space<workgroup>>}}
  "nvasync.mbarrier_arrive_expect_tx"(%bars, %c0) {bytes = 16 : i32} : (memref<2xf64, #gpu.address_space<workgroup>>, index) -> ()
  return
}

// --- fences and barriers -------------------------------------------------------------------------
// -----
func.func @fence_space() {
  // expected-error @below {{'nvasync.fence_proxy_async' op space must be one of shared::cta, shared::cluster, global, all, got 'shared'}}
  "nvasync.fence_proxy_async"() {space = "shared"} : () -> ()
  return
}

// -----
func.func @named_barrier_id() {
  // expected-error @below {{'nvasync.named_barrier' op barrier id must be in [1, 15], got 16}}
  "nvasync.named_barrier"() {id = 16 : i32, threads = 128 : i32} : () -> ()
  // expected-error @below {{barrier id must be in [1, 15], got -1}}
  "nvasync.named_barrier"() {id = -1 : i32, threads = 128 : i32} : () -> ()
  return
}

// -----
func.func @named_barrier_threads() {
  // expected-error @below {{'nvasync.named_barrier' op thread count must be a positive multiple of 32 up to 1024, got 100}}
  "nvasync.named_barrier"() {id = 1 : i32, threads = 100 : i32} : () -> ()
  // expected-error @below {{thread count must be a positive multiple of 32 up to 1024, got 0}}
  "nvasync.named_barrier"() {id = 1 : i32, threads = 0 : i32} : () -> ()
  // expected-error @below {{thread count must be a positive multiple of 32 up to 1024, got 1056}}
  "nvasync.named_barrier"() {id = 1 : i32, threads = 1056 : i32} : () -> ()
  return
}

// -----
// Both checks of one op are reported, each as its own error at the op.
func.func @named_barrier_both() {
  // expected-error @below {{barrier id must be in [1, 15], got 20}}
  // expected-error @below {{thread count must be a positive multiple of 32 up to 1024, got 33}}
  "nvasync.named_barrier"() {id = 20 : i32, threads = 33 : i32} : () -> ()
  return
}

// --- wgmma: lit_tests/nvasync/wgmma_invalid.mlir ------------------------------------------------
// --- setmaxnreg ----------------------------------------------------------------------------------
// -----
func.func @setmaxnreg_range() {
  // expected-error @below {{'nvasync.setmaxnreg' op register count must be a multiple of 8 in [24, 256], got 16}}
  "nvasync.setmaxnreg"() {regs = 16 : i32, action = "dec"} : () -> ()
  // expected-error @below {{register count must be a multiple of 8 in [24, 256], got 264}}
  "nvasync.setmaxnreg"() {regs = 264 : i32, action = "inc"} : () -> ()
  return
}

// -----
func.func @setmaxnreg_multiple_of_8() {
  // expected-error @below {{register count must be a multiple of 8 in [24, 256], got 100}}
  "nvasync.setmaxnreg"() {regs = 100 : i32, action = "inc"} : () -> ()
  return
}

// -----
func.func @setmaxnreg_action() {
  // expected-error @below {{'nvasync.setmaxnreg' op action must be 'inc' or 'dec', got 'increase'}}
  "nvasync.setmaxnreg"() {regs = 232 : i32, action = "increase"} : () -> ()
  return
}

// --- warp_role -----------------------------------------------------------------------------------
// -----
func.func @warp_role_beyond_cta() {
  // expected-error @below {{'nvasync.warp_role' op warps [30, 34) must lie within the 32 warps of a CTA}}
  "nvasync.warp_role"() ({
    gpu.yield
  }) {first_warp = 30 : i32, num_warps = 4 : i32} : () -> ()
  return
}

// -----
func.func @warp_role_negative_first() {
  // expected-error @below {{warps [-1, 3) must lie within the 32 warps of a CTA}}
  "nvasync.warp_role"() ({
    gpu.yield
  }) {first_warp = -1 : i32, num_warps = 4 : i32} : () -> ()
  return
}

// -----
func.func @warp_role_no_warps() {
  // expected-error @below {{warps [0, 0) must lie within the 32 warps of a CTA}}
  "nvasync.warp_role"() ({
    gpu.yield
  }) {first_warp = 0 : i32, num_warps = 0 : i32} : () -> ()
  return
}

// -----
func.func @warp_role_empty_body() {
  // expected-error @below {{'nvasync.warp_role' op the body must be one block ending with gpu.yield}}
  "nvasync.warp_role"() ({
  }) {first_warp = 0 : i32, num_warps = 4 : i32} : () -> ()
  return
}

// -----
func.func @warp_role_two_blocks() {
  // expected-error @below {{the body must be one block ending with gpu.yield}}
  "nvasync.warp_role"() ({
    cf.br ^bb1
  ^bb1:
    gpu.yield
  }) {first_warp = 0 : i32, num_warps = 4 : i32} : () -> ()
  return
}

// -----
func.func @warp_role_other_terminator() {
  // expected-error @below {{the body must be one block ending with gpu.yield}}
  "nvasync.warp_role"() ({
    llvm.unreachable
  }) {first_warp = 0 : i32, num_warps = 4 : i32} : () -> ()
  return
}

// -----
func.func @warp_role_setmaxnreg_partial_warpgroup() {
  // expected-error @below {{'nvasync.warp_role' op a role that runs warpgroup ops (wgmma, setmaxnreg) must cover whole warpgroups, got warps [2, 6)}}
  "nvasync.warp_role"() ({
    "nvasync.setmaxnreg"() {regs = 232 : i32, action = "inc"} : () -> ()
    gpu.yield
  }) {first_warp = 2 : i32, num_warps = 4 : i32} : () -> ()
  return
}

// -----
func.func @warp_role_wgmma_wait_partial_warpgroup() {
  // expected-error @below {{must cover whole warpgroups, got warps [4, 6)}}
  "nvasync.warp_role"() ({
    "nvasync.wgmma_wait"() {pending = 0 : i32} : () -> ()
    gpu.yield
  }) {first_warp = 4 : i32, num_warps = 2 : i32} : () -> ()
  return
}

// -----
// A role of a single warp may run warp-level ops (TMA issue, elect) without covering a warpgroup.
func.func @warp_role_single_warp_ok() {
  "nvasync.warp_role"() ({
    %e = "nvasync.elect_one"() : () -> i1
    "nvasync.named_barrier"() {id = 1 : i32, threads = 160 : i32} : () -> ()
    gpu.yield
  }) {first_warp = 1 : i32, num_warps = 1 : i32} : () -> ()
  return
}

// --- store_peer ----------------------------------------------------------------------------------
// -----
func.func @store_peer_value_type(%v: f16, %peer: i32, %i: index) {
  %b = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<4xf32, #gpu.address_space<workgroup>>
  // expected-error @below {{'value' of type f16 does not match 'dst' elements (f32)}}
  "nvasync.store_peer"(%v, %b, %peer, %i) : (f16, memref<4xf32, #gpu.address_space<workgroup>>, i32, index) -> ()
  return
}

// -----
func.func @store_peer_rank_2(%v: f32, %peer: i32, %i: index) {
  %b = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<2x2xf32, #gpu.address_space<workgroup>>
  // expected-error @below {{'dst' must be a rank-1 shared-memory memref, got memref<2x2xf32, #gpu.address_space<workgroup>>}}
  "nvasync.store_peer"(%v, %b, %peer, %i) : (f32, memref<2x2xf32, #gpu.address_space<workgroup>>, i32, index) -> ()
  return
}

// -----
func.func @store_peer_vector_too_wide(%v: vector<8xf32>, %peer: i32, %i: index) {
  %b = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<16xf32, #gpu.address_space<workgroup>>
  // expected-error @below {{a vector 'value' must be 1-D of 1, 2 or 4 elements, at most 16 bytes (one st.shared::cluster), got vector<8xf32>}}
  "nvasync.store_peer"(%v, %b, %peer, %i) : (vector<8xf32>, memref<16xf32, #gpu.address_space<workgroup>>, i32, index) -> ()
  return
}

// --- offload -------------------------------------------------------------------------------------
// -----
func.func @offload_four_warps() {
  // expected-error @below {{'nvasync.offload' op warps must be in [1, 3] (the producer warpgroup's), got 4}}
  "nvasync.offload"() ({
  ^bb0(%u: index):
    gpu.yield
  }) {warps = 4 : i32} : () -> ()
  return
}

// -----
func.func @offload_no_thread_argument() {
  // expected-error @below {{'nvasync.offload' op the body must be one block with one index argument (the thread in the offload's warps), ending with gpu.yield}}
  "nvasync.offload"() ({
    gpu.yield
  }) {warps = 2 : i32} : () -> ()
  return
}
