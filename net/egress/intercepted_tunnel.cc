#include "net/egress/intercepted_tunnel.h"

#include <utility>

#include "net/egress/proxy.h"

namespace paddock::net::egress {

InterceptedTunnel::InterceptedTunnel(const SandboxSecrets& secrets, std::string host,
                                     std::uint16_t port, bool in_body,
                                     std::unique_ptr<TlsEnd> sandbox_end,
                                     std::unique_ptr<TlsEnd> upstream_end,
                                     HeldBodyBudget* held_bodies)
    : host_(host),
      port_(port),
      sandbox_(std::move(sandbox_end)),
      upstream_(std::move(upstream_end)),
      requests_(secrets, std::move(host), port, in_body, held_bodies) {}

bool InterceptedTunnel::awaits_client() const {
  return !sandbox_->established() || !requests_.between_requests() || !client_plain_.empty();
}

InterceptedTunnel::Fate InterceptedTunnel::time_out(TunnelBuffers buffers,
                                                    std::chrono::seconds waited) {
  return end_with(buffers, requests_.time_out(waited));
}

std::vector<SecretUse> InterceptedTunnel::take_uses() {
  // What was not substituted is said at once; a substitution waits until the request can go
  // to the real host, and is said not to have gone if its TLS failed.
  std::vector<SecretUse> now;
  for (auto& use : requests_.take_uses()) {
    note_use(use.substituted ? held_uses_ : now, std::move(use));
  }
  if (failure_) {
    for (auto& use : held_uses_) {
      use.substituted = false;
      use.reason = "but was not sent on: the host's TLS failed (see unreachable)";
      note_use(now, std::move(use));
    }
    held_uses_.clear();
  } else if (upstream_->established()) {
    for (auto& use : held_uses_) note_use(now, std::move(use));
    held_uses_.clear();
  }
  return now;
}

InterceptedTunnel::Fate InterceptedTunnel::end_with(TunnelBuffers& buffers,
                                                    const std::string& answer) {
  pending_plain_.clear();
  if (sandbox_->established()) {
    (void)sandbox_->write(answer);
    sandbox_->close();
  }
  sandbox_->take_outgoing(buffers.to_client);
  return Fate::kEnding;
}

InterceptedTunnel::Fate InterceptedTunnel::pump(TunnelBuffers buffers) {
  // Raw bytes into each end, no more than one relay buffer held unprocessed by either.
  if (!buffers.from_client.empty() && sandbox_->unprocessed() < kRelayBuffer) {
    sandbox_->receive(buffers.from_client);
    buffers.from_client.clear();
  }
  if (!buffers.from_upstream.empty() && upstream_->unprocessed() < kRelayBuffer) {
    upstream_->receive(buffers.from_upstream);
    buffers.from_upstream.clear();
  }
  if (client_plain_.size() < kRelayBuffer &&
      !sandbox_->read(client_plain_, kRelayBuffer - client_plain_.size())) {
    // The sandbox's client refused the authority's certificate, or sent what is not TLS: its
    // alert goes back, and the connection ends.
    sandbox_->take_outgoing(buffers.to_client);
    return Fate::kEnding;
  }
  if (!failure_) {
    if (auto refused = requests_.feed(client_plain_, pending_plain_, answer_plain_, kRelayBuffer)) {
      return end_with(buffers, *refused);
    }
  }
  std::size_t answered = upstream_plain_.size();
  if (!failure_ && upstream_plain_.size() < kRelayBuffer &&
      !upstream_->read(upstream_plain_, kRelayBuffer - upstream_plain_.size())) {
    if (upstream_->established()) {
      sandbox_->take_outgoing(buffers.to_client);
      return Fate::kEnding;
    }
    failure_ = "paddock's proxy could not reach " + host_ + ":" + std::to_string(port_) +
               " over TLS: " + upstream_->error();
  } else if (!failure_ && buffers.upstream_ended && !upstream_->established()) {
    failure_ = "paddock's proxy could not reach " + host_ + ":" + std::to_string(port_) +
               " over TLS: the connection closed during the handshake";
  }
  bool read_more = upstream_plain_.size() > answered;
  if (failure_) {
    // Nothing of any request was written to it: the handshake never completed. The sandbox
    // learns why once its own handshake has.
    pending_plain_.clear();
    if (sandbox_->established()) {
      return end_with(buffers,
                      "HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\n"
                      "Connection: close\r\nContent-Length: " +
                          std::to_string(failure_->size() + 1) + "\r\n\r\n" + *failure_ + "\n");
    }
    sandbox_->take_outgoing(buffers.to_client);
    return buffers.client_ended ? Fate::kEnding : Fate::kGoesOn;
  }
  if (upstream_->established() && !pending_plain_.empty()) {
    if (!upstream_->write(pending_plain_)) return end_with(buffers, "");
    pending_plain_.clear();
  }
  if (sandbox_->established()) {
    if (!answer_plain_.empty() && !sandbox_->write(answer_plain_)) return Fate::kEnding;
    answer_plain_.clear();
    if (!upstream_plain_.empty() && !sandbox_->write(upstream_plain_)) return Fate::kEnding;
    upstream_plain_.clear();
  }
  // The client is done: the upstream's side is closed once all it sent went there.
  if ((buffers.client_ended || sandbox_->peer_closed()) && client_plain_.empty() &&
      pending_plain_.empty() && upstream_->established() && !upstream_closed_) {
    upstream_->close();
    upstream_closed_ = true;
  }
  upstream_->take_outgoing(buffers.to_upstream);
  // The upstream is done, and all it said was handed on (the last read found nothing more, since
  // one read takes at most a relay buffer): so is the connection.
  bool upstream_done = buffers.upstream_ended || upstream_->peer_closed();
  if (upstream_done && upstream_plain_.empty() && buffers.from_upstream.empty() && !read_more) {
    sandbox_->close();
    sandbox_->take_outgoing(buffers.to_client);
    return Fate::kEnding;
  }
  sandbox_->take_outgoing(buffers.to_client);
  if ((buffers.client_ended || sandbox_->peer_closed()) && !upstream_->established()) {
    return Fate::kEnding;
  }
  return Fate::kGoesOn;
}

}  // namespace paddock::net::egress
