#include "mcp/progress_observer.h"

#include "app/server_state.h"

namespace paddock::mcp {

ProgressObserver::ProgressObserver(ToolContext& context, std::chrono::milliseconds interval)
    : OutputProgress(context.progress, context.state.secrets(),
                     context.state.options().result_stream_bytes, context.cancellation, interval) {}

}  // namespace paddock::mcp
