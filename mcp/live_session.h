#pragma once

// A session's live interpreter, as the MCP tools see it: started with the session when the
// language's policy names a kernel and the backend and root file system have one, and described
// the same way by create_session, get_session and restart_session.

#include "mcp/secret_mask.h"
#include "mcp/server_state.h"
#include "mcp/session_registry.h"
#include "mcp/tool.h"

namespace paddock::mcp {

// How long a kernel may take to become ready (an R kernel on a loaded machine).
inline constexpr double kKernelReadySeconds = 60;

// Starts the session's interpreter, or records why it has none (entry.not_live): `wanted` false
// when the caller asked for a session without one. Called under entry.run_mutex.
// What the kernel said when it failed is masked with `secrets` (a kernel's log may print them).
void start_interpreter(SessionEntry& entry, bool wanted, const SecretMask& secrets);

// {"live": bool, "interpreter": {...}} or {"live": false, "not_live_reason": "..."}.
json interpreter_json(const SessionEntry& entry);

// One line for a tool's text: "live: variables persist between calls (python3 kernel)" or why not.
std::string interpreter_line(const SessionEntry& entry);

// The schema of interpreter_json's fields, for output schemas.
json interpreter_schema_properties();

}  // namespace paddock::mcp
