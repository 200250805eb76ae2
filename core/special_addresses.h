#pragma once

// The address blocks no sandbox may reach unless its user names them, as one table: the rows of
// IANA's IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890 and its updates), with each
// row's "Globally Reachable" as the registry gives it, and the few blocks other registries set
// apart (multicast, deprecated site-local IPv6). Every network mode refuses the same blocks
// computed from it: the routing-rule fence of user-mode networking and the egress proxy's list
// of forbidden addresses (runtime/native/init/network_fence.h, egress_plan.h).
//
// Each block has a name, so that a refusal can say which block it hit: "198.18.0.0/15
// (benchmarking)".

#include <optional>
#include <string>
#include <vector>

#include "core/ip_prefix.h"

namespace paddock::core {

struct SpecialAddressBlock {
  enum class Reach {
    kGlobal,         // the registry's "Globally Reachable: True"
    kNotGlobal,      // "False"
    kNotApplicable,  // "N/A": reachability depends on the IPv4 address the block embeds
    kOtherRegistry,  // not in the special-purpose registries; refused for the reason noted
  };
  const char* block;  // as the registry writes it
  const char* name;   // lower case, short: what a refusal says
  const char* rfc;
  Reach reach;
};

// The registries' rows (as of IANA's 2025 update) and the other blocks, in the registries'
// order, IPv4 first.
const std::vector<SpecialAddressBlock>& special_address_blocks();

// A refused range with the name a refusal gives it.
struct RefusedBlock {
  IpPrefix range;
  std::string name;
};

// What no sandbox reaches unless its user names it:
// - every row that is not globally reachable, with the global more-specific rows inside such a
//   row refused with it (anycast services such as PCP and TURN that the nearest router answers,
//   and overlay identifiers: nothing a sandbox needs, and a hole in a refused block is a rule
//   the fence and the proxy would each have to get right);
// - the N/A rows: the deprecated 6to4 relay anycast (192.88.99.0/24) whole, since whichever
//   relay is nearest answers it; Teredo (2001::/32) lies in 2001::/23 already; 6to4 (2002::/16)
//   and NAT64's well-known prefix (64:ff9b::/96, global) only where the IPv4 address they embed
//   is refused, since that is where a 6to4 or NAT64 gateway near the host would deliver them;
// - multicast and site-local IPv6 (kOtherRegistry).
const std::vector<RefusedBlock>& refused_blocks();

// The refused block holding `address` (a /32 or /128), its most specific one, as
// "198.18.0.0/15 (benchmarking)"; none if no refused block holds it.
std::optional<std::string> refused_block_name(const IpPrefix& address);

}  // namespace paddock::core
