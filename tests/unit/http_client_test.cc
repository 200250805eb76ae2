#include "http/client.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support/fault_http_server.h"
#include "support/registry_server.h"

namespace paddock::http::http_client_test {
namespace {

using paddock::testing::FaultAnswer;
using paddock::testing::FaultHttpServer;
using paddock::testing::RecordedRequest;
using Clock = std::chrono::steady_clock;

// libcurl's words for a transport code, for failure messages.
std::string curl_error(CURLcode code) {
  auto library = load_curl();
  return library ? (*library)->easy_strerror(code) : library.error().message;
}

FaultAnswer answer(int status, std::string body = "", std::vector<std::string> headers = {}) {
  FaultAnswer scripted;
  scripted.status = status;
  scripted.body = std::move(body);
  scripted.headers = std::move(headers);
  return scripted;
}

FaultAnswer stalled(int stall_ms) {
  FaultAnswer scripted = answer(200, "late");
  scripted.stall_ms = stall_ms;
  return scripted;
}

FaultAnswer chunked(std::string body, std::size_t chunk_bytes, int delay_ms) {
  FaultAnswer scripted = answer(200, std::move(body));
  scripted.chunk_bytes = chunk_bytes;
  scripted.chunk_delay_ms = delay_ms;
  return scripted;
}

FaultAnswer hang_up() {
  FaultAnswer scripted;
  scripted.close_without_answer = true;
  return scripted;
}

// Long enough that an exchange which waited for it would stand out; the server's destructor cuts
// it short, so no test waits for it.
constexpr int kLongStallMs = 30000;

class HttpClient : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = FaultHttpServer::start();
    ASSERT_TRUE(server) << server.error().message;
    server_ = std::move(*server);
    auto client = Client::create();
    ASSERT_TRUE(client) << client.error().message;
    client_.emplace(std::move(*client));
  }

  Request get(const std::string& path) const {
    Request request;
    request.url = server_->url(path);
    return request;
  }

  // The server is declared first so that it goes last: the client's connection closes before
  // the server stops.
  std::unique_ptr<FaultHttpServer> server_;
  std::optional<Client> client_;
};

TEST_F(HttpClient, GetReturnsStatusBodyAndLowerCasedHeaders) {
  server_->script("GET", "/hello",
                  {answer(200, "hello, world", {"X-Custom-Header: Some Value", "ETag: \"v1\""})});
  auto response = client_->perform(get("/hello?x=1"));
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_TRUE(response->answered());
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, "hello, world");
  EXPECT_EQ(response->headers.count("x-custom-header"), 1u);
  EXPECT_EQ(response->headers["x-custom-header"], "Some Value");
  EXPECT_EQ(response->header("X-Custom-Header"), "Some Value");
  EXPECT_EQ(response->header("etag"), "\"v1\"");
  EXPECT_EQ(response->header("content-length"), "12");
  EXPECT_EQ(response->headers.count("X-Custom-Header"), 0u) << "names are kept in lower case";
  auto requests = server_->requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "GET");
  EXPECT_EQ(requests[0].target, "/hello?x=1");
}

TEST_F(HttpClient, PostSendsItsBodyAndHeaders) {
  server_->script("POST", "/items", {answer(201, "{\"id\":7}")});
  Request request = get("/items");
  request.method = "POST";
  request.body = std::string("{\"name\":\"a\0b\"}", 14);
  request.headers = {"Content-Type: application/json", "X-Trace: abc"};
  auto response = client_->perform(request);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->status, 201);
  EXPECT_EQ(response->body, "{\"id\":7}");
  auto requests = server_->requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "POST");
  EXPECT_EQ(requests[0].body, *request.body) << "sent as it is, NUL included";
  EXPECT_EQ(requests[0].header("content-type"), "application/json");
  EXPECT_EQ(requests[0].header("x-trace"), "abc");
}

