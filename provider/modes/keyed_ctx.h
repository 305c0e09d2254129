// SPDX-License-Identifier: Apache-2.0
// The base of every cipher context: the algorithm and its core, the key
// schedule, the IV, the direction, the one init sequence, the standard "no
// key"/"no iv" refusals, wiping on re-key and free, and the answers the
// shared parameter rows read (params/cipher_params.h). A mode family adds its
// message state, overrides the hooks where it differs and declares its
// parameter tables; FamilyCtx gives the final class clone() and its ModeOps.
#pragma once

#include <new>

#include "cores/core.h"
#include "provider/modes/cipher_ctx.h"
#include "provider/params/param_table.h"

namespace hwc {

class KeyedCtx : public CipherCtx {
public:
    using ParamContext = KeyedCtx;

    KeyedCtx(const ProvCtx* prov, const AlgorithmRow& row);
    ~KeyedCtx() override;

    // Init, in this order: the direction; restart(); the parameters if
    // params_first_; the IV (set_iv); the key (set_key) or, without one,
    // keep_key(); the parameters otherwise. The first failure ends it.
    int init(bool encrypt, const uint8_t* key, size_t keylen, const uint8_t* iv, size_t ivlen,
             const OSSL_PARAM params[]) final;
    // Nothing to finish: families whose every update is complete (XTS, key wrap).
    int final(uint8_t*, size_t* outl, size_t) override {
        *outl = 0;
        return 1;
    }
    // get_ctx_params and set_ctx_params: FamilyCtx, from the family's tables.

    // ---- what the shared parameter rows read -----------------------------
    size_t key_len() const { return key_bytes(*row_); }
    size_t iv_length() const { return ivlen_; }
    // "iv" (updated = false) and "updated-iv"; nullptr when there is no IV
    // to give yet (the AEAD rows then refuse with "no iv set").
    virtual const uint8_t* iv_param(bool) const { return iv_; }
    // The non-AEAD families' "padding", "num", "tls-mac" and its size.
    virtual unsigned padding() const { return 1; }
    virtual unsigned num() const { return 0; }
    virtual const uint8_t* tls_mac() const { return nullptr; }
    virtual size_t tls_mac_size() const { return 0; }

protected:
    KeyedCtx(const KeyedCtx&) = default;

    // ---- the init sequence's hooks ----------------------------------------
    // Forget the message or stream in progress (every init).
    virtual void restart() {}
    // Checks the IV's length and installs it. Default: exactly iv_length()
    // bytes into iv_.
    virtual bool set_iv(const uint8_t* iv, size_t ivlen);
    // Schedules a key of the right length into ks_ (ks_ is wiped and
    // key_set_ false on entry); false with an error raised (refused()).
    virtual bool schedule_key(const uint8_t* key, size_t keylen);
    // A key-less init keeps the key; false (error raised) refuses that.
    virtual bool keep_key() { return true; }
    // Called with a key of the right length while one is set: true if it is
    // the key already scheduled and the family has done what a re-key does
    // to its state, so the schedule is kept (GCM: H and its powers, on the
    // per-message path of callers that pass the key with every init).
    // Default: always schedule.
    virtual bool same_key(const uint8_t*, size_t) { return false; }

    // ---- the standard refusals: false, with the error raised --------------
    bool need_key() const { return key_set_ || no_key(); } // "no key set"
    bool need_iv() const { return iv_set_ || iv_length() == 0 || no_iv(); } // "no iv set"
    bool need_output(size_t need, size_t have) const { // "output buffer too small"
        return have >= need || short_output(need, have);
    }
    bool refused() const; // the core refused the key
    // An on/off parameter `name` ("padding", "use-bits", "speed"): non-zero
    // is on. Inline: EVP sets "padding" at every init.
    bool set_switch(const OSSL_PARAM& p, bool& on, const char* name) const {
        unsigned int value;
        if (!OSSL_PARAM_get_uint(&p, &value)) return bad_switch(name);
        on = value != 0;
        return true;
    }

    const BlockCore* core_;
    bool params_first_ = false; // init takes "params" before the IV (CCM, OCB:
                                // an "ivlen" given with the IV applies to it)
    bool encrypt_ = true;
    bool key_set_ = false;
    bool iv_set_ = false;
    size_t ivlen_;                // "ivlen": the mode's default until a family changes it
    uint8_t iv_[kBlockSize] = {}; // the IV in use (a family may keep a longer one)
    KeySchedule ks_{};

private:
    bool set_key(const uint8_t* key, size_t keylen);
    [[gnu::cold]] bool no_key() const;
    [[gnu::cold]] bool no_iv() const;
    [[gnu::cold]] bool short_output(size_t need, size_t have) const;
    [[gnu::cold]] bool bad_switch(const char* name) const;
};

// Rows and tables of the cipher families.
using CipherGetter = Getter<KeyedCtx>;
using CipherSetter = Setter<KeyedCtx>;
using CipherParams = ContextParams<KeyedCtx>;

// What every final context class gets from its own type: clone(), its
// tables (the `static constexpr ContextTables kParams` it declares) and,
// through mode_ops_for, the factory and lists the dispatch tables use.
template <class Derived, class Base>
class FamilyCtx : public Base {
public:
    using Base::Base;
    CipherCtx* clone() const final {
        return new (std::nothrow) Derived(static_cast<const Derived&>(*this));
    }
    // Here rather than in KeyedCtx: the tables are then constants where the
    // look-up is compiled (apply_params), and EVP's calls (several per AEAD
    // message) cost one virtual call each instead of two.
    int get_ctx_params(OSSL_PARAM params[]) final {
        return apply_params<Derived::kParams, true>(static_cast<KeyedCtx&>(*this), params) ? 1 : 0;
    }
    int set_ctx_params(const OSSL_PARAM params[]) final {
        return apply_params<Derived::kParams, false>(static_cast<KeyedCtx&>(*this), params) ? 1 : 0;
    }
};

template <class Ctx>
constexpr ModeOps mode_ops_for() {
    return {
        [](const ProvCtx* prov, const AlgorithmRow& row) -> CipherCtx* {
            return new (std::nothrow) Ctx(prov, row);
        },
        Ctx::kParams.params.gets.list,
        Ctx::kParams.params.sets.list,
    };
}

} // namespace hwc
