// SPDX-License-Identifier: Apache-2.0
// CCM (NIST SP 800-38C, RFC 3610) for AES, SM4 and Twofish, with OpenSSL's
// one-shot call sequence and the TLS 1.2 / 1.3 record behaviour libssl uses.
//
// CCM cannot stream: B0 carries the message length, so the caller declares it
// first (update with in == out == NULL), gives the AAD in one call and the
// data in one call of exactly that length; decryption verifies the tag inside
// that call and releases nothing on failure. Final emits nothing. This is the
// default provider's contract (openssl-provider-contract.md §2.4, §5), with
// five deliberate differences where it is unsafe or inconsistent (README's
// table lists them):
//   - a final (or EVP_Cipher(ctx, out, NULL, 0)) with a message whose data
//     call never came verifies/authenticates the empty message when the
//     declared length is 0 and fails otherwise, instead of reporting success
//     for a message whose tag was never checked;
//   - a second AAD call or data call is refused instead of corrupting the MAC;
//   - a refused AAD call (before the length is declared, or a second one)
//     fails the message: its data call and final fail until the next init,
//     where the default provider goes on and tags the message without the
//     AAD the caller was told was refused;
//   - after a decryption's tag mismatch, final (and EVP_Cipher's legacy
//     finish call) fails as well, where the default provider returns 1;
//   - tag length and L take effect whenever they are set before the message
//     starts (the default provider fixes them at key setup).
// The message's whole blocks go through ccm_encrypt / ccm_decrypt
// (cores/modes.h): the core's fused CTR + CBC-MAC kernel, or its CBC-MAC and
// CTR kernels in L1-sized chunks (crypt_long); on a core without the fused
// kernel a short message, partial block included, goes through one CBC-MAC
// and one CTR call (crypt_short). The AAD goes through cbc_mac, or,
// decrypting on a core whose fused kernel has counter lanes to spare,
// through ccm_encrypt, which then also makes S0 and the first blocks'
// keystream (absorb_aad).
#include <openssl/params.h>

#include <cstring>

#include "cores/byte_order.h"
#include "cores/modes.h"
#include "provider/modes/aead_ctx.h"
#include "provider/modes/mode_contexts.h"
#include "provider/module/errors.h"
#include "provider/params/cipher_params.h"

namespace hwc {

namespace {

// Nonces (7..13 bytes) and tags (4, 6, ..., 16 bytes): two fixed-size copies
// of overlapping windows cover any length from 4 to 16, with no library call
// per message (tags_equal compares them the same way).
void copy_short(uint8_t* dst, const uint8_t* src, size_t n) {
    if (n >= 8) {
        std::memcpy(dst, src, 8);
        std::memcpy(dst + n - 8, src + n - 8, 8);
    } else {
        std::memcpy(dst, src, 4);
        std::memcpy(dst + n - 4, src + n - 4, 4);
    }
}

// Data of at most this many blocks, on a core without a fused CCM kernel,
// goes through CcmCtx::crypt_short.
constexpr size_t kShortBlocks = 8;

// The nonce is iv_ (ivlen_ = 15 - L bytes); the tag length M is taglen_.
class CcmCtx final : public FamilyCtx<CcmCtx, TlsAeadCtx> {
public:
    CcmCtx(const ProvCtx* prov, const AlgorithmRow& row) : FamilyCtx(prov, row, 12) {
        params_first_ = true;
        ivlen_ = 15 - L_;
    }
    ~CcmCtx() override { wipe_all(mac_, pre_); }

    int update(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in,
               size_t inl) override {
        if (inl <= outsize) [[likely]]
            return run(out, outl, in, inl);
        *outl = 0;
        return need_output(inl, outsize) ? 1 : 0; // raises "output buffer too small"
    }
    int final(uint8_t* out, size_t* outl, size_t) override {
        // The usual final, after the data call: run() would come to
        // finish() and find nothing to do.
        if (stage_ == Stage::done && key_set_ && !tls_aad_set_ && !failed_) [[likely]] {
            *outl = 0;
            return 1;
        }
        // The same entry as update(out, NULL): nothing is ever emitted here.
        static uint8_t dummy;
        size_t ignored = 0;
        *outl = 0;
        return run(out != nullptr ? out : &dummy, &ignored, nullptr, 0);
    }
    // EVP_Cipher(): as the default provider, every successful call reports
    // its input length (length declaration, AAD, data, TLS record alike).
    int cipher(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in,
               size_t inl) override {
        if (!update(out, outl, outsize, in, inl)) return 0;
        *outl = inl;
        return 1;
    }

