#pragma once

// Where a question's message waits to be written to the client. A question is asked on the
// thread of the sandbox's egress proxy (its event loop), which must never block: a client that
// stops reading would otherwise stall every connection of that sandbox. So the message is
// queued here, and one thread of the server's writes it.

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "mcp/json_rpc.h"
#include "mcp/message_writer.h"

namespace paddock::mcp {

class QuestionOutbox {
 public:
  explicit QuestionOutbox(MessageWriter& writer);
  // Writes what is queued, then stops.
  ~QuestionOutbox();
  QuestionOutbox(const QuestionOutbox&) = delete;
  QuestionOutbox& operator=(const QuestionOutbox&) = delete;
  // Queues `message`; `failed` (may be empty) is called on the writing thread when the client
  // is gone and it could not be written.
  void post(json message, std::function<void()> failed = {});

 private:
  struct Queued {
    json message;
    std::function<void()> failed;
  };
  void run();
  MessageWriter& writer_;
  std::mutex mutex_;
  std::condition_variable queued_;
  std::deque<Queued> queue_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace paddock::mcp
