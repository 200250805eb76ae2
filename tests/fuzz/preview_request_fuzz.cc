// Fuzzes a preview's judge of a connection's request head (net/preview/access.h): bytes any
// local program or web page sends, judged after every read; a head that passes goes to the
// sandbox rebuilt (net/preview/headers.h) without a token cookie or credentials. Whatever it
// answers is one well-formed response whose head ends once, and a redirect never carries a header
// the request smuggled into its Location, which stays on the preview's origin.

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
  constexpr std::string_view kToken = "0123456789abcdef0123456789abcdef";
  for (std::size_t cut : {size / 3, size / 2, size}) {
    PreviewVerdict verdict = judge_preview_request(bytes.substr(0, cut), 8080, kToken);
    if (verdict.kind == PreviewVerdict::Kind::kNeedMore) continue;
    if (verdict.kind == PreviewVerdict::Kind::kForward) {
      // What the sandbox gets (net/preview/headers.h): no token cookie and no credentials
      // for a server that set nothing and asked for nothing, every line ended by CRLF.
      std::string sent = preview_request_head(verdict.head, PreviewGrants{});
      for (std::size_t at = sent.find("\r\n"); at != std::string::npos;
           at = sent.find("\r\n", at + 2)) {
        std::string name(sent.substr(at + 2, sent.find(':', at + 2) - at - 2));
        for (char& c : name) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
        if (name == "cookie" || name == "authorization") std::abort();
      }
      for (std::size_t at = 0; at < sent.size(); ++at) {
        if (sent[at] == '\n' && (at == 0 || sent[at - 1] != '\r')) std::abort();
        if (sent[at] == '\r' && (at + 1 >= sent.size() || sent[at + 1] != '\n')) std::abort();
      }
      continue;
    }
    std::size_t end = verdict.response.find("\r\n\r\n");
    if (end == std::string::npos) std::abort();
    std::string_view head(verdict.response.data(), end);
    if (head.find('\n') != std::string_view::npos && head.find("\r\n") == std::string_view::npos) {
      std::abort();
    }
    // Every line of the head ends in CRLF: no bare LF or CR from the request got in.
    for (std::size_t at = 0; at < head.size(); ++at) {
      if (head[at] == '\n' && (at == 0 || head[at - 1] != '\r')) std::abort();
      if (head[at] == '\r' && (at + 1 >= head.size() || head[at + 1] != '\n')) std::abort();
    }
    if (verdict.kind == PreviewVerdict::Kind::kRedirect) {
      // One Set-Cookie header line (the target's text may hold the words, inside Location's
      // line), and a Location on this origin: a path, not "//host" or "/\host".
      std::string_view lines(head);
      if (lines.find("\r\nSet-Cookie:") != lines.rfind("\r\nSet-Cookie:")) std::abort();
      std::size_t location = lines.find("\r\nLocation: ");
      if (location == std::string_view::npos) std::abort();
      std::string_view path = lines.substr(location + 12);
      if (path.empty() || path[0] != '/' ||
          (path.size() > 1 && (path[1] == '/' || path[1] == '\\'))) {
        std::abort();
      }
    }
  }
  return 0;
}
