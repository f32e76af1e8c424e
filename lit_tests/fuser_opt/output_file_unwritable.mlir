// BUG: an -o path that cannot be written (here: in a directory that does not exist) is reported
// as "fuser-opt: error: internal compiler error: FileNotFoundError: ..." -- tools/fuser_opt.py
// _write does not catch OSError, so main() takes it for a compiler bug.  It is a user error, like
// an unreadable input (which gives "FILE: error: cannot read input: ..."): expected a plain
// error naming the output file and its cause, exit 1, and no "internal compiler error".
// RUN: rm -rf %t.dir
// RUN: not fuser-opt %s -o %t.dir/out.mlir 2> %t.err
// RUN: FileCheck %s < %t.err
// RUN: not grep "internal compiler error" %t.err
// RUN: not fuser-opt --dump-irdl -o %t.dir/dialects.irdl.mlir 2> %t.irdl.err
// RUN: FileCheck %s < %t.irdl.err
// RUN: not grep "internal compiler error" %t.irdl.err

// CHECK: error: {{.*}}No such file or directory

func.func @f() {
  return
}
