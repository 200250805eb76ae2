// Fuzzes the egress allowlist's pattern parser (net/egress/host_pattern.h): the patterns a caller
// or a policy writes (--allow-host, network.allow) and the mirror URLs an operator names, then the
// allowlist they make, asked about names and addresses as the proxy asks.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/ip_prefix.h"
#include "net/egress/host_pattern.h"
#include "net/http1/host_name.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace paddock;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  // Two parts, as a pattern and a name asked about: "PATTERN\nNAME".
  std::string_view asked;
  if (auto newline = text.find('\n'); newline != std::string_view::npos) {
    asked = text.substr(newline + 1);
    text = text.substr(0, newline);
  }
  (void)net::egress::url_host_pattern(text);
  (void)net::http1::is_host_name(text);
  (void)net::http1::parse_port(text);
  auto pattern = net::egress::parse_host_pattern(text);
  if (!pattern) return 0;
  net::egress::AllowList list({*pattern});
  for (std::uint16_t port : {std::uint16_t{80}, std::uint16_t{443}, std::uint16_t{8443}}) {
    (void)list.allows_name(asked, port);
    if (auto address = core::parse_ip_prefix(asked)) {
      (void)list.allows_address(*address, port);
      if (auto within = core::parse_ip_prefix("10.0.0.0/8")) {
        (void)list.allows_address_within(*address, port, *within);
      }
    }
  }
  return 0;
}
