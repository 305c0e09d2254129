// SPDX-License-Identifier: Apache-2.0
// A QEMU TCG plugin (plugin API version 1, as in Debian 12's QEMU 7.2) that
// counts the guest instructions a program executes under QEMU user mode. The
// aarch64 and s390x benchmarks (scripts/bench_aarch64.sh, bench_s390x.sh)
// use the counts as their measure: they are the same for the same binary and
// input, whatever the host is doing.
//
//   qemu-aarch64 -plugin libinsncount.so[,ARG...] -d plugin [-D LOG] PROG ...
//
// At exit it prints "insns: N". Arguments:
//   mnem=NAME   also count instructions whose disassembly starts with the
//               mnemonic NAME ("mnem NAME: N"), e.g. mnem=aese
//   op=HEX      also count instructions whose encoding starts with these
//               bytes in guest memory order ("op HEX: N"), for what the
//               disassembler does not name, e.g. s390x KM: op=b92e
//   skip=LO-HI  leave translation blocks that start in [LO, HI) (hex guest
//               addresses) out of "insns" (a test shim's code, or the module
//               itself) and print the full count as "insns-all: N"
//   profile=on  also print, per translation-block start address, the
//               instructions executed there: "tb ADDR INSNS" (hex address,
//               skipped blocks included), for attributing a count to
//               functions (bench/insn_profile.py with bench_evp --objects)
// mnem= and op= count everywhere, skip= or not.
//
// Built by the benchmark scripts with the host's C compiler:
//   cc -O2 -shared -fPIC -o libinsncount.so bench/qemu_insncount.c
// QEMU's header is not needed (Debian ships none): the few API functions used
// are declared below, as QEMU 7.2 exports them.
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ---- the part of QEMU's plugin API this plugin uses -------------------------
#define PLUGIN_EXPORT __attribute__((visibility("default")))
typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t; // only passed through
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t, struct qemu_plugin_tb*);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t, void*);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t, qemu_plugin_vcpu_tb_trans_cb_t);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t, qemu_plugin_udata_cb_t, void*);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb*, enum qemu_plugin_op, void*,
                                              uint64_t);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn*, enum qemu_plugin_op,
                                                void*, uint64_t);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb*);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb*);
struct qemu_plugin_insn* qemu_plugin_tb_get_insn(const struct qemu_plugin_tb*, size_t);
const void* qemu_plugin_insn_data(const struct qemu_plugin_insn*);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn*);
char* qemu_plugin_insn_disas(const struct qemu_plugin_insn*);
void qemu_plugin_outs(const char*);

PLUGIN_EXPORT int qemu_plugin_version = 1;

// ---- what is counted ----------------------------------------------------------
enum { kMaxPatterns = 16, kMaxOpBytes = 8 };

struct Pattern {
    const char* arg;                  // the argument as given, for the report
    char mnemonic[32];                // mnem=: the mnemonic; empty for op=
    unsigned char bytes[kMaxOpBytes]; // op=: the leading encoding bytes
    size_t nbytes;
    uint64_t count;
};

static struct Pattern patterns[kMaxPatterns];
static int npatterns;
static uint64_t insns;     // outside the skip range
static uint64_t insns_all; // everything
static uint64_t skip_lo, skip_hi;

// profile: one counter per translated block (a block translated again gets
// another; they are summed by address at exit). Each is allocated on its
// own, so the address handed to QEMU stays valid.
struct TbCount {
    struct TbCount* next;
    uint64_t pc;
    uint64_t execs; // executions of the block (added to inline)
    size_t n;       // its instructions
};
static bool profile;
static struct TbCount* tb_counts;

// Whether the disassembly `text` begins with the word `word`.
static bool first_word_is(const char* text, const char* word) {
    size_t n = strlen(word);
    return strncmp(text, word, n) == 0 && (text[n] == '\0' || text[n] == ' ' || text[n] == '\t');
}

static bool matches(const struct Pattern* p, const struct qemu_plugin_insn* insn,
                    const char* disas) {
    if (p->nbytes != 0)
        return qemu_plugin_insn_size(insn) >= p->nbytes &&
               memcmp(qemu_plugin_insn_data(insn), p->bytes, p->nbytes) == 0;
    return disas != NULL && first_word_is(disas, p->mnemonic);
}

