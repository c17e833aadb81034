// Parsing, validation and printing of VTA configurations (spec §1.1-§1.3).
#include "vta/rt/config.h"

#include <algorithm>
#include <array>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "support/diagnostic.h"
#include "vta/rt/isa.h"

namespace tessera::vta {
namespace {

constexpr std::array<std::string_view, 7> kTargets = {"sim",    "tsim",     "pynq",     "ultra96",
                                                      "zcu104", "de10nano", "intelfocl"};

// Element sizes above one page cannot be DMA'd by the reference runtime (its page-size check).
constexpr int64_t kMaxElemBytes = 4096;

[[noreturn]] void fail(std::string_view source, const std::string& message) {
  throwDiagnostic("vta_config", message, {}, std::string(source));
}

// The ten integer fields, in vta_config.json order, with their member in Config.
struct IntField {
  std::string_view key;
  int Config::* member;
};
constexpr std::array<IntField, 9> kIntFields = {{
    {"LOG_INP_WIDTH", &Config::logInpWidth},
    {"LOG_WGT_WIDTH", &Config::logWgtWidth},
    {"LOG_ACC_WIDTH", &Config::logAccWidth},
    {"LOG_BATCH", &Config::logBatch},
    {"LOG_BLOCK", &Config::logBlock},
    {"LOG_UOP_BUFF_SIZE", &Config::logUopBuffSize},
    {"LOG_INP_BUFF_SIZE", &Config::logInpBuffSize},
    {"LOG_WGT_BUFF_SIZE", &Config::logWgtBuffSize},
    {"LOG_ACC_BUFF_SIZE", &Config::logAccBuffSize},
}};

void checkElemBits(std::string_view source, std::string_view name, int64_t bits) {
  if (bits % 8 != 0) {
    fail(source, std::string(name) + " element is " + std::to_string(bits) +
                     " bits, which is not a whole number of bytes");
  }
  if (bits / 8 > kMaxElemBytes) {
    fail(source, std::string(name) + " element is " + std::to_string(bits / 8) +
                     " bytes, more than the 4096-byte page the DMA engine can move");
  }
}

void checkDepth(std::string_view source, std::string_view name, int logDepth) {
  if (logDepth < 0) {
    fail(source, std::string(name) + " buffer is smaller than one of its entries (log2 depth " +
                     std::to_string(logDepth) + ")");
  }
}

}  // namespace

int Config::logUopSrcDepth() const {
  return std::max(logAccBuffDepth(), logInpBuffDepth());
}

std::string Config::bitstream() const {
  std::ostringstream os;
  os << batch() << "x" << blockIn() << "_i" << inpWidth() << "w" << wgtWidth() << "a" << accWidth()
     << "_" << logUopBuffSize << "_" << logInpBuffSize << "_" << logWgtBuffSize << "_"
     << logAccBuffSize;
  return os.str();
}

std::string Config::model() const {
  return target + "_" + bitstream();
}

void Config::validate(std::string_view source) const {
  if (std::find(kTargets.begin(), kTargets.end(), target) == kTargets.end()) {
    fail(source, "unknown TARGET \"" + target +
                     "\"; expected one of sim, tsim, pynq, ultra96, zcu104, de10nano, intelfocl");
  }
  for (const IntField& f : kIntFields) {
    const int value = this->*f.member;
    // Upper bound 31 keeps every `1 << value` well defined; real values are far smaller.
    if (value < 0 || value > 31) {
      fail(source,
           std::string(f.key) + " must be an integer in [0, 31], found " + std::to_string(value));
    }
  }
  // The simulator's GEMM/ALU arithmetic and its 8-bit-to-accumulator path are defined for int32
  // accumulators only (spec §1.3); narrower lanes than 1 bit or wider than 32 do not exist.
  if (logAccWidth != 5) {
    fail(source, "LOG_ACC_WIDTH must be 5 (32-bit accumulators), found " +
                     std::to_string(logAccWidth) +
                     "; the simulator's accumulate and ALU arithmetic is defined for int32 only");
  }
  if (logInpWidth > 5 || logWgtWidth > 5) {
    fail(source, "LOG_INP_WIDTH and LOG_WGT_WIDTH must be at most 5 (32-bit lanes), found " +
                     std::to_string(logInpWidth) + " and " + std::to_string(logWgtWidth));
  }
  if (logBlock > 12 || logBatch > 12) {
    fail(source, "LOG_BLOCK and LOG_BATCH must be at most 12, found " + std::to_string(logBlock) +
                     " and " + std::to_string(logBatch));
  }
  checkElemBits(source, "INP", inpElemBits());
  checkElemBits(source, "WGT", wgtElemBits());
  checkElemBits(source, "ACC", accElemBits());
  checkElemBits(source, "OUT", outElemBits());
  checkDepth(source, "UOP", logUopBuffDepth());
  checkDepth(source, "INP", logInpBuffDepth());
  checkDepth(source, "WGT", logWgtBuffDepth());
  checkDepth(source, "ACC", logAccBuffDepth());
  // SRAM addresses in LOAD/STORE are 16-bit entry indices: a deeper buffer could not be filled.
  for (auto [name, logDepth] : {std::pair{"INP", logInpBuffDepth()},
                                {"WGT", logWgtBuffDepth()},
                                {"ACC", logAccBuffDepth()},
                                {"UOP", logUopBuffDepth()}}) {
    if (logDepth > 16) {
      fail(source, std::string(name) + " buffer has 2^" + std::to_string(logDepth) +
                       " entries but the 16-bit sram_base field addresses at most 2^16");
    }
  }
  const int uopBits = logAccBuffDepth() + logUopSrcDepth() + logWgtBuffDepth();
  if (uopBits > 32) {
    fail(source, "micro-op needs " + std::to_string(uopBits) +
                     " bits (LOG_ACC_DEPTH + max(LOG_ACC_DEPTH, LOG_INP_DEPTH) + LOG_WGT_DEPTH = " +
                     std::to_string(logAccBuffDepth()) + " + " + std::to_string(logUopSrcDepth()) +
                     " + " + std::to_string(logWgtBuffDepth()) + ") but a micro-op is 32 bits");
  }
  // Finally every instruction format must fit its two 64-bit words (spec §2.9).
  std::string overflow = instructionLayoutProblem(*this);
  if (!overflow.empty()) fail(source, overflow);
}

std::string Config::toJson() const {
  nlohmann::ordered_json j;
  j["TARGET"] = target;
  j["HW_VER"] = hwVer;
  for (const IntField& f : kIntFields) j[std::string(f.key)] = this->*f.member;
  return j.dump(2) + "\n";
}

Config parseConfig(std::string_view jsonText, std::string_view source) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(jsonText);
  } catch (const nlohmann::json::parse_error& e) {
    fail(source, std::string("malformed JSON: ") + e.what());
  }
  if (!j.is_object()) fail(source, "expected a JSON object of configuration fields");
  Config cfg;
  auto it = j.find("TARGET");
  if (it == j.end()) fail(source, "missing key \"TARGET\"");
  if (!it->is_string()) fail(source, "\"TARGET\" must be a string, found " + it->dump());
  cfg.target = it->get<std::string>();
  it = j.find("HW_VER");
  if (it != j.end()) {
    if (!it->is_string()) fail(source, "\"HW_VER\" must be a string, found " + it->dump());
    cfg.hwVer = it->get<std::string>();
  }
  for (const IntField& f : kIntFields) {
    it = j.find(std::string(f.key));
    if (it == j.end()) fail(source, "missing key \"" + std::string(f.key) + "\"");
    if (!it->is_number_integer()) {
      fail(source, "\"" + std::string(f.key) + "\" must be an integer, found " + it->dump());
    }
    const int64_t value = it->get<int64_t>();
    if (value < 0 || value > 31) {
      fail(source, "\"" + std::string(f.key) + "\" must be an integer in [0, 31], found " +
                       std::to_string(value));
    }
    cfg.*f.member = static_cast<int>(value);
  }
  cfg.validate(source);
  return cfg;
}

Config loadConfig(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open configuration file");
  std::ostringstream text;
  text << in.rdbuf();
  return parseConfig(text.str(), path);
}

}  // namespace tessera::vta
