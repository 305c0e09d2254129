// SPDX-License-Identifier: Apache-2.0
// bench_evp: push a fixed amount of data through one cipher via EVP, the way
// an application would, so that scripts/bench_aarch64.sh and
// scripts/bench_s390x.sh can count the guest instructions it takes under QEMU.
// It measures nothing itself: the count comes from the QEMU plugin, and
// start-up cancels out because the scripts run every case twice (N and 2N
// bytes) and divide the difference by N (or by the number of updates).
//
//   bench_evp --cipher AES-128-GCM --provider hwcipher --dir enc --bytes 1048576
//             [--message N] [--aad N] [--update N] [--tag HEX] [--make-tag]
//             [--no-final] [--rekey] [--mac CMAC] [--openssl-cpacf]
//   bench_evp --provider hwcipher --cores
//   bench_evp --provider default --offers AES-128-ECB,SM4-CFB8,...
//
//   --cipher    algorithm name, fetched with EVP_CIPHER_fetch(NULL, name,
//               "provider=<provider>")
//   --provider  hwcipher or default; the fetch must come from that provider
//   --dir       enc or dec
//   --bytes     payload bytes in total
//   --update    stream mode (the default): one key/IV set-up, then EVP updates
//               of this many bytes (default 16384), one final
//   --message   per-message mode instead: the key is set once, then each
//               message of N bytes is init(IV) [+ AAD] + one update + final
//               (+ tag). CCM needs it (EVP's CCM is one-shot per message);
//               XTS can use it (each data unit with its own tweak) or stream
//               mode (every update a data unit under the same IV)
//   --aad       bytes of AAD per message (AEAD only; default 0)
//   --tag       stream AEAD decryption: the tag the input verifies against,
//               as printed by a --make-tag run (otherwise final fails)
//   --make-tag  print that tag and exit (run it outside the counted runs)
//   --no-final  stream mode without the final call (and without a tag): for
//               per-update counts, where the final is the same in both runs
//               of a pair and cancels anyway; AEAD decryption then needs no
//               --tag
//   --rekey     message mode as `openssl speed -aead` runs it: each message
//               also sets the IV length (AEAD) and the key again, with its IV
//   --mac NAME  a MAC (CMAC) instead of a cipher: EVP_MAC_fetch(NAME) with
//               --cipher as its "cipher" parameter (e.g. AES-128-CBC); --dir
//               is then ignored. Stream mode: init with the key, updates,
//               final; message mode: init, one update, final per message
//   --openssl-cpacf  s390x with the test-only CPACF shim linked in (bench
//               built with HWCIPHER_TEST_SEAMS): before any cipher is fetched,
//               add the AES function codes the shim emulates to libcrypto's
//               own capability vector, so OpenSSL takes its CPACF paths under
//               QEMU (which reports none; OPENSSL_s390xcap can only remove
//               bits). See openssl_cpacf() below
//   --cores     print the provider's hwcipher-cores parameter and exit
//   --objects   at the end, print "object: LO-HI BASE PATH" for the code of every
//               loaded object (with the plugin's profile, to attribute
//               instructions to functions: bench/insn_profile.py)
//   --offers    print "offers: NAME" for each listed cipher the provider has,
//               and exit (one QEMU start instead of one per cipher)
//
// Output, one "key: value" per line: provider, libcrypto (OpenSSL_version of
// the library loaded), cores and core (hwcipher only:
// the core serving this cipher), module-range (guest addresses of
// hwcipher.so's code, for the plugin's skip=), shim-range (the same for the
// CPACF shim's library, when it is linked in), openssl-cpacf (what was added
// to libcrypto's capability vector), done. Any failure prints
// OpenSSL's error queue and exits 1; a cipher the provider does not offer
// exits 3, so the script can tell "not offered" from "broken".
#include <dlfcn.h>
#include <link.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr int kExitNotOffered = 3;

[[noreturn]] void die(const std::string& what) {
    std::fprintf(stderr, "bench_evp: %s\n", what.c_str());
    ERR_print_errors_fp(stderr);
    std::exit(1);
}

