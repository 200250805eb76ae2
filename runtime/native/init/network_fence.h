#pragma once

// What user-mode networking may reach. pasta (user_network.h) carries whatever the sandbox sends
// to the outside world through ordinary host sockets, so on its own it would also carry traffic
// to the host's other addresses and to the private networks around the host (a router's admin
// page, a cloud's metadata service, the office LAN). The fence is a set of routing-policy rules
// in the sandbox's own network namespace that refuse those destinations before a packet ever
// reaches pasta: connect() and sendto() fail at once with EACCES.
//
// The rules live in a namespace the sandbox's user namespace owns, but the program has no
// capabilities there, so it cannot change them. The plan is pure data (unit-tested); the applier
// runs in the sandbox's init before the program starts, without allocating (child.h).

#include <cstdint>
#include <vector>

#include "core/ip_prefix.h"
#include "runtime/run_plan.h"
#include "runtime/sandbox_shape.h"

namespace paddock::init {

// Where the sandbox sends DNS queries under user-mode networking: pasta forwards what arrives
// there on port 53 to the host's own resolver, which is usually on loopback or a private address
// the fence refuses. A link-local address nothing else answers on.
inline constexpr const char* kSandboxResolver = "169.254.0.53";

// Destinations refused unless the user allows them: every block of IANA's special-purpose
// registries that is not globally reachable (private, shared, loopback, link-local with every
// cloud's metadata address, documentation, benchmarking, protocol assignments, unique-local...),
// their 6to4 and NAT64 forms, and multicast and site-local (core/special_addresses.h, the one
// table). The egress proxy refuses the same list (egress_plan.h).
const std::vector<core::IpPrefix>& refused_ranges();

struct FenceRule {
  enum class Action { kAllow, kRefuse };
  Action action = Action::kRefuse;
  core::IpPrefix destination;
  std::uint8_t protocol = 0;  // IPPROTO_TCP / IPPROTO_UDP, 0 for any
  std::uint16_t port = 0;     // destination port, 0 for any
};

// The rules in the order they apply: what the user allowed and DNS to kSandboxResolver first,
// then the refused ranges and each of the host's own addresses (`host_addresses`, loopback
// excluded by the caller).
std::vector<FenceRule> plan_fence(const std::vector<core::IpPrefix>& host_addresses,
                                  const std::vector<core::IpPrefix>& allowed);

// The rules as RTM_NEWRULE netlink messages, back to back, each asking for an acknowledgement.
std::vector<std::uint8_t> encode_fence(const std::vector<FenceRule>& rules);

// The host's addresses on every interface but loopback.
std::vector<core::IpPrefix> probe_host_addresses();

// Whether a sandbox made from `shape` and `plan` can ever have user-mode networking: for its
// program, its installer, or (a session) a later install command.
bool may_use_user_network(const runtime::SandboxShape& shape, const runtime::RunPlan& plan,
                          bool session);

// In the sandbox's init: installs the encoded rules in the current network namespace. Returns 0,
// or an errno with the index of the rule that failed in `*failed_rule`. Allocation-free.
int apply_fence(const std::uint8_t* messages, std::size_t size, int* failed_rule);

}  // namespace paddock::init
