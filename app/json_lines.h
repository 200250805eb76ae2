#pragma once

// MCP's stdio framing as `paddock wrap` reads it, both ways: one JSON-RPC message a line, '\n'
// delimited (a '\r' before it tolerated), split from bytes that may arrive in any pieces, with
// a bound on a line's size that holds while the line is still arriving: a longer line stops
// being buffered at once and is skipped to its end, so a peer that never sends a newline costs
// the wrapper its bound and no more. Free of sockets, threads and clocks.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace paddock::app {

struct JsonLine {
  // The line as it came, with its newline ('\n' or "\r\n"), to pass on byte for byte; empty
  // when oversized.
  std::string raw;
  // The bytes before the newline (a '\r' counted): what the refusal of an oversized line names.
  std::uint64_t bytes = 0;
  bool oversized = false;
  // The message: `raw` without its newline (and '\r').
  [[nodiscard]] std::string_view message() const;
};

class JsonLineSplitter {
 public:
  // A line's message (without its newline and a '\r' before it) may hold `max_line` bytes.
  explicit JsonLineSplitter(std::size_t max_line) : max_line_(max_line) {}
  // The lines that `bytes` completes, in order; the rest is kept for the next call.
  std::vector<JsonLine> feed(std::string_view bytes);
  // The input ended: a last line that had no newline (given one, so that the reader on the other
  // side can frame it), or one still being skipped as oversized.
  std::optional<JsonLine> finish();
  // Bytes held for the line in progress: never more than max_line + 1.
  [[nodiscard]] std::size_t held() const { return pending_.size(); }

 private:
  std::size_t max_line_;
  std::string pending_;
  bool skipping_ = false;
  std::uint64_t skipped_ = 0;  // of the oversized line being skipped, so far
};

// A line that holds nothing but blanks: skipped without a word.
bool blank_line(std::string_view message);

// Nesting deeper than this is refused before parsing: dumping a value (an argument's size) recurses
// as deep as the value goes, and no line may exhaust the stack.
inline constexpr int kMaxJsonDepth = 128;

struct ParsedLine {
  nlohmann::json value;  // discarded when `why` is set
  std::optional<std::string> why;
};
// Parses a message, never throwing. JSON must be UTF-8 (RFC 8259), so invalid UTF-8 is refused
// like any other malformed line; but a lone UTF-16 surrogate written as an escape ("\ud800"),
// which JavaScript's JSON.stringify writes for a string cut in the middle of a pair and every
// JavaScript client reads, is read as U+FFFD instead of refusing the whole message.
ParsedLine parse_line(std::string_view message);

}  // namespace paddock::app
