#pragma once

// What processes hold of the host's memory, from the host's /proc: the proportional set size
// (PSS), in which a page that N processes share counts 1/N to each. Summed over a sandbox's
// processes, it is what closing that sandbox would give back, which RSS overstates by every
// library page the host's other interpreters share with it.
//
// /proc/PID/smaps_rollup needs ptrace read access: a server has it over its sandboxes, whose
// user namespace it owns (or whose user it is).

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace paddock::native {

// The "Pss:" line of a smaps_rollup text, in bytes; none when it has none.
std::optional<std::uint64_t> pss_in_smaps_rollup(std::string_view rollup);

// The sum of the PSS of `pids`; one that ended meanwhile (or has no memory: a kernel thread, a
// zombie) counts nothing.
std::uint64_t proportional_set_size(const std::vector<pid_t>& pids,
                                    const std::string& proc = "/proc");

}  // namespace paddock::native