// Called once per translation block: instruments it to add its length to the
// totals, and each matching instruction to its pattern's count.
static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb* tb) {
    (void)id;
    const size_t n = qemu_plugin_tb_n_insns(tb);
    const uint64_t pc = qemu_plugin_tb_vaddr(tb);
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &insns_all, n);
    if (!(pc >= skip_lo && pc < skip_hi))
        qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &insns, n);
    if (profile) {
        struct TbCount* c = calloc(1, sizeof *c);
        if (c != NULL) {
            c->pc = pc;
            c->n = n;
            c->next = tb_counts;
            tb_counts = c;
            qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &c->execs, 1);
        }
    }
    if (npatterns == 0) return;
    for (size_t i = 0; i < n; ++i) {
        struct qemu_plugin_insn* insn = qemu_plugin_tb_get_insn(tb, i);
        char* disas = qemu_plugin_insn_disas(insn);
        for (int j = 0; j < npatterns; ++j)
            if (matches(&patterns[j], insn, disas))
                qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64,
                                                           &patterns[j].count, 1);
        free(disas);
    }
}

static void report_at_exit(qemu_plugin_id_t id, void* unused) {
    (void)id;
    (void)unused;
    char line[128];
    snprintf(line, sizeof line, "insns: %" PRIu64 "\n", insns);
    qemu_plugin_outs(line);
    if (skip_hi != 0) {
        snprintf(line, sizeof line, "insns-all: %" PRIu64 "\n", insns_all);
        qemu_plugin_outs(line);
    }
    for (const struct TbCount* c = tb_counts; c != NULL; c = c->next) {
        if (c->execs == 0) continue;
        snprintf(line, sizeof line, "tb %" PRIx64 " %" PRIu64 "\n", c->pc, c->execs * c->n);
        qemu_plugin_outs(line);
    }
    for (int j = 0; j < npatterns; ++j) {
        const struct Pattern* p = &patterns[j];
        snprintf(line, sizeof line, "%s %s: %" PRIu64 "\n", p->nbytes ? "op" : "mnem",
                 strchr(p->arg, '=') + 1, p->count);
        qemu_plugin_outs(line);
    }
}

// Parses one argument; false when it is not understood.
static bool parse_arg(const char* arg) {
    if (strncmp(arg, "skip=", 5) == 0)
        return sscanf(arg + 5, "%" SCNx64 "-%" SCNx64, &skip_lo, &skip_hi) == 2 &&
               skip_lo < skip_hi;
    if (strcmp(arg, "profile=on") == 0) {
        profile = true;
        return true;
    }
    if (npatterns == kMaxPatterns) return false;
    struct Pattern* p = &patterns[npatterns];
    memset(p, 0, sizeof *p);
    p->arg = arg;
    if (strncmp(arg, "mnem=", 5) == 0) {
        if (arg[5] == '\0' || strlen(arg + 5) >= sizeof p->mnemonic) return false;
        strcpy(p->mnemonic, arg + 5);
    } else if (strncmp(arg, "op=", 3) == 0) {
        const char* hex = arg + 3;
        const size_t digits = strlen(hex);
        if (digits == 0 || digits % 2 != 0 || digits / 2 > kMaxOpBytes) return false;
        for (size_t i = 0; i < digits / 2; ++i) {
            unsigned v;
            if (sscanf(hex + 2 * i, "%2x", &v) != 1) return false;
            p->bytes[i] = (unsigned char)v;
        }
        p->nbytes = digits / 2;
    } else {
        return false;
    }
    ++npatterns;
    return true;
}

PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t* info, int argc,
                                      char** argv) {
    (void)info;
    for (int i = 0; i < argc; ++i) {
        if (!parse_arg(argv[i])) {
            fprintf(stderr, "qemu_insncount: cannot use argument '%s'\n", argv[i]);
            return -1;
        }
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
    qemu_plugin_register_atexit_cb(id, report_at_exit, NULL);
    return 0;
}
