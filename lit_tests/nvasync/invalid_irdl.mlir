// IRDL-level errors of nvasync ops (the kind constraints the generated IRDL states: attribute
// kinds, operand/result types, operand counts, required attributes, regions, unknown ops) are
// reported by MLIR's verifier right after parsing, as `file:line:col: error:` at the op, with
// exit status 1 and no traceback.
// RUN: not fuser-opt %s --split-input-file 2>&1 | FileCheck %s --implicit-check-not=Traceback

func.func @wrong_attribute_kind() {
  // CHECK: invalid_irdl.mlir:[[@LINE+1]]:3: error: expected base attribute 'builtin.integer' but got 'builtin.string'
  "nvasync.bulk_wait"() {pending = "zero", read = true} : () -> ()
  return
}

// -----
func.func @wrong_attribute_kind_str() {
  // CHECK: invalid_irdl.mlir:[[@LINE+1]]:3: error: expected base attribute 'builtin.string' but got 'builtin.integer'
  "nvasync.fence_proxy_async"() {space = 3 : i32} : () -> ()
  return
}

// -----
func.func @missing_attribute() {
  // CHECK: invalid_irdl.mlir:[[@LINE+1]]:3: error: 'nvasync.bulk_wait' op attribute "read" is expected but not provided
  "nvasync.bulk_wait"() {pending = 0 : i32} : () -> ()
  return
}

// -----
func.func @missing_operand(%d: !llvm.ptr) {
  %b = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<64xf32, #gpu.address_space<workgroup>>
  // CHECK: invalid_irdl.mlir:[[@LINE+1]]:3: error: op expects at least 2 operands, but got 1
  "nvasync.tma_store"(%b) : (memref<64xf32, #gpu.address_space<workgroup>>) -> ()
  return
}

// -----
func.func @wrong_coordinate_type(%d: !llvm.ptr, %i: index) {
  %b = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<64xf32, #gpu.address_space<workgroup>>
  // CHECK: invalid_irdl.mlir:[[@LINE+1]]:3: error: expected 'i32' but got 'index'
  "nvasync.tma_store"(%d, %b, %i) : (!llvm.ptr, memref<64xf32, #gpu.address_space<workgroup>>, index) -> ()
  return
}

// -----
func.func @descriptor_not_a_pointer(%d: i64, %i: i32) {
  %b = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<64xf32, #gpu.address_space<workgroup>>
  // CHECK: invalid_irdl.mlir:[[@LINE+1]]:3: error: expected '!llvm.ptr' but got 'i64'
  "nvasync.tma_store"(%d, %b, %i) : (i64, memref<64xf32, #gpu.address_space<workgroup>>, i32) -> ()
  return
}

// -----
func.func @wrong_result_type() {
  // CHECK: invalid_irdl.mlir:[[@LINE+1]]:8: error: expected 'i1' but got 'i32'
  %e = "nvasync.elect_one"() : () -> i32
  return
}

// -----
// wgmma's result has the accumulator's type (one IRDL constraint variable).
func.func @wgmma_result_not_acc_type(%acc: vector<32xf32>) {
  %x = "nvasync.smem_buffer"() {offset = 0 : i64} : () -> memref<64x16xbf16, #gpu.address_space<workgroup>>
  // CHECK: invalid_irdl.mlir:[[@LINE+1]]:8: error: expected 'vector<32xf32>' but got 'vector<16xf32>'
  %r = "nvasync.wgmma"(%x, %x, %acc) {swizzle = 128 : i32, accumulate = true} : (memref<64x16xbf16, #gpu.address_space<workgroup>>, memref<64x16xbf16, #gpu.address_space<workgroup>>, vector<32xf32>) -> vector<16xf32>
  return
}

// -----
func.func @missing_region() {
  // CHECK: invalid_irdl.mlir:[[@LINE+1]]:3: error: 'nvasync.warp_role' op unexpected number of regions: expected 1 but got 0
  "nvasync.warp_role"() {first_warp = 0 : i32, num_warps = 4 : i32} : () -> ()
  return
}

// -----
func.func @unknown_op() {
  // CHECK: invalid_irdl.mlir:[[@LINE+1]]:3: error: unregistered operation 'nvasync.no_such_op' found in dialect ('nvasync') that does not allow unknown operations
  "nvasync.no_such_op"() : () -> ()
  return
}
