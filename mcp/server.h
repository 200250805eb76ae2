#pragma once

// `paddock mcp`: an MCP server on stdin and stdout. The reader thread parses each line and
// answers what is instant (handshake, ping, lists) itself; tool calls and resource reads go to
// a bounded worker pool, so a long run never delays anything else. A cancellation kills that
// call's sandbox; end of input or SIGTERM kills every sandbox, and the server exits 0.

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "app/live_session.h"
#include "app/services.h"
#include "app/worker_pool.h"
#include "mcp/client_questions.h"
#include "mcp/client_roots.h"
#include "mcp/json_rpc.h"
#include "mcp/line_reader.h"
#include "mcp/message_writer.h"
#include "mcp/protocol.h"
#include "mcp/suspended_call.h"
#include "mcp/tool_registry.h"

namespace paddock::mcp {

// A 2026-07-28 call's result that no retry came for is dropped after this.
inline constexpr std::chrono::minutes kAbandonedAfter{10};

// Inbound lines may carry files for write_file; beyond this they are refused unread.
inline constexpr std::size_t kMaxInboundLine = 32u << 20;

// How the server's operator sets a setting a failed call names (ToolResult::setting): the
// command above says it, by its flag and variable; empty: nothing to add.
using SettingWording = std::function<std::string(const std::string& setting)>;

class Server {
 public:
  // `kernels`: the ready kernels, which open none while a call runs. `wording`: how a tool's
  // error that names a setting says how to set it (the command's flag and variable).
  Server(const app::Services& services, app::KernelPool& kernels, const ToolRegistry& tools,
         int in_fd, int out_fd, SettingWording wording = {});
  // Log lines stop going to the client (logging/setLevel) before the writer goes.
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;
  // Serves until end of input or SIGTERM/SIGINT/SIGHUP (which the caller must have blocked in
  // every thread, so they arrive here through a signalfd). Returns the exit status.
  int run();

 private:
  struct InFlight {
    runtime::CancellationToken token;
    std::atomic<bool> cancelled{false};
    std::shared_ptr<void> until_answered;  // ToolContext::until_answered
  };

  void handle_line(const LineReader::Line& line);
  void handle_request(const Incoming& request);
  void handle_notification(const Incoming& notification);
  void submit(const Incoming& request, const Era& era);
  // A 2026-07-28 retry that brings the person's answers (params.requestState).
  void resume(const Incoming& request);
  // The way to the person for one call (--ask): a legacy era's channel, or the call's
  // suspension in 2026-07-28 (registered under its requestState).
  // `cancel` cancels the call, for a notifications/cancelled that names a 2026-07-28 retry.
  std::shared_ptr<app::UserChannel> user_channel(const json& params, const Era& era, const json& id,
                                                 const json& capabilities,
                                                 std::function<void()> cancel);
  json call_tool(const json& params, const Era& era, const json& progress_token,
                 InFlight& in_flight, std::shared_ptr<app::UserChannel> user);
  void forget_suspension(const SuspendedCall& suspension);
  void respond(const json& id, json result, const Era& era, const CachePolicy& cache = {});
  void respond_error(const json& id, const RpcError& error);
  [[nodiscard]] Era legacy_era() const;
  // The guidance for the model (initialize, server/discover); `roots`: whether the era can
  // share the client's roots (only a legacy one, whose client says when they change).
  [[nodiscard]] std::string instructions(bool roots) const;
  void shut_down();

  const app::Services& services_;
  const app::ServerOptions& options_;
  app::KernelPool& kernels_;
  const ToolRegistry& tools_;
  SettingWording wording_;
  int in_fd_;
  LineReader reader_;
  MessageWriter writer_;
  // Before the pool: its workers' calls ask through it until they are stopped.
  ClientQuestions questions_;
  ClientRoots roots_;  // --share-roots
  app::WorkerPool pool_;
  std::optional<std::string> negotiated_version_;  // reader thread only
  json client_capabilities_;                       // initialize's; reader thread only
  std::mutex suspended_mutex_;
  std::map<std::string, std::shared_ptr<SuspendedCall>> suspended_;  // by requestState
  std::mutex in_flight_mutex_;
  std::map<std::string, std::shared_ptr<InFlight>> in_flight_;  // by the request id's JSON
};

}  // namespace paddock::mcp
