// The tuning database: round trip through its files, resume (records survive a reopen), the best
// record query, corrupt and empty files (reported, nothing stored lost), compile_tir, and a trace
// that no longer applies to a changed workload.
#include "tune/database.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "lower/relay/schedule_provider.h"
#include "support/diagnostic.h"
#include "tir/printer/printer.h"
#include "tune/apply_history_best.h"
#include "unit/scratch_dir.h"
#include "unit/tir/schedule_test_util.h"

namespace tessera::tune {
namespace {

const char* kTarget = "llvm -num-cores=1";

// The seed's stochastic_schedule_mm with a given decision.
tir::Trace seedTrace(const tir::PrimFunc& func, std::vector<int64_t> decision) {
  tir::Schedule sch(func, 0);
  tir::BlockRV c = sch.getBlock("C", "main");
  std::vector<tir::LoopRV> l = sch.getLoops(c);
  std::vector<tir::ExprRV> f = sch.samplePerfectTile(l[1], 2, 16, decision);
  std::vector<tir::LoopRV> j = sch.split(l[1], {f[0], f[1]});
  sch.reorder({l[0], j[0], l[2], j[1]});
  sch.decomposeReduction(c, l[2]);
  return sch.trace();
}

TuningRecord record(const tir::PrimFunc& func, std::vector<int64_t> decision, double secs) {
  return {seedTrace(func, decision), {secs, secs}, kTarget, argInfoOf(func)};
}

TEST(TuneDatabase, RoundTripResumeAndBest) {
  const ScratchDir dirScratch("db_roundtrip");
  const std::string dir = dirScratch.str();
  const tir::PrimFunc mm = tir::testing::matmul();
  const uint64_t key = lower::workloadKey(mm);
  {
    Database db(dir);
    EXPECT_TRUE(db.warnings().empty());
    const int w = db.commitWorkload(mm);
    EXPECT_EQ(db.commitWorkload(mm), w);  // deduplicated
    db.commitRecord(w, record(mm, {8, 16}, 3e-5));
    db.commitRecord(w, record(mm, {32, 4}, 1e-5));
    db.commitRecord(w, {seedTrace(mm, {64, 2}), {kFailedRunSeconds}, kTarget, argInfoOf(mm)});
  }
  Database db(dir);  // a later run
  EXPECT_TRUE(db.warnings().empty());
  EXPECT_EQ(db.numWorkloads(), 1u);
  EXPECT_EQ(db.numRecords(), 3u);
  std::optional<TuningRecord> best = db.best(key, kTarget);
  ASSERT_TRUE(best);
  EXPECT_EQ(best->trace.toJson(), seedTrace(mm, {32, 4}).toJson());
  EXPECT_DOUBLE_EQ(best->mean(), 1e-5);
  EXPECT_EQ(best->args.size(), 3u);
  EXPECT_EQ(db.topK(key, kTarget, 10).size(), 2u);  // the failure is never returned
  EXPECT_EQ(db.records(key, kTarget).size(), 3u);
  EXPECT_FALSE(db.best(key, "llvm -num-cores=4"));  // another target's records are not used
  // The file lines keep TVM's structure.
  std::ifstream in(dir + "/database_tuning_record.json");
  std::string first;
  std::getline(in, first);
  EXPECT_EQ(first.rfind("[0,[[[[\"GetBlock\",[],[\"C\",\"main\"],[\"b0\"]]", 0), 0u) << first;
}

TEST(TuneDatabase, ReplayFromTheDatabaseGivesTheSameIR) {
  const ScratchDir dirScratch("db_replay");
  const std::string dir = dirScratch.str();
  const tir::PrimFunc mm = tir::testing::matmul();
  tir::Schedule direct(mm, 0);
  tir::applyTrace(direct, seedTrace(mm, {16, 8}));
  {
    Database db(dir);
    db.commitRecord(db.commitWorkload(mm), record(mm, {16, 8}, 1e-5));
  }
  Database db(dir);
  std::optional<tir::PrimFunc> tuned = compileTir(db, mm, target::Target::parse(kTarget));
  ASSERT_TRUE(tuned);
  EXPECT_EQ(tir::toScript(*tuned), tir::toScript(direct.func()));
  EXPECT_FALSE(compileTir(db, tir::testing::matmul(64, 64, 64), target::Target::parse(kTarget)));
}

TEST(TuneDatabase, CorruptAndEmptyFilesAreReportedAndNothingIsLost) {
  const ScratchDir dirScratch("db_corrupt");
  const std::string dir = dirScratch.str();
  const tir::PrimFunc mm = tir::testing::matmul();
  {
    Database db(dir);
    db.commitRecord(db.commitWorkload(mm), record(mm, {8, 16}, 2e-5));
  }
  {
    // A run killed mid-write leaves half a line; an editor leaves garbage.
    std::ofstream out(dir + "/database_tuning_record.json", std::ios::app);
    out << "[0,[[[[\"GetBlock\",[],[\"C\"\n{not json}\n[7,[[[],[]],[1e-5],{},[]]]";
  }
  {
    Database db(dir);
    ASSERT_EQ(db.warnings().size(), 3u);
    EXPECT_NE(db.warnings()[0].find("database_tuning_record.json:2: corrupt"), std::string::npos)
        << db.warnings()[0];
    EXPECT_EQ(db.numRecords(), 1u);
    // Appending after a cut line starts a new line.
    db.commitRecord(0, record(mm, {32, 4}, 1e-5));
  }
  Database db(dir);
  EXPECT_EQ(db.numRecords(), 2u);
  EXPECT_EQ(db.warnings().size(), 3u);
  EXPECT_DOUBLE_EQ(db.best(lower::workloadKey(mm), kTarget)->mean(), 1e-5);

  // Empty files are an empty database.
  const ScratchDir emptyScratch("db_empty");
  const std::string empty = emptyScratch.str();
  std::filesystem::create_directories(empty);
  std::ofstream(empty + "/database_workload.json").close();
  std::ofstream(empty + "/database_tuning_record.json").close();
  Database e(empty);
  EXPECT_TRUE(e.warnings().empty());
  EXPECT_EQ(e.numRecords(), 0u);
}

TEST(TuneDatabase, ATraceThatNoLongerAppliesIsReported) {
  const tir::PrimFunc mm = tir::testing::matmul();
  Database db;  // in memory
  TuningRecord r = record(mm, {8, 16}, 1e-5);
  // The record's trace names a block the workload does not have (the workload changed).
  r.trace = tir::Trace::fromJson(
      "[[[\"GetBlock\",[],[\"D\",\"main\"],[\"b0\"]],[\"GetLoops\",[\"b0\"],[],[\"l1\",\"l2\","
      "\"l3\"]],[\"Parallel\",[\"l1\"],[],[]]],[]]");
  db.commitRecord(db.commitWorkload(mm), r);
  try {
    compileTir(db, mm, target::Target::parse(kTarget));
    FAIL() << "expected a diagnostic";
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().code, "database");
    EXPECT_NE(e.diagnostic().message.find("no longer applies"), std::string::npos);
  }
  // Through the schedule seam, the compiler gets the trace and reports it (driver tests).
  ApplyHistoryBest provider(std::make_shared<Database>(std::move(db)));
  EXPECT_TRUE(provider.scheduleFor(lower::workloadKey(mm), mm, target::Target::parse(kTarget)));
}

}  // namespace
}  // namespace tessera::tune
