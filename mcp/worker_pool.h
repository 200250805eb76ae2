#pragma once

// A fixed number of threads taking jobs from a bounded queue: a burst of calls waits its turn
// instead of starting unbounded sandboxes, and a full queue is refused at once.

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace paddock::mcp {

class WorkerPool {
 public:
  WorkerPool(std::size_t threads, std::size_t max_queued);
  ~WorkerPool() { stop(); }
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // False when the queue is full or the pool stopped.
  bool submit(std::function<void()> job);
  // Runs what is already running to its end, drops what is queued, joins every thread.
  void stop();

 private:
  void work();
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> queue_;
  std::vector<std::thread> threads_;
  std::size_t max_queued_;
  bool stopping_ = false;
};

}  // namespace paddock::mcp