void check(int ok, const char* what) {
    if (ok != 1) die(std::string(what) + " failed");
}

struct Options {
    std::string cipher, provider, dir;
    size_t bytes = 0;
    size_t update = 16384;
    size_t message = 0; // 0: stream mode
    size_t aad = 0;
    std::string tag_hex;
    bool make_tag = false;
    bool cores_only = false;
    bool objects = false;
    std::string offers; // comma-separated names
    bool no_final = false;
    bool rekey = false;
    std::string mac;    // "": a cipher
    bool openssl_cpacf = false;
};

size_t to_size(const char* flag, const char* s) {
    char* end = nullptr;
    unsigned long long v = std::strtoull(s, &end, 10);
    if (end == s || *end != '\0') die(std::string(flag) + ": not a number: " + s);
    return static_cast<size_t>(v);
}

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto value = [&]() -> const char* {
            if (i + 1 >= argc) die(a + " needs a value");
            return argv[++i];
        };
        if (a == "--cipher") o.cipher = value();
        else if (a == "--provider") o.provider = value();
        else if (a == "--dir") o.dir = value();
        else if (a == "--bytes") o.bytes = to_size("--bytes", value());
        else if (a == "--update") o.update = to_size("--update", value());
        else if (a == "--message") o.message = to_size("--message", value());
        else if (a == "--aad") o.aad = to_size("--aad", value());
        else if (a == "--tag") o.tag_hex = value();
        else if (a == "--make-tag") o.make_tag = true;
        else if (a == "--cores") o.cores_only = true;
        else if (a == "--objects") o.objects = true;
        else if (a == "--offers") o.offers = value();
        else if (a == "--no-final") o.no_final = true;
        else if (a == "--rekey") o.rekey = true;
        else if (a == "--mac") o.mac = value();
        else if (a == "--openssl-cpacf") o.openssl_cpacf = true;
        else die("unknown argument " + a + " (see the comment at the top of bench/bench_evp.cpp)");
    }
    if (o.provider != "hwcipher" && o.provider != "default")
        die("--provider must be hwcipher or default");
    if (o.cores_only || !o.offers.empty()) return o;
    if (o.cipher.empty()) die("--cipher is required");
    if (o.mac.empty() && o.dir != "enc" && o.dir != "dec") die("--dir must be enc or dec");
    if (o.no_final && (o.message || o.make_tag)) die("--no-final is for stream mode");
    if (o.rekey && !o.message) die("--rekey is for message mode");
    size_t unit = o.message ? o.message : o.update;
    if (unit == 0 || o.bytes == 0 || o.bytes % unit != 0)
        die("--bytes must be a non-zero multiple of the update/message size");
    return o;
}

std::string hex(const std::vector<unsigned char>& v) {
    static const char digits[] = "0123456789abcdef";
    std::string s;
    for (unsigned char b : v) {
        s += digits[b >> 4];
        s += digits[b & 15];
    }
    return s;
}

std::vector<unsigned char> unhex(const std::string& s) {
    std::vector<unsigned char> v;
    if (s.size() % 2) die("--tag: odd number of hex digits");
    for (size_t i = 0; i < s.size(); i += 2)
        v.push_back(static_cast<unsigned char>(std::stoul(s.substr(i, 2), nullptr, 16)));
    return v;
}

// Deterministic bytes: identical input in every run, so counts repeat exactly.
std::vector<unsigned char> pattern(size_t n, unsigned seed) {
    std::vector<unsigned char> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<unsigned char>(i * 31 + seed);
    return v;
}

