// vm.json with nlohmann-json: every field is checked on reading (kind, range, register and
// constant indices, jump targets), so a damaged file is a diagnostic and never a bad VM program.
#include "runtime/vm/vm_file.h"

#include <climits>
#include <cstdint>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "runtime/file_io.h"
#include "runtime/graph_executor/graph_model.h"
#include "runtime/module.h"
#include "runtime/npy.h"
#include "support/diagnostic.h"

namespace tessera::runtime::vm {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kFormat = "tessera-vm-1";

json shapeToJson(const ShapeExpr& e) {
  json out = {{"kind", static_cast<int>(e.kind)}, {"value", e.value}, {"text", e.text}};
  if (e.a) out["a"] = shapeToJson(*e.a);
  if (e.b) out["b"] = shapeToJson(*e.b);
  return out;
}

json shapeListToJson(const std::vector<ShapeExpr>& shape) {
  json out = json::array();
  for (const ShapeExpr& d : shape) out.push_back(shapeToJson(d));
  return out;
}

// Reads with checks: each accessor names the field at fault.
class Reader {
 public:
  explicit Reader(std::string where) : where_(std::move(where)) {}

  [[noreturn]] void fail(const std::string& message) const {
    throwDiagnostic("vm_json", message, {}, where_);
  }
  const json& field(const json& object, const char* name) const {
    if (!object.is_object() || !object.contains(name))
      fail(std::string("missing field '") + name + "'");
    return object.at(name);
  }
  int64_t integer(const json& object, const char* name) const {
    const json& v = field(object, name);
    if (!v.is_number_integer()) fail(std::string("field '") + name + "' must be an integer");
    return v.get<int64_t>();
  }
  int64_t integerIn(const json& object, const char* name, int64_t lo, int64_t hi) const {
    const int64_t v = integer(object, name);
    if (v < lo || v > hi)
      fail(std::string("field '") + name + "' is " + std::to_string(v) + ", outside [" +
           std::to_string(lo) + ", " + std::to_string(hi) + "]");
    return v;
  }
  std::string string(const json& object, const char* name) const {
    const json& v = field(object, name);
    if (!v.is_string()) fail(std::string("field '") + name + "' must be a string");
    return v.get<std::string>();
  }
  const json& array(const json& object, const char* name) const {
    const json& v = field(object, name);
    if (!v.is_array()) fail(std::string("field '") + name + "' must be an array");
    return v;
  }
  DataType dtype(const json& object) const {
    const std::string name = string(object, "dtype");
    std::optional<DataType> t = DataType::parse(name);
    if (!t) fail("unknown dtype '" + name + "'");
    return *t;
  }

  ShapeExpr shape(const json& j, int depth = 0) const {
    // Deep enough for a sum over thousands of selections (a detector concatenates 90 per-class
    // counts), shallow enough that the recursive readers and evaluators stay far from the stack's
    // end on a corrupt file.
    if (depth > 4096) fail("a shape expression nests too deeply");
    ShapeExpr e;
    e.kind = static_cast<ShapeExpr::Kind>(
        integerIn(j, "kind", 0, static_cast<int64_t>(ShapeExpr::Kind::kOther)));
    e.value = integer(j, "value");
    e.text = string(j, "text");
    if (j.contains("a")) e.a = std::make_shared<ShapeExpr>(shape(j.at("a"), depth + 1));
    if (j.contains("b")) e.b = std::make_shared<ShapeExpr>(shape(j.at("b"), depth + 1));
    return e;
  }
  std::vector<ShapeExpr> shapeList(const json& object, const char* name) const {
    std::vector<ShapeExpr> out;
    for (const json& d : array(object, name)) out.push_back(shape(d));
    return out;
  }

