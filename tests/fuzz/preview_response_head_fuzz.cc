// Fuzzes what a preview's relay makes of the bytes a sandbox's server sends as its response head
// (net/preview/headers.h), read after every read: whatever head the browser gets is one
// well-formed head whose every line ends in CRLF, that ends once, and that sets no preview's
// token cookie; what the relay keeps of the server's cookies stays within its bounds.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "net/preview/access.h"
#include "net/preview/headers.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace paddock::net::preview;
  using namespace paddock::net::http1;
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  PreviewGrants grants;
  for (std::size_t cut : {size / 3, size / 2, size}) {
    PreviewResponseHead head = parse_preview_response_head(bytes.substr(0, cut));
    if (head.state != PreviewResponseHead::State::kComplete) continue;
    if (head.length > cut) std::abort();
    std::string sent = preview_response_head(head, grants);
    std::size_t end = sent.find("\r\n\r\n");
    if (end == std::string::npos || end + 4 != sent.size()) std::abort();
    for (std::size_t at = 0; at < sent.size(); ++at) {
      if (sent[at] == '\n' && (at == 0 || sent[at - 1] != '\r')) std::abort();
      if (sent[at] == '\r' && (at + 1 >= sent.size() || sent[at + 1] != '\n')) std::abort();
    }
    for (std::size_t at = sent.find("\r\n"); at != std::string::npos;
         at = sent.find("\r\n", at + 2)) {
      std::string_view line = std::string_view(sent).substr(at + 2);
      line = line.substr(0, line.find("\r\n"));
      if (line.size() < 11 ||
          (line.substr(0, 11) != "Set-Cookie:" && line.substr(0, 11) != "set-cookie:")) {
        continue;
      }
      std::string_view value = line.substr(11);
      while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) {
        value.remove_prefix(1);
      }
      if (value.starts_with(kPreviewTokenParameter) || value.starts_with("=")) std::abort();
    }
    if (grants.cookies.size() > kMaxPreviewCookies) std::abort();
    std::size_t total = 0;
    for (const auto& pair : grants.cookies) total += pair.size();
    if (total > kMaxPreviewCookieBytes) std::abort();
    for (const auto& pair : grants.cookies) {
      if (pair.size() > kMaxPreviewCookie || pair.starts_with(kPreviewTokenParameter)) {
        std::abort();
      }
    }
  }
  return 0;
}
