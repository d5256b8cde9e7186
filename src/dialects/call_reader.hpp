// Readers that stream JSON calls as the model writes them, on a ParserBase: the call is announced
// once its name is known and its arguments' canonical text (JsonStream) is emitted as it arrives.
//
// ArgsReader: the arguments object alone, after a family's own name marker (kimi_k2, deepseek,
// functionary, gpt_oss, glm4, mistral's [ARGS], ...).
// CallReader: a call object {"name": N, "arguments": {...}} (or {"function": {...}}), or an array
// of them (hermes, llama3, mistral, granite, phi4_mini, ...). The call is announced when its
// arguments object starts (an "id" written before it is kept; one written after it is not, as it
// can no longer go with the announcement), or at the object's end when the arguments come before
// the name or are not an object.
//
// Both read from the parser's rest() and advance() it, so the parser's recording (a call's source
// text) stays complete. On Broken, the parser decides what the rest is (abandon_call()).
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>

#include "dialects/json_stream.hpp"
#include "dialects/scan.hpp"

namespace toolchat::dialects::scan {

class ArgsReader {
 public:
  enum class Status {
    NeedMore,
    Done,       // the object ended; the call is open (the family closes it once its close marker is read)
    NotObject,  // the text is not a JSON object (nothing emitted, nothing consumed but whitespace)
    Broken,     // the object's text turned invalid after the call was announced (still open)
  };
  // `arrays`: a JSON array is read (and streamed) as the arguments too, where the family gives it
  // as written (ReAct / LLaMA-Factory, with an InvalidArguments warning of the family's).
  void reset(bool arrays = false) {
    js_.reset(0);
    arrays_ = arrays;
  }
  Status step(ParserBase& p, Sink& sink, const std::string& id, const std::string& name);

 private:
  JsonStream js_;
  bool arrays_ = false;
};

class CallReader {
 public:
  enum class Mode { Object, List, Either };
  enum class Status {
    NeedMore,
    Done,      // the object / list ended; every call in it was emitted and closed
    NotACall,  // no call was emitted; the text read so far (recorded by the parser) is not one
    Broken,    // a call was emitted or is open, then the text stopped being a call
  };
  // name_key / id_key: the keys holding the name and the id (Command R7B: "tool_name" and
  // "tool_call_id", whose integer ids are kept as written; other ids must be strings).
  // wrapper_key: the member whose object holds the name and arguments instead ("function", or what
  // an inferred spec's paths name).
  void reset(Mode mode, std::initializer_list<std::string_view> args_keys, bool keep_id,
             std::string_view name_key = "name", std::string_view id_key = "id",
             std::string_view wrapper_key = "function");
  Status step(ParserBase& p, Sink& sink);
  // Reads the JSON's first bytes from elsewhere than the input (a marker that ends with them:
  // "functools[").
  void prime(ParserBase& p, Sink& sink, std::string_view head);
  size_t calls() const { return calls_; }  // calls completed
  // In a list, an element that is not a call is skipped with a MalformedCall warning (Mistral)
  // instead of ending the list.
  bool skip_bad_elements = false;
  bool is_list() const { return list_; }
  bool json_ended() const { return js_.stop() == JsonStream::Stop::Done; }
  bool json_invalid() const { return js_.stop() == JsonStream::Stop::Error; }

 private:
  enum class Field : unsigned char { Other, Name, Id, Args, Function };
  enum class Capture : unsigned char { None, Name, Id, ArgsStream, ArgsBuffer, Skip };
  void start_element();
  Field field_of(std::string_view key_text) const;
  // The element object ended: emit (or close) its call. False when it is not a call.
  bool finish_element(ParserBase& p, Sink& sink);
  Status on_value_start(ParserBase& p, Sink& sink);
  void on_value_end(ParserBase& p, Sink& sink);
  void take_out(ParserBase& p, Sink& sink);

  JsonStream js_;
  Mode mode_ = Mode::Object;
  std::string_view args_keys_[3];
  size_t n_args_keys_ = 0;
  std::string_view name_key_ = "name", id_key_ = "id", wrapper_key_ = "function";
  bool keep_id_ = true;
  bool list_ = false;
  size_t base_ = 0;  // depth of the call object's own value (0; 1 inside a list)
  size_t calls_ = 0;
  // The element being read.
  Field field_ = Field::Other;
  Capture cap_ = Capture::None;
  bool in_function_ = false, bad_ = false, have_name_ = false, have_args_ = false, began_ = false;
  std::string name_, id_, cap_text_, args_;
};

}  // namespace toolchat::dialects::scan
