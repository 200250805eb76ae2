#pragma once

// The kernel bridge's Python source (kernel/kernel_bridge.py), embedded at build time: it runs
// with `python3 -I -c`, so nothing of it is read from a file a program could change.

namespace paddock::runtime {

const char* kernel_bridge_source();

}  // namespace paddock::runtime
