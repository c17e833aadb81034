// The tuning database (MetaSchedule's JSONDatabase): workloads keyed by their structural hash,
// and tuning records {trace, run seconds, target, argument info} that refer to them. On disk two
// append-only files of one JSON value per line under a directory, so a run that is interrupted
// keeps what it measured and a later run (or compile) reads it back:
//   database_workload.json       ["<hash as decimal>", "<base64 blob>"]
//   database_tuning_record.json  [workload_index, [trace_json, run_secs, target_json, args_info]]
// The blob is an 8-byte little-endian length followed by a JSON object with the hash version and
// the workload's TVMScript (Tessera's IR serialisation in place of TVM's node graph). A corrupt
// line is reported and skipped; nothing is ever rewritten, so what was stored is never lost.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "target/target.h"
#include "tir/function.h"
#include "tir/schedule/trace.h"

namespace tessera::tune {

/// One argument of a kernel as the runner allocates it: ["TENSOR", dtype, shape].
struct ArgInfo {
  std::string dtype;
  std::vector<int64_t> shape;
};
/// The argument info of `func`'s buffer parameters, in order.
std::vector<ArgInfo> argInfoOf(const tir::PrimFunc& func);

/// The target string records are stored and matched under: `target` with num-cores set to the
/// threads its kernels run on when it leaves them out (the runtime's default), so a record made
/// for one thread count is not applied to another.
std::string recordTarget(const target::Target& target);

/// The run time TVM stores for a candidate that failed (build error, crash, timeout, wrong output).
inline constexpr double kFailedRunSeconds = 1e10;

struct TuningRecord {
  tir::Trace trace;
  std::vector<double> runSecs;  ///< one per measurement; {kFailedRunSeconds} for a failure
  std::string target;           ///< recordTarget() of the target it was measured on
  std::vector<ArgInfo> args;
  /// The mean of runSecs (the database's order), kFailedRunSeconds when empty.
  double mean() const;
  /// Measured, not a failure stub, and the trace has instructions before EnterPostproc.
  bool valid() const;
};

class Database {
 public:
  /// In memory only (MetaSchedule's MemoryDatabase).
  Database();
  /// Opens (creating when missing) the database files under `dir`. Lines that do not parse are
  /// skipped with a warning naming file and line; workloads hashed with another hash version
  /// are kept on disk but never matched. Throws DiagnosticError (code "database") when the
  /// directory or its files cannot be created or read.
  explicit Database(const std::string& dir);
  ~Database();
  Database(Database&&) noexcept;
  Database& operator=(Database&&) noexcept;

  /// The directory ("" in memory).
  const std::string& dir() const;
  /// Problems found while loading (corrupt lines, other hash versions), one message each.
  const std::vector<std::string>& warnings() const;

  /// The index of `func`'s workload (lower::workloadKey), committed (appended) when new.
  int commitWorkload(const tir::PrimFunc& func);
  /// Appends a record of workload `index` (from commitWorkload).
  void commitRecord(int workload, const TuningRecord& record);

  /// The workload index for `key`, or -1.
  int findWorkload(uint64_t key) const;
  /// The best `k` valid records of workload `key` measured on `target` (recordTarget()), fastest
  /// (lowest mean) first.
  std::vector<TuningRecord> topK(uint64_t key, const std::string& target, size_t k) const;
  /// The best valid record, if any.
  std::optional<TuningRecord> best(uint64_t key, const std::string& target) const;
  /// Every record of workload `key` on `target`, valid or not, in commit order (what a resumed
  /// run skips as already measured and trains its cost model with).
  std::vector<TuningRecord> records(uint64_t key, const std::string& target) const;

  /// The distinct targets (recordTarget() strings) of the records, sorted.
  std::vector<std::string> recordTargets() const;

  size_t numWorkloads() const;
  size_t numRecords() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// compile_tir(database, mod, target): `func` (unscheduled) with the best record of its
/// workload replayed; nullopt when the database has no valid record for it on `target`. Throws
/// DiagnosticError (code "database") when the best trace no longer applies to `func`.
std::optional<tir::PrimFunc> compileTir(const Database& database, const tir::PrimFunc& func,
                                        const target::Target& target);

}  // namespace tessera::tune
