#pragma once

// Error values for paddock's own failures (the machinery), as opposed to what the sandboxed
// program did, which is always a RunResult. An Error carries errno (0 when not a system error)
// and a message that reads as a chain of context: "mounting /proc: Operation not permitted".

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>
#include <variant>

namespace paddock::core {

// What a failure means to the floors above the one that found it, where that matters to them
// (an errno says what the system said, and means different things on different floors).
enum class ErrorKind {
  kOther,
  // A sandbox was gone before a command of it started: nothing of the command ran, so a caller
  // may run it elsewhere (a warm run falls back to a cold one).
  kSandboxGone,
};

struct Error {
  int code = 0;  // errno, or 0 for a non-system error
  std::string message;
  ErrorKind kind = ErrorKind::kOther;
  // The setting a caller changes to fix this, by its neutral name (runtime/setting_names.h);
  // empty: none. The message names it in words; each front-end adds how its user sets it (a
  // flag, a variable), since a floor below knows no front-end's spelling.
  std::string setting = {};

  // "context: message", so callers add where without losing why.
  [[nodiscard]] Error context(std::string_view where) const {
    return Error{code, std::string(where) + ": " + message, kind, setting};
  }
};

// An Error from errno as it is now, e.g. system_error("opening /etc/subuid").
[[nodiscard]] inline Error system_error(std::string_view what, int err = errno) {
  return Error{err, std::string(what) + ": " + std::strerror(err)};
}

[[nodiscard]] inline Error invalid_input(std::string message) {
  return Error{EINVAL, std::move(message)};
}

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Result(Error error) : state_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  [[nodiscard]] bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<T>(state_); }
  const T& value() const& { return std::get<T>(state_); }
  T&& value() && { return std::get<T>(std::move(state_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  [[nodiscard]] const Error& error() const { return std::get<Error>(state_); }

 private:
  std::variant<T, Error> state_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), failed_(true) {}  // NOLINT

  [[nodiscard]] bool ok() const { return !failed_; }
  explicit operator bool() const { return ok(); }
  [[nodiscard]] const Error& error() const { return error_; }

 private:
  Error error_;
  bool failed_ = false;
};

using Status = Result<void>;

}  // namespace paddock::core
