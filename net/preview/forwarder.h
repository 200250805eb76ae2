#pragma once

// Previews: a port of a sandbox, opened from the host. Each preview listens on the host's
// 127.0.0.1 only, on a port the kernel picks (or the first free one of a range the user named),
// and relays each connection to the sandbox's own 127.0.0.1:PORT through a socket the sandbox's
// init made in the sandbox's network namespace (net/preview/socket_request.h). Such a socket
// can reach nothing but the sandbox's own loopback, so "expose port 22" names the sandbox's
// port 22, never the host's, and nothing about a preview lets the sandbox connect out: the
// connections go one way, from the host in.
//
// Who may connect (docs/previews.md): a connection whose peer socket belongs to another user
// than the server's is closed at once (net/preview/socket_owner.h); an HTTP preview also judges the
// first request head of each connection (net/preview/access.h): the Host header and the
// token, by its query parameter or its cookie.
//
// What a sandbox can take from the server through its previews is bounded as the egress
// proxy's is (net/egress/proxy.h): one thread and one poll loop for every preview of the server, no
// thread per connection; at most PreviewLimits::previews_per_session previews a session and
// PreviewLimits::previews a server (--max-previews); connections at once at most
// connections_per_preview for one preview, connections_per_session for one session's previews
// and connections for all (a listener at its preview's or its session's cap is not polled
// meanwhile: its new clients wait in its backlog, and every other preview's listener is still
// polled); three descriptors' worth of buffers each (kPreviewBuffer: to the sandbox, to the
// client, and a response head being read); a request head within kPreviewHeadDeadline, a
// connection into the sandbox within kPreviewConnectDeadline, and a relayed connection closed
// once nothing moved either way for PreviewLimits::idle, or at once when its HTTP client goes
// away before its answer; accept backs off kPreviewAcceptBackoff on EMFILE. So a sandbox's
// server that stops reading, or never accepts, only stalls its own connections, and only until
// their clients go or they idle out.

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "core/result.h"
#include "core/unique_fd.h"
#include "net/http1/request_head.h"
#include "net/io/event_loop.h"
#include "net/preview/ports.h"

namespace paddock::net::preview {

inline constexpr std::size_t kPreviewBuffer = 64 * 1024;
inline constexpr std::chrono::seconds kPreviewHeadDeadline{30};
inline constexpr std::chrono::seconds kPreviewConnectDeadline{10};
inline constexpr std::chrono::milliseconds kPreviewAcceptBackoff{250};
// The server's previews at most, unless --max-previews says otherwise.
inline constexpr std::size_t kDefaultMaxPreviews = 64;

struct PreviewLimits {
  std::size_t previews_per_session = 16;
  std::size_t previews = kDefaultMaxPreviews;
  // Connections at once: a preview's, a session's, all. A session takes at most a quarter of
  // all, a preview half of its session's, so that the others keep room.
  std::size_t connections_per_preview = 32;
  std::size_t connections_per_session = 64;
  std::size_t connections = 256;
  // A relayed connection over which nothing moved for this long is closed.
  std::chrono::milliseconds idle = std::chrono::minutes(5);
};

struct PreviewOpened {
  std::uint16_t host_port = 0;
  std::string url;  // with the token for HTTP; tcp://127.0.0.1:PORT for plain TCP
  // Whether something accepted a connection on the sandbox's port when the preview opened, and
  // if not, why ("Connection refused: nothing listens there").
  bool accepting = false;
  std::string probe;
};

class PreviewForwarder {
 public:
  // `owner`: the only user whose connections are served (the server's). `ports`: where
  // previews listen. The loop's thread starts with the first preview.
  PreviewForwarder(uid_t owner, PreviewPortRange ports, PreviewLimits limits = {});
  ~PreviewForwarder();
  PreviewForwarder(const PreviewForwarder&) = delete;
  PreviewForwarder& operator=(const PreviewForwarder&) = delete;

  // A preview of `sandbox_port` in the sandbox of `group` (a session), whose init's factory is
  // `factory` (only the group's first is kept: its answers come in order for every preview of
  // the group). Waits for the probe connection (at most kPreviewConnectDeadline). Refused in
  // one line past the limits' previews_per_session or previews.
  // `host_port`: that port only (--publish HOSTPORT:PORT), else the forwarder's range.
  core::Result<PreviewOpened> open(const std::string& group, core::UniqueFd factory,
                                   std::uint16_t sandbox_port, PreviewProtocol protocol,
                                   std::uint16_t host_port = 0);
  // Whether `group` has a factory already (then open() needs none).
  bool has_group(const std::string& group);
  // Ends every preview of `group` and their connections, by the time it returns.
  void close_group(const std::string& group);
  // Ends everything and joins the loop. Idempotent; the destructor does it too.
  void stop();

  // What the loop refused, for the tests and the logs: one line each, the latest last.
  std::vector<std::string> refusals();

 private:
  struct Preview;
  struct Group;
  struct Connection;
  void run();
  // Ends what is past its deadline; the rest say when they end.
  void expire(std::chrono::steady_clock::time_point now);
  // What this turn waits for: listeners with room, factories with answers due, connections.
  void watch_all(std::chrono::steady_clock::time_point now);
  void watch_connection(Connection& connection);
  core::Result<core::UniqueFd> open_listener(std::uint16_t host_port);
  void accept_on(Preview& preview, std::chrono::steady_clock::time_point now);
  void ask_socket(Connection& connection);
  void take_socket(Group& group);
  void advance(Connection& connection);
  void relay(Connection& connection);
  void forward_request(Connection& connection, http1::RequestHead head);
  bool read_response_head(Connection& connection, Preview& preview);
  bool has_room(const Preview& preview) const;
  void finish(Connection& connection, bool accepting, const std::string& why);
  void refuse(Connection& connection, std::string response, const std::string& why);
  void note_refusal(const std::string& why);
  void wake();

  uid_t owner_;
  PreviewPortRange ports_;
  PreviewLimits limits_;
  std::optional<io::EventLoop> events_;  // none: no descriptors were left for its pipe
  std::thread loop_;
  bool stopping_ = false;

  // Everything below is guarded by mutex_; the loop holds it but while it polls.
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::string, std::unique_ptr<Group>> groups_;
  std::map<std::uint64_t, std::unique_ptr<Preview>> previews_;
  std::map<std::uint64_t, std::unique_ptr<Connection>> connections_;
  std::uint64_t next_id_ = 1;
  std::chrono::steady_clock::time_point accept_again_{};
  std::vector<std::string> refusals_;
};

}  // namespace paddock::net::preview
