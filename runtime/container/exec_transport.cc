#include "runtime/container/exec_transport.h"

#include "runtime/output_capture.h"

namespace paddock::container {

void OutputSink::take(bool is_stderr, std::string_view chunk) {
  bool to_err = is_stderr || command_.stdout_to_stderr;
  runtime::CapturedOutput& output = to_err ? outcome_.err : outcome_.out;
  runtime::capture_chunk(output, chunk, command_.output_bytes);
  if (command_.observer != nullptr && !chunk.empty()) {
    command_.observer->on_output(to_err ? runtime::StreamId::kStderr : runtime::StreamId::kStdout,
                                 chunk);
  }
}

}  // namespace paddock::container
