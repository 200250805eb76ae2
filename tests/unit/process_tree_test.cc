#include "runtime/native/process_tree.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>

namespace paddock::process_tree_test {
namespace {

TEST(ProcessTree, ReadsTheParentAfterTheLastParenthesis) {
  EXPECT_EQ(native::parent_in_stat("42 (sh) S 7 42 42 0 -1 4194560"), 7);
  EXPECT_EQ(native::parent_in_stat("42 (a) b (c) R 1234 42"), 1234);  // a command may hold ") "
  EXPECT_EQ(native::parent_in_stat("1 (init) S 0 1 1"), 0);
  EXPECT_EQ(native::parent_in_stat("42 (sh"), 0);
  EXPECT_EQ(native::parent_in_stat("42 (sh) S x"), 0);
  EXPECT_TRUE(native::zombie_in_stat("42 (a) Z (b) Z 7 42"));
  EXPECT_FALSE(native::zombie_in_stat("42 (Z) S 7 42"));
  EXPECT_FALSE(native::zombie_in_stat("42 (sh"));
}

TEST(ProcessTree, CountsEveryDescendantButTheRoot) {
  // 10 is the root: 11 and 12 its children, 13 a grandchild; 20 and 21 are someone else's.
  std::vector<native::ProcessParent> processes = {{1, 0},   {10, 1}, {11, 10}, {12, 10},
                                                  {13, 12}, {20, 1}, {21, 20}};
  EXPECT_EQ(native::count_descendants(10, processes), 3u);
  EXPECT_EQ(native::count_descendants(11, processes), 0u);
  EXPECT_EQ(native::count_descendants(99, processes), 0u);
  // Parents read one by one may loop after PIDs were reused; the count still ends.
  processes.push_back({10, 13});
  EXPECT_LE(native::count_descendants(10, processes), 4u);
}

TEST(ProcessTree, FindsAChildInTheRealProc) {
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    pause();
    _exit(0);
  }
  auto processes = native::read_process_parents();
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  EXPECT_TRUE(
      std::any_of(processes.begin(), processes.end(), [&](const native::ProcessParent& process) {
        return process.pid == child && process.parent == getpid();
      }));
  EXPECT_GE(native::count_descendants(getpid(), processes), 1u);
}

}  // namespace
}  // namespace paddock::process_tree_test
