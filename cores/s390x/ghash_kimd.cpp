// SPDX-License-Identifier: Apache-2.0
// ghash-kimd: GHASH (NIST SP 800-38D 6.4) on KIMD function code 65 (MSA4).
//
// The parameter block is the running value followed by H, so set_key only
// keeps H. The core is only selected when KIMD reports GHASH (kS390KimdGhash);
// the per-key check below still covers a key set up after a re-detection
// took the function away (tests), running the portable GHASH then.
#include <cstddef>
#include <cstring>

#include "cores/cpu.h"
#include "cores/portable/portable.h"
#include "cores/s390x/cpacf.h"
#include "cores/s390x/cpacf_detect.h"
#include "cores/s390x/s390x.h"
#include "cores/wipe.h"

namespace hwc::s390x {
namespace {

// Kept at the end of the GhashKey: the front holds the portable core's key
// when KIMD-GHASH is missing (its H^1..H^4 take 96 bytes).
struct KimdKey {
    uint8_t h[16];
    uint32_t use_kimd;
};
constexpr size_t kKimdKeyOffset = kKimdSubkeyOffset; // H first: ghash_kimd_subkey (s390x.h)
static_assert(sizeof(KimdKey) <= sizeof(GhashKey::bytes) - kKimdKeyOffset);
static_assert(offsetof(KimdKey, h) == 0);

const KimdKey& kimd_key(const GhashKey& key) {
    return *reinterpret_cast<const KimdKey*>(key.bytes + kKimdKeyOffset);
}
KimdKey& kimd_key(GhashKey& key) { return *reinterpret_cast<KimdKey*>(key.bytes + kKimdKeyOffset); }

void set_key(GhashKey& key, const uint8_t h[16]) {
    KimdKey& k = kimd_key(key);
    std::memcpy(k.h, h, 16);
    k.use_kimd = cpacf_caps().has(Insn::kimd, cpacf::kGhash);
    if (!k.use_kimd) portable::ghash.set_key(key, h);
}

void update(const GhashKey& key, uint8_t y[16], const uint8_t* in, size_t nblocks) {
    if (nblocks == 0) return;
    const KimdKey& k = kimd_key(key);
    if (!k.use_kimd) {
        portable::ghash.update(key, y, in, nblocks);
        return;
    }
    struct {
        uint8_t x[16];  // chaining value in, GHASH state out
        uint8_t h[16];
    } param;
    std::memcpy(param.x, y, 16);
    std::memcpy(param.h, k.h, 16);
    cpacf::kimd(cpacf::kGhash, &param, in, nblocks * 16);
    std::memcpy(y, param.x, 16);
    secure_wipe(&param, sizeof param);
}

} // namespace


extern const GhashCore ghash_kimd = {
    .name = "ghash-kimd",
    .hardware = true,
    .needs = kS390Msa4 | kS390KimdGhash,
    .set_key = set_key,
    .update = update,
};

} // namespace hwc::s390x
