#pragma once

// How a stream's output is kept within a cap: its start and its end, with the middle dropped.
// The end is kept because that is where a program's final error or result usually is; the
// start, because that is where it says what it is doing. Readers see one string with a marker
// where the middle was (shown_text).

#include <cstdint>
#include <string>
#include <string_view>

#include "runtime/run_result.h"

namespace paddock::runtime {

// Adds `chunk` to `output`, keeping at most `cap` bytes: the first half of the cap from the
// stream's start, the rest from its end.
void capture_chunk(CapturedOutput& output, std::string_view chunk, std::uint64_t cap);

// Bytes of the stream that `output` no longer holds.
std::uint64_t omitted_bytes(const CapturedOutput& output);

// The start and the end of a kept stream, a one-line marker between them naming how many bytes
// were left out; the data itself when nothing was.
std::string shown_text(const CapturedOutput& output);

// shown_text's parts: what it shows of the start, its marker on a line of its own (empty when
// nothing was left out), and what it shows of the end.
struct ShownParts {
  std::string start;
  std::string marker;
  std::string end;
};
ShownParts shown_parts(const CapturedOutput& output);

// `output` cut to at most `cap` bytes the same way, from what it kept (its start's start and its
// end's end).
CapturedOutput shortened(const CapturedOutput& output, std::uint64_t cap);

// `earlier` (another step's output, shown before this one's) put in front of `output`.
void put_in_front(CapturedOutput& output, std::string_view earlier);

}  // namespace paddock::runtime