    bool get_tag(OSSL_PARAM& p);
    bool set_tag(const OSSL_PARAM& p);
    bool set_ivlen(const OSSL_PARAM& p);
    bool set_tls_aad(const OSSL_PARAM& p) override {
        return take_tls_aad(p, taglen_, kErrInvalidInputLength);
    }
    bool set_tls_iv_fixed(const OSSL_PARAM& p) override;
    // Listed because the default provider lists them: CCM records carry
    // their explicit nonce, so there is nothing to generate or install.
    bool get_tls_iv_gen(OSSL_PARAM&) override { return true; }
    bool set_tls_iv_inv(const OSSL_PARAM&) override {
        return HWC_FAIL(prov_, kErrInvalidParam, "tlsivinv is a GCM parameter");
    }

private:
    // Where the current message is: length declared, AAD absorbed, data done.
    enum class Stage : uint8_t { idle, length, aad, done };

    void restart() override {
        reset_message();
        tag_ready_ = false;
        tls_aad_set_ = false;
        failed_ = false;
    }
    // Fails the message in progress: nothing but a new init succeeds now.
    bool fail_message() {
        failed_ = true;
        return false;
    }

    int run(uint8_t* out, size_t* outl, const uint8_t* in, size_t inl);
    int finish();
    bool declare(size_t mlen);
    // Inlined into run() (one frame for the usual data call) and its two
    // other callers.
    [[gnu::always_inline]] inline bool data(const uint8_t* in, uint8_t* out, size_t len,
                                            uint8_t* tag);
    int tls_record(uint8_t* out, size_t* outl, const uint8_t* in, size_t len);
    bool set_iv(const uint8_t* iv, size_t ivlen) override {
        if (ivlen != iv_length()) return KeyedCtx::set_iv(iv, ivlen); // refused there
        copy_short(iv_, iv, ivlen);
        iv_set_ = true;
        return true;
    }
    void reset_message() {
        stage_ = Stage::idle;
        wipe(mac_, sizeof mac_);
        if (pre_n_ != 0) { // only decryption fills it
            wipe(pre_, sizeof pre_);
            pre_n_ = 0;
        }
    }

    void format_block(uint8_t blk[kBlockSize], uint8_t flags, uint64_t field) const;
    uint8_t b0_flags(bool has_aad) const {
        return static_cast<uint8_t>((has_aad ? 0x40 : 0) | ((taglen_ - 2) / 2) << 3 | (L_ - 1));
    }
    void absorb_aad(const uint8_t* a, size_t alen);
    void mac_bytes(const uint8_t* p, size_t len); // whole blocks + a zero-padded tail
    void crypt_long(const uint8_t* in, uint8_t* out, size_t len, bool started,
                    uint8_t s0[kBlockSize]);
    void crypt_short(const uint8_t* in, uint8_t* out, size_t len, bool started,
                     uint8_t s0[kBlockSize]);