// The code segment of the loaded object whose path contains `needle`, as
// mapped in this process, "lo-hi" in hex (what the plugin's skip= takes).
// For hwcipher.so: instructions outside it are libcrypto's EVP layer, libc
// and libstdc++.
std::string code_range(const std::string& needle) {
    struct Find {
        const std::string* needle;
        std::string out;
    } find{&needle, {}};
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void* data) {
            auto* f = static_cast<Find*>(data);
            const char* name = info->dlpi_name;
            if (name == nullptr || std::strstr(name, f->needle->c_str()) == nullptr) return 0;
            for (int i = 0; i < info->dlpi_phnum; ++i) {
                const auto& ph = info->dlpi_phdr[i];
                if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X)) continue;
                char buf[64];
                uint64_t lo = info->dlpi_addr + ph.p_vaddr;
                std::snprintf(buf, sizeof buf, "%llx-%llx", static_cast<unsigned long long>(lo),
                              static_cast<unsigned long long>(lo + ph.p_memsz));
                f->out = buf;
                return 1;
            }
            return 0;
        },
        &find);
    return find.out;
}

std::string module_range() { return code_range("hwcipher.so"); }

// --objects: every loaded object's code segment and its base address.
void print_objects() {
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void*) {
            for (int i = 0; i < info->dlpi_phnum; ++i) {
                const auto& ph = info->dlpi_phdr[i];
                if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X)) continue;
                const unsigned long long lo = info->dlpi_addr + ph.p_vaddr;
                std::printf("object: %llx-%llx %llx %s\n", lo, lo + ph.p_memsz,
                            static_cast<unsigned long long>(info->dlpi_addr),
                            info->dlpi_name && *info->dlpi_name ? info->dlpi_name : "(main)");
            }
            return 0;
        },
        nullptr);
}

} // namespace

// The test-only CPACF shim's detection hook (test/s390x/cpacf_shim.h): defined
// when bench_evp is linked with the shim (s390x, HWCIPHER_TEST_SEAMS), else
// null. Given an instruction's opcode and its 16-byte query result, it adds
// the function codes the shim emulates.
extern "C" __attribute__((weak)) void hwcipher_test_cpacf_query(unsigned opcode,
                                                                unsigned char mask[16]);

namespace {

// The shim's library (bench/CMakeLists.txt builds it as its own shared
// object, so its code is one address range: the SIGILL handler and the
// emulation, excluded from the counts with the plugin's skip=).
std::string shim_range() {
    if (hwcipher_test_cpacf_query == nullptr) return "";
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&hwcipher_test_cpacf_query), &info) == 0 ||
        info.dli_fname == nullptr)
        return "";
    const char* base = std::strrchr(info.dli_fname, '/');
    return code_range(base ? base + 1 : info.dli_fname);
}

#if defined(__s390x__)
// Makes libcrypto take its CPACF paths under QEMU, for an instruction-for-
// instruction comparison with hwcipher under the same shim.
//
// libcrypto keeps what it detected at load time in one hidden global (its
// OPENSSL_s390xcap_P): 4 doublewords of STFLE, then a pair of doublewords
// per instruction, the query result of KIMD, KLMD, KM, KMC, KMAC, KMCTR,
// KMO, KMF, PRNO, KMA, PCC, KDSA, in this order (OpenSSL 3.0's
// crypto/s390x_arch.h), and its AES code reads it each time it sets up a key
// or picks a mode. QEMU answers every query with the query bit alone and the
// query never traps, so the shim cannot answer for it, and OPENSSL_s390xcap
// only ANDs masks into the vector (or substitutes a CPU model's bits), so it
// cannot add functions either. The symbol is not exported and Debian's
// library is stripped, so it is found by content: in libcrypto's writable
// segments, the one place holding this process's STFLE doublewords 0 and 1
// followed, at the KM and KMC offsets, by query results with the query bit
// set. The shim's hook then adds exactly the functions it emulates, as it
// does for hwcipher's detection.
struct CapVector {
    uint64_t stfle[4];
    uint64_t kimd[2], klmd[2], km[2], kmc[2], kmac[2], kmctr[2], kmo[2], kmf[2], prno[2], kma[2],
        pcc[2], kdsa[2];
};

