#include "support/bpf_interpreter.h"

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <optional>
#include <vector>

namespace paddock::testing {
namespace {

// The opcodes seccomp_check_filter() (kernel/seccomp.c) lets through, after bpf_check_classic()
// (net/core/filter.c). Everything else makes the kernel refuse the program with EINVAL.
enum : std::uint16_t {
  kLdAbs = BPF_LD | BPF_W | BPF_ABS,
  kLdLen = BPF_LD | BPF_W | BPF_LEN,
  kLdxLen = BPF_LDX | BPF_W | BPF_LEN,
  kLdImm = BPF_LD | BPF_IMM,
  kLdxImm = BPF_LDX | BPF_IMM,
  kLdMem = BPF_LD | BPF_MEM,
  kLdxMem = BPF_LDX | BPF_MEM,
  kSt = BPF_ST,
  kStx = BPF_STX,
  kTax = BPF_MISC | BPF_TAX,
  kTxa = BPF_MISC | BPF_TXA,
  kRetK = BPF_RET | BPF_K,
  kRetA = BPF_RET | BPF_A,
  kJa = BPF_JMP | BPF_JA,
};

bool is_alu(std::uint16_t code) {
  if (BPF_CLASS(code) != BPF_ALU) return false;
  if (code == (BPF_ALU | BPF_NEG)) return true;
  switch (BPF_OP(code)) {
    case BPF_ADD:
    case BPF_SUB:
    case BPF_MUL:
    case BPF_DIV:
    case BPF_AND:
    case BPF_OR:
    case BPF_XOR:
    case BPF_LSH:
    case BPF_RSH:
      // BPF_MOD is valid classic BPF but seccomp refuses it, so it is deliberately absent.
      return (code & ~(BPF_OP(code) | BPF_SRC(code))) == BPF_ALU;
    default:
      return false;
  }
}

bool is_conditional_jump(std::uint16_t code) {
  if (BPF_CLASS(code) != BPF_JMP) return false;
  switch (BPF_OP(code)) {
    case BPF_JEQ:
    case BPF_JGT:
    case BPF_JGE:
    case BPF_JSET:
      return (code & ~(BPF_OP(code) | BPF_SRC(code))) == BPF_JMP;
    default:
      return false;
  }
}

bool is_known(std::uint16_t code) {
  switch (code) {
    case kLdAbs:
    case kLdLen:
    case kLdxLen:
    case kLdImm:
    case kLdxImm:
    case kLdMem:
    case kLdxMem:
    case kSt:
    case kStx:
    case kTax:
    case kTxa:
    case kRetK:
    case kRetA:
    case kJa:
      return true;
    default:
      return is_alu(code) || is_conditional_jump(code);
  }
}

std::string at(std::size_t pc, const sock_filter& insn, const std::string& what) {
  char buffer[96];
  std::snprintf(buffer, sizeof buffer, "instruction %zu {0x%04x, %u, %u, 0x%08x}: ", pc, insn.code,
                static_cast<unsigned>(insn.jt), static_cast<unsigned>(insn.jf), insn.k);
  return buffer + what;
}

// The checks of bpf_check_classic() and seccomp_check_filter() on one instruction.
std::string check_instruction(std::span<const sock_filter> program, std::size_t pc) {
  const sock_filter& insn = program[pc];
  const std::size_t remaining = program.size() - pc - 1;  // instructions after this one
  if (!is_known(insn.code)) return at(pc, insn, "opcode the kernel refuses in a seccomp filter");
  if (insn.code == kLdAbs && (insn.k >= sizeof(seccomp_data) || insn.k % 4 != 0)) {
    return at(pc, insn, "load outside struct seccomp_data or not 32-bit aligned");
  }
  if ((insn.code == kLdMem || insn.code == kLdxMem || insn.code == kSt || insn.code == kStx) &&
      insn.k >= BPF_MEMWORDS) {
    return at(pc, insn, "scratch memory slot out of range");
  }
  if (insn.code == (BPF_ALU | BPF_DIV | BPF_K) && insn.k == 0) {
    return at(pc, insn, "division by a zero constant");
  }
  if ((insn.code == (BPF_ALU | BPF_LSH | BPF_K) || insn.code == (BPF_ALU | BPF_RSH | BPF_K)) &&
      insn.k >= 32) {
    return at(pc, insn, "shift by 32 or more");
  }
  if (insn.code == kJa && insn.k >= remaining) return at(pc, insn, "jump past the end");
  if (is_conditional_jump(insn.code) && (insn.jt >= remaining || insn.jf >= remaining)) {
    return at(pc, insn, "conditional jump past the end");
  }
  return {};
}

// The kernel's check_load_and_stores(): on every path, a scratch slot is written before it is
// read. Jumps only go forward, so one pass in program order sees every predecessor first.
std::string check_scratch_memory(std::span<const sock_filter> program) {
  constexpr std::uint16_t kAllValid = 0xffff;
  std::vector<std::uint16_t> valid_on_entry(program.size(), kAllValid);
  std::uint16_t valid = 0;
  for (std::size_t pc = 0; pc < program.size(); ++pc) {
    const sock_filter& insn = program[pc];
    valid &= valid_on_entry[pc];
    if (insn.code == kSt || insn.code == kStx) {
      valid |= static_cast<std::uint16_t>(1u << insn.k);  // k < BPF_MEMWORDS, checked before
    } else if (insn.code == kLdMem || insn.code == kLdxMem) {
      if ((valid & (1u << insn.k)) == 0) {
        return at(pc, insn, "reads a scratch slot not written on all paths");
      }
    } else if (insn.code == kJa) {
      valid_on_entry[pc + 1 + insn.k] &= valid;
      valid = kAllValid;
    } else if (is_conditional_jump(insn.code)) {
      valid_on_entry[pc + 1 + insn.jt] &= valid;
      valid_on_entry[pc + 1 + insn.jf] &= valid;
      valid = kAllValid;
    }
  }
  return {};
}

std::uint32_t load_word(const seccomp_data& data, std::uint32_t offset) {
  std::uint32_t word = 0;
  std::memcpy(&word, reinterpret_cast<const unsigned char*>(&data) + offset, sizeof word);
  return word;
}

// The registers of the classic BPF machine.
struct Machine {
  std::uint32_t a = 0;
  std::uint32_t x = 0;
  std::array<std::uint32_t, BPF_MEMWORDS> memory{};
};

// A ← A op operand, 32-bit unsigned arithmetic as the kernel does it. Returns an error for what
// no kernel defines the same way, instead of picking one behaviour.
std::optional<std::string> apply_alu(Machine& m, std::uint16_t code, std::uint32_t operand) {
  switch (BPF_OP(code)) {
    case BPF_ADD:
      m.a += operand;
      break;
    case BPF_SUB:
      m.a -= operand;
      break;
    case BPF_MUL:
      m.a *= operand;
      break;
    case BPF_DIV:
      m.a /= operand;
      break;  // operand != 0, checked by the caller
    case BPF_AND:
      m.a &= operand;
      break;
    case BPF_OR:
      m.a |= operand;
      break;
    case BPF_XOR:
      m.a ^= operand;
      break;
    case BPF_LSH:
    case BPF_RSH:
      if (operand >= 32) return "shift by X >= 32, which kernels have handled differently";
      m.a = BPF_OP(code) == BPF_LSH ? m.a << operand : m.a >> operand;
      break;
    case BPF_NEG:
      m.a = 0u - m.a;
      break;
    default:
      return "unknown ALU operation";
  }
  return std::nullopt;
}

bool jump_taken(std::uint16_t code, std::uint32_t a, std::uint32_t operand) {
  switch (BPF_OP(code)) {
    case BPF_JEQ:
      return a == operand;
    case BPF_JGT:
      return a > operand;
    case BPF_JGE:
      return a >= operand;
    default:
      return (a & operand) != 0;  // BPF_JSET; the opcode was validated
  }
}

}  // namespace

std::string validate_seccomp_program(std::span<const sock_filter> program) {
  if (program.empty() || program.size() > BPF_MAXINSNS) {
    return "program length " + std::to_string(program.size()) + " outside 1.." +
           std::to_string(BPF_MAXINSNS);
  }
  for (std::size_t pc = 0; pc < program.size(); ++pc) {
    if (auto error = check_instruction(program, pc); !error.empty()) return error;
  }
  const sock_filter& last = program.back();
  if (last.code != kRetK && last.code != kRetA) {
    return at(program.size() - 1, last, "the last instruction is not a return");
  }
  return check_scratch_memory(program);
}

BpfOutcome interpret_seccomp_program(std::span<const sock_filter> program,
                                     const seccomp_data& data) {
  if (auto error = validate_seccomp_program(program); !error.empty()) return {0, error};
  Machine m;
  // Every jump goes forward and the last instruction returns, so this loop always ends.
  for (std::size_t pc = 0; pc < program.size(); ++pc) {
    const sock_filter& insn = program[pc];
    const std::uint16_t code = insn.code;
    if (code == kLdAbs) {
      m.a = load_word(data, insn.k);
    } else if (code == kLdLen || code == kLdxLen) {
      (code == kLdLen ? m.a : m.x) = static_cast<std::uint32_t>(sizeof(seccomp_data));
    } else if (code == kLdImm) {
      m.a = insn.k;
    } else if (code == kLdxImm) {
      m.x = insn.k;
    } else if (code == kLdMem) {
      m.a = m.memory[insn.k];
    } else if (code == kLdxMem) {
      m.x = m.memory[insn.k];
    } else if (code == kSt) {
      m.memory[insn.k] = m.a;
    } else if (code == kStx) {
      m.memory[insn.k] = m.x;
    } else if (code == kTax) {
      m.x = m.a;
    } else if (code == kTxa) {
      m.a = m.x;
    } else if (code == kRetK) {
      return {insn.k, {}};
    } else if (code == kRetA) {
      return {m.a, {}};
    } else if (code == kJa) {
      pc += insn.k;
    } else if (is_conditional_jump(code)) {
      const std::uint32_t operand = BPF_SRC(code) == BPF_X ? m.x : insn.k;
      pc += jump_taken(code, m.a, operand) ? insn.jt : insn.jf;
    } else {  // ALU, the only class left after validation
      const std::uint32_t operand = BPF_SRC(code) == BPF_X ? m.x : insn.k;
      // The kernel turns a classic division by a zero X into "return 0" (SECCOMP_RET_KILL_THREAD).
      if (BPF_OP(code) == BPF_DIV && operand == 0) return {0, {}};
      if (auto error = apply_alu(m, code, operand)) return {0, at(pc, insn, *error)};
    }
  }
  return {0, "ran past the last instruction"};  // unreachable after validation
}

std::uint32_t run_seccomp_filter(std::span<const sock_filter> program, const seccomp_data& data) {
  BpfOutcome outcome = interpret_seccomp_program(program, data);
  if (!outcome.ok()) {
    ADD_FAILURE() << "seccomp program cannot run (nr " << data.nr << ", arch 0x" << std::hex
                  << data.arch << "): " << outcome.error;
    return SECCOMP_RET_KILL_PROCESS;
  }
  return outcome.value;
}

seccomp_data make_seccomp_data(int nr, const std::array<std::uint64_t, 6>& args,
                               std::uint32_t arch) {
  seccomp_data data{};
  data.nr = nr;
  data.arch = arch;
  for (std::size_t i = 0; i < args.size(); ++i) data.args[i] = args[i];
  return data;
}

std::string describe_seccomp_ret(std::uint32_t ret) {
  const std::uint32_t data = seccomp_ret_data(ret);
  switch (seccomp_action(ret)) {
    case SECCOMP_RET_KILL_PROCESS:
      return "KILL_PROCESS";
    case SECCOMP_RET_KILL_THREAD:
      return "KILL_THREAD";
    case SECCOMP_RET_TRAP:
      return "TRAP(" + std::to_string(data) + ")";
    case SECCOMP_RET_ERRNO:
      return "ERRNO(" + std::to_string(data) + ")";
    case SECCOMP_RET_USER_NOTIF:
      return "USER_NOTIF";
    case SECCOMP_RET_TRACE:
      return "TRACE(" + std::to_string(data) + ")";
    case SECCOMP_RET_LOG:
      return "LOG";
    case SECCOMP_RET_ALLOW:
      return "ALLOW";
    default: {
      char buffer[32];
      std::snprintf(buffer, sizeof buffer, "unknown(0x%08x)", ret);
      return buffer;
    }
  }
}

}  // namespace paddock::testing
