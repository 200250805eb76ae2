#pragma once

// What a run's egress proxy did, as a result tells the model: the destinations it refused and
// why (so the model can tell the user which host to allow: it cannot widen the list itself), and
// those the user allowed when asked (paddock mcp --ask network).

#include <string>

#include "mcp/json_rpc.h"
#include "net/egress/egress_record.h"

namespace paddock::mcp {

// Lines for the result's text, each ending in a newline; empty when there is nothing to say.
std::string network_lines(const net::egress::EgressRecord& network);

// structuredContent.network: {denied, denied_omitted, allowed_by_user}; null when there is
// nothing to say.
json network_json(const net::egress::EgressRecord& network);

}  // namespace paddock::mcp
