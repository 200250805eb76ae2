// paddock-test-names: `paddock` for tests that reach local servers under names, e.g. a TLS
// server as tls.test. PADDOCK_EGRESS_TEST_RESOLVE=NAME=ADDRESS,... in this program's own
// environment (never a sandbox's) answers those names in its egress proxies instead of DNS
// (net/egress/name_resolver_testing.h). paddock itself has no such variable: the seam is here, in
// tests/, and this executable is never installed.

#include <algorithm>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>

#include "cli/audit_opener.h"
#include "cli/available_backends.h"
#include "cli/dispatch.h"
#include "cli/mcp_command.h"
#include "cli/tls_terminator_maker.h"
#include "net/egress/name_resolver_testing.h"

namespace {

std::map<std::string, std::string> names_from(std::string_view list) {
  std::map<std::string, std::string> names;
  while (!list.empty()) {
    std::string_view item = list.substr(0, list.find(','));
    list.remove_prefix(std::min(list.size(), item.size() + 1));
    auto equals = item.find('=');
    if (equals == std::string_view::npos) continue;
    names[std::string(item.substr(0, equals))] = std::string(item.substr(equals + 1));
  }
  return names;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace paddock;
  if (const char* list = std::getenv("PADDOCK_EGRESS_TEST_RESOLVE"); list != nullptr) {
    net::egress::answer_names_for_tests(names_from(list));
  }
  cli::set_available_backends(cli::builtin_backends());
  // It serves `mcp` itself rather than hand it to paddock-full, so that the proxies of an MCP
  // server's sandboxes answer the names too; only the native backend is here.
  return cli::dispatch(argc, argv,
                       cli::Executable{cli::exec_full_paddock, cli::mcp_command, true,
                                       cli::make_openssl_terminator, cli::open_audit_log});
}
