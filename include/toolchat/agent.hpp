// The C++ client: tools bound to C++ callables (their JSON schema derived from the parameter types
// and the names you give), a chat in-process through the gateway's machinery (template, backend,
// dialect parser, tool policy; no HTTP server of ours in between), and an agent loop that runs the
// calls, feeds the results back and stops at a final answer or a step limit.
//
//   agent::Client client(cfg);                       // cfg: gateway::Config (model, backend, ...)
//   auto weather = agent::tool("get_weather", "Current weather", {"city", "celsius"},
//                              [](std::string city, std::optional<bool> celsius) { return "sunny"; });
//   agent::Result r = agent::run(client, agent::user("Weather in Paris?"), {weather});
//   std::cout << r.answer;
//
// Parameter types: std::string -> "string", bool -> "boolean", integers -> "integer", floating point
// -> "number", std::vector<T> -> "array" of T, std::optional<T> -> T and not required, Value -> any
// JSON. The callable returns std::string (sent as is), void, or anything to_json() accepts.
//
// Ownership: a Client owns its gateway (the compiled template, the backend connection settings);
// Tools own their callables. Thread safety: a Client serves one chat at a time; use one per thread.
// Errors: gateway::ApiError from chat() (the OpenAI error the HTTP gateway would answer with);
// Error(ValueError) for a tool bound wrongly; a tool's own exceptions become "error: ..." results.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "toolchat/error.hpp"
#include "toolchat/gateway.hpp"
#include "toolchat/value.hpp"

namespace toolchat::gateway {
class Gateway;  // internal: the gateway's request pipeline
}  // namespace toolchat::gateway

