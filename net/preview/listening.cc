#include "net/preview/listening.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

namespace paddock::net::preview {
namespace {

// The kernel prints an address as the %08X of each of its 32-bit words read in the host's byte
// order: so 127.0.0.1 reads "0100007F" on a little-endian machine. These are made the same way.
std::string as_table_prints(const void* address, std::size_t size) {
  std::string text;
  for (std::size_t at = 0; at < size; at += 4) {
    std::uint32_t word = 0;
    std::memcpy(&word, static_cast<const char*>(address) + at, 4);
    std::array<char, 9> hex{};
    std::snprintf(hex.data(), hex.size(), "%08X", word);
    text += hex.data();
  }
  return text;
}

std::array<std::string, 4> loopback_reachable_addresses() {
  in_addr loopback{htonl(INADDR_LOOPBACK)};
  in_addr any{htonl(INADDR_ANY)};
  in6_addr mapped{};
  inet_pton(AF_INET6, "::ffff:127.0.0.1", &mapped);
  return {as_table_prints(&loopback, sizeof loopback), as_table_prints(&any, sizeof any),
          as_table_prints(&in6addr_any, sizeof in6addr_any),
          as_table_prints(&mapped, sizeof mapped)};
}

constexpr std::string_view kListenState = "0A";  // TCP_LISTEN, as the tables print it

}  // namespace

bool table_listens_on_loopback(std::istream& table, std::uint16_t port) {
  static const std::array<std::string, 4> reachable = loopback_reachable_addresses();
  std::array<char, 5> port_hex{};
  std::snprintf(port_hex.data(), port_hex.size(), "%04X", port);
  std::string line;
  while (std::getline(table, line)) {
    // "  sl  local_address rem_address   st ...": the heading's first field is not "N:".
    std::istringstream fields(line);
    std::string slot, local, remote, state;
    if (!(fields >> slot >> local >> remote >> state) || slot.back() != ':') continue;
    auto colon = local.rfind(':');
    if (colon == std::string::npos || state != kListenState) continue;
    if (local.compare(colon + 1, std::string::npos, port_hex.data()) != 0) continue;
    std::string address = local.substr(0, colon);
    for (const std::string& candidate : reachable) {
      if (address == candidate) return true;
    }
  }
  return false;
}

bool table_listens_on_loopback(std::string_view table, std::uint16_t port) {
  std::istringstream lines{std::string(table)};
  return table_listens_on_loopback(lines, port);
}

core::Result<bool> listens_on_loopback(pid_t pid, std::uint16_t port) {
  std::string tables = "/proc/" + std::to_string(pid) + "/net/";
  bool any_read = false;
  for (const char* table : {"tcp", "tcp6"}) {
    // A line at a time, up to the first match: the sandbox decides how many sockets its tables
    // list (up to its process and descriptor limits), and the server holds one line of them.
    // tcp6 is absent where the kernel has no IPv6: that table then holds nothing.
    std::ifstream file(tables + table);
    if (!file) continue;
    any_read = true;
    if (table_listens_on_loopback(file, port)) return true;
  }
  if (!any_read) {
    return core::Error{ESRCH, "the sandbox's socket tables cannot be read (" + tables + "tcp)"};
  }
  return false;
}

}  // namespace paddock::net::preview
