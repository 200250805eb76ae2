#include "runtime/container/exec_transport.h"

namespace paddock::engine {

void OutputSink::take(bool is_stderr, std::string_view chunk) {
  bool to_err = is_stderr || command_.stdout_to_stderr;
  CapturedOutput& output = to_err ? outcome_.err : outcome_.out;
  output.total_bytes += chunk.size();
  std::uint64_t cap = command_.output_bytes;
  std::size_t room =
      output.data.size() < cap ? static_cast<std::size_t>(cap - output.data.size()) : 0;
  if (chunk.size() > room) output.truncated = true;
  std::string_view kept = chunk.substr(0, room);
  output.data.append(kept);
  if (command_.observer != nullptr && !kept.empty()) {
    command_.observer->on_output(to_err ? StreamId::kStderr : StreamId::kStdout, kept);
  }
}

}  // namespace paddock::engine