    Stage stage_ = Stage::idle;
    unsigned L_ = 8;      // length-field bytes; the nonce is 15 - L bytes (default 7)
    size_t b0_m_ = 12;    // M encoded in B0 of the current message
    uint64_t msglen_ = 0;
    uint8_t mac_[kBlockSize] = {};
    // E(K, A0), E(K, A1), ... computed beside the AAD's CBC-MAC (absorb_aad):
    // the tag mask S0 and the first keystream blocks; pre_n_ of them.
    uint8_t pre_[3 * kBlockSize] = {};
    size_t pre_n_ = 0;
    // The message failed (refused AAD, or a decryption's tag mismatch):
    // data and final fail until restart(), so code that checks only the
    // final call (as it must for GCM) sees the failure too.
    bool failed_ = false;

public:
    // The default provider's AES-CCM lists (OpenSSL 3.0); the key length check
    // is not listed.
    static constexpr ContextTables kParams{
        join(kCipherGets, kAeadGets, kTagGets<CcmCtx>, kTlsAeadGets),
        join(unlisted(kCipherSets, {OSSL_CIPHER_PARAM_KEYLEN}), kTagSets<CcmCtx>, kTlsAeadSets)};
};

// The one state machine behind update, final and EVP_Cipher (the default
// provider routes all three through the same function, so do we).
int CcmCtx::run(uint8_t* out, size_t* outl, const uint8_t* in, size_t inl) {
    *outl = 0;
    if (!need_key()) return 0;
    if (tls_aad_set_) return tls_record(out, outl, in, inl);
    if (failed_)
        return HWC_FAIL(prov_, kErrTagMismatch, "the message failed: initialise it again");
    if (in == nullptr && out != nullptr) return finish();
    if (!need_iv()) return 0;
    if (stage_ == Stage::done) {
        // EVP_Cipher(ctx, NULL, NULL, 0) after the data is how some legacy
        // code "finalises" any AEAD: accept it without reopening the nonce.
        if (in == nullptr && out == nullptr && inl == 0) return 1;
        return HWC_FAIL(prov_, kErrOneShotData, "message complete: set a new iv");
    }
    if (out == nullptr) {
        if (in == nullptr) { // declare the total message length
            if (stage_ == Stage::aad)
                return HWC_FAIL(prov_, kErrCcmLengthNotSet, "length declared after the aad");
            if (!declare(inl)) return 0;
            *outl = inl;
            return 1;
        }
        if (inl == 0) return 1;
        if (stage_ == Stage::idle)
            return HWC_FAIL(prov_, kErrCcmLengthNotSet) || fail_message();
        if (stage_ == Stage::aad)
            return HWC_FAIL(prov_, kErrOneShotData, "ccm takes the aad in one call") ||
                   fail_message();
        absorb_aad(in, inl);
        *outl = inl;
        return 1;
    }
    // Data: exactly one call of the declared length (declared now if not yet).
    if (stage_ == Stage::idle && !declare(inl)) return 0;
    if (inl != msglen_)
        return HWC_FAIL(prov_, kErrCcmLengthMismatch, "declared %llu bytes, got %zu",
                        static_cast<unsigned long long>(msglen_), inl);
    if (!data(in, out, inl, tag_)) return 0;
    *outl = inl;
    return 1;
}

// Final: nothing to emit. A message stopped before its data call is only
// complete if its declared length is 0; then it is finished here.
int CcmCtx::finish() {
    const bool started = stage_ == Stage::length || stage_ == Stage::aad;
    const bool empty_decrypt = !encrypt_ && stage_ == Stage::idle && iv_set_ && tag_set_;
    if (!started && !empty_decrypt) return 1;
    if (started && msglen_ != 0)
        return HWC_FAIL(prov_, kErrCcmLengthMismatch, "declared %llu bytes, no data given",
                        static_cast<unsigned long long>(msglen_));
    if (stage_ == Stage::idle && !declare(0)) return 0;
    static const uint8_t none = 0;
    uint8_t sink = 0;
    return data(&none, &sink, 0, tag_) ? 1 : 0;
}

bool CcmCtx::declare(size_t mlen) {
    // The length must fit the L-byte field of B0 (2^(8L) - 1 at most).
    if (L_ < 8 && (static_cast<uint64_t>(mlen) >> (8 * L_)) != 0)
        return HWC_FAIL(prov_, kErrCcmLengthMismatch, "%zu bytes do not fit in L = %u bytes", mlen,
                        L_);
    msglen_ = mlen;
    stage_ = Stage::length;
    return true;
}

// flags | nonce | `field` in the last L bytes, big-endian (SP 800-38C A.2.1
// B0 with the message length, A.3 counter block A_i with i). The nonce is
// the first 15 - L bytes of iv_ (L is 2..8, so the field lies within the
// last 8 bytes); `field` fits in L bytes (declare() saw to the length).
void CcmCtx::format_block(uint8_t blk[kBlockSize], uint8_t flags, uint64_t field) const {
    const uint64_t hi = uint64_t{flags} << 56 | load_be64(iv_) >> 8; // flags, nonce bytes 0..6
    const uint64_t mask = L_ == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * L_)) - 1;
    const uint64_t lo = (load_be64(iv_ + 7) & ~mask) | (field & mask); // nonce 7.., the field
    store_be64(blk, hi);
    store_be64(blk + 8, lo);
}

