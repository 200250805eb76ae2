#pragma once

// The HTTP/1.1 requests a sandbox sends through a TLS connection its egress proxy terminates for
// a brokered secret's host (net/egress/brokered_secrets.h), as the proxy passes them on: each
// request's head is parsed, its placeholders replaced in the header values when the secret is
// for this host, and its body framed (net/http1/body_framing.h), so that the head of every
// request of a kept-alive connection is read and none passes unread. With `in_body`, a body is
// held whole (kMaxBrokeredBody at most, and the sandbox's HeldBodyBudget for all its connections
// together) and its placeholders replaced too. Forwarded and X-Forwarded-Host are dropped: they
// would tell the secret's host of another host than the one it is, which some servers build
// links and redirects from.
//
// What cannot be framed or read is refused with an HTTP answer and the connection's end, never
// passed on as it is: a malformed head (400), a Host header that names another host than the
// TLS connection's (421: the upstream connection was judged for that host alone), a held body
// over its bound (413), or over what the sandbox may hold of bodies together (503), and a request
// the client left unfinished past its deadline (408, time_out()).
//
// Pure: plaintext in, plaintext out, so that it is unit-tested and fuzzed without TLS.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "net/egress/brokered_secrets.h"
#include "net/egress/held_body_budget.h"
#include "net/http1/body_framing.h"
#include "net/http1/request_head.h"

namespace paddock::net::egress {

inline constexpr std::size_t kMaxBrokeredBody = 1 << 20;

class BrokeredRequests {
 public:
  // `held_bodies`, when given, is shared by the sandbox's connections and outlives this.
  BrokeredRequests(const SandboxSecrets& secrets, std::string host, std::uint16_t port,
                   bool in_body, HeldBodyBudget* held_bodies = nullptr);
  ~BrokeredRequests() { release_held_body(); }
  BrokeredRequests(const BrokeredRequests&) = delete;
  BrokeredRequests& operator=(const BrokeredRequests&) = delete;

  // Moves what it can of `from_client` (plaintext from the sandbox) to `to_upstream`, while
  // `to_upstream` holds less than `room`; what the proxy answers itself (100 Continue for a body
  // it holds) goes onto `to_client`. A refusal is the answer to give the sandbox before the
  // connection ends; nothing more goes upstream then.
  std::optional<std::string> feed(std::string& from_client, std::string& to_upstream,
                                  std::string& to_client, std::size_t room);
  // Whether a request is partly passed on (its body goes on): the connection's end is then
  // the request's end too early.
  [[nodiscard]] bool between_requests() const { return part_ == Part::kHead; }
  // The answer to a client that left its request unfinished for `waited`; the connection ends.
  std::string time_out(std::chrono::seconds waited);
  // What was done with placeholders since the last take.
  std::vector<SecretUse> take_uses() { return std::exchange(uses_, {}); }

 private:
  enum class Part { kHead, kBody, kHeldBody, kRefused };
  std::optional<std::string> head(std::string& from_client, std::string& to_upstream,
                                  std::string& to_client);
  std::optional<std::string> refuse(const char* status, const std::string& why);
  // Notes a placeholder in a body passed on unread; `tail_` keeps the end of the last piece.
  void scan_body(std::string_view piece);
  // Counts what the held body takes now against the sandbox's budget; false when it is spent.
  bool count_held_body();
  // The refusal of a held body of `length` over its bound, or over the sandbox's budget.
  std::optional<std::string> hold_within_bounds(std::uint64_t length);
  // Frees the held body, and gives back what it counted.
  void release_held_body();

  const SandboxSecrets& secrets_;
  const std::string host_;
  const std::uint16_t port_;
  const bool in_body_;
  Part part_ = Part::kHead;
  http1::BodyFraming body_ = http1::BodyFraming::sized(0);
  http1::RequestHead held_head_;  // kHeldBody: its head, sent with the body once it is whole
  std::string held_body_;
  HeldBodyBudget* const held_bodies_;
  std::size_t counted_ = 0;  // of held_body_'s memory, in held_bodies_
  std::string tail_;
  std::vector<SecretUse> uses_;
};

}  // namespace paddock::net::egress
