#include "mcp/progress_observer.h"

#include "app/services.h"

namespace paddock::mcp {

ProgressObserver::ProgressObserver(ToolContext& context, std::chrono::milliseconds interval)
    : OutputProgress(context.progress, context.services.secrets,
                     context.services.options.result_stream_bytes, context.cancellation, interval) {
}

}  // namespace paddock::mcp
