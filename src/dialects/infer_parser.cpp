// The incremental parser of an inferred dialect (infer.hpp): a state machine over the spec's
// markers on the shared scanners (ParserBase, JsonScanner, match_any). Linear like the families'
// parsers: text is searched only for the opening marker; a call's bytes are scanned once.
#include "dialects/call_reader.hpp"
#include "dialects/infer.hpp"
#include "dialects/json_util.hpp"
#include "dialects/output_guard.hpp"
#include "dialects/scan.hpp"
#include "dialects/schema_args.hpp"
#include "value/json.hpp"

namespace toolchat::dialects {

namespace {

constexpr size_t kMaxName = 256;  // a longer "name" means the marker was not a call

const Value* at_path(const Value& v, const std::vector<std::string>& path) {
  const Value* cur = &v;
  for (const std::string& k : path) {
    if (!cur->is_dict()) return nullptr;
    cur = cur->dict_obj().find(k);
    if (!cur) return nullptr;
  }
  return cur;
}

class InferredParser final : public scan::ThinkParser {
 public:
  InferredParser(const ParseOptions& o, std::shared_ptr<const InferredSpec> s)
      : ThinkParser(o, "<think>", "</think>"), s_(std::move(s)) {
    trigger_ = !s_->block_open.empty() ? s_->block_open : s_->call_open;
    st_ = s_->start_only ? St::Start : St::Content;
  }

 protected:
  bool body_step(Sink& sink, bool eof) override {
    switch (st_) {
      case St::Start: return start_step(sink, eof);
      case St::Content: return content_step(sink, eof);
      case St::Open: return open_step(sink, eof);
      case St::Name: return name_step(sink);
      case St::Key: return key_step(sink);
      case St::Value: return value_step(sink);
      case St::Json: return json_step(sink);
      case St::Stream: return stream_step(sink);
      case St::Args: return args_step(sink);
      case St::StreamClose: return stream_close_step(sink, eof);
      case St::Close: return close_step(sink, eof);
      case St::After: return after_step(eof);
      case St::AfterBlock:
        if (!skip_ws()) return false;
        st_ = s_->start_only ? St::Text : St::Content;
        return true;
      case St::Text:
        text_until(sink, {}, TextKind::Content, eof);
        return false;
    }
    return false;
  }

  void body_end(Sink& sink) override {
    if (st_ == St::Key || st_ == St::Value) {  // a KEY/VALUE call announced, then cut short
      advance(rest().size());
      cut_streamed_call(sink, cur_, WarningKind::TruncatedCall, "output ended inside a call");
    } else if ((st_ == St::Stream || st_ == St::Args) && call_is_open())
      abandon_call(sink, WarningKind::TruncatedCall, "output ended inside a call", true);
    else if (st_ == St::Stream || st_ == St::Args || st_ == St::Open || st_ == St::Name || st_ == St::Json)
      give_back(sink, WarningKind::TruncatedCall, "output ended inside a call");
    else if (st_ == St::Start && recording_) {
      give_back_quietly(sink);
    }
  }

 private:
  enum class St { Start, Content, Open, Name, Key, Value, Json, Stream, Args, StreamClose, Close, After, AfterBlock, Text };

  // start_only: a call may open only here, at the start of the output.
  bool start_step(Sink& sink, bool eof) {
    if (!recording_) start_recording();
    if (!skip_ws()) return false;
    if (trigger_.empty()) {
      if (rest()[0] == '{') { enter_call(); return true; }
    } else {
      Match m = match(trigger_, eof);
      if (m == Match::NeedMore) return false;
      if (m == Match::Yes) { after_trigger(); return true; }
    }
    give_back_quietly(sink);
    st_ = St::Text;
    return true;
  }

  bool content_step(Sink& sink, bool eof) {
    int k = text_until(sink, {trigger_}, TextKind::Content, eof);
    if (k < 0) return false;
    start_recording(trigger_);
    after_trigger();
    return true;
  }

  // After block_open: call_open must follow.
  bool open_step(Sink& sink, bool eof) {
    size_t len = 0;
    int m = scan::match_any(rest(), {s_->call_open}, eof, &len);
    if (m == -2) return false;
    if (m < 0) {
      give_back(sink, WarningKind::MalformedCall, s_->block_open + " not followed by " + s_->call_open);
      st_ = s_->start_only ? St::Text : St::Content;
      return true;
    }
    advance(len);
    enter_call();
    return true;
  }

