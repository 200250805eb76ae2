#include "runtime/kube/kube_exec.h"

#include "runtime/container/sandbox_owner.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <random>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "runtime/container/container_config.h"
#include "runtime/container/session_scripts.h"
#include "runtime/kube/exec_channels.h"
#include "runtime/kube/localhost_profile.h"
#include "runtime/kube/websocket_client.h"
#include "runtime/setting_names.h"
#include "runtime/wall_timer.h"

namespace paddock::kube {
namespace {

using Clock = std::chrono::steady_clock;
using json = nlohmann::json;

std::string url_encode(const std::string& text) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

std::string random_suffix() {
  std::random_device random;
  char text[17];
  std::snprintf(text, sizeof text, "%08x%08x", random(), random());
  return text;
}

// The "waiting" state (reason, message) of the pod's container (paddock's pods have one);
// empty when it is not waiting.
json waiting_state(const json& status) {
  for (const auto& container : status.value("containerStatuses", json::array())) {
    json waiting = container.value("state", json::object()).value("waiting", json::object());
    if (!waiting.empty()) return waiting;
  }
  return json::object();
}

// Why a pod that is not running will not run: a pull that failed, a pod the scheduler cannot
// place. Empty while it may still start.
std::string never_starts(const json& pod) {
  const json& status = pod.value("status", json::object());
  for (const auto& condition : status.value("conditions", json::array())) {
    if (condition.value("type", "") == "PodScheduled" && condition.value("status", "") == "False" &&
        condition.value("reason", "") == "Unschedulable") {
      return "cannot be scheduled: " + condition.value("message", "no node fits it");
    }
  }
  json waiting = waiting_state(status);
  std::string reason = waiting.value("reason", "");
  if (reason == "ErrImagePull" || reason == "ImagePullBackOff" || reason == "ErrImageNeverPull" ||
      reason == "InvalidImageName" || reason == "CreateContainerConfigError" ||
      reason == "CreateContainerError") {
    return reason + ": " + waiting.value("message", "");
  }
  if (status.value("phase", "") == "Failed" || status.value("phase", "") == "Succeeded") {
    return "it ended (" + status.value("phase", "") + ")";
  }
  return "";
}

// A spec that wants no network does not run without its NetworkPolicy: one line that says what
// failed and, where RBAC refused it, which permission the account lacks.
core::Error refuse_without_network_policy(const core::Error& error,
                                          const std::string& namespace_name) {
  std::string what =
      "the sandbox is to have no network, and its deny-all NetworkPolicy could not be created (" +
      error.message + ")";
  if (error.code != EACCES) return core::Error{error.code, what};
  return core::Error{EACCES, what +
                                 ": let paddock's account create, list and delete networkpolicies "
                                 "(RBAC, API group networking.k8s.io) in namespace " +
                                 namespace_name};
}

// Where a pod that is not running yet stands: its container's waiting reason (ContainerCreating
// while the image is pulled), else its phase.
std::string pending_state(const json& pod) {
  const json& status = pod.value("status", json::object());
  std::string reason = waiting_state(status).value("reason", "");
  return reason.empty() ? status.value("phase", "not yet known") : reason;
}

}  // namespace

// Which paddock made an object (pod or secret), so that orphans are found by it.
json owner_labels() {
  json labels = container::owner_labels(container::this_paddock());
  labels[kPodLabel] = "1";
  return labels;
}

std::string secret_manifest(const runtime::RunPlan& plan, const std::string& name) {
  json values = json::object();
  for (const auto& entry : plan.env) {
    values[entry.substr(0, entry.find('='))] = entry.substr(entry.find('=') + 1);
  }
  return json{{"apiVersion", "v1"},
              {"kind", "Secret"},
              {"metadata", {{"name", name}, {"labels", owner_labels()}}},
              {"type", "Opaque"},
              {"stringData", values}}
      .dump();
}

std::string network_policies_path(const std::string& namespace_name) {
  return "/apis/networking.k8s.io/v1/namespaces/" + namespace_name + "/networkpolicies";
}

std::string network_policy_manifest(const std::string& name) {
  // Both policy types and no rule of either kind: the API's way to say "deny all" (an empty
  // `egress` list would be the same; a missing policyTypes would make it ingress only).
  return json{{"apiVersion", "networking.k8s.io/v1"},
              {"kind", "NetworkPolicy"},
              {"metadata", {{"name", name}, {"labels", owner_labels()}}},
              {"spec",
               {{"podSelector", {{"matchLabels", {{kPodNameLabel, name}}}}},
                {"policyTypes", {"Ingress", "Egress"}}}}}
      .dump();
}

std::string pod_manifest(const runtime::SandboxShape& shape, const runtime::RunPlan& plan,
                         const std::string& name, const PodOptions& options) {
  const runtime::SandboxLimits& limits = shape.limits;
  json env = json::array();
  for (const auto& entry : runtime::default_sandbox_env()) {
    env.push_back(
        {{"name", entry.substr(0, entry.find('='))}, {"value", entry.substr(entry.find('=') + 1)}});
  }
  // The sandbox's own variables (passed-through secrets among them) come from its Secret.
  for (const auto& entry : plan.env) {
    std::string variable = entry.substr(0, entry.find('='));
    env.push_back({{"name", variable},
                   {"valueFrom", {{"secretKeyRef", {{"name", name}, {"key", variable}}}}}});
  }
  json resources = {{"memory", std::to_string(limits.memory_bytes)}};
  if (limits.cpus) {
    resources["cpu"] = std::to_string(static_cast<long>(std::lround(*limits.cpus * 1000))) + "m";
  }
  json labels = owner_labels();
  labels[kPodNameLabel] = name;
  json seccomp = {{"type", kRuntimeDefaultProfile}};
  if (options.seccomp_profile) {
    seccomp = {{"type", "Localhost"}, {"localhostProfile", *options.seccomp_profile}};
  }
  json pod = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", name}, {"labels", labels}}},
      {"spec",
       {{"restartPolicy", "Never"},
        {"automountServiceAccountToken", false},
        {"enableServiceLinks", false},
        {"securityContext",
         {{"runAsNonRoot", true},
          {"runAsUser", shape.user.uid},
          {"runAsGroup", shape.user.gid},
          {"fsGroup", shape.user.gid},
          {"seccompProfile", seccomp}}},
        {"containers",
         {{{"name", "sandbox"},
           {"image", shape.image},
           {"imagePullPolicy", options.pull_images ? "IfNotPresent" : "Never"},
           {"command", {"sh", "-c", container::kKeeperScript}},
           {"workingDir", plan.cwd.empty() ? shape.workdir : plan.cwd},
           {"env", env},
           {"securityContext",
            {{"allowPrivilegeEscalation", false},
             {"readOnlyRootFilesystem", true},
             {"runAsNonRoot", true},
             {"capabilities", {{"drop", {"ALL"}}}}}},
           {"resources", {{"limits", resources}, {"requests", resources}}},
           {"volumeMounts",
            {{{"name", "work"}, {"mountPath", shape.workdir}},
             {{"name", "tmp"}, {"mountPath", "/tmp"}}}}}}},
        {"volumes",
         {{{"name", "work"},
           {"emptyDir", {{"medium", "Memory"}, {"sizeLimit", std::to_string(limits.work_bytes)}}}},
          {{"name", "tmp"},
           {"emptyDir",
            {{"medium", "Memory"}, {"sizeLimit", std::to_string(limits.tmp_bytes)}}}}}}}},
  };
  return pod.dump();
}

