#include "relay/op_registry.h"

#include <mutex>

#include "support/check.h"
#include "support/diagnostic.h"

namespace tessera::relay {

const char* opPatternName(OpPattern p) {
  switch (p) {
    case OpPattern::kElemWise:
      return "elemwise";
    case OpPattern::kBroadcast:
      return "broadcast";
    case OpPattern::kInjective:
      return "injective";
    case OpPattern::kCommReduce:
      return "comm-reduce";
    case OpPattern::kOutEWiseFusable:
      return "out-elemwise-fusable";
    case OpPattern::kTuple:
      return "tuple";
    case OpPattern::kOpaque:
      return "opaque";
  }
  return "opaque";
}

const TensorTypeNode* TypeReporter::tensorArg(size_t i) const {
  const Type& t = args_.at(i);
  if (!t || t->kind == TypeKind::kIncomplete) return nullptr;
  const auto* tensor = t->as<TensorTypeNode>();
  if (!tensor) {
    fail("type",
         "argument " + std::to_string(i) + " must be a tensor but has type " + typeToString(t));
  }
  return tensor;
}

bool TypeReporter::assumeEqual(const Dim& a, const Dim& b, const std::string& what) const {
  if (!assume_ || a == b || a.isAny() || b.isAny() || (a.isConst() && b.isConst())) return false;
  assume_(a, b, what);
  return true;
}

void TypeReporter::fail(const std::string& code, const std::string& message) const {
  throw DiagnosticError(
      Diagnostic{.span = span_, .code = code, .message = message, .context = opName_, .notes = {}});
}

void TypeReporter::failWrongAttrs(const char* expected) const {
  TS_CHECK(false) << opName_ << " expects attrs " << expected << " but got "
                  << (attrs_ ? attrs_->typeKey() : "none");
  std::abort();
}

OpRegistry& OpRegistry::global() {
  static OpRegistry* registry = [] {
    auto* r = new OpRegistry();
    registerBuiltinOps(*r);
    return r;
  }();
  return *registry;
}

OpDef& OpRegistry::add(OpDef def) {
  TS_CHECK(!ops_.count(def.name)) << "op " << def.name << " registered twice";
  auto owned = std::make_unique<OpDef>(std::move(def));
  OpDef& ref = *owned;
  ref.node = std::make_shared<OpNode>(ref.name, &ref);
  if (ref.attrs.make) ref.defaultAttrs = ref.attrs.make();
  ref.vmBuiltin = ref.vmBuiltin || ref.dataDependentShape;
  ops_[ref.name] = std::move(owned);
  return ref;
}

OpDef* OpRegistry::find(const std::string& name) {
  auto it = ops_.find(name);
  return it == ops_.end() ? nullptr : it->second.get();
}

Op OpRegistry::get(const std::string& name) {
  OpDef* def = find(name);
  if (!def) throwDiagnostic("unknown_op", "no operator named '" + name + "' is registered");
  return def->node;
}

std::vector<std::string> OpRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& [name, def] : ops_) out.push_back(name);
  return out;
}

void OpRegistry::setAttr(const std::string& op, const std::string& key, std::any value, int level) {
  OpDef* def = find(op);
  if (!def) throwDiagnostic("unknown_op", "no operator named '" + op + "' is registered");
  auto it = def->attrMap.find(key);
  if (it != def->attrMap.end()) {
    if (it->second.level == level) {
      throwDiagnostic("op_attr", "attribute " + key + " of " + op +
                                     " is already registered at level " + std::to_string(level) +
                                     "; reset it first or use a higher level");
    }
    if (it->second.level > level) return;  // a higher-priority registration stays
  }
  def->attrMap[key] = OpAttrEntry{std::move(value), level};
}

void OpRegistry::resetAttr(const std::string& op, const std::string& key) {
  OpDef* def = find(op);
  if (!def) throwDiagnostic("unknown_op", "no operator named '" + op + "' is registered");
  def->attrMap.erase(key);
}

const std::any* OpRegistry::getAttr(const std::string& op, const std::string& key) {
  OpDef* def = find(op);
  if (!def) return nullptr;
  auto it = def->attrMap.find(key);
  return it == def->attrMap.end() ? nullptr : &it->second.value;
}

Op opByName(const std::string& name) {
  return OpRegistry::global().get(name);
}

Attrs defaultAttrsFor(const OpDef& def) {
  return def.defaultAttrs;
}

}  // namespace tessera::relay
