// The pools' memory budget (app/pool_memory.h) on the pool class itself, with held things of
// known sizes: one larger than the budget is opened once, measured, and never kept; pools that
// share a budget give way least recently wanted first, within one pool and across two; and what
// they hold together never passes the budget. Real sandboxes and their measured PSS are tested
// through a server (tests/integration/pool_memory_test.cc).

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "app/pool_memory.h"
#include "app/warm_pool.h"

namespace paddock::app::app_pool_memory_test {
namespace {

constexpr std::uint64_t kMiB = 1024 * 1024;

struct Held {
  std::string language;
  bool ended() { return false; }
};

// A pool whose `language` sandboxes hold sizes[language] bytes each, counting its openings.
class SizedPool {
 public:
  SizedPool(PoolMemory& memory, std::map<std::string, std::uint64_t> sizes)
      : sizes_(std::move(sizes)),
        pool_(
            1,
            [this](const std::string& language, const runtime::SandboxShape&,
                   const std::optional<runtime::WarmInterpreter>&)
                -> core::Result<std::unique_ptr<Held>> {
              ++openings_;
              return std::make_unique<Held>(Held{language});
            },
            [](std::size_t) { return true; }, &memory,
            [this](Held& held) { return sizes_.at(held.language); }) {}

  BasicWarmPool<Held>& pool() { return pool_; }
  [[nodiscard]] int openings() const { return openings_; }

  void want(const std::string& language) {
    pool_.prepare(language, runtime::SandboxShape{}, std::nullopt, 1);
  }
  std::size_t waiting(const std::string& language) {
    for (const auto& holding : pool_.holdings("sized")) {
      if (holding.language == language) return holding.waiting;
    }
    return 0;
  }
  // Waits until `language` has `count` waiting (or 5 s); whether it has.
  bool settles(const std::string& language, std::size_t count) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (waiting(language) != count && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return waiting(language) == count;
  }

 private:
  std::map<std::string, std::uint64_t> sizes_;
  std::atomic<int> openings_{0};
  BasicWarmPool<Held> pool_;
};

TEST(PoolMemory, OneLargerThanTheBudgetIsOpenedOnceMeasuredAndNeverKept) {
  PoolMemory memory(50 * kMiB);
  SizedPool sized(memory, {{"python", 100 * kMiB}});
  sized.want("python");
  // Past two of the budget's retries (one a second): its size is known, it is not opened again.
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  EXPECT_EQ(sized.openings(), 1);
  EXPECT_EQ(sized.waiting("python"), 0u);
  EXPECT_EQ(memory.held(), 0u);
  EXPECT_EQ(sized.pool().take("python", {}, std::nullopt, {}), nullptr);
}

TEST(PoolMemory, WithinOnePoolTheLeastRecentlyWantedGivesWay) {
  PoolMemory memory(250 * kMiB);
  SizedPool sized(memory, {{"a", 100 * kMiB}, {"b", 100 * kMiB}, {"c", 100 * kMiB}});
  for (const char* language : {"a", "b"}) {
    sized.want(language);
    ASSERT_TRUE(sized.settles(language, 1)) << language;
  }
  sized.want("c");
  ASSERT_TRUE(sized.settles("c", 1));
  EXPECT_EQ(sized.waiting("a"), 0u) << "the least recently wanted gives way";
  EXPECT_EQ(sized.waiting("b"), 1u);
  EXPECT_LE(memory.held(), 250 * kMiB);
  // A call for "a" finds none, and wants it again: now "b" is the least recently wanted.
  EXPECT_EQ(sized.pool().take("a", {}, std::nullopt, {}), nullptr);
  ASSERT_TRUE(sized.settles("a", 1));
  EXPECT_EQ(sized.waiting("b"), 0u);
  EXPECT_EQ(sized.waiting("c"), 1u);
  EXPECT_EQ(memory.held(), 200 * kMiB);
}

TEST(PoolMemory, AcrossPoolsTheLeastRecentlyWantedGivesWayAndNeverTheReverse) {
  PoolMemory memory(150 * kMiB);
  SizedPool warm(memory, {{"python", 100 * kMiB}});
  SizedPool kernels(memory, {{"python", 100 * kMiB}});
  warm.want("python");
  ASSERT_TRUE(warm.settles("python", 1));
  kernels.want("python");
  ASSERT_TRUE(kernels.settles("python", 1));
  EXPECT_EQ(warm.waiting("python"), 0u) << "the warm sandbox was wanted before the kernel";
  // The warm pool looks again each second, and finds the kernel wanted after it: it stays.
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  EXPECT_EQ(warm.waiting("python"), 0u);
  EXPECT_EQ(kernels.waiting("python"), 1u);
  EXPECT_EQ(warm.openings(), 1);
  EXPECT_EQ(kernels.openings(), 1);
  EXPECT_EQ(memory.held(), 100 * kMiB);
}

TEST(PoolMemory, ABudgetOfZeroOpensNothing) {
  PoolMemory memory(0);
  SizedPool sized(memory, {{"python", 1}});
  sized.want("python");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(sized.openings(), 0);
}

}  // namespace
}  // namespace paddock::app::app_pool_memory_test
