#include "net/egress/brokered_requests.h"

#include <algorithm>
#include <utility>

#include "core/text.h"

namespace paddock::net::egress {
namespace {

// An answer of the proxy's own, inside the TLS connection, that ends it.
std::string answer(const char* status, const std::string& body) {
  return std::string("HTTP/1.1 ") + status +
         "\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

bool is_named(const http1::RequestHead::Header& header, std::string_view name) {
  return core::to_lower(header.name) == name;
}

}  // namespace

BrokeredRequests::BrokeredRequests(const SandboxSecrets& secrets, std::string host,
                                   std::uint16_t port, bool in_body, HeldBodyBudget* held_bodies)
    : secrets_(secrets),
      host_(std::move(host)),
      port_(port),
      in_body_(in_body),
      held_bodies_(held_bodies) {}

std::optional<std::string> BrokeredRequests::refuse(const char* status, const std::string& why) {
  part_ = Part::kRefused;
  release_held_body();
  return answer(status, "paddock's proxy: " + why + "\n");
}

std::string BrokeredRequests::time_out(std::chrono::seconds waited) {
  return *refuse("408 Request Timeout", "the rest of the request did not come within " +
                                            std::to_string(waited.count()) + " s");
}

bool BrokeredRequests::count_held_body() {
  // Its capacity, not its size: that is what it takes of the server's memory.
  std::size_t now = held_body_.capacity();
  if (held_bodies_ == nullptr || now <= counted_) return true;
  if (!held_bodies_->take(now - counted_)) return false;
  counted_ = now;
  return true;
}

std::optional<std::string> BrokeredRequests::hold_within_bounds(std::uint64_t length) {
  if (length > kMaxBrokeredBody) {
    return refuse("413 Content Too Large",
                  "a request body over 1 MiB to a brokered secret's host, which "
                  "--secret-in-body holds whole");
  }
  if (!count_held_body()) {
    return refuse("503 Service Unavailable",
                  "this sandbox's requests to brokered secrets' hosts hold " +
                      std::to_string(held_bodies_->limit() >> 20) +
                      " MiB of bodies already, which --secret-in-body holds whole until each "
                      "has come; send fewer at once");
  }
  return std::nullopt;
}

void BrokeredRequests::release_held_body() {
  std::string().swap(held_body_);
  if (held_bodies_ != nullptr) held_bodies_->give_back(counted_);
  counted_ = 0;
}

std::optional<std::string> BrokeredRequests::feed(std::string& from_client,
                                                  std::string& to_upstream, std::string& to_client,
                                                  std::size_t room) {
  while (part_ != Part::kRefused && !from_client.empty() && to_upstream.size() < room) {
    switch (part_) {
      case Part::kHead: {
        std::size_t before = from_client.size();
        if (auto refused = head(from_client, to_upstream, to_client)) return refused;
        if (from_client.size() == before) return std::nullopt;  // the head is not whole yet
        break;
      }
      case Part::kBody: {
        std::size_t limit = std::min(from_client.size(), room - to_upstream.size());
        std::size_t taken = body_.take(std::string_view(from_client).substr(0, limit));
        if (body_.state() == http1::BodyFraming::State::kMalformed) {
          return refuse("400 Bad Request", body_.error());
        }
        scan_body(std::string_view(from_client).substr(0, taken));
        to_upstream.append(from_client, 0, taken);
        from_client.erase(0, taken);
        if (body_.state() == http1::BodyFraming::State::kDone) {
          part_ = Part::kHead;
          tail_.clear();
        }
        break;
      }
      case Part::kHeldBody: {
        std::size_t taken = body_.take(from_client, &held_body_);
        from_client.erase(0, taken);
        if (body_.state() == http1::BodyFraming::State::kMalformed) {
          return refuse("400 Bad Request", body_.error());
        }
        if (auto refused = hold_within_bounds(held_body_.size())) return refused;
        if (body_.state() != http1::BodyFraming::State::kDone) break;
        secrets_.substitute(held_body_, host_, port_, uses_);
        held_head_.headers.push_back({"Content-Length", std::to_string(held_body_.size())});
        to_upstream += http1::upstream_request_head(held_head_);
        to_upstream += held_body_;
        release_held_body();
        part_ = Part::kHead;
        break;
      }
      case Part::kRefused:
        break;
    }
  }
  return std::nullopt;
}

std::optional<std::string> BrokeredRequests::head(std::string& from_client,
                                                  std::string& to_upstream,
                                                  std::string& to_client) {
  http1::RequestHead request = http1::parse_request_head(from_client, http1::RequestForm::kOrigin);
  if (request.state == http1::RequestHead::State::kNeedMore) return std::nullopt;
  if (request.state == http1::RequestHead::State::kMalformed) {
    // Whatever it held goes nowhere: a placeholder in it is neither sent nor substituted.
    return refuse("400 Bad Request", request.error);
  }
  if (request.host != host_ || request.port != port_) {
    std::string named = request.host + ":" + std::to_string(request.port);
    secrets_.note_found(std::string_view(from_client).substr(0, request.length), host_, port_,
                        "not substituted: the request's Host header named " + named, uses_);
    return refuse("421 Misdirected Request", "this TLS connection is for " + host_ + ":" +
                                                 std::to_string(port_) +
                                                 ", and the request's Host header names " + named);
  }
  if (in_body_ && !request.chunked && request.content_length > 0) {
    // A body of a known length to be held gets a buffer of that length, counted before a byte
    // of it comes; one over a bound is refused at once, and its head goes nowhere.
    if (request.content_length <= kMaxBrokeredBody) held_body_.reserve(request.content_length);
    if (auto refused = hold_within_bounds(request.content_length)) return refused;
  }
  from_client.erase(0, request.length);
  std::erase_if(request.headers, [](const http1::RequestHead::Header& header) {
    return is_named(header, "forwarded") || is_named(header, "x-forwarded-host");
  });
  for (auto& header : request.headers) secrets_.substitute(header.value, host_, port_, uses_);
  // The target is passed on as it is: a placeholder there is noted, not replaced.
  secrets_.note_found(request.path, host_, port_, "not substituted: it was in the URL", uses_);
  bool has_body = request.chunked || request.content_length > 0;
  if (in_body_ && has_body) {
    // Held whole, and sent with the length it has after the substitution; a client that waits
    // for 100 Continue gets it from the proxy, as the upstream never sees its Expect.
    bool expects = false;
    std::erase_if(request.headers, [&](const http1::RequestHead::Header& header) {
      if (is_named(header, "expect")) expects = true;
      return is_named(header, "content-length") || is_named(header, "transfer-encoding") ||
             is_named(header, "expect");
    });
    if (expects && request.version == "HTTP/1.1") to_client += "HTTP/1.1 100 Continue\r\n\r\n";
    body_ = request.chunked ? http1::BodyFraming::chunked()
                            : http1::BodyFraming::sized(request.content_length);
    held_head_ = std::move(request);
    part_ = Part::kHeldBody;
    return std::nullopt;
  }
  to_upstream += http1::upstream_request_head(request);
  if (has_body) {
    body_ = request.chunked ? http1::BodyFraming::chunked()
                            : http1::BodyFraming::sized(request.content_length);
    part_ = Part::kBody;
  }
  return std::nullopt;
}

void BrokeredRequests::scan_body(std::string_view piece) {
  if (piece.empty()) return;
  std::size_t keep = secrets_.longest_placeholder();
  if (keep == 0) return;
  tail_.append(piece);
  secrets_.note_found(tail_, host_, port_,
                      "not substituted: it was in a request body (see --secret-in-body)", uses_);
  if (tail_.size() >= keep) tail_.erase(0, tail_.size() - (keep - 1));
}

}  // namespace paddock::net::egress