  // NameThenArgs / KeyValue: the tool's name up to name_sep.
  bool name_step(Sink& sink) {
    std::string_view r = rest();
    std::string_view sep = s_->name_sep.empty() ? std::string_view("{") : std::string_view(s_->name_sep);
    size_t p = r.substr(0, std::min(r.size(), kMaxName + sep.size())).find(sep);
    if (p == std::string_view::npos) {
      if (r.size() < kMaxName + sep.size()) return false;
      give_back(sink, WarningKind::MalformedCall, "no tool name before " + std::string(sep));
      st_ = St::Content;
      return true;
    }
    std::string_view name = r.substr(0, p);
    while (!name.empty() && scan::is_json_ws(name.front())) name.remove_prefix(1);
    while (!name.empty() && scan::is_json_ws(name.back())) name.remove_suffix(1);
    if (name.empty() || name.find_first_of(" \n\t\r<>{}") != std::string_view::npos) {
      advance(p);
      give_back(sink, WarningKind::MalformedCall, "not a tool name: '" + std::string(name) + "'");
      st_ = St::Content;
      return true;
    }
    name_.assign(name);
    advance(s_->name_sep.empty() ? p : p + sep.size());
    json_.reset();
    args_reader_.reset();
    st_ = St::Args;
    if (s_->form == InferredSpec::Form::KeyValue) {
      // Announced now; each value streams as it arrives, typed by the tool's schema as in the XML
      // families (text when no schema says otherwise).
      cur_ = calls_++;
      note_call(sink, cur_, name_);
      sink.on(ToolCallBegin{cur_, next_id(), name_});
      kv_.begin(sink, cur_, opts_.tools.is_list() ? &opts_.tools : nullptr, name_, {}, schema::Trim::Whitespace);
      st_ = St::Key;
    }
    return true;
  }

  // KeyValue: KEY up to kv_sep.
  bool key_step(Sink& sink) {
    std::string_view r = rest();
    size_t p = r.substr(0, std::min(r.size(), kMaxName + s_->kv_sep.size())).find(s_->kv_sep);
    if (p == std::string_view::npos) {
      if (r.size() < kMaxName + s_->kv_sep.size()) return false;
      cut_streamed_call(sink, cur_, WarningKind::MalformedCall, "no argument name before " + s_->kv_sep);
      st_ = St::Content;
      return true;
    }
    kv_.param(sink, trim_ws(r.substr(0, p)));
    advance(p + s_->kv_sep.size());
    st_ = St::Value;
    return true;
  }

  // KeyValue: VALUE up to arg_sep (another argument) or call_close (the end).
  bool value_step(Sink& sink) {
    std::string_view r = rest();
    scan::MarkerHit h = scan::find_marker(r, {s_->arg_sep, s_->call_close});
    // Bytes before a possible marker start are the value's for sure (linear: never re-scanned).
    size_t upto = h.which >= 0 ? h.pos : scan::utf8_safe_end(r.substr(0, h.pos));
    kv_.text(sink, r.substr(0, upto));
    advance(upto);
    if (h.which < 0) return false;
    advance(h.which == 0 ? s_->arg_sep.size() : s_->call_close.size());
    kv_.end_param(sink);
    if (h.which == 0) {
      st_ = St::Key;
      return true;
    }
    stop_recording();
    kv_.end(sink);  // "}" and the call's end
    note_call_end(cur_);
    st_ = St::After;
    return true;
  }

