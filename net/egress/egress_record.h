#pragma once

// What an egress proxy did for a run: the destinations it refused, those it connected to, and
// those it let through but could not reach itself.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace paddock::net::egress {

inline constexpr std::size_t kMaxRecorded = 32;  // per list

// A destination the proxy refused or could not reach (`reason` says why), or connected to
// (`reason` empty).
struct Destination {
  std::string host;
  std::uint16_t port = 0;
  std::string reason;
  // A refused reserved address: the setting that would open it ("--allow-private 203.0.113.80"),
  // which --allow-host does not.
  std::string opened_by = {};
  friend bool operator==(const Destination&, const Destination&) = default;
};

// What a proxy did with a brokered secret's placeholder (net/egress/brokered_secrets.h):
// substituted it in a request to one of its secret's hosts, or saw it go somewhere it could not be
// (`reason` says where and why). Names and hosts only, never a value.
struct SecretUse {
  std::string name;
  std::string host;
  std::uint16_t port = 0;
  bool substituted = false;
  std::string reason;  // empty when substituted
  friend bool operator==(const SecretUse&, const SecretUse&) = default;
};

// What the proxy did since it started, or since the last take_record(): each list deduplicated
// by host and port, in the order first seen, at most kMaxRecorded long; `dropped` counts the
// destinations left out. Hosts and ports only: no request's contents.
struct EgressRecord {
  std::vector<Destination> denied;
  std::vector<Destination> allowed;
  // Allowed, but the proxy's own lookup or connect failed ("Connection refused", "Name or
  // service not known"): the client only sees a 502, and without this list an installer's
  // words for it ("from versions: none", "Bad Gateway") read like a wrong package name.
  std::vector<Destination> unreachable;
  // Not in the allowlist, and allowed by the person when asked (paddock mcp --ask network):
  // `reason` is the answer's scope, "once" or "for this session".
  std::vector<Destination> allowed_by_user;
  std::size_t dropped = 0;
  // Brokered secrets' placeholders seen, each once (kMaxRecorded at most).
  std::vector<SecretUse> secrets;
};

}  // namespace paddock::net::egress
