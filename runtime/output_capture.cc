#include "runtime/output_capture.h"

#include <algorithm>

namespace paddock::runtime {

void capture_chunk(CapturedOutput& output, std::string_view chunk, std::uint64_t cap) {
  output.total_bytes += chunk.size();
  std::uint64_t head_cap = cap / 2;
  if (!output.truncated && output.data.size() < head_cap) {
    // Still within the start: nothing can have been dropped yet.
    output.head_bytes = std::min<std::uint64_t>(head_cap, output.data.size() + chunk.size());
  }
  output.data.append(chunk.data(), chunk.size());
  if (output.data.size() > cap) {
    // The end keeps the latest cap - head bytes; what falls out of it is the dropped middle.
    auto head = static_cast<std::size_t>(output.head_bytes);
    std::size_t excess = output.data.size() - static_cast<std::size_t>(cap);
    output.data.erase(head, excess);
    output.truncated = true;
  }
}

std::uint64_t omitted_bytes(const CapturedOutput& output) {
  return output.total_bytes > output.data.size() ? output.total_bytes - output.data.size() : 0;
}

ShownParts shown_parts(const CapturedOutput& output) {
  std::uint64_t omitted = omitted_bytes(output);
  if (omitted == 0) return {output.data, "", ""};
  auto head =
      static_cast<std::size_t>(std::min<std::uint64_t>(output.head_bytes, output.data.size()));
  ShownParts parts{output.data.substr(0, head), "", output.data.substr(head)};
  // The marker has a line of its own: the break before it is the marker's, not the stream's.
  if (!parts.start.empty() && parts.start.back() != '\n') parts.marker = "\n";
  parts.marker += "[... " + std::to_string(omitted) + " bytes left out here, of " +
                  std::to_string(output.total_bytes) + " ...]\n";
  return parts;
}

std::string shown_text(const CapturedOutput& output) {
  ShownParts parts = shown_parts(output);
  return parts.start + parts.marker + parts.end;
}

CapturedOutput shortened(const CapturedOutput& output, std::uint64_t cap) {
  if (output.data.size() <= cap) return output;
  std::string_view data = output.data;
  // A stream kept whole can be cut anywhere: its start and its end are the same string.
  std::string_view start = data, end = data;
  if (output.truncated) {
    auto head =
        static_cast<std::size_t>(std::min<std::uint64_t>(output.head_bytes, output.data.size()));
    start = data.substr(0, head);
    end = data.substr(head);
  }
  start = start.substr(0, static_cast<std::size_t>(cap / 2));
  auto end_cap = static_cast<std::size_t>(cap) - start.size();
  end = end.substr(end.size() - std::min(end.size(), end_cap));
  CapturedOutput cut;
  cut.data.reserve(start.size() + end.size());
  cut.data.append(start).append(end);
  cut.head_bytes = start.size();
  cut.total_bytes = output.total_bytes;
  cut.truncated = true;
  return cut;
}

void put_in_front(CapturedOutput& output, std::string_view earlier) {
  if (earlier.empty()) return;
  // The earlier steps' output joins the start, which was all of this output if nothing was cut.
  output.head_bytes =
      output.truncated ? output.head_bytes + earlier.size() : output.data.size() + earlier.size();
  output.data.insert(0, earlier);
  output.total_bytes += earlier.size();
}

}  // namespace paddock::runtime
