// The JSON form of a trace, as TVM's tuning database stores it:
//   [[[kind, inputs, attrs, outputs], ...], [[inst_index, decision], ...]]
// Inputs are RV names ("b0"), "None", or literals (a string literal keeps its quotes inside the
// JSON string, so it cannot be mistaken for an RV name); attrs are plain JSON values with
// booleans as 0/1.
#include <nlohmann/json.hpp>

#include "support/diagnostic.h"
#include "tir/schedule/trace.h"
#include "tir/schedule/trace_format.h"

namespace tessera::tir {

namespace {

using nlohmann::json;

json attrToJson(const AttrValue& v) {
  switch (v.kind()) {
    case AttrValue::Kind::kInt:
      return v.asInt();
    case AttrValue::Kind::kBool:
      return v.asBool() ? 1 : 0;
    case AttrValue::Kind::kFloat:
      return v.asFloat();
    case AttrValue::Kind::kString:
      return v.asString();
    case AttrValue::Kind::kArray: {
      json out = json::array();
      for (const AttrValue& x : v.asArray()) out.push_back(attrToJson(x));
      return out;
    }
    case AttrValue::Kind::kNone:
    case AttrValue::Kind::kAttrs:
      break;
  }
  return nullptr;
}

AttrValue attrFromJson(const json& j) {
  if (j.is_number_integer()) return AttrValue::integer(j.get<int64_t>(), DataType::int64());
  if (j.is_number_float()) return AttrValue::floating(j.get<double>(), DataType::float64());
  if (j.is_boolean()) return AttrValue::integer(j.get<bool>() ? 1 : 0);
  if (j.is_string()) return AttrValue::string(j.get<std::string>());
  if (j.is_array()) {
    std::vector<AttrValue> items;
    for (const json& x : j) items.push_back(attrFromJson(x));
    return AttrValue::array(std::move(items));
  }
  return AttrValue();
}

[[noreturn]] void malformed(const std::string& what) {
  throwDiagnostic("trace", "malformed trace JSON: " + what);
}

}  // namespace

std::string Trace::toJson() const {
  RVNamer names;
  json insts = json::array();
  json decisions = json::array();
  for (size_t index = 0; index < insts_.size(); ++index) {
    const Instruction& inst = insts_[index];
    json inputs = json::array();
    for (const InstInput& in : inst.inputs) {
      if (std::holds_alternative<std::monostate>(in)) {
        inputs.push_back("None");
      } else if (const auto* c = std::get_if<AttrValue>(&in)) {
        inputs.push_back(c->kind() == AttrValue::Kind::kString ? json("\"" + c->asString() + "\"")
                                                               : attrToJson(*c));
      } else {
        inputs.push_back(*names.find(in));
      }
    }
    json attrs = json::array();
    for (const AttrValue& a : inst.attrs) attrs.push_back(attrToJson(a));
    json outputs = json::array();
    for (const InstOutput& o : inst.outputs) outputs.push_back(names.define(o));
    insts.push_back(json::array({inst.kind, inputs, attrs, outputs}));
    if (inst.decision) decisions.push_back(json::array({index, attrToJson(*inst.decision)}));
  }
  return json::array({insts, decisions}).dump();
}

Trace Trace::fromJson(const std::string& text) {
  json root = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) malformed("not valid JSON");
  if (!root.is_array() || root.size() != 2 || !root[0].is_array() || !root[1].is_array()) {
    malformed("expected [[instructions], [decisions]]");
  }
  Trace trace;
  std::map<std::string, InstOutput> rvs;  // name -> placeholder RV
  int nextId = 0;
  for (const json& j : root[0]) {
    if (!j.is_array() || j.size() != 4 || !j[0].is_string() || !j[1].is_array() ||
        !j[2].is_array() || !j[3].is_array()) {
      malformed("an instruction must be [kind, inputs, attrs, outputs]");
    }
    Instruction inst;
    inst.kind = j[0].get<std::string>();
    const InstructionKind* kind = findInstructionKind(inst.kind);
    if (!kind) malformed("unknown instruction kind '" + inst.kind + "'");
    for (const json& in : j[1]) {
      if (!in.is_string()) {
        inst.inputs.push_back(attrFromJson(in));
        continue;
      }
      std::string s = in.get<std::string>();
      if (s == "None") {
        inst.inputs.push_back(std::monostate{});
      } else if (s.size() >= 2 && s.front() == '"' && s.back() == '"') {
        inst.inputs.push_back(AttrValue::string(s.substr(1, s.size() - 2)));
      } else {
        auto it = rvs.find(s);
        if (it == rvs.end())
          malformed("input '" + s + "' of " + inst.kind + " is not a defined random variable");
        std::visit([&](const auto& r) { inst.inputs.push_back(r); }, it->second);
      }
    }
    for (const json& a : j[2]) inst.attrs.push_back(attrFromJson(a));
    for (const json& o : j[3]) {
      std::string name = o.is_string() ? o.get<std::string>() : "";
      InstOutput rv;
      if (name.size() >= 2 && name[0] == 'b')
        rv = BlockRV{nextId++};
      else if (name.size() >= 2 && name[0] == 'l')
        rv = LoopRV{nextId++};
      else if (name.size() >= 2 && name[0] == 'v')
        rv = ExprRV{nextId++};
      else
        malformed("output name '" + name + "' must start with b, l or v");
      rvs[name] = rv;
      inst.outputs.push_back(rv);
    }
    // A trace written by hand or by another tool: checked here, so replay never sees a short one.
    if (const std::string problem = arityProblem(*kind, inst); !problem.empty()) malformed(problem);
    trace.append(std::move(inst));
  }
  for (const json& d : root[1]) {
    if (!d.is_array() || d.size() != 2 || !d[0].is_number_integer())
      malformed("a decision must be [inst_index, value]");
    auto index = d[0].get<int64_t>();
    if (index < 0 || index >= static_cast<int64_t>(trace.insts_.size()))
      malformed("decision index out of range");
    trace.insts_[index].decision = attrFromJson(d[1]);
  }
  return trace;
}

}  // namespace tessera::tir
