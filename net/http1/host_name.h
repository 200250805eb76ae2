#pragma once

// The host and port of an authority as a request, a URL or an allowlist pattern writes them:
// shared by the strict head parser and the egress allowlist, so that both agree on what a
// name is.

#include <cstdint>
#include <optional>
#include <string_view>

namespace paddock::net::http1 {

// A port as written: 1 to 65535, digits only.
std::optional<std::uint16_t> parse_port(std::string_view text);

// Whether `text` is a host name as DNS and TLS know it: labels of letters, digits and '-', not
// starting or ending with '-', 1 to 63 bytes each, 253 in all. A trailing dot is not accepted.
bool is_host_name(std::string_view text);

}  // namespace paddock::net::http1
