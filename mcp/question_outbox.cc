#include "mcp/question_outbox.h"

namespace paddock::mcp {

QuestionOutbox::QuestionOutbox(MessageWriter& writer)
    : writer_(writer), thread_([this] { run(); }) {}

QuestionOutbox::~QuestionOutbox() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  queued_.notify_all();
  thread_.join();
}

void QuestionOutbox::post(json message, std::function<void()> failed) {
  {
    std::lock_guard lock(mutex_);
    queue_.push_back({std::move(message), std::move(failed)});
  }
  queued_.notify_one();
}

void QuestionOutbox::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    queued_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and all written
    Queued next = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    if (!writer_.write(next.message) && next.failed) next.failed();
    lock.lock();
  }
}

}  // namespace paddock::mcp
