// Fuzzes what the egress proxy reads of the plaintext a sandbox sends through a TLS connection it
// terminates for a brokered secret (net/egress/brokered_requests.h, net/http1/body_framing.h): the
// requests, fed in pieces whose sizes the input's first byte picks, with and without bodies held
// for substitution. Whatever it gets, the proxy must never pass the secret's value on where a
// request's Host names another host, nor a placeholder of this host's secret unsubstituted in a
// header it sent upstream.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "net/egress/brokered_requests.h"
#include "net/egress/brokered_secrets.h"

namespace {

constexpr const char* kPlaceholder = "paddock-secret-K-0123456789abcdef0123456789abcdef";

const paddock::net::egress::SandboxSecrets& secrets() {
  static const paddock::net::egress::SandboxSecrets kSecrets = [] {
    auto spec = paddock::net::egress::parse_secret_spec("K=V@api.test");
    if (!spec) std::abort();
    auto list = std::make_shared<const std::vector<paddock::net::egress::BrokeredSecret>>(
        std::vector<paddock::net::egress::BrokeredSecret>{{*spec, "VALUE-of-the-secret"}});
    return paddock::net::egress::SandboxSecrets(list, {kPlaceholder});
  }();
  return kSecrets;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace paddock::net::egress;
  if (size == 0) return 0;
  std::size_t piece = 1 + data[0] % 64;
  bool in_body = (data[0] & 0x80) != 0;
  std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  BrokeredRequests requests(secrets(), "api.test", 443, in_body);
  std::string pending, upstream, client;
  for (std::size_t at = 0; at < input.size(); at += piece) {
    pending.append(input.substr(at, piece));
    auto refused = requests.feed(pending, upstream, client, 1 << 20);
    if (refused) {
      if (refused->find("VALUE-of-the-secret") != std::string::npos) std::abort();
      break;
    }
    // Bounded: what waits unread is at most a head and one held body.
    if (pending.size() >
        paddock::net::http1::kMaxRequestHead + kMaxBrokeredBody + 64 * 1024 + piece)
      std::abort();
  }
  // A head that went upstream never carries this host's placeholder in a header value.
  for (std::size_t at = upstream.find("\r\n"); at != std::string::npos;) {
    std::size_t end = upstream.find("\r\n", at + 2);
    if (end == std::string::npos) break;
    std::string_view line = std::string_view(upstream).substr(at + 2, end - at - 2);
    if (line.empty()) break;  // the first head's end: bodies may hold it (without in_body)
    if (line.find(kPlaceholder) != std::string_view::npos &&
        line.find(':') < line.find(kPlaceholder)) {
      std::abort();
    }
    at = end;
  }
  return 0;
}
