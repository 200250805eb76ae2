#include "runtime/native/user_network.h"

#include <fcntl.h>
#include <linux/securebits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "runtime/native/init/child.h"
#include "runtime/native/init/network_fence.h"

namespace paddock::native {
namespace {

constexpr const char* kPasta = "/usr/bin/pasta";
constexpr int kStartTimeoutMs = 10'000;
// pasta is started with an empty environment: it needs none (everything it is told is in its
// arguments), and the server's holds the real values behind --secret and whatever else the
// user started it with, while pasta runs as the sandbox's own host uid.
char* const kPastaEnvironment[] = {nullptr};

// What `fd` holds right now (the writer may keep it open).
std::string read_available(int fd) {
  std::string text;
  for (;;) {
    pollfd entry{fd, POLLIN, 0};
    if (poll(&entry, 1, 0) != 1 || (entry.revents & POLLIN) == 0) return text;
    std::array<char, 512> buffer;
    ssize_t got = read(fd, buffer.data(), buffer.size());
    if (got <= 0) return text;
    text.append(buffer.data(), static_cast<std::size_t>(got));
  }
}

}  // namespace

core::Result<UserNetwork::Namespaces> UserNetwork::open_namespaces(pid_t sandbox_pid, uid_t uid,
                                                                   gid_t gid) {
  std::string base = "/proc/" + std::to_string(sandbox_pid) + "/ns/";
  Namespaces namespaces{core::UniqueFd(open((base + "user").c_str(), O_RDONLY | O_CLOEXEC)),
                        core::UniqueFd(open((base + "net").c_str(), O_RDONLY | O_CLOEXEC)), uid,
                        gid};
  if (!namespaces.user.valid() || !namespaces.net.valid()) {
    return core::system_error("opening the sandbox's namespaces for user-mode networking");
  }
  return namespaces;
}

namespace {

// pasta's options. Its defaults are made for a developer's own containers, not for code nobody
// trusts: they map the gateway address to the host's loopback (--no-map-gw), splice ports bound
// on the host's loopback into the namespace's (-T/-U none), and bind every port the namespace
// listens on on the host (-t/-u none). DNS sent to kSandboxResolver goes to the host's resolver.
// No DHCP: --config-net configures the interface itself.
std::vector<std::string> pasta_arguments(const std::vector<std::uint16_t>& host_loopback_ports) {
  std::string spliced;
  for (auto port : host_loopback_ports) {
    spliced += (spliced.empty() ? "" : ",") + std::to_string(port);
  }
  return {kPasta,
          "--config-net",
          "--foreground",
          "--quiet",
          "--pid",
          "/proc/self/fd/3",
          "--netns",
          "/proc/self/fd/5",
          "--netns-only",
          "-t",
          "none",
          "-u",
          "none",
          "-T",
          spliced.empty() ? "none" : spliced,
          "-U",
          "none",
          "--no-map-gw",
          "--dns-forward",
          init::kSandboxResolver,
          "--no-dhcp",
          "--no-dhcpv6"};
}

// What pasta needs in the sandbox's namespaces: to enter the network namespace (CAP_SYS_ADMIN)
// and to create and configure the tap device there (CAP_NET_ADMIN).
constexpr int kPastaCapabilities[] = {CAP_SYS_ADMIN, CAP_NET_ADMIN};

// In pasta's process, before execve: becomes the sandbox user inside the sandbox's user
// namespace (so host sockets are opened as the sandbox's host uid, which owns nothing on the
// host, and host root never runs pasta), with only kPastaCapabilities, held across execve as
// ambient capabilities since the sandbox user is not root. Raw system calls and no allocation:
// this is a copy of a possibly multi-threaded parent. Returns an errno, or 0.
int become_sandbox_user(int user_namespace, uid_t uid, gid_t gid) {
  // Host root's supplementary groups (group 0 among them) must not come along; an unprivileged
  // caller may not drop its own here, and they are the caller's anyway.
  if (geteuid() == 0 && syscall(SYS_setgroups, 0, nullptr) != 0) return errno;
  if (setns(user_namespace, CLONE_NEWUSER) != 0) return errno;
  // Switching to a uid that is not root inside would clear every capability.
  if (prctl(PR_SET_SECUREBITS, SECBIT_NO_SETUID_FIXUP, 0, 0, 0) != 0) return errno;
  if (syscall(SYS_setresgid, gid, gid, gid) != 0) return errno;
  if (syscall(SYS_setresuid, uid, uid, uid) != 0) return errno;
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  for (int cap : kPastaCapabilities) {
    data[cap / 32].effective |= 1u << (cap % 32);
    data[cap / 32].permitted |= 1u << (cap % 32);
    data[cap / 32].inheritable |= 1u << (cap % 32);
  }
  if (syscall(SYS_capset, &header, data) != 0) return errno;
  for (int cap : kPastaCapabilities) {
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0) != 0) return errno;
  }
  return 0;
}

