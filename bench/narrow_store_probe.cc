// Probe for the int8 kernels' output stores: every int8 convolution ends its epilogue by
// narrowing 16 int32 lanes to 16 bytes and storing them. Compiled kernels do it with one
// `vpmovdb` to memory per 16 outputs (LLVM's lowering of `trunc <16 x i32> to <16 x i8>`, and
// of wider truncations too: four `vpmovdb` and three inserts for 64 lanes). This times, per 16
// outputs, at one thread:
//
//  * vpmovdb-mem: `vpmovdb` straight to memory (what the kernels do);
//  * vpmovdb-reg: `vpmovdb` to a register, then a 16-byte store;
//  * packs: four vectors of one row at a time (64 consecutive outputs), two `vpackssdw`, one
//    `vpacksswb`, one `vpermd` putting each vector's bytes back in order, one 64-byte store (the
//    same bytes as truncation for values in [-128, 127], which the epilogue's clip ensures);
//  * packs-single: one vector packed with itself (`vpackssdw`, `vpacksswb`, `vpermd`), a 16-byte
//    store: no regrouping of a kernel's tile needed;
//  * vpermt2b-rows: four rows' low bytes gathered by two `vpermt2b` and a `vpermt2q` (VBMI):
//    truncation like vpmovdb, so it needs no clip before it;
//  * packs-rows: the same packing, the four vectors from four different output rows (a tile of
//    4 channels x 16 pixels), stored as four 16-byte pieces (`vmovdqu` + three `vextracti32x4`).
//
// All four write the same bytes (checked). Usage: narrow_store_probe [ROUNDS]; pin it with
// taskset for one core. Needs AVX-512 BW and VBMI; says so and exits 0 without.
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

// g++ 12 warns that the intrinsics' own undefined placeholders "may be used uninitialized".
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace {

// 64 vectors of int32 in [-128, 127] kept in a small array (so loading them costs the same in
// every variant); the stores go round a 64 KiB buffer that stays in L1/L2, as an output row
// block does.
constexpr int kVectors = 64;
constexpr int kBufferBytes = 1 << 16;
constexpr int kRowPitch = 4096;  // bytes between the rows of packs-rows

struct Data {
  alignas(64) int32_t in[kVectors * 16];
  std::vector<int8_t> out = std::vector<int8_t>(kBufferBytes + 4 * kRowPitch);
  std::vector<int8_t> out64 = std::vector<int8_t>(kBufferBytes);
};

#define AVX512BW __attribute__((target("avx512f,avx512bw")))

// Each function stores all kVectors vectors `repeat` times at advancing offsets; vector v of
// pass r goes to byte offset place(r, v), the same in all variants.
inline int place(int pass, int v) {
  const int block = (pass * kVectors + v) / 4, lane = v % 4;  // 4 vectors = one row tile
  return (block * 16) % (kBufferBytes - 64) + lane * kRowPitch;
}

AVX512BW void vpmovdbMem(Data& d, int repeat) {
  for (int r = 0; r < repeat; ++r)
    for (int v = 0; v < kVectors; ++v)
      _mm512_mask_cvtepi32_storeu_epi8(d.out.data() + place(r, v), 0xffff,
                                       _mm512_load_si512(d.in + 16 * v));
}

AVX512BW void vpmovdbReg(Data& d, int repeat) {
  for (int r = 0; r < repeat; ++r)
    for (int v = 0; v < kVectors; ++v)
      _mm_storeu_si128(reinterpret_cast<__m128i*>(d.out.data() + place(r, v)),
                       _mm512_cvtepi32_epi8(_mm512_load_si512(d.in + 16 * v)));
}

// Four vectors packed to 64 bytes, lane l of the result holding vector l's 16 bytes in order.
AVX512BW inline __m512i packFour(const int32_t* in) {
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  const __m512i a = _mm512_packs_epi32(_mm512_load_si512(in), _mm512_load_si512(in + 16));
  const __m512i b = _mm512_packs_epi32(_mm512_load_si512(in + 32), _mm512_load_si512(in + 48));
  return _mm512_permutexvar_epi32(order, _mm512_packs_epi16(a, b));
}

// The four vectors are 64 consecutive outputs of one row: one 64-byte store, into out64.
AVX512BW void packsContiguous(Data& d, int repeat) {
  for (int r = 0; r < repeat; ++r)
    for (int v = 0; v < kVectors; v += 4)
      _mm512_storeu_si512(d.out64.data() + ((r * kVectors + v) * 16) % kBufferBytes,
                          packFour(d.in + 16 * v));
}

// The four 16-byte lanes of p to four rows kRowPitch apart.
AVX512BW inline void storeRows(int8_t* base, __m512i p) {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(base), _mm512_castsi512_si128(p));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(base + kRowPitch), _mm512_extracti32x4_epi32(p, 1));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(base + 2 * kRowPitch),
                   _mm512_extracti32x4_epi32(p, 2));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(base + 3 * kRowPitch),
                   _mm512_extracti32x4_epi32(p, 3));
}

