#include "mcp/audit_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <ctime>

#include <nlohmann/json.hpp>

#include "mcp/log.h"
#include "rootfs/image_reference.h"
#include "rootfs/sha256.h"
#include "runtime/run_result.h"

namespace paddock::mcp {
namespace {

std::string utc_now() {
  auto now = std::chrono::system_clock::now();
  std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[40];
  std::size_t length = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
  std::snprintf(text + length, sizeof text - length, ".%03dZ", static_cast<int>(millis));
  return text;
}

nlohmann::json limits_json(const Limits& limits) {
  return {{"timeout_seconds", limits.wall_seconds},
          {"memory_bytes", limits.memory_bytes},
          {"cpus", limits.cpus ? nlohmann::json(*limits.cpus) : nlohmann::json(nullptr)},
          {"pids", limits.pids},
          {"output_bytes", limits.output_bytes}};
}

}  // namespace

Result<std::unique_ptr<AuditLog>> AuditLog::open(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0600));
  if (!fd.valid()) {
    return Error{errno, "audit log " + path + ": " + std::strerror(errno) +
                            " (give --audit-log a file in a directory you can write)"};
  }
  return std::unique_ptr<AuditLog>(new AuditLog(std::move(fd)));
}

void AuditLog::record(const AuditRecord& record) {
  nlohmann::json line = {
      {"time", utc_now()},
      {"tool", record.tool},
      {"session", record.session ? nlohmann::json(*record.session) : nlohmann::json(nullptr)},
      {"language", record.language},
      {"code_sha256", record.code
                          ? nlohmann::json(rootfs::digest_hex(rootfs::sha256_of(*record.code)))
                          : nlohmann::json(nullptr)},
      {"libraries", record.libraries},
      {"backend", record.backend},
      {"limits", limits_json(record.limits)},
      {"outcome", record.outcome},
      {"exit_code", record.exit_code ? nlohmann::json(*record.exit_code) : nlohmann::json(nullptr)},
      {"duration_ms", record.duration_ms}};
  if (!record.host_files.empty()) {
    nlohmann::json files = nlohmann::json::array();
    for (const auto& file : record.host_files) {
      files.push_back({{"action", file.action},
                       {"host_path", file.host_path},
                       {"session_path", file.session_path},
                       {"writable", file.writable},
                       {"bytes", file.bytes},
                       {"files", file.files},
                       {"sha256", file.sha256 ? nlohmann::json(*file.sha256) : nullptr}});
    }
    line["host_files"] = std::move(files);
  }
  if (!record.network.allowed.empty() || !record.network.denied.empty()) {
    line["network"] = network_json(record.network);
  }
  if (record.warm) line["warm"] = true;
  if (record.error) line["error"] = *record.error;
  // Invalid UTF-8 in a library name (or a host path) must not throw: replace it.
  std::string text = line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  std::lock_guard lock(mutex_);
  for (std::size_t done = 0; done < text.size();) {
    ssize_t wrote = ::write(fd_.get(), text.data() + done, text.size() - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote < 0) {
      log(LogLevel::kError, std::string("writing the audit log failed: ") + std::strerror(errno));
      return;
    }
    done += static_cast<std::size_t>(wrote);
  }
}

}  // namespace paddock::mcp