// The message's AAD, all of it: the MAC starts as E(K, B0) with the AAD flag
// (without AAD, data() encrypts B0 together with A0), then takes the encoded
// AAD length (SP 800-38C A.2.2) and the AAD bytes. B0 and the encoded AAD's
// first blocks (all of an AAD of up to 46 bytes, zero-padded) go through one
// cbc_mac call from a zero chaining value, whose first step is E(K, B0): the
// chain stays in the kernel's registers instead of passing through mac_ and
// a byte-wise XOR between one-block calls (64-byte AES-128-CCM messages with
// 16 bytes of AAD: three such calls before).
void CcmCtx::absorb_aad(const uint8_t* a, size_t alen) {
    uint8_t buf[4 * kBlockSize] = {};
    format_block(buf, b0_flags(true), msglen_);
    b0_m_ = taglen_;
    uint8_t* const enc = buf + kBlockSize; // the encoded AAD from here
    size_t hdr;
    const uint64_t n = alen;
    if (n < 0xFF00) {
        enc[0] = static_cast<uint8_t>(n >> 8);
        enc[1] = static_cast<uint8_t>(n);
        hdr = 2;
    } else if (n <= 0xFFFFFFFFu) {
        enc[0] = 0xFF;
        enc[1] = 0xFE;
        for (int i = 0; i < 4; ++i) enc[2 + i] = static_cast<uint8_t>(n >> (24 - 8 * i));
        hdr = 6;
    } else {
        enc[0] = 0xFF;
        enc[1] = 0xFF;
        for (int i = 0; i < 8; ++i) enc[2 + i] = static_cast<uint8_t>(n >> (56 - 8 * i));
        hdr = 10;
    }
    // Either all of the AAD fits (padded with the buffer's zeros) or the
    // buffer is filled to whole blocks and mac_bytes takes the rest.
    const size_t room = sizeof buf - kBlockSize - hdr;
    const size_t first = alen < room ? alen : room;
    std::memcpy(enc + hdr, a, first);
    std::memset(mac_, 0, sizeof mac_);
    const size_t blocks = 1 + (hdr + first + kBlockSize - 1) / kBlockSize;
    if (!encrypt_ && core_->ccm_free_counters) {
        // Decrypting (see data()): the core's fused kernel runs a counter
        // block beside each MAC block at no extra latency, A0, A1, ... from
        // here; their keystream is what it writes XOR what it read.
        uint8_t ctr[kBlockSize], out[sizeof buf];
        format_block(ctr, static_cast<uint8_t>(L_ - 1), 0);
        ccm_encrypt(*core_, ks_, mac_, ctr, buf, out, blocks);
        pre_n_ = blocks < 3 ? blocks : 3;
        for (size_t i = 0; i < pre_n_ * kBlockSize; ++i)
            pre_[i] = static_cast<uint8_t>(out[i] ^ buf[i]);
        wipe(out, sizeof out);
    } else {
        cbc_mac(*core_, ks_, mac_, buf, blocks);
    }
    if (first < alen) mac_bytes(a + first, alen - first);
    stage_ = Stage::aad;
}

void CcmCtx::mac_bytes(const uint8_t* p, size_t len) {
    const size_t blocks = len / kBlockSize;
    cbc_mac(*core_, ks_, mac_, p, blocks);
    const size_t tail = len % kBlockSize;
    if (tail != 0) {
        p += blocks * kBlockSize;
        for (size_t i = 0; i < tail; ++i) mac_[i] ^= p[i];
        ecb_encrypt(*core_, ks_, mac_, mac_, 1);
    }
}

