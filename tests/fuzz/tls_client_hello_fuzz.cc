// Fuzzes the egress proxy's reader of the server name in a TLS ClientHello
// (net/egress/tls_client_hello.h): the first bytes a client sends through a CONNECT tunnel.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "net/egress/tls_client_hello.h"
#include "net/http1/host_name.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace paddock::net::egress;
  using paddock::net::http1::is_host_name;
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  ClientHelloName found = client_hello_server_name(bytes);
  // A name it reports is one the allowlist can judge: a host name, never raw bytes.
  if (found.state == ClientHelloName::State::kFound && !is_host_name(found.name)) std::abort();
  // The proxy asks again as more bytes arrive: once a prefix is judged, more bytes never change
  // the verdict.
  if (size > 0) {
    ClientHelloName partial = client_hello_server_name(bytes.substr(0, size - 1));
    if (partial.state != ClientHelloName::State::kNeedMore &&
        (partial.state != found.state || partial.name != found.name)) {
      std::abort();
    }
  }
  return 0;
}
