#include "core/special_addresses.h"

#include <sys/socket.h>

namespace paddock::core {
namespace {

using Reach = SpecialAddressBlock::Reach;

// Where an IPv6 block carries an IPv4 address: 6to4 after its first 16 bits (RFC 3056), NAT64's
// well-known prefix in its last 32 (RFC 6052).
struct Embedding {
  const char* prefix;
  unsigned offset_bits;
  const char* how;
};
constexpr Embedding kEmbeddings[] = {{"2002::/16", 16, "through 6to4"},
                                     {"64:ff9b::/96", 96, "through NAT64's well-known prefix"}};

// `ipv4` as it appears inside `embedding`: "2002:c000:200::/40" for 192.0.2.0/24.
IpPrefix embedded(const Embedding& embedding, const IpPrefix& ipv4) {
  IpPrefix out = *parse_ip_prefix(embedding.prefix);
  for (unsigned bit = 0; bit < ipv4.length; ++bit) {
    if ((ipv4.bytes[bit / 8] >> (7 - bit % 8)) & 1) {
      unsigned at = embedding.offset_bits + bit;
      out.bytes[at / 8] |= static_cast<std::uint8_t>(1u << (7 - at % 8));
    }
  }
  out.length = embedding.offset_bits + ipv4.length;
  return out;
}

bool within(const IpPrefix& inner, const IpPrefix& outer) {
  if (inner.family != outer.family || inner.length < outer.length) return false;
  return prefix_contains(outer, inner);
}

// Every block refused, named, including those that lie inside another refused block (their
// names are the more specific ones).
const std::vector<RefusedBlock>& named_refusals() {
  static const std::vector<RefusedBlock> kNamed = [] {
    std::vector<RefusedBlock> named;
    std::vector<IpPrefix> not_global;
    for (const auto& row : special_address_blocks()) {
      if (row.reach == Reach::kNotGlobal) not_global.push_back(*parse_ip_prefix(row.block));
    }
    for (const auto& row : special_address_blocks()) {
      IpPrefix range = *parse_ip_prefix(row.block);
      bool refused = row.reach == Reach::kNotGlobal || row.reach == Reach::kOtherRegistry;
      // A global or N/A row inside one that is not global is refused with it (header).
      for (const auto& outer : not_global) refused = refused || within(range, outer);
      // The one N/A row that embeds nothing: the deprecated 6to4 relay anycast.
      refused = refused || (row.reach == Reach::kNotApplicable && range.family == AF_INET);
      if (refused) named.push_back({range, row.name});
    }
    // The IPv4 blocks refused above, as 6to4 and NAT64 carry them.
    std::size_t ipv4_end = named.size();
    for (const auto& embedding : kEmbeddings) {
      for (std::size_t i = 0; i < ipv4_end; ++i) {
        if (named[i].range.family != AF_INET) continue;
        named.push_back({embedded(embedding, named[i].range),
                         named[i].name + ", " + to_string(named[i].range) + " " + embedding.how});
      }
    }
    return named;
  }();
  return kNamed;
}

}  // namespace

const std::vector<SpecialAddressBlock>& special_address_blocks() {
  static const std::vector<SpecialAddressBlock> kBlocks = {
      // IANA IPv4 Special-Purpose Address Registry.
      {"0.0.0.0/8", "this network", "RFC 791", Reach::kNotGlobal},
      {"0.0.0.0/32", "this host on this network", "RFC 1122", Reach::kNotGlobal},
      {"10.0.0.0/8", "private-use", "RFC 1918", Reach::kNotGlobal},
      {"100.64.0.0/10", "shared address space", "RFC 6598", Reach::kNotGlobal},
      {"127.0.0.0/8", "loopback", "RFC 1122", Reach::kNotGlobal},
      {"169.254.0.0/16", "link local", "RFC 3927", Reach::kNotGlobal},
      {"172.16.0.0/12", "private-use", "RFC 1918", Reach::kNotGlobal},
      {"192.0.0.0/24", "IETF protocol assignments", "RFC 6890", Reach::kNotGlobal},
      {"192.0.0.0/29", "IPv4 service continuity prefix", "RFC 7335", Reach::kNotGlobal},
      {"192.0.0.8/32", "IPv4 dummy address", "RFC 7600", Reach::kNotGlobal},
      {"192.0.0.9/32", "port control protocol anycast", "RFC 7723", Reach::kGlobal},
      {"192.0.0.10/32", "TURN anycast", "RFC 8155", Reach::kGlobal},
      {"192.0.0.170/32", "NAT64/DNS64 discovery", "RFC 8880", Reach::kNotGlobal},
      {"192.0.0.171/32", "NAT64/DNS64 discovery", "RFC 8880", Reach::kNotGlobal},
      {"192.0.2.0/24", "documentation (TEST-NET-1)", "RFC 5737", Reach::kNotGlobal},
      {"192.31.196.0/24", "AS112-v4", "RFC 7535", Reach::kGlobal},
      {"192.52.193.0/24", "AMT", "RFC 7450", Reach::kGlobal},
      {"192.88.99.0/24", "deprecated 6to4 relay anycast", "RFC 7526", Reach::kNotApplicable},
      {"192.88.99.2/32", "6a44 relay anycast", "RFC 6751", Reach::kNotGlobal},
      {"192.168.0.0/16", "private-use", "RFC 1918", Reach::kNotGlobal},
      {"192.175.48.0/24", "direct delegation AS112 service", "RFC 7534", Reach::kGlobal},
      {"198.18.0.0/15", "benchmarking", "RFC 2544", Reach::kNotGlobal},
      {"198.51.100.0/24", "documentation (TEST-NET-2)", "RFC 5737", Reach::kNotGlobal},
      {"203.0.113.0/24", "documentation (TEST-NET-3)", "RFC 5737", Reach::kNotGlobal},
      {"240.0.0.0/4", "reserved", "RFC 1112", Reach::kNotGlobal},
      {"255.255.255.255/32", "limited broadcast", "RFC 919", Reach::kNotGlobal},
      // IANA's IPv4 Multicast Address Space Registry: never a unicast peer, and what answers
      // is on the host's own links.
      {"224.0.0.0/4", "multicast", "RFC 5771", Reach::kOtherRegistry},

      // IANA IPv6 Special-Purpose Address Registry.
      {"::1/128", "loopback address", "RFC 4291", Reach::kNotGlobal},
      {"::/128", "unspecified address", "RFC 4291", Reach::kNotGlobal},
      {"::ffff:0:0/96", "IPv4-mapped address", "RFC 4291", Reach::kNotGlobal},
      {"64:ff9b::/96", "IPv4-IPv6 translation", "RFC 6052", Reach::kGlobal},
      {"64:ff9b:1::/48", "local-use IPv4-IPv6 translation", "RFC 8215", Reach::kNotGlobal},
      {"100::/64", "discard-only address block", "RFC 6666", Reach::kNotGlobal},
      {"100:0:0:1::/64", "dummy IPv6 prefix", "RFC 9780", Reach::kNotGlobal},
      {"2001::/23", "IETF protocol assignments", "RFC 2928", Reach::kNotGlobal},
      {"2001::/32", "Teredo", "RFC 4380", Reach::kNotApplicable},
      {"2001:1::1/128", "port control protocol anycast", "RFC 7723", Reach::kGlobal},
      {"2001:1::2/128", "TURN anycast", "RFC 8155", Reach::kGlobal},
      {"2001:1::3/128", "DNS-SD service registration protocol anycast", "RFC 9665", Reach::kGlobal},
      {"2001:2::/48", "benchmarking", "RFC 5180", Reach::kNotGlobal},
      {"2001:3::/32", "AMT", "RFC 7450", Reach::kGlobal},
      {"2001:4:112::/48", "AS112-v6", "RFC 7535", Reach::kGlobal},
      {"2001:10::/28", "deprecated ORCHID", "RFC 4843", Reach::kNotGlobal},
      {"2001:20::/28", "ORCHIDv2", "RFC 7343", Reach::kGlobal},
      {"2001:30::/28", "drone remote ID protocol entity tags", "RFC 9374", Reach::kGlobal},
      {"2001:db8::/32", "documentation", "RFC 3849", Reach::kNotGlobal},
      {"2002::/16", "6to4", "RFC 3056", Reach::kNotApplicable},
      {"2620:4f:8000::/48", "direct delegation AS112 service", "RFC 7534", Reach::kGlobal},
      {"3fff::/20", "documentation", "RFC 9637", Reach::kNotGlobal},
      {"5f00::/16", "segment routing (SRv6) SIDs", "RFC 9602", Reach::kNotGlobal},
      {"fc00::/7", "unique-local", "RFC 4193", Reach::kNotGlobal},
      {"fe80::/10", "link-local unicast", "RFC 4291", Reach::kNotGlobal},
      // Deprecated IPv4-compatible addresses (RFC 4291, 2.5.5.1), out of the registry: a host
      // with the sit module still tunnels them to the IPv4 address they carry.
      {"::/96", "deprecated IPv4-compatible", "RFC 4291", Reach::kOtherRegistry},
      // Deprecated by RFC 3879 and out of the registry, but still routed on some old networks
      // as a site's own.
      {"fec0::/10", "deprecated site-local", "RFC 3879", Reach::kOtherRegistry},
      // IPv6 Multicast Address Space Registry, as for IPv4.
      {"ff00::/8", "multicast", "RFC 4291", Reach::kOtherRegistry},
  };
  return kBlocks;
}

const std::vector<RefusedBlock>& refused_blocks() {
  // Without the blocks that lie inside another refused one: each is one rule of the fence.
  static const std::vector<RefusedBlock> kRefused = [] {
    std::vector<RefusedBlock> refused;
    const auto& named = named_refusals();
    for (std::size_t i = 0; i < named.size(); ++i) {
      bool covered = false;
      for (std::size_t j = 0; j < named.size() && !covered; ++j) {
        if (j == i || !within(named[i].range, named[j].range)) continue;
        // Of two equal blocks the first stays.
        covered = named[i].range != named[j].range || j < i;
      }
      if (!covered) refused.push_back(named[i]);
    }
    return refused;
  }();
  return kRefused;
}

std::optional<std::string> refused_block_name(const IpPrefix& address) {
  const RefusedBlock* best = nullptr;
  for (const auto& block : named_refusals()) {
    if (!prefix_contains(block.range, address)) continue;
    if (best == nullptr || block.range.length > best->range.length) best = &block;
  }
  if (best == nullptr) return std::nullopt;
  return to_string(best->range) + " (" + best->name + ")";
}

}  // namespace paddock::core
