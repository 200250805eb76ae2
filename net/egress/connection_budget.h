#pragma once

// The budget of connections every egress proxy of the process shares (proxy.h says why there is
// one): a connection holds a ServerSlot for as long as it lives.

#include <cstddef>
#include <optional>

namespace paddock::net::egress {

// The most that server_connection_limit() allows, however many descriptors the process has.
inline constexpr std::size_t kMaxConnectionsPerServer = 4096;

// How many connections every proxy of this process may hold together: an eighth of the soft
// RLIMIT_NOFILE as it is now (two descriptors each: a quarter of them), at most
// kMaxConnectionsPerServer, so the server keeps descriptors for its own work however many
// sandboxes open connections.
std::size_t server_connection_limit();
// How many they hold now.
std::size_t server_connections();

// A place in the server's budget of connections, given back when the connection ends.
class ServerSlot {
 public:
  ServerSlot() = default;
  // A slot, or nothing when the budget is spent.
  static std::optional<ServerSlot> take();
  ServerSlot(ServerSlot&& other) noexcept;
  ServerSlot& operator=(ServerSlot&& other) noexcept;
  ServerSlot(const ServerSlot&) = delete;
  ServerSlot& operator=(const ServerSlot&) = delete;
  ~ServerSlot() { give_back(); }

 private:
  void give_back();

 private:
  bool taken_ = false;
};

}  // namespace paddock::net::egress
