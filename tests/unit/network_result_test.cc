// The network line of a result (mcp/network_result.h): a refused destination is said with the
// setting that would open it. A host outside the allowlist is opened by --allow-host or an
// answer; a reserved address (TEST-NET, private, loopback) only by --allow-private, which
// --allow-host does not replace (issue 55: the hint named --allow-host, which did not work).

#include <gtest/gtest.h>

#include "mcp/network_result.h"

namespace paddock::mcp::network_result_test {
namespace {

using net::egress::Destination;
using net::egress::EgressRecord;

const Destination kOutsideTheList{"example.org", 443, "it is not in the allowlist", ""};
const Destination kReserved{"registry.npmjs.org", 443,
                            "it resolves only to 203.0.113.80, in 203.0.113.0/24 (documentation "
                            "(TEST-NET-3))",
                            "--allow-private 203.0.113.80"};

TEST(NetworkResult, AHostOutsideTheAllowlistIsOpenedByAllowHost) {
  EgressRecord record;
  record.denied = {kOutsideTheList};
  EXPECT_EQ(network_lines(record),
            "network: refused example.org:443 (it is not in the allowlist). Only the user can "
            "allow a host (paddock mcp --allow-host, or --ask network with a client that "
            "supports MCP elicitation); tool arguments cannot.\n");
}

TEST(NetworkResult, AReservedAddressNamesTheAddressItsBlockAndAllowPrivate) {
  EgressRecord record;
  record.denied = {kReserved};
  std::string line = network_lines(record);
  EXPECT_EQ(line,
            "network: refused registry.npmjs.org:443 (it resolves only to 203.0.113.80, in "
            "203.0.113.0/24 (documentation (TEST-NET-3))). Only the user can open a reserved "
            "address (paddock mcp --allow-private 203.0.113.80, which loosens isolation); tool "
            "arguments cannot.\n");
  EXPECT_EQ(line.find("--allow-host"), std::string::npos);
  EXPECT_EQ(line.find("private"), line.find("--allow-private") + 8) << "not called private";
}

TEST(NetworkResult, BothKindsGetBothSettings) {
  EgressRecord record;
  record.denied = {kReserved, kOutsideTheList, kReserved};
  std::string line = network_lines(record);
  EXPECT_NE(line.find("(paddock mcp --allow-private 203.0.113.80, which"), std::string::npos)
      << line;
  EXPECT_NE(line.find("allow a host (paddock mcp --allow-host"), std::string::npos) << line;
  EXPECT_EQ(line.find("203.0.113.80, 203.0.113.80"), std::string::npos) << "said once";
}

}  // namespace
}  // namespace paddock::mcp::network_result_test
