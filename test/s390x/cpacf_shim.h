// SPDX-License-Identifier: Apache-2.0
// Test-only CPACF trap-and-emulate shim for s390x under QEMU user mode.
//
// QEMU answers the CPACF query functions itself (function 0 only) and raises
// SIGILL for every AES function code. Linked into the test executable, this
// shim
//  - installs a SIGILL handler (SA_SIGINFO) before main, chaining to any
//    handler that was there, which emulates KM, KMC, KMF, KMO, KMCTR, KMA,
//    KIMD-GHASH, KMAC and PCC for AES (cpacf_model.h) and resumes after the
//    instruction with the right condition code;
//  - defines hwcipher_test_cpacf_query, the hook hwcipher's detection calls
//    after each real query when built with HWCIPHER_TEST_SEAMS, adding
//    exactly the function codes the model implements;
//  - declines everything else loudly: a message on stderr, then the process
//    dies with SIGILL at the instruction (or the previous handler runs);
//  - injects partial completion (CC 3) as HWCIPHER_SHIM_PARTIAL says:
//      never (default)  run every execution to the end
//      block            CC 3 after every 16 bytes
//      N (decimal > 0)  CC 3 once N operand bytes are done (rounded up to
//                       the instruction's unit), e.g. 48 or 80
//      a,b,...          up to four of these, taken in turn by successive
//                       executions (block,208: one block, then 208 bytes, ...)
// Never part of the provider. See the project's s390x-cpacf notes, section 12.
#pragma once

#include <cstddef>
#include <cstdint>

#include "test/s390x/cpacf_model.h"

namespace hwc::test::cpacf_shim {

struct Stats {
    uint64_t traps;                        // SIGILL deliveries to the handler
    uint64_t emulated[cpacf::kOpCount];    // executions emulated, per instruction
    uint64_t cc3;                          // partial completions injected
    uint64_t declined;                     // passed on to the previous/default action
    uint64_t query_hooks[cpacf::kOpCount]; // hwcipher_test_cpacf_query calls
};

// True when the handler is installed (it is, from before main, on s390x).
bool active();

// Installs the handler again, now chaining to whatever SIGILL handler is
// installed at this moment. Only for testing the chaining (in a child).
void reinstall();
Stats stats();
uint64_t emulated_total(const Stats& s);

// The facilities STFLE reported at installation.
cpacf::Facilities facilities();

// Bytes per execution before CC 3 (0 = never; for a list, its first) and
// the setting's text.
size_t partial_budget();
const char* partial_setting();

// Replaces the HWCIPHER_SHIM_PARTIAL setting for this object's lifetime
// (bytes per execution, 0 = never), so a test can force any granularity.
class ScopedPartial {
public:
    explicit ScopedPartial(size_t bytes_per_execution);
    ~ScopedPartial();
    ScopedPartial(const ScopedPartial&) = delete;
    ScopedPartial& operator=(const ScopedPartial&) = delete;

private:
    long previous_;
};

} // namespace hwc::test::cpacf_shim

// The detection seam (see cores/s390x): called by hwcipher after each real
// query of instruction `opcode` (0xb92e KM, ...), may add bits to `mask`.
extern "C" void hwcipher_test_cpacf_query(unsigned opcode, unsigned char mask[16]);