std::string KubeExec::pod_path() const {
  return "/api/v1/namespaces/" + client_.access().namespace_name + "/pods/" + name_;
}

core::Result<std::unique_ptr<KubeExec>> KubeExec::create(const ClusterAccess& access,
                                                         const runtime::SandboxShape& shape,
                                                         const runtime::RunPlan& plan,
                                                         const PodOptions& options) {
  if (shape.image.empty()) {
    return runtime::naming_setting(
        core::invalid_input("the kubernetes backend needs an image: set the policy's rootfs to "
                            "\"image:REF\", or give the run an image"),
        setting_names::kImage);
  }
  std::string name = "paddock-" + random_suffix();
  std::unique_ptr<KubeExec> pod(new KubeExec(access, name));
  // The policy comes before the pod, so that the pod is never on the network for a moment; an
  // installer that needs the network has the cluster's until its step ends (leave_networks).
  if (!container::wants_network(shape, plan)) {
    if (auto policy = pod->leave_networks(); !policy) {
      pod->removed_ = true;
      return policy.error();
    }
  }
  if (!plan.env.empty()) {
    auto secret =
        pod->client_.request("POST", "/api/v1/namespaces/" + access.namespace_name + "/secrets",
                             secret_manifest(plan, name));
    if (!secret) {
      pod->removed_ = true;
      pod->remove_network_policy();
      return secret.error().context("creating the sandbox's secret (its variables)");
    }
    pod->has_secret_ = true;
  }
  auto created =
      pod->client_.request("POST", "/api/v1/namespaces/" + access.namespace_name + "/pods",
                           pod_manifest(shape, plan, name, options));
  if (!created) {
    pod->removed_ = true;
    pod->remove_secret();
    pod->remove_network_policy();
    return created.error().context("creating the sandbox's pod");
  }
  auto deadline = runtime::deadline_after(options.start_seconds);
  for (;;) {
    auto read = pod->client_.request("GET", pod->pod_path());
    if (!read) return read.error().context("waiting for pod " + name);
    json state = json::parse(read->body, nullptr, false);
    if (state.is_object() && state["status"].value("phase", "") == "Running") return pod;
    if (std::string why = never_starts(state); !why.empty()) {
      return core::Error{EIO,
                         "pod " + name + " for image " + shape.image + " will not start: " + why};
    }
    if (Clock::now() >= deadline) {
      std::ostringstream seconds;
      seconds << options.start_seconds;
      return runtime::naming_setting(
          core::Error{ETIMEDOUT, "pod " + name + " for image " + shape.image +
                                     " was not running after " + seconds.str() + " s (still " +
                                     pending_state(state) +
                                     "); a slow image pull needs a longer pod start timeout"},
          setting_names::kPodStartTimeout);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

core::Result<container::ExecOutcome> KubeExec::run(const container::ExecCommand& command) {
  // An exec has no environment of its own: `env` puts the command's on top of the pod's.
  std::vector<std::string> argv = command.argv;
  if (!command.env.empty()) {
    std::vector<std::string> with_env = {"env"};
    with_env.insert(with_env.end(), command.env.begin(), command.env.end());
    argv.insert(argv.begin(), with_env.begin(), with_env.end());
  }
  std::string path = pod_path() + "/exec?container=sandbox&stdout=true&stderr=true";
  if (!command.input.empty()) path += "&stdin=true";
  for (const auto& arg : argv) path += "&command=" + url_encode(arg);
  container::ExecOutcome outcome;
  container::OutputSink sink(outcome, command);
  auto started = Clock::now();
  auto deadline = runtime::deadline_after(command.wall_seconds, started);
  auto connection = WebSocketConnection::open(client_.access(), path, kChannelProtocols);
  if (!connection) return connection.error().context("starting a command in pod " + name_);
  // Data goes in the stream, never in the URL (which audit logs and proxies record).
  if (!command.input.empty()) {
    constexpr std::size_t kPiece = 32 << 10;
    for (std::size_t at = 0; at < command.input.size(); at += kPiece) {
      auto sent = (*connection)
                      ->send(Opcode::kBinary,
                             stdin_message(std::string_view(command.input).substr(at, kPiece)));
      if (!sent) return sent.error().context("sending a command's input to pod " + name_);
    }
    if ((*connection)->protocol() == "v5.channel.k8s.io") {
      auto closed = (*connection)->send(Opcode::kBinary, close_stdin_message());
      if (!closed) return closed.error().context("closing a command's input in pod " + name_);
    }
  }
  const runtime::CancellationToken* token =
      command.observer != nullptr ? command.observer->cancellation() : nullptr;
  for (;;) {
    if (token != nullptr && token->cancelled()) outcome.cancelled = true;
    if (Clock::now() >= deadline) outcome.timed_out = true;
    if (outcome.cancelled || outcome.timed_out) break;  // the session kills what runs
    auto frame = (*connection)->receive(100);
    if (!frame) return frame.error().context("reading a command's output in pod " + name_);
    if (!*frame) continue;
    if ((*frame)->opcode == Opcode::kClose) {
      return core::Error{EIO, "pod " + name_ + " closed the command's stream before it ended"};
    }
    auto message = split_channel((*frame)->payload);
    if (!message) continue;
    if (message->channel == Channel::kStdout) sink.take(false, message->data);
    if (message->channel == Channel::kStderr) sink.take(true, message->data);
    if (message->channel == Channel::kError) {
      auto code = exit_code_of_status(message->data);
      if (!code) return code.error().context("pod " + name_);
      outcome.exit_code = *code;
      break;
    }
  }
  (void)(*connection)->send(Opcode::kClose, std::string("\x03\xe8", 2));
  outcome.duration_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started).count();
  return outcome;
}

void KubeExec::remove() {
  if (!removed_) {
    removed_ = true;
    (void)client_.request("DELETE", pod_path() + "?gracePeriodSeconds=0");
  }
  remove_secret();
  // Last: the pod has gone from the API by now, and paddock's execs were killed before that.
  remove_network_policy();
}

core::Status KubeExec::leave_networks() {
  if (has_network_policy_) return {};
  const std::string& namespace_name = client_.access().namespace_name;
  auto policy = client_.request("POST", network_policies_path(namespace_name),
                                network_policy_manifest(name_));
  if (!policy) return refuse_without_network_policy(policy.error(), namespace_name);
  has_network_policy_ = true;
  return {};
}

void KubeExec::remove_network_policy() {
  if (!has_network_policy_) return;
  has_network_policy_ = false;
  (void)client_.request("DELETE",
                        network_policies_path(client_.access().namespace_name) + "/" + name_);
}

void KubeExec::remove_secret() {
  if (!has_secret_) return;
  has_secret_ = false;
  (void)client_.request(
      "DELETE", "/api/v1/namespaces/" + client_.access().namespace_name + "/secrets/" + name_);
}

}  // namespace paddock::kube
