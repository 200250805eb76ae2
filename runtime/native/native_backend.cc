#include "native/native_backend.h"

#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <sys/capability.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <memory>

#include "native/cgroup_manager.h"
#include "native/child.h"
#include "native/default_seccomp_bpf.h"
#include "native/id_map.h"
#include "native/mount_plan.h"
#include "native/rlimit_plan.h"
#include "native/seccomp_filter.h"
#include "native/supervisor.h"

namespace paddock {
namespace {

constexpr unsigned long long kBaseNamespaces =
    CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP;

struct CapDeleter {
  void operator()(void* caps) const { cap_free(caps); }
};

bool is_absolute_clean(const std::string& path) {
  if (path.empty() || path[0] != '/') return false;
  return path.find("/../") == std::string::npos && !path.ends_with("/..") &&
         path.find("/./") == std::string::npos && path.find('\0') == std::string::npos;
}

bool is_reserved(const std::string& path) {
  for (const char* reserved :
       {"/proc", "/dev", "/usr", "/etc", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32"}) {
    std::string prefix(reserved);
    if (path == prefix || path.starts_with(prefix + "/")) return true;
  }
  return path == "/";
}

// The default profile was compiled at build time; a user's profile is compiled for each run.
Result<std::shared_ptr<const seccomp::BpfProgram>> seccomp_program(const SandboxSpec& spec) {
  if (!spec.seccomp_profile_path) {
    static const auto embedded = [] {
      seccomp::BpfProgram program;
      auto bpf = seccomp::default_bpf();
      program.instructions.assign(bpf.begin(), bpf.end());
      return std::make_shared<const seccomp::BpfProgram>(std::move(program));
    }();
    return embedded;
  }
  auto profile = seccomp::load_profile_file(*spec.seccomp_profile_path);
  if (!profile) return profile.error();
  auto program = seccomp::compile(*profile);
  if (!program)
    return program.error().context("compiling seccomp profile " + *spec.seccomp_profile_path);
  return std::make_shared<const seccomp::BpfProgram>(std::move(*program));
}

const HostLayout& host_layout() {
  static const HostLayout layout = probe_host_layout();
  return layout;
}

const IdMapHost& id_map_host() {
  static const IdMapHost host = probe_id_map_host();
  return host;
}

std::vector<std::string> merged_env(const std::vector<std::string>& overrides) {
  std::vector<std::string> env = default_sandbox_env();
  for (const auto& entry : overrides) {
    std::string key = entry.substr(0, entry.find('='));
    std::erase_if(env, [&](const std::string& existing) {
      return existing.compare(0, key.size() + 1, key + "=") == 0;
    });
    env.push_back(entry);
  }
  return env;
}

// Move an fd above stdio, so that the child's dup2 onto 0, 1 and 2 cannot clobber another.
Result<UniqueFd> above_stdio(UniqueFd fd) {
  if (fd.get() > STDERR_FILENO) return fd;
  UniqueFd moved(fcntl(fd.get(), F_DUPFD_CLOEXEC, STDERR_FILENO + 1));
  if (!moved.valid()) return system_error("duplicating a pipe");
  return moved;
}

struct Pipe {
  UniqueFd read_end;
  UniqueFd write_end;
};

Result<Pipe> make_pipe() {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return system_error("creating an output pipe");
  Pipe result{UniqueFd(fds[0]), UniqueFd(fds[1])};
  auto read_end = above_stdio(std::move(result.read_end));
  auto write_end = above_stdio(std::move(result.write_end));
  if (!read_end) return read_end.error();
  if (!write_end) return write_end.error();
  return Pipe{std::move(*read_end), std::move(*write_end)};
}

Result<UniqueFd> open_stdin(const SandboxSpec& spec) {
  if (spec.stdin_fd >= 0) {
    UniqueFd copy(fcntl(spec.stdin_fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1));
    if (!copy.valid()) return system_error("duplicating the stdin descriptor");
    return copy;
  }
  const char* path = spec.stdin_path ? spec.stdin_path->c_str() : "/dev/null";
  UniqueFd fd(open(path, O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return system_error(std::string("cannot open stdin file ") + path);
  return above_stdio(std::move(fd));
}

// Everything the child reads, owned here for the whole run; the child gets raw pointers into it.
struct Prepared {
  MountPlan mounts;
  std::vector<RlimitSetting> rlimits;
  std::vector<std::string> argv_storage;
  std::vector<std::string> env_storage;
  std::vector<char*> argv;
  std::vector<char*> envp;
  std::string path_storage;
  std::vector<const char*> path_dirs;
  std::string cwd;
  std::shared_ptr<const seccomp::BpfProgram> seccomp;
  std::unique_ptr<void, CapDeleter> no_capabilities;
  UniqueFd stdin_fd;
  Pipe stdout_pipe;
  Pipe stderr_pipe;
  UniqueFd channel_parent;
  UniqueFd channel_child;
  std::vector<const char*> bind_sources;  // host paths, one per spec.binds entry
};

Result<std::unique_ptr<Prepared>> prepare(const SandboxSpec& spec, const SandboxIdentity& identity,
                                          bool cgroup_mode) {
  auto prepared = std::make_unique<Prepared>();
  auto program = seccomp_program(spec);
  if (!program) return program.error();
  prepared->seccomp = *program;
  prepared->no_capabilities.reset(cap_init());
  if (!prepared->no_capabilities) return system_error("cap_init");

  prepared->mounts = plan_mounts(spec, host_layout(), identity);
  prepared->rlimits = plan_rlimits(spec.limits, cgroup_mode);
  prepared->argv_storage = spec.argv;
  prepared->env_storage = merged_env(spec.env);
  for (auto& arg : prepared->argv_storage) prepared->argv.push_back(arg.data());
  prepared->argv.push_back(nullptr);
  for (auto& entry : prepared->env_storage) {
    prepared->envp.push_back(entry.data());
    if (entry.starts_with("PATH=")) prepared->path_storage = entry.substr(5);
  }
  prepared->envp.push_back(nullptr);
  // PATH split in place: each ':' becomes a terminator, each piece a search directory.
  char* piece = prepared->path_storage.data();
  for (char& c : prepared->path_storage) {
    if (c != ':') continue;
    c = '\0';
    if (*piece != '\0') prepared->path_dirs.push_back(piece);
    piece = &c + 1;
  }
  if (*piece != '\0') prepared->path_dirs.push_back(piece);
  prepared->cwd = spec.cwd.empty() ? spec.workdir : spec.cwd;

  auto stdin_fd = open_stdin(spec);
  if (!stdin_fd) return stdin_fd.error();
  prepared->stdin_fd = std::move(*stdin_fd);
  auto out = make_pipe();
  if (!out) return out.error();
  auto err = make_pipe();
  if (!err) return err.error();
  prepared->stdout_pipe = std::move(*out);
  prepared->stderr_pipe = std::move(*err);
  // The parent's ends never block it: it polls them.
  fcntl(prepared->stdout_pipe.read_end.get(), F_SETFL, O_NONBLOCK);
  fcntl(prepared->stderr_pipe.read_end.get(), F_SETFL, O_NONBLOCK);
  int sockets[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sockets) != 0) {
    return system_error("creating the sandbox channel");
  }
  prepared->channel_parent.reset(sockets[0]);
  auto child_end = above_stdio(UniqueFd(sockets[1]));
  if (!child_end) return child_end.error();
  prepared->channel_child = std::move(*child_end);
  for (const auto& bind : spec.binds) prepared->bind_sources.push_back(bind.host_path.c_str());
  return prepared;
}

std::string describe_failure(const ChildMessage& failure, const Prepared& prepared,
                             const SandboxSpec& spec) {
  std::string reason = std::strerror(failure.error);
  switch (failure.phase) {
    case SetupPhase::kMount:
      if (failure.detail >= 0 &&
          static_cast<std::size_t>(failure.detail) < prepared.mounts.steps.size()) {
        return prepared.mounts.steps[static_cast<std::size_t>(failure.detail)].describe() + ": " +
               reason;
      }
      break;
    case SetupPhase::kBindSource:
      if (failure.detail >= 0 && static_cast<std::size_t>(failure.detail) < spec.binds.size()) {
        return "opening bind source " +
               spec.binds[static_cast<std::size_t>(failure.detail)].host_path + ": " + reason;
      }
      break;
    case SetupPhase::kWorkdir:
      return "working directory " + prepared.cwd + " is not usable inside the sandbox (" + reason +
             "); use an existing directory such as " + spec.workdir + " or /tmp";
    case SetupPhase::kRlimit:
      if (failure.detail >= 0 &&
          static_cast<std::size_t>(failure.detail) < prepared.rlimits.size()) {
        return "setting " + describe(prepared.rlimits[static_cast<std::size_t>(failure.detail)]) +
               ": " + reason;
      }
      break;
    default:
      break;
  }
  return std::string(describe(failure.phase)) + ": " + reason;
}

std::string exec_error(const ChildMessage& failure, const SandboxSpec& spec) {
  std::string what = "cannot execute '" + spec.argv[0] + "' in the sandbox: ";
  if (failure.error == ENOENT) {
    return what + "no such file in the sandbox's PATH (the sandbox sees the host's /usr only)";
  }
  if (failure.error == E2BIG) return what + "the argument list and environment are too long";
  return what + std::strerror(failure.error);
}

// One sandbox's cgroup: created before clone, read and removed after the run, and removed on
// every early return in between.
class SandboxCgroup {
 public:
  explicit SandboxCgroup(CgroupManager& manager) : manager_(manager) {}
  SandboxCgroup(const SandboxCgroup&) = delete;
  SandboxCgroup& operator=(const SandboxCgroup&) = delete;
  ~SandboxCgroup() {
    if (!directory_.empty()) (void)manager_.destroy(directory_);
  }

  Status create(const Limits& limits) {
    auto made = manager_.create_sandbox(limits);
    if (!made) return made.error();
    directory_ = *made;
    fd_.reset(open(directory_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd_.valid()) return system_error("opening " + directory_);
    return {};
  }
  [[nodiscard]] int fd() const { return fd_.get(); }
  [[nodiscard]] const std::string& directory() const { return directory_; }

  // What the sandbox used; then the cgroup goes.
  CgroupUsage finish() {
    if (directory_.empty()) return {};
    CgroupUsage usage = manager_.usage(directory_);
    fd_.reset();
    (void)manager_.destroy(directory_);
    directory_.clear();
    return usage;
  }

 private:
  CgroupManager& manager_;
  std::string directory_;
  UniqueFd fd_;
};

// What the sandbox's cgroup did, when it had one.
struct CgroupOutcome {
  std::string directory;  // empty in rlimit mode
  std::string reason;     // why cgroup2 or rlimit
  CgroupUsage usage;
};

IsolationReport isolation_report(const SandboxSpec& spec, const IdMapPlan& ids,
                                 const Prepared& prepared, const CgroupOutcome& cgroup) {
  IsolationReport report;
  report.namespaces = {"user", "mount", "pid", "ipc", "uts", "cgroup"};
  if (spec.network == NetworkMode::kNone) report.namespaces.push_back("network");
  report.id_mapping = to_string(ids.method);
  report.host_uid = ids.host_uid;
  report.host_gid = ids.host_gid;
  report.seccomp = true;
  report.seccomp_profile = spec.seccomp_profile_path.value_or("default");
  report.no_new_privs = true;
  report.capabilities_dropped = true;
  report.network = spec.network == NetworkMode::kNone ? "none" : "host";
  report.limits_mode = cgroup.directory.empty() ? "rlimit" : "cgroup2";
  report.limits_reason = cgroup.reason;
  report.cgroup = cgroup.directory;
  if (!cgroup.directory.empty()) {
    for (const auto& write : plan_cgroup_limits(spec.limits, false)) {
      report.limits.push_back(write.file + "=" + write.value);
    }
  } else if (spec.limits.cpus) {
    report.not_enforced.push_back("cpus");  // a CPU share needs cpu.max
  }
  for (const auto& setting : prepared.rlimits) report.limits.push_back(describe(setting));
  report.limits.push_back("wall_seconds=" + std::to_string(spec.limits.wall_seconds));
  report.limits.push_back("tmpfs_work_bytes=" + std::to_string(spec.limits.work_bytes));
  report.limits.push_back("tmpfs_tmp_bytes=" + std::to_string(spec.limits.tmp_bytes));
  return report;
}

Result<RunResult> to_run_result(const SandboxSpec& spec, const Prepared& prepared,
                                const IdMapPlan& ids, Supervised&& done,
                                const CgroupOutcome& cgroup) {
  RunResult result;
  result.backend = "native";
  result.stdout_data = std::move(done.stdout_data);
  result.stderr_data = std::move(done.stderr_data);
  result.duration_ms = done.duration_ms;
  result.cpu_ms = (done.usage.ru_utime.tv_sec + done.usage.ru_stime.tv_sec) * 1000 +
                  (done.usage.ru_utime.tv_usec + done.usage.ru_stime.tv_usec) / 1000;
  result.max_rss_kb = done.usage.ru_maxrss;
  // The cgroup counts every process, also those killed with the namespace and never reaped
  // into init's rusage.
  if (cgroup.usage.cpu_usec) result.cpu_ms = *cgroup.usage.cpu_usec / 1000;
  result.oom_killed = cgroup.usage.oom_killed;
  result.memory_peak_bytes = cgroup.usage.memory_peak_bytes;
  result.isolation = isolation_report(spec, ids, prepared, cgroup);

  if (done.payload_status) {
    int status = *done.payload_status;
    if (WIFEXITED(status)) {
      result.outcome = Outcome::kExited;
      result.exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      result.outcome = Outcome::kSignaled;
      result.signal = WTERMSIG(status);
      result.exit_code = 128 + result.signal;
    }
    if (done.setup_failure && done.setup_failure->kind == ChildMessageKind::kExecFailed) {
      result.outcome = Outcome::kExecFailed;
      result.exec_error = exec_error(*done.setup_failure, spec);
      result.exit_code = done.setup_failure->error == ENOENT ? 127 : 126;
    } else if (done.setup_failure) {
      return Error{
          done.setup_failure->error,
          "sandbox setup failed: " + describe_failure(*done.setup_failure, prepared, spec)};
    }
    return result;
  }
  if (done.timed_out || done.cancelled) {
    result.outcome = done.timed_out ? Outcome::kTimedOut : Outcome::kCancelled;
    result.signal = SIGKILL;
    result.exit_code = 128 + SIGKILL;
    return result;
  }
  if (done.setup_failure) {
    return Error{done.setup_failure->error,
                 "sandbox setup failed: " + describe_failure(*done.setup_failure, prepared, spec)};
  }
  if (cgroup.usage.oom_killed) {  // the OOM killer chose init itself: the sandbox is gone
    result.outcome = Outcome::kSignaled;
    result.signal = SIGKILL;
    result.exit_code = 128 + SIGKILL;
    return result;
  }
  return Error{EIO, "the sandbox's init ended without reporting (wait status " +
                        std::to_string(done.init_status) + ")"};
}

}  // namespace

Status validate_spec(const SandboxSpec& spec) {
  if (spec.argv.empty() || spec.argv[0].empty()) {
    return invalid_input("no command given; usage: paddock run [OPTIONS] -- COMMAND [ARGS...]");
  }
  if (!is_absolute_clean(spec.workdir) || is_reserved(spec.workdir)) {
    return invalid_input("work directory '" + spec.workdir +
                         "' must be an absolute path outside /proc, /dev, /usr and /etc");
  }
  if (!spec.cwd.empty() && !is_absolute_clean(spec.cwd)) {
    return invalid_input("--workdir '" + spec.cwd +
                         "' must be an absolute path inside the sandbox");
  }
  if (!(spec.limits.wall_seconds > 0) || spec.limits.wall_seconds > 7 * 24 * 3600) {
    return invalid_input("--timeout must be a number of seconds above 0");
  }
  if (spec.limits.cpu_seconds && !(*spec.limits.cpu_seconds > 0)) {
    return invalid_input("--cpu-time must be a number of seconds above 0");
  }
  if (spec.limits.pids < 2)
    return invalid_input("--pids must be at least 2 (init and the program)");
  if (spec.limits.memory_bytes < (1u << 20)) return invalid_input("--memory must be at least 1m");
  if (spec.hostname.empty() || spec.hostname.size() > 64) {
    return invalid_input("hostname must be 1 to 64 characters");
  }
  for (const auto& entry : spec.env) {
    auto equals = entry.find('=');
    if (equals == std::string::npos || equals == 0) {
      return invalid_input("--env '" + entry + "' must look like NAME=VALUE");
    }
  }
  if (spec.binds.size() > kMaxBinds) {
    return invalid_input("at most " + std::to_string(kMaxBinds) + " bind mounts are supported");
  }
  for (const auto& bind : spec.binds) {
    if (!is_absolute_clean(bind.sandbox_path) || is_reserved(bind.sandbox_path)) {
      return invalid_input("bind target '" + bind.sandbox_path +
                           "' must be an absolute path outside /proc, /dev, /usr and /etc");
    }
    struct stat info {};
    if (!bind.host_path.starts_with("/") || stat(bind.host_path.c_str(), &info) != 0) {
      return invalid_input("bind source '" + bind.host_path +
                           "' does not exist on the host (give an absolute path)");
    }
  }
  if (spec.stdin_fd < 0 && spec.stdin_path && access(spec.stdin_path->c_str(), R_OK) != 0) {
    return system_error("--stdin file " + *spec.stdin_path + " cannot be read");
  }
  return {};
}

Result<RunResult> NativeBackend::run(const SandboxSpec& input, RunObserver& observer) {
  if (auto valid = validate_spec(input); !valid) return valid.error();
  const SandboxSpec& spec = input;
  CgroupManager& cgroups = host_cgroups();
  if (spec.require_cgroups && !cgroups.usable()) {
    return Error{ENOTSUP, "cgroup v2 limits are required (--require-cgroups) but " +
                              cgroups.reason() + "; see 'paddock doctor'"};
  }
  SandboxIdentity identity;
  identity.home = spec.workdir;
  auto prepared_or = prepare(spec, identity, cgroups.usable());
  if (!prepared_or) return prepared_or.error();
  Prepared& prepared = **prepared_or;

  ChildPlan plan;
  plan.mounts = &prepared.mounts;
  plan.uid = identity.uid;
  plan.gid = identity.gid;
  plan.setgroups_allowed =
      plan_id_map(id_map_host(), 1, identity.uid, identity.gid).setgroups_allowed;
  plan.hostname = spec.hostname.c_str();
  plan.rlimits = &prepared.rlimits;
  plan.cwd = prepared.cwd.c_str();
  plan.argv = prepared.argv.data();
  plan.envp = prepared.envp.data();
  plan.search_path = &prepared.path_dirs;
  plan.seccomp = prepared.seccomp->as_fprog();
  plan.no_capabilities = static_cast<cap_t>(prepared.no_capabilities.get());
  plan.fds = ChildFds{prepared.channel_child.get(), prepared.stdin_fd.get(),
                      prepared.stdout_pipe.write_end.get(), prepared.stderr_pipe.write_end.get()};
  plan.bind_sources = &prepared.bind_sources;

  unsigned long long flags = kBaseNamespaces | CLONE_PIDFD;
  if (spec.network == NetworkMode::kNone) flags |= CLONE_NEWNET;

  // The sandbox's own cgroup exists before the child does, and the child is born in it: no
  // instruction of the sandbox ever runs outside its limits.
  SandboxCgroup cgroup(cgroups);
  if (cgroups.usable()) {
    if (auto made = cgroup.create(spec.limits); !made) {
      return made.error().context("creating the sandbox's cgroup");
    }
    flags |= CLONE_INTO_CGROUP;
  }

  // No signal handler of paddock's may run in the child before it resets them.
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  StartedSandbox sandbox;
  int pidfd = -1;
  sandbox.started_at = std::chrono::steady_clock::now();
  pid_t pid = clone_process(flags, &pidfd, cgroup.fd());
  if (pid == 0) run_sandbox_init(plan);
  int clone_errno = errno;
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (pid < 0) {
    if (clone_errno == ENOSPC || clone_errno == EPERM || clone_errno == EUSERS) {
      return system_error(
          "creating the sandbox's namespaces (are user namespaces enabled? see "
          "`paddock doctor`)",
          clone_errno);
    }
    return system_error("creating the sandbox", clone_errno);
  }
  sandbox.pid = pid;
  sandbox.pidfd.reset(pidfd);
  prepared.channel_child.reset();
  prepared.stdin_fd.reset();
  prepared.stdout_pipe.write_end.reset();
  prepared.stderr_pipe.write_end.reset();
  sandbox.stdout_pipe = std::move(prepared.stdout_pipe.read_end);
  sandbox.stderr_pipe = std::move(prepared.stderr_pipe.read_end);
  sandbox.channel = std::move(prepared.channel_parent);
  observer.on_started(pid);

  IdMapPlan ids = plan_id_map(id_map_host(), pid, identity.uid, identity.gid);
  if (auto mapped = apply_id_map(pid, ids); !mapped) {
    kill_and_reap(sandbox);
    return mapped.error().context("writing the sandbox's uid/gid maps");
  }
  ChildMessage go{ChildMessageKind::kGo};
  if (write(sandbox.channel.get(), &go, sizeof go) != sizeof go) {
    Error error = system_error("starting the sandbox");
    kill_and_reap(sandbox);
    return error;
  }
  Supervised done = supervise(sandbox, spec.limits, observer);
  CgroupOutcome outcome{cgroup.directory(), cgroups.reason(), cgroup.finish()};
  return to_run_result(spec, prepared, ids, std::move(done), outcome);
}

}  // namespace paddock
