#pragma once

// A tool call's watch over its sandboxed command: services/output_progress.h's progress, sent as
// the call's progress notifications, with the call's cancellation and the server's stream cap.

#include <chrono>

#include "mcp/tool.h"
#include "services/output_progress.h"

namespace paddock::mcp {

class ProgressObserver final : public OutputProgress {
 public:
  explicit ProgressObserver(ToolContext& context, std::chrono::milliseconds interval = kInterval);
};

}  // namespace paddock::mcp
