#include "runtime/native/init/seccomp_notify.h"

#include <cerrno>
#include <cstdint>
#include <cstring>

namespace paddock::seccomp {
namespace {

bool returns_errno(const sock_filter& insn) {
  // ERRNO(0) fakes a success: it is no refusal, and stays as it is.
  return BPF_CLASS(insn.code) == BPF_RET && BPF_RVAL(insn.code) == BPF_K &&
         (insn.k & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_ERRNO &&
         (insn.k & SECCOMP_RET_DATA) != 0;
}

// A 32-bit word of seccomp_data at `offset`, as the kernel's BPF_LD|BPF_W|BPF_ABS reads it.
bool load_word(const seccomp_data& data, std::uint32_t offset, std::uint32_t* word) {
  if (offset % 4 != 0 || offset + 4 > sizeof data) return false;
  std::memcpy(word, reinterpret_cast<const char*>(&data) + offset, 4);
  return true;
}

// BPF_ALU's operation `op` on the accumulator: false for one seccomp does not accept, or a
// division by zero.
bool apply_alu(std::uint32_t op, std::uint32_t operand, std::uint32_t& a) {
  switch (op) {
    case BPF_ADD:
      a += operand;
      break;
    case BPF_SUB:
      a -= operand;
      break;
    case BPF_MUL:
      a *= operand;
      break;
    case BPF_DIV:
      if (operand == 0) return false;
      a /= operand;
      break;
    case BPF_MOD:
      if (operand == 0) return false;
      a %= operand;
      break;
    case BPF_AND:
      a &= operand;
      break;
    case BPF_OR:
      a |= operand;
      break;
    case BPF_XOR:
      a ^= operand;
      break;
    case BPF_LSH:
      a = operand < 32 ? a << operand : 0;
      break;
    case BPF_RSH:
      a = operand < 32 ? a >> operand : 0;
      break;
    case BPF_NEG:
      a = 0u - a;
      break;
    default:
      return false;
  }
  return true;
}

// Whether BPF_JMP's conditional `op` jumps: false for one seccomp does not accept.
bool jump_taken(std::uint32_t op, std::uint32_t a, std::uint32_t operand, bool* taken) {
  switch (op) {
    case BPF_JEQ:
      *taken = a == operand;
      break;
    case BPF_JGT:
      *taken = a > operand;
      break;
    case BPF_JGE:
      *taken = a >= operand;
      break;
    case BPF_JSET:
      *taken = (a & operand) != 0;
      break;
    default:
      return false;
  }
  return true;
}

// Runs a classic BPF program the way the kernel runs a seccomp filter: the result it returns,
// or nullopt-like false when it leaves its bounds or uses an instruction seccomp does not
// accept.
bool run_program(const sock_filter* program, std::size_t count, const seccomp_data& data,
                 std::uint32_t* result) {
  std::uint32_t a = 0, x = 0;
  std::uint32_t scratch[BPF_MEMWORDS] = {};
  for (std::size_t pc = 0; pc < count; ++pc) {
    const sock_filter& insn = program[pc];
    const std::uint32_t k = insn.k;
    switch (BPF_CLASS(insn.code)) {
      case BPF_LD:
        if (insn.code == (BPF_LD | BPF_W | BPF_ABS)) {
          if (!load_word(data, k, &a)) return false;
        } else if (insn.code == (BPF_LD | BPF_W | BPF_LEN)) {
          a = sizeof data;
        } else if (insn.code == (BPF_LD | BPF_IMM)) {
          a = k;
        } else if (insn.code == (BPF_LD | BPF_MEM) && k < BPF_MEMWORDS) {
          a = scratch[k];
        } else {
          return false;
        }
        break;
      case BPF_LDX:
        if (insn.code == (BPF_LDX | BPF_W | BPF_LEN)) {
          x = sizeof data;
        } else if (insn.code == (BPF_LDX | BPF_IMM)) {
          x = k;
        } else if (insn.code == (BPF_LDX | BPF_MEM) && k < BPF_MEMWORDS) {
          x = scratch[k];
        } else {
          return false;
        }
        break;
      case BPF_ST:
        if (k >= BPF_MEMWORDS) return false;
        scratch[k] = a;
        break;
      case BPF_STX:
        if (k >= BPF_MEMWORDS) return false;
        scratch[k] = x;
        break;
      case BPF_ALU:
        if (!apply_alu(BPF_OP(insn.code), BPF_SRC(insn.code) == BPF_X ? x : k, a)) return false;
        break;
      case BPF_JMP: {
        if (BPF_OP(insn.code) == BPF_JA) {
          pc += k;
          break;
        }
        const std::uint32_t operand = BPF_SRC(insn.code) == BPF_X ? x : k;
        bool taken = false;
        if (!jump_taken(BPF_OP(insn.code), a, operand, &taken)) return false;
        pc += taken ? insn.jt : insn.jf;
        break;
      }
      case BPF_RET:
        if (BPF_RVAL(insn.code) == BPF_K) {
          *result = k;
        } else if (BPF_RVAL(insn.code) == BPF_A) {
          *result = a;
        } else {
          return false;
        }
        return true;
      case BPF_MISC:
        if (BPF_MISCOP(insn.code) == BPF_TAX) {
          x = a;
        } else {
          a = x;
        }
        break;
      default:
        return false;
    }
  }
  return false;  // ran off the end: the kernel would never have loaded it
}

}  // namespace

bool to_notify_program(const sock_filter* program, std::size_t count, sock_filter* out) {
  for (std::size_t i = 0; i < count; ++i) {
    out[i] = program[i];
    if (BPF_CLASS(program[i].code) == BPF_RET && BPF_RVAL(program[i].code) != BPF_K) return false;
    if (returns_errno(program[i])) out[i].k = SECCOMP_RET_USER_NOTIF;
  }
  return true;
}

int refused_errno(const sock_filter* program, std::size_t count, const seccomp_data& data) {
  std::uint32_t result = 0;
  if (!run_program(program, count, data, &result)) return EPERM;
  if ((result & SECCOMP_RET_ACTION_FULL) != SECCOMP_RET_ERRNO) return EPERM;
  // The kernel caps an errno at MAX_ERRNO (4095); 0 would read as success.
  const int error = static_cast<int>(result & SECCOMP_RET_DATA);
  return error == 0 ? EPERM : (error > 4095 ? 4095 : error);
}

}  // namespace paddock::seccomp
