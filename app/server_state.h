#pragma once

// What every request of one `paddock mcp` process shares: its options, the resources below the
// protocol (app/resources.h: the backend, the language policies, the sessions, the images,
// the secrets to mask, the audit log and the shares), the warm sandboxes, the ready kernels, and
// the services made of them (app/services.h).

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "app/language_catalog.h"
#include "app/live_session.h"
#include "app/resources.h"
#include "app/server_config.h"
#include "app/services.h"
#include "app/warm_pool.h"
#include "language/policy_store.h"
#include "runtime/backend.h"
#include "state/state_dir.h"

namespace paddock::app {

// What the server masks, as "NAME=VALUE" entries: the passed-through variables' values, and the
// brokered secrets' too, which never enter a sandbox but come back if a host echoes them (a
// second line of defence). The one list for results, the audit log and the server's own log.
std::vector<std::string> masked_assignments(const ServerOptions& options);

// Refuses --ready-kernels naming a language there is none of, or one without live sessions (a
// Jupyter kernel), in one line.
core::Status check_ready_kernels(const ServerOptions& options,
                                 const language::PolicyStore& policies);

// How long after the start ready kernels wait before they open: a server that ends sooner (a
// script's, a test's) starts none, and one that serves a client has its first within seconds.
inline constexpr std::chrono::seconds kReadyKernelsAfter{3};

// The one composition root of `paddock mcp`: it owns everything one server's requests share
// (its options, the resources, the pools, the state directory) and makes each service once, with
// the pieces it uses. Nothing takes the root itself: front-ends get services().
class ServerState {
 public:
  ServerState(ServerOptions options, std::unique_ptr<runtime::Backend> backend,
              language::PolicyStore policies, std::unique_ptr<AuditLog> audit = nullptr,
              Shares shares = {}, std::unique_ptr<state::StateDir> state_dir = nullptr);
  ~ServerState();
  ServerState(const ServerState&) = delete;
  ServerState& operator=(const ServerState&) = delete;

  [[nodiscard]] const ServerOptions& options() const { return options_; }
  [[nodiscard]] const Services& services() const { return services_; }
  // Live sessions' sandboxes with their kernel ready (live_session.h): a call holds the pool
  // while it runs (mcp/server.cc).
  [[nodiscard]] KernelPool& kernels() { return kernels_; }

  // What a server does once it is made: removes kept sessions past their retention, and starts
  // keeping warm sandboxes for the default language.
  void start();

 private:
  // What the pools hold, for Services::pools.
  PoolsSummary pools_summary();
  // A live session of `language` with its kernel ready, for the kernel pool.
  core::Result<std::unique_ptr<ReadyKernel>> open_ready_kernel(const std::string& language,
                                                               const runtime::SandboxShape& shape);

  const ServerOptions options_;
  // Before the sessions (in resources_): they hold its sessions' locks and write into it.
  const std::unique_ptr<state::StateDir> state_dir_;
  Resources resources_;
  ToolchainVersions toolchain_versions_;
  const Toolchains toolchains_;
  // After the resources, so that they go first: their sandboxes close while the backend is
  // still there. Each fills only once prepared (after this object is made: the kernels' opener
  // uses runner_, made after them), and counts the other's as taken room.
  // The pools' one memory budget: made before them, as they join it.
  PoolMemory pool_memory_;
  WarmPool warm_;
  KernelPool kernels_;
  // Questions waiting for the person (--ask), network and previews together.
  OpenQuestions open_questions_;
  // The services: references to what is above, nothing of their own to close.
  const CodeRunner runner_;
  const KeptSessions kept_;
  const CodeService code_;
  const SessionService sessions_;
  const LanguageCatalog catalog_;
  const SessionExporter exporter_;
  const SessionSnapshots snapshots_;
  const SessionTransfers transfers_;
  const Services services_;
};

}  // namespace paddock::app
