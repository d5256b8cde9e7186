#include "value/frozen.hpp"

#include <climits>

namespace toolchat {

void FrozenValues::freeze(const Value& root) {
  std::vector<const Value*> todo{&root};
  std::vector<const Value*> held;
  while (!todo.empty()) {
    const Value* v = todo.back();
    todo.pop_back();
    Obj* o = v->obj();
    if (!o || (v->type() < Type::Str && !v->is_undefined()) || is_frozen(o)) continue;
    objs_.push_back(o);
    o->rc = static_cast<int32_t>(static_cast<uint32_t>(o->rc) | 0x80000000u);
    switch (o->kind) {
      case ObjKind::Str: (void)v->str_obj()->is_ascii(); break;
      case ObjKind::List: {
        const ListObj& l = v->list_obj();
        for (const Value& x : l.items) todo.push_back(&x);
        for (const Value& x : l.range_big) todo.push_back(&x);
        break;
      }
      case ObjKind::Dict: {
        const DictObj& d = v->dict_obj();
        d.build_index();
        for (const auto& [k, x] : d.entries) {
          todo.push_back(&k);
          todo.push_back(&x);
        }
        break;
      }
      case ObjKind::Undefined: break;
      default:
        held.clear();
        o->held_values(held);
        todo.insert(todo.end(), held.begin(), held.end());
        break;
    }
  }
}

void FrozenValues::thaw() {
  for (Obj* o : objs_) o->rc = static_cast<int32_t>(static_cast<uint32_t>(o->rc) & 0x7fffffffu);
  objs_.clear();
}

}  // namespace toolchat
