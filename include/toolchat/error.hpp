// One error type for the whole library: its kind (for template errors the Python exception class
// Jinja2 would raise, message word for word), and where in the template it happened (attached
// once, innermost wins; line/column are computed only when the error is formatted). Every error
// the library throws is an Error or derives from it: the gateway's gateway::ApiError is an Error
// of kind ApiError that also carries its HTTP status and OpenAI error object.
#pragma once

#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <utility>

namespace toolchat {

enum class ErrorKind : uint8_t {
  TemplateSyntaxError,
  TemplateAssertionError,
  TemplateRuntimeError,
  TemplateError,        // raise_exception(...)
  UndefinedError,
  SecurityError,
  TypeError,
  ValueError,
  KeyError,
  IndexError,
  AttributeError,
  ZeroDivisionError,
  OverflowError,
  RecursionError,
  MemoryError,
  FilterArgumentError,  // jinja2.exceptions.FilterArgumentError
  RuntimeError,
  AssertionError,
  NameError,
  SyntaxError,
  LimitError,           // our own resource limits (output, steps, depth, size)
  JSONDecodeError,      // bad JSON input
  UnicodeDecodeError,   // input bytes that are not UTF-8 (Python's codec message)
  LookupError,          // str.encode with an unknown codec
  UnicodeEncodeError,   // str.encode to a codec that cannot hold a character
  OSError,              // a file or stream could not be opened, read, written or bound (the OS's reason)
  ConfigError,          // a setting that cannot work: an unknown backend kind or dialect, no chat template
  ApiError,             // gateway::ApiError: a request refused or failed, with an HTTP status
  InternalError
};

// The Python class name for a kind ("TemplateSyntaxError", "TypeError", ...).
const char* error_kind_name(ErrorKind k);
// The kind for a Python exception class name (unknown names map to TemplateError).
ErrorKind error_kind_from_name(const std::string& name);
// Jinja2's own exception classes (jinja2.exceptions: TemplateError and its subclasses, with
// FilterArgumentError): only a template raises them.
bool is_jinja_error_kind(ErrorKind k);

class Error;
// Whether the template failed, rather than its input or the work around it: an error of a Jinja2
// kind, or any error raised at a place in a template (a TypeError while rendering). A LimitError
// without a position is a limit on an input (a file, a JSON document, the template's own size).
// The CLI's exit code 3 and the Python module's classes follow this one rule (docs/design.md).
bool is_template_failure(const Error& e);

// A template's name and text, shared by the compiled template and its errors.
struct SourceText {
  std::string name;
  std::string text;
  // 1-based line and column (in code points) of a byte offset.
  std::pair<size_t, size_t> line_col(size_t offset) const;
};

class Error : public std::exception {
 public:
  Error(ErrorKind kind, std::string message) : kind_(kind), message_(std::move(message)) {}
  ErrorKind kind() const { return kind_; }
  const std::string& message() const { return message_; }
  const char* what() const noexcept override { return message_.c_str(); }

  bool has_position() const { return offset_ != npos; }
  size_t offset() const { return offset_; }
  // Attaches a position unless one is already there (the innermost node wins).
  void set_position(size_t offset, std::shared_ptr<const SourceText> src) {
    if (offset_ == npos) { offset_ = offset; source_ = std::move(src); }
  }
  const std::shared_ptr<const SourceText>& source() const { return source_; }
  // "name:line:column: Kind: message" plus the source line and a caret.
  std::string describe() const;

  static constexpr size_t npos = static_cast<size_t>(-1);

 private:
  ErrorKind kind_;
  std::string message_;
  size_t offset_ = npos;
  std::shared_ptr<const SourceText> source_;
};

[[noreturn]] inline void throw_error(ErrorKind k, std::string msg) { throw Error(k, std::move(msg)); }

}  // namespace toolchat
