#include "mcp/network_result.h"

#include <algorithm>
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
  std::vector<std::string> shown, openings;
  bool by_allowlist = network.dropped > 0;
  for (const auto& denial : network.denied) {
    shown.push_back(denial.host + ":" + std::to_string(denial.port) + " (" + denial.reason + ")");
    if (denial.opened_by.empty()) {
      by_allowlist = true;
    } else if (std::find(openings.begin(), openings.end(), denial.opened_by) == openings.end()) {
      openings.push_back(denial.opened_by);
    }
  }
  lines += "network: refused " + core::join(shown, ", ");
  if (network.dropped > 0) lines += " and " + std::to_string(network.dropped) + " more";
  // A reserved address is opened by its own setting, never by --allow-host or an answer.
  if (!openings.empty()) {
    lines += ". Only the user can open a reserved address (paddock mcp " +
             core::join(openings, ", ") + ", which loosens isolation)";
  }
  if (by_allowlist) {
    lines +=
        ". Only the user can allow a host (paddock mcp --allow-host, or --ask network with a "
        "client that supports MCP elicitation)";
  }
  return lines + "; tool arguments cannot.\n";
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
