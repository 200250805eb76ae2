#pragma once

// Whether something in a sandbox listens where a preview connects (its own 127.0.0.1:PORT), read
// from the kernel's socket tables of the sandbox's network namespace (/proc/PID/net/tcp and
// tcp6, as any process of the server's user may read them). Reading makes no connection: a
// session's app sees nothing, a frozen session needs no thaw, and the answer costs no wait. So
// expose_port and every listing say what is true at that moment, not what the preview's first
// probe saw (issue 55: "accepting: false" stayed after the app started).

#include <sys/types.h>

#include <cstdint>
#include <istream>
#include <string_view>

#include "core/result.h"

namespace paddock::net::preview {

// Whether `table` (the text of a /proc/.../net/tcp or tcp6 file) has a listening socket on
// `port` that a connection to 127.0.0.1:`port` reaches: bound to 127.0.0.1 or 0.0.0.0, or in
// tcp6 to :: (dual-stack unless the program set IPV6_V6ONLY, which the table does not show) or to
// ::ffff:127.0.0.1.
bool table_listens_on_loopback(std::istream& table, std::uint16_t port);
bool table_listens_on_loopback(std::string_view table, std::uint16_t port);

// The same for the network namespace of process `pid`, both tables.
core::Result<bool> listens_on_loopback(pid_t pid, std::uint16_t port);

}  // namespace paddock::net::preview
