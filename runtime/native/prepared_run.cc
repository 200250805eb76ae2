#include "runtime/native/prepared_run.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <mutex>

#include "runtime/native/egress_plan.h"
#include "runtime/native/init/network_fence.h"
#include "runtime/native/seccomp/default_seccomp_bpf.h"

namespace paddock::native {
namespace {

// What the sandbox's init calls once it runs under a filter: starting, reaping and killing
// steps, serving a session's files, and what each step does between fork and exec.
const std::vector<std::string>& init_calls() {
  static const std::vector<std::string> calls = {"clone",
                                                 "fork",
                                                 "wait4",
                                                 "waitid",
                                                 "kill",
                                                 "poll",
                                                 "ppoll",
                                                 "read",
                                                 "write",
                                                 "sendmsg",
                                                 "recvmsg",
                                                 "close",
                                                 "close_range",
                                                 "openat",
                                                 "openat2",
                                                 "mkdirat",
                                                 "fstat",
                                                 "newfstatat",
                                                 "fchmod",
                                                 "fcntl",
                                                 "signalfd4",
                                                 "rt_sigprocmask",
                                                 "rt_sigaction",
                                                 "rt_sigreturn",
                                                 "setsid",
                                                 "dup2",
                                                 "dup3",
                                                 "umask",
                                                 "chdir",
                                                 "prlimit64",
                                                 "setrlimit",
                                                 "seccomp",
                                                 "execve",
                                                 "set_robust_list",
                                                 "brk",
                                                 "mmap",
                                                 "munmap",
                                                 "getpid",
                                                 "exit",
                                                 "exit_group",
                                                 "restart_syscall"};
  return calls;
}

// The default profile as it was compiled at build time; a profile file, or changes on top (a
// language policy's allow and deny lists), are compiled for the run, and then a second time
// with init's calls allowed (a profile of the caller's may refuse fork, say, which init needs).
struct SeccompPrograms {
  std::shared_ptr<const seccomp::BpfProgram> program;
  std::shared_ptr<const seccomp::BpfProgram> init;  // null: init runs under `program`
};

core::Result<SeccompPrograms> seccomp_programs(const runtime::SandboxShape& shape) {
  bool writes_host = std::any_of(shape.binds.begin(), shape.binds.end(),
                                 [](const runtime::BindMount& bind) { return bind.writable; });
  bool changed = !shape.seccomp_allow.empty() || !shape.seccomp_deny.empty() || writes_host;
  if (!shape.seccomp_profile_path && !changed) {
    static const auto embedded = [] {
      seccomp::BpfProgram program;
      auto bpf = seccomp::default_bpf();
      program.instructions.assign(bpf.begin(), bpf.end());
      for (const char* name : seccomp::default_bpf_quiet_refusals()) {
        program.quiet_refusals.emplace_back(name);
      }
      return std::make_shared<const seccomp::BpfProgram>(std::move(program));
    }();
    return SeccompPrograms{embedded, nullptr};
  }
  auto profile = shape.seccomp_profile_path
                     ? seccomp::load_profile_file(*shape.seccomp_profile_path)
                     : seccomp::default_profile();
  if (!profile) return profile.error();
  seccomp::apply_changes(*profile, shape.seccomp_allow, shape.seccomp_deny);
  std::string name = shape.seccomp_profile_path.value_or("default");
  // The set-ID refusal is the program's alone: init opens the session's files with openat2 (in
  // /work, with plain modes), and the program stacks its own filter on top of init's.
  seccomp::Profile program_profile = *profile;
  if (writes_host) seccomp::refuse_set_id_bits(program_profile);
  auto program = seccomp::compile(program_profile);
  if (!program) return program.error().context("compiling seccomp profile " + name);
  seccomp::apply_changes(*profile, init_calls(), {});
  auto init = seccomp::compile(*profile);
  if (!init) return init.error().context("compiling seccomp profile " + name + " for init");
  return SeccompPrograms{std::make_shared<const seccomp::BpfProgram>(std::move(*program)),
                         std::make_shared<const seccomp::BpfProgram>(std::move(*init))};
}

// The host's addresses are read for every run: they change (DHCP, a VPN coming up), and a
// stale list would let the sandbox reach a new one.
core::Result<std::vector<std::uint8_t>> network_fence(const runtime::SandboxShape& shape) {
  std::vector<core::IpPrefix> allowed;
  for (const auto& text : shape.allowed_private_ranges) {
    auto prefix = core::parse_ip_prefix(text);
    if (!prefix) {
      return core::invalid_input("'" + text +
                                 "' is not an IP address or CIDR range (e.g. 10.1.2.0/24)");
    }
    allowed.push_back(*prefix);
  }
  return init::encode_fence(init::plan_fence(init::probe_host_addresses(), allowed));
}

const init::HostLayout& host_layout() {
  static const init::HostLayout layout = init::probe_host_layout();
  return layout;
}

// A run's own /etc entries (its language's host_etc), probed once per process as the layout is:
// a server asks for the same few on every call.
const std::vector<init::HostLayout::Entry>& extra_etc_of(const std::vector<std::string>& names) {
  static std::mutex mutex;
  static std::map<std::vector<std::string>, std::vector<init::HostLayout::Entry>> probed;
  std::lock_guard lock(mutex);
  auto found = probed.find(names);
  if (found == probed.end()) {
    found = probed.emplace(names, init::probe_extra_etc(host_layout(), names)).first;
  }
  return found->second;  // a map's entries stay where they are
}

}  // namespace

namespace {

// Move an fd above stdio, so that the child's dup2 onto 0, 1 and 2 cannot clobber another.
core::Result<core::UniqueFd> above_stdio(core::UniqueFd fd) {
  if (fd.get() > STDERR_FILENO) return fd;
  core::UniqueFd moved(fcntl(fd.get(), F_DUPFD_CLOEXEC, STDERR_FILENO + 1));
  if (!moved.valid()) return core::system_error("duplicating a pipe");
  return moved;
}

}  // namespace

core::Result<Pipe> make_capture_pipe() {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return core::system_error("creating an output pipe");
  Pipe result{core::UniqueFd(fds[0]), core::UniqueFd(fds[1])};
  auto read_end = above_stdio(std::move(result.read_end));
  auto write_end = above_stdio(std::move(result.write_end));
  if (!read_end) return read_end.error();
  if (!write_end) return write_end.error();
  // The parent's end never blocks it: it polls it.
  fcntl(read_end->get(), F_SETFL, O_NONBLOCK);
  return Pipe{std::move(*read_end), std::move(*write_end)};
}

namespace {

core::Result<core::UniqueFd> open_stdin(const runtime::RunPlan& plan) {
  if (plan.stdin_fd >= 0) {
    core::UniqueFd copy(fcntl(plan.stdin_fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1));
    if (!copy.valid()) return core::system_error("duplicating the stdin descriptor");
    return copy;
  }
  const char* path = plan.stdin_path ? plan.stdin_path->c_str() : "/dev/null";
  core::UniqueFd fd(open(path, O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return core::system_error(std::string("cannot open stdin file ") + path);
  return above_stdio(std::move(fd));
}

}  // namespace

const IdMapHost& id_map_host() {
  static const IdMapHost host = probe_id_map_host();
  return host;
}

core::Result<std::unique_ptr<Prepared>> prepare_streams(const runtime::RunPlan& plan) {
  auto prepared = std::make_unique<Prepared>();
  auto stdin_fd = open_stdin(plan);
  if (!stdin_fd) return stdin_fd.error();
  prepared->stdin_fd = std::move(*stdin_fd);
  auto out = make_capture_pipe();
  if (!out) return out.error();
  auto err = make_capture_pipe();
  if (!err) return err.error();
  prepared->stdout_pipe = std::move(*out);
  prepared->stderr_pipe = std::move(*err);
  int sockets[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sockets) != 0) {
    return core::system_error("creating the sandbox channel");
  }
  prepared->channel_parent.reset(sockets[0]);
  auto child_end = above_stdio(core::UniqueFd(sockets[1]));
  if (!child_end) return child_end.error();
  prepared->channel_child = std::move(*child_end);
  return prepared;
}

namespace {

// The sandbox's environment as init passes it on (envp), and its PATH split into init's search
// directories.
void prepare_environment(Prepared& prepared, const runtime::SandboxShape& shape,
                         const runtime::RunPlan& plan, const std::vector<std::string>& brokered_env,
                         bool localhost_proxied) {
  // Runtimes that size their heap themselves (the JVM, V8) cannot see a cgroup limit without
  // /sys: tell them the sandbox's memory limit, whichever mechanism enforces it.
  std::vector<std::string> env = {"PADDOCK_MEMORY_LIMIT_BYTES=" +
                                  std::to_string(shape.limits.memory_bytes)};
  env.insert(env.end(), plan.env.begin(), plan.env.end());
  if (!shape.allowed_hosts.empty() || shape.ask_network) {
    for (auto& entry : net::egress::proxy_env(true, localhost_proxied)) {
      env.push_back(std::move(entry));
    }
  }
  env.insert(env.end(), brokered_env.begin(), brokered_env.end());
  prepared.env_storage = runtime::merge_env(runtime::default_sandbox_env(), env);
  for (auto& entry : prepared.env_storage) {
    prepared.envp.push_back(entry.data());
    if (entry.starts_with("PATH=")) prepared.path_storage = entry.substr(5);
  }
  prepared.envp.push_back(nullptr);
  // PATH split in place: each ':' becomes a terminator, each piece a search directory.
  char* piece = prepared.path_storage.data();
  for (char& c : prepared.path_storage) {
    if (c != ':') continue;
    c = '\0';
    if (*piece != '\0') prepared.path_dirs.push_back(piece);
    piece = &c + 1;
  }
  if (*piece != '\0') prepared.path_dirs.push_back(piece);
}

}  // namespace

core::Status prepare_plan(Prepared& prepared, const runtime::SandboxShape& shape,
                          const runtime::RunPlan& plan, const init::SandboxIdentity& identity,
                          bool cgroup_mode, bool session,
                          const std::vector<std::string>& brokered_env, bool localhost_proxied) {
  auto programs = seccomp_programs(shape);
  if (!programs) return programs.error();
  prepared.seccomp = programs->program;
  prepared.init_seccomp = programs->init;
  std::vector<std::string> writable_binds;
  for (const auto& bind : shape.binds) {
    if (bind.writable) writable_binds.push_back(bind.host_path);
  }
  auto writer = writable_bind_owner(id_map_host(), writable_binds);
  if (!writer) return writer.error();
  prepared.bind_writer = *writer;

  // An image brings its own tree: the host's needs no probing then.
  if (!shape.image_layers.empty()) {
    if (auto etc = init::check_image_etc(shape.image_layers); !etc) return etc.error();
  }
  init::HostLayout image_layout;
  if (shape.image_root == runtime::ImageRoot::kFlattened && shape.image_layers.size() == 1) {
    image_layout = init::probe_flattened_image(shape.image_layers[0], shape.workdir);
  }
  const init::HostLayout& layout = shape.image_layers.empty() ? host_layout() : image_layout;
  // The run's own host /etc entries (its language's), beside the ones every sandbox gets.
  static const std::vector<init::HostLayout::Entry> kNone;
  const auto& extra_etc = shape.image_layers.empty() ? extra_etc_of(shape.host_etc) : kNone;
  bool user_network = init::may_use_user_network(shape, plan, session);
  prepared.mounts = init::plan_mounts(shape, plan, layout, identity, user_network, extra_etc);
  if (user_network) {
    auto fence = network_fence(shape);
    if (!fence) return fence.error();
    prepared.network_fence = std::move(*fence);
  }
  prepared.rlimits = runtime::plan_rlimits(shape.limits, cgroup_mode);
  prepared.step_storage = plan.steps;
  // A session's plan has no steps; its init still gets one (empty) program, as a run's would.
  if (prepared.step_storage.empty()) prepared.step_storage.emplace_back();
  for (auto& step : prepared.step_storage) {
    std::vector<char*>& argv = prepared.step_argvs.emplace_back();
    for (auto& arg : step) argv.push_back(arg.data());
    argv.push_back(nullptr);
  }
  for (auto& argv : prepared.step_argvs) prepared.steps.push_back(argv.data());
  prepare_environment(prepared, shape, plan, brokered_env, localhost_proxied);
  prepared.cwd = plan.cwd.empty() ? shape.workdir : plan.cwd;

  for (const auto& bind : shape.binds) prepared.bind_sources.push_back(bind.host_path.c_str());
  // The trust bundle takes the slot after them (mount_plan.cc's plan_trust_bundle).
  if (!shape.trust_bundle.empty()) prepared.bind_sources.push_back(shape.trust_bundle.c_str());
  for (const auto& layer : shape.image_layers) prepared.layer_sources.push_back(layer.c_str());
  if (plan.networked_steps > 0) {
    for (const auto& file : plan.files_after_install) {
      prepared.late_files.push_back(
          {file.path.c_str(), file.content.data(), file.content.size(), file.mode});
    }
  }
  return {};
}

}  // namespace paddock::native