  // A call object whose name and arguments are members of it (or of its "function" member) streams
  // (CallReader): announced when its arguments start. Other shapes are read whole (json_step).
  bool stream_step(Sink& sink) {
    Read r = read_calls(calls_reader_, sink, "the call");
    if (r == Read::NeedMore) return false;
    if (r == Read::Cut) {
      st_ = s_->start_only ? St::Text : St::Content;
    } else if (r == Read::NotCall && !calls_reader_.json_ended()) {
      give_back(sink, WarningKind::MalformedCall, calls_reader_.json_invalid() ? "the call is not valid JSON" : "the JSON is not a call");
      st_ = s_->start_only ? St::Text : St::Content;
    } else {
      not_call_ = r == Read::NotCall;
      st_ = St::StreamClose;
    }
    return true;
  }
  // NameThenArgs: the arguments object streams (ArgsReader) once the name is read.
  bool args_step(Sink& sink) {
    Read r = read_args(args_reader_, sink, "", name_, "the arguments", OnArgsDone::FamilyCloses, NotArgs::Report);
    if (r == Read::NeedMore) return false;
    if (r == Read::NotCall) give_back(sink, WarningKind::MalformedCall, "the arguments of '" + name_ + "' are not a JSON object");
    st_ = r == Read::Done ? St::StreamClose : s_->start_only ? St::Text : St::Content;
    return true;
  }
  // After a streamed call: its close marker (a missing one is warned about).
  bool stream_close_step(Sink& sink, bool eof) {
    int m = close_marker(eof);
    if (m == -2) return false;
    if (not_call_) {
      not_call_ = false;
      give_back(sink, WarningKind::MalformedCall, "the JSON is not a call");
      st_ = s_->start_only ? St::Text : St::Content;
      return true;
    }
    if (call_is_open()) close_call(sink);
    stop_recording();
    if (m != 0) warn(sink, WarningKind::MissingCloseMarker, "call without " + s_->call_close);
    st_ = St::After;
    return true;
  }

  // The call's close marker: 0 read (or the spec has none), -1 missing, -2 more input needed.
  int close_marker(bool eof) {
    if (s_->call_close.empty()) return 0;
    size_t len = 0;
    int m = scan::match_any(rest(), {s_->call_close}, eof, &len);
    if (m == 0) advance(len);
    return m;
  }

  bool json_step(Sink& sink) {
    advance(json_.feed(rest()));
    if (json_.state() == scan::JsonScanner::State::Error) {
      give_back(sink, WarningKind::MalformedCall, "the call is not valid JSON");
      st_ = s_->start_only ? St::Text : St::Content;
      return true;
    }
    if (json_.state() != scan::JsonScanner::State::Done) return false;
    st_ = St::Close;
    return true;
  }

  // After the call's JSON: its close marker, then the call is emitted (or given back).
  bool close_step(Sink& sink, bool eof) {
    int m = close_marker(eof);
    if (m == -2) return false;
    if (!emit(sink)) {
      give_back(sink, WarningKind::MalformedCall, "the JSON is not a call");
      st_ = s_->start_only ? St::Text : St::Content;
      return true;
    }
    stop_recording();
    if (m != 0) warn(sink, WarningKind::MissingCloseMarker, "call without " + s_->call_close);
    st_ = St::After;
    return true;
  }

  // After a call: a separator, the next call, the block's close, or the end of the calls.
  bool after_step(bool eof) {
    std::vector<std::string_view> lits;
    std::vector<int> kind;  // 0 separator, 1 call_open, 2 block_close
    auto add = [&](const std::string& l, int k) {
      if (!l.empty()) { lits.push_back(l); kind.push_back(k); }
    };
    add(s_->separator, 0);
    add(s_->call_open, 1);
    add(s_->block_close, 2);
    size_t len = 0;
    int m = lits.empty() ? -1 : scan::match_any(rest(), lits, eof, &len);
    if (m == -2) return false;
    if (m >= 0) {
      if (kind[m] == 2) {
        advance(len);
        st_ = St::AfterBlock;
        return true;
      }
      start_recording();
      advance(len);
      if (kind[m] == 1 || s_->call_open.empty()) enter_call();
      else st_ = St::Open;
      return true;
    }
    // Bare JSON calls one after the other: the next '{' is the next call.
    if (s_->form == InferredSpec::Form::CallObject && s_->call_open.empty() && s_->separator.empty()) {
      if (!skip_ws()) return false;
      if (rest()[0] == '{') {
        start_recording();
        enter_call();
        return true;
      }
    }
    st_ = St::AfterBlock;
    return true;
  }


  static std::string trim_ws(std::string_view v) {
    while (!v.empty() && scan::is_json_ws(v.front())) v.remove_prefix(1);
    while (!v.empty() && scan::is_json_ws(v.back())) v.remove_suffix(1);
    return std::string(v);
  }

