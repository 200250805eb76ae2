#include "runtime/engine/engine_backend.h"

#include <signal.h>

#include <chrono>

#include <nlohmann/json.hpp>

#include "runtime/container/container_config.h"
#include "runtime/container/sandbox_owner.h"
#include "runtime/rlimit_plan.h"

namespace paddock::engine {
namespace {

using json = nlohmann::json;

// Engines that cannot set limits: rootless on cgroup v1 (this machine's hybrid layout).
bool enforces_limits(const json& info) {
  bool rootless = false;
  if (info.contains("SecurityOptions") && info["SecurityOptions"].is_array()) {
    for (const auto& option : info["SecurityOptions"]) {
      if (option.is_string() && option.get<std::string>().find("rootless") != std::string::npos) {
        rootless = true;
      }
    }
  }
  return !(rootless && info.value("CgroupVersion", "2") == "1");
}

}  // namespace

core::Result<int> remove_orphans(Client& client) {
  std::string filter =
      "%7B%22label%22%3A%5B%22" + std::string(container::kSandboxLabel) + "%22%5D%7D";
  auto listed = client.request("GET", "/containers/json?all=true&filters=" + filter);
  if (!listed) return listed.error();
  json containers = json::parse(listed->body, nullptr, false);
  int removed = 0;
  if (!containers.is_array()) return removed;
  for (const auto& container : containers) {
    if (!container::owner_provably_dead(container.value("Labels", json::object()),
                                        container::this_paddock(), container::process_start_time)) {
      continue;
    }
    std::string id = container.value("Id", "");
    if (!id.empty() && client.request("DELETE", "/containers/" + id + "?force=true&v=true")) {
      ++removed;
    }
  }
  return removed;
}

core::Result<std::unique_ptr<runtime::Backend>> EngineBackend::connect(
    const std::string& name, const EngineSettings& settings) {
  auto endpoint = name == "podman" ? podman_endpoint(settings) : docker_endpoint(settings);
  if (!endpoint) return endpoint.error();
  Client client(*endpoint);
  auto info = client.request("GET", "/info");
  if (!info) return info.error().context("the " + name + " backend");
  Flavour flavour{name, *endpoint, enforces_limits(json::parse(info->body, nullptr, false)),
                  name == "podman"};
  if (const auto& network = settings.network) {
    if (!container::valid_network_name(*network)) {
      return core::invalid_input(
          "PADDOCK_ENGINE_NETWORK '" + *network +
          "' is not a network name (a letter or digit, then those, _ . or -)");
    }
    flavour.network = *network;
  }
  flavour.runtime_dir = settings.runtime_dir;
  if (auto orphans = remove_orphans(client); !orphans) {
    return orphans.error().context("removing containers a killed paddock left behind");
  }
  return std::unique_ptr<runtime::Backend>(new EngineBackend(std::move(flavour)));
}

core::Result<std::unique_ptr<container::ContainerSession>> EngineBackend::start(
    const runtime::SandboxShape& shape, const runtime::RunPlan& plan) const {
  auto transport = DockerExec::create(flavour_, shape, plan);
  if (!transport) return transport.error();
  return std::make_unique<container::ContainerSession>(flavour_.name, shape, std::move(*transport),
                                                       isolation_for(shape));
}

runtime::IsolationReport EngineBackend::isolation_for(const runtime::SandboxShape& shape) const {
  runtime::IsolationReport report;
  // What the program has: an installer's network is gone before it starts (run_to_the_end).
  bool program_network = shape.network != runtime::NetworkMode::kNone;
  report.namespaces = {"mount", "pid", "ipc", "uts"};
  if (!program_network) report.namespaces.push_back("network");
  report.seccomp = true;
  report.seccomp_profile = shape.seccomp_profile_path.value_or("default");
  report.no_new_privs = true;
  report.capabilities_dropped = true;
  report.network = program_network ? flavour_.network : "none";
  report.root = "image " + shape.image + " (" + flavour_.name + ")";
  report.limits_mode = flavour_.resource_limits ? flavour_.name : "rlimit";
  report.limits_reason =
      flavour_.resource_limits
          ? "enforced by " + flavour_.name + " (its cgroups)"
          : flavour_.name +
                " cannot set cgroup limits here (rootless on cgroup v1): RLIMIT_NPROC (shared by "
                "its sandboxes) and RLIMIT_DATA per process stand in";
  if (!flavour_.resource_limits) {
    report.limits = {"RLIMIT_NPROC=" + std::to_string(shape.limits.pids),
                     "RLIMIT_DATA=" + std::to_string(shape.limits.memory_bytes)};
    report.not_enforced = runtime::totals_rlimits_cannot_enforce();
  }
  return report;
}

core::Result<bool> EngineBackend::has_image(const std::string& image) const {
  Client client(flavour_.endpoint);
  auto response = client.request("GET", "/images/" + image + "/json");
  // The client turns an answer of 404 (the engine does not have it) into ENOENT.
  if (!response && response.error().code == ENOENT) return false;
  if (!response) return response.error().context(flavour_.name + " inspecting image " + image);
  return true;
}

core::Status EngineBackend::pull_image(const std::string& image,
                                       const runtime::PullProgress& progress) const {
  Client client(flavour_.endpoint);
  // The answer is a stream of JSON lines: {"status": "Downloading", "id": ...} while it goes,
  // {"error": "..."} when it fails (the HTTP status is 200 by then).
  std::string pending, failure, last_status;
  auto last_line = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  auto on_data = [&](std::string_view chunk) {
    pending.append(chunk);
    for (std::size_t end; (end = pending.find('\n')) != std::string::npos;
         pending.erase(0, end + 1)) {
      json line = json::parse(pending.substr(0, end), nullptr, false);
      if (!line.is_object()) continue;
      if (line.contains("error")) failure = line.value("error", "");
      if (line.contains("message") && failure.empty()) failure = line.value("message", "");
      std::string status = line.value("status", "");
      auto now = std::chrono::steady_clock::now();
      if (status.empty() || (status == last_status && now - last_line < std::chrono::seconds(1))) {
        continue;
      }
      last_status = status;
      last_line = now;
      if (progress) progress("pulling " + image + ": " + status);
    }
  };
  auto streamed =
      client.stream("POST", "/images/create?fromImage=" + image, "", on_data, [] { return true; });
  if (!streamed) return streamed.error();
  on_data("\n");
  if (streamed->status != 200 || !failure.empty()) {
    return core::Error{
        EIO, flavour_.name + " could not pull " + image + ": " +
                 (failure.empty() ? "status " + std::to_string(streamed->status) : failure)};
  }
  return {};
}

}  // namespace paddock::engine
