// Template::uses(): the names a compiled template looks up and the string constants it tests
// values against, read from its tree (jinja.hpp, TemplateUses).
//
// Every node of a template lives in its arena, so the arena is walked instead of the tree: nodes
// that constant folding replaced are still there, which can only add to the lists (a superset is
// what the callers need: a name listed that the template never reads costs a conversion, a name
// missed would change what the template renders).
#include <algorithm>
#include <string_view>

#include "jinja/render.hpp"

namespace toolchat::jinja {

namespace {

// str methods (and Jinja2 filters) whose string arguments are searched for in the value.
constexpr std::string_view kSearching[] = {"split",  "rsplit",    "startswith", "endswith",     "replace",
                                           "find",   "rfind",     "index",      "rindex",       "count",
                                           "partition", "rpartition", "removeprefix", "removesuffix"};
constexpr std::string_view kStripping[] = {"strip", "lstrip", "rstrip", "trim"};
// Tests that compare a value whole with their argument (`v is eq 'x'`, selectattr('role', 'eq', 'x')).
constexpr std::string_view kEqualityTests[] = {"eq", "equalto", "==", "ne", "!=", "sameas", "in"};

template <size_t N>
bool one_of(std::string_view name, const std::string_view (&list)[N]) {
  return std::find(std::begin(list), std::end(list), name) != std::end(list);
}

// The string constants an expression is: a str constant, or the strs of a constant (or literal)
// list or tuple.
void constant_strings(const Expr* e, std::vector<std::string>& out) {
  if (!e) return;
  if (e->kind == EK::Const) {
    const Value& v = static_cast<const ConstExpr*>(e)->value;
    if (v.is_str()) {
      out.emplace_back(v.str());
    } else if (v.is_list()) {
      for (const Value& item : v.items())
        if (item.is_str()) out.emplace_back(item.str());
    }
  } else if (e->kind == EK::List || e->kind == EK::Tuple) {
    for (const Expr* item : static_cast<const SeqExpr*>(e)->items) constant_strings(item, out);
  }
}

void argument_strings(const ArgList& a, std::vector<std::string>& out) {
  for (const Expr* e : a.args) constant_strings(e, out);
  for (const Keyword& k : a.kwargs) constant_strings(k.value, out);
}

std::string constant_text(const Expr* e) {
  std::vector<std::string> s;
  if (e && e->kind == EK::Const) constant_strings(e, s);
  return s.size() == 1 ? s.front() : std::string();
}

class UsesReader {
 public:
  TemplateUses out;

  void expr(const Expr* e) {
    switch (e->kind) {
      case EK::Name: out.names.push_back(static_cast<const NameExpr*>(e)->name); break;
      case EK::NSRef: out.names.push_back(static_cast<const NSRefExpr*>(e)->name); break;
      case EK::Compare: compare(static_cast<const CompareExpr*>(e)); break;
      case EK::Call: {
        auto* c = static_cast<const CallExpr*>(e);
        if (c->callee->kind == EK::Getattr) method(static_cast<const GetattrExpr*>(c->callee)->attr, c->a);
        break;
      }
      case EK::Filter: {
        auto* f = static_cast<const FilterExpr*>(e);
        method(f->name, f->a);
        // select/reject/selectattr/rejectattr('attr'?, 'eq', 'x'): the strings after an equality test
        if (f->name == "select" || f->name == "reject" || f->name == "selectattr" || f->name == "rejectattr") {
          const auto& args = f->a.args;
          for (size_t i = 0; i + 1 < args.size(); ++i)
            if (one_of(constant_text(args[i]), kEqualityTests)) constant_strings(args[i + 1], out.compared);
        }
        break;
      }
      case EK::Test: {
        auto* t = static_cast<const TestExpr*>(e);
        if (one_of(t->name, kEqualityTests)) argument_strings(t->a, out.compared);
        break;
      }
      default: break;
    }
  }

 private:
  void method(std::string_view name, const ArgList& a) {
    if (one_of(name, kSearching)) {
      argument_strings(a, out.contained);
    } else if (one_of(name, kStripping)) {
      std::vector<std::string> chars;
      argument_strings(a, chars);
      for (const auto& c : chars) out.stripped += c;
    }
  }

  void compare(const CompareExpr* c) {
    const Expr* left = c->first;
    for (const auto& [op, right] : c->ops) {
      if (op == CmpOp::In || op == CmpOp::NotIn) {
        // 'x' in v: a text holding x; v in ['x', 'y']: a text equal to one of them
        if (left->kind == EK::Const && static_cast<const ConstExpr*>(left)->value.is_str())
          constant_strings(left, out.contained);
        if (right->kind != EK::Const || !static_cast<const ConstExpr*>(right)->value.is_str())
          constant_strings(right, out.compared);
      } else if (op == CmpOp::Eq || op == CmpOp::Ne) {
        constant_strings(left, out.compared);
        constant_strings(right, out.compared);
      }
      left = right;
    }
  }
};

void sort_unique(std::vector<std::string>& v) {
  v.erase(std::remove(v.begin(), v.end(), std::string()), v.end());  // "" tells no text apart
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

}  // namespace

TemplateUses Template::uses() const {
  UsesReader r;
  for (const auto& e : impl_->arena.exprs) r.expr(e.get());
  sort_unique(r.out.names);
  sort_unique(r.out.contained);
  sort_unique(r.out.compared);
  std::string& s = r.out.stripped;
  std::sort(s.begin(), s.end());
  s.erase(std::unique(s.begin(), s.end()), s.end());
  return std::move(r.out);
}

}  // namespace toolchat::jinja