  void after_trigger() {
    if (!s_->block_open.empty() && !s_->call_open.empty()) st_ = St::Open;
    else enter_call();
  }
  void enter_call() {
    json_.reset();
    st_ = s_->form != InferredSpec::Form::CallObject ? St::Name : streams_calls() ? St::Stream : St::Json;
    if (st_ == St::Stream) {
      const auto& np = s_->name_path;
      const auto& ap = s_->args_path;
      calls_reader_.reset(scan::CallReader::Mode::Object, {ap.back()}, s_->id_path.size() == np.size(), np.back(),
                          s_->id_path.empty() ? std::string_view("id") : std::string_view(s_->id_path.back()),
                          np.size() == 2 ? std::string_view(np[0]) : std::string_view("function"));
    }
  }
  // The spec's paths are ones CallReader reads: NAME, ARGS (and ID) members of the call object,
  // or all of them members of one member of it ({"function": {...}}, {"tool_call": {...}}).
  // Deeper paths are read whole.
  bool streams_calls() const {
    const auto& np = s_->name_path;
    const auto& ap = s_->args_path;
    const auto& ip = s_->id_path;
    if (np.empty() || np.size() != ap.size() || np.size() > 2 || (!ip.empty() && ip.size() != np.size())) return false;
    if (np.size() == 2 && (np[0] != ap[0] || (!ip.empty() && ip[0] != np[0]) || np[0] == np[1] || np[0] == ap[1]))
      return false;
    return np.back() != ap.back();
  }

  bool emit(Sink& sink) {
    std::optional<Value> parsed = json_value(json_.text());
    if (!parsed) return false;
    const Value& v = *parsed;
    if (s_->form == InferredSpec::Form::NameThenArgs) {
      if (!v.is_dict()) return false;
      emit_call(sink, "", name_, v);
      return true;
    }
    const Value* name = at_path(v, s_->name_path);
    if (!name || !name->is_str() || name->str().empty()) return false;
    const Value* args = at_path(v, s_->args_path);
    const Value* id = s_->id_path.empty() ? nullptr : at_path(v, s_->id_path);
    emit_call(sink, id && id->is_str() ? std::string(id->str()) : std::string(), std::string(name->str()), args ? *args : Value::dict());
    return true;
  }

  std::shared_ptr<const InferredSpec> s_;
  std::string trigger_;
  St st_;
  std::string name_;
  scan::JsonScanner json_;
  scan::CallReader calls_reader_;
  scan::ArgsReader args_reader_;
  bool not_call_ = false;  // the streamed JSON ended without being a call
  schema::ArgsWriter kv_;  // KEY/VALUE arguments
  size_t cur_ = 0;         // the KEY/VALUE call's index
};

Value strings(const std::vector<std::string>& v) {
  std::vector<Value> out;
  for (const auto& s : v) out.push_back(Value::string(s));
  return Value::list(std::move(out));
}

}  // namespace

std::unique_ptr<StreamParser> InferredDialect::make_parser(const ParseOptions& opts) const {
  return guard_output(std::make_unique<InferredParser>(opts, spec_), opts);
}

ParserFactory InferredDialect::factory() const {
  auto spec = spec_;
  return [spec](const ParseOptions& o) -> std::unique_ptr<StreamParser> {
    return guard_output(std::make_unique<InferredParser>(o, spec), o);
  };
}

Value InferredSpec::to_json() const {
  Value o = Value::dict();
  auto put = [&](const char* k, Value v) { o.dict_obj().set(Value::string(k), std::move(v)); };
  put("form", Value::string(form == Form::CallObject ? "call_object" : form == Form::NameThenArgs ? "name_then_arguments" : "key_value"));
  put("block_open", Value::string(block_open));
  put("call_open", Value::string(call_open));
  if (form != Form::CallObject) put("name_separator", Value::string(name_sep));
  if (form == Form::KeyValue) {
    put("key_value_separator", Value::string(kv_sep));
    put("argument_separator", Value::string(arg_sep));
  }
  put("call_close", Value::string(call_close));
  put("separator", Value::string(separator));
  put("block_close", Value::string(block_close));
  if (form == Form::CallObject) {
    put("name_path", strings(name_path));
    put("arguments_path", strings(args_path));
    if (!id_path.empty()) put("id_path", strings(id_path));
  }
  put("parallel", Value::boolean(parallel));
  put("start_only", Value::boolean(start_only));
  return o;
}

}  // namespace toolchat::dialects