 private:
  std::string where_;
};

std::string constantName(size_t i) {
  return "c" + std::to_string(i);
}

// The operands and destination each opcode needs, so the VM never reads a missing one.
void checkShape(const Reader& r, const std::string& function, const Instruction& inst) {
  size_t args = 0;  // exactly this many; SIZE_MAX: any number
  bool dst = true;
  switch (inst.op) {
    case Opcode::kAllocStorage:
      break;
    case Opcode::kAllocTensor:
      args = inst.args.size() <= 1 ? inst.args.size() : 1;  // storage, or its own memory
      break;
    case Opcode::kTupleGetItem:
    case Opcode::kCopy:
      args = 1;
      break;
    case Opcode::kRet:
    case Opcode::kIf:
      args = 1;
      dst = false;
      break;
    case Opcode::kGoto:
      dst = false;
      break;
    case Opcode::kMakeTuple:
    case Opcode::kInvoke:
    case Opcode::kCallBuiltin:
      args = SIZE_MAX;
      break;
    case Opcode::kMatchShape:
      args = 1;
      dst = false;
      break;
    case Opcode::kAssertEqual:
      dst = false;
      break;
    case Opcode::kCallKernel:
    case Opcode::kCallPacked:
    case Opcode::kCallKernelRows:
    case Opcode::kTailCall:
      args = SIZE_MAX;
      dst = false;
      break;
  }
  if (inst.op == Opcode::kAssertEqual && inst.shape.size() != 2)
    r.fail("@" + function + ": assert_equal compares two extents");
  if (inst.op == Opcode::kCallKernelRows && inst.shape.size() != inst.args.size())
    r.fail("@" + function + ": call_kernel_rows needs one row mark per operand");
  if (args != SIZE_MAX && inst.args.size() != args)
    r.fail("@" + function + ": an instruction of kind " +
           std::to_string(static_cast<int>(inst.op)) + " takes " + std::to_string(args) +
           " operand(s), not " + std::to_string(inst.args.size()));
  if (dst && inst.dst < 0)
    r.fail("@" + function + ": an instruction of kind " +
           std::to_string(static_cast<int>(inst.op)) + " needs a destination register");
}

}  // namespace

std::string programToJson(const Executable& exec) {
  json functions = json::object();
  for (const auto& [name, fn] : exec.functions) {
    json params = json::array();
    for (const Param& p : fn.params) {
      json j = {{"name", p.name},
                {"annotation", p.annotation},
                {"is_tensor", p.isTensor},
                {"ndim", p.ndim},
                {"dtype", p.dtype.name()}};
      if (p.shape) j["shape"] = shapeListToJson(*p.shape);
      params.push_back(std::move(j));
    }
    json code = json::array();
    for (const Instruction& inst : fn.code) {
      json args = json::array();
      for (const Operand& o : inst.args)
        args.push_back({o.kind == Operand::Kind::kConstant ? "c" : "r", o.index});
      code.push_back({{"op", static_cast<int>(inst.op)},
                      {"dst", inst.dst},
                      {"func", inst.func},
                      {"args", std::move(args)},
                      {"shape", shapeListToJson(inst.shape)},
                      {"dtype", inst.dtype.name()},
                      {"index", inst.index}});
    }
    functions[name] = {{"params", std::move(params)},
                       {"num_shape_vars", fn.numShapeVars},
                       {"num_registers", fn.numRegisters},
                       {"code", std::move(code)}};
  }
  json out = {{"format", kFormat},
              {"num_constants", exec.constants.size()},
              {"functions", std::move(functions)}};
  return out.dump() + "\n";
}