namespace toolchat::agent {

struct Tool {
  std::string name, description;
  Value parameters;                                // JSON schema (an object)
  std::function<std::string(const Value& args)> call;  // throws Error(ValueError) on bad arguments
  Value openai_json() const;                       // {"type": "function", "function": {...}}
};

namespace detail {

template <class T> struct Param;
template <> struct Param<std::string> {
  static void schema(Value& s) { s.dict_obj().set(Value::string("type"), Value::string("string")); }
  static std::string from(const Value& v, const std::string& where) {
    if (!v.is_str()) throw Error(ErrorKind::ValueError, where + ": expected a string");
    return std::string(v.str());
  }
  static constexpr bool optional = false;
};
template <> struct Param<bool> {
  static void schema(Value& s) { s.dict_obj().set(Value::string("type"), Value::string("boolean")); }
  static bool from(const Value& v, const std::string& where) {
    if (!v.is_bool()) throw Error(ErrorKind::ValueError, where + ": expected true or false");
    return v.as_bool();
  }
  static constexpr bool optional = false;
};
template <> struct Param<Value> {
  static void schema(Value&) {}
  static Value from(const Value& v, const std::string&) { return v; }
  static constexpr bool optional = false;
};
template <class T>
  requires(std::is_integral_v<T> && !std::is_same_v<T, bool>)
struct Param<T> {
  static void schema(Value& s) { s.dict_obj().set(Value::string("type"), Value::string("integer")); }
  static T from(const Value& v, const std::string& where) {
    if (v.is_int()) return static_cast<T>(v.as_int());
    if (v.is_float() && v.as_float() == static_cast<double>(static_cast<int64_t>(v.as_float())))
      return static_cast<T>(v.as_float());
    throw Error(ErrorKind::ValueError, where + ": expected an integer");
  }
  static constexpr bool optional = false;
};
template <class T>
  requires std::is_floating_point_v<T>
struct Param<T> {
  static void schema(Value& s) { s.dict_obj().set(Value::string("type"), Value::string("number")); }
  static T from(const Value& v, const std::string& where) {
    if (v.is_int() || v.is_float()) return static_cast<T>(v.to_double());
    throw Error(ErrorKind::ValueError, where + ": expected a number");
  }
  static constexpr bool optional = false;
};
template <class T> struct Param<std::vector<T>> {
  static void schema(Value& s) {
    s.dict_obj().set(Value::string("type"), Value::string("array"));
    Value items = Value::dict();
    Param<T>::schema(items);
    s.dict_obj().set(Value::string("items"), items);
  }
  static std::vector<T> from(const Value& v, const std::string& where) {
    if (!v.is_list()) throw Error(ErrorKind::ValueError, where + ": expected an array");
    std::vector<T> out;
    for (size_t i = 0; i < v.items().size(); ++i)
      out.push_back(Param<T>::from(v.items()[i], where + "[" + std::to_string(i) + "]"));
    return out;
  }
  static constexpr bool optional = false;
};
template <class T> struct Param<std::optional<T>> {
  static void schema(Value& s) { Param<T>::schema(s); }
  static std::optional<T> from(const Value& v, const std::string& where) {
    if (v.is_undefined() || v.is_none()) return std::nullopt;
    return Param<T>::from(v, where);
  }
  static constexpr bool optional = true;
};

template <class T> using Bare = std::remove_cvref_t<T>;

template <class F> struct Signature : Signature<decltype(&F::operator())> {};
template <class C, class R, class... A> struct Signature<R (C::*)(A...) const> {
  using Ret = R;
  using Args = std::tuple<Bare<A>...>;
};
template <class C, class R, class... A> struct Signature<R (C::*)(A...)> : Signature<R (C::*)(A...) const> {};
template <class R, class... A> struct Signature<R (*)(A...)> {
  using Ret = R;
  using Args = std::tuple<Bare<A>...>;
};

// The result as the tool message's content: strings as they are, other values as JSON.
std::string result_text(const Value& v);
template <class R> std::string to_text(R&& r) {
  if constexpr (std::is_convertible_v<R, std::string>) return std::string(std::forward<R>(r));
  else if constexpr (std::is_same_v<Bare<R>, Value>) return result_text(r);
  else if constexpr (std::is_same_v<Bare<R>, bool>) return r ? "true" : "false";
  else if constexpr (std::is_arithmetic_v<Bare<R>>) return result_text(std::is_integral_v<Bare<R>> ? Value::integer(static_cast<int64_t>(r)) : Value::floating(static_cast<double>(r)));
  else return result_text(to_json(std::forward<R>(r)));  // user-provided to_json(R) -> Value
}

template <class Args, size_t... I>
Value schema_of(const std::vector<std::string>& names, std::index_sequence<I...>) {
  Value props = Value::dict();
  std::vector<Value> required;
  auto one = [&](auto tag, size_t i) {
    using T = typename decltype(tag)::type;
    Value s = Value::dict();
    Param<T>::schema(s);
    props.dict_obj().set(Value::string(names[i]), s);
    if (!Param<T>::optional) required.push_back(Value::string(names[i]));
  };
  (one(std::type_identity<std::tuple_element_t<I, Args>>{}, I), ...);
  Value schema = Value::dict();
  schema.dict_obj().set(Value::string("type"), Value::string("object"));
  schema.dict_obj().set(Value::string("properties"), props);
  schema.dict_obj().set(Value::string("required"), Value::list(std::move(required)));
  return schema;
}

template <class Args, class F, size_t... I>
std::string invoke(F& f, const std::vector<std::string>& names, const Value& args, std::index_sequence<I...>) {
  auto arg = [&](size_t i) -> Value {
    const Value* v = args.is_dict() ? args.dict_obj().find(names[i]) : nullptr;
    return v ? *v : Value();
  };
  using R = typename Signature<F>::Ret;
  if constexpr (std::is_void_v<R>) {
    f(Param<std::tuple_element_t<I, Args>>::from(arg(I), names[I])...);
    return "done";
  } else {
    return to_text(f(Param<std::tuple_element_t<I, Args>>::from(arg(I), names[I])...));
  }
}

}  // namespace detail

// Binds a callable: one name per parameter, in order. Throws Error(ValueError) when the counts differ.
template <class F>
Tool tool(std::string name, std::string description, std::vector<std::string> param_names, F f) {
  using Args = typename detail::Signature<F>::Args;
  constexpr size_t n = std::tuple_size_v<Args>;
  if (param_names.size() != n)
    throw Error(ErrorKind::ValueError, "tool '" + name + "': " + std::to_string(param_names.size()) +
                                           " parameter names for " + std::to_string(n) + " parameters");
  Tool t;
  t.name = std::move(name);
  t.description = std::move(description);
  t.parameters = detail::schema_of<Args>(param_names, std::make_index_sequence<n>{});
  t.call = [f = std::move(f), names = std::move(param_names)](const Value& args) mutable {
    if (!args.is_dict()) throw Error(ErrorKind::ValueError, "arguments: expected a JSON object");
    return detail::invoke<Args>(f, names, args, std::make_index_sequence<n>{});
  };
  return t;
}

// [{"role": "user", "content": text}]
Value user(const std::string& text);

struct ChatOptions {
  Value tool_choice;                   // undefined: auto; "none", "required", {"type": "function", ...}
  bool parallel_tool_calls = true;
  std::optional<int64_t> max_tokens;
  std::optional<double> temperature;
};

// The assistant's message as the OpenAI API returns it ({"role", "content", "reasoning_content"?,
// "tool_calls"?}) plus the finish reason.
struct Reply {
  Value message;
  std::string finish_reason;
};

class Client {
 public:
  explicit Client(const gateway::Config& cfg);
  ~Client();
  // One chat completion. Throws gateway::ApiError (bad messages, backend failures, tool_choice).
  Reply chat(const Value& messages, const std::vector<Tool>& tools = {}, const ChatOptions& opts = {});

 private:
  std::unique_ptr<gateway::Gateway> gw_;
};

struct Result {
  std::string answer;       // the final assistant content ("" when the step limit was hit)
  Value messages;           // the whole conversation, tool calls and results included
  int steps = 0;            // model calls made
  bool step_limit = false;  // stopped because max_steps model calls all asked for tools
};

// The agent loop: chat; run every call (unknown tools and bad arguments answer the model with an
// "error: ..." result instead of stopping); append results; repeat until an answer without calls or
// max_steps model calls.
Result run(Client& client, Value messages, const std::vector<Tool>& tools, int max_steps = 8,
           const ChatOptions& opts = {});

}  // namespace toolchat::agent
