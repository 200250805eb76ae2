#include "mcp/message_writer.h"

#include <unistd.h>

#include <cerrno>

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
  for (std::size_t done = 0; done < line.size();) {
    ssize_t wrote = ::write(fd_, line.data() + done, line.size() - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) {
      broken_ = true;
      return false;
    }
    done += static_cast<std::size_t>(wrote);
  }
  return true;
}

}  // namespace paddock::mcp