// Any message, through the core's fused kernel or the generic two passes.
// Without AAD the MAC starts here, and E(K, B0) comes from the same call as
// S0. A0 (in s0 on entry, S0 on return) is formatted once: B0 differs from
// it in the flags and the field (the message length), A1 in the field's
// last bit.
void CcmCtx::crypt_long(const uint8_t* in, uint8_t* out, size_t len, bool started,
                        uint8_t s0[kBlockSize]) {
    const uint64_t a0_hi = load_be64(s0), a0_lo = load_be64(s0 + 8);
    uint8_t ctr_blk[kBlockSize];
    store_be64(ctr_blk, a0_hi);
    store_be64(ctr_blk + 8, a0_lo | 1);
    if (!started) {
        uint8_t b[2 * kBlockSize]; // B0, A0: one call enciphers both
        const uint64_t flags = b0_flags(false) ^ (L_ - 1);
        store_be64(b, a0_hi ^ flags << 56);
        store_be64(b + 8, a0_lo | msglen_);
        std::memcpy(b + kBlockSize, s0, kBlockSize);
        b0_m_ = taglen_;
        ecb_encrypt(*core_, ks_, b, b, 2);
        std::memcpy(mac_, b, kBlockSize);
        std::memcpy(s0, b + kBlockSize, kBlockSize);
        wipe(b, sizeof b);
    } else if (pre_n_ != 0) {
        std::memcpy(s0, pre_, kBlockSize);
    } else {
        ecb_encrypt(*core_, ks_, s0, s0, 1);
    }
    // Counter blocks A1, A2, ... The kernels step all 128 bits, but only the
    // low L bytes may change in CCM: they never wrap, because declare()
    // keeps the length below 2^(8L), so the last counter, ceil(len / 16),
    // stays below 2^(8L - 4) and no carry reaches the nonce or flag bytes.
    const size_t blocks = len / kBlockSize;
    size_t ready = 0; // leading blocks decrypted with keystream from pre_
    if (!encrypt_ && pre_n_ > 1) {
        // Decryption's MAC needs each plaintext block first. The blocks whose
        // keystream is ready are decrypted here and MACed in one call, and
        // the kernel's first counter block, which does not wait for the MAC,
        // runs beside that call: the MAC chain is then no longer than when
        // encrypting.
        ready = pre_n_ - 1 < blocks ? pre_n_ - 1 : blocks;
        for (size_t i = 0; i < ready * kBlockSize; ++i)
            out[i] = static_cast<uint8_t>(in[i] ^ pre_[kBlockSize + i]);
        cbc_mac(*core_, ks_, mac_, out, ready);
        store_be64(ctr_blk + 8, a0_lo | (1 + ready));
    }
    const size_t skip = ready * kBlockSize;
    if (encrypt_) ccm_encrypt(*core_, ks_, mac_, ctr_blk, in, out, blocks);
    else ccm_decrypt(*core_, ks_, mac_, ctr_blk, in + skip, out + skip, blocks - ready);
    const size_t tail = len % kBlockSize;
    if (tail != 0) { // the MAC reads the plaintext: `in` before in == out overwrites it
        const uint8_t* tin = in + blocks * kBlockSize;
        uint8_t* tout = out + blocks * kBlockSize;
        uint8_t pad[kBlockSize];
        ecb_encrypt(*core_, ks_, ctr_blk, pad, 1);
        if (encrypt_) mac_bytes(tin, tail);
        for (size_t i = 0; i < tail; ++i) tout[i] = static_cast<uint8_t>(tin[i] ^ pad[i]);
        if (!encrypt_) mac_bytes(tout, tail);
        wipe(pad, sizeof pad);
    }
    wipe(ctr_blk, sizeof ctr_blk);
}