TEST_F(HttpClient, PutAndDeleteUseTheirMethod) {
  server_->script("PUT", "/thing", {answer(200, "put")});
  server_->script("DELETE", "/thing", {answer(204)});
  Request put = get("/thing");
  put.method = "PUT";
  put.body = "data";
  auto put_response = client_->perform(put);
  ASSERT_TRUE(put_response) << put_response.error().message;
  EXPECT_EQ(put_response->body, "put");
  Request remove = get("/thing");
  remove.method = "DELETE";
  auto delete_response = client_->perform(remove);
  ASSERT_TRUE(delete_response) << delete_response.error().message;
  EXPECT_EQ(delete_response->status, 204);
  EXPECT_EQ(server_->count("PUT", "/thing"), 1);
  EXPECT_EQ(server_->count("DELETE", "/thing"), 1);
  EXPECT_EQ(server_->requests()[0].body, "data");
}

TEST_F(HttpClient, ErrorAnswersAreAnswersWithTheirBody) {
  server_->script("GET", "/missing", {answer(404, "no such thing")});
  server_->script("GET", "/broken", {answer(500, "it broke", {"X-Reason: disk"})});
  auto missing = client_->perform(get("/missing"));
  ASSERT_TRUE(missing) << missing.error().message;
  EXPECT_EQ(missing->status, 404);
  EXPECT_EQ(missing->transport, CURLE_OK);
  EXPECT_TRUE(missing->answered());
  EXPECT_EQ(missing->body, "no such thing");
  auto broken = client_->perform(get("/broken"));
  ASSERT_TRUE(broken) << broken.error().message;
  EXPECT_EQ(broken->status, 500);
  EXPECT_EQ(broken->transport, CURLE_OK);
  EXPECT_EQ(broken->body, "it broke");
  EXPECT_EQ(broken->header("x-reason"), "disk");
}

TEST_F(HttpClient, ErrorBodyIsKeptUpToItsCap) {
  server_->script("GET", "/at-cap", {answer(500, "12345678")});
  server_->script("GET", "/over-cap", {answer(500, "123456789")});
  Request request = get("/at-cap");
  request.max_error_body_bytes = 8;
  request.max_body_bytes = 1;  // not the cap of an error answer
  auto at_cap = client_->perform(request);
  ASSERT_TRUE(at_cap) << at_cap.error().message;
  EXPECT_EQ(at_cap->status, 500);
  EXPECT_EQ(at_cap->body, "12345678");
  // client.h: an Error for "an answer larger than the request allows (EFBIG)", any answer.
  request.url = server_->url("/over-cap");
  auto over_cap = client_->perform(request);
  ASSERT_FALSE(over_cap) << "a 500 body over max_error_body_bytes was kept: " << over_cap->body;
  EXPECT_EQ(over_cap.error().code, EFBIG) << over_cap.error().message;
}

TEST_F(HttpClient, SuccessBodyOverMaxBodyBytesIsEfbig) {
  server_->script("GET", "/at-cap", {answer(200, "0123456789")});
  server_->script("GET", "/over-cap", {answer(200, "0123456789A")});
  Request request = get("/at-cap");
  request.max_body_bytes = 10;
  request.max_error_body_bytes = 1u << 20;  // not the cap of a successful answer
  auto at_cap = client_->perform(request);
  ASSERT_TRUE(at_cap) << at_cap.error().message;
  EXPECT_EQ(at_cap->body, "0123456789");
  request.url = server_->url("/over-cap");
  auto over_cap = client_->perform(request);
  ASSERT_FALSE(over_cap) << "a 200 body over max_body_bytes was kept: " << over_cap->body;
  EXPECT_EQ(over_cap.error().code, EFBIG) << over_cap.error().message;
}

TEST_F(HttpClient, BodyLongerThanAnnouncedIsCutAtItsContentLength) {
  FaultAnswer longer = answer(200, "0123456789");
  longer.extra_body = "and more that nobody announced";
  server_->script("GET", "/longer", {longer});
  Request request = get("/longer");
  request.max_body_bytes = 10;  // what was announced fits; what came does not
  auto response = client_->perform(request);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, "0123456789");
}

TEST_F(HttpClient, OnDataGetsASuccessBodyChunkByChunk) {
  const std::string body = "abcdefghijklmnopqrst";
  server_->script("GET", "/stream", {chunked(body, 5, 30)});
  std::vector<std::string> chunks;
  Request request = get("/stream");
  request.max_body_bytes = 4;  // the cap of what is kept in `body`, not of what is streamed
  request.on_data = [&](std::string_view chunk) -> core::Status {
    chunks.emplace_back(chunk);
    return {};
  };
  auto response = client_->perform(request);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, "") << "a streamed body is not kept as well";
  EXPECT_GE(chunks.size(), 2u) << "the chunks came 30 ms apart";
  std::string joined;
  for (const auto& chunk : chunks) joined += chunk;
  EXPECT_EQ(joined, body);
}