void stfle(uint64_t list[3]) {
    register unsigned long r0 __asm__("0") = 2; // doublewords - 1
    __asm__ volatile(".insn s,0xb2b00000,%0" : "=Q"(*reinterpret_cast<uint64_t(*)[3]>(list)), "+d"(r0) : : "cc", "memory");
}

std::string openssl_cpacf() {
    if (hwcipher_test_cpacf_query == nullptr)
        die("--openssl-cpacf needs the CPACF shim (an s390x build with HWCIPHER_TEST_SEAMS=ON)");
    struct Scan {
        uint64_t stfle[3];
        std::vector<CapVector*> hits;
    } scan{};
    stfle(scan.stfle);
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void* data) {
            auto* s = static_cast<Scan*>(data);
            if (info->dlpi_name == nullptr || std::strstr(info->dlpi_name, "libcrypto.so") == nullptr)
                return 0;
            constexpr uint64_t kQueryBit = uint64_t{1} << 63;
            for (int i = 0; i < info->dlpi_phnum; ++i) {
                const auto& ph = info->dlpi_phdr[i];
                if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_W)) continue;
                auto lo = (info->dlpi_addr + ph.p_vaddr + 7) & ~uint64_t{7};
                const auto hi = info->dlpi_addr + ph.p_vaddr + ph.p_memsz;
                for (; lo + sizeof(CapVector) <= hi; lo += 8) {
                    auto* v = reinterpret_cast<CapVector*>(lo);
                    if (v->stfle[0] == s->stfle[0] && v->stfle[1] == s->stfle[1] &&
                        (v->km[0] & kQueryBit) && (v->kmc[0] & kQueryBit) &&
                        (v->kimd[0] & kQueryBit))
                        s->hits.push_back(v);
                }
            }
            return 1;
        },
        &scan);
    if (scan.hits.size() != 1)
        die("--openssl-cpacf: found libcrypto's capability vector " +
            std::to_string(scan.hits.size()) + " times, expected once");
    CapVector* v = scan.hits[0];
    struct Field {
        const char* name;
        unsigned opcode;
        uint64_t* words;
    } fields[] = {{"km", 0xb92e, v->km},       {"kmc", 0xb92f, v->kmc}, {"kmf", 0xb92a, v->kmf},
                  {"kmo", 0xb92b, v->kmo},     {"kmctr", 0xb92d, v->kmctr},
                  {"kma", 0xb929, v->kma},     {"kimd", 0xb93e, v->kimd},
                  {"kmac", 0xb91e, v->kmac},   {"pcc", 0xb92c, v->pcc}};
    std::string added;
    for (Field& f : fields) {
        unsigned char mask[16];
        std::memcpy(mask, f.words, 16); // big-endian: bit n = function code n
        hwcipher_test_cpacf_query(f.opcode, mask);
        uint64_t after[2];
        std::memcpy(after, mask, 16);
        char buf[64];
        std::snprintf(buf, sizeof buf, "%s%s=%016llx%016llx", added.empty() ? "" : ",", f.name,
                      static_cast<unsigned long long>(after[0] & ~f.words[0]),
                      static_cast<unsigned long long>(after[1] & ~f.words[1]));
        added += buf;
        f.words[0] = after[0];
        f.words[1] = after[1];
    }
    return added;
}
#else
std::string openssl_cpacf() {
    die("--openssl-cpacf is for s390x");
}
#endif

// "aes=aes-ce,sm4=sm4-portable,twofish=...,ghash=ghash-pmull" -> value of `family`.
std::string core_of(const std::string& report, const std::string& family) {
    std::string key = family + "=";
    size_t pos = 0;
    while (pos < report.size()) {
        size_t end = report.find(',', pos);
        if (end == std::string::npos) end = report.size();
        if (report.compare(pos, key.size(), key) == 0)
            return report.substr(pos + key.size(), end - pos - key.size());
        pos = end + 1;
    }
    return "?";
}

