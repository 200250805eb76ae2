// Reading a process's proportional set size (runtime/native/process_memory.h).

#include <unistd.h>

#include <gtest/gtest.h>

#include "runtime/native/process_memory.h"

namespace paddock::native::process_memory_test {
namespace {

TEST(ProcessMemory, ReadsThePssLineAndNoOther) {
  const char* rollup =
      "5606c6d09000-7ffcce464000 ---p 00000000 00:00 0 [rollup]\n"
      "Rss:                1760 kB\n"
      "Pss:                 760 kB\n"
      "Pss_Dirty:           116 kB\n";
  EXPECT_EQ(pss_in_smaps_rollup(rollup), 760u * 1024);
  EXPECT_EQ(pss_in_smaps_rollup("x\nRss: 1 kB\nPss_Dirty: 116 kB\n"), std::nullopt);
  EXPECT_EQ(pss_in_smaps_rollup("x\nPss: many kB\n"), std::nullopt);
  EXPECT_EQ(pss_in_smaps_rollup("x\nPss: 12 MB\n"), std::nullopt);
}

TEST(ProcessMemory, SumsLiveProcessesAndCountsNothingForAGoneOne) {
  std::uint64_t mine = proportional_set_size({getpid()});
  EXPECT_GT(mine, 64u * 1024);
  // A number no process has (above the kernel's pid_max limit).
  EXPECT_EQ(proportional_set_size({1 << 30}), 0u);
  EXPECT_GT(proportional_set_size({getpid(), 1 << 30}), 0u);
}

}  // namespace
}  // namespace paddock::native::process_memory_test
