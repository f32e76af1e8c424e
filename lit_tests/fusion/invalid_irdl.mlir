// IRDL-level errors of fusion ops (operand kinds, required attributes, attribute kinds) are
// reported by MLIR's verifier right after parsing, as `file:line:col: error:` at the op, with exit
// status 1.  (Type agreement between operands is a value check: invalid.mlir.)
// RUN: not fuser-opt %s --split-input-file 2>&1 | FileCheck %s --implicit-check-not=Traceback

func.func @unranked(%x: tensor<*xf32>) -> tensor<*xf32> {
  // CHECK: invalid_irdl.mlir:[[@LINE+1]]:8: error: expected base type 'builtin.tensor' but got 'builtin.unranked_tensor'
  %r = "fusion.unary"(%x) {kind = "exp"} : (tensor<*xf32>) -> tensor<*xf32>
  return %r : tensor<*xf32>
}

// -----
func.func @reduce_missing_keepdim(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // CHECK: invalid_irdl.mlir:[[@LINE+1]]:8: error: 'fusion.reduce' op attribute "keepdim" is expected but not provided
  %r = "fusion.reduce"(%x) {kind = "sum", axes = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----
func.func @broadcast_dims_kind(%x: tensor<4xf32>) -> tensor<2x4xf32> {
  // CHECK: invalid_irdl.mlir:[[@LINE+1]]:8: error: expected base attribute 'builtin.dense_array' but got 'builtin.array'
  %r = "fusion.broadcast"(%x) {dims = [1]} : (tensor<4xf32>) -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// -----
func.func @matmul_missing_operand(%a: tensor<4x8xf32>) -> tensor<4x2xf32> {
  // CHECK: invalid_irdl.mlir:[[@LINE+1]]:8: error: op expects exactly 2 operands, but got 1
  %r = "fusion.matmul"(%a) : (tensor<4x8xf32>) -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}
