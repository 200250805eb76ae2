#include "runtime/native/cgroup/cgroup_manager.h"

#include <signal.h>
#include <unistd.h>

#include <charconv>
#include <chrono>
#include <cmath>
#include <fstream>
#include <sstream>
#include <thread>

namespace paddock::cgroup {
namespace {

constexpr const char* kControllers[] = {"memory", "pids", "cpu"};
constexpr std::uint64_t kCpuPeriodUsec = 100'000;

bool has_word(std::string_view text, std::string_view word) {
  std::istringstream words{std::string(text)};
  std::string item;
  while (words >> item) {
    if (item == word) return true;
  }
  return false;
}

// The value of "key N" in a flat-keyed cgroup file (memory.events, cpu.stat).
std::optional<std::int64_t> keyed_value(std::string_view text, std::string_view key) {
  std::istringstream lines{std::string(text)};
  std::string name;
  std::int64_t value = 0;
  while (lines >> name >> value) {
    if (name == key) return value;
  }
  return std::nullopt;
}

std::vector<pid_t> pids_in(std::string_view procs) {
  std::vector<pid_t> pids;
  std::istringstream lines{std::string(procs)};
  pid_t pid;
  while (lines >> pid) pids.push_back(pid);
  return pids;
}

std::string missing_controllers(std::string_view available) {
  std::string missing;
  for (const char* controller : kControllers) {
    if (!has_word(available, controller))
      missing += std::string(missing.empty() ? "" : ", ") + controller;
  }
  return missing;
}

// "sandbox-<pid>-<n>" or "paddock-<pid>" -> pid; nullopt for anything else.
std::optional<pid_t> owner_of(const std::string& name) {
  std::string_view rest;
  if (name.rfind("sandbox-", 0) == 0)
    rest = std::string_view(name).substr(8);
  else if (name.rfind("paddock-", 0) == 0)
    rest = std::string_view(name).substr(8);
  else
    return std::nullopt;
  pid_t pid = 0;
  auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), pid);
  if (error != std::errc() || pid <= 0) return std::nullopt;
  return pid;
}

bool live_paddock(pid_t pid) {
  if (kill(pid, 0) != 0 && errno == ESRCH) return false;
  std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  std::getline(comm, name);
  return name.rfind("paddock", 0) == 0;  // a recycled pid of something else does not count
}

}  // namespace

std::vector<CgroupWrite> plan_cgroup_limits(const runtime::SandboxLimits& limits,
                                            bool has_swap_file) {
  std::vector<CgroupWrite> writes = {
      {"memory.max", std::to_string(limits.memory_bytes)},
      {"pids.max", std::to_string(limits.pids)},
  };
  if (limits.memory_high_bytes) {
    writes.push_back({"memory.high", std::to_string(*limits.memory_high_bytes)});
  }
  if (has_swap_file && !limits.allow_swap) writes.push_back({"memory.swap.max", "0"});
  if (limits.cpus) {
    auto quota = static_cast<std::uint64_t>(std::llround(*limits.cpus * kCpuPeriodUsec));
    quota = std::max<std::uint64_t>(quota, 1000);  // the kernel's minimum is 1 ms
    writes.push_back({"cpu.max", std::to_string(quota) + " " + std::to_string(kCpuPeriodUsec)});
  }
  return writes;
}

CgroupUsage parse_cgroup_usage(std::string_view memory_events, std::string_view memory_peak,
                               std::string_view cpu_stat, std::string_view pids_events) {
  CgroupUsage usage;
  usage.oom_killed = keyed_value(memory_events, "oom_kill").value_or(0) > 0;
  std::uint64_t peak = 0;
  std::string peak_text(memory_peak);
  if (std::istringstream(peak_text) >> peak) usage.memory_peak_bytes = peak;
  usage.cpu_usec = keyed_value(cpu_stat, "usage_usec");
  usage.pids_max_events = keyed_value(pids_events, "max").value_or(0);
  return usage;
}

namespace {

// Can `dir` be the base cgroup? `inside`: paddock itself is in `dir` (else in a child of it).
CgroupAssessment assess_base(CgroupFs& fs, const std::string& dir, bool is_root, bool inside,
                             pid_t self) {
  CgroupAssessment result;
  result.base = dir;
  auto available = fs.read(dir + "/cgroup.controllers");
  std::string missing = missing_controllers(available ? *available : "");
  if (!missing.empty()) {
    result.reason = "cgroup " + dir + " does not offer the " + missing +
                    " controller(s) (a hybrid or undelegated layout)";
    return result;
  }
  for (const char* file : {"", "/cgroup.subtree_control", "/cgroup.procs"}) {
    if (!fs.writable(dir + file)) {
      result.reason = "cgroup " + dir + " is not writable by uid " + std::to_string(geteuid()) +
                      "; run paddock in a delegated cgroup, e.g. systemd-run --user --scope "
                      "-p Delegate=yes paddock ...";
      return result;
    }
  }
  result.usable = true;
  result.reason = "sandboxes get cgroups under " + dir;
  auto enabled = fs.read(dir + "/cgroup.subtree_control");
  if ((enabled && missing_controllers(*enabled).empty()) || is_root) return result;
  // Controllers can be enabled only in a cgroup that holds no process itself (the "no
  // internal process" rule): paddock can move itself out, but not others.
  auto procs = fs.read(dir + "/cgroup.procs");
  for (pid_t pid : pids_in(procs ? *procs : "")) {
    if (inside && pid == self) continue;
    result.usable = false;
    result.reason = "cgroup " + dir + " holds other processes (pid " + std::to_string(pid) +
                    "), so paddock cannot enable controllers there; give paddock a cgroup of "
                    "its own, e.g. systemd-run --user --scope -p Delegate=yes paddock ...";
    return result;
  }
  result.needs_leaf = inside;
  return result;
}

}  // namespace

