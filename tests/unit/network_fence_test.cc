// The user network's fence as a plan: which destinations are refused, which allowed, in which
// order, and the netlink messages that install them (checked without a network namespace).

#include "runtime/native/init/network_fence.h"

#include <linux/fib_rules.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <netinet/in.h>

#include <cstring>
#include <optional>
#include <vector>

#include <gtest/gtest.h>

#include "core/special_addresses.h"
#include "runtime/native/egress_plan.h"
#include "support/test_spec.h"

namespace paddock::network_fence_test {
namespace {

core::IpPrefix prefix(const char* text) {
  auto parsed = core::parse_ip_prefix(text);
  EXPECT_TRUE(parsed) << text;
  return parsed.value_or(core::IpPrefix{});
}

TEST(IpPrefix, ParsesAddressesAndRanges) {
  EXPECT_EQ(core::to_string(prefix("10.0.0.0/8")), "10.0.0.0/8");
  EXPECT_EQ(core::to_string(prefix("192.0.2.7")), "192.0.2.7/32");
  EXPECT_EQ(core::to_string(prefix("fd00::/8")), "fd00::/8");
  EXPECT_EQ(core::to_string(prefix("::1")), "::1/128");
  EXPECT_EQ(core::to_string(prefix("0.0.0.0/0")), "0.0.0.0/0");
}

TEST(IpPrefix, RefusesWhatIsNotARange) {
  for (const char* text :
       {"", "10", "10.0.0.0/", "10.0.0.0/33", "10.0.0.0/-1", "10.0.0.0/8x", "10.1.2.3/8",
        "fd00::1/8", "example.org", "10.0.0.0/8/8", "::/129", "127.evil.example"}) {
    EXPECT_FALSE(core::parse_ip_prefix(text)) << text;
  }
}

TEST(NetworkFence, RefusesPrivateLinkLocalLoopbackAndMetadataRanges) {
  std::vector<std::string> refused;
  for (const auto& range : init::refused_ranges()) refused.push_back(core::to_string(range));
  for (const char* range : {"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16",
                            "127.0.0.0/8", "100.64.0.0/10", "fc00::/7", "fe80::/10"}) {
    EXPECT_NE(std::find(refused.begin(), refused.end(), range), refused.end()) << range;
  }
}

// IANA's IPv4 and IPv6 Special-Purpose Address Registries as the registry gives them (2025):
// each block and its "Globally Reachable" (true, false, or N/A as nullopt), written out here
// apart from paddock's own table (core/special_addresses.cc) so that each checks the other.
struct RegistryRow {
  const char* block;
  std::optional<bool> global;
};
const std::vector<RegistryRow>& registry_rows() {
  static const std::vector<RegistryRow> kRows = {
      {"0.0.0.0/8", false},        {"0.0.0.0/32", false},
      {"10.0.0.0/8", false},       {"100.64.0.0/10", false},
      {"127.0.0.0/8", false},      {"169.254.0.0/16", false},
      {"172.16.0.0/12", false},    {"192.0.0.0/24", false},
      {"192.0.0.0/29", false},     {"192.0.0.8/32", false},
      {"192.0.0.9/32", true},      {"192.0.0.10/32", true},
      {"192.0.0.170/32", false},   {"192.0.0.171/32", false},
      {"192.0.2.0/24", false},     {"192.31.196.0/24", true},
      {"192.52.193.0/24", true},   {"192.88.99.0/24", {}},
      {"192.88.99.2/32", false},   {"192.168.0.0/16", false},
      {"192.175.48.0/24", true},   {"198.18.0.0/15", false},
      {"198.51.100.0/24", false},  {"203.0.113.0/24", false},
      {"240.0.0.0/4", false},      {"255.255.255.255/32", false},
      {"::1/128", false},          {"::/128", false},
      {"::ffff:0:0/96", false},    {"64:ff9b::/96", true},
      {"64:ff9b:1::/48", false},   {"100::/64", false},
      {"100:0:0:1::/64", false},   {"2001::/23", false},
      {"2001::/32", {}},           {"2001:1::1/128", true},
      {"2001:1::2/128", true},     {"2001:1::3/128", true},
      {"2001:2::/48", false},      {"2001:3::/32", true},
      {"2001:4:112::/48", true},   {"2001:10::/28", false},
      {"2001:20::/28", true},      {"2001:30::/28", true},
      {"2001:db8::/32", false},    {"2002::/16", {}},
      {"2620:4f:8000::/48", true}, {"3fff::/20", false},
      {"5f00::/16", false},        {"fc00::/7", false},
      {"fe80::/10", false},
  };
  return kRows;
}

// The last address of a range: its host bits all set.
core::IpPrefix last_address(core::IpPrefix range) {
  for (unsigned bit = range.length; bit < range.address_bits(); ++bit) {
    range.bytes[bit / 8] |= static_cast<std::uint8_t>(1u << (7 - bit % 8));
  }
  range.length = range.address_bits();
  return range;
}

core::IpPrefix first_address(core::IpPrefix range) {
  range.length = range.address_bits();
  return range;
}

// An address in the middle of a range: its first host bit set (64:ff9b::128.0.0.0 for NAT64's
// prefix, whose first address carries 0.0.0.0).
core::IpPrefix middle_address(core::IpPrefix range) {
  if (range.length < range.address_bits()) {
    range.bytes[range.length / 8] |= static_cast<std::uint8_t>(1u << (7 - range.length % 8));
  }
  range.length = range.address_bits();
  return range;
}

bool refused(const core::IpPrefix& address) {
  for (const auto& range : init::refused_ranges()) {
    if (core::prefix_contains(range, address)) return true;
  }
  return false;
}

// Whether `inner` lies in a block the registry marks not globally reachable.
bool inside_a_non_global_row(const core::IpPrefix& inner) {
  for (const auto& row : registry_rows()) {
    core::IpPrefix outer = prefix(row.block);
    if (row.global == false && outer.family == inner.family && outer.length < inner.length &&
        core::prefix_contains(outer, first_address(inner))) {
      return true;
    }
  }
  return false;
}

TEST(NetworkFence, RefusesEveryBlockTheRegistriesMarkNotGloballyReachable) {
  for (const auto& row : registry_rows()) {
    core::IpPrefix block = prefix(row.block);
    if (row.global == false) {
      EXPECT_TRUE(refused(first_address(block))) << row.block;
      EXPECT_TRUE(refused(last_address(block))) << row.block;
    } else if (row.global == true) {
      // A global block inside one that is not (PCP and TURN anycast in 192.0.0.0/24, AMT, AS112
      // and ORCHIDv2 in 2001::/23) is refused with it: core/special_addresses.h says why.
      EXPECT_EQ(refused(middle_address(block)), inside_a_non_global_row(block)) << row.block;
    }
  }
  // N/A: the deprecated 6to4 relay anycast whole; Teredo inside 2001::/23; 6to4 and NAT64's
  // well-known prefix by the IPv4 address they carry.
  for (const char* address : {"192.88.99.1", "2001::1", "2002:c000:201::1", "2002:c612::1",
                              "2002:0a00:1::", "64:ff9b::c000:201", "64:ff9b::a00:1",
                              "64:ff9b::7f00:1", "::ffff:192.0.2.1", "::ffff:8.8.8.8"}) {
    EXPECT_TRUE(refused(prefix(address))) << address;
  }
  for (const char* address :
       {"8.8.8.8", "198.20.0.1", "198.17.255.255", "192.0.3.1", "2002:808:808::1",
        "64:ff9b::808:808", "2a00:1450::1", "2001:4860::1"}) {
    EXPECT_FALSE(refused(prefix(address))) << address;
  }
}

TEST(NetworkFence, TheTableHoldsEachRegistryRowWithItsReach) {
  using Reach = core::SpecialAddressBlock::Reach;
  for (const auto& row : registry_rows()) {
    const core::SpecialAddressBlock* found = nullptr;
    for (const auto& block : core::special_address_blocks()) {
      if (prefix(block.block) == prefix(row.block)) found = &block;
    }
    ASSERT_NE(found, nullptr) << row.block << " is missing from the table";
    Reach expected =
        !row.global ? Reach::kNotApplicable : (*row.global ? Reach::kGlobal : Reach::kNotGlobal);
    EXPECT_EQ(found->reach, expected) << row.block;
    EXPECT_STRNE(found->name, "") << row.block;
  }
  // And nothing else, but the blocks other registries set apart.
  std::size_t others = 0;
  for (const auto& block : core::special_address_blocks()) {
    others += block.reach == Reach::kOtherRegistry ? 1 : 0;
  }
  EXPECT_EQ(core::special_address_blocks().size(), registry_rows().size() + others);
}

TEST(NetworkFence, ARefusalNamesTheBlockItHit) {
  EXPECT_EQ(core::refused_block_name(prefix("198.18.0.1")), "198.18.0.0/15 (benchmarking)");
  EXPECT_EQ(core::refused_block_name(prefix("192.0.2.7")),
            "192.0.2.0/24 (documentation (TEST-NET-1))");
  EXPECT_EQ(core::refused_block_name(prefix("169.254.169.254")), "169.254.0.0/16 (link local)");
  EXPECT_EQ(core::refused_block_name(prefix("2001:db8::1")), "2001:db8::/32 (documentation)");
  // The most specific block names it.
  EXPECT_EQ(core::refused_block_name(prefix("192.0.0.8")), "192.0.0.8/32 (IPv4 dummy address)");
  auto nat64 = core::refused_block_name(prefix("64:ff9b::c000:201"));
  ASSERT_TRUE(nat64);
  EXPECT_NE(nat64->find("192.0.2.0/24 through NAT64"), std::string::npos) << *nat64;
  EXPECT_FALSE(refused_block_name(prefix("8.8.8.8")));
  EXPECT_FALSE(refused_block_name(prefix("2a00:1450::1")));
  for (const auto& range : init::refused_ranges()) {
    core::IpPrefix first = range;
    first.length = first.address_bits();
    EXPECT_TRUE(core::refused_block_name(first)) << core::to_string(range);
  }
}

// The fence of user-mode networking and the proxy's forbidden list are one list.
TEST(NetworkFence, EveryNetworkModeRefusesTheSameList) {
  std::vector<core::IpPrefix> from_table;
  for (const auto& block : core::refused_blocks()) from_table.push_back(block.range);
  EXPECT_EQ(init::refused_ranges(), from_table);

  std::vector<core::IpPrefix> fenced;
  for (const auto& rule : init::plan_fence({}, {})) {
    if (rule.action == init::FenceRule::Action::kRefuse) fenced.push_back(rule.destination);
  }
  EXPECT_EQ(fenced, init::refused_ranges());

  TestSpec spec;
  spec.allowed_hosts = {"0.0.0.0/0:8080"};
  auto policy = native::egress_policy(shape_of(spec), plan_of(spec));
  ASSERT_TRUE(policy) << policy.error().message;
  ASSERT_GE(policy->forbidden.size(), init::refused_ranges().size());
  std::vector<core::IpPrefix> proxied(
      policy->forbidden.begin(),
      policy->forbidden.begin() + static_cast<std::ptrdiff_t>(init::refused_ranges().size()));
  EXPECT_EQ(proxied, init::refused_ranges());
  // The rest are this host's own addresses, which the fence refuses as well (plan_fence).
}

// --allow-private opens the same addresses to the proxy as to the fence, and no more.
TEST(NetworkFence, WhatTheUserOpensIsOpenInEveryNetworkMode) {
  TestSpec spec;
  spec.allowed_hosts = {"mirror.example"};
  spec.allowed_private_ranges = {"203.0.113.80/32", "10.1.0.0/16"};
  auto policy = native::egress_policy(shape_of(spec), plan_of(spec));
  ASSERT_TRUE(policy) << policy.error().message;
  auto forbidden = [&](const char* address) {
    for (const auto& range : policy->forbidden) {
      if (core::prefix_contains(range, prefix(address))) return true;
    }
    return false;
  };
  for (const char* address : {"203.0.113.80", "10.1.0.1", "10.1.255.255"}) {
    EXPECT_FALSE(forbidden(address)) << address;
  }
  for (const char* address : {"203.0.113.79", "203.0.113.81", "203.0.113.0", "203.0.113.255",
                              "10.0.255.255", "10.2.0.0", "10.255.0.1", "192.0.2.1"}) {
    EXPECT_TRUE(forbidden(address)) << address;
  }
  spec.allowed_private_ranges = {"not-a-range"};
  EXPECT_FALSE(native::egress_policy(shape_of(spec), plan_of(spec)));
}

TEST(NetworkFence, AllowancesAndDnsComeBeforeRefusalsAndHostAddressesAreRefused) {
  auto rules =
      init::plan_fence({prefix("192.0.2.2"), prefix("2001:db8::2")}, {prefix("10.9.0.0/16")});
  ASSERT_GE(rules.size(), 4u);
  EXPECT_EQ(rules[0].action, init::FenceRule::Action::kAllow);
  EXPECT_EQ(core::to_string(rules[0].destination), "10.9.0.0/16");
  // DNS to the sandbox's resolver address, and only DNS (port 53, UDP and TCP).
  for (int i : {1, 2}) {
    EXPECT_EQ(rules[i].action, init::FenceRule::Action::kAllow);
    EXPECT_EQ(core::to_string(rules[i].destination), std::string(init::kSandboxResolver) + "/32");
    EXPECT_EQ(rules[i].port, 53);
  }
  EXPECT_EQ(rules[1].protocol, IPPROTO_UDP);
  EXPECT_EQ(rules[2].protocol, IPPROTO_TCP);
  std::size_t refusals = 0;
  for (std::size_t i = 3; i < rules.size(); ++i) {
    EXPECT_EQ(rules[i].action, init::FenceRule::Action::kRefuse);
    ++refusals;
  }
  EXPECT_EQ(refusals, init::refused_ranges().size() + 2);
  EXPECT_EQ(core::to_string(rules[rules.size() - 2].destination), "192.0.2.2/32");
  EXPECT_EQ(core::to_string(rules.back().destination), "2001:db8::2/128");
}

// Decodes the messages back: one RTM_NEWRULE per rule, acknowledged, with the rule's family,
// prefix, action, priority, protocol and port.
TEST(NetworkFence, EncodesOneAcknowledgedRuleMessageEach) {
  auto rules = init::plan_fence({prefix("192.0.2.2")}, {});
  auto bytes = init::encode_fence(rules);
  std::size_t offset = 0, index = 0;
  std::uint32_t last_priority = 0;
  while (offset < bytes.size()) {
    ASSERT_LT(index, rules.size());
    nlmsghdr header;
    std::memcpy(&header, bytes.data() + offset, sizeof header);
    ASSERT_EQ(header.nlmsg_len % 4, 0u);
    ASSERT_LE(offset + header.nlmsg_len, bytes.size());
    EXPECT_EQ(header.nlmsg_type, RTM_NEWRULE);
    EXPECT_TRUE(header.nlmsg_flags & NLM_F_ACK);
    fib_rule_hdr body;
    std::memcpy(&body, bytes.data() + offset + NLMSG_HDRLEN, sizeof body);
    const init::FenceRule& rule = rules[index];
    EXPECT_EQ(body.family, rule.destination.family);
    EXPECT_EQ(body.dst_len, rule.destination.length);
    EXPECT_EQ(body.action,
              rule.action == init::FenceRule::Action::kAllow ? FR_ACT_TO_TBL : FR_ACT_PROHIBIT);
    std::size_t attribute = offset + NLMSG_HDRLEN + NLMSG_ALIGN(sizeof body);
    bool saw_destination = false, saw_port = false;
    std::uint32_t priority = 0;
    while (attribute < offset + header.nlmsg_len) {
      nlattr attr;
      std::memcpy(&attr, bytes.data() + attribute, sizeof attr);
      const std::uint8_t* data = bytes.data() + attribute + NLA_HDRLEN;
      if (attr.nla_type == FRA_DST) {
        saw_destination = std::memcmp(data, rule.destination.bytes.data(),
                                      rule.destination.address_bits() / 8) == 0;
      } else if (attr.nla_type == FRA_PRIORITY) {
        std::memcpy(&priority, data, sizeof priority);
      } else if (attr.nla_type == FRA_DPORT_RANGE) {
        fib_rule_port_range ports;
        std::memcpy(&ports, data, sizeof ports);
        saw_port = ports.start == rule.port && ports.end == rule.port;
      }
      attribute += NLA_ALIGN(attr.nla_len);
    }
    EXPECT_TRUE(saw_destination) << index;
    EXPECT_EQ(saw_port, rule.port != 0) << index;
    EXPECT_GE(priority, last_priority) << "rules out of order at " << index;
    last_priority = priority;
    offset += NLMSG_ALIGN(header.nlmsg_len);
    ++index;
  }
  EXPECT_EQ(index, rules.size());
}

}  // namespace
}  // namespace paddock::network_fence_test
