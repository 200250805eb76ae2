#pragma once

// A real `paddock mcp` with a warm pool, for the warm pool's and the warm interpreters' tests:
// its calls, which of them ran warm (from its audit log), and the sandboxes waiting below it.

#include <sys/types.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/mcp_process.h"

namespace paddock::testing {

std::string random_text(const std::string& prefix);

// Waits until exactly `count` sandboxes have stayed below the server for a moment: the pool has
// filled and closed what it used. Returns them.
std::vector<pid_t> settled_sandboxes(pid_t server, std::size_t count);

// settled_sandboxes, where each waiting sandbox holds its interpreter (a process whose command
// line starts with `program`): a used one still being closed beside its replacement is not
// counted as one. And the pool has said so itself: `server` is a WarmServer's, whose debug log
// says that `count` wait and none is opening.
std::vector<pid_t> settled_interpreters(pid_t server, std::size_t count,
                                        const std::string& program = "python3");

// Everything a process of the sandbox holds that paddock can read: its command line, its
// environment and, where the host allows it (as root), its writable memory.
std::string readable_state(pid_t pid);

// `root` and every process below it.
std::vector<pid_t> process_tree(pid_t root);

class WarmServer {
 public:
  // Without a --preload among `flags`, the server's warm interpreters preload nothing: one kind
  // of sandbox waits per language (the pool's own tests); the preload's tests name theirs.
  // Without --ready-kernels, none is made ready at start (--ready-kernels none).
  explicit WarmServer(std::vector<std::string> flags = {});
  ~WarmServer();

  McpProcess& mcp() { return server_; }
  [[nodiscard]] pid_t pid() const { return server_.pid(); }

  // The structured result of execute_code with `arguments`; a result that is an error (a
  // timeout) only when `may_fail`.
  nlohmann::json run(nlohmann::json arguments, bool may_fail = false);

  // Whether each run so far ran warm, in order, from the audit log.
  [[nodiscard]] std::vector<bool> warm_runs() const;

 private:
  std::string audit_;
  std::string log_;  // its stderr, at debug level
  McpProcess server_;
  int next_id_ = 0;
};

}  // namespace paddock::testing
