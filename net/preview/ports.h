#pragma once

// Where a preview listens on the host, and what `paddock run --publish` asks for: the pure
// part of net/preview/forwarder.h, with the errors that say how to write each.

#include <cstdint>
#include <string_view>

#include "core/result.h"

namespace paddock::net::preview {

enum class PreviewProtocol { kHttp, kTcp };

// Host ports a preview may listen on: [first, last], or any the kernel picks (both 0).
struct PreviewPortRange {
  std::uint16_t first = 0;
  std::uint16_t last = 0;
};

// "8000-8099" or "8000"; the error says how to write it.
core::Result<PreviewPortRange> parse_preview_ports(std::string_view text);

// One --publish of `paddock run`: "[HOSTPORT:]PORT[/tcp]".
struct PreviewPublish {
  std::uint16_t host_port = 0;  // 0: as the forwarder's range says
  std::uint16_t port = 0;       // the sandbox's
  PreviewProtocol protocol = PreviewProtocol::kHttp;
};
core::Result<PreviewPublish> parse_preview_publish(std::string_view text);

}  // namespace paddock::net::preview
