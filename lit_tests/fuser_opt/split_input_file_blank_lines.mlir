// BUG: with --split-input-file, diagnostics in a chunk whose `// -----` marker is followed by
// blank lines are reported too early, by one line per blank line after each earlier marker
// (tools/fuser_opt.py: SPLIT_MARKER `^// -----\s*$` swallows the newlines after the marker, and
// _split pads each chunk only by the newlines counted inside the previous pieces).  Here the
// errors come out at lines 18 and 25 instead of 19 and 28.  Expected: the op's own line, as
// without --split-input-file.  (--verify-diagnostics is not affected: it counts lines in the
// same shifted chunk.)
// RUN: not fuser-opt %s --split-input-file 2>&1 | FileCheck %s

func.func @ok() {
  return
}

// -----

func.func @one_blank_line() {
  // CHECK: split_input_file_blank_lines.mlir:[[@LINE+1]]:3: error: 'nvasync.wgmma_wait' op pending must be in [0, 7], got 9
  "nvasync.wgmma_wait"() {pending = 9 : i32} : () -> ()
  return
}

// -----


func.func @two_blank_lines() {
  // CHECK: split_input_file_blank_lines.mlir:[[@LINE+1]]:3: error: 'nvasync.wgmma_wait' op pending must be in [0, 7], got 10
  "nvasync.wgmma_wait"() {pending = 10 : i32} : () -> ()
  return
}
