#pragma once

// Every tool result's text is bounded: a model's context is small and a client may show all of
// it. Tools cut their own text where they can say how to get the rest (read_file's next offset,
// list_files' narrower path); the server then caps whatever any result still carries, errors
// quoting a hostile value included.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "mcp/tool.h"

namespace paddock::mcp {

// The default cap on the text of one tool result, summed over its text blocks.
inline constexpr std::size_t kResultTextBytes = 64u << 10;

// The longest prefix of `text` at most `limit` bytes long that does not end inside a UTF-8
// character (a JSON string must stay valid UTF-8).
std::size_t utf8_prefix(std::string_view text, std::size_t limit);

// A marker already in a text (an output capture's, runtime/output_capture.h): where it is, and
// how many bytes of the stream it stands for.
struct InnerMarker {
  std::size_t offset = 0;
  std::size_t length = 0;
  std::uint64_t stands_for = 0;
};

// `text` whole when it fits in `cap` bytes; else its start and its end around one line naming
// how many bytes were left out there. The start gets two thirds: what a program says it is
// doing; the end keeps where it failed. Where the cut takes `inner` with it, the line counts
// the bytes that marker stood for, not the marker's own.
std::string keep_start_and_end(std::string_view text, std::size_t cap,
                               const InnerMarker& inner = {});

// Cuts `result`'s text blocks so that together they hold at most `cap` bytes, and says so in
// the text: what was left out and that the result's text is capped.
void bound_result_text(ToolResult& result, std::size_t cap = kResultTextBytes);

}  // namespace paddock::mcp
