#pragma once

// The server's own descriptor budget. Every connection a sandbox opens through its egress proxy
// costs the server two descriptors, and the proxies' cap is a share of the soft RLIMIT_NOFILE
// (net/egress/proxy.h), so the server starts with as many as the administrator allows: the soft
// limit raised to the hard one, as servers that hold many sockets do. Sandboxes get their own,
// lower limit from their shape (RLIMIT_NOFILE, 1024 by default) whatever this one is.

namespace paddock::cli {

// Raises the soft RLIMIT_NOFILE to the hard one; a failure leaves the limit as it was (the
// proxies' cap follows whatever it is).
void raise_open_file_limit();

}  // namespace paddock::cli
