#pragma once

// Watches a sandboxed command for a tool call: its output goes to the client as progress
// notifications, whole lines at a time, and the call's cancellation reaches the sandbox.

#include <functional>
#include <string>
#include <string_view>

#include "backend.h"
#include "secret_mask.h"
#include "server_state.h"
#include "tool.h"

namespace paddock::mcp {

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

class ProgressObserver final : public RunObserver {
 public:
  explicit ProgressObserver(ToolContext& context)
      : context_(context), lines_(context.state.secrets, context.progress) {}
  void on_output(StreamId /*stream*/, std::string_view chunk) override { lines_.take(chunk); }
  [[nodiscard]] const CancellationToken* cancellation() const override {
    return &context_.cancellation;
  }

 private:
  ToolContext& context_;
  ProgressLines lines_;
};

}  // namespace paddock::mcp