std::string family_of(const std::string& cipher) {
    std::string up;
    for (char c : cipher) up += static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
    if (up.rfind("AES", 0) == 0) return "aes";
    if (up.rfind("SM4", 0) == 0) return "sm4";
    if (up.rfind("TWOFISH", 0) == 0) return "twofish";
    return "?";
}

struct Bench {
    Options o;
    EVP_CIPHER* cipher = nullptr;
    bool aead = false;
    int mode = 0;
    std::vector<unsigned char> key, iv, aad;

    EVP_CIPHER_CTX* new_ctx(bool enc, bool with_iv) const {
        EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
        if (ctx == nullptr) die("EVP_CIPHER_CTX_new");
        const unsigned char* first_iv = with_iv ? iv.data() : nullptr;
        check(EVP_CipherInit_ex(ctx, cipher, nullptr, key.data(), first_iv, enc),
              "EVP_CipherInit_ex (key)");
        // Decrypting patterned bytes gives no valid padding: bulk figures
        // are for the cipher alone, so padding is off in both directions.
        if (mode == EVP_CIPH_ECB_MODE || mode == EVP_CIPH_CBC_MODE)
            check(EVP_CIPHER_CTX_set_padding(ctx, 0), "EVP_CIPHER_CTX_set_padding");
        return ctx;
    }

    size_t tag_len(EVP_CIPHER_CTX* ctx) const {
        int n = EVP_CIPHER_CTX_get_tag_length(ctx);
        if (n <= 0) die("EVP_CIPHER_CTX_get_tag_length");
        return static_cast<size_t>(n);
    }

    void feed_aad(EVP_CIPHER_CTX* ctx, size_t msg_len) const {
        int outl = 0;
        // CCM must know the message length before the AAD.
        if (mode == EVP_CIPH_CCM_MODE && !aad.empty())
            check(EVP_CipherUpdate(ctx, nullptr, &outl, nullptr, static_cast<int>(msg_len)),
                  "EVP_CipherUpdate (CCM length)");
        if (!aad.empty())
            check(EVP_CipherUpdate(ctx, nullptr, &outl, aad.data(), static_cast<int>(aad.size())),
                  "EVP_CipherUpdate (AAD)");
    }

    void update(EVP_CIPHER_CTX* ctx, unsigned char* out, const unsigned char* in, size_t n) const {
        int outl = 0;
        check(EVP_CipherUpdate(ctx, out, &outl, in, static_cast<int>(n)), "EVP_CipherUpdate");
    }

    void finish(EVP_CIPHER_CTX* ctx, unsigned char* out) const {
        int outl = 0;
        check(EVP_CipherFinal_ex(ctx, out, &outl), "EVP_CipherFinal_ex");
    }