CgroupAssessment assess_cgroups(CgroupFs& fs, const CgroupLocation& where, pid_t self) {
  if (where.mount_point.empty()) {
    return {false, "no cgroup2 file system is mounted (a cgroup v1 host)", "", false};
  }
  bool own_is_root = where.own_path == "/";
  CgroupAssessment own = assess_base(fs, where.own_directory(), own_is_root, true, self);
  if (own.usable || own_is_root) return own;
  // paddock's cgroup is shared with the shell that started it (a delegated directory the shell
  // was put in): its parent, delegated too, can hold the sandboxes beside it.
  std::string parent_path = where.own_path.substr(0, where.own_path.rfind('/'));
  CgroupLocation parent{where.mount_point, parent_path.empty() ? "/" : parent_path};
  CgroupAssessment above =
      assess_base(fs, parent.own_directory(), parent.own_path == "/", false, self);
  return above.usable ? above : own;
}

CgroupManager::CgroupManager(CgroupFs& fs, CgroupLocation where, pid_t self, LivenessCheck alive)
    : fs_(fs), where_(std::move(where)), self_(self), alive_(std::move(alive)) {}

void CgroupManager::prepare() {
  CgroupAssessment assessment = assess_cgroups(fs_, where_, self_);
  reason_ = assessment.reason;
  if (!assessment.usable) return;
  base_ = assessment.base;
  std::string controllers = "+memory +pids +cpu";
  auto enabled = fs_.read(base_ + "/cgroup.subtree_control");
  bool done = enabled && missing_controllers(*enabled).empty();
  bool moved = false;
  if (!done && assessment.needs_leaf) {
    std::string leaf = base_ + "/paddock-" + std::to_string(self_);
    if (!fs_.exists(leaf)) {
      if (auto made = fs_.make_dir(leaf); !made) {
        reason_ = made.error().message;
        return;
      }
    }
    if (auto joined = fs_.write(leaf + "/cgroup.procs", std::to_string(self_)); !joined) {
      reason_ = "moving paddock into " + leaf + ": " + joined.error().message;
      return;
    }
    moved = true;
  }
  if (!done) {
    auto written = fs_.write(base_ + "/cgroup.subtree_control", controllers);
    if (!written && written.error().code == EBUSY && !moved) {
      // A private cgroup namespace shows a non-root cgroup as "/": leave it like any other.
      std::string leaf = base_ + "/paddock-" + std::to_string(self_);
      if (!fs_.exists(leaf)) (void)fs_.make_dir(leaf);
      if (fs_.write(leaf + "/cgroup.procs", std::to_string(self_))) {
        written = fs_.write(base_ + "/cgroup.subtree_control", controllers);
      }
    }
    if (!written) {
      reason_ = "enabling " + controllers + " in " + base_ + ": " + written.error().message;
      return;
    }
  }
  usable_ = true;
  remove_stale();
}

void CgroupManager::remove_stale() {
  for (const auto& name : fs_.subdirectories(base_)) {
    auto owner = owner_of(name);
    if (!owner || *owner == self_ || alive_(*owner)) continue;
    (void)destroy(base_ + "/" + name);
  }
}

core::Result<std::string> CgroupManager::create_sandbox(const runtime::SandboxLimits& limits) {
  if (!usable_) return core::Error{ENOTSUP, reason_};
  std::string dir =
      base_ + "/sandbox-" + std::to_string(self_) + "-" + std::to_string(next_id_.fetch_add(1));
  if (auto made = fs_.make_dir(dir); !made) return made.error();
  for (const auto& write : plan_cgroup_limits(limits, fs_.exists(dir + "/memory.swap.max"))) {
    if (auto done = fs_.write(dir + "/" + write.file, write.value); !done) {
      (void)fs_.remove_dir(dir);
      return done.error().context("setting the sandbox's limits");
    }
  }
  return dir;
}

CgroupUsage CgroupManager::usage(const std::string& directory) {
  auto text = [&](const char* file) {
    auto content = fs_.read(directory + "/" + file);
    return content ? *content : std::string();
  };
  return parse_cgroup_usage(text("memory.events"), text("memory.peak"), text("cpu.stat"),
                            text("pids.events"));
}

core::Status CgroupManager::destroy(const std::string& directory) {
  if (fs_.exists(directory + "/cgroup.kill")) {
    (void)fs_.write(directory + "/cgroup.kill", "1");
  } else {
    // Before Linux 5.14: freeze, so nothing forks while we kill, then kill every pid.
    (void)fs_.write(directory + "/cgroup.freeze", "1");
    auto procs = fs_.read(directory + "/cgroup.procs");
    for (pid_t pid : pids_in(procs ? *procs : "")) kill(pid, SIGKILL);
    (void)fs_.write(directory + "/cgroup.freeze", "0");
  }
  // The last tasks may take a moment to be released after SIGKILL.
  core::Status removed = fs_.remove_dir(directory);
  for (int attempt = 0; !removed && removed.error().code == EBUSY && attempt < 200; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    removed = fs_.remove_dir(directory);
  }
  return removed;
}

CgroupManager& host_cgroups() {
  static RealCgroupFs fs;
  static CgroupManager* manager = [] {
    auto* created = new CgroupManager(fs, locate_own_cgroup(), getpid(), live_paddock);
    created->prepare();
    return created;
  }();
  return *manager;
}

}  // namespace paddock::cgroup
