#pragma once

// Text in a fixed buffer, for the sandbox's init before exec, which must not allocate.

#include <cstddef>

namespace paddock::init {

// Text assembled in a fixed buffer (the child must not allocate); overflowing is remembered.
template <std::size_t Size>
class FixedText {
 public:
  void append(const char* text) {
    for (; *text != '\0'; ++text) {
      if (used_ + 1 >= Size) {
        overflow_ = true;
        return;
      }
      buffer_[used_++] = *text;
    }
    buffer_[used_] = '\0';
  }
  void append_number(int value) {
    char digits[12];
    int count = 0;
    do {
      digits[count++] = static_cast<char>('0' + value % 10);
      value /= 10;
    } while (value > 0 && count < 11);
    char text[12];
    for (int i = 0; i < count; ++i) text[i] = digits[count - 1 - i];
    text[count] = '\0';
    append(text);
  }
  [[nodiscard]] const char* c_str() const { return buffer_; }
  [[nodiscard]] bool overflow() const { return overflow_; }

 private:
  char buffer_[Size] = {};
  std::size_t used_ = 0;
  bool overflow_ = false;
};

}  // namespace paddock::init
