// What the C++ headers expect from libstdc++'s compiled part, defined for paddock-init alone
// (init/CMakeLists.txt builds it against musl, without exceptions). libstdc++'s own definitions
// of these throw, and throwing pulls in its unwinder, which was built for glibc. Running out of
// memory or failing a length check ends paddock-init as an uncaught exception did before: abort.

#include <cstddef>
#include <cstdlib>
#include <new>

void* operator new(std::size_t size) {
  void* memory = std::malloc(size == 0 ? 1 : size);
  if (memory == nullptr) std::abort();
  return memory;
}

void* operator new[](std::size_t size) {
  return operator new(size);
}
void operator delete(void* memory) noexcept {
  std::free(memory);
}
void operator delete[](void* memory) noexcept {
  std::free(memory);
}
void operator delete(void* memory, std::size_t) noexcept {
  std::free(memory);
}
void operator delete[](void* memory, std::size_t) noexcept {
  std::free(memory);
}

namespace std {

void __throw_bad_alloc() {
  std::abort();
}
void __throw_bad_array_new_length() {
  std::abort();
}
void __throw_length_error(const char*) {
  std::abort();
}
void __throw_logic_error(const char*) {
  std::abort();
}
void __throw_out_of_range(const char*) {
  std::abort();
}
void __throw_out_of_range_fmt(const char*, ...) {
  std::abort();
}
void __throw_invalid_argument(const char*) {
  std::abort();
}
// The rest of <bits/functexcept.h> that code without streams or threads can reach (std::function,
// std::stoi's range, dynamic_cast of a reference), so that init code may use them as elsewhere.
void __throw_bad_cast() {
  std::abort();
}
void __throw_bad_function_call() {
  std::abort();
}
void __throw_domain_error(const char*) {
  std::abort();
}
void __throw_runtime_error(const char*) {
  std::abort();
}
void __throw_range_error(const char*) {
  std::abort();
}
void __throw_overflow_error(const char*) {
  std::abort();
}
void __throw_underflow_error(const char*) {
  std::abort();
}

}  // namespace std
