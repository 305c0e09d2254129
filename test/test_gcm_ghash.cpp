// SPDX-License-Identifier: Apache-2.0
// GHASH cores: every core in ghash_cores() against a bit-serial reference
// (SP 800-38D Algorithm 1, written here) and against ghash-portable, on
// random keys, states and data of 0..40 blocks in one call and in pieces;
// then the GCM specification examples (nist-examples/AES_GCM.txt): H, the
// GHASH value S and the full encryption through hwcipher's GCM. (All of those
// examples use 96-bit IVs; the GHASH-derived J0 is covered by the CAVP and
// Wycheproof files, whose IVs run from 8 to 2056 bits.)
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "cores/cpu.h"
#include "cores/registry.h"
#include "test/support/vectors.h"
#include "test/test_gcm_util.h"

namespace hwc::test {
namespace {

using gcm::Block;

Block ref_ghash(const Block& h, Block y, const uint8_t* in, size_t nblocks) {
    for (size_t b = 0; b < nblocks; ++b) {
        for (int k = 0; k < 16; ++k) y[k] ^= in[16 * b + k];
        y = gcm::gf_mul(y, h);
    }
    return y;
}

bool usable(const GhashCore& c) {
    static const uint32_t f = detect_cpu_features();
    return (c.needs & f) == c.needs;
}

Block to_block(const Bytes& b) {
    Block out{};
    std::memcpy(out.data(), b.data(), 16);
    return out;
}

TEST(GcmGhash, PortableIsLastAndSelected) {
    auto cores = ghash_cores();
    ASSERT_FALSE(cores.empty());
    EXPECT_STREQ(cores.back()->name, "ghash-portable");
    EXPECT_FALSE(cores.back()->hardware);
    const std::string report = core_report();
    EXPECT_NE(report.find("ghash="), std::string::npos) << report;
}

TEST(GcmGhash, EveryCoreMatchesReferenceAndPortable) {
    const GhashCore& portable = *ghash_cores().back();
    size_t checks = 0;
    for (const GhashCore* core : ghash_cores()) {
        if (!usable(*core)) continue;
        SCOPED_TRACE(core->name);
        for (int round = 0; round < 6; ++round) {
            const Bytes hb = round == 0 ? Bytes(16, 0) : random_bytes(16);
            const Block h = to_block(hb);
            GhashKey k1, k2;
            core->set_key(k1, h.data());
            portable.set_key(k2, h.data());
            for (size_t n = 0; n <= 40; ++n) {
                const Bytes data = random_bytes(16 * n);
                const Block y0 = to_block(random_bytes(16));
                const Block want = ref_ghash(h, y0, data.data(), n);
                Block a = y0, b = y0, c = y0;
                core->update(k1, a.data(), data.data(), n);
                portable.update(k2, b.data(), data.data(), n);
                // The same data in random pieces (covers the 4-block path
                // entered at every offset).
                for (size_t off = 0; off < n;) {
                    const size_t m = std::min(n - off, 1 + random_below(6));
                    core->update(k1, c.data(), data.data() + 16 * off, m);
                    off += m;
                }
                EXPECT_EQ(to_hex(a.data(), 16), to_hex(want.data(), 16)) << "n=" << n;
                EXPECT_EQ(to_hex(b.data(), 16), to_hex(want.data(), 16)) << "n=" << n;
                EXPECT_EQ(to_hex(c.data(), 16), to_hex(want.data(), 16)) << "n=" << n;
                ++checks;
            }
        }
    }
    EXPECT_GT(checks, 0u);
}

// GCM's last step, GhashCore::finish where a core has one (else the update
// and XOR the engine falls back to): y updated by one or two blocks, XORed
// with the mask, and y itself left as it was.
TEST(GcmGhash, EveryFinishMatchesReference) {
    size_t with_finish = 0, checks = 0;
    for (const GhashCore* core : ghash_cores()) {
        if (!usable(*core)) continue;
        SCOPED_TRACE(core->name);
        with_finish += core->finish != nullptr;
        for (int round = 0; round < 20; ++round) {
            const Block h = to_block(random_bytes(16));
            GhashKey k;
            core->set_key(k, h.data());
            for (size_t n = 1; n <= 2; ++n) {
                const Bytes data = random_bytes(16 * n);
                const Block y0 = to_block(random_bytes(16)), mask = to_block(random_bytes(16));
                Block want = ref_ghash(h, y0, data.data(), n);
                for (int i = 0; i < 16; ++i) want[i] ^= mask[i];
                Block y = y0, tag{};
                if (core->finish != nullptr) {
                    core->finish(k, y.data(), data.data(), n, mask.data(), tag.data());
                    EXPECT_EQ(to_hex(y.data(), 16), to_hex(y0.data(), 16)) << "y changed";
                } else {
                    core->update(k, y.data(), data.data(), n);
                    for (int i = 0; i < 16; ++i) tag[i] = y[i] ^ mask[i];
                }
                EXPECT_EQ(to_hex(tag.data(), 16), to_hex(want.data(), 16)) << "n=" << n;
                ++checks;
            }
        }
    }
    EXPECT_GT(checks, 0u);
#if defined(__x86_64__)
    // Every x86_64 GHASH core has one; this machine can run ghash-clmul at least.
    EXPECT_GT(with_finish, 0u);
#endif
}

// HWCIPHER_CORES knows the ghash family: portable/best/names, and the usual
// errors for unknown or misplaced names.
TEST(GcmGhash, CoreSelectionSpec) {
    const uint32_t f = detect_cpu_features();
    // The best ghash core is the first this CPU can run (the list's head
    // needs AVX-512, which a CPU with VPCLMULQDQ on YMM only may lack).
    const GhashCore* best = nullptr;
    for (const GhashCore* c : ghash_cores())
        if (best == nullptr && (c->needs & ~f) == 0) best = c;
    CoreSelection sel{};
    std::string err;
    ASSERT_TRUE(select_cores(f, "", sel, err)) << err;
    ASSERT_NE(sel.ghash, nullptr);
    EXPECT_EQ(sel.ghash, best);
    ASSERT_TRUE(select_cores(f, "portable", sel, err)) << err;
    EXPECT_STREQ(sel.ghash->name, "ghash-portable");
    ASSERT_TRUE(select_cores(f, "best, ghash = ghash-portable", sel, err)) << err;
    EXPECT_STREQ(sel.ghash->name, "ghash-portable");
    ASSERT_TRUE(select_cores(f, "ghash=best,aes=portable", sel, err)) << err;
    EXPECT_EQ(sel.ghash, best);
    EXPECT_FALSE(select_cores(f, "ghash=aes-portable", sel, err));
    EXPECT_NE(err.find("is a aes core, not ghash"), std::string::npos) << err;
    EXPECT_FALSE(select_cores(f, "aes=ghash-portable", sel, err));
    EXPECT_NE(err.find("is a ghash core, not aes"), std::string::npos) << err;
    EXPECT_FALSE(select_cores(f, "ghash=nope", sel, err));
    EXPECT_NE(err.find("unknown core 'nope' for ghash"), std::string::npos) << err;
    EXPECT_FALSE(select_cores(f, "ghash=portable,ghash=best", sel, err));
    EXPECT_NE(err.find("more than once"), std::string::npos) << err;
    EXPECT_FALSE(select_cores(f, "ghash=", sel, err));
    EXPECT_FALSE(select_cores(f, "gmac=portable", sel, err));
    EXPECT_NE(err.find("ghash"), std::string::npos) << "family list should name ghash: " << err;
}

// Extreme operands: all-ones H and data stress the carry bounds of the
// multiply-with-holes (every lane full).
TEST(GcmGhash, AllOnesOperands) {
    for (const GhashCore* core : ghash_cores()) {
        if (!usable(*core)) continue;
        SCOPED_TRACE(core->name);
        Block h;
        h.fill(0xFF);
        const Bytes data(16 * 9, 0xFF);
        GhashKey k;
        core->set_key(k, h.data());
        Block y{};
        core->update(k, y.data(), data.data(), 9);
        const Block want = ref_ghash(h, Block{}, data.data(), 9);
        EXPECT_EQ(to_hex(y.data(), 16), to_hex(want.data(), 16));
    }
}

// ---- the GCM specification examples -----------------------------------------

struct Example {
    int key_bits = 0;
    std::string id;
    std::map<std::string, Bytes> v; // "K", "IV", "A", "P", "H", "C", "S", "Tag", ...
};

bool hex_line(const std::string& s) {
    bool any = false;
    for (char ch : s) {
        if (std::isxdigit(static_cast<unsigned char>(ch))) any = true;
        else if (ch != ' ' && ch != '\r' && ch != '\t') return false;
    }
    return any;
}

bool skippable(const std::string& s) {
    for (char ch : s)
        if (ch != '-' && ch != ' ' && ch != '\r') return false;
    return true;
}

// Free text: "Label is" on its own line, then hex words or "<empty>". Only
// the first occurrence of each label in the encrypt half of an example counts.
std::vector<Example> parse_examples() {
    std::ifstream f(vec::path("nist-examples/AES_GCM.txt"));
    std::vector<std::string> lines;
    for (std::string l; std::getline(f, l);) lines.push_back(l);
    std::vector<Example> out;
    int bits = 0;
    bool in_decrypt = false;
    for (size_t i = 0; i < lines.size(); ++i) {
        std::string l = lines[i];
        while (!l.empty() && (l.back() == '\r' || l.back() == ' ')) l.pop_back();
        if (l.rfind("GCM-AES", 0) == 0) bits = std::stoi(l.substr(7));
        if (l.rfind("Example #", 0) == 0) {
            out.push_back({bits, l, {}});
            in_decrypt = false;
            continue;
        }
        if (l == "Decrypt-Verify") in_decrypt = true;
        if (out.empty() || in_decrypt || l.size() < 4 || l.substr(l.size() - 3) != " is") continue;
        const std::string label = l.substr(0, l.size() - 3);
        std::string hex;
        size_t j = i + 1;
        for (; j < lines.size(); ++j) {
            if (lines[j].rfind("<empty>", 0) == 0) break;
            if (hex_line(lines[j])) {
                for (char ch : lines[j])
                    if (std::isxdigit(static_cast<unsigned char>(ch))) hex += ch;
            } else if (!skippable(lines[j]) || !hex.empty()) {
                break;
            }
        }
        if (!out.back().v.count(label)) out.back().v[label] = from_hex(hex);
    }
    return out;
}

void put_len_block(uint8_t* p, uint64_t a_bits, uint64_t c_bits) {
    for (int i = 0; i < 8; ++i) {
        p[i] = static_cast<uint8_t>(a_bits >> (56 - 8 * i));
        p[8 + i] = static_cast<uint8_t>(c_bits >> (56 - 8 * i));
    }
}

// GHASH over X || 0-pad || Y || 0-pad || [len X]64 || [len Y]64, by `core`.
Bytes ghash_of(const GhashCore& core, const GhashKey& k, const Bytes& x, const Bytes& y) {
    Bytes buf;
    auto append_padded = [&](const Bytes& b) {
        buf.insert(buf.end(), b.begin(), b.end());
        buf.resize((buf.size() + 15) / 16 * 16, 0);
    };
    append_padded(x);
    append_padded(y);
    buf.resize(buf.size() + 16);
    put_len_block(buf.data() + buf.size() - 16, x.size() * 8, y.size() * 8);
    Bytes s(16, 0);
    core.update(k, s.data(), buf.data(), buf.size() / 16);
    return s;
}

TEST(GcmGhash, SpecificationExamples) {
    const auto examples = parse_examples();
    ASSERT_EQ(examples.size(), 18u);
    size_t checked = 0;
    for (const Example& e : examples) {
        SCOPED_TRACE("AES-" + std::to_string(e.key_bits) + " " + e.id);
        for (const char* need : {"K", "IV", "A", "P", "H", "C", "S", "Tag"})
            ASSERT_TRUE(e.v.count(need)) << need;
        for (const GhashCore* core : ghash_cores()) {
            if (!usable(*core)) continue;
            GhashKey k;
            core->set_key(k, e.v.at("H").data());
            EXPECT_EQ(to_hex(ghash_of(*core, k, e.v.at("A"), e.v.at("C"))), to_hex(e.v.at("S")));
        }
        // And the whole mode through the provider.
        gcm::CipherPtr c = gcm::hw("AES-" + std::to_string(e.key_bits) + "-GCM");
        ASSERT_NE(c, nullptr);
        const gcm::Message m{e.v.at("K"), e.v.at("IV"), e.v.at("A"), e.v.at("P")};
        Bytes ct, tag;
        ASSERT_TRUE(gcm::encrypt(c.get(), m, ct, tag, e.v.at("Tag").size())) << take_errors();
        EXPECT_EQ(to_hex(ct), to_hex(e.v.at("C")));
        EXPECT_EQ(to_hex(tag), to_hex(e.v.at("Tag")));
        ++checked;
    }
    EXPECT_EQ(checked, 18u);
}

} // namespace
} // namespace hwc::test