TEST_F(HttpClient, OnDataDoesNotGetAnErrorAnswersBody) {
  server_->script("GET", "/fails", {answer(500, "what went wrong")});
  int calls = 0;
  Request request = get("/fails");
  request.on_data = [&](std::string_view) -> core::Status {
    ++calls;
    return {};
  };
  auto response = client_->perform(request);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->status, 500);
  EXPECT_EQ(response->body, "what went wrong");
  EXPECT_EQ(calls, 0);
}

TEST_F(HttpClient, StreamEveryAnswerStreamsAnErrorAnswersBody) {
  server_->script("GET", "/fails", {answer(500, "what went wrong")});
  std::string streamed;
  Request request = get("/fails");
  request.stream_every_answer = true;
  request.on_data = [&](std::string_view chunk) -> core::Status {
    streamed += chunk;
    return {};
  };
  auto response = client_->perform(request);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->status, 500);
  EXPECT_EQ(streamed, "what went wrong");
  EXPECT_EQ(response->body, "");
}

TEST_F(HttpClient, OnDataErrorStopsTheTransferAndIsReturned) {
  server_->script("GET", "/stream", {chunked("aabbccddeeffgghhiijj", 2, 50)});
  int calls = 0;
  Request request = get("/stream");
  request.on_data = [&](std::string_view) -> core::Status {
    ++calls;
    return core::Error{ENOSPC, "the sink is full"};
  };
  auto response = client_->perform(request);
  ASSERT_FALSE(response) << "status " << response->status << ", body " << response->body;
  EXPECT_EQ(response.error().code, ENOSPC);
  EXPECT_NE(response.error().message.find("the sink is full"), std::string::npos)
      << response.error().message;
  EXPECT_EQ(calls, 1) << "nothing more is delivered after the sink's error";
}

TEST_F(HttpClient, RedirectsAreFollowedWithTheLastAnswersHeaders) {
  server_->script("GET", "/start", {answer(302, "", {"Location: /middle", "X-Hop: start"})});
  server_->script("GET", "/middle",
                  {answer(307, "", {"Location: " + server_->url("/final", "localhost")})});
  server_->script("GET", "/final", {answer(200, "arrived", {"X-Final: yes"})});
  Request request = get("/start");
  request.follow_redirects = true;
  auto response = client_->perform(request);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, "arrived");
  EXPECT_EQ(response->header("x-final"), "yes");
  EXPECT_EQ(response->headers.count("location"), 0u) << "a redirect's headers are not the last";
  EXPECT_EQ(response->headers.count("x-hop"), 0u);
  EXPECT_EQ(server_->count("GET", "/start"), 1);
  EXPECT_EQ(server_->count("GET", "/middle"), 1);
  EXPECT_EQ(server_->count("GET", "/final"), 1);
}

TEST_F(HttpClient, RedirectsAreNotFollowedUnlessAsked) {
  server_->script("GET", "/start", {answer(302, "moved", {"Location: /final"})});
  server_->script("GET", "/final", {answer(200, "arrived")});
  auto response = client_->perform(get("/start"));
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->status, 302);
  EXPECT_EQ(response->header("location"), "/final");
  EXPECT_EQ(server_->count("GET", "/final"), 0);
}

