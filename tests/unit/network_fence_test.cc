// The user network's fence as a plan: which destinations are refused, which allowed, in which
// order, and the netlink messages that install them (checked without a network namespace).

#include "runtime/native/network_fence.h"

#include <linux/fib_rules.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <netinet/in.h>

#include <cstring>

#include <gtest/gtest.h>

namespace paddock {
namespace {

IpPrefix prefix(const char* text) {
  auto parsed = parse_ip_prefix(text);
  EXPECT_TRUE(parsed) << text;
  return parsed.value_or(IpPrefix{});
}

TEST(IpPrefix, ParsesAddressesAndRanges) {
  EXPECT_EQ(to_string(prefix("10.0.0.0/8")), "10.0.0.0/8");
  EXPECT_EQ(to_string(prefix("192.0.2.7")), "192.0.2.7/32");
  EXPECT_EQ(to_string(prefix("fd00::/8")), "fd00::/8");
  EXPECT_EQ(to_string(prefix("::1")), "::1/128");
  EXPECT_EQ(to_string(prefix("0.0.0.0/0")), "0.0.0.0/0");
}

TEST(IpPrefix, RefusesWhatIsNotARange) {
  for (const char* text :
       {"", "10", "10.0.0.0/", "10.0.0.0/33", "10.0.0.0/-1", "10.0.0.0/8x", "10.1.2.3/8",
        "fd00::1/8", "example.org", "10.0.0.0/8/8", "::/129", "127.evil.example"}) {
    EXPECT_FALSE(parse_ip_prefix(text)) << text;
  }
}

TEST(NetworkFence, RefusesPrivateLinkLocalLoopbackAndMetadataRanges) {
  std::vector<std::string> refused;
  for (const auto& range : refused_ranges()) refused.push_back(to_string(range));
  for (const char* range : {"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16",
                            "127.0.0.0/8", "100.64.0.0/10", "fc00::/7", "fe80::/10"}) {
    EXPECT_NE(std::find(refused.begin(), refused.end(), range), refused.end()) << range;
  }
}

TEST(NetworkFence, AllowancesAndDnsComeBeforeRefusalsAndHostAddressesAreRefused) {
  auto rules = plan_fence({prefix("192.0.2.2"), prefix("2001:db8::2")}, {prefix("10.9.0.0/16")});
  ASSERT_GE(rules.size(), 4u);
  EXPECT_EQ(rules[0].action, FenceRule::Action::kAllow);
  EXPECT_EQ(to_string(rules[0].destination), "10.9.0.0/16");
  // DNS to the sandbox's resolver address, and only DNS (port 53, UDP and TCP).
  for (int i : {1, 2}) {
    EXPECT_EQ(rules[i].action, FenceRule::Action::kAllow);
    EXPECT_EQ(to_string(rules[i].destination), std::string(kSandboxResolver) + "/32");
    EXPECT_EQ(rules[i].port, 53);
  }
  EXPECT_EQ(rules[1].protocol, IPPROTO_UDP);
  EXPECT_EQ(rules[2].protocol, IPPROTO_TCP);
  std::size_t refusals = 0;
  for (std::size_t i = 3; i < rules.size(); ++i) {
    EXPECT_EQ(rules[i].action, FenceRule::Action::kRefuse);
    ++refusals;
  }
  EXPECT_EQ(refusals, refused_ranges().size() + 2);
  EXPECT_EQ(to_string(rules[rules.size() - 2].destination), "192.0.2.2/32");
  EXPECT_EQ(to_string(rules.back().destination), "2001:db8::2/128");
}

// Decodes the messages back: one RTM_NEWRULE per rule, acknowledged, with the rule's family,
// prefix, action, priority, protocol and port.
TEST(NetworkFence, EncodesOneAcknowledgedRuleMessageEach) {
  auto rules = plan_fence({prefix("192.0.2.2")}, {});
  auto bytes = encode_fence(rules);
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
    const FenceRule& rule = rules[index];
    EXPECT_EQ(body.family, rule.destination.family);
    EXPECT_EQ(body.dst_len, rule.destination.length);
    EXPECT_EQ(body.action,
              rule.action == FenceRule::Action::kAllow ? FR_ACT_TO_TBL : FR_ACT_PROHIBIT);
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
}  // namespace paddock
