#pragma once

// Rootless user-mode networking for a sandbox's own network namespace: pasta (Debian's passt)
// joins the sandbox's network namespace, creates a tap device there with the host's addresses
// and routes, and forwards its traffic through ordinary host sockets. No root and no bridge.
// When pasta is killed its tap device goes away, and the sandbox is left with only its
// loopback: that is how an install step gets network and the run after it not.
//
// pasta has more reach than the program (host sockets), so it gets as little as it can work
// with: none of its defaults that connect the sandbox to the host (the gateway mapped to the
// host's loopback, host loopback ports spliced in, ports bound inside bound on the host), and
// the sandbox's own host identity rather than the caller's: it enters the sandbox's user
// namespace as the sandbox user, keeping only the two capabilities it needs there. The private
// and host destinations it would still carry are refused inside (network_fence.h).

#include <sys/types.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "core/result.h"
#include "core/unique_fd.h"

namespace paddock::native {

class UserNetwork {
 public:
  // The sandbox's user and network namespaces, opened right after clone while its init is
  // still ours to inspect (it turns non-dumpable, and may change uid, before it runs anything).
  struct Namespaces {
    core::UniqueFd user;
    core::UniqueFd net;
    uid_t uid = 0;  // the sandbox user, inside: pasta runs as it
    gid_t gid = 0;
  };
  static core::Result<Namespaces> open_namespaces(pid_t sandbox_pid, uid_t uid, gid_t gid);

  // Starts pasta in those namespaces and waits until it has configured them. The sandbox's
  // 127.0.0.1:PORT reaches the host's for each of `host_loopback_ports` (TCP), and nothing else
  // of the host's loopback.
  static core::Result<UserNetwork> attach(const Namespaces& namespaces,
                                          const std::vector<std::uint16_t>& host_loopback_ports);

  UserNetwork() = default;
  UserNetwork(UserNetwork&& other) noexcept
      : pasta_(std::move(other.pasta_)), child_(std::exchange(other.child_, -1)) {}
  UserNetwork& operator=(UserNetwork&& other) noexcept {
    if (this != &other) {
      detach();
      pasta_ = std::move(other.pasta_);
      child_ = std::exchange(other.child_, -1);
    }
    return *this;
  }
  ~UserNetwork() { detach(); }

  // Kills pasta and waits until it is gone; the sandbox's network is then down. Idempotent.
  void detach();
  [[nodiscard]] bool attached() const { return pasta_.valid(); }

 private:
  UserNetwork(core::UniqueFd pasta, pid_t child) : pasta_(std::move(pasta)), child_(child) {}
  core::UniqueFd pasta_;  // pidfd of pasta, our child
  pid_t child_ = -1;
};

}  // namespace paddock::native