// In pasta's process, right after the clone: its fds in place (3: the pid pipe, 4: the sandbox's
// user namespace, 5: its network namespace), the sandbox user, then pasta.
[[noreturn]] void exec_pasta(const int (&fds)[3], int null_fd, int err_fd, pid_t parent, uid_t uid,
                             gid_t gid, char* const* argv) {
  // Allocation-free, as in the sandbox's child: only system calls until execve.
  prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  if (getppid() != parent) _exit(126);
  int moved[3];
  for (int i = 0; i < 3; ++i) moved[i] = fcntl(fds[i], F_DUPFD, 10);
  dup2(null_fd, STDIN_FILENO);
  dup2(null_fd, STDOUT_FILENO);
  dup2(err_fd, STDERR_FILENO);
  for (int i = 0; i < 3; ++i) dup2(moved[i], 3 + i);
  syscall(SYS_close_range, 6, ~0u, 0);
  if (int error = become_sandbox_user(4, uid, gid); error != 0) {
    const char message[] = "cannot become the sandbox user in its namespaces\n";
    ssize_t ignored = write(STDERR_FILENO, message, sizeof message - 1);
    (void)ignored;
    _exit(126);
  }
  close(4);
  // Changing ids made the process non-dumpable, which hands its /proc/self/fd to root: pasta
  // could not open its pid file there. No process of the sandbox can name it (it is outside
  // their PID namespace), and pasta makes itself non-dumpable again once set up.
  prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
  // Changing ids cleared the parent-death signal.
  prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  if (getppid() != parent) _exit(126);
  // pasta takes an inherited SIG_IGN for SIGPIPE as a failure to install its handlers.
  for (int sig = 1; sig < NSIG; ++sig) signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  execve(kPasta, argv, kPastaEnvironment);
  _exit(127);
}

}  // namespace

core::Result<UserNetwork> UserNetwork::attach(
    const Namespaces& namespaces, const std::vector<std::uint16_t>& host_loopback_ports) {
  if (access(kPasta, X_OK) != 0) {
    return core::Error{ENOENT, "user-mode networking needs pasta: apt-get install passt"};
  }
  // pasta runs in the foreground as our child, so PR_SET_PDEATHSIG takes it down with paddock;
  // it writes its pid to fd 3 once the namespace is configured, which is the signal to go on.
  int pid_pipe[2];
  int err_pipe[2];
  if (pipe2(pid_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
    return core::system_error("creating pipes for pasta");
  }
  core::UniqueFd pid_read(pid_pipe[0]), pid_write(pid_pipe[1]);
  core::UniqueFd err_read(err_pipe[0]), err_write(err_pipe[1]);
  // pasta reopens the pid pipe through /proc/self/fd/3 as the sandbox user, who does not own
  // it. Only processes that can reach pasta's fd table can get at it that way.
  if (fchmod(pid_write.get(), 0622) != 0) return core::system_error("preparing the pipe for pasta");
  std::vector<std::string> args = pasta_arguments(host_loopback_ports);
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  const int fds[] = {pid_write.get(), namespaces.user.get(), namespaces.net.get()};
  const int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
  const pid_t parent = getpid();
  const uid_t uid = namespaces.uid;
  const gid_t gid = namespaces.gid;

  int pidfd = -1;
  pid_t child = init::clone_process(CLONE_PIDFD, &pidfd);
  if (child == 0) exec_pasta(fds, null_fd, err_write.get(), parent, uid, gid, argv.data());
  if (null_fd >= 0) close(null_fd);
  if (child < 0) return core::system_error("starting pasta");
  UserNetwork network{core::UniqueFd(pidfd), child};
  pid_write.reset();
  err_write.reset();

  // pasta hangs rather than fails when it cannot open /dev/net/tun: bound the wait.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kStartTimeoutMs);
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      return core::Error{
          ETIMEDOUT,
          "user-mode networking (pasta) did not start within 10 s; /dev/net/tun must "
          "be readable and writable by uid " +
              std::to_string(geteuid()) + " (as root: chmod 0666 /dev/net/tun)"};
    }
    pollfd watch[2] = {{pid_read.get(), POLLIN, 0}, {network.pasta_.get(), POLLIN, 0}};
    if (poll(watch, 2, static_cast<int>(left.count())) <= 0) continue;
    if ((watch[0].revents & POLLIN) != 0 && !read_available(pid_read.get()).empty()) {
      return network;  // configured
    }
    if (watch[1].revents != 0 || (watch[0].revents & POLLHUP) != 0) {
      std::string complaint = read_available(err_read.get());
      while (!complaint.empty() && complaint.back() == '\n') complaint.pop_back();
      return core::Error{EIO, "user-mode networking (pasta) failed" +
                                  (complaint.empty() ? std::string() : ": " + complaint)};
    }
  }
}

void UserNetwork::detach() {
  if (!pasta_.valid()) return;
  syscall(SYS_pidfd_send_signal, pasta_.get(), SIGKILL, nullptr, 0);
  int status = 0;
  while (waitpid(child_, &status, __WALL) < 0 && errno == EINTR) {
  }
  pasta_.reset();
}

}  // namespace paddock::native
