#include "tune/database.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>
#include <sstream>

#include "lower/relay/schedule_provider.h"
#include "runtime/thread_pool.h"
#include "support/base64.h"
#include "support/diagnostic.h"
#include "tir/printer/printer.h"
#include "tir/structural_equal.h"

namespace tessera::tune {

using nlohmann::json;

namespace {

constexpr const char* kWorkloadFile = "database_workload.json";
constexpr const char* kRecordFile = "database_tuning_record.json";

[[noreturn]] void fail(const std::string& message) {
  throwDiagnostic("database", message);
}

// The blob of a workload line: an 8-byte little-endian length, then that many bytes.
std::string encodeBlob(const std::string& payload) {
  std::vector<uint8_t> bytes(8 + payload.size());
  uint64_t n = payload.size();
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<uint8_t>(n >> (8 * i));
  std::copy(payload.begin(), payload.end(), bytes.begin() + 8);
  return base64Encode(bytes.data(), bytes.size());
}

std::optional<std::string> decodeBlob(const std::string& text) {
  std::optional<std::vector<uint8_t>> bytes = base64Decode(text);
  if (!bytes || bytes->size() < 8) return std::nullopt;
  uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= uint64_t{(*bytes)[i]} << (8 * i);
  if (n != bytes->size() - 8) return std::nullopt;
  return std::string(bytes->begin() + 8, bytes->end());
}

json argsJson(const std::vector<ArgInfo>& args) {
  json out = json::array();
  for (const ArgInfo& a : args) out.push_back(json::array({"TENSOR", a.dtype, a.shape}));
  return out;
}

std::vector<ArgInfo> argsFromJson(const json& j) {
  std::vector<ArgInfo> out;
  for (const json& a : j) {
    if (!a.is_array() || a.size() != 3 || a[0] != "TENSOR") throw std::runtime_error("arg info");
    out.push_back({a[1].get<std::string>(), a[2].get<std::vector<int64_t>>()});
  }
  return out;
}

// TVM's target JSON, plus the canonical Tessera string that records are matched by.
json targetJson(const std::string& text) {
  const target::Target t = target::Target::parse(text);
  json j = {{"keys", t.keys}, {"kind", t.kindName()}, {"tag", ""}, {"tessera", text}};
  if (!t.triple.empty()) j["mtriple"] = t.triple;
  if (t.numCores > 0) j["num-cores"] = t.numCores;
  return j;
}

// Appends one line. A file whose last line was cut short (a run killed mid-write) gets a newline
// first, so the new line does not join the broken one.
void appendLine(const std::string& path, const std::string& line) {
  bool needsNewline = false;
  {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (in && in.tellg() > 0) {
      in.seekg(-1, std::ios::end);
      needsNewline = in.get() != '\n';
    }
  }
  std::ofstream out(path, std::ios::app | std::ios::binary);
  if (!out) fail("cannot append to " + path);
  if (needsNewline) out << '\n';
  out << line << '\n';
  out.flush();
  if (!out) fail("cannot append to " + path);
}

}  // namespace

std::vector<ArgInfo> argInfoOf(const tir::PrimFunc& func) {
  std::vector<ArgInfo> out;
  for (const tir::Var& p : func->params) {
    const tir::Buffer b = func->bufferOf(p);
    if (!b) continue;
    ArgInfo info{b->dtype.name(), {}};
    for (const tir::PrimExpr& d : b->shape) {
      const int64_t* v = tir::asConstInt(d);
      info.shape.push_back(v ? *v : -1);
    }
    out.push_back(std::move(info));
  }
  return out;
}

std::string recordTarget(const target::Target& target) {
  target::Target t = target;
  if (t.numCores <= 0) t.numCores = runtime::defaultNumThreads();
  return t.str();
}

double TuningRecord::mean() const {
  if (runSecs.empty()) return kFailedRunSeconds;
  return std::accumulate(runSecs.begin(), runSecs.end(), 0.0) / static_cast<double>(runSecs.size());
}

bool TuningRecord::valid() const {
  if (runSecs.empty() || mean() >= kFailedRunSeconds) return false;
  for (const tir::Instruction& inst : trace.insts()) {
    if (inst.kind == "EnterPostproc") return false;
    return true;
  }
  return false;
}

struct Database::Impl {
  std::string dir;
  std::vector<std::string> warnings;
  struct Workload {
    uint64_t key = 0;
    bool current = true;  ///< hashed with this build's kStructuralHashVersion
  };
  std::vector<Workload> workloads;
  std::map<uint64_t, int> byKey;  // current-version workloads only
  // Per workload, its records in commit order.
  std::map<int, std::vector<TuningRecord>> records;
  size_t numRecords = 0;