    std::vector<unsigned char> get_tag(EVP_CIPHER_CTX* ctx) const {
        std::vector<unsigned char> tag(tag_len(ctx));
        const int n = static_cast<int>(tag.size());
        check(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, n, tag.data()),
              "EVP_CTRL_AEAD_GET_TAG");
        return tag;
    }

    // The tag into `buf` (the largest tag is 16 bytes).
    void read_tag(EVP_CIPHER_CTX* ctx, unsigned char (&buf)[16]) const {
        const size_t n = tag_len(ctx);
        if (n > sizeof buf) die("tag longer than 16 bytes");
        check(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, static_cast<int>(n), buf),
              "EVP_CTRL_AEAD_GET_TAG");
    }

    void set_tag(EVP_CIPHER_CTX* ctx, std::vector<unsigned char>& tag) const {
        const int n = static_cast<int>(tag.size());
        check(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, n, tag.data()),
              "EVP_CTRL_AEAD_SET_TAG");
    }

    // Stream mode: one key/IV set-up, updates of o.update bytes, one final.
    void stream() {
        const bool enc = o.dir == "enc";
        if (mode == EVP_CIPH_CCM_MODE) die("CCM is one-shot per message in EVP: use --message");
        std::vector<unsigned char> in = pattern(o.update, 7), out(o.update + 64);
        EVP_CIPHER_CTX* ctx = new_ctx(enc, true);
        std::vector<unsigned char> tag;
        if (o.no_final) {
            feed_aad(ctx, o.bytes);
            for (size_t done = 0; done < o.bytes; done += o.update)
                update(ctx, out.data(), in.data(), o.update);
            EVP_CIPHER_CTX_free(ctx);
            return;
        }
        if (aead && !enc) {
            if (o.tag_hex.empty())
                die("stream AEAD decryption needs --tag (from a --make-tag run)");
            tag = unhex(o.tag_hex);
            set_tag(ctx, tag);
        }
        feed_aad(ctx, o.bytes);
        for (size_t done = 0; done < o.bytes; done += o.update)
            update(ctx, out.data(), in.data(), o.update);
        finish(ctx, out.data());
        if (aead && enc) tag = get_tag(ctx); // applications read it: part of the work
        EVP_CIPHER_CTX_free(ctx);
    }

    // The tag that stream() decryption of the patterned input verifies
    // against: decrypt it (tag unchecked), encrypt the result back (which
    // must give the input again) and take that encryption's tag.
    void make_tag() {
        if (!aead || o.message) die("--make-tag is for stream AEAD decryption");
        const int n = static_cast<int>(o.update);
        std::vector<unsigned char> in = pattern(o.update, 7), plain(o.update + 64),
                                   back(o.update + 64);
        EVP_CIPHER_CTX* dec = new_ctx(false, true);
        EVP_CIPHER_CTX* enc = new_ctx(true, true);
        feed_aad(dec, o.bytes);
        feed_aad(enc, o.bytes);
        for (size_t done = 0; done < o.bytes; done += o.update) {
            int n1 = 0, n2 = 0;
            check(EVP_CipherUpdate(dec, plain.data(), &n1, in.data(), n), "decrypt");
            check(EVP_CipherUpdate(enc, back.data(), &n2, plain.data(), n1), "re-encrypt");
            if (n1 != n || n2 != n || std::memcmp(back.data(), in.data(), o.update) != 0)
                die("--make-tag: re-encryption does not reproduce the input");
        }
        finish(enc, back.data());
        std::printf("tag: %s\n", hex(get_tag(enc)).c_str());
        EVP_CIPHER_CTX_free(dec);
        EVP_CIPHER_CTX_free(enc);
    }

    // Per-message mode: key once; per message init(IV), [AAD], update, final.
    void messages() {
        const bool enc = o.dir == "enc";
        const size_t n = o.message;
        std::vector<unsigned char> in = pattern(n, 7), out(n + 64), tag;
        unsigned char tag_buf[16];
        if (aead && !enc) {
            // Something valid to decrypt: one encryption, the same cost in
            // every run of this case, so it cancels in the difference.
            EVP_CIPHER_CTX* e = new_ctx(true, false);
            check(EVP_CipherInit_ex(e, nullptr, nullptr, nullptr, iv.data(), 1),
                  "EVP_CipherInit_ex (IV)");
            feed_aad(e, n);
            update(e, out.data(), in.data(), n);
            finish(e, out.data() + n);
            tag = get_tag(e);
            EVP_CIPHER_CTX_free(e);
            in.assign(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(n));
        }
        EVP_CIPHER_CTX* ctx = new_ctx(enc, false);
        for (size_t done = 0; done < o.bytes; done += n) {
            if (o.rekey && aead)
                check(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN,
                                          EVP_CIPHER_CTX_get_iv_length(ctx), nullptr),
                      "EVP_CIPHER_CTX_ctrl (IV length)");
            check(EVP_CipherInit_ex(ctx, nullptr, nullptr, o.rekey ? key.data() : nullptr,
                                    iv.data(), enc),
                  "EVP_CipherInit_ex (IV)");
            if (aead && !enc) set_tag(ctx, tag); // CCM wants it before the data
            feed_aad(ctx, n);
            update(ctx, out.data(), in.data(), n);
            finish(ctx, out.data() + n);
            // Read, as an application would, into a buffer of its own: a
            // vector per message would add the C library's malloc and free,
            // which differ between the releases' suites (~130 guest
            // instructions per message with Debian 12's glibc on s390x).
            if (aead && enc) read_tag(ctx, tag_buf);
        }
        EVP_CIPHER_CTX_free(ctx);
    }
};

