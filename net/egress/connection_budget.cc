#include "net/egress/connection_budget.h"

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <utility>

namespace paddock::net::egress {
namespace {

// Connections held by every proxy of the process (server_connection_limit()).
std::atomic<std::size_t> held_connections{0};

}  // namespace

std::size_t server_connection_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) {
    return kMaxConnectionsPerServer;
  }
  return std::clamp<std::size_t>(static_cast<std::size_t>(limit.rlim_cur / 8), 1,
                                 kMaxConnectionsPerServer);
}

std::size_t server_connections() {
  return held_connections.load();
}

std::optional<ServerSlot> ServerSlot::take() {
  std::size_t limit = server_connection_limit();
  std::size_t held = held_connections.load();
  do {
    if (held >= limit) return std::nullopt;
  } while (!held_connections.compare_exchange_weak(held, held + 1));
  ServerSlot slot;
  slot.taken_ = true;
  return slot;
}

ServerSlot::ServerSlot(ServerSlot&& other) noexcept : taken_(std::exchange(other.taken_, false)) {}

ServerSlot& ServerSlot::operator=(ServerSlot&& other) noexcept {
  if (this != &other) {
    give_back();
    taken_ = std::exchange(other.taken_, false);
  }
  return *this;
}

void ServerSlot::give_back() {
  if (std::exchange(taken_, false)) held_connections.fetch_sub(1);
}

}  // namespace paddock::net::egress
