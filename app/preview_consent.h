#pragma once

// Whether the user lets a session open a port to them (expose_port): yes at once under
// --allow-preview; under --ask preview the person is asked through the call's client, and the
// call waits for the answer (docs/ask.md), or for its cancellation. The question counts among the
// server's open questions (kMaxOpenQuestions), so that previews cannot flood the person either.
// Nothing else opens one: no tool argument can.

#include <cstdint>

#include "app/audit_trail.h"
#include "app/host_questions.h"
#include "app/server_config.h"
#include "app/session_entry.h"
#include "app/user_channel.h"
#include "core/result.h"
#include "runtime/backend.h"

namespace paddock::app {

// An error says why not, in a line for the model.
// Who asks, and where the answer goes.
struct PreviewAsking {
  UserChannel* user = nullptr;  // the call's way to the person, or null
  OpenQuestions& open;
  const AuditTrail& audit;
  const runtime::CancellationToken& cancellation;  // the call's
};

core::Status preview_consent(const ServerOptions& options, const PreviewAsking& asking,
                             const SessionEntry& session, std::uint16_t port);

}  // namespace paddock::app