// A MAC (CMAC) over --cipher, in the same two shapes: stream (one init, updates
// of o.update bytes, one final unless --no-final) or messages (init, one
// update, final per message).
struct MacBench {
    Options o;
    EVP_MAC* mac = nullptr;
    std::vector<unsigned char> key;

    void init(EVP_MAC_CTX* ctx) const {
        OSSL_PARAM params[] = {
            OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_CIPHER,
                                             const_cast<char*>(o.cipher.c_str()), 0),
            OSSL_PARAM_construct_end(),
        };
        check(EVP_MAC_init(ctx, key.data(), key.size(), params), "EVP_MAC_init");
    }

    void final(EVP_MAC_CTX* ctx) const {
        unsigned char out[EVP_MAX_MD_SIZE];
        size_t outl = 0;
        check(EVP_MAC_final(ctx, out, &outl, sizeof out), "EVP_MAC_final");
    }

    void run() const {
        EVP_MAC_CTX* ctx = EVP_MAC_CTX_new(mac);
        if (ctx == nullptr) die("EVP_MAC_CTX_new");
        const size_t n = o.message ? o.message : o.update;
        std::vector<unsigned char> in = pattern(n, 7);
        if (!o.message) init(ctx);
        for (size_t done = 0; done < o.bytes; done += n) {
            if (o.message) init(ctx);
            check(EVP_MAC_update(ctx, in.data(), n), "EVP_MAC_update");
            if (o.message) final(ctx);
        }
        if (!o.message && !o.no_final) final(ctx);
        EVP_MAC_CTX_free(ctx);
    }
};

} // namespace

