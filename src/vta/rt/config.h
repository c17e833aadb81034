// VTA hardware configuration (spec §1): the ten vta_config.json fields, every derived quantity, and
// the validation that rejects configurations the ISA or the simulator cannot represent.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tessera::vta {

/// The parameters of one VTA instance, as read from a vta_config.json file. Default-constructed,
/// it holds the standard configuration (int8 inputs and weights, int32 accumulators, BATCH 1,
/// BLOCK 16, 32 KiB micro-op/input SRAM, 256 KiB weight SRAM, 128 KiB accumulator SRAM).
/// All derived quantities are computed on demand from the LOG_* fields; call validate() (or build
/// the config with parseConfig/loadConfig, which validate) before relying on them.
struct Config {
  std::string target = "sim";   ///< TARGET: sim, tsim, pynq, ultra96, zcu104, de10nano, intelfocl
  std::string hwVer = "0.0.2";  ///< HW_VER: bitstream identity only
  int logInpWidth = 3;          ///< LOG_INP_WIDTH
  int logWgtWidth = 3;          ///< LOG_WGT_WIDTH
  int logAccWidth = 5;          ///< LOG_ACC_WIDTH
  int logBatch = 0;             ///< LOG_BATCH
  int logBlock = 4;             ///< LOG_BLOCK (= LOG_BLOCK_IN = LOG_BLOCK_OUT)
  int logUopBuffSize = 15;      ///< LOG_UOP_BUFF_SIZE (bytes)
  int logInpBuffSize = 15;      ///< LOG_INP_BUFF_SIZE (bytes)
  int logWgtBuffSize = 18;      ///< LOG_WGT_BUFF_SIZE (bytes)
  int logAccBuffSize = 17;      ///< LOG_ACC_BUFF_SIZE (bytes)

  /// The standard configuration (identical to the shipped src/vta/rt/vta_config.json).
  static Config defaults() { return Config{}; }

  // --- widths (bits per scalar) ---
  int logOutWidth() const { return logInpWidth; }
  int inpWidth() const { return 1 << logInpWidth; }
  int wgtWidth() const { return 1 << logWgtWidth; }
  int accWidth() const { return 1 << logAccWidth; }
  int outWidth() const { return 1 << logOutWidth(); }

  // --- GEMM tile shape ---
  int logBlockIn() const { return logBlock; }
  int logBlockOut() const { return logBlock; }
  int batch() const { return 1 << logBatch; }
  int blockIn() const { return 1 << logBlockIn(); }
  int blockOut() const { return 1 << logBlockOut(); }

  // --- SRAM sizes in bytes ---
  int logOutBuffSize() const { return logAccBuffSize + logOutWidth() - logAccWidth; }
  int64_t uopBuffSize() const { return int64_t{1} << logUopBuffSize; }
  int64_t inpBuffSize() const { return int64_t{1} << logInpBuffSize; }
  int64_t wgtBuffSize() const { return int64_t{1} << logWgtBuffSize; }
  int64_t accBuffSize() const { return int64_t{1} << logAccBuffSize; }
  int64_t outBuffSize() const { return int64_t{1} << logOutBuffSize(); }

  // --- one SRAM entry ("tensor tile") ---
  int64_t inpElemBits() const { return int64_t{batch()} * blockIn() * inpWidth(); }
  int64_t wgtElemBits() const { return int64_t{blockOut()} * blockIn() * wgtWidth(); }
  int64_t accElemBits() const { return int64_t{batch()} * blockOut() * accWidth(); }
  int64_t outElemBits() const { return int64_t{batch()} * blockOut() * outWidth(); }
  int64_t inpElemBytes() const { return inpElemBits() / 8; }
  int64_t wgtElemBytes() const { return wgtElemBits() / 8; }
  int64_t accElemBytes() const { return accElemBits() / 8; }
  int64_t outElemBytes() const { return outElemBits() / 8; }
  static constexpr int kUopElemBytes = 4;    ///< a micro-op is 32 bits
  static constexpr int kInsnElemBytes = 16;  ///< an instruction is 128 bits

  // --- SRAM depths in entries (log2) ---
  int logUopBuffDepth() const { return logUopBuffSize - 5 + 3; }
  int logInpBuffDepth() const { return logInpBuffSize - logBatch - logBlockIn() - logInpWidth + 3; }
  int logWgtBuffDepth() const {
    return logWgtBuffSize - logBlockOut() - logBlockIn() - logWgtWidth + 3;
  }
  int logAccBuffDepth() const {
    return logAccBuffSize - logBatch - logBlockOut() - logAccWidth + 3;
  }
  int64_t uopBuffDepth() const { return int64_t{1} << logUopBuffDepth(); }
  int64_t inpBuffDepth() const { return int64_t{1} << logInpBuffDepth(); }
  int64_t wgtBuffDepth() const { return int64_t{1} << logWgtBuffDepth(); }
  int64_t accBuffDepth() const { return int64_t{1} << logAccBuffDepth(); }
  /// OUT is addressed with accumulator indices, so it has the accumulator's depth.
  int64_t outBuffDepth() const { return accBuffDepth(); }
  /// Width in bits of the micro-op's src_idx field: it indexes INP (GEMM) or ACC (ALU).
  int logUopSrcDepth() const;

  // --- names ---
  std::string inpDtype() const { return "int" + std::to_string(inpWidth()); }
  std::string wgtDtype() const { return "int" + std::to_string(wgtWidth()); }
  std::string accDtype() const { return "int" + std::to_string(accWidth()); }
  std::string outDtype() const { return "int" + std::to_string(outWidth()); }
  /// "1x16_i8w8a32_15_15_18_17" for the default configuration.
  std::string bitstream() const;
  /// TARGET + "_" + bitstream(), e.g. "sim_1x16_i8w8a32_15_15_18_17".
  std::string model() const;

  /// Throws DiagnosticError (code "vta_config", context `source`) when the configuration is
  /// inconsistent (spec §1.3) or outside what Tessera's ISA encoder and simulator support.
  void validate(std::string_view source = "vta config") const;

  /// The vta_config.json text of this configuration (all ten fields plus HW_VER).
  std::string toJson() const;

  bool operator==(const Config&) const = default;
};

/// Parses and validates vta_config.json text; `source` names it in diagnostics. Unknown keys are
/// ignored (other tools add their own); missing or mistyped keys are errors.
Config parseConfig(std::string_view jsonText, std::string_view source = "vta config");
/// Reads, parses and validates a vta_config.json file.
Config loadConfig(const std::string& path);

}  // namespace tessera::vta
