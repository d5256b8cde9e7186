#include "dialects/json_util.hpp"
#include "dialects/schema_args.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "dialects/py_literal.hpp"
#include "dialects/scan.hpp"
#include "dialects/text_args.hpp"
#include "dialects/tool_fields.hpp"
#include "value/json.hpp"

namespace toolchat::dialects::schema {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

using scan::is_json_ws;
using textargs::trim;

bool finite(const Value& v, int depth = 0) {
  if (depth > 200) return false;
  if (v.is_float()) return std::isfinite(v.as_float());
  if (v.is_list()) {
    for (const Value& x : v.items())
      if (!finite(x, depth + 1)) return false;
  } else if (v.is_dict()) {
    for (const auto& [k, x] : v.dict_obj().entries)
      if (!finite(x, depth + 1)) return false;
  }
  return true;
}

// JSON text of v, or nullopt when v holds something JSON cannot carry (NaN, infinity).
std::optional<std::string> json_of(const Value& v) {
  if (!finite(v)) return std::nullopt;
  return scan::compact_json(v);
}

// JSON, then a Python literal, then (GLM outputs) JSON whose quotes arrived escaped (\"…\").
std::optional<Value> parse_structured(std::string_view t) {
  if (auto v = json_value(t)) return v;
  if (auto v = pylit::parse(t)) return v;
  if (t.find("\\\"") != std::string_view::npos) {
    std::string quoted = "\"";
    quoted.append(t);
    quoted += '"';
    if (auto s = json_value(quoted); s && s->is_str())
      if (auto v = json_value(s->str())) return v;
  }
  return std::nullopt;
}

std::optional<std::string> as_integer(std::string_view t) {
  t = trim(t);
  std::string digits;
  size_t i = 0;
  if (i < t.size() && (t[i] == '-' || t[i] == '+')) {
    if (t[i] == '-') digits += '-';
    ++i;
  }
  size_t d0 = i;
  while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
  if (i == d0 || i != t.size()) return std::nullopt;
  while (d0 + 1 < t.size() && t[d0] == '0') ++d0;  // int("007") == 7
  auto v = pylit::parse(digits + std::string(t.substr(d0)));
  if (!v) return std::nullopt;
  return json_of(*v);
}

std::optional<std::string> as_number(std::string_view t) {
  if (auto i = as_integer(t)) return i;
  pylit::Reader r(trim(t));
  auto v = r.literal();
  r.skip_ws();
  if (!v || !r.at_end() || !v->is_number()) return std::nullopt;
  if (v->is_float()) {
    double d = v->as_float();
    if (!std::isfinite(d)) return std::nullopt;
    // An integral float is an integer (vLLM: int when float(x) - int(x) == 0).
    if (d == std::floor(d) && std::fabs(d) < 9.0e15) return json_of(Value::integer(static_cast<int64_t>(d)));
  }
  return json_of(*v);
}

std::string quoted(std::string_view s) {
  std::string out;
  json::dump_string(out, s, false);
  return out;
}

}  // namespace

const Value* param_schema(const Value& tools, std::string_view tool, std::string_view param) {
  const Value* fn = tool_function(tools, tool);
  if (!fn) return nullptr;
  const Value* params = fn->dict_obj().find("parameters");
  if (!params || !params->is_dict()) return nullptr;
  const Value* props = params->dict_obj().find("properties");
  if (!props || !props->is_dict()) return nullptr;
  return props->dict_obj().find(Value::string(param));
}

ParamType schema_type(const Value* schema) {
  ParamType t;
  if (schema) t.bits = declared_types(*schema, Names::Lenient);
  return t;
}

ParamType param_type(const Value& tools, std::string_view tool, std::string_view param) {
  return schema_type(param_schema(tools, tool, param));
}

std::optional<std::string> xml_attr(std::string_view tag, std::string_view key) {
  size_t from = 0;
  while (true) {
    size_t p = tag.find(key, from);
    if (p == std::string_view::npos) return std::nullopt;
    from = p + 1;
    // A whole attribute name: preceded by the tag start or whitespace.
    if (p > 0 && !(tag[p - 1] == ' ' || tag[p - 1] == '\t' || tag[p - 1] == '\n' || tag[p - 1] == '<')) continue;
    size_t q = p + key.size();
    while (q < tag.size() && tag[q] == ' ') ++q;
    if (q >= tag.size() || tag[q] != '=') continue;
    ++q;
    while (q < tag.size() && tag[q] == ' ') ++q;
    if (q >= tag.size() || (tag[q] != '"' && tag[q] != '\'')) return std::nullopt;
    size_t end = tag.find(tag[q], q + 1);
    if (end == std::string_view::npos) return std::nullopt;
    return std::string(tag.substr(q + 1, end - q - 1));
  }
}

