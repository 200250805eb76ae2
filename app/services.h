#pragma once

// What a front-end calls, each service made once by the server's root (app/server_state.h) with
// what it uses: a tool or a resource read gets this, never the root itself. The few shared parts
// a tool still reads (the open sessions, the shares, the secrets to mask, the options it shows)
// are here by reference too.

#include <functional>

#include "app/audit_trail.h"
#include "app/code_runner.h"
#include "app/code_service.h"
#include "app/host_questions.h"
#include "app/kept_sessions.h"
#include "app/language_catalog.h"
#include "app/pool_memory.h"
#include "app/secret_mask.h"
#include "app/server_config.h"
#include "app/session_export.h"
#include "app/session_registry.h"
#include "app/session_service.h"
#include "app/session_snapshots.h"
#include "app/session_transfer.h"
#include "app/shares.h"
#include "language/policy_store.h"
#include "runtime/backend.h"

namespace paddock::app {

struct Services {
  const ServerOptions& options;
  const language::PolicyStore& policies;
  const runtime::Backend& backend;
  SessionRegistry& registry;  // the open sessions
  const SecretMask& secrets;
  Shares& shares;  // the client's roots among them change (mcp/client_roots.h)
  const KeptSessions& kept;
  const CodeRunner& runner;
  const CodeService& code;
  const SessionService& sessions;
  const LanguageCatalog& catalog;
  const SessionExporter& exporter;
  const SessionSnapshots& snapshots;
  const SessionTransfers& transfers;
  const AuditTrail& audit;  // for what a front-end decides with the user (app/preview_consent.h)
  OpenQuestions& open_questions;        // the server's questions to the person, all kinds together
  std::function<PoolsSummary()> pools;  // what waits for calls, and the budget it fits in
};

}  // namespace paddock::app
