#pragma once

// Helper programs a test starts: one run to its end (skopeo, openssl), or a server kept
// running for the test (a registry, a container engine) and stopped and reaped when it ends.

#include <sys/types.h>

#include <string>
#include <vector>

namespace paddock::testing {

struct ToolResult {
  int status = -1;
  std::string output;  // stdout and stderr together
};

// A port of the host's 127.0.0.1 nothing listens on now (the kernel's choice); a race with others
// is unlikely, not ruled out, which is why start_registry tries three times.
int free_port();
// Whether something on the host's 127.0.0.1 accepts connections on `port`.
bool accepts_connections(int port);

// Runs a helper program to its end.
ToolResult run_tool(const std::vector<std::string>& args);

// A server the test started, its output in `log`; stopped (SIGTERM, then SIGKILL after 5 s)
// and reaped when destroyed, so no run leaves one behind.
class Server {
 public:
  Server(const std::vector<std::string>& args, std::string log);
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;
  ~Server() { stop(); }

  [[nodiscard]] pid_t pid() const { return pid_; }
  [[nodiscard]] std::string log() const;
  [[nodiscard]] bool running() const;
  // The port a server prints as its first line once it listens; empty if none came in 20 s.
  // Waiting for it, not for a fixed time, is what makes the server ready under any load.
  [[nodiscard]] std::string port() const;
  void stop();

 private:
  std::string log_;
  pid_t pid_ = -1;
};

}  // namespace paddock::testing
