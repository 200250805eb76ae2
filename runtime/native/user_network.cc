#include "native/user_network.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "native/child.h"

extern char** environ;

namespace paddock {
namespace {

constexpr const char* kPasta = "/usr/bin/pasta";
constexpr int kStartTimeoutMs = 10'000;

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

Result<UserNetwork::Namespaces> UserNetwork::open_namespaces(pid_t sandbox_pid) {
  std::string base = "/proc/" + std::to_string(sandbox_pid) + "/ns/";
  Namespaces namespaces{UniqueFd(open((base + "user").c_str(), O_RDONLY | O_CLOEXEC)),
                        UniqueFd(open((base + "net").c_str(), O_RDONLY | O_CLOEXEC))};
  if (!namespaces.user.valid() || !namespaces.net.valid()) {
    return system_error("opening the sandbox's namespaces for user-mode networking");
  }
  return namespaces;
}

Result<UserNetwork> UserNetwork::attach(const Namespaces& namespaces) {
  if (access(kPasta, X_OK) != 0) {
    return Error{ENOENT, "user-mode networking needs pasta: apt-get install passt"};
  }
  // pasta runs in the foreground as our child, so PR_SET_PDEATHSIG takes it down with paddock;
  // it writes its pid to fd 3 once the namespace is configured, which is the signal to go on.
  int pid_pipe[2];
  int err_pipe[2];
  if (pipe2(pid_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
    return system_error("creating pipes for pasta");
  }
  UniqueFd pid_read(pid_pipe[0]), pid_write(pid_pipe[1]);
  UniqueFd err_read(err_pipe[0]), err_write(err_pipe[1]);
  std::vector<std::string> args = {kPasta,    "--config-net",    "--foreground", "--quiet",
                                   "--pid",   "/proc/self/fd/3", "--userns",     "/proc/self/fd/4",
                                   "--netns", "/proc/self/fd/5"};
  // As root pasta would switch to nobody, who may not enter a namespace root created.
  if (geteuid() == 0) args.insert(args.end(), {"--runas", "0:0"});
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  const int fds[] = {pid_write.get(), namespaces.user.get(), namespaces.net.get()};
  const int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
  const pid_t parent = getpid();

  int pidfd = -1;
  pid_t child = clone_process(CLONE_PIDFD, &pidfd);
  if (child == 0) {
    // Allocation-free, as in the sandbox's child: only system calls until execve.
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (getppid() != parent) _exit(126);
    int moved[3];
    for (int i = 0; i < 3; ++i) moved[i] = fcntl(fds[i], F_DUPFD, 10);
    dup2(null_fd, STDIN_FILENO);
    dup2(null_fd, STDOUT_FILENO);
    dup2(err_write.get(), STDERR_FILENO);
    for (int i = 0; i < 3; ++i) dup2(moved[i], 3 + i);
    syscall(SYS_close_range, 6, ~0u, 0);
    // pasta takes an inherited SIG_IGN for SIGPIPE as a failure to install its handlers.
    for (int sig = 1; sig < NSIG; ++sig) signal(sig, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    execve(kPasta, argv.data(), environ);
    _exit(127);
  }
  if (null_fd >= 0) close(null_fd);
  if (child < 0) return system_error("starting pasta");
  UserNetwork network{UniqueFd(pidfd), child};
  pid_write.reset();
  err_write.reset();

  // pasta hangs rather than fails when it cannot open /dev/net/tun: bound the wait.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kStartTimeoutMs);
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      return Error{ETIMEDOUT,
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
      return Error{EIO, "user-mode networking (pasta) failed" +
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

}  // namespace paddock
