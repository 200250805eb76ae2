#include "runtime/engine/engine_stream.h"

namespace paddock::engine {

void Demultiplexer::feed(std::string_view chunk) {
  while (!chunk.empty()) {
    if (remaining_ == 0) {
      std::size_t wanted = 8 - header_.size();
      header_.append(chunk.substr(0, wanted));
      chunk.remove_prefix(std::min(wanted, chunk.size()));
      if (header_.size() < 8) return;
      stream_ = static_cast<unsigned char>(header_[0]);
      remaining_ = (std::uint32_t{static_cast<unsigned char>(header_[4])} << 24) |
                   (std::uint32_t{static_cast<unsigned char>(header_[5])} << 16) |
                   (std::uint32_t{static_cast<unsigned char>(header_[6])} << 8) |
                   std::uint32_t{static_cast<unsigned char>(header_[7])};
      header_.clear();
      continue;
    }
    std::string_view payload = chunk.substr(0, remaining_);
    sink_(stream_, payload);
    remaining_ -= static_cast<std::uint32_t>(payload.size());
    chunk.remove_prefix(payload.size());
  }
}

}  // namespace paddock::engine
