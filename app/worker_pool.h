#pragma once

// A fixed number of threads taking jobs from a bounded queue: a burst of calls waits its turn
// instead of starting unbounded sandboxes, and a full queue is refused at once. The queue is
// bounded in jobs and in bytes (what each job holds, as its submitter counts it), so many
// large requests cannot pile up gigabytes. A job that throws ends itself, never a thread.

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <limits>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace paddock::app {

struct Admission {
  enum Kind { kAccepted, kQueueFull, kOverByteBudget, kStopped } kind = kAccepted;
  explicit operator bool() const { return kind == kAccepted; }
};

class WorkerPool {
 public:
  // Gets what a job threw (its what()), on the job's thread, so it can still answer its caller.
  using FailureHandler = std::function<void(const std::string& what)>;

  WorkerPool(std::size_t threads, std::size_t max_queued,
             std::size_t max_queued_bytes = std::numeric_limits<std::size_t>::max());
  ~WorkerPool() { stop(); }
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Refused when the queue holds max_queued jobs, or `bytes` more would take it past
  // max_queued_bytes, or the pool stopped. A job's bytes count until it starts.
  Admission submit(std::function<void()> job, std::size_t bytes = 0,
                   FailureHandler on_failure = {});
  // Runs what is already running to its end, drops what is queued, joins every thread.
  void stop();

 private:
  struct Job {
    std::function<void()> run;
    std::size_t bytes = 0;
    FailureHandler on_failure;
  };
  void work();
  static void run_guarded(Job& job);
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Job> queue_;
  std::vector<std::thread> threads_;
  std::size_t max_queued_;
  std::size_t max_queued_bytes_;
  std::size_t queued_bytes_ = 0;
  bool stopping_ = false;
};

}  // namespace paddock::app
