#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "net/io/socket_io.h"
#include "net/preview/access.h"
#include "net/preview/forwarder_parts.h"

namespace paddock::net::preview {

bool receive(int from, std::string& into, std::size_t most, bool& eof, std::uint64_t& moved) {
  if (eof || most == 0) return true;
  std::size_t before = into.size();
  io::ReadResult got = io::receive_some(from, into, most);
  moved += into.size() - before;
  if (got == io::ReadResult::kEnd) eof = true;
  return got != io::ReadResult::kFailed;
}

bool pump(int from, Pending& into, bool& eof, std::uint64_t& moved) {
  if (into.empty()) {
    into.bytes.clear();
    into.sent = 0;
  }
  return receive(from, into.bytes, into.room(), eof, moved);
}

bool flush(int to, Pending& out, std::uint64_t& moved) {
  while (!out.empty()) {
    ssize_t put = send(to, out.bytes.data() + out.sent, out.bytes.size() - out.sent,
                       MSG_DONTWAIT | MSG_NOSIGNAL);
    if (put < 0) return errno == EAGAIN || errno == EINTR;
    out.sent += static_cast<std::size_t>(put);
    moved += static_cast<std::size_t>(put);
  }
  return true;
}

void PreviewForwarder::advance(Connection& connection) {
  using State = Connection::State;
  switch (connection.state) {
    case State::kHead: {
      Preview& preview = *previews_.at(connection.preview);
      if (!pump(connection.client.get(), connection.to_sandbox, connection.client_eof,
                connection.moved)) {
        connection.done = true;
        return;
      }
      auto verdict =
          judge_preview_request(connection.to_sandbox.bytes, preview.host_port, preview.token);
      using Kind = PreviewVerdict::Kind;
      if (verdict.kind == Kind::kNeedMore) {
        if (connection.client_eof) connection.done = true;
        return;
      }
      if (verdict.kind == Kind::kRefuse) {
        refuse(connection, std::move(verdict.response),
               "port " + std::to_string(preview.host_port) + ": " + verdict.reason);
      } else if (verdict.kind == Kind::kRedirect) {
        connection.to_client = Pending{};
        connection.to_client.bytes = std::move(verdict.response);
        connection.state = State::kReply;
        connection.deadline = Clock::now() + kReplyDeadline;
      } else {
        forward_request(connection, std::move(verdict.head));
      }
      return;
    }
    case State::kReply:
      if (!flush(connection.client.get(), connection.to_client, connection.moved) ||
          connection.to_client.empty()) {
        shutdown(connection.client.get(), SHUT_WR);
        connection.done = true;
      }
      return;
    case State::kWaitSocket:
      return;
    case State::kConnecting: {
      int error = 0;
      socklen_t size = sizeof error;
      getsockopt(connection.upstream.get(), SOL_SOCKET, SO_ERROR, &error, &size);
      if (error != 0) {
        finish(connection, false, std::strerror(error));
        return;
      }
      if (connection.probe) {
        finish(connection, true, "");
        return;
      }
      connection.state = State::kRelay;
      connection.raw = previews_.at(connection.preview)->protocol == PreviewProtocol::kTcp;
      connection.deadline = Clock::now() + limits_.idle;
      relay(connection);
      return;
    }
    case State::kRelay:
      relay(connection);
      return;
  }
}

void PreviewForwarder::forward_request(Connection& connection, http1::RequestHead head) {
  Preview& preview = *previews_.at(connection.preview);
  std::string rest = connection.to_sandbox.bytes.substr(head.length);
  connection.upgrade = asks_upgrade(head);
  connection.body =
      head.chunked ? http1::BodyFraming::chunked() : http1::BodyFraming::sized(head.content_length);
  std::size_t taken = connection.body->take(rest);
  if (connection.body->state() == http1::BodyFraming::State::kMalformed) {
    refuse(connection,
           preview_response("400 Bad Request",
                            "a malformed request body: " + connection.body->error()),
           "port " + std::to_string(preview.host_port) + ": a malformed request body");
    return;
  }
  connection.request_done = connection.body->state() == http1::BodyFraming::State::kDone;
  // The sandbox gets the head rebuilt (net/preview/headers.h), then what came of the body;
  // bytes past the body (a pipelined request) are not its to see.
  connection.to_sandbox = Pending{};
  connection.to_sandbox.bytes = preview_request_head(head, preview.grants) + rest.substr(0, taken);
  ask_socket(connection);
}

bool PreviewForwarder::read_response_head(Connection& connection, Preview& preview) {
  auto bad = [&](const std::string& why) {
    std::string line =
        "port " + std::to_string(preview.host_port) + ": the sandbox's server " + why;
    if (connection.to_client.sent == 0 && connection.to_client.empty()) {
      connection.upstream.reset();
      refuse(
          connection,
          preview_response("502 Bad Gateway", "the sandbox's server on port " +
                                                  std::to_string(preview.sandbox_port) + " " + why),
          line);
    } else {
      note_refusal(line);
      connection.done = true;
    }
    return false;
  };
  while (!connection.response_head_done) {
    PreviewResponseHead head = parse_preview_response_head(connection.response_head);
    if (head.state == PreviewResponseHead::State::kNeedMore) {
      if (connection.sandbox_eof) return bad("closed the connection before its response head");
      return true;
    }
    if (head.state == PreviewResponseHead::State::kMalformed) {
      return bad("sent a malformed response head: " + head.error);
    }
    if (head.status == 101 && !connection.upgrade) {
      return bad("answered 101 to a request for no other protocol");
    }
    connection.to_client.bytes += preview_response_head(head, preview.grants);
    connection.response_head.erase(0, head.length);
    if (head.status == 101) connection.raw = true;
    // A 1xx other than 101 is an interim answer: the next head follows.
    connection.response_head_done = head.status == 101 || head.status >= 200;
  }
  connection.to_client.bytes += connection.response_head;
  connection.response_head = std::string();
  return true;
}

void PreviewForwarder::relay(Connection& connection) {
  int client = connection.client.get();
  int sandbox = connection.upstream.get();
  std::uint64_t before = connection.moved;
  bool ok = true;
  // To the sandbox: everything (raw), or the request's body alone.
  if (connection.raw) {
    ok = pump(client, connection.to_sandbox, connection.client_eof, connection.moved);
  } else if (!connection.request_done) {
    std::string got;
    if (connection.to_sandbox.empty()) connection.to_sandbox = Pending{};
    ok =
        receive(client, got, connection.to_sandbox.room(), connection.client_eof, connection.moved);
    std::size_t taken = connection.body->take(got);
    if (connection.body->state() == http1::BodyFraming::State::kMalformed) ok = false;
    connection.request_done = connection.body->state() == http1::BodyFraming::State::kDone;
    connection.to_sandbox.bytes.append(got, 0, taken);
  } else if (!connection.client_eof) {
    // The request is whole: what the client sends next is not the sandbox's (a pipelined
    // request goes unanswered: the response says close), and its end means it went away, as a
    // reverse proxy reads it: its connection ends now, not at the idle deadline.
    std::string dropped;
    std::uint64_t ignored = 0;
    ok = receive(client, dropped, kPreviewBuffer, connection.client_eof, ignored);
    if (connection.client_eof) {
      connection.done = true;
      return;
    }
  }
  ok = ok && flush(sandbox, connection.to_sandbox, connection.moved);
  // To the client: the response's head rebuilt first, then as it comes.
  if (ok && (connection.raw || connection.response_head_done)) {
    ok = pump(sandbox, connection.to_client, connection.sandbox_eof, connection.moved);
  } else if (ok) {
    ok = receive(sandbox, connection.response_head,
                 kMaxPreviewResponseHead - connection.response_head.size(), connection.sandbox_eof,
                 connection.moved);
    if (ok && !read_response_head(connection, *previews_.at(connection.preview))) return;
  }
  ok = ok && flush(client, connection.to_client, connection.moved);
  if (!ok) {
    connection.done = true;
    return;
  }
  if (connection.moved != before) connection.deadline = Clock::now() + limits_.idle;
  // A side that finished sending is told so once what it sent is through: a half-closed
  // connection (a client that shuts its writing side and waits for the answer) still works.
  if (connection.client_eof && connection.to_sandbox.empty() && !connection.sandbox_shut) {
    shutdown(sandbox, SHUT_WR);
    connection.sandbox_shut = true;
  }
  bool answered = connection.raw || connection.response_head_done;
  if (connection.sandbox_eof && answered && connection.to_client.empty() &&
      !connection.client_shut) {
    shutdown(client, SHUT_WR);
    connection.client_shut = true;
  }
  // An HTTP request's connection ends with its response (Connection: close).
  if (connection.client_shut && (connection.sandbox_shut || !connection.raw)) {
    connection.done = true;
  }
}

}  // namespace paddock::net::preview