std::string typed_json(std::string_view text, ParamType t, const Rules& r) {
  if (t.always_text()) return quoted(text);
  std::string low = lower(trim(text));
  if (r.null_text_is_null && low == "null" && !(t.bits & kString)) return "null";
  if (t.bits & kInteger)
    if (auto s = as_integer(text)) return *s;
  if (t.bits & kNumber)
    if (auto s = as_number(text)) return *s;
  if ((t.bits & kBoolean) && (low == "true" || low == "false")) return low;
  if ((t.bits & kNull) && (low == "null" || low == "none" || low == "nil")) return "null";
  if (t.bits & (kObject | kArray))
    if (auto v = parse_structured(text))
      if (((t.bits & kObject) && v->is_dict()) || ((t.bits & kArray) && v->is_list()))
        if (auto s = json_of(*v)) return *s;
  return quoted(text);
}

// ---- ArgsWriter ----------------------------------------------------------------------------------

void ArgsWriter::out(Sink& sink, std::string s) {
  if (!s.empty()) sink.on(ToolArgsDelta{index_, std::move(s)});
}

void ArgsWriter::begin(Sink& sink, size_t index, const Value* tools, std::string tool, Rules rules, Trim trim) {
  index_ = index;
  tools_ = tools;
  tool_ = std::move(tool);
  rules_ = rules;
  trim_ = trim;
  open_ = true;
  in_param_ = false;
  first_ = true;
  out(sink, "{");
}

void ArgsWriter::param(Sink& sink, std::string_view name, std::optional<ParamType> type) {
  if (in_param_) end_param(sink);
  std::string s = first_ ? "" : ",";
  s += quoted(name);
  s += ':';
  out(sink, std::move(s));
  type_ = type ? *type : tools_ ? param_type(*tools_, tool_, name) : ParamType{};
  in_param_ = true;
  streaming_ = false;
  leading_ = true;
  pending_.clear();
  ws_tail_ = 0;
}

void ArgsWriter::text(Sink& sink, std::string_view piece) {
  if (!in_param_) return;
  if (leading_) {
    if (trim_ == Trim::None) {
      leading_ = false;
    } else if (trim_ == Trim::OneNewline) {
      if (piece.empty()) return;
      if (piece[0] == '\n') piece.remove_prefix(1);
      leading_ = false;
    } else {
      while (!piece.empty() && is_json_ws(piece[0])) piece.remove_prefix(1);
      if (piece.empty()) return;
      leading_ = false;
    }
  }
  pending_.append(piece);
  if (!type_.always_text()) return;  // typed once complete
  // Hold back what the end of the value could still trim (the trailing whitespace run is counted
  // from the new piece only, so a long run costs nothing per piece).
  size_t t = 0;
  while (t < piece.size() && is_json_ws(piece[piece.size() - 1 - t])) ++t;
  ws_tail_ = t == piece.size() ? ws_tail_ + t : t;
  size_t keep = pending_.size();
  if (trim_ == Trim::OneNewline) {
    if (keep > 0 && pending_[keep - 1] == '\n') --keep;
  } else if (trim_ == Trim::Whitespace) {
    keep -= std::min(ws_tail_, keep);
  }
  std::string piece_out;
  if (!streaming_) {
    piece_out = "\"";
    streaming_ = true;
  }
  json::append_escaped(piece_out, std::string_view(pending_).substr(0, keep), false);
  out(sink, std::move(piece_out));
  pending_.erase(0, keep);
  ws_tail_ = std::min(ws_tail_, pending_.size());
}

void ArgsWriter::end_param(Sink& sink) {
  if (!in_param_) return;
  std::string_view v = pending_;
  if (trim_ == Trim::OneNewline) {
    if (!v.empty() && v.back() == '\n') v.remove_suffix(1);
  } else if (trim_ == Trim::Whitespace) {
    while (!v.empty() && is_json_ws(v.back())) v.remove_suffix(1);
  }
  if (streaming_) {
    std::string tail;
    json::append_escaped(tail, v, false);
    out(sink, tail + "\"");
  } else {
    out(sink, typed_json(v, type_, rules_));
  }
  pending_.clear();
  in_param_ = false;
  first_ = false;
}

void ArgsWriter::raw_members(Sink& sink, std::string_view text, bool first_piece) {
  if (in_param_) end_param(sink);
  if (text.empty()) return;
  std::string s = first_piece && !first_ ? "," : "";
  s += text;
  out(sink, std::move(s));
  first_ = false;
}

void ArgsWriter::end(Sink& sink) {
  if (!open_) return;
  end_param(sink);
  out(sink, "}");
  sink.on(ToolCallEnd{index_});
  open_ = false;
}

}  // namespace toolchat::dialects::schema
