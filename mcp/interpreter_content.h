#pragma once

// A session's live interpreter (app/live_session.h) as create_session, get_session and
// restart_session show it in their structured results.

#include "app/session_registry.h"
#include "mcp/json_rpc.h"

namespace paddock::mcp {

// {"live": bool, "interpreter": {...}} or {"live": false, "not_live_reason": "..."}.
json interpreter_json(const app::SessionEntry& entry);

// The schema of interpreter_json's fields, for output schemas.
json interpreter_schema_properties();

}  // namespace paddock::mcp