// Up to kShortBlocks blocks of data on a core without a fused CCM kernel
// (SM4, Twofish; AES on aarch64 and the portable core): one cbc_mac call
// and one ctr call, where crypt_long makes up to five (S0, the whole blocks'
// MAC and keystream, the partial block's keystream and its MAC step), each
// a separate chain of block encryptions. The data is copied into a buffer
// behind one more block and zero-padded, which is the padding CCM MACs; the
// ctr call runs from A0, so the first block comes out as S0 and the rest as
// the data's keystream applied. That first block is zeros, or B0 when the
// MAC starts here (no AAD): then the cbc_mac call takes it too, from a zero
// chaining value, and S0 is the ctr output XOR B0. A0 is in s0 on entry,
// S0 on return.
void CcmCtx::crypt_short(const uint8_t* in, uint8_t* out, size_t len, bool started,
                         uint8_t s0[kBlockSize]) {
    const size_t n = (len + kBlockSize - 1) / kBlockSize; // data blocks, the last padded
    uint8_t buf[(1 + kShortBlocks) * kBlockSize];
    uint8_t first[kBlockSize] = {}; // buf's first block before the ctr call
    if (!started) {
        format_block(first, b0_flags(false), msglen_);
        b0_m_ = taglen_;
        std::memset(mac_, 0, sizeof mac_);
    }
    std::memcpy(buf, first, kBlockSize);
    std::memcpy(buf + kBlockSize, in, len);
    std::memset(buf + kBlockSize + len, 0, n * kBlockSize - len);
    // The MAC's input: B0 if it is in buf, then the padded plaintext.
    const uint8_t* const mac_in = started ? buf + kBlockSize : buf;
    const size_t mac_n = started ? n : n + 1;
    uint8_t ctr_blk[kBlockSize];
    std::memcpy(ctr_blk, s0, kBlockSize);
    if (encrypt_) cbc_mac(*core_, ks_, mac_, mac_in, mac_n);
    ctr(*core_, ks_, ctr_blk, buf, buf, n + 1);
    for (size_t i = 0; i < kBlockSize; ++i) {
        s0[i] = static_cast<uint8_t>(buf[i] ^ first[i]);
        buf[i] = first[i];
    }
    if (!encrypt_) {
        // The ciphertext's padding came out as keystream: zero it again
        // before the plaintext is MACed.
        std::memset(buf + kBlockSize + len, 0, n * kBlockSize - len);
        cbc_mac(*core_, ks_, mac_, mac_in, mac_n);
    }
    std::memcpy(out, buf + kBlockSize, len);
    wipe(buf, (n + 1) * kBlockSize);
    wipe(ctr_blk, sizeof ctr_blk);
}

// Encrypts (the tag, M bytes, to `tag`) or decrypts and verifies against
// the first M bytes of `tag`; on a mismatch the output is wiped.
bool CcmCtx::data(const uint8_t* in, uint8_t* out, size_t len, uint8_t* tag) {
    if (!encrypt_ && !tag_set_) return HWC_FAIL(prov_, kErrTagNotSet);
    const bool started = stage_ == Stage::aad; // B0 went in with the AAD
    if (started && b0_m_ != taglen_) {
        HWC_RAISE(prov_, kErrInvalidTagLength, "tag length changed after the aad");
        reset_message();
        return false;
    }
    // S0 = E(K, A0) masks the tag; both paths turn A0 into it.
    uint8_t s0[kBlockSize];
    format_block(s0, static_cast<uint8_t>(L_ - 1), 0);
    if (core_->ccm_encrypt == nullptr && len <= kShortBlocks * kBlockSize)
        crypt_short(in, out, len, started, s0);
    else
        crypt_long(in, out, len, started, s0);
    uint8_t t[kBlockSize]; // the tag: S0 xor the CBC-MAC
    store_be64(t, load_be64(s0) ^ load_be64(mac_));
    store_be64(t + 8, load_be64(s0 + 8) ^ load_be64(mac_ + 8));
    bool ok = true;
    if (encrypt_) {
        copy_short(tag, t, taglen_);
        tag_ready_ = true;
    } else {
        ok = tags_equal(t, tag, taglen_);
        if (!ok) wipe(out, len);
        // Decryption consumes the nonce and the expected tag, as the default provider does.
        iv_set_ = false;
        tag_set_ = false;
        wipe(tag_, sizeof tag_);
    }
    wipe_all(s0, t);
    reset_message();
    stage_ = Stage::done;
    if (!ok) {
        HWC_RAISE(prov_, kErrTagMismatch);
        return fail_message();
    }
    return true;
}

