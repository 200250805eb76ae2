#include "runtime/engine/docker_exec.h"

#include <unistd.h>

#include <chrono>

#include <nlohmann/json.hpp>

#include "runtime/container/container_config.h"
#include "runtime/engine/engine_stream.h"
#include "runtime/setting_names.h"
#include "runtime/wall_timer.h"

namespace paddock::engine {
namespace {

using Clock = std::chrono::steady_clock;
using json = nlohmann::json;

std::string engine_error(const std::string& what, const core::Error& error) {
  return what + ": " + error.message;
}

}  // namespace

core::Result<std::unique_ptr<DockerExec>> DockerExec::create(const Flavour& flavour,
                                                             const runtime::SandboxShape& shape,
                                                             const runtime::RunPlan& plan) {
  auto profile = container::seccomp_profile_text(shape);
  if (!profile) return profile.error();
  if (shape.image.empty()) {
    return runtime::naming_setting(
        core::invalid_input("the " + flavour.name +
                            " backend needs an image: set the policy's rootfs to "
                            "\"image:REF\", or give the run an image"),
        setting_names::kImage);
  }
  container::ContainerOptions options{
      shape.image, *profile, "", flavour.resource_limits, flavour.podman_options, flavour.network};
  if (flavour.podman_options) {
    auto file = container::seccomp_profile_file(*profile, flavour.runtime_dir);
    if (!file) return file.error();
    options.seccomp_file = *file;
  }
  Client client(flavour.endpoint);
  json config = container::container_config(shape, plan, options);
  auto created = client.request("POST", "/containers/create", config.dump());
  if (!created) {
    return core::Error{created.error().code,
                       engine_error("creating a " + flavour.name + " container from " + shape.image,
                                    created.error())};
  }
  std::string id = json::parse(created->body, nullptr, false).value("Id", "");
  if (id.empty()) return core::Error{EIO, flavour.name + " created a container without an id"};
  std::unique_ptr<DockerExec> session(new DockerExec(flavour, id));
  if (auto started = session->client_.request("POST", "/containers/" + id + "/start"); !started) {
    return core::Error{
        EIO, engine_error("starting the " + flavour.name + " container", started.error())};
  }
  return session;
}

core::Result<container::ExecOutcome> DockerExec::run(const container::ExecCommand& command) {
  if (client_busy_.exchange(true)) {
    // A libcurl handle serves one thread at a time (a session's usage beside a command).
    Client own(flavour_.endpoint);
    return run_on(own, command);
  }
  auto outcome = run_on(client_, command);
  client_busy_ = false;
  return outcome;
}

core::Result<container::ExecOutcome> DockerExec::run_on(Client& client,
                                                        const container::ExecCommand& command) {
  json body = {{"AttachStdout", true},
               {"AttachStderr", true},
               {"Tty", false},
               {"Cmd", command.argv},
               {"Env", command.env}};
  auto created = client.request("POST", "/containers/" + id_ + "/exec", body.dump());
  if (!created) return core::Error{EIO, engine_error("starting a command", created.error())};
  std::string exec_id = json::parse(created->body, nullptr, false).value("Id", "");
  container::ExecOutcome captured;
  container::OutputSink sink(captured, command);
  const runtime::CancellationToken* token =
      command.observer != nullptr ? command.observer->cancellation() : nullptr;
  auto started = Clock::now();
  auto deadline = runtime::deadline_after(command.wall_seconds, started);
  Demultiplexer demux(
      [&](int stream, std::string_view payload) { sink.take(stream == 2, payload); });
  auto streamed = client.stream(
      "POST", "/exec/" + exec_id + "/start", json{{"Detach", false}, {"Tty", false}}.dump(),
      [&](std::string_view chunk) { demux.feed(chunk); },
      [&] {
        if (token != nullptr && token->cancelled()) captured.cancelled = true;
        if (Clock::now() >= deadline) captured.timed_out = true;
        return !captured.cancelled && !captured.timed_out;
      });
  if (!streamed) return streamed.error();
  if (streamed->interrupted) return captured;  // the session kills what runs
  captured.duration_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started).count();
  // The exec's exit code, once the engine has seen it end.
  for (int attempt = 0; attempt < 100; ++attempt) {
    auto inspected = client.request("GET", "/exec/" + exec_id + "/json");
    if (!inspected) return inspected.error();
    json state = json::parse(inspected->body, nullptr, false);
    if (state.is_object() && !state.value("Running", true)) {
      captured.exit_code = state["ExitCode"].is_number() ? state["ExitCode"].get<long>() : -1;
      return captured;
    }
    usleep(10000);
  }
  return core::Error{ETIMEDOUT, "the engine did not report the command's end"};
}

core::Result<std::vector<std::string>> DockerExec::networks(Client& client) const {
  auto inspected = client.request("GET", "/containers/" + id_ + "/json");
  if (!inspected) {
    return core::Error{EIO, engine_error("inspecting the sandbox's networks", inspected.error())};
  }
  json container = json::parse(inspected->body, nullptr, false);
  const json* attached = nullptr;
  if (container.is_object() && container["NetworkSettings"].is_object()) {
    attached = &container["NetworkSettings"]["Networks"];
  }
  // An answer without the list proves nothing about the sandbox's network.
  if (attached == nullptr || !(attached->is_object() || attached->is_null())) {
    return core::Error{EIO, flavour_.name + " did not say which networks the sandbox is on"};
  }
  std::vector<std::string> names;
  if (attached->is_object()) {
    for (const auto& [name, endpoint] : attached->items()) names.push_back(name);
  }
  return names;
}

core::Status DockerExec::leave_networks() {
  // A connection of its own: a session's usage() may hold the kept one meanwhile.
  Client client(flavour_.endpoint);
  auto attached = networks(client);
  if (!attached) return attached.error();
  for (const auto& name : *attached) {
    if (!container::valid_network_name(name)) {
      return core::Error{
          EIO, flavour_.name + " named a network '" + name + "' paddock cannot ask about"};
    }
    // Force: an endpoint the engine holds in an odd state goes too.
    auto left = client.request("POST", "/networks/" + name + "/disconnect",
                               json{{"Container", id_}, {"Force", true}}.dump());
    if (!left) {
      return core::Error{
          EIO, engine_error("disconnecting the sandbox from network " + name, left.error())};
    }
  }
  auto remaining = networks(client);
  if (!remaining) return remaining.error();
  if (!remaining->empty()) {
    return core::Error{EIO, flavour_.name + " still has the sandbox on network " +
                                remaining->front() + " after disconnecting it"};
  }
  return {};
}

void DockerExec::remove() {
  if (removed_) return;
  removed_ = true;
  (void)client_.request("DELETE", "/containers/" + id_ + "?force=true&v=true");
}

}  // namespace paddock::engine
