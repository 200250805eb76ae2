#pragma once

// MCP resources: sandbox://languages (the language catalogue as JSON) and the files of open
// sessions, sandbox://sessions/{session_id}/files/{path}, which read_file links to.

#include "app/services.h"
#include "mcp/json_rpc.h"

namespace paddock::mcp {

json list_resources();
json list_resource_templates();
// The resources/read result's "contents", or an error (-32602 for an unknown resource).
struct ResourceRead {
  json contents;
  bool shared = false;  // the same for every client (cacheable in public)
};
std::variant<ResourceRead, RpcError> read_resource(const app::Services& services,
                                                   const json& params);

}  // namespace paddock::mcp
