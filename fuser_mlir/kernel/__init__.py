"""What every scheduler shares to build kernel IR: IR builder helpers and the scalar math table."""
