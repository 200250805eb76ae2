#include "runtime/native/egress_plan.h"

#include <algorithm>

#include "runtime/native/init/network_fence.h"

namespace paddock::native {
namespace {

// `ranges` without the addresses of `hole`: a range inside the hole goes, a range holding it
// becomes the halves beside the hole at each length down to it.
std::vector<core::IpPrefix> without(const std::vector<core::IpPrefix>& ranges,
                                    const core::IpPrefix& hole) {
  std::vector<core::IpPrefix> out;
  for (const auto& range : ranges) {
    bool hole_holds_range = range.family == hole.family && hole.length <= range.length &&
                            core::prefix_contains(hole, core::IpPrefix{range.family, range.bytes,
                                                                       range.address_bits()});
    bool range_holds_hole =
        range.family == hole.family && range.length < hole.length &&
        core::prefix_contains(range, core::IpPrefix{hole.family, hole.bytes, hole.address_bits()});
    if (hole_holds_range) continue;
    if (!range_holds_hole) {
      out.push_back(range);
      continue;
    }
    for (unsigned length = range.length + 1; length <= hole.length; ++length) {
      // The prefix of `length` bits that shares the hole's first length - 1 bits and differs
      // in the last.
      core::IpPrefix beside{hole.family, {}, length};
      for (unsigned bit = 0; bit < length; ++bit) {
        bool set = (hole.bytes[bit / 8] >> (7 - bit % 8)) & 1;
        if (bit == length - 1) set = !set;
        if (set) beside.bytes[bit / 8] |= static_cast<std::uint8_t>(1u << (7 - bit % 8));
      }
      out.push_back(beside);
    }
  }
  return out;
}

}  // namespace

core::Result<net::egress::AllowList> allow_list(const std::vector<std::string>& texts) {
  std::vector<net::egress::HostPattern> patterns;
  for (const auto& text : texts) {
    auto pattern = net::egress::parse_host_pattern(text);
    if (!pattern) return pattern.error();
    patterns.push_back(std::move(*pattern));
  }
  return net::egress::AllowList(std::move(patterns));
}

bool installer_uses_proxy(const runtime::SandboxShape& shape, const runtime::RunPlan& plan) {
  return !plan.installer_allowed_hosts.empty() && shape.network == runtime::NetworkMode::kNone;
}

bool has_egress_proxy(const runtime::SandboxShape& shape, const runtime::RunPlan& plan,
                      bool session) {
  if (!shape.allowed_hosts.empty() || shape.ask_network) return true;
  if (session) return shape.session_installer_proxy && shape.network == runtime::NetworkMode::kNone;
  return installer_uses_proxy(shape, plan) && plan.networked_steps > 0;
}

core::Result<net::egress::EgressPolicy> egress_policy(const runtime::SandboxShape& shape,
                                                      const runtime::RunPlan& plan) {
  // A run starts with its installer, if it has one that goes through the proxy.
  bool installer_first = plan.networked_steps > 0 && installer_uses_proxy(shape, plan);
  auto allow = allow_list(installer_first ? plan.installer_allowed_hosts : shape.allowed_hosts);
  if (!allow) return allow.error();
  net::egress::EgressPolicy policy;
  policy.allow = std::move(*allow);
  policy.installer = installer_first;
  policy.consent = plan.consent;
  policy.forbidden = init::refused_ranges();
  for (const auto& address : init::probe_host_addresses()) policy.forbidden.push_back(address);
  // What the user opened for user-mode networking (--allow-private) is open here too, as the
  // fence's allowances come before its refusals: one list for every network mode. A name the
  // allowlist names may then resolve there (a package mirror on the LAN).
  for (const auto& text : shape.allowed_private_ranges) {
    auto hole = core::parse_ip_prefix(text);
    if (!hole) {
      return core::invalid_input("'" + text +
                                 "' is not an IP address or CIDR range (e.g. 10.1.2.0/24)");
    }
    policy.forbidden = without(policy.forbidden, *hole);
  }
  return policy;
}

}  // namespace paddock::native
