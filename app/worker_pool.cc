#include "app/worker_pool.h"

#include <exception>

#include "app/log.h"

namespace paddock::app {

WorkerPool::WorkerPool(std::size_t threads, std::size_t max_queued, std::size_t max_queued_bytes)
    : max_queued_(max_queued), max_queued_bytes_(max_queued_bytes) {
  for (std::size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { work(); });
}

Admission WorkerPool::submit(std::function<void()> job, std::size_t bytes,
                             FailureHandler on_failure) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return {Admission::kStopped};
    if (queue_.size() >= max_queued_) return {Admission::kQueueFull};
    if (bytes > max_queued_bytes_ - queued_bytes_) return {Admission::kOverByteBudget};
    queued_bytes_ += bytes;
    queue_.push_back({std::move(job), bytes, std::move(on_failure)});
  }
  ready_.notify_one();
  return {Admission::kAccepted};
}

void WorkerPool::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    queue_.clear();
    queued_bytes_ = 0;
  }
  ready_.notify_all();
  for (auto& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
  threads_.clear();
}

void WorkerPool::run_guarded(Job& job) {
  std::string what;
  try {
    job.run();
    return;
  } catch (const std::exception& failure) {
    what = failure.what();
  } catch (...) {
    what = "an exception that is not a std::exception";
  }
  log(LogLevel::kError, "a request failed: " + what);
  if (!job.on_failure) return;
  try {
    job.on_failure(what);
  } catch (...) {
    log(LogLevel::kError, "and so did answering it");
  }
}

void WorkerPool::work() {
  for (;;) {
    Job job;
    {
      std::unique_lock lock(mutex_);
      ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      job = std::move(queue_.front());
      queue_.pop_front();
      queued_bytes_ -= job.bytes;
    }
    run_guarded(job);
  }
}

}  // namespace paddock::app