TEST_F(HttpClient, AuthorizationDoesNotReachAnotherHostAfterARedirect) {
  server_->script("GET", "/same", {answer(302, "", {"Location: /same-target"})});
  server_->script("GET", "/same-target", {answer(200, "same")});
  server_->script("GET", "/other",
                  {answer(302, "", {"Location: " + server_->url("/other-target", "localhost")})});
  server_->script("GET", "/other-target", {answer(200, "other")});
  auto fetch = [&](const std::string& path) {
    Request request = get(path);
    request.follow_redirects = true;
    request.headers = {"Authorization: Bearer secret-token"};
    auto response = client_->perform(request);
    ASSERT_TRUE(response) << response.error().message;
    EXPECT_EQ(response->status, 200) << path;
  };
  fetch("/same");
  fetch("/other");
  std::map<std::string, RecordedRequest> by_path;
  for (const auto& request : server_->requests()) by_path[request.path] = request;
  ASSERT_EQ(by_path.size(), 4u);
  EXPECT_EQ(by_path["/same"].header("authorization"), "Bearer secret-token");
  // The control: the header does come along when the host stays.
  EXPECT_EQ(by_path["/same-target"].header("authorization"), "Bearer secret-token");
  EXPECT_EQ(by_path["/other"].header("authorization"), "Bearer secret-token");
  EXPECT_EQ(by_path["/other-target"].header("host"),
            "localhost:" + std::to_string(server_->port()));
  EXPECT_FALSE(by_path["/other-target"].has_header("authorization"))
      << by_path["/other-target"].header("authorization");
}

TEST_F(HttpClient, AConnectionClosedWithoutAnAnswerIsARetryableTransportFailure) {
  server_->script("GET", "/hang-up", {hang_up()});
  auto response = client_->perform(get("/hang-up"));
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_NE(response->transport, CURLE_OK);
  EXPECT_EQ(response->transport, CURLE_GOT_NOTHING) << curl_error(response->transport);
  EXPECT_FALSE(response->transport_message.empty());
  EXPECT_FALSE(response->answered());
  EXPECT_EQ(response->status, 0);
  EXPECT_TRUE(retryable(*response));
  EXPECT_EQ(server_->count("GET", "/hang-up"), 1) << "the request did arrive";
}

TEST_F(HttpClient, APortNothingListensOnIsATransportFailure) {
  int port = paddock::testing::free_port();
  ASSERT_GT(port, 0);
  Request request;
  request.url = "http://127.0.0.1:" + std::to_string(port) + "/";
  auto response = client_->perform(request);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->transport, CURLE_COULDNT_CONNECT) << curl_error(response->transport);
  EXPECT_FALSE(response->transport_message.empty());
  EXPECT_FALSE(response->answered());
  EXPECT_EQ(response->status, 0);
  EXPECT_TRUE(retryable(*response));
}

TEST_F(HttpClient, KeepGoingFalseAbandonsAStalledTransfer) {
  server_->script("GET", "/stall", {stalled(kLongStallMs)});
  Request request = get("/stall");
  // Stop once the server has the request, that is while it stalls.
  int asked = 0;
  request.keep_going = [&] {
    ++asked;
    return server_->count("GET", "/stall") == 0;
  };
  auto start = Clock::now();
  auto response = client_->perform(request);
  auto elapsed = Clock::now() - start;
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_TRUE(response->interrupted);
  EXPECT_FALSE(response->answered());
  EXPECT_FALSE(retryable(*response)) << "the caller said stop";
  EXPECT_GT(asked, 0);
  EXPECT_NE(response->body, "late");
  EXPECT_LT(elapsed, std::chrono::milliseconds(kLongStallMs / 4));
}

TEST_F(HttpClient, TimeoutEndsAStalledExchangeAsATransportFailure) {
  server_->script("GET", "/stall", {stalled(kLongStallMs)});
  Request request = get("/stall");
  request.timeout_seconds = 1;
  auto start = Clock::now();
  auto response = client_->perform(request);
  auto elapsed = Clock::now() - start;
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->transport, CURLE_OPERATION_TIMEDOUT) << curl_error(response->transport);
  EXPECT_FALSE(response->transport_message.empty());
  EXPECT_FALSE(response->answered());
  EXPECT_FALSE(response->interrupted);
  EXPECT_TRUE(retryable(*response));
  EXPECT_LT(elapsed, std::chrono::milliseconds(kLongStallMs / 4));
}

TEST_F(HttpClient, AShortStallIsWaitedFor) {
  server_->script("GET", "/stall", {stalled(100)});
  Request request = get("/stall");
  request.keep_going = [] { return true; };
  auto response = client_->perform(request);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_TRUE(response->answered());
  EXPECT_EQ(response->body, "late");
}

