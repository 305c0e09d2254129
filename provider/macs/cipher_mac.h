// SPDX-License-Identifier: Apache-2.0
// The base of the MACs over one of hwcipher's ciphers (CMAC over a CBC
// cipher, GMAC over a GCM cipher): the "cipher", "properties" and "key"
// parameters, the cipher look-up, the key checks and the init rules; a MAC
// adds its computation and declares its parameter tables. The cipher runs on
// hwcipher's own cores: "properties" is accepted and ignored, and a cipher
// that is not one of ours in the right mode is refused.
#pragma once

#include <openssl/core_names.h>
#include <openssl/params.h>

#include <new>

#include "provider/macs/mac_ctx.h"
#include "provider/module/catalogue.h"
#include "provider/module/errors.h"
#include "provider/params/param_table.h"

namespace hwc {

class CipherMacCtx;
using MacGetter = Getter<CipherMacCtx>;
using MacSetter = Setter<CipherMacCtx>;

using MacParams = ContextParams<CipherMacCtx>;

class CipherMacCtx : public MacCtx {
public:
    using ParamContext = CipherMacCtx;

    // Params are applied first (the cipher before the key, whatever their
    // order); then the key, or without one a restart under the previous key.
    int init(const uint8_t* key, size_t keylen, const OSSL_PARAM params[]) final;
    int get_ctx_params(OSSL_PARAM params[]) final {
        return param_tables().gets.apply(*this, params) ? 1 : 0;
    }
    int set_ctx_params(const OSSL_PARAM params[]) final {
        return param_tables().sets.apply(*this, params) ? 1 : 0;
    }

    // Rows (kCipherMacSets).
    bool set_properties(const OSSL_PARAM& p);
    bool set_cipher(const OSSL_PARAM& p);
    bool set_key(const OSSL_PARAM& p);
    // "size" (and CMAC's "block-size"): every hwcipher block cipher has
    // 16-byte blocks, so each MAC is 16 bytes whatever the cipher.
    bool get_size(OSSL_PARAM& p) {
        return OSSL_PARAM_set_size_t(&p, kBlockSize) ||
               HWC_FAIL(prov_, kErrInvalidParam, "%s", p.key);
    }

    const ProvCtx* prov() const final { return prov_; }

protected:
    // `mac`: "CMAC"; `mode`: the cipher mode it runs on, named `mode_name`.
    CipherMacCtx(const ProvCtx* prov, const char* mac, Mode mode, const char* mode_name)
        : prov_(prov), mac_(mac), mode_(mode), mode_name_(mode_name) {}
    CipherMacCtx(const CipherMacCtx&) = default;

    virtual const MacParams& param_tables() const = 0;
    // Key state: schedule a key of the right length (false: the core refused
    // it), drop it, whether there is one, and start a new computation.
    virtual bool schedule(const BlockCore& core, const uint8_t* key, size_t keylen) = 0;
    virtual void forget_key() = 0;
    virtual bool has_key() const = 0;
    virtual void restart() = 0;

    // "no key set" unless there is a key. Inline, with the failure out of
    // line: in a final MAC class has_key() is then a load and a test on the
    // update path, not two calls (issue #13: +19 instructions per CMAC
    // update when this was an out-of-line function around a virtual call).
    bool need_key() const {
        if (has_key()) [[likely]]
            return true;
        no_key_set();
        return false;
    }
    bool install_key(const uint8_t* key, size_t keylen);

    const ProvCtx* prov_;
    const AlgorithmRow* row_ = nullptr; // the cipher, once named

private:
    [[gnu::cold]] void no_key_set() const; // raises "no key set"

    const char* mac_;
    Mode mode_;
    const char* mode_name_;
};

// Every cipher MAC accepts these: "properties" selects how OpenSSL would
// fetch the cipher, so only its type is checked.
inline constexpr std::array kCipherMacSets{
    MacSetter{OSSL_MAC_PARAM_PROPERTIES, kUtf8, member<&CipherMacCtx::set_properties>},
    MacSetter{OSSL_MAC_PARAM_CIPHER, kUtf8, member<&CipherMacCtx::set_cipher>},
    MacSetter{OSSL_MAC_PARAM_KEY, kOctets, member<&CipherMacCtx::set_key>},
};

// A MAC's MacOps: its factory, its context lists, and `params`, its
// algorithm-level parameters (none by default).
template <class Ctx>
constexpr MacOps mac_ops_for(const char* names, ParamSpan<const MacOps, OSSL_PARAM> params = {}) {
    return {
        names,
        [](const ProvCtx* prov) -> MacCtx* { return new (std::nothrow) Ctx(prov); },
        params,
        Ctx::kParams.params.gets.list,
        Ctx::kParams.params.sets.list,
    };
}

} // namespace hwc
