#include "mcp/protocol.h"

#include <algorithm>

#include "core/version.h"

namespace paddock::mcp {

std::string negotiate_version(const json& requested) {
  if (requested.is_string()) {
    auto version = requested.get<std::string>();
    if (std::find(kLegacyVersions.begin(), kLegacyVersions.end(), version) !=
        kLegacyVersions.end()) {
      return version;
    }
  }
  return kLegacyVersions.front();
}

std::vector<std::string> supported_versions() {
  std::vector<std::string> versions{kStatelessVersion};
  versions.insert(versions.end(), kLegacyVersions.begin(), kLegacyVersions.end());
  return versions;
}

EraChoice era_from_meta(const json& params) {
  EraChoice choice;
  if (!params.is_object()) return choice;
  auto meta = params.find("_meta");
  if (meta == params.end() || !meta->is_object()) return choice;
  auto version = meta->find(kVersionMetaKey);
  if (version == meta->end()) return choice;
  choice.from_meta = true;
  if (version->is_string() && *version == kStatelessVersion) {
    choice.era = Era{kStatelessVersion, true};
    return choice;
  }
  choice.unsupported = true;
  std::string requested = version->is_string() ? version->get<std::string>() : version->dump();
  choice.error =
      RpcError{kUnsupportedProtocolVersion, "protocol version " + requested + " is not supported",
               json{{"requested", requested}, {"supported", supported_versions()}}};
  return choice;
}

json finish_result(json result, const Era& era, const CachePolicy& cache) {
  if (!era.stateless) return result;
  result["resultType"] = "complete";
  if (cache.cacheable) {
    result["ttlMs"] = cache.ttl_ms;
    result["cacheScope"] = cache.shared ? "public" : "private";
  }
  result["_meta"]["io.modelcontextprotocol/serverInfo"] = server_info();
  return result;
}

json server_info() {
  return json{{"name", "paddock"},
              {"title", "Paddock code sandbox"},
              {"version", paddock::core::paddock_version()}};
}

json server_capabilities() {
  return json{{"tools", {{"listChanged", false}}},
              {"resources", {{"listChanged", false}, {"subscribe", false}}},
              {"logging", json::object()}};
}

std::string server_instructions(const InstructionFacts& facts) {
  const std::string& shares = facts.shares;
  const auto& allowed_hosts = facts.allowed_hosts;
  const auto& secrets = facts.secrets;
  std::string roots =
      facts.root_sharing.empty()
          ? ""
          : " The folders the client lists as its roots are shared too (" + facts.root_sharing +
                "), each named after its folder, and follow the client's changes; get_session "
                "names the shares there are now.";
  std::string shared =
      shares == "none" && roots.empty()
          ? ""
          : " Host folders the user shared: " + shares + "." + roots +
                (facts.writable_share
                     ? " upload_file, download_file and create_session's mounts move files "
                       "between them and a session"
                     : " upload_file and create_session's mounts bring files from them into a "
                       "session") +
                " without passing them through this conversation: use them for large files. "
                "Nothing else of the host is reachable.";
  std::string reachable;
  if (!allowed_hosts.empty()) {
    reachable = " The user allowed programs to reach these hosts, and no others: ";
    for (std::size_t i = 0; i < allowed_hosts.size(); ++i) {
      reachable += (i > 0 ? ", " : "") + allowed_hosts[i];
    }
    reachable +=
        ". They go through the proxy in HTTP_PROXY and HTTPS_PROXY (python, pip, npm, curl, R, "
        "ruby and go use it; node's fetch and Java do not by default); a refused host is named "
        "in the result, and only the user can add one.";
  }
  if (facts.ask_network) {
    reachable +=
        " When a program connects to another host through HTTP_PROXY, the user is asked whether "
        "to allow it; the result says what they answered.";
  }
  std::string brokered;
  if (!secrets.empty()) {
    brokered = " Brokered secrets, each a variable in every sandbox: ";
    for (std::size_t i = 0; i < secrets.size(); ++i) {
      std::string hosts;
      for (const auto& host : secrets[i].spec.hosts) hosts += (hosts.empty() ? "" : ", ") + host;
      brokered += (i > 0 ? "; " : "") + secrets[i].spec.name + " (for " + hosts + ")";
    }
    brokered +=
        ". A variable holds a placeholder, not the value: code never sees the value. Send the "
        "placeholder as it is in an HTTPS request header to the secret's hosts (e.g. "
        "Authorization: Bearer followed by the variable), and the proxy puts the real value in "
        "its place; sent anywhere else it is useless. Results say when a placeholder was "
        "substituted, or went where it could not be.";
    if (net::egress::names_localhost(secrets)) {
      brokered +=
          " Here localhost names the user's machine, through the proxy: a sandbox's own "
          "servers are at 127.0.0.1.";
    }
  }
  // The tools' descriptions say the rest: this is what ties them together.
  return std::string(
             "Runs code in isolated Linux sandboxes (limited memory, CPU time and "
             "processes") +
         (allowed_hosts.empty() && !facts.ask_network ? "; no network" : "") +
         "). execute_code alone keeps nothing; to keep files (in /work), libraries or, in live "
         "python and r sessions, variables between calls, create_session and pass its "
         "session_id. Install packages with the libraries argument or install_libraries, not "
         "from the code. Long output comes back as its start and end; a session keeps all of it "
         "in a file the result names." +
         (facts.preinstalled.empty() ? "" : " " + facts.preinstalled) + shared + reachable +
         brokered;
}

}  // namespace paddock::mcp
