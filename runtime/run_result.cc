#include "runtime/run_result.h"

#include <nlohmann/json.hpp>

#include "core/base64.h"
#include "runtime/output_capture.h"

namespace paddock::runtime {

const char* to_string(Outcome outcome) {
  switch (outcome) {
    case Outcome::kExited:
      return "exited";
    case Outcome::kSignaled:
      return "signaled";
    case Outcome::kTimedOut:
      return "timed_out";
    case Outcome::kCancelled:
      return "cancelled";
    case Outcome::kExecFailed:
      return "exec_failed";
  }
  return "unknown";
}

int cli_exit_status(const RunResult& result) {
  switch (result.outcome) {
    case Outcome::kTimedOut:
      return 124;
    case Outcome::kSignaled:
    case Outcome::kCancelled:
      return 128 + result.signal;
    case Outcome::kExited:
    case Outcome::kExecFailed:
      return result.exit_code;
  }
  return 125;
}

namespace {

nlohmann::json artifacts_json(const std::vector<Artifact>& artifacts) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& artifact : artifacts) {
    list.push_back({{"name", artifact.path},
                    {"mime_type", artifact.mime_type},
                    {"size", artifact.size},
                    {"base64", core::base64_encode(artifact.data)}});
  }
  return list;
}

nlohmann::json isolation_json(const IsolationReport& report) {
  return {
      {"namespaces", report.namespaces},
      {"id_mapping", report.id_mapping},
      {"host_uid", report.host_uid},
      {"host_gid", report.host_gid},
      {"seccomp", report.seccomp},
      {"seccomp_profile", report.seccomp_profile},
      {"no_new_privs", report.no_new_privs},
      {"capabilities_dropped", report.capabilities_dropped},
      {"network", report.network},
      {"root", report.root},
      {"root_reason", report.root_reason},
      {"limits_mode", report.limits_mode},
      {"limits_reason", report.limits_reason},
      {"limits", report.limits},
      {"not_enforced", report.not_enforced},
      {"cgroup", report.cgroup},
  };
}

}  // namespace

nlohmann::json network_json(const net::egress::EgressRecord& record) {
  nlohmann::json denied = nlohmann::json::array();
  for (const auto& denial : record.denied) {
    denied.push_back({{"host", denial.host}, {"port", denial.port}, {"reason", denial.reason}});
  }
  nlohmann::json allowed = nlohmann::json::array();
  for (const auto& destination : record.allowed) {
    allowed.push_back({{"host", destination.host}, {"port", destination.port}});
  }
  nlohmann::json out = {{"denied", std::move(denied)}, {"allowed", std::move(allowed)}};
  if (!record.unreachable.empty()) {
    nlohmann::json unreachable = nlohmann::json::array();
    for (const auto& failure : record.unreachable) {
      unreachable.push_back(
          {{"host", failure.host}, {"port", failure.port}, {"reason", failure.reason}});
    }
    out["unreachable"] = std::move(unreachable);
  }
  if (!record.secrets.empty()) {
    nlohmann::json secrets = nlohmann::json::array();
    for (const auto& use : record.secrets) {
      nlohmann::json entry = {{"name", use.name},
                              {"host", use.host},
                              {"port", use.port},
                              {"substituted", use.substituted}};
      if (!use.substituted) entry["reason"] = use.reason;
      secrets.push_back(std::move(entry));
    }
    out["secrets"] = std::move(secrets);
  }
  if (record.dropped > 0) out["omitted"] = record.dropped;
  return out;
}

void RunResult::omit_artifact(OmittedArtifact omitted) {
  if (omitted.path.empty() || artifacts_omitted.size() < kMaxOmittedListed) {
    artifacts_omitted.push_back(std::move(omitted));
  } else {
    ++artifacts_omitted_unlisted;
  }
}

void RunResult::omit_artifacts(std::vector<OmittedArtifact> omitted) {
  for (auto& file : omitted) omit_artifact(std::move(file));
}

nlohmann::json to_json(const RunResult& result) {
  nlohmann::json out = {
      {"outcome", to_string(result.outcome)},
      {"exit_code", cli_exit_status(result)},
      {"signal", result.signal},
      {"timed_out", result.timed_out()},
      {"stdout", shown_text(result.stdout_data)},
      {"stdout_truncated", result.stdout_data.truncated},
      {"stdout_bytes", result.stdout_data.total_bytes},
      {"stderr", shown_text(result.stderr_data)},
      {"stderr_truncated", result.stderr_data.truncated},
      {"stderr_bytes", result.stderr_data.total_bytes},
      {"duration_ms", result.duration_ms},
      {"cpu_ms", result.cpu_ms},
      {"max_rss_kb", result.max_rss_kb},
      {"oom_killed", result.oom_killed},
      {"memory_peak_bytes", result.memory_peak_bytes},
      {"cgroup", result.isolation.cgroup},
      {"backend", result.backend},
      {"limits_mode", result.isolation.limits_mode},
      {"isolation", isolation_json(result.isolation)},
  };
  if (!result.exec_error.empty()) out["exec_error"] = result.exec_error;
  out["step"] = result.step;
  out["artifacts"] = artifacts_json(result.artifacts);
  out["artifacts_truncated"] = result.artifacts_truncated();
  nlohmann::json omitted = nlohmann::json::array();
  for (const auto& file : result.artifacts_omitted) {
    omitted.push_back({{"path", file.path}, {"size", file.size}, {"reason", file.reason}});
  }
  out["artifacts_omitted"] = std::move(omitted);
  if (result.artifacts_omitted_unlisted > 0) {
    out["artifacts_omitted_unlisted"] = result.artifacts_omitted_unlisted;
  }
  if (!result.network.denied.empty() || !result.network.allowed.empty() ||
      !result.network.unreachable.empty() || !result.network.secrets.empty()) {
    out["network"] = network_json(result.network);
  }
  if (result.refused.any()) out["refused"] = refusals_json(result.refused);
  return out;
}

nlohmann::json refusals_json(const Refusals& refused) {
  nlohmann::json out = nlohmann::json::object();
  if (!refused.system_calls.empty()) {
    nlohmann::json calls = nlohmann::json::object();
    for (const auto& call : refused.system_calls) calls[call.name] = call.count;
    out["system_calls"] = std::move(calls);
  }
  if (refused.system_calls_unnamed > 0) {
    out["system_calls_unnamed"] = refused.system_calls_unnamed;
  }
  if (refused.process_limit > 0) out["process_limit"] = refused.process_limit;
  return out;
}

}  // namespace paddock::runtime
