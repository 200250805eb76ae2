#include "net/preview/access.h"

#include "core/random_hex.h"
#include "core/text.h"
#include "net/http1/head_lines.h"
#include "net/http1/request_head.h"

namespace paddock::net::preview {
namespace {

// No early exit on the first difference: how long a guess took says nothing of the token.
bool same_secret(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char differ = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    differ |= static_cast<unsigned char>(a[i] ^ b[i]);
  }
  return differ == 0;
}

PreviewVerdict refuse(std::string_view status, std::string reason) {
  PreviewVerdict verdict;
  verdict.kind = PreviewVerdict::Kind::kRefuse;
  verdict.response = preview_response(status, reason);
  verdict.reason = std::move(reason);
  return verdict;
}

// Whether a Cookie header's value holds `name`=`token`.
bool cookie_has(std::string_view header, std::string_view name, std::string_view token) {
  while (!header.empty()) {
    std::size_t end = header.find(';');
    std::string_view pair = http1::trim_blanks(header.substr(0, end));
    header = end == std::string_view::npos ? std::string_view() : header.substr(end + 1);
    std::size_t equals = pair.find('=');
    if (equals == std::string_view::npos) continue;
    if (http1::trim_blanks(pair.substr(0, equals)) == name &&
        same_secret(http1::trim_blanks(pair.substr(equals + 1)), token)) {
      return true;
    }
  }
  return false;
}

// The target without the token's query parameter, and whether the parameter held the token.
bool take_token(std::string_view target, std::string_view token, std::string* rest) {
  std::size_t question = target.find('?');
  if (question == std::string_view::npos) return false;
  std::string_view query = target.substr(question + 1);
  std::string kept;
  bool found = false;
  while (true) {
    std::size_t end = query.find('&');
    std::string_view item = query.substr(0, end);
    std::size_t equals = item.find('=');
    if (equals != std::string_view::npos && item.substr(0, equals) == kPreviewTokenParameter) {
      found = found || same_secret(item.substr(equals + 1), token);
    } else if (!item.empty()) {
      if (!kept.empty()) kept += '&';
      kept += item;
    }
    if (end == std::string_view::npos) break;
    query.remove_prefix(end + 1);
  }
  *rest = std::string(target.substr(0, question));
  // The redirect stays on the preview's origin: an absolute-form target ("http://elsewhere/"),
  // or a path a browser reads as another host's ("//elsewhere/", "/\elsewhere/"), would send
  // the user (with the token just used) wherever the link's author chose.
  if (rest->empty() || (*rest)[0] != '/' ||
      (rest->size() > 1 && ((*rest)[1] == '/' || (*rest)[1] == '\\'))) {
    *rest = "/";
  }
  if (!kept.empty()) *rest += "?" + kept;
  return found;
}

}  // namespace

core::Result<std::string> new_preview_token() {
  return core::random_hex(16, "drawing a preview's token");
}

std::string preview_cookie_name(std::uint16_t host_port) {
  return std::string(kPreviewTokenParameter) + "_" + std::to_string(host_port);
}

std::string preview_url(std::uint16_t host_port, std::string_view token) {
  return "http://127.0.0.1:" + std::to_string(host_port) + "/?" +
         std::string(kPreviewTokenParameter) + "=" + std::string(token);
}

std::string preview_response(std::string_view status, std::string_view text) {
  std::string body = "paddock preview: " + std::string(text) + "\n";
  return "HTTP/1.1 " + std::string(status) +
         "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\nConnection: close\r\nCache-Control: no-store\r\n\r\n" +
         body;
}

PreviewVerdict judge_preview_request(std::string_view bytes, std::uint16_t host_port,
                                     std::string_view token) {
  // The proxy's strict parser (net/http1/request_head.h): what the relay judges is what the
  // sandbox's server reads, since the sandbox gets the head rebuilt from this reading.
  http1::RequestHead head =
      http1::parse_request_head(bytes.substr(0, kMaxPreviewHead), http1::RequestForm::kOrigin);
  if (head.state == http1::RequestHead::State::kNeedMore) {
    if (bytes.size() >= kMaxPreviewHead) {
      return refuse("431 Request Header Fields Too Large", "the request head is too long");
    }
    return {};
  }
  if (head.state == http1::RequestHead::State::kMalformed) {
    if (head.error.find("over 16 KiB") != std::string::npos) {
      return refuse("431 Request Header Fields Too Large", "the request head is too long");
    }
    return refuse("400 Bad Request", "a malformed request: " + head.error);
  }
  for (char c : head.path) {
    // The target comes back in the redirect's Location: no byte of it may end a header.
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f) {
      return refuse("400 Bad Request", "the request target holds a control character or blank");
    }
  }
  // The Host as written: a browser leaves out only :80, which no preview's URL does.
  std::string host;
  std::string cookie_name = preview_cookie_name(host_port);
  bool cookie = false;
  for (const auto& header : head.headers) {
    std::string name = core::to_lower(header.name);
    if (name == "host") host = core::to_lower(header.value);
    if (name == "cookie") cookie = cookie || cookie_has(header.value, cookie_name, token);
  }
  std::string port = ":" + std::to_string(host_port);
  if (host != "127.0.0.1" + port && host != "localhost" + port) {
    return refuse("421 Misdirected Request",
                  "the Host header must be 127.0.0.1" + port + " or localhost" + port +
                      " (a page under another name is refused: DNS rebinding)");
  }
  if (cookie) {
    PreviewVerdict verdict;
    verdict.kind = PreviewVerdict::Kind::kForward;
    verdict.head = std::move(head);
    return verdict;
  }
  std::string rest;
  if (take_token(head.path, token, &rest)) {
    PreviewVerdict verdict;
    verdict.kind = PreviewVerdict::Kind::kRedirect;
    verdict.response = "HTTP/1.1 303 See Other\r\nLocation: " + rest +
                       "\r\nSet-Cookie: " + cookie_name + "=" + std::string(token) +
                       "; Path=/; HttpOnly; SameSite=Strict\r\nContent-Length: 0\r\n"
                       "Connection: close\r\nCache-Control: no-store\r\n\r\n";
    return verdict;
  }
  return refuse("403 Forbidden",
                "this preview needs its token: open the URL paddock gave (it ends in ?" +
                    std::string(kPreviewTokenParameter) + "=...)");
}

}  // namespace paddock::net::preview
