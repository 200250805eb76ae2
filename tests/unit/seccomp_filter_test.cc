// The compiled default seccomp filter, run through an exact BPF interpreter: what it decides for
// the system calls that matter, that it agrees with the profile it came from for every system
// call number, and that it denies everything Docker's default profile denies.

#include "runtime/native/seccomp/seccomp_filter.h"

#include <gmock/gmock.h>
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <map>
#include <random>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/native/seccomp/default_seccomp_bpf.h"
#include "runtime/native/seccomp/seccomp_profile.h"
#include "support/bpf_interpreter.h"
#include "support/harness.h"

namespace seccomp_filter_test {
namespace {

namespace seccomp = paddock::seccomp;
namespace bpf = paddock::testing;
using Args = std::array<std::uint64_t, 6>;

constexpr std::uint64_t kMax = ~std::uint64_t{0};
constexpr std::uint32_t kEperm = SECCOMP_RET_ERRNO | EPERM;
constexpr std::uint32_t kEnosys = SECCOMP_RET_ERRNO | ENOSYS;

// --- The interpreter itself: the filter tests below are only as good as it is. ---

sock_filter stmt(std::uint16_t code, std::uint32_t k) {
  return BPF_STMT(code, k);
}
sock_filter jump(std::uint16_t code, std::uint32_t k, std::uint8_t jt, std::uint8_t jf) {
  return BPF_JUMP(code, k, jt, jf);
}

constexpr std::uint32_t offset_of_arg(unsigned index, bool high_half) {
  // Little-endian: the low 32 bits of args[i] come first.
  return static_cast<std::uint32_t>(offsetof(seccomp_data, args) + 8 * index + (high_half ? 4 : 0));
}

TEST(SeccompBpfInterpreterTest, LoadsEachFieldOfSeccompData) {
  const seccomp_data data = bpf::make_seccomp_data(
      231, {0x1111111122222222, 0x3333333344444444, 0, 0, 0, 0x5555555566666666}, 0xc000003e);
  auto load = [&](std::uint32_t offset) {
    const std::vector<sock_filter> program = {stmt(BPF_LD | BPF_W | BPF_ABS, offset),
                                              stmt(BPF_RET | BPF_A, 0)};
    return bpf::run_seccomp_filter(program, data);
  };
  EXPECT_EQ(load(offsetof(seccomp_data, nr)), 231u);
  EXPECT_EQ(load(offsetof(seccomp_data, arch)), 0xc000003eu);
  EXPECT_EQ(load(offset_of_arg(0, false)), 0x22222222u);
  EXPECT_EQ(load(offset_of_arg(0, true)), 0x11111111u);
  EXPECT_EQ(load(offset_of_arg(1, false)), 0x44444444u);
  EXPECT_EQ(load(offset_of_arg(1, true)), 0x33333333u);
  EXPECT_EQ(load(offset_of_arg(5, true)), 0x55555555u);
  EXPECT_EQ(load(offset_of_arg(5, false)), 0x66666666u);
}

TEST(SeccompBpfInterpreterTest, JumpsCompareUnsigned32Bits) {
  // if (nr > 10) { if (nr >= 0x80000000) return 3; return 2; } if (nr & 4) return 1; return 0;
  const std::vector<sock_filter> program = {stmt(BPF_LD | BPF_W | BPF_ABS, 0),
                                            jump(BPF_JMP | BPF_JGT | BPF_K, 10, 0, 3),
                                            jump(BPF_JMP | BPF_JGE | BPF_K, 0x80000000, 0, 1),
                                            stmt(BPF_RET | BPF_K, 3),
                                            stmt(BPF_RET | BPF_K, 2),
                                            jump(BPF_JMP | BPF_JSET | BPF_K, 4, 0, 1),
                                            stmt(BPF_RET | BPF_K, 1),
                                            stmt(BPF_RET | BPF_K, 0)};
  auto run = [&](int nr) { return bpf::run_seccomp_filter(program, bpf::make_seccomp_data(nr)); };
  EXPECT_EQ(run(11), 2u);
  EXPECT_EQ(run(10), 0u);
  EXPECT_EQ(run(4), 1u);
  EXPECT_EQ(run(5), 1u);
  EXPECT_EQ(run(3), 0u);
  EXPECT_EQ(run(-1), 3u);  // 0xffffffff: unsigned comparison
  EXPECT_EQ(run(0x7fffffff), 2u);
}

TEST(SeccompBpfInterpreterTest, AluRegistersAndScratchMemory) {
  // A = ((nr + 3) * 5) & 0xff | 0x100; M[2] = A; X = -A + 7; A = M[2] - X; A = A << 24 >> 24.
  const std::vector<sock_filter> program = {stmt(BPF_LD | BPF_W | BPF_ABS, 0),
                                            stmt(BPF_ALU | BPF_ADD | BPF_K, 3),
                                            stmt(BPF_ALU | BPF_MUL | BPF_K, 5),
                                            stmt(BPF_ALU | BPF_AND | BPF_K, 0xff),
                                            stmt(BPF_ALU | BPF_OR | BPF_K, 0x100),
                                            stmt(BPF_ST, 2),
                                            stmt(BPF_LDX | BPF_IMM, 7),
                                            stmt(BPF_ALU | BPF_NEG, 0),
                                            stmt(BPF_ALU | BPF_ADD | BPF_X, 0),
                                            stmt(BPF_MISC | BPF_TAX, 0),
                                            stmt(BPF_LD | BPF_MEM, 2),
                                            stmt(BPF_ALU | BPF_SUB | BPF_X, 0),
                                            stmt(BPF_ALU | BPF_LSH | BPF_K, 24),
                                            stmt(BPF_ALU | BPF_RSH | BPF_K, 24),
                                            stmt(BPF_RET | BPF_A, 0)};
  // nr 9: 0x13c; X = 0xfffffecb; A = 0x13c - X = 0x271 and the shifts drop the 2: all 32-bit.
  EXPECT_EQ(bpf::run_seccomp_filter(program, bpf::make_seccomp_data(9)), 0x71u);
}

TEST(SeccompBpfInterpreterTest, DivisionByZeroXReturnsZeroLikeTheKernel) {
  const std::vector<sock_filter> program = {stmt(BPF_LD | BPF_IMM, 10), stmt(BPF_LDX | BPF_IMM, 0),
                                            stmt(BPF_ALU | BPF_DIV | BPF_X, 0),
                                            stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
  EXPECT_EQ(bpf::run_seccomp_filter(program, bpf::make_seccomp_data(0)), 0u);
}

// Each of these the kernel refuses to load; the interpreter must refuse to run it too.
TEST(SeccompBpfInterpreterTest, RefusesWhatTheKernelRefuses) {
  const sock_filter ret = stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  const std::map<std::string, std::vector<sock_filter>> programs = {
      {"empty", {}},
      {"16-bit load", {stmt(BPF_LD | BPF_H | BPF_ABS, 0), ret}},
      {"modulo", {stmt(BPF_ALU | BPF_MOD | BPF_K, 3), ret}},
      {"unaligned load", {stmt(BPF_LD | BPF_W | BPF_ABS, 2), ret}},
      {"load past seccomp_data", {stmt(BPF_LD | BPF_W | BPF_ABS, sizeof(seccomp_data)), ret}},
      {"jump past the end", {jump(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0), ret}},
      {"JA past the end", {stmt(BPF_JMP | BPF_JA, 1), ret}},
      {"no final return", {ret, stmt(BPF_LD | BPF_IMM, 1)}},
      {"scratch read before write", {stmt(BPF_LD | BPF_MEM, 0), ret}},
      {"scratch slot 16", {stmt(BPF_ST, 16), ret}},
      {"divide by constant 0", {stmt(BPF_ALU | BPF_DIV | BPF_K, 0), ret}},
      {"shift by 32", {stmt(BPF_ALU | BPF_LSH | BPF_K, 32), ret}},
      {"scratch written on one path only",
       {stmt(BPF_LD | BPF_W | BPF_ABS, 0), jump(BPF_JMP | BPF_JEQ | BPF_K, 1, 0, 1),
        stmt(BPF_ST, 3), stmt(BPF_LD | BPF_MEM, 3), ret}},
  };
  for (const auto& [what, program] : programs) {
    const bpf::BpfOutcome outcome =
        bpf::interpret_seccomp_program(program, bpf::make_seccomp_data(1));
    EXPECT_FALSE(outcome.ok()) << what << " ran and returned " << outcome.value;
  }
  const std::vector<sock_filter> too_long(BPF_MAXINSNS + 1, ret);
  EXPECT_FALSE(bpf::interpret_seccomp_program(too_long, bpf::make_seccomp_data(1)).ok());
}

TEST(SeccompBpfInterpreterTest, RunningABrokenProgramFailsTheTest) {
  const std::vector<sock_filter> broken = {stmt(BPF_LD | BPF_B | BPF_IND, 0),
                                           stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
  std::uint32_t ret = 0;
  EXPECT_NONFATAL_FAILURE(ret = bpf::run_seccomp_filter(broken, bpf::make_seccomp_data(0)),
                          "opcode the kernel refuses");
  EXPECT_EQ(ret, SECCOMP_RET_KILL_PROCESS);  // never ALLOW
}

// --- The programs under test. ---

std::vector<sock_filter> compile_default_profile() {
  auto profile = seccomp::default_profile();
  if (!profile.ok()) {
    ADD_FAILURE() << "default profile: " << profile.error().message;
    return {};  // an empty program fails every check that runs it
  }
  auto program = seccomp::compile(*profile);
  if (!program.ok()) {
    ADD_FAILURE() << "compiling the default profile: " << program.error().message;
    return {};
  }
  return program->instructions;
}

std::span<const sock_filter> compiled_default() {
  static const std::vector<sock_filter> program = compile_default_profile();
  return program;
}

struct NamedProgram {
  const char* name;
  std::span<const sock_filter> instructions;
};

// Every check runs on the fresh compile and on the copy embedded at build time, which is the
// one a sandbox actually loads.
std::vector<NamedProgram> programs_under_test() {
  return {{"compile(default_profile())", compiled_default()},
          {"default_bpf()", seccomp::default_bpf()}};
}

TEST(SeccompFilterTest, EmbeddedProgramEqualsAFreshCompile) {
  std::span<const sock_filter> fresh = compiled_default();
  std::span<const sock_filter> embedded = seccomp::default_bpf();
  ASSERT_FALSE(fresh.empty());
  ASSERT_EQ(embedded.size(), fresh.size());
  for (std::size_t i = 0; i < fresh.size(); ++i) {
    EXPECT_EQ(embedded[i].code, fresh[i].code) << "instruction " << i;
    EXPECT_EQ(embedded[i].jt, fresh[i].jt) << "instruction " << i;
    EXPECT_EQ(embedded[i].jf, fresh[i].jf) << "instruction " << i;
    EXPECT_EQ(embedded[i].k, fresh[i].k) << "instruction " << i;
  }
  // And so do its quiet refusals, which a run takes from beside it.
  auto profile = seccomp::default_profile();
  ASSERT_TRUE(profile.ok());
  std::vector<std::string> quiet;
  for (const char* name : seccomp::default_bpf_quiet_refusals()) quiet.emplace_back(name);
  EXPECT_EQ(quiet, profile->quiet_refusals);
  EXPECT_FALSE(quiet.empty());
}

TEST(SeccompFilterTest, ProgramsPassTheKernelsLoadChecks) {
  for (const auto& program : programs_under_test()) {
    EXPECT_EQ(bpf::validate_seccomp_program(program.instructions), "") << program.name;
  }
}

#if defined(__x86_64__)
// The rest describes the x86_64 system call table and ABI.

std::string describe_call(int nr, const Args& args) {
  std::ostringstream text;
  char* name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_X86_64, nr);
  text << (name != nullptr ? name : "?") << " (" << nr << ") args {" << std::hex;
  std::free(name);
  for (std::uint64_t arg : args) text << " 0x" << arg;
  text << " }";
  return text.str();
}

// Checks what every program under test returns for this call.
void expect_ret(std::uint32_t expected, int nr, const Args& args = {},
                std::uint32_t arch = AUDIT_ARCH_X86_64) {
  for (const auto& program : programs_under_test()) {
    const std::uint32_t ret =
        bpf::run_seccomp_filter(program.instructions, bpf::make_seccomp_data(nr, args, arch));
    EXPECT_EQ(bpf::describe_seccomp_ret(ret), bpf::describe_seccomp_ret(expected))
        << program.name << ": " << describe_call(nr, args) << " arch 0x" << std::hex << arch;
  }
}

void expect_not_allowed(int nr, const Args& args, const std::string& why) {
  for (const auto& program : programs_under_test()) {
    const std::uint32_t ret =
        bpf::run_seccomp_filter(program.instructions, bpf::make_seccomp_data(nr, args));
    EXPECT_NE(bpf::seccomp_action(ret), SECCOMP_RET_ALLOW)
        << program.name << ": " << describe_call(nr, args) << " is allowed, but " << why;
  }
}

// Argument patterns for calls that must be refused whatever their arguments.
std::vector<Args> assorted_args() {
  std::vector<Args> patterns = {
      {},
      {kMax, kMax, kMax, kMax, kMax, kMax},
      {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
      {1, 1, 1, 1, 1, 1},
      {0x7ffc12345678, 0x1000, 3, 0, 0x7f0000000000, 0},
  };
  std::mt19937_64 random(1234);
  for (int i = 0; i < 4; ++i) {
    patterns.push_back({random(), random(), random(), random(), random(), random()});
  }
  return patterns;
}

constexpr std::uint32_t kX32SyscallBit = 0x40000000;  // __X32_SYSCALL_BIT
constexpr std::uint64_t kThreadFlags = 0x3d0f00;      // what glibc's pthread_create passes to clone

static_assert(kThreadFlags ==
              (CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM |
               CLONE_SETTLS | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID));

TEST(SeccompFilterTest, OtherArchitecturesKillTheProcess) {
  for (std::uint32_t arch : std::initializer_list<std::uint32_t>{AUDIT_ARCH_I386, AUDIT_ARCH_ARM,
                                                                 AUDIT_ARCH_AARCH64, 0u}) {
    for (int nr : {__NR_read, __NR_write, __NR_execve, __NR_exit_group}) {
      expect_ret(SECCOMP_RET_KILL_PROCESS, nr, {}, arch);
    }
  }
}

// x32 system calls arrive with arch AUDIT_ARCH_X86_64 and __X32_SYSCALL_BIT set in the number.
TEST(SeccompFilterTest, X32SystemCallsKillTheProcess) {
  for (int nr : {__NR_read, __NR_write, __NR_openat, __NR_exit_group, 520 /* x32 execve */,
                 545 /* x32 execveat */}) {
    expect_ret(SECCOMP_RET_KILL_PROCESS, static_cast<int>(nr | kX32SyscallBit));
  }
}

TEST(SeccompFilterTest, CommonSystemCallsAreAllowed) {
  for (int nr : {__NR_read,          __NR_write,        __NR_openat,          __NR_close,
                 __NR_mmap,          __NR_munmap,       __NR_mprotect,        __NR_brk,
                 __NR_futex,         __NR_execve,       __NR_exit_group,      __NR_exit,
                 __NR_rseq,          __NR_rt_sigaction, __NR_rt_sigprocmask,  __NR_rt_sigreturn,
                 __NR_newfstatat,    __NR_fstat,        __NR_getdents64,      __NR_pipe2,
                 __NR_dup3,          __NR_wait4,        __NR_getpid,          __NR_gettid,
                 __NR_clock_gettime, __NR_getrandom,    __NR_set_tid_address, __NR_set_robust_list,
                 __NR_prlimit64,     __NR_arch_prctl,   __NR_fcntl,           __NR_lseek,
                 __NR_epoll_wait,    __NR_poll,         __NR_connect,         __NR_sendto,
                 __NR_recvfrom,      __NR_uname,        __NR_getcwd,          __NR_madvise}) {
    expect_ret(SECCOMP_RET_ALLOW, nr);
    expect_ret(SECCOMP_RET_ALLOW, nr, {3, 0x7ffc12345678, 4096, 0, 0, 0});
  }
}

TEST(SeccompFilterTest, CloneForThreadsAndForkIsAllowed) {
  expect_ret(SECCOMP_RET_ALLOW, __NR_clone, {kThreadFlags, 0x7f0000001000, 0x7f0000002000});
  expect_ret(SECCOMP_RET_ALLOW, __NR_clone, {SIGCHLD});                           // fork()
  expect_ret(SECCOMP_RET_ALLOW, __NR_clone, {CLONE_VM | CLONE_VFORK | SIGCHLD});  // posix_spawn
  expect_ret(SECCOMP_RET_ALLOW, __NR_clone, {0});
}

TEST(SeccompFilterTest, DangerousSystemCallsFailWithEperm) {
  const std::map<std::string, int> calls = {
      {"keyctl", __NR_keyctl},
      {"add_key", __NR_add_key},
      {"request_key", __NR_request_key},
      {"bpf", __NR_bpf},
      {"perf_event_open", __NR_perf_event_open},
      {"userfaultfd", __NR_userfaultfd},
      {"io_uring_setup", __NR_io_uring_setup},
      {"io_uring_enter", __NR_io_uring_enter},
      {"io_uring_register", __NR_io_uring_register},
      {"kexec_load", __NR_kexec_load},
      {"kexec_file_load", __NR_kexec_file_load},
      {"init_module", __NR_init_module},
      {"finit_module", __NR_finit_module},
      {"delete_module", __NR_delete_module},
      {"mount", __NR_mount},
      {"umount2", __NR_umount2},
      {"pivot_root", __NR_pivot_root},
      {"move_mount", __NR_move_mount},
      {"fsopen", __NR_fsopen},
      {"fsmount", __NR_fsmount},
      {"fsconfig", __NR_fsconfig},
      {"fspick", __NR_fspick},
      {"open_tree", __NR_open_tree},
      {"mount_setattr", __NR_mount_setattr},
      {"chroot", __NR_chroot},
      {"unshare", __NR_unshare},
      {"setns", __NR_setns},
      {"ptrace", __NR_ptrace},
      {"process_vm_readv", __NR_process_vm_readv},
      {"process_vm_writev", __NR_process_vm_writev},
      {"kcmp", __NR_kcmp},
      {"pidfd_getfd", __NR_pidfd_getfd},
      {"open_by_handle_at", __NR_open_by_handle_at},
      {"modify_ldt", __NR_modify_ldt},
      {"iopl", __NR_iopl},
      {"ioperm", __NR_ioperm},
      {"reboot", __NR_reboot},
      {"swapon", __NR_swapon},
      {"syslog", __NR_syslog},
      {"settimeofday", __NR_settimeofday},
      {"clock_settime", __NR_clock_settime},
      {"mbind", __NR_mbind},
      {"set_mempolicy", __NR_set_mempolicy},
      {"move_pages", __NR_move_pages},
  };
  for (const auto& [name, nr] : calls) {
    SCOPED_TRACE(name);
    // The kernel headers and libseccomp agree on the number, or the filter names the wrong call.
    EXPECT_EQ(seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86_64, name.c_str()), nr);
    for (const Args& args : assorted_args()) expect_ret(kEperm, nr, args);
  }
}

// A sibling of the caller (CLONE_PARENT) would be the child of the caller's parent: in a live
// session, of the kernel's bridge, whose children every sweep spares.
TEST(SeccompFilterTest, CloneAsASiblingFailsWithEperm) {
  expect_ret(kEperm, __NR_clone, {CLONE_PARENT | SIGCHLD});
  expect_ret(kEperm, __NR_clone, {CLONE_PARENT | CLONE_VM | CLONE_VFORK | SIGCHLD});
}

TEST(SeccompFilterTest, CloneIntoANewNamespaceFailsWithEperm) {
  for (std::uint64_t flag :
       std::initializer_list<std::uint64_t>{CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWPID, CLONE_NEWNET,
                                            CLONE_NEWIPC, CLONE_NEWUTS, CLONE_NEWCGROUP}) {
    SCOPED_TRACE(flag);
    expect_ret(kEperm, __NR_clone, {flag});
    expect_ret(kEperm, __NR_clone, {flag | SIGCHLD});
    expect_ret(kEperm, __NR_clone, {flag | kThreadFlags, 0x7f0000001000});
    expect_ret(kEperm, __NR_clone, {flag | 0x100000000 | SIGCHLD});  // junk above 32 bits too
  }
  expect_ret(kEperm, __NR_clone, {CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET});
}

// clone3 passes its flags in memory seccomp cannot read; ENOSYS sends glibc back to clone().
TEST(SeccompFilterTest, Clone3FailsWithEnosys) {
  for (const Args& args : assorted_args()) expect_ret(kEnosys, __NR_clone3, args);
}

TEST(SeccompFilterTest, IoctlTerminalInjectionIsRefused) {
  static_assert(TIOCSTI == 0x5412 && TIOCLINUX == 0x541c);
  // The kernel reads the request as 32 bits, so junk above them must not smuggle TIOCSTI in.
  for (std::uint64_t request : std::initializer_list<std::uint64_t>{
           0x5412ULL, 0x541cULL, 0x1'0000'5412ULL, 0x1'0000'541cULL, 0xffffffff'00005412ULL,
           0x80000000'00005412ULL}) {
    expect_ret(kEperm, __NR_ioctl, {0, request});
    expect_ret(kEperm, __NR_ioctl, {1, request, 0x7ffc12345678});
  }
}

TEST(SeccompFilterTest, OtherIoctlsAreAllowed) {
  static_assert(TIOCGWINSZ == 0x5413 && FIONREAD == 0x541b);
  for (std::uint64_t request : std::initializer_list<std::uint64_t>{
           0x5413ULL, 0x541bULL, 0x5420ULL, 0x5411ULL, 0x541dULL, 0ULL, 0xffffffffULL,
           0x80086601ULL /* FS_IOC_GETFLAGS */, 0xffffffff80086601ULL /* the same, sign-extended */,
           0xffffffff80000000ULL, kMax}) {
    expect_ret(SECCOMP_RET_ALLOW, __NR_ioctl, {1, request});
  }
}

TEST(SeccompFilterTest, SocketFamilies) {
  static_assert(AF_UNIX == 1 && AF_INET == 2 && AF_INET6 == 10 && AF_NETLINK == 16 &&
                AF_ALG == 38 && AF_VSOCK == 40);
  for (std::uint64_t family : std::initializer_list<std::uint64_t>{
           1ULL, 2ULL, 10ULL, 16ULL, 17ULL /* AF_PACKET */, 37ULL, 39ULL, 41ULL, 0ULL}) {
    expect_ret(SECCOMP_RET_ALLOW, __NR_socket, {family, SOCK_STREAM, 0});
  }
  for (std::uint64_t family :
       std::initializer_list<std::uint64_t>{38ULL, 40ULL, 38ULL | 1ULL << 32, 40ULL | 1ULL << 32,
                                            0xffffffff'00000026ULL, 1ULL | 1ULL << 32, kMax}) {
    expect_ret(kEperm, __NR_socket, {family, SOCK_STREAM, 0});
  }
}

TEST(SeccompFilterTest, PersonalityMayOnlyQueryOrSetPlainLinux) {
  static_assert(ADDR_NO_RANDOMIZE == 0x0040000);
  expect_ret(SECCOMP_RET_ALLOW, __NR_personality, {0});
  expect_ret(SECCOMP_RET_ALLOW, __NR_personality, {0xffffffff});
  for (std::uint64_t persona : std::initializer_list<std::uint64_t>{
           std::uint64_t{ADDR_NO_RANDOMIZE}, std::uint64_t{READ_IMPLIES_EXEC},
           std::uint64_t{PER_LINUX32}, std::uint64_t{UNAME26}, 0x100000000ULL,
           0xffffffff'ffffffffULL, 1ULL}) {
    expect_ret(kEperm, __NR_personality, {persona});
  }
}

// --- The filter agrees with the profile it was compiled from, for every system call. ---

// The SECCOMP_RET_* value of a profile action.
std::uint32_t ret_of(const seccomp::Action& action) {
  switch (action.kind) {
    case seccomp::Action::Kind::kAllow:
      return SECCOMP_RET_ALLOW;
    case seccomp::Action::Kind::kErrno:
      return SECCOMP_RET_ERRNO | static_cast<std::uint32_t>(action.errno_value);
    case seccomp::Action::Kind::kKillProcess:
      return SECCOMP_RET_KILL_PROCESS;
    case seccomp::Action::Kind::kKillThread:
      return SECCOMP_RET_KILL_THREAD;
    case seccomp::Action::Kind::kTrap:
      return SECCOMP_RET_TRAP;
    case seccomp::Action::Kind::kLog:
      return SECCOMP_RET_LOG;
  }
  return SECCOMP_RET_KILL_PROCESS;
}

bool holds(const seccomp::ArgCondition& c, std::uint64_t v) {
  switch (c.op) {
    case seccomp::CompareOp::kNotEqual:
      return v != c.value;
    case seccomp::CompareOp::kLess:
      return v < c.value;
    case seccomp::CompareOp::kLessOrEqual:
      return v <= c.value;
    case seccomp::CompareOp::kEqual:
      return v == c.value;
    case seccomp::CompareOp::kGreaterOrEqual:
      return v >= c.value;
    case seccomp::CompareOp::kGreater:
      return v > c.value;
    case seccomp::CompareOp::kMaskedEqual:
      return (v & c.value) == c.value_two;
  }
  return false;
}

bool rule_matches(const seccomp::Rule& rule, const Args& args) {
  return std::all_of(rule.args.begin(), rule.args.end(),
                     [&](const seccomp::ArgCondition& c) { return holds(c, args[c.index]); });
}

// The rules of a profile by x86_64 system call number, as libseccomp numbers them.
std::map<int, std::vector<const seccomp::Rule*>> rules_by_number(const seccomp::Profile& profile) {
  std::map<int, std::vector<const seccomp::Rule*>> rules;
  for (const auto& rule : profile.rules) {
    for (const auto& name : rule.names) {
      int nr = seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86_64, name.c_str());
      if (nr >= 0) rules[nr].push_back(&rule);
    }
  }
  return rules;
}

// What the profile says about one call, straight from its definition: the action of the rules
// that match, else the default.
std::uint32_t profile_decision(const seccomp::Profile& profile,
                               const std::vector<const seccomp::Rule*>& rules, const Args& args) {
  std::set<std::uint32_t> decisions;
  for (const auto* rule : rules) {
    if (rule_matches(*rule, args)) decisions.insert(ret_of(rule->action));
  }
  // Rules with different actions matching one call would leave the outcome to libseccomp's
  // precedence; the default profile has none, and this oracle does not model it.
  EXPECT_LE(decisions.size(), 1u) << "conflicting rules";
  return decisions.empty() ? ret_of(profile.default_action) : *decisions.begin();
}

// Argument values at every boundary of the rules for one call, plus the assorted patterns.
std::vector<Args> boundary_args(const std::vector<const seccomp::Rule*>& rules) {
  std::vector<Args> patterns = assorted_args();
  for (const auto* rule : rules) {
    for (const auto& c : rule->args) {
      for (std::uint64_t v : std::initializer_list<std::uint64_t>{
               c.value - 1, c.value, c.value + 1, c.value_two, c.value_two | ~c.value,
               c.value | (1ULL << 32), c.value | 0xffffffff'00000000ULL}) {
        Args args{};
        args[c.index] = v;
        patterns.push_back(args);
      }
    }
  }
  return patterns;
}

TEST(SeccompFilterTest, EveryCallNumberGetsWhatTheProfileSays) {
  auto profile = seccomp::default_profile();
  ASSERT_TRUE(profile.ok()) << profile.error().message;
  const auto rules = rules_by_number(*profile);
  // Past the end of the table (unknown to libseccomp, future kernels) the default must hold,
  // and so for -1, which libseccomp lets past its x32 check (a tracer's "skip this call").
  std::vector<int> numbers = {-1, static_cast<int>(kX32SyscallBit - 1)};
  for (int nr = 0; nr < 1024; ++nr) numbers.push_back(nr);
  const std::vector<const seccomp::Rule*> none;
  for (int nr : numbers) {
    auto found = rules.find(nr);
    const auto& its_rules = found == rules.end() ? none : found->second;
    for (const Args& args : boundary_args(its_rules)) {
      expect_ret(profile_decision(*profile, its_rules, args), nr, args);
    }
    if (HasFailure()) return;  // one wrong call is enough to read
  }
}

// --- Docker's default profile denies it, so must we. ---

// Docker's rules for one system call, for a process without capabilities on amd64.
struct DockerVerdict {
  bool unconditional = false;                  // an ALLOW rule without arguments names it
  std::vector<const seccomp::Rule*> allowing;  // every ALLOW rule that names it
  [[nodiscard]] bool denied_outright() const { return allowing.empty(); }
  [[nodiscard]] bool allows(const Args& args) const {
    return unconditional || std::any_of(allowing.begin(), allowing.end(), [&](const auto* rule) {
             return rule_matches(*rule, args);
           });
  }
};

std::map<std::string, DockerVerdict> docker_verdicts(const seccomp::Profile& docker) {
  std::map<std::string, DockerVerdict> verdicts;
  for (const auto& rule : docker.rules) {
    if (rule.action.kind != seccomp::Action::Kind::kAllow) continue;
    for (const auto& name : rule.names) {
      verdicts[name].allowing.push_back(&rule);
      if (rule.args.empty()) verdicts[name].unconditional = true;
    }
  }
  return verdicts;
}

// Every x86_64 system call libseccomp knows, by number.
std::map<int, std::string> x86_64_table() {
  std::map<int, std::string> table;
  for (int nr = 0; nr < 512; ++nr) {  // 512 and up are the x32 entries
    char* name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_X86_64, nr);
    if (name != nullptr) table[nr] = name;
    std::free(name);
  }
  return table;
}

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot read " << path;
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string docker_denied_list() {
  return paddock::testing::source_dir() + "/tests/data/docker-denied-syscalls-amd64.txt";
}

// Docker's own profile is Docker's, so it is not part of this repository: it is read from the
// shared reference data beside the checkout (or PADDOCK_SECCOMP_REFERENCE), and the tests that
// need it fail, saying where they looked, when it is missing.
std::string docker_profile_path() {
  if (const char* path = std::getenv("PADDOCK_SECCOMP_REFERENCE"); path != nullptr && *path) {
    return path;
  }
  return paddock::testing::source_dir() + "/../shared/reference/docker-seccomp-default.json";
}

// The list was made from Docker's profile (see
// DockerDeniedListMatchesTheReferenceProfile).
TEST(SeccompFilterTest, DeniesEverySystemCallDockerDeniesOutright) {
  const std::vector<std::string> names = read_lines(docker_denied_list());
  ASSERT_GE(names.size(), 50u) << docker_denied_list();
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end())) << docker_denied_list();
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size())
      << "duplicates in " << docker_denied_list();
  for (const std::string& name : names) {
    const int nr = seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86_64, name.c_str());
    // The list was made with libseccomp 2.5.4; an older one may not know every name.
    EXPECT_GE(nr, 0) << name << " is not an x86_64 system call libseccomp knows";
    if (nr < 0) continue;
    for (const Args& args : assorted_args()) expect_not_allowed(nr, args, "Docker denies it");
  }
}

seccomp::Profile docker_profile() {
  // Read with our own parser, for amd64 and the running kernel (minKernel), no capabilities.
  const seccomp::Platform here = seccomp::this_platform();
  std::ifstream in(docker_profile_path());
  EXPECT_TRUE(in.good()) << "cannot read " << docker_profile_path();
  std::stringstream text;
  text << in.rdbuf();
  auto parsed = seccomp::parse_profile(text.str(), docker_profile_path(),
                                       {"amd64", here.kernel_major, here.kernel_minor});
  EXPECT_TRUE(parsed.ok()) << parsed.error().message;
  return parsed.ok() ? *parsed : seccomp::Profile{};
}

// The x86_64 names Docker denies outright: no ALLOW rule names them, with or without arguments.
std::vector<std::string> docker_denied_names(const seccomp::Profile& docker) {
  const auto verdicts = docker_verdicts(docker);
  std::vector<std::string> denied;
  for (const auto& [nr, name] : x86_64_table()) {
    auto found = verdicts.find(name);
    if (found == verdicts.end() || found->second.denied_outright()) denied.push_back(name);
  }
  std::sort(denied.begin(), denied.end());
  return denied;
}

TEST(SeccompFilterTest, DockerDeniedListMatchesTheReferenceProfile) {
  const seccomp::Profile docker = docker_profile();
  ASSERT_FALSE(docker.rules.empty());
  const std::vector<std::string> expected = docker_denied_names(docker);
  std::string expected_text;
  for (const auto& name : expected) expected_text += name + "\n";
  EXPECT_EQ(read_lines(docker_denied_list()), expected) << docker_denied_list() << " should read:\n"
                                                        << expected_text;
}

// Intentional differences, all in the stricter direction (we deny what Docker allows):
//   ptrace, process_vm_readv, process_vm_writev (Docker allows them on kernels >= 4.8),
//   modify_ldt, fanotify_mark, epoll_ctl_old, epoll_wait_old;
//   personality(PER_LINUX32 = 8, UNAME26 = 0x20000 and their union), which Docker allows;
//   socket() families above 2^32, which Docker's "> 40" lets through but the kernel truncates
//   to 32 bits (38 | 1 << 32 is AF_ALG to the kernel);
//   ioctl, which Docker allows outright, without TIOCSTI and TIOCLINUX.
// There is no call that Docker denies and we allow.
TEST(SeccompFilterTest, DeniesEveryCallNumberDockerDeniesOutright) {
  const seccomp::Profile docker = docker_profile();
  ASSERT_FALSE(docker.rules.empty());
  const auto verdicts = docker_verdicts(docker);
  std::size_t checked = 0;
  for (const auto& [nr, name] : x86_64_table()) {
    auto found = verdicts.find(name);
    if (found != verdicts.end() && !found->second.denied_outright()) continue;
    ++checked;
    for (const Args& args : assorted_args()) {
      expect_not_allowed(nr, args, "Docker denies it outright");
    }
  }
  EXPECT_GE(checked, 50u);  // the comparison compared something
}

// Values worth trying for a call Docker allows only with some arguments: each boundary of its
// conditions, each flag of a mask alone, and the usual edges.
std::vector<Args> docker_condition_probes(const DockerVerdict& verdict) {
  std::vector<Args> probes = assorted_args();
  for (const auto* rule : verdict.allowing) {
    for (const auto& c : rule->args) {
      std::vector<std::uint64_t> values = {0,           1,
                                           c.value - 1, c.value,
                                           c.value + 1, c.value | 1ULL << 32,
                                           0xffffffff,  0xffffffff'00000000ULL | c.value,
                                           kMax};
      for (unsigned bit = 0; bit < 64; ++bit) {
        if (c.op == seccomp::CompareOp::kMaskedEqual && (c.value >> bit & 1) != 0) {
          values.push_back(1ULL << bit);
          values.push_back(1ULL << bit | 0x3d0f00);  // the flag on top of thread flags
        }
      }
      for (std::uint64_t v : values) {
        Args args{};
        args[c.index] = v;
        probes.push_back(args);
      }
    }
  }
  return probes;
}

TEST(SeccompFilterTest, DeniesEveryArgumentDockerDenies) {
  const seccomp::Profile docker = docker_profile();
  ASSERT_FALSE(docker.rules.empty());
  const auto table = x86_64_table();
  std::size_t conditional_calls = 0;
  for (const auto& [name, verdict] : docker_verdicts(docker)) {
    if (verdict.unconditional || verdict.denied_outright()) continue;
    const int nr = seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86_64, name.c_str());
    if (nr < 0 || !table.contains(nr)) continue;
    ++conditional_calls;
    std::size_t denied_probes = 0;
    for (const Args& args : docker_condition_probes(verdict)) {
      if (verdict.allows(args)) continue;
      ++denied_probes;
      expect_not_allowed(nr, args, "Docker denies these arguments");
    }
    EXPECT_GE(denied_probes, 3u) << name << ": the probes hardly test anything";
  }
  EXPECT_GE(conditional_calls, 3u);  // clone, socket, personality at least
}

#endif  // __x86_64__

}  // namespace
}  // namespace seccomp_filter_test