  std::string path(const char* file) const { return dir + "/" + file; }

  void loadWorkloads();
  void loadRecords();
};

void Database::Impl::loadWorkloads() {
  std::ifstream in(path(kWorkloadFile));
  if (!in) fail("cannot read " + path(kWorkloadFile));
  std::string line;
  int lineNo = 0, otherVersion = 0;
  while (std::getline(in, line)) {
    ++lineNo;
    if (line.empty()) continue;
    Workload w;
    try {
      const json j = json::parse(line);
      w.key = std::stoull(j.at(0).get<std::string>());
      std::optional<std::string> blob = decodeBlob(j.at(1).get<std::string>());
      if (!blob) throw std::runtime_error("bad blob");
      w.current = json::parse(*blob).at("hash_version").get<int>() == tir::kStructuralHashVersion;
    } catch (const std::exception&) {
      warnings.push_back(path(kWorkloadFile) + ":" + std::to_string(lineNo) +
                         ": corrupt workload line skipped (its records are skipped too)");
      w.current = false;
    }
    // The line index is the workload id records refer to, so a bad line still takes its slot.
    if (w.current)
      byKey.emplace(w.key, static_cast<int>(workloads.size()));
    else
      ++otherVersion;
    workloads.push_back(w);
  }
  if (otherVersion > 0 && warnings.empty())
    warnings.push_back(path(kWorkloadFile) + ": " + std::to_string(otherVersion) +
                       " workload(s) hashed with another structural hash version are ignored");
}

void Database::Impl::loadRecords() {
  std::ifstream in(path(kRecordFile));
  if (!in) fail("cannot read " + path(kRecordFile));
  std::string line;
  int lineNo = 0;
  while (std::getline(in, line)) {
    ++lineNo;
    if (line.empty()) continue;
    try {
      const json j = json::parse(line);
      const int w = j.at(0).get<int>();
      if (w < 0 || w >= static_cast<int>(workloads.size()))
        throw std::runtime_error("no such workload");
      const json& r = j.at(1);
      TuningRecord rec;
      rec.trace = tir::Trace::fromJson(r.at(0).dump());
      rec.runSecs = r.at(1).get<std::vector<double>>();
      rec.target = r.at(2).at("tessera").get<std::string>();
      rec.args = argsFromJson(r.at(3));
      if (!workloads[w].current) continue;
      records[w].push_back(std::move(rec));
      ++numRecords;
    } catch (const std::exception& e) {
      warnings.push_back(path(kRecordFile) + ":" + std::to_string(lineNo) +
                         ": corrupt tuning record skipped");
    }
  }
}

Database::Database() : impl_(std::make_unique<Impl>()) {}

Database::Database(const std::string& dir) : impl_(std::make_unique<Impl>()) {
  impl_->dir = dir;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (!std::filesystem::is_directory(dir)) fail("cannot create the database directory " + dir);
  for (const char* file : {kWorkloadFile, kRecordFile}) {
    const std::string p = impl_->path(file);
    if (!std::filesystem::exists(p)) {
      std::ofstream create(p, std::ios::app);
      if (!create) fail("cannot create " + p);
    }
  }
  impl_->loadWorkloads();
  impl_->loadRecords();
}

Database::~Database() = default;
Database::Database(Database&&) noexcept = default;
Database& Database::operator=(Database&&) noexcept = default;

const std::string& Database::dir() const {
  return impl_->dir;
}
const std::vector<std::string>& Database::warnings() const {
  return impl_->warnings;
}

int Database::commitWorkload(const tir::PrimFunc& func) {
  const uint64_t key = lower::workloadKey(func);
  if (auto it = impl_->byKey.find(key); it != impl_->byKey.end()) return it->second;
  const int index = static_cast<int>(impl_->workloads.size());
  if (!impl_->dir.empty()) {
    const json payload = {{"hash_version", tir::kStructuralHashVersion},
                          {"script", tir::toScript(func)}};
    appendLine(impl_->path(kWorkloadFile),
               json::array({std::to_string(key), encodeBlob(payload.dump())}).dump());
  }
  impl_->workloads.push_back({key, true});
  impl_->byKey.emplace(key, index);
  return index;
}

void Database::commitRecord(int workload, const TuningRecord& record) {
  if (workload < 0 || workload >= static_cast<int>(impl_->workloads.size()))
    fail("no workload " + std::to_string(workload) + " in the database");
  if (!impl_->dir.empty()) {
    const json r = json::array({json::parse(record.trace.toJson()), record.runSecs,
                                targetJson(record.target), argsJson(record.args)});
    appendLine(impl_->path(kRecordFile), json::array({workload, r}).dump());
  }
  impl_->records[workload].push_back(record);
  ++impl_->numRecords;
}

int Database::findWorkload(uint64_t key) const {
  auto it = impl_->byKey.find(key);
  return it == impl_->byKey.end() ? -1 : it->second;
}

std::vector<TuningRecord> Database::records(uint64_t key, const std::string& target) const {
  std::vector<TuningRecord> out;
  const int w = findWorkload(key);
  if (w < 0) return out;
  auto it = impl_->records.find(w);
  if (it == impl_->records.end()) return out;
  for (const TuningRecord& r : it->second)
    if (r.target == target) out.push_back(r);
  return out;
}

std::vector<std::string> Database::recordTargets() const {
  std::set<std::string> targets;
  for (const auto& [workload, records] : impl_->records)
    for (const TuningRecord& r : records) targets.insert(r.target);
  return {targets.begin(), targets.end()};
}

std::vector<TuningRecord> Database::topK(uint64_t key, const std::string& target, size_t k) const {
  std::vector<TuningRecord> all = records(key, target);
  std::vector<TuningRecord> out;
  for (TuningRecord& r : all)
    if (r.valid()) out.push_back(std::move(r));
  std::stable_sort(out.begin(), out.end(), [](const TuningRecord& a, const TuningRecord& b) {
    return a.mean() < b.mean();
  });
  if (out.size() > k) out.resize(k);
  return out;
}

std::optional<TuningRecord> Database::best(uint64_t key, const std::string& target) const {
  std::vector<TuningRecord> top = topK(key, target, 1);
  if (top.empty()) return std::nullopt;
  return top[0];
}

size_t Database::numWorkloads() const {
  return impl_->workloads.size();
}
size_t Database::numRecords() const {
  return impl_->numRecords;
}

std::optional<tir::PrimFunc> compileTir(const Database& database, const tir::PrimFunc& func,
                                        const target::Target& target) {
  const std::optional<TuningRecord> best =
      database.best(lower::workloadKey(func), recordTarget(target));
  if (!best) return std::nullopt;
  lower::TracedSchedule scheduled = lower::applyTunedTrace(func, best->trace);
  if (!scheduled.func)
    fail("the best record of " + func->name +
         " no longer applies to its workload: " + scheduled.answer.reason);
  return scheduled.func;
}

}  // namespace tessera::tune
