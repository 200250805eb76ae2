#pragma once

// An exact interpreter for classic BPF seccomp programs, so that unit tests can ask what a
// compiled filter decides for a given system call without installing it in the kernel.
//
// It accepts exactly the instructions the kernel's seccomp_check_filter() accepts and nothing
// else: anything the kernel would refuse to load (an unknown opcode, a jump or a load out of
// range, a read of scratch memory never written, a division by zero, running off the end) is an
// error, never a guess.

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include <array>
#include <cstdint>
#include <span>
#include <string>

namespace paddock::testing {

// What running a program gave: the 32-bit value it returned, or why it could not run.
struct BpfOutcome {
  std::uint32_t value = 0;
  std::string error;  // empty when the program ran to a return instruction

  [[nodiscard]] bool ok() const { return error.empty(); }
};

// Checks the program as the kernel does when loading it (length 1..BPF_MAXINSNS, known opcodes,
// jumps inside the program, loads inside struct seccomp_data, scratch slots in range, constant
// divisors and shift amounts valid, last instruction a return). Empty string when it is valid.
std::string validate_seccomp_program(std::span<const sock_filter> program);

// Runs the program on `data`; the outcome holds the SECCOMP_RET_* value or an error.
BpfOutcome interpret_seccomp_program(std::span<const sock_filter> program,
                                     const seccomp_data& data);

// Runs the program on `data` and returns the SECCOMP_RET_* value. Any error is recorded as a
// failure of the current test (ADD_FAILURE) and SECCOMP_RET_KILL_PROCESS is returned, so a broken
// program can never pass a check silently.
std::uint32_t run_seccomp_filter(std::span<const sock_filter> program, const seccomp_data& data);

// A system call as the kernel describes it to the filter, for the native x86_64 ABI by default.
seccomp_data make_seccomp_data(int nr, const std::array<std::uint64_t, 6>& args = {},
                               std::uint32_t arch = AUDIT_ARCH_X86_64);

// The action and data halves of a SECCOMP_RET_* value.
constexpr std::uint32_t seccomp_action(std::uint32_t ret) {
  return ret & SECCOMP_RET_ACTION_FULL;
}
constexpr std::uint32_t seccomp_ret_data(std::uint32_t ret) {
  return ret & SECCOMP_RET_DATA;
}

// "ALLOW", "ERRNO(1)", "KILL_PROCESS", ... for readable failure messages.
std::string describe_seccomp_ret(std::uint32_t ret);

}  // namespace paddock::testing
