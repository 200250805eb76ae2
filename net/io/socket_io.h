#pragma once

// Nonblocking reads and writes of a socket, as both directions' relays (the egress proxy, the
// previews) do them on the event loop (net/io/event_loop.h).

#include <cstddef>
#include <string>

namespace paddock::net::io {

// Sends what it can of `bytes` without blocking and drops it from the front; false when the
// peer is gone (an error other than "would block").
bool send_some(int fd, std::string& bytes);

enum class ReadResult { kSome, kNothing, kEnd, kFailed };

// Reads up to `room` more bytes from `fd` onto `buffer` without blocking.
ReadResult receive_some(int fd, std::string& buffer, std::size_t room);

}  // namespace paddock::net::io
