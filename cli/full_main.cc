// `paddock-full`: every command and every backend, with libcurl, libarchive and libcrypto
// linked. `paddock` hands over to it what needs them (see main.cc).

#include "cli/audit_opener.h"
#include "cli/available_backends.h"
#include "cli/container_backends.h"
#include "cli/dispatch.h"
#include "cli/image_command.h"
#include "cli/mcp_command.h"
#include "cli/tls_terminator_maker.h"

int main(int argc, char** argv) {
  using namespace paddock;
  cli::set_available_backends(cli::all_backends());
  return cli::dispatch(argc, argv,
                       cli::Executable{cli::image_transfer_command, cli::mcp_command, true,
                                       cli::make_openssl_terminator, cli::open_audit_log});
}
