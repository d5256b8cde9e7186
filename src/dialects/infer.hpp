// A dialect inferred at run time from a template that no registered family claims (docs/design.md §3.2).
// Probe conversations are rendered with needle names and arguments (template_probe.hpp): one call,
// two calls, and a plain answer. Where the needles land gives how a call is encoded, and diffing the
// renders gives the text around the calls:
//
//   <block_open> <call_open> CALL <call_close> <separator> <call_open> CALL <call_close> <block_close> <end of turn>
//
// where CALL is either a JSON object holding the name and the arguments (at name_path / args_path,
// e.g. {"name", "arguments"} or {"function": {"name", "parameters"}}), or the name, name_sep and a
// JSON arguments object (DeepSeek-style `NAME\n```json\n{...}`, `<function=NAME>{...}`), or the
// name and then each argument as KEY kv_sep VALUE with arg_sep between arguments (XML parameters:
// `<function=NAME>\n<parameter=KEY>\nVALUE\n</parameter>`; values are raw text, typed by the tool's
// JSON schema, else read as a JSON scalar when they are one). Python call syntax and other quoted
// values are not inferred. The inferred spec is accepted only when its own parser reads the probe
// renders back.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dialects/dialect.hpp"
#include "dialects/template_probe.hpp"

namespace toolchat::dialects {

struct InferredSpec {
  enum class Form { CallObject, NameThenArgs, KeyValue } form = Form::CallObject;
  // Markers, with surrounding whitespace removed (the parser skips whitespace between pieces).
  std::string block_open, call_open, name_sep, call_close, separator, block_close;
  std::string kv_sep, arg_sep;  // KeyValue: between a key and its value; between arguments
  std::vector<std::string> name_path, args_path, id_path;  // CallObject: keys from the call object
  bool parallel = false;    // the template renders two calls in one message
  bool start_only = false;  // no distinctive marker: a call is recognised only at the start of the output
  Value to_json() const;
};

class InferredDialect {
 public:
  explicit InferredDialect(InferredSpec spec) : spec_(std::make_shared<const InferredSpec>(std::move(spec))) {}
  const InferredSpec& spec() const { return *spec_; }
  std::unique_ptr<StreamParser> make_parser(const ParseOptions& opts) const;
  ParserFactory factory() const;

 private:
  std::shared_ptr<const InferredSpec> spec_;
};

// nullopt with *why when the template shows no calls, encodes them in a way not inferred here, or
// the inferred parser does not read its own probe renders back.
std::optional<InferredDialect> infer(const TemplateProbe& probe, std::string* why = nullptr);
std::optional<InferredDialect> infer(const std::string& template_source, const Value& special_tokens,
                                     std::string* why = nullptr);

}  // namespace toolchat::dialects
