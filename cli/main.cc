// `paddock`: the lean executable. It links only what starting a native sandbox needs; the
// commands that need libcurl, libarchive or libcrypto (import, pull, the container backends,
// doctor's look at them) are handed to paddock-full beside it (full_exec.cc).

#include "cli/available_backends.h"
#include "cli/dispatch.h"

int main(int argc, char** argv) {
  using namespace paddock;
  cli::set_available_backends(cli::builtin_backends());
  return cli::dispatch(argc, argv, cli::Executable{cli::exec_full_paddock, {}, false, {}, {}});
}
