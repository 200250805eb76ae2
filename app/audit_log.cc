#include "app/audit_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <ctime>

#include <nlohmann/json.hpp>

#include "app/log.h"
#include "core/utc_time.h"
#include "rootfs/image_reference.h"
#include "rootfs/sha256.h"
#include "runtime/run_result.h"

namespace paddock::app {
namespace {

nlohmann::json limits_json(const runtime::Limits& limits) {
  return {{"timeout_seconds", limits.wall_seconds},
          {"memory_bytes", limits.memory_bytes},
          {"cpus", limits.cpus ? nlohmann::json(*limits.cpus) : nlohmann::json(nullptr)},
          {"pids", limits.pids},
          {"output_bytes", limits.output_bytes}};
}

// Every string and key of an argument's value masked: SecretMask::apply_to keeps the protocol's own
// fields ("type", "data" of an image...), but here they are the client's arguments, which may hold
// a secret under any name.
void mask_values(nlohmann::json& value, const SecretMask& secrets) {
  if (value.is_string()) {
    value = secrets.apply(value.get<std::string>());
  } else if (value.is_array()) {
    for (auto& item : value) mask_values(item, secrets);
  } else if (value.is_object()) {
    nlohmann::json masked = nlohmann::json::object();
    for (auto& [key, item] : value.items()) {
      mask_values(item, secrets);
      masked[secrets.apply(key)] = std::move(item);
    }
    value = std::move(masked);
  }
}

nlohmann::json run_line(const AuditRecord& record) {
  return {
      {"time", core::utc_now(core::UtcPrecision::kMilliseconds)},
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
}

nlohmann::json wrapped_line(const AuditRecord& record, const SecretMask& secrets) {
  const WrappedCallAudit& call = *record.wrapped;
  nlohmann::json arguments = nlohmann::json::object();
  for (const auto& [name, bytes] : call.arguments) arguments[name] = bytes;
  nlohmann::json line = {{"time", core::utc_now(core::UtcPrecision::kMilliseconds)},
                         {"tool", "tools/call"},
                         {"server", call.server},
                         {"wrapped_tool", call.tool},
                         {"arguments", std::move(arguments)}};
  if (call.values) {
    nlohmann::json values = *call.values;
    mask_values(values, secrets);
    line["values"] = std::move(values);
  }
  line["outcome"] = record.outcome;
  line["duration_ms"] = record.duration_ms;
  return line;
}

nlohmann::json answer_line(const AuditRecord& record) {
  const UserAnswerAudit& answer = *record.answer;
  return {{"time", core::utc_now(core::UtcPrecision::kMilliseconds)},
          {"tool", "ask"},
          {"session", record.session ? nlohmann::json(*record.session) : nlohmann::json(nullptr)},
          {"subject", answer.subject},
          {"target", answer.target},
          {"asker", answer.asker},
          {"answer", answer.answer}};
}

}  // namespace

core::Result<std::unique_ptr<AuditLog>> AuditLog::open(const std::string& path) {
  auto refused = [&](int code, const std::string& why) {
    return core::Error{code, "audit log " + path + ": " + why +
                                 "; give --audit-log a file of your own, in a folder "
                                 "only you can write"};
  };
  // The log may be asked for in a folder that sandboxed code can write (a read-write share), so
  // what is there is checked before it is opened and again after: a FIFO or a device is not even
  // opened (a FIFO would hang the server), a symlink is never followed (O_NOFOLLOW), and a file
  // must be this user's own with one name alone (a hard link to another file is refused).
  struct stat there {};
  if (lstat(path.c_str(), &there) == 0 && !S_ISREG(there.st_mode)) {
    return refused(EINVAL, S_ISLNK(there.st_mode) ? "is a symlink, which is never followed"
                                                  : "is not a regular file");
  }
  core::UniqueFd fd(
      ::open(path.c_str(),
             O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0600));
  if (!fd.valid()) {
    if (errno == ELOOP) return refused(errno, "is a symlink, which is never followed");
    if (errno == ENXIO) return refused(errno, "is not a regular file");
    return refused(errno, std::strerror(errno));
  }
  struct stat opened {};
  if (fstat(fd.get(), &opened) != 0) return refused(errno, std::strerror(errno));
  if (!S_ISREG(opened.st_mode)) return refused(EINVAL, "is not a regular file");
  if (opened.st_uid != geteuid()) {
    return refused(EPERM, "is owned by uid " + std::to_string(opened.st_uid) +
                              ", not by this server's user (uid " + std::to_string(geteuid()) +
                              ")");
  }
  if (opened.st_nlink != 1) {
    return refused(EPERM, "has " + std::to_string(opened.st_nlink) +
                              " names (hard links); the log must have its own alone");
  }
  // Writes block as a log's should.
  fcntl(fd.get(), F_SETFL, fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK);
  return std::unique_ptr<AuditLog>(new AuditLog(std::move(fd)));
}

void AuditLog::record(const AuditRecord& record, const SecretMask& secrets) {
  nlohmann::json line = record.wrapped  ? wrapped_line(record, secrets)
                        : record.answer ? answer_line(record)
                                        : run_line(record);
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
  if (!record.network.allowed.empty() || !record.network.denied.empty() ||
      !record.network.unreachable.empty()) {
    line["network"] = runtime::network_json(record.network);
  }
  if (record.warm) line["warm"] = true;
  if (record.error) line["error"] = *record.error;
  secrets.apply_to(line);
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

}  // namespace paddock::app