// One TLS 1.2 record in place: explicit nonce(8) | payload | tag(M).
int CcmCtx::tls_record(uint8_t* out, size_t* outl, const uint8_t* in, size_t len) {
    tls_aad_set_ = false; // consumed by this call, whatever its outcome
    if (in == nullptr || out != in || len < kTlsExplicitIvLen + taglen_)
        return HWC_FAIL(prov_, kErrInvalidInputLength,
                        "tls record must be in place and hold nonce and tag");
    if (iv_length() != kTlsFixedIvLen + kTlsExplicitIvLen)
        return HWC_FAIL(prov_, kErrInvalidIvLength, "tls records need a 12-byte nonce");
    const size_t plen = len - kTlsExplicitIvLen - taglen_;
    const size_t aad_len = size_t(tls_aad_[11]) << 8 | tls_aad_[12];
    if (aad_len != plen)
        return HWC_FAIL(prov_, kErrInvalidInputLength, "record of %zu bytes, aad says %zu", plen,
                        aad_len);
    if (encrypt_) std::memcpy(out, tls_aad_, kTlsExplicitIvLen); // the sequence number
    std::memcpy(iv_ + kTlsFixedIvLen, in, kTlsExplicitIvLen);
    reset_message();
    if (!declare(plen)) return 0;
    absorb_aad(tls_aad_, kTlsAadLen);
    uint8_t* payload = out + kTlsExplicitIvLen;
    // The expected tag is in the record, not in tag_; records carry their
    // own nonce, so the context's IV state is left as it was.
    const bool saved_iv_set = iv_set_;
    tag_set_ = true;
    const bool ok = data(payload, payload, plen, payload + plen);
    tag_set_ = false;
    tag_ready_ = false;
    iv_set_ = saved_iv_set;
    stage_ = Stage::idle;
    failed_ = false; // a record is a message of its own
    if (!ok) return 0;
    *outl = encrypt_ ? len : plen;
    return 1;
}

bool CcmCtx::get_tag(OSSL_PARAM& p) {
    if (!encrypt_ || !tag_ready_)
        return HWC_FAIL(prov_, kErrTagNotSet, "no tag computed (encrypt the data first)");
    if (p.data_type != OSSL_PARAM_OCTET_STRING || p.data == nullptr || p.data_size != taglen_)
        return HWC_FAIL(prov_, kErrInvalidTagLength, "request exactly the %zu-byte tag", taglen_);
    copy_short(static_cast<uint8_t*>(p.data), tag_, taglen_);
    p.return_size = taglen_;
    // The tag is read once; the nonce must not encrypt another message.
    tag_ready_ = false;
    iv_set_ = false;
    wipe(tag_, sizeof tag_);
    reset_message();
    return true;
}

// A tag (decrypting) or, with no data, just the tag length M.
bool CcmCtx::set_tag(const OSSL_PARAM& p) {
    const size_t n = p.data_size;
    if (p.data_type != OSSL_PARAM_OCTET_STRING || n < 4 || n > 16 || (n & 1) != 0)
        return HWC_FAIL(prov_, kErrInvalidTagLength, "ccm tags are 4, 6, ..., 16 bytes, not %zu",
                        n);
    if (p.data != nullptr) {
        if (encrypt_) return HWC_FAIL(prov_, kErrTagNotNeeded);
        copy_short(tag_, static_cast<const uint8_t*>(p.data), n);
        tag_set_ = true;
    }
    taglen_ = n;
    return true;
}

bool CcmCtx::set_ivlen(const OSSL_PARAM& p) {
    size_t sz;
    if (!OSSL_PARAM_get_size_t(&p, &sz) || sz < 7 || sz > 13)
        return HWC_FAIL(prov_, kErrInvalidIvLength, "ccm nonces are 7..13 bytes (L = 8..2)");
    const unsigned l = static_cast<unsigned>(15 - sz);
    if (l != L_) { // a nonce of the old length no longer fits
        L_ = l;
        ivlen_ = sz;
        iv_set_ = false;
        reset_message();
    }
    return true;
}

bool CcmCtx::set_tls_iv_fixed(const OSSL_PARAM& p) {
    if (p.data_type != OSSL_PARAM_OCTET_STRING || p.data == nullptr ||
        p.data_size != kTlsFixedIvLen)
        return HWC_FAIL(prov_, kErrInvalidIvLength, "tlsivfixed must be %zu bytes", kTlsFixedIvLen);
    std::memcpy(iv_, p.data, kTlsFixedIvLen);
    return true;
}

} // namespace

const ModeOps kCcmModeOps = mode_ops_for<CcmCtx>();

} // namespace hwc
