#pragma once

// A scripted HTTP/1.1 server on 127.0.0.1 for the tests of http::Client: each route answers
// what the test wrote down, including the faults a real server or network produces only now
// and then (a connection dropped before the answer, a stall, a body longer than announced, a
// body trickling in chunks), so the client's handling of them is checked on every run.
//
// One connection at a time, on one thread: a test drives one client, and a server that cannot
// interleave answers keeps the order of what it records the order in which it answered.

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/result.h"

namespace paddock::testing {

struct FaultAnswer {
  int status = 200;
  std::vector<std::string> headers;  // "Name: value"; Content-Length and Connection are added
  std::string body;

  // Faults; all but the first combine (a stall, then a body in delayed chunks).
  // The request is read, then the connection closed with nothing sent (curl: GOT_NOTHING).
  bool close_without_answer = false;
  // After the head, nothing for this long, then the body (the server's destructor cuts it short).
  int stall_ms = 0;
  // Sent after `body` but not counted in Content-Length.
  std::string extra_body;
  // > 0: the body goes out with Transfer-Encoding: chunked, in pieces of this many bytes, with
  // `chunk_delay_ms` before each piece but the first, so the client sees them one by one.
  std::size_t chunk_bytes = 0;
  int chunk_delay_ms = 0;

  // "Connection: close" and a closed connection after the answer; false keeps it for the next
  // request (the client's connection reuse).
  bool close_connection = true;
};

struct RecordedRequest {
  std::string method;
  std::string target;                          // as sent: the path and its query
  std::string path;                            // without the query
  std::map<std::string, std::string> headers;  // names in lower case; repeats joined with ", "
  std::string body;
  int connection = 0;  // which accepted connection brought it (1, 2, ...)

  [[nodiscard]] bool has_header(const std::string& name) const;
  [[nodiscard]] std::string header(const std::string& name) const;
};

class FaultHttpServer {
 public:
  // Listening on a port the kernel chose, and serving.
  static core::Result<std::unique_ptr<FaultHttpServer>> start();

  FaultHttpServer(const FaultHttpServer&) = delete;
  FaultHttpServer& operator=(const FaultHttpServer&) = delete;
  // Stops serving, whatever it is doing (a stall included), and closes every descriptor.
  ~FaultHttpServer();

  [[nodiscard]] int port() const { return port_; }
  // http://HOST:PORT/PATH; another `host` than 127.0.0.1 (localhost) is another host to a
  // client, on the same server.
  [[nodiscard]] std::string url(const std::string& path,
                                const std::string& host = "127.0.0.1") const;

  // What METHOD PATH answers, in order, the last one repeating; replaces an earlier script. An
  // unscripted route answers 404.
  void script(const std::string& method, const std::string& path, std::vector<FaultAnswer> answers);

  [[nodiscard]] std::vector<RecordedRequest> requests() const;
  // How many requests came for METHOD PATH.
  [[nodiscard]] int count(const std::string& method, const std::string& path) const;

 private:
  struct Route {
    std::vector<FaultAnswer> answers;
    std::size_t next = 0;
  };

  FaultHttpServer(int listener, int wake, int port);

  void serve();
  void serve_connection(int connection, int number);
  // Reads one request from `connection` (with what `pending` already holds); false when the
  // peer closed, the server stops, or a new connection waits while this one is idle.
  bool read_request(int connection, std::string& pending, RecordedRequest& request);
  FaultAnswer answer_for(const RecordedRequest& request);
  // Waits `ms` unless the server is stopping; false when it is.
  bool pause(int ms) const;

  int listener_ = -1;
  int wake_ = -1;  // eventfd, readable once the destructor wants the thread to end
  int port_ = 0;
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, std::string>, Route> routes_;
  std::vector<RecordedRequest> requests_;
  std::thread thread_;
};

}  // namespace paddock::testing
