// --split-input-file processes each `// -----` chunk as its own module: the outputs are printed
// in order, separated by `// -----`; an error in one chunk does not stop the others, is reported
// at its line in the whole file, and makes the exit status 1.  Without the flag the markers are
// ordinary comments and the file is one module (where @first is defined twice).
// RUN: not fuser-opt %s --split-input-file > %t.out 2> %t.err
// RUN: FileCheck %s < %t.out
// RUN: FileCheck %s --check-prefix=ERR < %t.err
// RUN: not fuser-opt %s --split-input-file -p canonicalize 2>/dev/null | FileCheck %s --check-prefix=PASSES
// RUN: not fuser-opt %s 2>&1 | FileCheck %s --check-prefix=WHOLE

// CHECK: module {
// CHECK-NEXT: func.func @first()
// CHECK: {{^}}}
// CHECK-NEXT: // -----
// CHECK-NEXT: module {
// CHECK-NEXT: func.func @second()
// CHECK-NEXT: "nvasync.bulk_commit"
// CHECK: {{^}}}
// CHECK-NEXT: // -----
// CHECK-NEXT: module {
// CHECK-NEXT: func.func @first()
// CHECK: {{^}}}
// CHECK-NEXT: // -----
// CHECK-NEXT: module {
// CHECK-NEXT: func.func @third()
// CHECK-NOT: // -----
// CHECK-NOT: @bad

// Passes run on every chunk that verifies.
// PASSES: func.func @first()
// PASSES: // -----
// PASSES: func.func @second()
// PASSES: // -----
// PASSES: func.func @first()
// PASSES: // -----
// PASSES: func.func @third()

func.func @first() {
  return
}
// -----
func.func @second() {
  "nvasync.bulk_commit"() : () -> ()
  return
}
// -----
// WHOLE: split_input_file.mlir:[[@LINE+1]]:1: error: redefinition of symbol named 'first'
func.func @first() {
  return
}
// -----
func.func @bad() {
  // ERR: split_input_file.mlir:[[@LINE+2]]:3: error: 'nvasync.wgmma_wait' op pending must be in [0, 7], got 9
  // ERR-NOT: error
  "nvasync.wgmma_wait"() {pending = 9 : i32} : () -> ()
  return
}
// -----
func.func @third() {
  return
}
