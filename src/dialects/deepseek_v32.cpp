// DeepSeek V3.2 DSML (docs/dialects.md §2.3; DeepSeek's encoding_dsv32.py, SGLang DeepSeekV32Detector):
//   \n\n<｜DSML｜function_calls>\n<｜DSML｜invoke name="N">\n
//   <｜DSML｜parameter name="k" string="true">raw text</｜DSML｜parameter>\n
//   <｜DSML｜parameter name="n" string="false">JSON</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>
// More calls are more invoke blocks in the same function_calls block. string="true" values are
// kept verbatim; string="false" values are JSON. Accepted too (SGLang): the tags without ｜DSML｜
// (and mixed), an invoke body that is one JSON object, a parameter without the string attribute
// (typed by the tool's schema), and V4's <｜DSML｜tool_calls> block name. Reasoning: <think>…</think>
// (thinking mode: the prompt ends with <think>, so ParseOptions::reasoning_open). A call is
// announced once its invoke's name is read; a string parameter's value streams as it arrives, any
// other value is converted once its close tag comes.
#include "dialects/call_reader.hpp"
#include "dialects/deepseek_calls.hpp"
#include "dialects/gbnf.hpp"
#include "dialects/scan.hpp"
#include "dialects/tool_fields.hpp"
#include "dialects/json_util.hpp"
#include "dialects/schema_args.hpp"
#include "value/json.hpp"

namespace toolchat::dialects {
namespace {

const std::vector<std::string_view> kBlockOpen{"<｜DSML｜function_calls>", "<function_calls>", "<｜DSML｜tool_calls>"};
const std::vector<std::string_view> kBlockClose{"</｜DSML｜function_calls>", "</function_calls>", "</｜DSML｜tool_calls>"};
const std::vector<std::string_view> kInvokeOpen{"<｜DSML｜invoke", "<invoke"};
const std::vector<std::string_view> kInvokeClose{"</｜DSML｜invoke>", "</invoke>"};
const std::vector<std::string_view> kParamOpen{"<｜DSML｜parameter", "<parameter"};
const std::vector<std::string_view> kParamClose{"</｜DSML｜parameter>", "</parameter>"};
constexpr size_t kMaxTag = 512;
constexpr const char* kUnclosed = "function_calls block without its closing tag";

class DsmlParser final : public scan::ThinkParser {
 public:
  explicit DsmlParser(const ParseOptions& o) : ThinkParser(o, "<think>", "</think>") {}

 protected:
  bool body_step(Sink& sink, bool eof) override {
    switch (st_) {
      case St::Content: {
        int k = text_until(sink, kBlockOpen, TextKind::Content, eof);
        if (k < 0) return false;
        start_recording(kBlockOpen[k]);
        block_.start(calls_);
        st_ = St::Block;
        return true;
      }
      case St::Block: return block(sink, eof);
      case St::InvokeTag: return invoke_tag(sink);
      case St::InvokeBody: return invoke_body(sink, eof);
      case St::ParamTag: return param_tag(sink);
      case St::ParamValue: return param_value(sink, eof);
      case St::Json:
        switch (json_.step(*this, sink, "", name_)) {
          case scan::ArgsReader::Status::NeedMore: return false;
          case scan::ArgsReader::Status::NotObject:
          case scan::ArgsReader::Status::Broken: return bad(sink, "invoke body is not a JSON object");
          case scan::ArgsReader::Status::Done: params_ = SIZE_MAX; st_ = St::JsonEnd; return true;
        }
        return false;
      case St::JsonEnd: {
        size_t len = 0;
        int m = scan::match_any(rest(), kInvokeClose, eof, &len);
        if (m == -2) return false;
        if (m < 0) return eof ? false : bad(sink, "no closing invoke tag after the JSON body");
        advance(len);
        return finish_invoke(sink);
      }
      case St::AfterBlock: return ws_then_content(st_);
    }
    return false;
  }

  void body_end(Sink& sink) override {
    if (st_ == St::Content || st_ == St::AfterBlock) return;
    if (st_ == St::Block && block_.calls > 0) {
      unclosed_block(sink, kUnclosed);
      return;
    }
    abandon_call(sink, WarningKind::TruncatedCall, "output ended inside a DSML call", true);
  }

 private:
  // Inside the function_calls block: an invoke opens or the block closes.
  bool block(Sink& sink, bool eof) {
    static const std::vector<std::string_view> opts = scan::joined(kInvokeOpen, kBlockClose);
    size_t len = 0;
    int m = scan::match_any(rest(), opts, eof, &len);
    if (m == -2) return false;
    if (m < 0) {
      if (block_.calls == 0) return eof ? false : malformed(sink, "no invoke in the function_calls block", st_);
      unclosed_block(sink, kUnclosed);
      st_ = St::Content;
      return true;
    }
    advance(len);
    if (m >= 2) {
      stop_recording();
      st_ = St::AfterBlock;
      return true;
    }
    st_ = St::InvokeTag;
    return true;
  }