namespace {

// vm.json's functions, and through `numConstants` the size of the constant pool it expects.
std::map<std::string, VMFunction> parseProgram(const std::string& text, const std::string& where,
                                               int64_t* numConstantsOut) {
  Reader r(where);
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& e) {
    r.fail(std::string("not valid JSON: ") + e.what());
  }
  if (r.string(root, "format") != kFormat)
    r.fail("format is '" + r.string(root, "format") + "', expected '" + kFormat + "'");
  const int64_t numConstants = r.integerIn(root, "num_constants", 0, 1 << 30);
  if (numConstantsOut) *numConstantsOut = numConstants;
  const json& functions = r.field(root, "functions");
  if (!functions.is_object()) r.fail("field 'functions' must be an object");
  std::map<std::string, VMFunction> out;
  for (const auto& [name, j] : functions.items()) {
    VMFunction fn;
    fn.name = name;
    fn.numShapeVars = static_cast<int>(r.integerIn(j, "num_shape_vars", 0, 1 << 20));
    fn.numRegisters = static_cast<int>(r.integerIn(j, "num_registers", 0, 1 << 24));
    for (const json& p : r.array(j, "params")) {
      Param param;
      param.name = r.string(p, "name");
      param.annotation = r.string(p, "annotation");
      const json& isTensor = r.field(p, "is_tensor");
      if (!isTensor.is_boolean()) r.fail("field 'is_tensor' must be true or false");
      param.isTensor = isTensor.get<bool>();
      param.ndim = static_cast<int>(r.integerIn(p, "ndim", -1, 64));
      param.dtype = r.dtype(p);
      if (p.contains("shape")) param.shape = r.shapeList(p, "shape");
      fn.params.push_back(std::move(param));
    }
    if (static_cast<int>(fn.params.size()) > fn.numRegisters)
      r.fail("@" + name + " has more parameters than registers");
    const json& code = r.array(j, "code");
    const auto size = static_cast<int64_t>(code.size());
    for (const json& c : code) {
      Instruction inst;
      inst.op =
          static_cast<Opcode>(r.integerIn(c, "op", 0, static_cast<int64_t>(Opcode::kAssertEqual)));
      inst.dst = static_cast<int>(r.integerIn(c, "dst", -1, fn.numRegisters - 1));
      inst.func = r.string(c, "func");
      for (const json& a : r.array(c, "args")) {
        if (!a.is_array() || a.size() != 2 || !a[0].is_string() || !a[1].is_number_integer())
          r.fail("an argument must be [\"r\" or \"c\", index]");
        const bool constant = a[0].get<std::string>() == "c";
        const int64_t index = a[1].get<int64_t>();
        if (index < 0 || index >= (constant ? numConstants : fn.numRegisters))
          r.fail("@" + name + ": operand index " + std::to_string(index) + " out of range");
        inst.args.push_back({constant ? Operand::Kind::kConstant : Operand::Kind::kRegister,
                             static_cast<int>(index)});
      }
      inst.shape = r.shapeList(c, "shape");
      inst.dtype = r.dtype(c);
      inst.index = static_cast<int>(r.integerIn(c, "index", -1, std::max<int64_t>(size, 1 << 20)));
      if ((inst.op == Opcode::kIf || inst.op == Opcode::kGoto) && inst.index > size)
        r.fail("@" + name + ": jump target " + std::to_string(inst.index) + " past the end");
      checkShape(r, name, inst);
      fn.code.push_back(std::move(inst));
    }
    out[name] = std::move(fn);
  }
  // Calls between functions name functions of this program.
  for (const auto& [name, fn] : out)
    for (const Instruction& inst : fn.code)
      if ((inst.op == Opcode::kInvoke || inst.op == Opcode::kTailCall) && !out.count(inst.func))
        r.fail("@" + name + " calls '" + inst.func + "', which the program does not define");
  return out;
}

}  // namespace

std::map<std::string, VMFunction> programFromJson(const std::string& text,
                                                  const std::string& where) {
  return parseProgram(text, where, nullptr);
}

void writeProgram(const Executable& exec, const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throwDiagnostic("export", "cannot create the directory: " + ec.message(), {}, dir);
  const fs::path root(dir);
  std::map<std::string, NDArray> constants;
  for (size_t i = 0; i < exec.constants.size(); ++i) constants[constantName(i)] = exec.constants[i];
  writeNpz((root / kConstantsFile).string(), constants);
  writeWholeFile((root / kProgramFile).string(), programToJson(exec));
  fs::remove(root / kModelGraphFile, ec);
  fs::remove(root / kModelParamsFile, ec);
}

Executable loadExecutable(const std::string& dir) {
  const fs::path root(dir);
  const fs::path programPath = root / kProgramFile;
  if (!fs::is_regular_file(programPath))
    throwDiagnostic("export", "is not a compiled VM program directory (no vm.json)", {}, dir);
  Executable exec;
  int64_t numConstants = 0;
  exec.functions =
      parseProgram(readWholeFile(programPath.string()), programPath.string(), &numConstants);
  const fs::path constantsPath = root / kConstantsFile;
  if (numConstants > 0) {
    if (!fs::is_regular_file(constantsPath))
      throwDiagnostic("export", "missing constants.npz next to vm.json", {}, dir);
    std::map<std::string, NDArray> arrays = readNpz(constantsPath.string());
    for (int64_t i = 0; i < numConstants; ++i) {
      auto it = arrays.find(constantName(static_cast<size_t>(i)));
      if (it == arrays.end())
        throwDiagnostic(
            "export",
            "has no array '" + constantName(static_cast<size_t>(i)) + "' that vm.json needs", {},
            constantsPath.string());
      exec.constants.push_back(std::move(it->second));
    }
  }
  // The library is needed when a call_kernel names one of its kernels; call_packed may name a
  // registered function instead (the VM resolves it).
  const fs::path library = root / kModelLibraryFile;
  if (fs::is_regular_file(library)) {
    exec.kernels = loadModule(library.string());
    return exec;
  }
  for (const auto& [name, fn] : exec.functions)
    for (const Instruction& inst : fn.code)
      if (inst.op == Opcode::kCallKernel)
        throwDiagnostic("export", "missing kernels.so next to vm.json", {}, dir);
  return exec;
}

bool isExecutableDirectory(const std::string& path) {
  std::error_code ec;
  return fs::is_directory(path, ec) && fs::is_regular_file(fs::path(path) / kProgramFile, ec);
}

}  // namespace tessera::runtime::vm
