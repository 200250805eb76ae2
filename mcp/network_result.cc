#include "mcp/network_result.h"

#include <vector>

#include "core/text.h"

namespace paddock::mcp {

std::string network_lines(const net::egress::EgressRecord& network) {
  std::string lines;
  if (!network.allowed_by_user.empty()) {
    std::vector<std::string> shown;
    for (const auto& allowed : network.allowed_by_user) {
      shown.push_back(allowed.host + ":" + std::to_string(allowed.port) + " " + allowed.reason);
    }
    lines += "network: the user allowed " + core::join(shown, ", ") + "\n";
  }
  if (network.denied.empty()) return lines;
  std::vector<std::string> shown;
  for (const auto& denial : network.denied) {
    shown.push_back(denial.host + ":" + std::to_string(denial.port) + " (" + denial.reason + ")");
  }
  lines += "network: refused " + core::join(shown, ", ");
  if (network.dropped > 0) lines += " and " + std::to_string(network.dropped) + " more";
  return lines +
         ". Only the user can allow a host (paddock mcp --allow-host, or --ask network with a "
         "client that supports MCP elicitation); tool arguments cannot.\n";
}

json network_json(const net::egress::EgressRecord& network) {
  if (network.denied.empty() && network.allowed_by_user.empty()) return nullptr;
  json denied = json::array();
  for (const auto& denial : network.denied) {
    denied.push_back({{"host", denial.host}, {"port", denial.port}, {"reason", denial.reason}});
  }
  json record = {{"denied", std::move(denied)}};
  if (network.dropped > 0) record["denied_omitted"] = network.dropped;
  if (!network.allowed_by_user.empty()) {
    json allowed = json::array();
    for (const auto& destination : network.allowed_by_user) {
      // "once", or "session" for an answer that holds for the session (or the call)
      allowed.push_back({{"host", destination.host},
                         {"port", destination.port},
                         {"scope", destination.reason == "once" ? "once" : "session"}});
    }
    record["allowed_by_user"] = std::move(allowed);
  }
  return record;
}

}  // namespace paddock::mcp
