#pragma once

// paddock mcp --share-roots: the client's roots (roots/list) as shares. A legacy-era client is
// asked once the handshake is done (notifications/initialized) and again whenever it says its
// roots changed (notifications/roots/list_changed); each answer replaces the shares taken from
// the roots before, so the next call sees them. Only the answer to the latest question counts:
// one that comes late, for a list since replaced, is dropped. The reader thread alone calls it.
// The 2026-07-28 revision has no
// handshake nor change notification, so a client of that era shares no roots.

#include <cstdint>
#include <string>

#include "app/server_config.h"
#include "app/shares.h"
#include "mcp/json_rpc.h"
#include "mcp/message_writer.h"

namespace paddock::mcp {

class ClientRoots {
 public:
  ClientRoots(MessageWriter& writer, app::Shares& shares, app::ServerOptions::RootSharing sharing)
      : writer_(writer), shares_(shares), sharing_(sharing) {}

  // After notifications/initialized or notifications/roots/list_changed: asks the client for
  // its roots, if roots are shared and it declared the roots capability (which it says once).
  void ask(const json& client_capabilities);
  // A response to one of our roots/list requests is taken (true); any other is not (false).
  bool take_response(const Incoming& response);

 private:
  void share(const json& result);

  MessageWriter& writer_;
  app::Shares& shares_;
  const app::ServerOptions::RootSharing sharing_;
  std::uint64_t asked_ = 0;  // the number in the latest request's id
  bool said_none_ = false;   // the line about a client without roots went out
};

}  // namespace paddock::mcp
