// DeepSeek V3.2 DSML (dialects.md §2.3; DeepSeek's encoding_dsv32.py, SGLang DeepSeekV32Detector):
//   \n\n<｜DSML｜function_calls>\n<｜DSML｜invoke name="N">\n
//   <｜DSML｜parameter name="k" string="true">raw text</｜DSML｜parameter>\n
//   <｜DSML｜parameter name="n" string="false">JSON</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>
// More calls are more invoke blocks in the same function_calls block. string="true" values are
// kept verbatim; string="false" values are JSON. Accepted too (SGLang): the tags without ｜DSML｜
// (and mixed), an invoke body that is one JSON object, a parameter without the string attribute
// (typed by the tool's schema), and V4's <｜DSML｜tool_calls> block name. Reasoning: <think>…</think>
// (thinking mode: the prompt ends with <think>, so ParseOptions::reasoning_open). A call is emitted
// when its invoke closes.
#include "dialects/gbnf.hpp"
#include "dialects/scan.hpp"
#include "dialects/tool_fields.hpp"
#include "dialects/json_util.hpp"
#include "dialects/schema_args.hpp"

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
    size_t len = 0;
    switch (st_) {
      case St::Content: {
        int k = text_until(sink, kBlockOpen, false, eof);
        if (k < 0) return false;
        start_recording(kBlockOpen[k]);
        in_block_ = 0;
        st_ = St::Block;
        return true;
      }
      case St::Block: {
        static const std::vector<std::string_view> opts = scan::joined(kInvokeOpen, kBlockClose);
        int m = scan::match_any(rest(), opts, eof, &len);
        if (m == -2) return false;
        if (m < 0) {
          if (in_block_ == 0) return eof ? false : malformed(sink, "no invoke in the function_calls block", st_);
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
      case St::InvokeTag: {
        std::string tag;
        if (!read_tag(sink, &tag)) return st_ == St::Content;
        auto name = schema::xml_attr(tag, "name");
        if (!name || name->empty()) return malformed(sink, "invoke without a name", st_);
        name_ = *name;
        args_ = Value::dict();
        st_ = St::InvokeBody;
        return true;
      }
      case St::InvokeBody: {
        if (!skip_ws()) return false;
        if (rest()[0] == '{' && args_.dict_obj().entries.empty()) {
          json_.reset();
          st_ = St::Json;
          return true;
        }
        static const std::vector<std::string_view> opts = scan::joined(kParamOpen, kInvokeClose);
        int m = scan::match_any(rest(), opts, eof, &len);
        if (m == -2) return false;
        if (m < 0) return eof ? false : malformed(sink, "unexpected text inside invoke", st_);
        advance(len);
        if (m >= 2) return finish_invoke(sink);
        st_ = St::ParamTag;
        return true;
      }
      case St::ParamTag: {
        std::string tag;
        if (!read_tag(sink, &tag)) return st_ == St::Content;
        auto name = schema::xml_attr(tag, "name");
        if (!name || name->empty()) return malformed(sink, "parameter without a name", st_);
        param_ = *name;
        string_attr_ = schema::xml_attr(tag, "string");
        value_.clear();
        st_ = St::ParamValue;
        return true;
      }
      case St::ParamValue: {
        std::string_view r = rest();
        scan::MarkerHit h = scan::find_marker(r, kParamClose);
        size_t upto = h.which >= 0 ? h.pos : (eof ? r.size() : h.pos);
        value_.append(r.substr(0, upto));
        advance(upto);
        if (h.which < 0) return false;
        advance(kParamClose[h.which].size());
        set_param(sink);
        st_ = St::InvokeBody;
        return true;
      }
      case St::Json: {
        advance(json_.feed(rest()));
        if (json_.state() == scan::JsonScanner::State::Error) return malformed(sink, "invoke body is not JSON", st_);
        if (json_.state() != scan::JsonScanner::State::Done) return false;
        auto v = json_value(json_.text());
        if (!v || !v->is_dict()) return malformed(sink, "invoke body is not a JSON object", st_);
        args_ = *v;
        st_ = St::JsonEnd;
        return true;
      }
      case St::JsonEnd: {
        int m = scan::match_any(rest(), kInvokeClose, eof, &len);
        if (m == -2) return false;
        if (m < 0) return eof ? false : malformed(sink, "no closing invoke tag after the JSON body", st_);
        advance(len);
        return finish_invoke(sink);
      }
      case St::AfterBlock: return ws_then_content(st_);
    }
    return false;
  }

  void body_end(Sink& sink) override {
    if (st_ == St::Content || st_ == St::AfterBlock) return;
    if (st_ == St::Block && in_block_ > 0) {
      unclosed_block(sink, kUnclosed);
      return;
    }
    give_back(sink, WarningKind::TruncatedCall, "output ended inside a DSML call");
  }

 private:
  // The rest of a tag up to '>' (attributes). False when more input is needed, or when the tag is
  // malformed (then the call was given back and st_ is Content).
  bool read_tag(Sink& sink, std::string* tag) {
    std::string_view r = rest();
    size_t gt = r.find('>');
    size_t lt = r.substr(0, gt).find('<');
    if (lt != std::string_view::npos || (gt == std::string_view::npos ? r.size() : gt) > kMaxTag) {
      malformed(sink, "unterminated tag", st_);
      return false;
    }
    if (gt == std::string_view::npos) return false;
    tag->assign(r.substr(0, gt));
    advance(gt + 1);
    return true;
  }

  void set_param(Sink& sink) {
    Value v;
    // Without the string attribute: text when the schema says string (or string or null), or when
    // there is no schema to say otherwise.
    const Value* schema = string_attr_ ? nullptr : schema::param_schema(opts_.tools, name_, param_);
    bool as_string = string_attr_ ? *string_attr_ == "true" : !schema || schema::schema_type(schema).string_or_null();
    if (as_string) {
      v = Value::string(value_);
    } else if (auto j = json_value(value_)) {
      v = *j;
    } else {
      warn(sink, WarningKind::InvalidArguments, "parameter '" + param_ + "' of '" + name_ + "' is not valid JSON; kept as a string");
      v = Value::string(value_);
    }
    args_.dict_obj().set(Value::string(param_), v);
  }

  bool finish_invoke(Sink& sink) {
    emit_call(sink, "", name_, args_);
    ++in_block_;
    start_recording();
    st_ = St::Block;
    return true;
  }


  enum class St { Content, Block, InvokeTag, InvokeBody, ParamTag, ParamValue, Json, JsonEnd, AfterBlock } st_ = St::Content;
  size_t in_block_ = 0;
  std::string name_, param_, value_;
  std::optional<std::string> string_attr_;
  Value args_;
  scan::JsonScanner json_;
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
    std::string invoke = b.per_tool_params(tools, "invoke", [&](const std::string& name, const Value& params) {
      return literal("<｜DSML｜invoke name=\"" + name + "\">") + " " + ws + " " +
             b.arg_elements(params, name + "-params", "</｜DSML｜parameter>", param, "true\">", "false\">") + " " + ws + " " +
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
