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
              {"version", paddock::kPaddockVersion}};
}

json server_capabilities() {
  return json{{"tools", {{"listChanged", false}}},
              {"resources", {{"listChanged", false}, {"subscribe", false}}},
              {"logging", json::object()}};
}

std::string server_instructions(const std::string& shares,
                                const std::vector<std::string>& allowed_hosts) {
  std::string shared =
      shares == "none"
          ? ""
          : " Host folders the user shared: " + shares +
                ". upload_file copies a file or folder from one into a session's /work (host_path "
                "'SHARE/path'), download_file copies a session's file into a read-write share, "
                "and create_session can mount a share (mounts); the contents never pass through "
                "this conversation, so use them for large files. Nothing else of the host is "
                "reachable.";
  std::string reachable;
  if (!allowed_hosts.empty()) {
    reachable = " The user allowed programs to reach these hosts, and no others: ";
    for (std::size_t i = 0; i < allowed_hosts.size(); ++i) {
      reachable += (i > 0 ? ", " : "") + allowed_hosts[i];
    }
    reachable +=
        ". They go through an HTTP proxy that HTTP_PROXY and HTTPS_PROXY name (python urllib and "
        "requests, pip, npm, curl, R, ruby and go use it; node's fetch and Java do not by "
        "default); a refused host is listed in the result, and only the user can add one.";
  }
  return "Runs code in isolated, throw-away Linux sandboxes (no network, limited memory, CPU "
         "time and processes). Call execute_code with the code and its language; anything "
         "printed comes back, and matplotlib/R figures come back as images. A call without a "
         "session keeps nothing. To keep files or installed libraries between calls, "
         "create_session first and pass its session_id; python and r sessions (native "
         "backend) are live notebooks: variables, functions and imports persist from call to call "
         "(restart_session resets them), while other languages run each call as a new process; "
         "write_file, read_file and list_files work inside a session's /work directory. Long "
         "output comes back as its start and its end (a session keeps all of it in a file the "
         "result names). Libraries already installed for each language are listed in "
         "execute_code's description and get_language_details: no need to install them." +
         shared + reachable;
}

}  // namespace paddock::mcp
