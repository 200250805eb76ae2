#pragma once

// The only thing that writes to stdout: whole lines, one message each, under a lock so that
// concurrent responses never interleave. Every message passes the secret mask on its way out
// (secret_mask.h): results, errors, notifications, listings and resources alike. A message over the
// size cap is replaced by an error (official clients drop the connection above 10 MiB); tools keep
// well under it themselves.

#include <cstddef>
#include <mutex>
#include <string>

#include "app/secret_mask.h"
#include "mcp/json_rpc.h"

namespace paddock::mcp {

inline constexpr std::size_t kMaxMessageBytes = 8u << 20;

class MessageWriter {
 public:
  // `secrets` must outlive the writer.
  MessageWriter(int fd, const app::SecretMask& secrets) : fd_(fd), secrets_(secrets) {}
  // False once the other end is gone.
  bool write(const json& message);

 private:
  bool write_line(const std::string& line);
  int fd_;
  const app::SecretMask& secrets_;
  std::mutex mutex_;
  bool broken_ = false;
};

}  // namespace paddock::mcp
