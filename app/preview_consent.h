#pragma once

// Whether the user lets a session open a port to them (expose_port): yes at once under
// --allow-preview; under --ask preview the person is asked through the call's client, and the
// call waits for the answer (docs/ask.md). Nothing else opens one: no tool argument can.

#include <cstdint>

#include "app/audit_trail.h"
#include "app/server_config.h"
#include "app/session_entry.h"
#include "app/user_channel.h"
#include "core/result.h"

namespace paddock::app {

// An error says why not, in a line for the model.
core::Status preview_consent(const ServerOptions& options, UserChannel* user,
                             const SessionEntry& session, std::uint16_t port,
                             const AuditTrail& audit);

}  // namespace paddock::app