int main(int argc, char** argv) {
    Options o = parse(argc, argv);

    // No openssl.cnf: the host's file would otherwise be read under QEMU, and
    // the providers loaded must be exactly the ones named here.
    check(OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG, nullptr), "OPENSSL_init_crypto");
    // default always (hwcipher's child context may draw randomness from it);
    // hwcipher from $OPENSSL_MODULES only when it is the one measured.
    if (OSSL_PROVIDER_load(nullptr, "default") == nullptr) die("loading the default provider");
    OSSL_PROVIDER* prov = OSSL_PROVIDER_load(nullptr, o.provider.c_str());
    if (prov == nullptr) die("loading provider " + o.provider + " (is OPENSSL_MODULES set?)");
    std::printf("provider: %s\n", o.provider.c_str());
    // The library that actually runs (the scripts run the same binary on
    // several releases' libcrypto and check each column's version).
    std::printf("libcrypto: %s\n", OpenSSL_version(OPENSSL_VERSION));

    std::string cores;
    if (o.provider == "hwcipher") {
        const char* report = nullptr;
        OSSL_PARAM params[] = {
            OSSL_PARAM_construct_utf8_ptr("hwcipher-cores", const_cast<char**>(&report), 0),
            OSSL_PARAM_construct_end(),
        };
        if (OSSL_PROVIDER_get_params(prov, params) != 1 || report == nullptr)
            die("reading hwcipher's hwcipher-cores parameter");
        cores = report;
        std::printf("cores: %s\n", cores.c_str());
        std::printf("module-range: %s\n", module_range().c_str());
    }
    if (std::string shim = shim_range(); !shim.empty())
        std::printf("shim-range: %s\n", shim.c_str());
    // Before any cipher is fetched or keyed: libcrypto reads the vector then.
    if (o.openssl_cpacf) std::printf("openssl-cpacf: %s\n", openssl_cpacf().c_str());
    if (o.cores_only) return 0;
    if (!o.offers.empty()) {
        const std::string props = "provider=" + o.provider;
        size_t pos = 0;
        while (pos <= o.offers.size()) {
            size_t end = o.offers.find(',', pos);
            if (end == std::string::npos) end = o.offers.size();
            std::string name = o.offers.substr(pos, end - pos);
            if (EVP_CIPHER* c = EVP_CIPHER_fetch(nullptr, name.c_str(), props.c_str())) {
                std::printf("offers: %s\n", name.c_str());
                EVP_CIPHER_free(c);
            }
            pos = end + 1;
        }
        ERR_clear_error(); // the failed fetches are the answer, not errors
        return 0;
    }

    const std::string props = "provider=" + o.provider;
    if (!o.mac.empty()) {
        MacBench m;
        m.o = o;
        m.mac = EVP_MAC_fetch(nullptr, o.mac.c_str(), props.c_str());
        if (m.mac == nullptr) {
            std::fprintf(stderr, "bench_evp: provider %s does not offer %s\n",
                         o.provider.c_str(), o.mac.c_str());
            ERR_print_errors_fp(stderr);
            return kExitNotOffered;
        }
        const char* got = OSSL_PROVIDER_get0_name(EVP_MAC_get0_provider(m.mac));
        if (got == nullptr || o.provider != got)
            die(o.mac + " came from provider " + (got ? got : "?") + ", not " + o.provider);
        if (!cores.empty())
            std::printf("core: %s\n", core_of(cores, family_of(o.cipher)).c_str());
        EVP_CIPHER* c = EVP_CIPHER_fetch(nullptr, o.cipher.c_str(), nullptr);
        if (c == nullptr) die("fetching " + o.cipher + " for its key length");
        m.key = pattern(static_cast<size_t>(EVP_CIPHER_get_key_length(c)), 1);
        EVP_CIPHER_free(c);
        m.run();
        EVP_MAC_free(m.mac);
        if (o.objects) print_objects();
        std::printf("done: %zu bytes, %s of %zu\n", o.bytes, o.message ? "messages" : "updates",
                    o.message ? o.message : o.update);
        return 0;
    }

    Bench b;
    b.o = o;
    b.cipher = EVP_CIPHER_fetch(nullptr, o.cipher.c_str(), props.c_str());
    if (b.cipher == nullptr) {
        std::fprintf(stderr, "bench_evp: provider %s does not offer %s\n", o.provider.c_str(),
                     o.cipher.c_str());
        ERR_print_errors_fp(stderr);
        return kExitNotOffered;
    }
    const char* got = OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(b.cipher));
    if (got == nullptr || o.provider != got)
        die(o.cipher + " came from provider " + (got ? got : "?") + ", not " + o.provider);
    b.mode = EVP_CIPHER_get_mode(b.cipher);
    b.aead = (EVP_CIPHER_get_flags(b.cipher) & EVP_CIPH_FLAG_AEAD_CIPHER) != 0;
    if (!cores.empty()) {
        std::string family = family_of(o.cipher);
        std::string core = core_of(cores, family);
        if (b.mode == EVP_CIPH_GCM_MODE) core += "+" + core_of(cores, "ghash");
        std::printf("core: %s\n", core.c_str());
    }

    // XTS keys are two different halves (identical ones are refused when
    // encrypting); a pattern never repeats within 64 bytes.
    b.key = pattern(static_cast<size_t>(EVP_CIPHER_get_key_length(b.cipher)), 1);
    // EVP reads as many IV bytes as the context's IV length (CCM's depends
    // on its L parameter), never more than 16 for these modes.
    b.iv = pattern(16, 3);
    if (b.aead) b.aad = pattern(o.aad, 5);
    else if (o.aad) die("--aad is for AEAD ciphers");

    if (o.make_tag) b.make_tag();
    else if (o.message) b.messages();
    else b.stream();
    EVP_CIPHER_free(b.cipher);
    if (o.objects) print_objects();
    std::printf("done: %zu bytes, %s of %zu\n", o.bytes, o.message ? "messages" : "updates",
                o.message ? o.message : o.update);
    return 0;
}
