// SPDX-License-Identifier: Apache-2.0
// GCM's arithmetic (NIST SP 800-38D) for one key: J0, the inc32 counter,
// GHASH over AAD and ciphertext with any split, and the tag. No OpenSSL
// semantics here (IV states, params, TLS): modes/mode_gcm.cpp and
// macs/mac_gmac.cpp build those on top. The key schedule is the caller's
// (their contexts own, copy and wipe it); the engine holds H and the message.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cores/core.h"
#include "cores/ghash.h"

namespace hwc {

class GcmEngine {
public:
    // SP 800-38D limits: plaintext at most 2^39 - 256 bits, AAD below 2^64 bits.
    static constexpr uint64_t kMaxData = (uint64_t{1} << 36) - 32;
    static constexpr uint64_t kMaxAad = (uint64_t{1} << 61) - 1;
    // OpenSSL accepts 1..128-byte IVs; hwcipher's GCM and GMAC take up to
    // 1 KiB (8192 bits), which covers every IV length the standards and test
    // suites use.
    static constexpr size_t kMaxIvLen = 1024;

    GcmEngine() = default;
    GcmEngine(const GcmEngine&) = default;
    GcmEngine& operator=(const GcmEngine&) = default;
    ~GcmEngine() { clear(); }

    // Schedules the key into `ks` with `core` and derives H; false if the
    // core refuses the key length (then nothing secret is left behind here;
    // the caller wipes `ks`).
    bool set_key(const BlockCore& core, const GhashCore& ghash, KeySchedule& ks,
                 const uint8_t* key, size_t keylen);
    bool has_key() const { return core_ != nullptr; }

    // Starts a message under `iv` (ivlen >= 1; 12 bytes take the fast path,
    // others go through GHASH). Requires a key; crypt and finish take the
    // `ks` that set_key filled.
    void start(const uint8_t* iv, size_t ivlen);

    // AAD, any split; false once data has been processed or past the limit.
    bool aad(const uint8_t* in, size_t len);
    // Data, any split, in == out allowed; false past the length limit (then
    // nothing is written).
    bool crypt(const KeySchedule& ks, const uint8_t* in, uint8_t* out, size_t len, bool encrypt);
    bool data_started() const { return data_started_; }

    // Completes GHASH and writes the full 16-byte tag.
    void finish(const KeySchedule& ks, uint8_t tag[kBlockSize]);

    // Wipes H and message state.
    void clear();

private:
    void ghash_bytes(const uint8_t* in, size_t len);
    void flush_buf();
    void ghash_pad();
    void ctr32(const KeySchedule& ks, const uint8_t* in, uint8_t* out, size_t nblocks);
    bool stitched() const { return core_->gcm_ghash == ghash_; }
    void crypt_first_short(const KeySchedule& ks, const uint8_t* in, uint8_t* out, size_t len,
                           bool encrypt);
    void crypt_tail(const uint8_t* in, uint8_t* out, size_t len, bool encrypt);

    const BlockCore* core_ = nullptr;
    const GhashCore* ghash_ = nullptr;
    GhashKey hkey_{};

    uint8_t y_[kBlockSize] = {};     // GHASH accumulator
    uint8_t buf_[kBlockSize] = {};   // bytes waiting for a whole GHASH block; zero past buf_n_
    size_t buf_n_ = 0;
    uint8_t ctr_[kBlockSize] = {};   // next counter block
    uint8_t ek_[kBlockSize] = {};    // keystream of the current partial block
    size_t ek_pos_ = kBlockSize;     // used bytes of ek_ (16: none left)
    uint8_t ekj0_[kBlockSize] = {};  // E(K, J0), masks the tag; set with the first data (or finish)
    uint8_t j0_[kBlockSize] = {};    // J0, the message's first counter block
    uint64_t aad_len_ = 0, data_len_ = 0;
    bool data_started_ = false;
};

} // namespace hwc
