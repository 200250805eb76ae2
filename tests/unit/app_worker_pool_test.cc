#include "app/worker_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <latch>
#include <memory>
#include <stdexcept>
#include <string>

namespace paddock::app::app_worker_pool_test {
namespace {

using namespace std::chrono_literals;

// Polls `done` for up to 5 s.
bool eventually(const std::function<bool()>& done) {
  auto deadline = std::chrono::steady_clock::now() + 5s;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

// What the jobs use is declared before the pool, so it outlives the pool's threads.

TEST(AppWorkerPool, JobsRunConcurrently) {
  std::latch all_started(4);
  std::atomic<int> together{0};
  std::atomic<int> finished{0};
  WorkerPool pool(4, 16);
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(pool.submit([&] {
      all_started.count_down();
      // Counts only when all four jobs ran at the same time.
      if (eventually([&] { return all_started.try_wait(); })) ++together;
      ++finished;
    }));
  }
  ASSERT_TRUE(eventually([&] { return finished == 4; }));
  EXPECT_EQ(together.load(), 4);
}

TEST(AppWorkerPool, AFullQueueIsRefused) {
  std::promise<void> started;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<int> ran{0};
  std::promise<void> again;
  WorkerPool pool(1, 2);
  ASSERT_TRUE(pool.submit([&started, released] {
    started.set_value();
    released.wait();
  }));
  // The one thread is busy: what follows waits in the queue.
  ASSERT_EQ(started.get_future().wait_for(5s), std::future_status::ready);
  EXPECT_TRUE(pool.submit([&] { ++ran; }));
  EXPECT_TRUE(pool.submit([&] { ++ran; }));
  EXPECT_FALSE(pool.submit([&] { ++ran; }));
  release.set_value();
  EXPECT_TRUE(eventually([&] { return ran == 2; }));
  // The queue drained, so there is room again.
  ASSERT_TRUE(pool.submit([&again] { again.set_value(); }));
  EXPECT_EQ(again.get_future().wait_for(5s), std::future_status::ready);
  EXPECT_EQ(ran.load(), 2) << "the refused job never ran";
}

TEST(AppWorkerPool, StopFinishesRunningJobsAndDropsQueuedOnes) {
  std::promise<void> started;
  std::atomic<bool> running_finished{false};
  std::atomic<int> queued_ran{0};
  auto pool = std::make_unique<WorkerPool>(1, 8);
  ASSERT_TRUE(pool->submit([&] {
    started.set_value();
    std::this_thread::sleep_for(200ms);
    running_finished = true;
  }));
  ASSERT_EQ(started.get_future().wait_for(5s), std::future_status::ready);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(pool->submit([&] { ++queued_ran; }));
  pool->stop();  // joins: the running job has finished when it returns
  EXPECT_TRUE(running_finished.load());
  EXPECT_EQ(queued_ran.load(), 0);
  EXPECT_FALSE(pool->submit([&] { ++queued_ran; })) << "a stopped pool takes nothing";
  pool.reset();  // stop() again, from the destructor, is harmless
  EXPECT_EQ(queued_ran.load(), 0);
}

TEST(AppWorkerPool, QueuedJobsAllRun) {
  std::atomic<int> ran{0};
  WorkerPool pool(2, 100);
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(pool.submit([&] { ++ran; }));
  EXPECT_TRUE(eventually([&] { return ran == 50; }));
}

TEST(AppWorkerPool, AThrowingJobIsAnsweredAndItsThreadGoesOn) {
  std::promise<std::string> reported;
  std::promise<void> next_ran;
  WorkerPool pool(1, 4);
  ASSERT_TRUE(pool.submit([]() -> void { throw std::runtime_error("odd engine reply"); }, 0,
                          [&](const std::string& what) { reported.set_value(what); }));
  ASSERT_TRUE(pool.submit([&] { next_ran.set_value(); }));
  auto what = reported.get_future();
  ASSERT_EQ(what.wait_for(5s), std::future_status::ready);
  EXPECT_EQ(what.get(), "odd engine reply");
  EXPECT_EQ(next_ran.get_future().wait_for(5s), std::future_status::ready)
      << "the only thread died with the job";
}

TEST(AppWorkerPool, TheQueueHasAByteBudget) {
  std::promise<void> started;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<int> ran{0};
  WorkerPool pool(1, 16, 100);
  // A running job's bytes no longer count: only the queue's do.
  ASSERT_TRUE(pool.submit(
      [&started, released] {
        started.set_value();
        released.wait();
      },
      100));
  ASSERT_EQ(started.get_future().wait_for(5s), std::future_status::ready);
  EXPECT_TRUE(pool.submit([&] { ++ran; }, 60));
  EXPECT_EQ(pool.submit([&] { ++ran; }, 50).kind, Admission::kOverByteBudget);
  EXPECT_TRUE(pool.submit([&] { ++ran; }, 40));
  EXPECT_EQ(pool.submit([&] { ++ran; }, 1).kind, Admission::kOverByteBudget);
  release.set_value();
  ASSERT_TRUE(eventually([&] { return ran == 2; }));
  EXPECT_TRUE(pool.submit([&] { ++ran; }, 100)) << "the drained queue has its budget back";
  EXPECT_TRUE(eventually([&] { return ran == 3; }));
}

}  // namespace
}  // namespace paddock::app::app_worker_pool_test
