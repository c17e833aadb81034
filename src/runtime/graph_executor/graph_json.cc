// graph.json: writing and reading a GraphDescription. The reader is a small JSON parser for
// exactly what the writer produces (objects, arrays, strings without escapes beyond \" and \\,
// integers); it rejects anything else with a diagnostic naming the file and the position.
#include <cctype>
#include <map>
#include <memory>
#include <sstream>

#include "runtime/graph_executor/graph_description.h"
#include "support/diagnostic.h"

namespace tessera::runtime {

namespace {

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

template <typename T>
std::string intList(const std::vector<T>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
  return out + "]";
}

std::string namedList(const std::vector<NamedEntry>& named) {
  std::string out = "[";
  for (size_t i = 0; i < named.size(); ++i)
    out += std::string(i ? ",\n    " : "\n    ") + "{\"name\": " + quoted(named[i].name) +
           ", \"entry\": " + std::to_string(named[i].entry) + "}";
  return out + (named.empty() ? "]" : "\n  ]");
}

// A parsed JSON value; only the kinds graph.json uses.
struct Json {
  enum class Kind { kInt, kString, kArray, kObject } kind = Kind::kInt;
  int64_t integer = 0;
  std::string string;
  std::vector<Json> items;
  std::map<std::string, Json> fields;
};

class Parser {
 public:
  Parser(const std::string& text, const std::string& source) : text_(text), source_(source) {}

  Json parseDocument() {
    Json value = parseValue();
    skipSpace();
    if (pos_ != text_.size()) fail("unexpected text after the document");
    return value;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throwDiagnostic("graph_json", what + " at offset " + std::to_string(pos_), {}, source_);
  }
  void skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool consume(char c) {
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!consume(c)) fail(std::string("expected '") + c + "'");
  }

  // Containers are parsed with an explicit depth limit: the format nests three levels, so a
  // deeper file is malformed and must not exhaust the stack.
  Json parseValue(int depth = 0) {
    if (depth > 8) fail("nesting too deep");
    skipSpace();
    if (pos_ >= text_.size()) fail("unexpected end of file");
    Json v;
    const char c = text_[pos_];
    if (c == '"') {
      v.kind = Json::Kind::kString;
      v.string = parseString();
    } else if (c == '[') {
      v.kind = Json::Kind::kArray;
      ++pos_;
      if (!consume(']')) {
        do v.items.push_back(parseValue(depth + 1));
        while (consume(','));
        expect(']');
      }
    } else if (c == '{') {
      v.kind = Json::Kind::kObject;
      ++pos_;
      if (!consume('}')) {
        do {
          skipSpace();
          std::string key = parseString();
          expect(':');
          v.fields[key] = parseValue(depth + 1);
        } while (consume(','));
        expect('}');
      }
    } else {
      v.integer = parseInt();
    }
    return v;
  }
  std::string parseString() {
    if (pos_ >= text_.size() || text_[pos_] != '"') fail("expected a string");
    std::string out;
    for (++pos_; pos_ < text_.size() && text_[pos_] != '"'; ++pos_) {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) ++pos_;
      out += text_[pos_];
    }
    if (pos_ >= text_.size()) fail("unterminated string");
    ++pos_;
    return out;
  }
  int64_t parseInt() {
    const size_t start = pos_;
    if (pos_ < text_.size() && text_[pos_] == '-') ++pos_;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    if (pos_ == start || (pos_ == start + 1 && text_[start] == '-')) fail("expected a value");
    try {
      return std::stoll(text_.substr(start, pos_ - start));
    } catch (const std::exception&) {
      fail("integer out of range");
    }
  }

  const std::string& text_;
  const std::string& source_;
  size_t pos_ = 0;
};

