#include "net/egress/tls_client_hello.h"

#include <algorithm>
#include <cctype>
#include <cstdint>

#include "core/text.h"
#include "net/http1/host_name.h"

namespace paddock::net::egress {
namespace {

using State = ClientHelloName::State;

// Reads big-endian fields off the front of a span, failing once past its end.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  bool number(std::size_t width, std::size_t* value) {
    if (bytes_.size() < width) return false;
    *value = 0;
    for (std::size_t i = 0; i < width; ++i) {
      *value = (*value << 8) | static_cast<std::uint8_t>(bytes_[i]);
    }
    bytes_.remove_prefix(width);
    return true;
  }
  bool take(std::size_t length, std::string_view* out) {
    if (bytes_.size() < length) return false;
    *out = bytes_.substr(0, length);
    bytes_.remove_prefix(length);
    return true;
  }
  // A vector with a `width`-byte length in front.
  bool vector(std::size_t width, std::string_view* out) {
    std::size_t length = 0;
    return number(width, &length) && take(length, out);
  }
  [[nodiscard]] bool empty() const { return bytes_.empty(); }

 private:
  std::string_view bytes_;
};

ClientHelloName with(State state, std::string name = {}) {
  return {state, std::move(name)};
}

// The server_name extension's host_name entry.
ClientHelloName read_server_name(std::string_view extension) {
  Reader reader(extension);
  std::string_view list;
  if (!reader.vector(2, &list) || !reader.empty()) return with(State::kMalformed);
  Reader entries(list);
  while (!entries.empty()) {
    std::size_t type = 0;
    std::string_view name;
    if (!entries.number(1, &type) || !entries.vector(2, &name)) return with(State::kMalformed);
    if (type != 0) continue;  // not a host_name
    if (!http1::is_host_name(name)) return with(State::kMalformed);
    return with(State::kFound, core::to_lower(name));
  }
  return with(State::kNone);
}

ClientHelloName read_client_hello(std::string_view body) {
  Reader reader(body);
  std::size_t version = 0;
  std::string_view skipped;
  if (!reader.number(2, &version) || !reader.take(32, &skipped) ||  // version, random
      !reader.vector(1, &skipped) ||                                // legacy_session_id
      !reader.vector(2, &skipped) ||                                // cipher_suites
      !reader.vector(1, &skipped)) {                                // compression_methods
    return with(State::kMalformed);
  }
  if (reader.empty()) return with(State::kNone);  // no extensions at all
  std::string_view extensions;
  if (!reader.vector(2, &extensions) || !reader.empty()) return with(State::kMalformed);
  Reader list(extensions);
  while (!list.empty()) {
    std::size_t type = 0;
    std::string_view data;
    if (!list.number(2, &type) || !list.vector(2, &data)) return with(State::kMalformed);
    if (type == 0) return read_server_name(data);
  }
  return with(State::kNone);
}

}  // namespace

ClientHelloName client_hello_server_name(std::string_view bytes) {
  // The handshake message, put together from the records that carry it.
  std::string handshake;
  Reader records(bytes.substr(0, kMaxClientHello));
  for (;;) {
    if (handshake.size() >= 4) {
      std::size_t length = (static_cast<std::uint8_t>(handshake[1]) << 16) |
                           (static_cast<std::uint8_t>(handshake[2]) << 8) |
                           static_cast<std::uint8_t>(handshake[3]);
      if (static_cast<std::uint8_t>(handshake[0]) != 1) return with(State::kMalformed);
      if (length + 4 > kMaxClientHello) return with(State::kMalformed);
      if (handshake.size() >= length + 4)
        return read_client_hello(std::string_view(handshake).substr(4, length));
    }
    std::size_t type = 0;
    std::size_t version = 0;
    std::string_view fragment;
    if (records.empty())
      return with(bytes.size() >= kMaxClientHello ? State::kMalformed : State::kNeedMore);
    Reader header = records;
    if (!header.number(1, &type) || !header.number(2, &version)) return with(State::kNeedMore);
    if (type != 22 || (version >> 8) != 3) return with(State::kMalformed);  // handshake, TLS 1.x
    if (!header.vector(2, &fragment)) {
      return with(bytes.size() >= kMaxClientHello ? State::kMalformed : State::kNeedMore);
    }
    if (fragment.empty()) return with(State::kMalformed);
    records = header;
    handshake.append(fragment);
  }
}

}  // namespace paddock::net::egress
