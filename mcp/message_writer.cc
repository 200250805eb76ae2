#include "mcp/message_writer.h"

#include "core/write_all.h"

namespace paddock::mcp {

bool MessageWriter::write(const json& message) {
  std::string line;
  if (secrets_.empty()) {
    line = serialize(message);
  } else {
    json masked = message;
    secrets_.apply_to(masked);
    line = serialize(masked);
  }
  if (line.size() + 1 > kMaxMessageBytes) {
    json id = message.contains("id") ? message["id"] : json(nullptr);
    if (id.is_null()) return true;  // a notification too large to send is dropped
    line = serialize(error_message(
        id, RpcError{kInternalError,
                     "the response would be " + std::to_string(line.size() >> 20) +
                         " MiB, over the 8 MiB message limit; ask for less (read large files "
                         "through their resource link)",
                     nullptr}));
  }
  line += '\n';
  return write_line(line);
}

bool MessageWriter::write_line(const std::string& line) {
  std::lock_guard lock(mutex_);
  if (broken_) return false;
  if (core::write_all(fd_, line) != 0) broken_ = true;
  return !broken_;
}

}  // namespace paddock::mcp