TEST_F(HttpClient, TheConnectionIsReusedBetweenRequests) {
  FaultAnswer first = answer(200, "one");
  first.close_connection = false;
  FaultAnswer second = answer(200, "two");
  second.close_connection = false;
  server_->script("GET", "/one", {first});
  server_->script("GET", "/two", {second});
  auto one = client_->perform(get("/one"));
  ASSERT_TRUE(one) << one.error().message;
  auto two = client_->perform(get("/two"));
  ASSERT_TRUE(two) << two.error().message;
  EXPECT_EQ(one->body, "one");
  EXPECT_EQ(two->body, "two");
  auto requests = server_->requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].connection, requests[1].connection);
}

TEST_F(HttpClient, RetriesUntilAnAnswerIsNotRetryable) {
  server_->script("GET", "/flaky", {answer(503), answer(503), answer(200, "finally")});
  int before = 0;
  auto response = perform_with_retries(*client_, get("/flaky"), 5, [&]() -> core::Status {
    ++before;
    return {};
  });
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, "finally");
  EXPECT_EQ(server_->count("GET", "/flaky"), 3);
  EXPECT_EQ(before, 3);
}

TEST_F(HttpClient, RetriesStopAfterTheAttemptsWithTheLastAnswer) {
  server_->script("GET", "/busy", {answer(429, "slow down")});
  auto response = perform_with_retries(*client_, get("/busy"), 3);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->status, 429);
  EXPECT_EQ(response->body, "slow down");
  EXPECT_EQ(server_->count("GET", "/busy"), 3);
}

TEST_F(HttpClient, AnAnswerThatIsNotRetryableIsTriedOnce) {
  server_->script("GET", "/missing", {answer(404, "gone"), answer(200, "back")});
  int before = 0;
  auto response = perform_with_retries(*client_, get("/missing"), 3, [&]() -> core::Status {
    ++before;
    return {};
  });
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->status, 404);
  EXPECT_EQ(server_->count("GET", "/missing"), 1);
  EXPECT_EQ(before, 1);
}

TEST_F(HttpClient, ATransportFailureIsRetried) {
  server_->script("GET", "/once-more", {hang_up(), answer(200, "ok")});
  auto response = perform_with_retries(*client_, get("/once-more"), 3);
  ASSERT_TRUE(response) << response.error().message;
  EXPECT_EQ(response->transport, CURLE_OK) << response->transport_message;
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, "ok");
  EXPECT_EQ(server_->count("GET", "/once-more"), 2);
}

TEST_F(HttpClient, BeforeEachErrorEndsTheRetriesBeforeATry) {
  server_->script("GET", "/never", {answer(200)});
  auto response = perform_with_retries(*client_, get("/never"), 3, []() -> core::Status {
    return core::Error{EIO, "cannot rewind"};
  });
  ASSERT_FALSE(response);
  EXPECT_EQ(response.error().code, EIO);
  EXPECT_EQ(server_->count("GET", "/never"), 0);
}

TEST_F(HttpClient, EscapeEncodesForAQueryString) {
  EXPECT_EQ(client_->escape("a b&c"), "a%20b%26c");
  EXPECT_EQ(client_->escape("plain-text_1.2~"), "plain-text_1.2~");
  EXPECT_EQ(client_->escape("a=b/c?d"), "a%3Db%2Fc%3Fd");
}

TEST_F(HttpClient, ConnectSendAndReceiveMoveRawBytes) {
  server_->script("GET", "/raw", {answer(200, "raw body", {"X-Raw: 1"})});
  ASSERT_TRUE(client_->connect(get("/raw")).ok());
  auto sent = client_->send("GET /raw HTTP/1.1\r\nHost: x\r\n\r\n");
  ASSERT_TRUE(sent) << sent.error().message;
  std::string received;
  auto deadline = Clock::now() + std::chrono::seconds(2);
  while (received.find("\r\n\r\n") == std::string::npos && Clock::now() < deadline) {
    auto got = client_->receive(200, received);
    ASSERT_TRUE(got) << got.error().message;
  }
  EXPECT_TRUE(received.starts_with("HTTP/1.1 200 ")) << received;
  EXPECT_NE(received.find("X-Raw: 1\r\n"), std::string::npos) << received;
  // The server closes after its answer (Connection: close): the rest, then EPIPE.
  std::optional<core::Error> closed;
  while (!closed && Clock::now() < deadline) {
    auto got = client_->receive(200, received);
    if (!got) closed = got.error();
  }
  ASSERT_TRUE(closed.has_value()) << "no end of the connection seen: " << received;
  EXPECT_EQ(closed->code, EPIPE) << closed->message;
  EXPECT_TRUE(received.ends_with("\r\n\r\nraw body")) << received;
  auto requests = server_->requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].target, "/raw");
  EXPECT_EQ(requests[0].header("host"), "x");
}

