#include "net/preview/listening.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "core/unique_fd.h"

namespace paddock::net::preview::preview_listening_test {
namespace {

constexpr const char* kHeading =
    "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout "
    "inode\n";

// A row as the kernel prints it (x86_64, little-endian): only the fields read matter.
std::string row(const std::string& local, const std::string& state) {
  return "   0: " + local + " 00000000:0000 " + state +
         " 00000000:00000000 00:00000000 00000000  1000        0 12345 1 0000000000000000 100 0 0 "
         "10 0\n";
}

TEST(PreviewListening, ALoopbackOrAnyListenerOnThePortCounts) {
  EXPECT_TRUE(table_listens_on_loopback(std::string(kHeading) + row("0100007F:2328", "0A"), 9000));
  EXPECT_TRUE(table_listens_on_loopback(std::string(kHeading) + row("00000000:2328", "0A"), 9000));
  EXPECT_TRUE(table_listens_on_loopback(
      std::string(kHeading) + row("00000000000000000000000000000000:2328", "0A"), 9000));
  EXPECT_TRUE(table_listens_on_loopback(
      std::string(kHeading) + row("0000000000000000FFFF00000100007F:2328", "0A"), 9000));
}

TEST(PreviewListening, AnotherPortStateOrAddressDoesNot) {
  EXPECT_FALSE(table_listens_on_loopback(std::string(kHeading) + row("0100007F:2329", "0A"), 9000));
  // ESTABLISHED, and a connection's own end on the port: not a listener.
  EXPECT_FALSE(table_listens_on_loopback(std::string(kHeading) + row("0100007F:2328", "01"), 9000));
  // 127.0.0.2 and ::1 are not where a preview connects (127.0.0.1).
  EXPECT_FALSE(table_listens_on_loopback(std::string(kHeading) + row("0200007F:2328", "0A"), 9000));
  EXPECT_FALSE(table_listens_on_loopback(
      std::string(kHeading) + row("00000000000000000000000001000000:2328", "0A"), 9000));
  EXPECT_FALSE(table_listens_on_loopback(kHeading, 9000));
  EXPECT_FALSE(table_listens_on_loopback("", 9000));
  EXPECT_FALSE(table_listens_on_loopback("garbage\n:\n 0: x\n", 9000));
}

// The real table of this process's own namespace: a listener it opens is seen, and gone once
// closed.
TEST(PreviewListening, ReadsTheKernelsOwnTable) {
  core::UniqueFd listener(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  ASSERT_TRUE(listener.valid());
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(listener.get(), reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  socklen_t size = sizeof address;
  ASSERT_EQ(getsockname(listener.get(), reinterpret_cast<sockaddr*>(&address), &size), 0);
  auto port = ntohs(address.sin_port);
  auto before = listens_on_loopback(getpid(), port);
  ASSERT_TRUE(before) << before.error().message;
  EXPECT_FALSE(*before);  // bound, not listening
  ASSERT_EQ(listen(listener.get(), 1), 0);
  auto listening = listens_on_loopback(getpid(), port);
  ASSERT_TRUE(listening) << listening.error().message;
  EXPECT_TRUE(*listening);
  listener.reset();
  auto after = listens_on_loopback(getpid(), port);
  ASSERT_TRUE(after) << after.error().message;
  EXPECT_FALSE(*after);
}

}  // namespace
}  // namespace paddock::net::preview::preview_listening_test
