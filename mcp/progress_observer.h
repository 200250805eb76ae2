#pragma once

// Watches a sandboxed command for a tool call: its output goes to the client as progress
// notifications, whole lines at a time, and the call's cancellation reaches the sandbox.

#include <string>
#include <string_view>

#include "backend.h"
#include "tool.h"

namespace paddock::mcp {

class ProgressObserver final : public RunObserver {
 public:
  explicit ProgressObserver(ToolContext& context) : context_(context) {}
  void on_output(StreamId stream, std::string_view chunk) override;
  [[nodiscard]] const CancellationToken* cancellation() const override {
    return &context_.cancellation;
  }

 private:
  void flush(std::size_t length);
  ToolContext& context_;
  std::string pending_;  // the start of a line whose end has not come yet
};

}  // namespace paddock::mcp
