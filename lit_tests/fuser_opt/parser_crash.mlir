// Input on which MLIR's parser hits an LLVM assertion (an `index` dense array: the element
// parser asks `index` for its bit width) does not kill fuser-opt: a forked child parses each
// chunk first, and its crash becomes an error located where the parser died, with exit status 1
// (`not` without --crash fails on a crash).  The process lives on: the next chunk is compiled.
// RUN: not fuser-opt %s --split-input-file 2>%t.err | FileCheck %s --check-prefix=NEXT
// RUN: FileCheck %s < %t.err

func.func @f(%x: tensor<4xf32>) -> tensor<2x4xf32> {
  // CHECK: parser_crash.mlir:[[@LINE+1]]:49: error: MLIR's parser crashed on the input up to here ({{.*}}Assertion {{.*}} failed.)
  %r = "fusion.broadcast"(%x) {dims = array<index: 0, 1>} : (tensor<4xf32>) -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}
// -----
// NEXT: func.func @after_the_crash
func.func @after_the_crash() {
  return
}
