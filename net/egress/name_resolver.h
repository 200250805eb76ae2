#pragma once

// Name lookups for the egress proxies of this process, without a thread per connection.
// getaddrinfo blocks and cannot be cancelled, so a proxy's event loop hands each name to one of
// a few worker threads shared by every proxy in the process, and reads the answer from a pipe
// its loop polls. Not getaddrinfo_a: glibc's starts a thread per request (up to 20), notifies
// through a signal or yet another thread, and a failure to start one is as silent as ours is
// explicit here. The workers are started on first use and kept for the life of the process:
// a proxy that stops never waits for a lookup stuck on an unanswering DNS server (its answer is
// dropped), and no worker is started or ended per connection, so a sandbox that fills the
// process budget it shares with the server cannot make a lookup crash it, only fail.

#include <netdb.h>
#include <sys/socket.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/unique_fd.h"

namespace paddock::net::egress {

// Worker threads for every proxy of the process together; a lookup waits when all are busy.
inline constexpr std::size_t kResolverThreads = 4;

struct ResolvedAddress {
  sockaddr_storage address{};
  socklen_t length = 0;
};

struct NameLookup {
  std::uint64_t id = 0;  // the asker's
  int error = 0;         // getaddrinfo's (gai_strerror), 0 when resolved
  std::vector<ResolvedAddress> addresses;
};

// One proxy's lookups: asked on its loop, answered on ready_fd().
class LookupQueue : public std::enable_shared_from_this<LookupQueue> {
 public:
  static core::Result<std::shared_ptr<LookupQueue>> create();

  // Readable when answers wait; poll it, then take_answers().
  [[nodiscard]] int ready_fd() const { return ready_read_.get(); }
  // Starts resolving `name` (a name, or a literal address, which is answered at once) at `port`
  // for `id`. False when no worker thread runs or can be started (the process budget is
  // spent): the asker fails the connection instead of waiting.
  [[nodiscard]] bool ask(std::uint64_t id, const std::string& name, std::uint16_t port);
  // The answers that came since the last call.
  std::vector<NameLookup> take_answers();
  // Called by a worker.
  void answer(NameLookup lookup);

 private:
  LookupQueue() = default;
  std::mutex mutex_;
  std::vector<NameLookup> answers_;
  core::UniqueFd ready_read_, ready_write_;
};

}  // namespace paddock::net::egress
