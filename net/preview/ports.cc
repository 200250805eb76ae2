#include "net/preview/ports.h"

#include <optional>
#include <string>

namespace paddock::net::preview {

core::Result<PreviewPortRange> parse_preview_ports(std::string_view text) {
  auto number = [](std::string_view digits) -> std::optional<std::uint16_t> {
    if (digits.empty() || digits.size() > 5) return std::nullopt;
    unsigned value = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') return std::nullopt;
      value = value * 10 + static_cast<unsigned>(c - '0');
    }
    if (value == 0 || value > 65535) return std::nullopt;
    return static_cast<std::uint16_t>(value);
  };
  std::size_t dash = text.find('-');
  auto first = number(text.substr(0, dash));
  auto last = dash == std::string_view::npos ? first : number(text.substr(dash + 1));
  if (!first || !last || *last < *first) {
    return core::invalid_input(
        "preview ports '" + std::string(text) +
        "': write one port or a range, FIRST-LAST, of ports 1 to 65535 (e.g. "
        "8000-8099)");
  }
  return PreviewPortRange{*first, *last};
}

core::Result<PreviewPublish> parse_preview_publish(std::string_view text) {
  PreviewPublish publish;
  std::string_view rest = text;
  if (rest.size() > 4 && rest.substr(rest.size() - 4) == "/tcp") {
    publish.protocol = PreviewProtocol::kTcp;
    rest.remove_suffix(4);
  }
  std::size_t colon = rest.find(':');
  auto host = colon == std::string_view::npos ? core::Result<PreviewPortRange>(PreviewPortRange{})
                                              : parse_preview_ports(rest.substr(0, colon));
  auto port = parse_preview_ports(colon == std::string_view::npos ? rest : rest.substr(colon + 1));
  bool single = host && port && host->first == host->last && port->first == port->last &&
                rest.find('-') == std::string_view::npos;
  if (!single) {
    return core::invalid_input(
        "--publish '" + std::string(text) +
        "': write [HOSTPORT:]PORT[/tcp], e.g. 8000 or 9000:8000 (PORT is the "
        "sandbox's)");
  }
  publish.host_port = host->first;
  publish.port = port->first;
  return publish;
}

}  // namespace paddock::net::preview