AVX512BW void packsRows(Data& d, int repeat) {
  for (int r = 0; r < repeat; ++r)
    for (int v = 0; v < kVectors; v += 4) {
      const __m512i p = packFour(d.in + 16 * v);
      int8_t* base = d.out.data() + place(r, v);
      storeRows(base, p);
    }
}

// One vector at a time, packed with itself: the form a kernel whose output stage holds one vector
// per row could use without regrouping its tile.
AVX512BW void packsSingle(Data& d, int repeat) {
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  for (int r = 0; r < repeat; ++r)
    for (int v = 0; v < kVectors; ++v) {
      const __m512i x = _mm512_load_si512(d.in + 16 * v);
      const __m512i w = _mm512_packs_epi32(x, x);
      const __m512i b = _mm512_permutexvar_epi32(order, _mm512_packs_epi16(w, w));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(d.out.data() + place(r, v)),
                       _mm512_castsi512_si128(b));
    }
}

// Four vectors' low bytes gathered by byte permutes (AVX-512 VBMI): truncation, as vpmovdb, so
// no range is needed; two `vpermt2b` and one `vpermt2q`, four 16-byte stores.
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) void permuteRows(Data& d, int repeat) {
  alignas(64) int8_t lowBytes[64];
  for (int i = 0; i < 64; ++i) lowBytes[i] = static_cast<int8_t>((i % 32) * 4);  // a's, then b's
  const __m512i pick = _mm512_load_si512(lowBytes);
  const __m512i halves = _mm512_setr_epi64(0, 1, 2, 3, 8, 9, 10, 11);
  for (int r = 0; r < repeat; ++r)
    for (int v = 0; v < kVectors; v += 4) {
      const int32_t* in = d.in + 16 * v;
      const __m512i ab =
          _mm512_permutex2var_epi8(_mm512_load_si512(in), pick, _mm512_load_si512(in + 16));
      const __m512i cd =
          _mm512_permutex2var_epi8(_mm512_load_si512(in + 32), pick, _mm512_load_si512(in + 48));
      const __m512i p = _mm512_permutex2var_epi64(ab, halves, cd);
      int8_t* base = d.out.data() + place(r, v);
      storeRows(base, p);
    }
}

using Variant = void (*)(Data&, int);

// Nanoseconds per 16 outputs of one call of `repeat` passes.
double timeOnce(Variant f, Data& d, int repeat) {
  const auto t0 = std::chrono::steady_clock::now();
  f(d, repeat);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return s * 1e9 / (double(repeat) * kVectors);
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 9;
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx512bw") || !__builtin_cpu_supports("avx512vbmi")) {
    std::printf("narrow_store_probe: this CPU has no AVX-512 BW and VBMI; nothing to time\n");
    return 0;
  }
  Data d;
  for (int i = 0; i < kVectors * 16; ++i) d.in[i] = (i * 37) % 256 - 128;
  // vpmovdb-reg and packs-rows store the same bytes at the same places as vpmovdb-mem; packs
  // stores each vector's 16 bytes in order (one pass of 64 vectors: 4 KiB from offset 0).
  Data ref = d, other = d;
  vpmovdbMem(ref, 3);
  for (Variant f : {vpmovdbReg, packsRows, packsSingle, permuteRows}) {
    other.out.assign(other.out.size(), 0);
    f(other, 3);
    if (other.out != ref.out) {
      std::printf("narrow_store_probe: the variants store different bytes\n");
      return 1;
    }
  }
  packsContiguous(other, 1);
  for (int i = 0; i < kVectors * 16; ++i)
    if (other.out64[i] != static_cast<int8_t>(d.in[i])) {
      std::printf("narrow_store_probe: packs stores different bytes\n");
      return 1;
    }
  const char* names[] = {"vpmovdb-mem",
                         "vpmovdb-reg",
                         "packs (64-byte store)",
                         "packs-rows (4 x 16-byte stores)",
                         "packs-single (one vector packed with itself)",
                         "vpermt2b-rows (4 x 16-byte stores)"};
  const Variant variants[] = {vpmovdbMem, vpmovdbReg,  packsContiguous,
                              packsRows,  packsSingle, permuteRows};
  const int repeat = 20000;
  std::vector<std::vector<double>> ns(6);
  for (int r = 0; r < rounds; ++r)  // interleaved, medians
    for (int k = 0; k < 6; ++k) ns[k].push_back(timeOnce(variants[k], d, repeat));
  std::printf("| store of 16 int8 outputs | ns (median of %d) |\n|---|---:|\n", rounds);
  for (int k = 0; k < 6; ++k) {
    std::sort(ns[k].begin(), ns[k].end());
    std::printf("| %s | %.3f |\n", names[k], ns[k][ns[k].size() / 2]);
  }
  return 0;
}