// Typed access with diagnostics that name the missing or mistyped field.
class Reader {
 public:
  explicit Reader(const std::string& source) : source_(source) {}
  [[noreturn]] void fail(const std::string& what) const {
    throwDiagnostic("graph_json", what, {}, source_);
  }
  const Json& field(const Json& object, const std::string& key) const {
    if (object.kind != Json::Kind::kObject) fail("expected an object holding '" + key + "'");
    auto it = object.fields.find(key);
    if (it == object.fields.end()) fail("missing field '" + key + "'");
    return it->second;
  }
  const std::vector<Json>& array(const Json& object, const std::string& key) const {
    const Json& v = field(object, key);
    if (v.kind != Json::Kind::kArray) fail("field '" + key + "' must be an array");
    return v.items;
  }
  int64_t integer(const Json& v, const std::string& what) const {
    if (v.kind != Json::Kind::kInt) fail(what + " must be an integer");
    return v.integer;
  }
  std::string string(const Json& object, const std::string& key) const {
    const Json& v = field(object, key);
    if (v.kind != Json::Kind::kString) fail("field '" + key + "' must be a string");
    return v.string;
  }
  std::vector<int64_t> ints(const Json& object, const std::string& key) const {
    std::vector<int64_t> out;
    for (const Json& item : array(object, key)) out.push_back(integer(item, "'" + key + "' item"));
    return out;
  }
  std::vector<int> indices(const Json& object, const std::string& key) const {
    std::vector<int> out;
    for (int64_t v : ints(object, key)) {
      if (v < 0 || v > INT32_MAX) fail("'" + key + "' holds an invalid index " + std::to_string(v));
      out.push_back(static_cast<int>(v));
    }
    return out;
  }
  std::vector<NamedEntry> named(const Json& object, const std::string& key) const {
    std::vector<NamedEntry> out;
    for (const Json& item : array(object, key)) {
      const int64_t entry = integer(field(item, "entry"), "'entry'");
      if (entry < 0 || entry > INT32_MAX) fail("'" + key + "' names an invalid entry");
      out.push_back({string(item, "name"), static_cast<int>(entry)});
    }
    return out;
  }

 private:
  const std::string& source_;
};

constexpr const char* kFormat = "tessera-graph-1";

}  // namespace

std::string GraphDescription::toJson() const {
  std::ostringstream os;
  os << "{\n  \"format\": " << quoted(kFormat) << ",\n  \"entries\": [";
  for (size_t i = 0; i < entries.size(); ++i)
    os << (i ? ",\n    " : "\n    ") << "{\"shape\": " << intList(entries[i].shape)
       << ", \"dtype\": " << quoted(entries[i].dtype.name())
       << ", \"storage\": " << entries[i].storage
       << (entries[i].device ? ", \"device\": " + std::to_string(entries[i].device) : "") << "}";
  os << (entries.empty() ? "]" : "\n  ]") << ",\n  \"inputs\": " << namedList(inputs)
     << ",\n  \"params\": " << namedList(params) << ",\n  \"calls\": [";
  for (size_t i = 0; i < calls.size(); ++i)
    os << (i ? ",\n    " : "\n    ") << "{\"kernel\": " << quoted(calls[i].kernel)
       << ", \"inputs\": " << intList(calls[i].inputs)
       << ", \"outputs\": " << intList(calls[i].outputs) << "}";
  os << (calls.empty() ? "]" : "\n  ]") << ",\n  \"outputs\": " << intList(outputs)
     << ",\n  \"storage_bytes\": " << intList(storageBytes)
     << ",\n  \"naive_bytes\": " << naiveBytes << ",\n  \"planned_bytes\": " << plannedBytes;
  // Only a heterogeneous graph names its devices (a CPU graph's text is as it always was).
  if (devices.size() > 1) {
    os << ",\n  \"devices\": [";
    for (size_t i = 0; i < devices.size(); ++i)
      os << (i ? ", " : "") << "{\"name\": " << quoted(devices[i].name)
         << ", \"target\": " << quoted(devices[i].target) << "}";
    os << "],\n  \"storage_devices\": " << intList(std::vector<int64_t>(storageDevices.begin(),
                                                                         storageDevices.end()));
  }
  os << "\n}\n";
  return os.str();
}

