#pragma once

// Rootless user-mode networking for a sandbox's own network namespace: pasta (Debian's passt)
// joins the sandbox's user and network namespaces, creates a tap device there with the host's
// addresses and routes, and forwards its traffic through ordinary sockets of the calling user.
// No root and no bridge. When pasta is killed its tap device goes away, and the sandbox is left
// with only its loopback: that is how an install step gets network and the run after it not.

#include <sys/types.h>

#include <utility>

#include "core/result.h"
#include "core/unique_fd.h"

namespace paddock {

class UserNetwork {
 public:
  // The sandbox's user and network namespaces, opened right after clone while its init is
  // still ours to inspect (it turns non-dumpable, and may change uid, before it runs anything).
  struct Namespaces {
    UniqueFd user;
    UniqueFd net;
  };
  static Result<Namespaces> open_namespaces(pid_t sandbox_pid);

  // Starts pasta in those namespaces and waits until it has configured them.
  static Result<UserNetwork> attach(const Namespaces& namespaces);

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
  UserNetwork(UniqueFd pasta, pid_t child) : pasta_(std::move(pasta)), child_(child) {}
  UniqueFd pasta_;  // pidfd of pasta, our child
  pid_t child_ = -1;
};

}  // namespace paddock
