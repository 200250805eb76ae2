#pragma once

// paddock's version, as `paddock --version` and the MCP server's serverInfo report it.

namespace paddock {

inline constexpr const char* kPaddockVersion = "0.1.0";

}  // namespace paddock
