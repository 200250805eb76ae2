#pragma once

// A session's files as MCP sees them: the resource URI of each, and the content block that
// carries one (text, image, embedded binary, or a link when it is too large to inline). What of
// a file's bytes the client may see at all is app/client_view.h's.

#include <optional>
#include <string>

#include "app/client_view.h"
#include "mcp/json_rpc.h"
#include "runtime/session.h"

namespace paddock::mcp {

inline constexpr std::uint64_t kInlineFileBytes = 1u << 20;    // larger files go by resource_link
inline constexpr std::uint64_t kResourceReadBytes = 6u << 20;  // base64 still under 8 MiB

// sandbox://sessions/{id}/files/{path}
std::string session_file_uri(const std::string& session_id, const std::string& path);
struct SessionFileRef {
  std::string session_id;
  std::string path;
};
std::optional<SessionFileRef> parse_session_file_uri(const std::string& uri);

// The content block for a file already read: all of it, or with `cut` its first
// kInlineFileBytes (then the block links to the file instead).
json file_content_block(const std::string& session_id, const std::string& path,
                        const runtime::FileContent& file, bool cut, std::string* delivery);

}  // namespace paddock::mcp
