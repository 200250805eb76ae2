#pragma once

// paddock's own stdin, made safe to hand to a sandbox. A terminal (or a socket, or any device)
// is more than a stream of input: the program could write escape sequences onto the user's
// screen around --json, the output caps and secret masking, change the terminal's modes, or
// inject keystrokes. Such an stdin is relayed through a pipe by a thread of paddock's, so the
// program only ever reads bytes. Regular files and pipes are given as they are: reading is all
// anyone can do with them.

#include <thread>

#include "core/result.h"
#include "core/unique_fd.h"

namespace paddock::cli {

class StdinRelay {
 public:
  // The fd to give the sandbox in place of `source`: `source` itself when that is safe, else
  // the read end of a pipe fed from it until end-of-file or stop().
  static core::Result<StdinRelay> start(int source);

  StdinRelay() = default;
  StdinRelay(StdinRelay&&) noexcept = default;
  StdinRelay& operator=(StdinRelay&&) noexcept = delete;
  ~StdinRelay() { stop(); }

  [[nodiscard]] int fd() const { return relayed_ ? read_end_.get() : source_; }
  // Ends the relay (the run is over) and waits for its thread. Idempotent.
  void stop();

 private:
  int source_ = -1;
  bool relayed_ = false;
  core::UniqueFd read_end_;
  core::UniqueFd wake_write_;  // closed by stop() to wake the thread
  std::thread thread_;
};

}  // namespace paddock::cli