  // An invoke's tag with the call's name.
  bool invoke_tag(Sink& sink) {
    std::string tag;
    if (!read_tag(sink, &tag)) return st_ == St::Content;
    auto name = schema::xml_attr(tag, "name");
    if (!name || name->empty()) return bad(sink, "invoke without a name");
    name_ = *name;
    params_ = 0;
    open_call(sink, "", name_);  // announced with its name; the arguments stream after it
    st_ = St::InvokeBody;
    return true;
  }

  // Inside an invoke: one JSON object, a parameter, or the invoke's close.
  bool invoke_body(Sink& sink, bool eof) {
    if (!skip_ws()) return false;
    if (rest()[0] == '{' && params_ == 0) {
      json_.reset();
      st_ = St::Json;
      return true;
    }
    static const std::vector<std::string_view> opts = scan::joined(kParamOpen, kInvokeClose);
    size_t len = 0;
    int m = scan::match_any(rest(), opts, eof, &len);
    if (m == -2) return false;
    if (m < 0) return eof ? false : bad(sink, "unexpected text inside invoke");
    advance(len);
    if (m >= 2) return finish_invoke(sink);
    st_ = St::ParamTag;
    return true;
  }

  // A parameter's tag: its name and string attribute.
  bool param_tag(Sink& sink) {
    std::string tag;
    if (!read_tag(sink, &tag)) return st_ == St::Content;
    auto name = schema::xml_attr(tag, "name");
    if (!name || name->empty()) return bad(sink, "parameter without a name");
    param_ = *name;
    string_attr_ = schema::xml_attr(tag, "string");
    value_.clear();
    // The key now; a string value streams as it arrives, any other is converted once complete.
    std::string head = params_++ == 0 ? "{" : ",";
    json::dump_string(head, param_, false);
    head += ':';
    as_string_ = value_is_string();
    if (as_string_) head += '"';
    call_text(sink, head);
    st_ = St::ParamValue;
    return true;
  }

  // A parameter's value up to its close tag.
  bool param_value(Sink& sink, bool eof) {
    std::string_view r = rest();
    scan::MarkerHit h = scan::find_marker(r, kParamClose);
    size_t upto = h.which >= 0 || eof ? h.pos : scan::utf8_safe_end(r.substr(0, h.pos));
    if (h.which < 0 && eof) upto = r.size();
    if (as_string_) {
      std::string piece;
      json::append_escaped(piece, r.substr(0, upto), false);
      call_text(sink, piece);
    } else {
      value_.append(r.substr(0, upto));
    }
    advance(upto);
    if (h.which < 0) return false;
    advance(kParamClose[h.which].size());
    end_param(sink);
    st_ = St::InvokeBody;
    return true;
  }

  // The rest of a tag up to '>' (attributes). False when more input is needed, or when the tag is
  // malformed (then the call was given back and st_ is Content).
  bool read_tag(Sink& sink, std::string* tag) {
    std::string_view r = rest();
    size_t gt = r.find('>');
    size_t lt = r.substr(0, gt).find('<');
    if (lt != std::string_view::npos || (gt == std::string_view::npos ? r.size() : gt) > kMaxTag) {
      bad(sink, "unterminated tag");
      return false;
    }
    if (gt == std::string_view::npos) return false;
    tag->assign(r.substr(0, gt));
    advance(gt + 1);
    return true;
  }

  // Without the string attribute: text when the schema says string (or string or null), or when
  // there is no schema (or no type in it) to say otherwise.
  bool value_is_string() const {
    if (string_attr_) return *string_attr_ == "true";
    schema::ParamType type = schema::schema_type(schema::param_schema(opts_.tools, name_, param_));
    return type.bits == 0 || type.string_or_null();
  }

  void end_param(Sink& sink) {
    if (as_string_) {
      call_text(sink, "\"");
      return;
    }
    Value v;
    if (auto j = json_value(value_)) {
      v = *j;
    } else {
      warn(sink, WarningKind::InvalidArguments, "parameter '" + param_ + "' of '" + name_ + "' is not valid JSON; kept as a string");
      v = Value::string(value_);
    }
    call_text(sink, scan::compact_json(v));
  }

  // Text that is not DSML inside an invoke: the call (open since its name) is cut there.
  // A block that gave calls before is then content whole (DeepSeekBlock).
  bool bad(Sink& sink, std::string why) {
    block_.cut(sink);
    if (!call_is_open()) return malformed(sink, std::move(why), st_);
    abandon_call(sink, WarningKind::MalformedCall, std::move(why));
    st_ = St::Content;
    return true;
  }