// connect() gave libcurl an error buffer on its own stack. The handle lives on for send and
// receive, and libcurl writes their failures into that buffer: a connection that fails later
// must not write into whatever frame is there by then.
[[gnu::noinline]] core::Status connect_in_a_frame(Client& client, const Request& request) {
  return client.connect(request);
}

[[gnu::noinline]] bool failures_leave_this_frame_alone(Client& client) {
  // Where connect's frame was, a frame of this function's now lies; the canvas covers it.
  volatile unsigned char canvas[16384];
  for (auto& byte : canvas) byte = 0;
  std::string chunk(65536, 'x');
  bool failed = false;
  for (int i = 0; i < 100 && !failed; ++i) failed = !client.send(chunk).ok();
  EXPECT_TRUE(failed) << "sending to a closed connection never failed";
  for (auto& byte : canvas) {
    if (byte != 0) return false;
  }
  return true;
}

TEST_F(HttpClient, ALaterFailureOfAConnectionWritesNothingIntoTheStack) {
  server_->script("GET", "/raw", {answer(200, "raw body")});
  ASSERT_TRUE(connect_in_a_frame(*client_, get("/raw")).ok());
  ASSERT_TRUE(client_->send("GET /raw HTTP/1.1\r\nHost: x\r\n\r\n").ok());
  std::string received;
  auto deadline = Clock::now() + std::chrono::seconds(2);
  while (Clock::now() < deadline) {  // the answer, then the server's close
    auto got = client_->receive(200, received);
    if (!got) break;
  }
  EXPECT_TRUE(failures_leave_this_frame_alone(*client_));
}

TEST_F(HttpClient, ReceiveWithNothingThereIsFalse) {
  // A request the server has not finished reading: it says nothing until the body comes.
  ASSERT_TRUE(client_->connect(get("/raw")).ok());
  auto sent = client_->send("POST /raw HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n");
  ASSERT_TRUE(sent) << sent.error().message;
  std::string received;
  auto got = client_->receive(50, received);
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_FALSE(*got);
  EXPECT_EQ(received, "");
}

TEST_F(HttpClient, ConnectToAPortNothingListensOnIsAnError) {
  int port = paddock::testing::free_port();
  ASSERT_GT(port, 0);
  Request request;
  request.url = "http://127.0.0.1:" + std::to_string(port) + "/";
  EXPECT_FALSE(client_->connect(request).ok());
}

TEST(HttpClientRetryable, FiveHundredsAnd429AreRetryable) {
  for (long status : {500L, 502L, 503L, 504L, 429L}) {
    Response response;
    response.status = status;
    EXPECT_TRUE(retryable(response)) << status;
  }
  for (long status : {200L, 201L, 302L, 400L, 401L, 403L, 404L}) {
    Response response;
    response.status = status;
    EXPECT_FALSE(retryable(response)) << status;
  }
}

TEST(HttpClientRetryable, PassingTransportFailuresAreRetryable) {
  for (CURLcode code : {CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_OPERATION_TIMEDOUT,
                        CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING}) {
    Response response;
    response.transport = code;
    EXPECT_TRUE(retryable(response)) << curl_error(code);
  }
  Response interrupted;
  interrupted.interrupted = true;
  interrupted.status = 503;
  EXPECT_FALSE(retryable(interrupted)) << "the caller said stop";
}

TEST(HttpClientRetryable, BackoffStartsAt250MsAndDoubles) {
  EXPECT_EQ(backoff_ms(0), 250);
  EXPECT_EQ(backoff_ms(1), 500);
  EXPECT_EQ(backoff_ms(2), 1000);
}

}  // namespace
}  // namespace paddock::http::http_client_test