GraphDescription GraphDescription::fromJson(const std::string& text, const std::string& source) {
  const Json doc = Parser(text, source).parseDocument();
  const Reader r(source);
  if (r.string(doc, "format") != kFormat)
    r.fail("unsupported format '" + r.string(doc, "format") + "' (expected " + kFormat + ")");
  GraphDescription g;
  for (const Json& e : r.array(doc, "entries")) {
    TensorEntry entry;
    entry.shape = r.ints(e, "shape");
    const std::string dtype = r.string(e, "dtype");
    std::optional<DataType> parsed = DataType::parse(dtype);
    if (!parsed || parsed->isVoid()) r.fail("unknown dtype '" + dtype + "'");
    entry.dtype = *parsed;
    entry.storage = static_cast<int>(r.integer(r.field(e, "storage"), "'storage'"));
    if (e.fields.count("device"))
      entry.device = static_cast<int>(r.integer(r.field(e, "device"), "'device'"));
    g.entries.push_back(std::move(entry));
  }
  g.inputs = r.named(doc, "inputs");
  g.params = r.named(doc, "params");
  for (const Json& c : r.array(doc, "calls"))
    g.calls.push_back({r.string(c, "kernel"), r.indices(c, "inputs"), r.indices(c, "outputs")});
  g.outputs = r.indices(doc, "outputs");
  g.storageBytes = r.ints(doc, "storage_bytes");
  g.naiveBytes = r.integer(r.field(doc, "naive_bytes"), "'naive_bytes'");
  g.plannedBytes = r.integer(r.field(doc, "planned_bytes"), "'planned_bytes'");
  if (doc.fields.count("devices")) {
    g.devices.clear();
    for (const Json& d : r.array(doc, "devices"))
      g.devices.push_back({r.string(d, "name"), r.string(d, "target")});
    for (int64_t d : r.ints(doc, "storage_devices")) g.storageDevices.push_back(int(d));
  }
  validate(g, source);
  return g;
}

void validate(const GraphDescription& g, const std::string& source) {
  const Reader r(source);
  const auto checkEntry = [&](int e, const std::string& where) {
    if (e < 0 || e >= static_cast<int>(g.entries.size()))
      r.fail(where + " refers to entry " + std::to_string(e) + " but there are " +
             std::to_string(g.entries.size()));
  };
  for (size_t i = 0; i < g.entries.size(); ++i) {
    const TensorEntry& e = g.entries[i];
    const std::string where = "entry " + std::to_string(i);
    for (int64_t d : e.shape)
      if (d < 0) r.fail(where + " has a negative dimension");
    if (e.storage < 0 || e.storage >= static_cast<int>(g.storageBytes.size()))
      r.fail(where + " has an invalid storage index " + std::to_string(e.storage));
    if (g.storageBytes[e.storage] < e.bytes())
      r.fail(where + " needs " + std::to_string(e.bytes()) + " bytes but its storage has " +
             std::to_string(g.storageBytes[e.storage]));
  }
  if (g.devices.empty() || g.devices[0].name != "cpu") r.fail("device 0 must be the cpu");
  // A description made in memory without planMemory's device list has every storage on the CPU.
  if (!g.storageDevices.empty() && g.storageDevices.size() != g.storageBytes.size())
    r.fail("'storage_devices' has " + std::to_string(g.storageDevices.size()) +
           " items for " + std::to_string(g.storageBytes.size()) + " storages");
  for (int d : g.storageDevices)
    if (d < 0 || d >= static_cast<int>(g.devices.size()))
      r.fail("a storage is on device " + std::to_string(d) + " but there are " +
             std::to_string(g.devices.size()));
  for (size_t i = 0; i < g.entries.size(); ++i)
    if (g.entries[i].device !=
        (g.storageDevices.empty() ? 0 : g.storageDevices[g.entries[i].storage]))
      r.fail("entry " + std::to_string(i) + " is on device " +
             std::to_string(g.entries[i].device) + " but its storage is not");
  for (const NamedEntry& n : g.inputs) checkEntry(n.entry, "input '" + n.name + "'");
  for (const NamedEntry& n : g.params) checkEntry(n.entry, "param '" + n.name + "'");
  for (const KernelCall& c : g.calls) {
    for (int e : c.inputs) checkEntry(e, "call of " + c.kernel);
    for (int e : c.outputs) checkEntry(e, "call of " + c.kernel);
    if (c.kernel != kCopyKernel) continue;
    if (c.inputs.size() != 1 || c.outputs.size() != 1 ||
        g.entries[c.inputs[0]].bytes() != g.entries[c.outputs[0]].bytes())
      r.fail("a copy takes one entry to one entry of the same size");
  }
  for (int e : g.outputs) checkEntry(e, "outputs");
  for (const NamedEntry& n : g.inputs)
    if (g.entries[n.entry].device != 0) r.fail("input '" + n.name + "' is not on the cpu");
  for (int e : g.outputs)
    if (g.entries[e].device != 0) r.fail("output entry " + std::to_string(e) + " is not on the cpu");
}

}  // namespace tessera::runtime