  bool finish_invoke(Sink& sink) {
    if (params_ == 0) call_text(sink, "{}");
    else if (params_ != SIZE_MAX) call_text(sink, "}");
    close_call(sink);
    block_.add_call(raw());
    start_recording();
    st_ = St::Block;
    return true;
  }


  enum class St { Content, Block, InvokeTag, InvokeBody, ParamTag, ParamValue, Json, JsonEnd, AfterBlock } st_ = St::Content;
  DeepSeekBlock block_;
  std::string name_, param_, value_;
  std::optional<std::string> string_attr_;
  size_t params_ = 0;  // parameters written; SIZE_MAX: the body was one JSON object
  bool as_string_ = false;
  scan::ArgsReader json_;
};

int score(const std::string& src, const chat::Capabilities*) {
  if (!scan::has(src, "｜DSML｜")) return 0;
  int s = 70;
  if (scan::has(src, "function_calls>")) s += 10;
  if (scan::has(src, "string=\"")) s += 5;
  return s;
}

// DeepSeek's TOOLS_SYSTEM_TEMPLATE (encoding_dsv32.py), with one JSON schema per line.
std::string prompt(const Value& tools) {
  std::string schemas;
  for (const ToolFields& t : tool_fields(tools)) {
    if (!schemas.empty()) schemas += '\n';
    schemas += python_json(t.function_json());
  }
  return "## Tools\n\nYou have access to a set of tools you can use to answer the user's question.\n"
         "You can invoke functions by writing a \"<｜DSML｜function_calls>\" block like the following as part of your "
         "reply to the user:\n<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"$FUNCTION_NAME\">\n"
         "<｜DSML｜parameter name=\"$PARAMETER_NAME\" string=\"true|false\">$PARAMETER_VALUE</｜DSML｜parameter>\n...\n"
         "</｜DSML｜invoke>\n<｜DSML｜invoke name=\"$FUNCTION_NAME2\">\n...\n</｜DSML｜invoke>\n</｜DSML｜function_calls>\n\n"
         "String and scalar parameters should be specified as is without any escaping or quotes, while lists and objects "
         "should use JSON format. The \"string\" attribute should be set to \"true\" for string type parameters and "
         "\"false\" for other types (numbers, booleans, arrays, objects).\n\n"
         "If the thinking_mode is enabled, then after function results you should strongly consider outputting a "
         "thinking block. Here is an example:\n\n<｜DSML｜function_calls>\n...\n</｜DSML｜function_calls>\n\n"
         "<function_results>\n...\n</function_results>\n\n<think>...thinking about results</think>\n\n"
         "Here are the functions available in JSONSchema format:\n<functions>\n" +
         schemas + "\n</functions>\n";
}

std::unique_ptr<StreamParser> make(const ParseOptions& o) { return std::make_unique<DsmlParser>(o); }

// <｜DSML｜function_calls> with one <｜DSML｜invoke name="NAME"> per call, each parameter
// <｜DSML｜parameter name="KEY" string="true">raw text or string="false">JSON, typed by the schema;
// after an optional <think> block (forced open by the thinking prompt).
std::optional<std::string> grammar(const Value& tools, const GrammarOptions& opts) {
  return gbnf::build(tools, opts, [&](gbnf::Builder& b) {
    using gbnf::literal;
    std::string ws = b.ws();
    auto param = [&](const std::string& key, const std::string& value) {
      return literal("<｜DSML｜parameter name=\"") + " " + key + " " + literal("\" string=\"") + " " + value + " " +
             literal("</｜DSML｜parameter>");
    };
    // string="true": the text as it is, up to a close tag; string="false": JSON.
    gbnf::ValueText form{{kParamClose.begin(), kParamClose.end()}, schema::Trim::None, "true\">", "false\">"};
    std::string invoke = b.per_tool_params(tools, "invoke", [&](const std::string& name, const Value& params) {
      return literal("<｜DSML｜invoke name=\"" + name + "\">") + " " + ws + " " +
             b.arg_elements(params, name + "-params", form, param) + " " + ws + " " +
             literal("</｜DSML｜invoke>");
    });
    return b.reasoning("<think>", "</think>") + " " + literal("<｜DSML｜function_calls>") + " " + ws + " " + b.calls(invoke, ws) + " " + ws + " " + literal("</｜DSML｜function_calls>");
  });
}

}  // namespace

const Dialect& dialect_deepseek_v32() {
  static const Dialect d{"deepseek_v32", {"deepseekv32", "deepseek_v3_2", "deepseek-v3.2", "dsml"},
                         "DeepSeek V3.2 DSML <｜DSML｜invoke> / <｜DSML｜parameter string=…>", &score, &prompt, &make, &grammar};
  return d;
}

}  // namespace toolchat::dialects
