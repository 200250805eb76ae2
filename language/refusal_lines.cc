#include "language/refusal_lines.h"

#include <re2/re2.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <optional>

namespace paddock::language {
namespace {

// The value of "NAME=N" among the limits the run reports (IsolationReport::limits).
std::optional<std::uint64_t> limit_value(const runtime::RunResult& result, std::string_view name) {
  for (const auto& limit : result.isolation.limits) {
    if (limit.size() > name.size() && limit.compare(0, name.size(), name) == 0 &&
        limit[name.size()] == '=') {
      try {
        return std::stoull(limit.substr(name.size() + 1));
      } catch (...) {
        return std::nullopt;  // "max" or another word: no number to name
      }
    }
  }
  return std::nullopt;
}

std::string size_text(std::uint64_t bytes) {
  if (bytes >= (1ull << 30) && bytes % (1ull << 30) == 0) {
    return std::to_string(bytes >> 30) + " GiB";
  }
  if (bytes >= (1ull << 20)) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

// Whether either stream holds anything to recognise. Checked before a pattern is first used: each
// one is compiled where it is declared, and compiling them all cost `paddock run` more than a
// third of its own CPU, for a run that printed nothing.
bool has_text(const runtime::RunResult& result) {
  return !result.stderr_data.data.empty() || !result.stdout_data.data.empty() ||
         (result.cell && result.cell->error);
}

// Where either stream, or a live cell's error, says it: the program's messages may go to
// either stream, and a cell's uncaught error comes apart from both (its traceback).
bool said(const runtime::RunResult& result, const RE2& pattern, std::string* captured = nullptr) {
  auto matches = [&](const std::string& text) {
    return captured != nullptr ? RE2::PartialMatch(text, pattern, captured)
                               : RE2::PartialMatch(text, pattern);
  };
  if (matches(result.stderr_data.data) || matches(result.stdout_data.data)) return true;
  if (!result.cell || !result.cell->error) return false;
  const runtime::KernelError& error = *result.cell->error;
  return matches(error.name + ": " + error.value) ||
         std::any_of(error.traceback.begin(), error.traceback.end(), matches);
}

std::string system_call_line(const runtime::Refusals& refused) {
  std::string calls;
  for (const auto& call : refused.system_calls) {
    if (call.quiet) continue;
    if (!calls.empty()) calls += ", ";
    calls += call.name + " \u00d7" + std::to_string(call.count);
  }
  if (refused.system_calls_unnamed > 0) {
    if (!calls.empty()) calls += ", ";
    calls += std::to_string(refused.system_calls_unnamed) + " other calls";
  }
  return "refused by the sandbox: " + calls +
         " (system calls its seccomp filter does not allow: they fail with EPERM or ENOSYS, "
         "which is the sandbox's rule, not a bug in the code)";
}

// What a model can do about a refused fork or thread, counted or recognised.
constexpr std::string_view kForkAdvice =
    " (fork and thread creation fail with EAGAIN: use fewer processes or threads)";

std::string process_line(const runtime::RunResult& result) {
  std::string line = "refused by the sandbox: " + std::to_string(result.refused.process_limit) +
                     " new process" + (result.refused.process_limit == 1 ? "" : "es") +
                     " or threads at its limit";
  if (auto pids = limit_value(result, "pids.max")) line += " of " + std::to_string(*pids);
  return line.append(kForkAdvice);
}

// Where no cgroup counts them (rlimit mode), a refused fork or thread is recognised by how
// shells and runtimes report EAGAIN from fork, clone or pthread_create.
std::optional<std::string> uncounted_process_line(const runtime::RunResult& result) {
  if (result.isolation.limits_mode == "cgroup2" || !has_text(result)) return std::nullopt;
  static const RE2 kForkFailed(
      R"(Cannot fork|fork: (?:retry: )?Resource temporarily unavailable|can't start new thread|)"
      R"(BlockingIOError: \[Errno 11\]|pthread_create failed|failed to create new OS thread)");
  if (!said(result, kForkFailed)) return std::nullopt;
  std::string line = "refused by the sandbox: a new process or thread, most likely at its limit";
  if (auto nproc = limit_value(result, "RLIMIT_NPROC")) line += " of " + std::to_string(*nproc);
  return line.append(kForkAdvice);
}

// A process's allocation refused, or the kernel's OOM killer at the sandbox's limit.
std::optional<std::string> memory_line(const runtime::RunResult& result) {
  std::optional<std::uint64_t> limit = limit_value(result, "memory.max");
  if (!limit) limit = limit_value(result, "RLIMIT_DATA");
  std::string of_limit = limit ? " of " + size_text(*limit) : "";
  if (result.oom_killed) {
    return "refused by the sandbox: memory beyond its limit" + of_limit +
           " (the kernel's OOM killer ended a process: use less memory)";
  }
  if (!has_text(result)) return std::nullopt;
  static const RE2 kAllocationFailed(
      R"(MemoryError|Cannot allocate memory|std::bad_alloc|cannot allocate vector of size|)"
      R"(JavaScript heap out of memory|fatal error: runtime: out of memory)");
  if (said(result, kAllocationFailed)) {
    return "refused by the sandbox: memory beyond its limit" + of_limit +
           " (an allocation failed: use less memory)";
  }
  return std::nullopt;
}

bool said_file_too_large(const runtime::RunResult& result) {
  if (!has_text(result)) return false;
  static const RE2 kTooLarge(R"(File too large|\bEFBIG\b)");
  return said(result, kTooLarge);
}

std::optional<std::string> disk_line(const runtime::RunResult& result) {
  if (result.signal == SIGXFSZ || said_file_too_large(result)) {
    std::string line = "refused by the sandbox: a file beyond its size limit";
    if (auto size = limit_value(result, "RLIMIT_FSIZE")) line += " of " + size_text(*size);
    return line + " (write smaller files)";
  }
  if (!has_text(result)) return std::nullopt;
  static const RE2 kFull(R"(No space left on device|Disk quota exceeded|\bENOSPC\b|\bEDQUOT\b)");
  if (!said(result, kFull)) return std::nullopt;
  std::string line = "refused by the sandbox: disk full (/work";
  if (auto work = limit_value(result, "tmpfs_work_bytes")) line += " holds " + size_text(*work);
  // A session's /work also has a number of files and folders (--session-files).
  if (auto files = limit_value(result, "tmpfs_work_files")) {
    line += " and " + std::to_string(*files) + " files and folders";
  }
  line += ", /tmp";
  if (auto tmp = limit_value(result, "tmpfs_tmp_bytes")) line += " " + size_text(*tmp);
  return line + "; delete files or write less)";
}

std::optional<std::string> read_only_line(const runtime::RunResult& result) {
  if (!has_text(result)) return std::nullopt;
  // The path where the message names it: Python after the C library's words, coreutils before
  // them in quotes, a POSIX shell after "cannot create".
  static const RE2 kPathAfter(R"(Read-only file system: '([^'\n]{1,200})')");
  static const RE2 kPathBefore(R"('([^'\n]{1,200})': Read-only file system)");
  static const RE2 kShell(R"(cannot create ([^:\n]{1,200}): Read-only file system)");
  static const RE2 kReadOnly(R"(Read-only file system|\bEROFS\b)");
  std::string path;
  if (!said(result, kPathAfter, &path) && !said(result, kPathBefore, &path) &&
      !said(result, kShell, &path) && !said(result, kReadOnly)) {
    return std::nullopt;
  }
  std::string what = path.empty() ? "a write to a read-only path" : "writing '" + path + "'";
  return "refused by the sandbox: " + what +
         " (only /work and /tmp are writable; write there instead)";
}

// Whether the program ran with no network at all: no user-mode network and no egress proxy.
bool without_network(const runtime::RunResult& result) {
  const std::string& network = result.isolation.network;
  if (network == "none") return true;
  // "none; the installer reaches ... through the egress proxy": the program still has none.
  return network.rfind("none;", 0) == 0 && network.find("the program reaches") == std::string::npos;
}

std::optional<std::string> network_line(const runtime::RunResult& result,
                                        const RefusalContext& context) {
  if (!context.program_output || !without_network(result) || !has_text(result)) {
    return std::nullopt;
  }
  static const RE2 kNoNetwork(
      R"(Temporary failure in name resolution|Name or service not known|)"
      R"(No address associated with hostname|NameResolutionError|getaddrinfo (?:ENOTFOUND|EAI_AGAIN)|)"
      R"(Could not resolve host|no such host|[Nn]etwork is unreachable|\bENETUNREACH\b|)"
      R"(UnknownHostException|Failed to establish a new connection|)"
      R"(Could not resolve hostname|nodename nor servname)");
  if (!said(result, kNoNetwork)) return std::nullopt;
  return "network: this sandbox has no network, so that name lookup or connection failed. " +
         std::string(context.allow_host_hint);
}

}  // namespace

std::vector<std::string> refusal_lines(const runtime::RunResult& result,
                                       const RefusalContext& context) {
  std::vector<std::string> lines;
  const runtime::Refusals& refused = result.refused;
  bool news = refused.system_calls_unnamed > 0 ||
              std::any_of(refused.system_calls.begin(), refused.system_calls.end(),
                          [](const auto& call) { return !call.quiet; });
  if (news) lines.push_back(system_call_line(refused));
  if (refused.process_limit > 0) lines.push_back(process_line(result));
  if (!context.program_output) return lines;  // an installer's words are not the program's
  if (refused.process_limit == 0) {
    if (auto line = uncounted_process_line(result)) lines.push_back(std::move(*line));
  }
  for (auto line : {memory_line(result), disk_line(result), read_only_line(result),
                    network_line(result, context)}) {
    if (line) lines.push_back(std::move(*line));
  }
  return lines;
}

}  // namespace paddock::language
