#include "runtime/native/init/network_fence.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <linux/fib_rules.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/special_addresses.h"

namespace paddock::init {
namespace {

// Rules before the main table (32766) and after the local one (0), so that the sandbox's own
// addresses and loopback stay its own. Allowances come before refusals.
constexpr std::uint32_t kAllowPriority = 100;
constexpr std::uint32_t kRefusePriority = 200;

void append_attribute(std::vector<std::uint8_t>& out, std::uint16_t type, const void* data,
                      std::size_t size) {
  nlattr header{static_cast<std::uint16_t>(NLA_HDRLEN + size), type};
  const auto* raw = reinterpret_cast<const std::uint8_t*>(&header);
  out.insert(out.end(), raw, raw + sizeof header);
  const auto* bytes = static_cast<const std::uint8_t*>(data);
  out.insert(out.end(), bytes, bytes + size);
  out.resize(out.size() + (NLA_ALIGN(size) - size), 0);
}

// One request, and the kernel's acknowledgement: an NLMSG_ERROR whose error is 0 on success.
int send_and_acknowledge(int fd, const std::uint8_t* message, std::uint32_t length) {
  if (send(fd, message, length, 0) < 0) return errno;
  alignas(nlmsghdr) std::uint8_t reply[256];
  ssize_t got = recv(fd, reply, sizeof reply, 0);
  if (got < 0) return errno;
  if (got < static_cast<ssize_t>(NLMSG_HDRLEN + sizeof(nlmsgerr))) return EPROTO;
  const auto* answer = reinterpret_cast<const nlmsghdr*>(reply);
  if (answer->nlmsg_type != NLMSG_ERROR) return EPROTO;
  return -static_cast<const nlmsgerr*>(NLMSG_DATA(answer))->error;
}

}  // namespace

const std::vector<core::IpPrefix>& refused_ranges() {
  static const std::vector<core::IpPrefix> kRanges = [] {
    std::vector<core::IpPrefix> ranges;
    for (const auto& block : core::refused_blocks()) ranges.push_back(block.range);
    return ranges;
  }();
  return kRanges;
}

std::vector<FenceRule> plan_fence(const std::vector<core::IpPrefix>& host_addresses,
                                  const std::vector<core::IpPrefix>& allowed) {
  std::vector<FenceRule> rules;
  for (const auto& prefix : allowed) rules.push_back({FenceRule::Action::kAllow, prefix});
  core::IpPrefix resolver = *core::parse_ip_prefix(kSandboxResolver);
  // int: musl's IPPROTO_ constants are plain ints, glibc's an enum.
  for (int protocol : {IPPROTO_UDP, IPPROTO_TCP}) {
    rules.push_back({FenceRule::Action::kAllow, resolver, static_cast<std::uint8_t>(protocol), 53});
  }
  for (const auto& prefix : refused_ranges()) rules.push_back({FenceRule::Action::kRefuse, prefix});
  for (const auto& address : host_addresses) {
    rules.push_back({FenceRule::Action::kRefuse, address});
  }
  return rules;
}

std::vector<std::uint8_t> encode_fence(const std::vector<FenceRule>& rules) {
  std::vector<std::uint8_t> out;
  std::uint32_t sequence = 0;
  for (const auto& rule : rules) {
    std::size_t start = out.size();
    nlmsghdr header{};
    header.nlmsg_type = RTM_NEWRULE;
    header.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL;
    header.nlmsg_seq = ++sequence;
    fib_rule_hdr body{};
    body.family = static_cast<std::uint8_t>(rule.destination.family);
    body.dst_len = static_cast<std::uint8_t>(rule.destination.length);
    bool allow = rule.action == FenceRule::Action::kAllow;
    body.action = allow ? FR_ACT_TO_TBL : FR_ACT_PROHIBIT;
    body.table = allow ? RT_TABLE_MAIN : RT_TABLE_UNSPEC;
    const auto* raw_header = reinterpret_cast<const std::uint8_t*>(&header);
    out.insert(out.end(), raw_header, raw_header + NLMSG_HDRLEN);
    const auto* raw_body = reinterpret_cast<const std::uint8_t*>(&body);
    out.insert(out.end(), raw_body, raw_body + sizeof body);
    out.resize(start + NLMSG_ALIGN(out.size() - start), 0);
    append_attribute(out, FRA_DST, rule.destination.bytes.data(),
                     rule.destination.address_bits() / 8);
    std::uint32_t priority = allow ? kAllowPriority : kRefusePriority;
    append_attribute(out, FRA_PRIORITY, &priority, sizeof priority);
    if (rule.protocol != 0) {
      append_attribute(out, FRA_IP_PROTO, &rule.protocol, sizeof rule.protocol);
    }
    if (rule.port != 0) {
      fib_rule_port_range ports{rule.port, rule.port};
      append_attribute(out, FRA_DPORT_RANGE, &ports, sizeof ports);
    }
    auto length = static_cast<std::uint32_t>(out.size() - start);
    std::memcpy(out.data() + start + offsetof(nlmsghdr, nlmsg_len), &length, sizeof length);
  }
  return out;
}

std::vector<core::IpPrefix> probe_host_addresses() {
  std::vector<core::IpPrefix> addresses;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return addresses;
  for (ifaddrs* entry = list; entry != nullptr; entry = entry->ifa_next) {
    if (entry->ifa_addr == nullptr) continue;
    core::IpPrefix address;
    address.family = entry->ifa_addr->sa_family;
    if (address.family == AF_INET) {
      const auto* ipv4 = reinterpret_cast<const sockaddr_in*>(entry->ifa_addr);
      std::memcpy(address.bytes.data(), &ipv4->sin_addr, 4);
      address.length = 32;
    } else if (address.family == AF_INET6) {
      const auto* ipv6 = reinterpret_cast<const sockaddr_in6*>(entry->ifa_addr);
      std::memcpy(address.bytes.data(), &ipv6->sin6_addr, 16);
      address.length = 128;
    } else {
      continue;
    }
    // Loopback is covered by the refused ranges, and inside it is the sandbox's own.
    static const core::IpPrefix kIpv6Loopback = *core::parse_ip_prefix("::1");
    bool loopback = address.family == AF_INET ? address.bytes[0] == 127 : address == kIpv6Loopback;
    bool seen = false;
    for (const auto& known : addresses) seen = seen || known == address;
    if (!loopback && !seen) addresses.push_back(address);
  }
  freeifaddrs(list);
  return addresses;
}

bool may_use_user_network(const runtime::SandboxShape& shape, const runtime::RunPlan& plan,
                          bool session) {
  if (shape.network == runtime::NetworkMode::kHost) return false;
  return shape.network == runtime::NetworkMode::kUser || plan.networked_steps > 0 || session;
}

int apply_fence(const std::uint8_t* messages, std::size_t size, int* failed_rule) {
  *failed_rule = -1;
  if (size == 0) return 0;
  int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
  if (fd < 0) return errno;
  int error = 0;
  std::size_t offset = 0;
  for (int index = 0; offset < size; ++index) {
    nlmsghdr header;
    std::memcpy(&header, messages + offset, sizeof header);
    error = send_and_acknowledge(fd, messages + offset, header.nlmsg_len);
    if (error != 0) {
      *failed_rule = index;
      break;
    }
    offset += NLMSG_ALIGN(header.nlmsg_len);
  }
  close(fd);
  return error;
}

}  // namespace paddock::init
