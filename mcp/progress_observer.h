#pragma once

// A tool call's watch over its sandboxed command: app/output_progress.h's progress, sent as
// the call's progress notifications, with the call's cancellation and the server's stream cap.

#include <chrono>

#include "app/output_progress.h"
#include "mcp/tool.h"

namespace paddock::mcp {

class ProgressObserver final : public app::OutputProgress {
 public:
  explicit ProgressObserver(ToolContext& context,
                            std::chrono::milliseconds interval = app::OutputProgress::kInterval);
};

}  // namespace paddock::mcp
