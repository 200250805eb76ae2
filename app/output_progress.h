#pragma once

// Watches a sandboxed command for a caller that shows its output as it comes (a tool call's
// progress notifications, mcp/progress_observer.h): the output goes out whole lines at a time,
// and the caller's cancellation reaches the sandbox.
// Progress never carries more than the result may: the start of each stream up to the server's
// result_stream_bytes (backends report every byte; the rest is dropped here), in messages that
// go at most once per interval, so a program printing for its whole timeout costs the client no
// more than its result does.

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "app/secret_mask.h"
#include "runtime/backend.h"

namespace paddock::app {

// Output cut into progress messages: whole lines, or 4 KiB of a line that does not end, each
// with passed-through secrets masked, none of them split between two messages.
class ProgressLines {
 public:
  ProgressLines(const SecretMask& secrets, std::function<void(const std::string&)> send)
      : secrets_(secrets), send_(std::move(send)) {}
  void take(std::string_view chunk);

 private:
  void flush(std::size_t length);
  const SecretMask& secrets_;
  std::function<void(const std::string&)> send_;
  std::string pending_;  // the start of a line whose end has not come yet
};

// When messages go out: at most one per interval. What comes sooner waits, joined with what
// follows, and goes with the first message after the interval or at finish(); a message is at
// most 64 KiB, so a burst loses its middle rather than flooding. (There is no timer: output
// that waits goes when more output comes or the run ends.)
class ProgressPacer {
 public:
  ProgressPacer(std::function<void(const std::string&)> send, std::chrono::milliseconds interval)
      : send_(std::move(send)), interval_(interval) {}
  void offer(const std::string& message);
  void finish();

 private:
  std::function<void(const std::string&)> send_;
  std::chrono::milliseconds interval_;
  std::optional<std::chrono::steady_clock::time_point> last_sent_;
  std::string waiting_;
};

// A run's output as progress messages, through `send`: at most `stream_bytes` of each stream (a
// result's own cap), masked with `secrets`, paced by `interval`; cancelled with `cancellation`.
class OutputProgress : public runtime::RunObserver {
 public:
  using Send = std::function<void(const std::string& message)>;
  static constexpr std::chrono::milliseconds kInterval{200};

  OutputProgress(Send send, const SecretMask& secrets, std::uint64_t stream_bytes,
                 const runtime::CancellationToken& cancellation,
                 std::chrono::milliseconds interval = kInterval);
  OutputProgress(const OutputProgress&) = delete;
  OutputProgress& operator=(const OutputProgress&) = delete;
  // Sends what waits, before the caller's result goes out.
  ~OutputProgress() override;

  void on_output(runtime::StreamId stream, std::string_view chunk) override;
  [[nodiscard]] const runtime::CancellationToken* cancellation() const override {
    return &cancellation_;
  }

 private:
  const runtime::CancellationToken& cancellation_;
  ProgressPacer pacer_;
  ProgressLines lines_;
  std::uint64_t room_[2];  // what each stream (stdout, stderr) may still send
};

}  // namespace paddock::app
