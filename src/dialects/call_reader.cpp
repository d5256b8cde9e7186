#include "dialects/call_reader.hpp"

#include "dialects/json_util.hpp"
#include "dialects/py_kwargs_stream.hpp"

namespace toolchat::dialects::scan {

using Stop = JsonStream::Stop;

namespace {
// A canonical JSON string's value (JsonStream wrote it: no escape but the canonical ones).
bool decode_string(const std::string& canonical, std::string* out) {
  if (canonical.size() < 2 || canonical.front() != '"') return false;
  if (canonical.find('\\') == std::string::npos) {
    out->assign(canonical, 1, canonical.size() - 2);
    return true;
  }
  std::optional<Value> v = json_value(canonical);
  if (!v || !v->is_str()) return false;
  *out = v->str();
  return true;
}
}  // namespace

ArgsReader::Status ArgsReader::step(ParserBase& p, Sink& sink, const std::string& id, const std::string& name) {
  for (;;) {
    p.advance(js_.feed(p.rest()));
    Stop st = js_.stop();
    if (st == Stop::ValueStart) {
      if (js_.kind() != '{' && !(arrays_ && js_.kind() == '[')) return Status::NotObject;
      if (!p.call_is_open()) p.open_call(sink, id, name);
      continue;
    }
    p.take_call_text(sink, js_.out());
    switch (st) {
      case Stop::Done: return Status::Done;
      case Stop::Error: return p.call_is_open() ? Status::Broken : Status::NotObject;
      case Stop::NeedMore: return Status::NeedMore;
      default: break;
    }
  }
}

ParserBase::Read ParserBase::read_args(ArgsReader& r, Sink& sink, const std::string& id, const std::string& name,
                                      std::string_view what, OnArgsDone on_done, NotArgs not_args) {
  switch (r.step(*this, sink, id, name)) {
    case ArgsReader::Status::NeedMore: return Read::NeedMore;
    case ArgsReader::Status::Done:
      if (on_done == OnArgsDone::CloseCall) {
        stop_recording();
        close_call(sink);
      }
      return Read::Done;
    case ArgsReader::Status::NotObject:
      if (not_args == NotArgs::Report) return Read::NotCall;
      break;
    case ArgsReader::Status::Broken: break;
  }
  abandon_call(sink, WarningKind::MalformedCall, std::string(what) + " of '" + name + "': not a valid JSON object");
  return Read::Cut;
}

ParserBase::Read ParserBase::read_kwargs(pylit::KwargsStream& k, Sink& sink, const std::string& name, bool eof,
                                        NotArgs not_args) {
  size_t used = 0;
  pylit::KwargsStream::Status s = k.step(*this, sink, name, rest(), eof, &used);
  advance(used);
  switch (s) {
    case pylit::KwargsStream::Status::NeedMore: return Read::NeedMore;
    case pylit::KwargsStream::Status::Done:
      stop_recording();
      close_call(sink);
      return Read::Done;
    case pylit::KwargsStream::Status::NotKwargs:
      if (not_args == NotArgs::Report) return Read::NotCall;
      break;
    case pylit::KwargsStream::Status::Broken: break;
  }
  abandon_call(sink, WarningKind::MalformedCall, "call to '" + name + "' with arguments that are not keyword literals");
  return Read::Cut;
}

ParserBase::Read ParserBase::read_calls(CallReader& r, Sink& sink, std::string_view what) {
  switch (r.step(*this, sink)) {
    case CallReader::Status::NeedMore: return Read::NeedMore;
    case CallReader::Status::Done: stop_recording(); return Read::Done;
    case CallReader::Status::NotACall: return Read::NotCall;
    case CallReader::Status::Broken: break;
  }
  abandon_call(sink, WarningKind::MalformedCall, std::string(what) + " stopped being a call");
  return Read::Cut;
}

void CallReader::reset(Mode mode, std::initializer_list<std::string_view> args_keys, bool keep_id,
                       std::string_view name_key, std::string_view id_key, std::string_view wrapper_key) {
  js_.reset(3);
  mode_ = mode;
  n_args_keys_ = 0;
  for (std::string_view k : args_keys)
    if (n_args_keys_ < 3) args_keys_[n_args_keys_++] = k;
  name_key_ = name_key;
  id_key_ = id_key;
  wrapper_key_ = wrapper_key;
  keep_id_ = keep_id;
  list_ = false;
  base_ = 0;
  calls_ = 0;
  start_element();
}

void CallReader::start_element() {
  field_ = Field::Other;
  cap_ = Capture::None;
  in_function_ = bad_ = have_name_ = have_args_ = began_ = false;
  name_.clear();
  id_.clear();
  cap_text_.clear();
  args_.clear();
}

CallReader::Field CallReader::field_of(std::string_view k) const {
  if (k.size() < 2 || k.front() != '"' || k.back() != '"') return Field::Other;
  k = k.substr(1, k.size() - 2);
  if (k == name_key_) return Field::Name;
  if (k == id_key_) return Field::Id;
  if (k == wrapper_key_) return Field::Function;
  for (size_t i = 0; i < n_args_keys_; ++i)
    if (k == args_keys_[i]) return Field::Args;
  return Field::Other;
}

void CallReader::take_out(ParserBase& p, Sink& sink) {
  std::string& o = js_.out();
  switch (cap_) {
    case Capture::ArgsStream: p.take_call_text(sink, o); break;
    case Capture::ArgsBuffer: args_ += o; break;
    case Capture::Name:
    case Capture::Id: cap_text_ += o; break;
    case Capture::Skip: break;
    case Capture::None: return;  // between members: a key may be cut by the input's end; kept
  }
  o.clear();
}

CallReader::Status CallReader::on_value_start(ParserBase& p, Sink& sink) {
  const size_t d = js_.depth();
  const char k = js_.kind();
  if (d == 0) {
    if (k == '[' && mode_ != Mode::Object) {
      list_ = true;
      base_ = 1;
      js_.set_watch(3);
      return Status::NeedMore;
    }
    if (k == '{' && mode_ != Mode::List) {
      js_.set_watch(2);
      return Status::NeedMore;
    }
    return Status::NotACall;
  }
  if (list_ && d == 1) {
    if (k != '{' && skip_bad_elements) {
      cap_ = Capture::Skip;
      js_.set_watch(1);
      return Status::NeedMore;
    }
    if (k != '{') return calls_ ? Status::Broken : Status::NotACall;
    start_element();
    if (calls_ > 0) p.start_recording();  // a later call's own text, for when it is cut short
    return Status::NeedMore;
  }
  const bool member = d == base_ + 1 || (in_function_ && d == base_ + 2);
  const Field f = member ? field_ : Field::Other;
  field_ = Field::Other;
  cap_ = Capture::Skip;
  switch (f) {
    case Field::Name:
      if (have_name_) break;
      if (k != '"') bad_ = true;
      else cap_ = Capture::Name;
      break;
    case Field::Id:
      if (d == base_ + 1 && keep_id_ && id_.empty() && (k == '"' || (id_key_ != "id" && (k == '-' || (k >= '0' && k <= '9')))))
        cap_ = Capture::Id;
      break;
    case Field::Args:
      if (have_args_) break;
      have_args_ = true;
      if (k == '{' && have_name_ && !bad_) {
        p.open_call(sink, id_, name_);
        began_ = true;
        cap_ = Capture::ArgsStream;
      } else {
        cap_ = Capture::ArgsBuffer;
      }
      break;
    case Field::Function:
      if (k == '{' && !have_name_ && d == base_ + 1 && !in_function_) {
        in_function_ = true;
        cap_ = Capture::None;
        return Status::NeedMore;  // its members are read as the call's
      }
      break;
    case Field::Other: break;
  }
  cap_text_.clear();
  js_.set_watch(d);  // no stops inside the value
  return Status::NeedMore;
}

void CallReader::on_value_end(ParserBase& p, Sink& sink) {
  switch (cap_) {
    case Capture::Name:
      if (decode_string(cap_text_, &name_) && !name_.empty()) {
        have_name_ = true;
        // Arguments that came first are announced with the name.
        if (have_args_ && !args_.empty() && args_[0] == '{' && !bad_) {
          p.open_call(sink, id_, name_);
          p.call_text(sink, args_);
          began_ = true;
        }
      } else {
        bad_ = true;
      }
      break;
    case Capture::Id:
      if (!decode_string(cap_text_, &id_) && !cap_text_.empty() && cap_text_[0] != '"') id_ = cap_text_;  // an integer id
      break;
    default: break;
  }
  cap_ = Capture::None;
  cap_text_.clear();
  js_.set_watch(base_ + 2);
}

bool CallReader::finish_element(ParserBase& p, Sink& sink) {
  if (bad_ || !have_name_) return false;
  if (!began_) {
    if (!have_args_ || args_ == "null") {
      p.open_call(sink, id_, name_);
      p.call_text(sink, "{}");
    } else {
      // Arguments given as a string holding an object: that object, read the same way.
      std::optional<Value> v = json_value(args_);
      if (v && v->is_str()) {
        JsonStream inner;
        std::string_view s = v->str();
        size_t used = inner.feed(s);
        if (inner.stop() == Stop::ValueStart && inner.kind() == '{') used += inner.feed(std::string_view(s).substr(used));
        bool only_ws = true;
        for (size_t i = used; i < s.size(); ++i) only_ws = only_ws && is_json_ws(s[i]);
        if (inner.stop() == Stop::Done && only_ws) {
          p.open_call(sink, id_, name_);
          p.take_call_text(sink, inner.out());
          p.close_call(sink);
          ++calls_;
          return true;
        }
      }
      // Not an object: kept as given, with a warning (emit_call decides).
      p.emit_call(sink, id_, name_, v ? *v : Value::string(args_));
      ++calls_;
      return true;
    }
  }
  p.close_call(sink);
  ++calls_;
  return true;
}

void CallReader::prime(ParserBase& p, Sink& sink, std::string_view head) {
  while (!head.empty()) {
    head.remove_prefix(js_.feed(head));
    if (js_.stop() != Stop::ValueStart || on_value_start(p, sink) != Status::NeedMore) break;
  }
  take_out(p, sink);
}

CallReader::Status CallReader::step(ParserBase& p, Sink& sink) {
  for (;;) {
    p.advance(js_.feed(p.rest()));
    const Stop st = js_.stop();
    switch (st) {
      case Stop::NeedMore:
        take_out(p, sink);
        return Status::NeedMore;
      case Stop::ValueStart: {
        take_out(p, sink);
        js_.out().clear();  // what came before the value (':' or ',')
        Status s = on_value_start(p, sink);
        if (s != Status::NeedMore) return s;
        continue;
      }
      case Stop::Key: {
        const size_t d = js_.depth();
        std::string& o = js_.out();
        // `{"key"` or `,"key"`: nothing else was written since the last stop.
        if (cap_ == Capture::None && (d == base_ + 1 || (in_function_ && d == base_ + 2)) && o.size() > 1)
          field_ = field_of(std::string_view(o).substr(1));
        else
          field_ = Field::Other;
        o.clear();
        continue;
      }
      case Stop::ValueEnd: {
        take_out(p, sink);
        js_.out().clear();
        const size_t d = js_.depth();
        if (cap_ == Capture::None) {
          if (in_function_ && d == base_ + 1) {
            in_function_ = false;
            continue;
          }
        }
        if (list_ && d == 1 && (cap_ == Capture::None || cap_ == Capture::Skip)) {  // a list element ended
          bool call = cap_ == Capture::None && finish_element(p, sink);
          cap_ = Capture::None;
          js_.set_watch(3);
          if (call) continue;
          if (!skip_bad_elements) return calls_ ? Status::Broken : Status::NotACall;
          p.warn(sink, WarningKind::MalformedCall, "an array element is not a call");
          continue;
        }
        on_value_end(p, sink);
        continue;
      }
      case Stop::Done:
        take_out(p, sink);
        if (!list_) return finish_element(p, sink) ? Status::Done : Status::NotACall;
        return calls_ ? Status::Done : Status::NotACall;
      case Stop::Error:
        take_out(p, sink);
        return p.call_is_open() || calls_ ? Status::Broken : Status::NotACall;
    }
  }
}

}  // namespace toolchat::dialects::scan
