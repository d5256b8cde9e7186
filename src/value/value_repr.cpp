// Python str() and repr() of every value, byte for byte.
#include <charconv>
#include <cmath>

#include "toolchat/value.hpp"
#include "value/pystr.hpp"

namespace toolchat {

namespace {
constexpr int kMaxReprDepth = 200;

void append_int(std::string& out, int64_t i) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, i);
  out.append(buf, r.ptr);
}

void repr_rec(std::string& out, const Value& v, int depth);

void repr_seq(std::string& out, const std::vector<Value>& items, int depth) {
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ", ";
    repr_rec(out, items[i], depth + 1);
  }
}

void repr_rec(std::string& out, const Value& v, int depth) {
  if (depth > kMaxReprDepth)
    throw Error(ErrorKind::RecursionError, "maximum recursion depth exceeded while getting the repr of an object");
  switch (v.type()) {
    case Type::Undefined: out += "Undefined"; return;
    case Type::Str:
      if (v.is_markup()) {
        out += "Markup(";
        pystr::repr_append(out, v.str());
        out += ")";
      } else {
        pystr::repr_append(out, v.str());
      }
      return;
    case Type::List: {
      const ListObj& l = v.list_obj();
      switch (l.lkind) {
        case ListKind::List: out += '['; repr_seq(out, l.items, depth); out += ']'; return;
        case ListKind::Tuple:
          out += '(';
          repr_seq(out, l.items, depth);
          if (l.items.size() == 1) out += ',';
          out += ')';
          return;
        case ListKind::DictKeys: out += "dict_keys(["; repr_seq(out, l.items, depth); out += "])"; return;
        case ListKind::DictValues: out += "dict_values(["; repr_seq(out, l.items, depth); out += "])"; return;
        case ListKind::DictItems: out += "dict_items(["; repr_seq(out, l.items, depth); out += "])"; return;
        case ListKind::Range:
          if (l.range_big.size() == 3) {
            out += "range(";
            py_str_append(out, l.range_big[0]);
            out += ", ";
            py_str_append(out, l.range_big[1]);
            if (!(l.range_big[2].is_int() && l.range_big[2].as_int() == 1)) {
              out += ", ";
              py_str_append(out, l.range_big[2]);
            }
            out += ')';
            return;
          }
          out += "range(";
          append_int(out, l.range_start);
          out += ", ";
          append_int(out, l.range_stop);
          if (l.range_step != 1) { out += ", "; append_int(out, l.range_step); }
          out += ')';
          return;
      }
      return;
    }
    case Type::Dict: {
      out += '{';
      bool first = true;
      for (const auto& [k, val] : v.dict_obj().entries) {
        if (!first) out += ", ";
        first = false;
        repr_rec(out, k, depth + 1);
        out += ": ";
        repr_rec(out, val, depth + 1);
      }
      out += '}';
      return;
    }
    case Type::Object: v.obj()->append_repr(out); return;
    default: py_str_append(out, v); return;
  }
}
}  // namespace

std::string string_repr(std::string_view s) { return pystr::repr(s); }

std::string float_repr(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<size_t>(res.ptr - buf));
  // sci: [-]D[.DDD]e(+|-)XX  (shortest round-trip digits)
  std::string out;
  size_t i = 0;
  if (sci[0] == '-') { out += '-'; i = 1; }
  size_t epos = sci.find('e');
  std::string digits;
  for (size_t j = i; j < epos; ++j)
    if (sci[j] != '.') digits += sci[j];
  int exp = std::stoi(std::string(sci.substr(epos + 1)));
  if (exp >= -5 + 1 && exp < 16) {
    if (exp >= 0) {
      size_t intlen = static_cast<size_t>(exp) + 1;
      if (digits.size() <= intlen) {
        out += digits;
        out.append(intlen - digits.size(), '0');
        out += ".0";
      } else {
        out.append(digits, 0, intlen);
        out += '.';
        out.append(digits, intlen, std::string::npos);
      }
    } else {
      out += "0.";
      out.append(static_cast<size_t>(-exp - 1), '0');
      out += digits;
    }
    return out;
  }
  out += digits[0];
  if (digits.size() > 1) {
    out += '.';
    out.append(digits, 1, std::string::npos);
  }
  out += 'e';
  out += exp < 0 ? '-' : '+';
  int ae = exp < 0 ? -exp : exp;
  if (ae < 10) out += '0';
  out += std::to_string(ae);
  return out;
}

void py_str_append(std::string& out, const Value& v) {
  switch (v.type()) {
    case Type::Undefined: return;
    case Type::None: out += "None"; return;
    case Type::Bool: out += v.as_bool() ? "True" : "False"; return;
    case Type::Int: append_int(out, v.as_int()); return;
    case Type::Float: out += float_repr(v.as_float()); return;
    case Type::Str: out += v.str(); return;
    default: repr_rec(out, v, 0); return;
  }
}

std::string py_str(const Value& v) {
  if (v.is_str()) return std::string(v.str());
  std::string out;
  py_str_append(out, v);
  return out;
}

void py_repr_append(std::string& out, const Value& v) { repr_rec(out, v, 0); }

std::string py_repr(const Value& v) {
  std::string out;
  repr_rec(out, v, 0);
  return out;
}

}  // namespace toolchat
