#include "mcp/client_roots.h"

#include "app/log.h"
#include "app/root_shares.h"
#include "core/text.h"

namespace paddock::mcp {
namespace {

constexpr std::string_view kIdPrefix = "paddock-roots-";

// A ListRootsResult's roots; entries without a string uri are skipped with a line of their own.
std::vector<app::ClientRoot> roots_of(const json& result) {
  std::vector<app::ClientRoot> roots;
  const json* listed = result.is_object() && result.contains("roots") ? &result["roots"] : nullptr;
  if (listed == nullptr || !listed->is_array()) {
    log(app::LogLevel::kWarning,
        "--share-roots: the client's roots/list answer has no roots "
        "array, so no root is shared");
    return roots;
  }
  for (const auto& root : *listed) {
    if (!root.is_object() || !root.contains("uri") || !root["uri"].is_string()) {
      log(app::LogLevel::kWarning, "--share-roots: a root without a uri is not shared");
      continue;
    }
    std::string name =
        root.contains("name") && root["name"].is_string() ? root["name"].get<std::string>() : "";
    roots.push_back({root["uri"].get<std::string>(), std::move(name)});
  }
  return roots;
}

}  // namespace

void ClientRoots::ask(const json& client_capabilities) {
  if (sharing_ == app::ServerOptions::RootSharing::kNone) return;
  bool offers = client_capabilities.is_object() && client_capabilities.contains("roots") &&
                client_capabilities["roots"].is_object();
  if (!offers) {
    if (!std::exchange(said_none_, true)) {
      log(app::LogLevel::kWarning,
          "--share-roots: the client did not declare the roots "
          "capability, so no root is shared");
    }
    return;
  }
  writer_.write(json{{"jsonrpc", "2.0"},
                     {"id", std::string(kIdPrefix) + std::to_string(++asked_)},
                     {"method", "roots/list"}});
}

bool ClientRoots::take_response(const Incoming& response) {
  if (!response.id.is_string()) return false;
  const auto& id = response.id.get_ref<const std::string&>();
  if (!id.starts_with(kIdPrefix)) return false;
  // A late answer to a list the client has since changed says nothing true any more.
  if (id != std::string(kIdPrefix) + std::to_string(asked_)) return true;
  if (response.error.code != 0) {
    // What the client listed before may be gone: nothing stays shared that it did not confirm.
    shares_.set_roots({});
    log(app::LogLevel::kWarning, "--share-roots: the client failed roots/list (code " +
                                     std::to_string(response.error.code) +
                                     "), so no root is shared now");
    return true;
  }
  share(response.params);
  return true;
}

void ClientRoots::share(const json& result) {
  bool writable = sharing_ == app::ServerOptions::RootSharing::kReadWrite;
  app::RootShares made =
      app::shares_from_roots(roots_of(result), shares_.fixed(), writable, shares_.all());
  for (const auto& line : made.log_lines) log(app::LogLevel::kWarning, "--share-roots: " + line);
  std::string names;
  for (const auto& share : made.shares) {
    names += (names.empty() ? "" : ", ") + share->name + " (" + share->host_dir + ")";
  }
  std::size_t count = made.shares.size();
  shares_.set_roots(std::move(made.shares));
  log(app::LogLevel::kInfo, "--share-roots: " + core::counted(count, "root", "roots") + " shared" +
                                (names.empty() ? "" : ": " + names));
}

}  // namespace paddock::mcp
