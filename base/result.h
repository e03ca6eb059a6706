#pragma once
// A small expected-like type for recoverable failures, and TRY to pass one up (after ccache's
// util/expected.hpp and its TRY macro).
//
//   Result<Fd> open_input(const std::string& path);
//   Result<void> copy(const std::string& path) {
//     Fd in = TRY(open_input(path));     // returns the Error if open_input failed
//     TRY(write_all(in.get(), ...));     // works for Result<void> too
//     return {};
//   }
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <variant>

namespace pdx {

namespace detail {
/// A Result asked for the half it does not hold: a bug in pdx, so it stops here, in every build.
[[noreturn]] inline void misused(const char* what) {
  std::fprintf(stderr, "pdx: internal error: %s\n", what);
  std::abort();
}
}  // namespace detail

/// Whose fault a failure is, for the exit status the command layer picks (base/error.h):
/// bad_input when what the user named is wrong (data that is not a valid archive, say),
/// failure for anything else (a file that cannot be written).
enum class ErrorKind { failure, bad_input };

/// The failure half of a Result: one line that names the thing and what went wrong.
struct Error {
  std::string message;
  ErrorKind kind = ErrorKind::failure;
};

template <class T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Result(Error error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  /// The value; asking for it on an error is a bug that aborts, not an exception to catch.
  T& value() & { return *checked(std::get_if<0>(&v_), "value() of an error Result"); }
  const T& value() const& { return *checked(std::get_if<0>(&v_), "value() of an error Result"); }
  T&& value() && { return std::move(value()); }  // from a temporary: moved out
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(value()); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  /// The message; only on an error (aborts otherwise).
  const std::string& error() const { return failure().message; }
  /// The kind of the error; only on an error (aborts otherwise).
  ErrorKind error_kind() const { return failure().kind; }

 private:
  const Error& failure() const { return *checked(std::get_if<1>(&v_), "error() of a good Result"); }

  template <class P>
  static P* checked(P* p, const char* misuse) {
    if (p == nullptr) detail::misused(misuse);
    return p;
  }

  std::variant<T, Error> v_;
};

/// Result<void>: success or an Error.
template <>
class Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT
  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const std::string& error() const { return error_.message; }
  ErrorKind error_kind() const { return error_.kind; }

 private:
  Error error_;
  bool ok_ = true;
};

namespace detail {
template <class T>
T take_value(Result<T>&& r) {
  return std::move(*r);
}
inline void take_value(Result<void>&&) {}
}  // namespace detail

}  // namespace pdx

/// Evaluates `expr` (a Result); on an error returns it from the enclosing function (whose return
/// type is any Result; the Error's kind goes with it), otherwise yields the value (nothing for
/// Result<void>). A GNU statement expression, as ccache's TRY; `__extension__` keeps -Wpedantic
/// quiet about it.
#define TRY(expr)                                                                 \
  __extension__({                                                                 \
    auto pdx_try_result_ = (expr);                                                \
    if (!pdx_try_result_)                                                         \
      return ::pdx::Error{pdx_try_result_.error(), pdx_try_result_.error_kind()}; \
    ::pdx::detail::take_value(std::move(pdx_try_result_));                        \
  })
