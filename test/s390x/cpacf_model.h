// SPDX-License-Identifier: Apache-2.0
// The CPACF shim's model of the AES-related CPACF instructions: what one
// execution does to the general registers, the parameter block and memory.
//
// Pure computation on a register file and process memory, no signals, so
// cpacf_shim.cpp can call it from its SIGILL handler and tests can reason
// about it without one. The model follows the architecture summary in the
// project's s390x-cpacf notes (sections 2-7), and nothing more: whatever it
// does not model it declines with a reason, so an unmodelled use fails
// loudly instead of being guessed at.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hwc::test::cpacf {

enum class Op : uint8_t { km, kmc, kmf, kmo, kmctr, kma, kimd, kmac, pcc };
inline constexpr int kOpCount = 9;

const char* op_name(Op op);    // "KM", "KMC", ...
unsigned op_opcode(Op op);     // 0xb92e, 0xb92f, ...

// STFLE facility bits the instructions depend on.
struct Facilities {
    bool msa = false;   // 17: KM, KMC, KIMD, KMAC
    bool msa4 = false;  // 77: KMF, KMO, KMCTR, PCC; KM-XTS (and full XTS), KMAC-AES,
                        // KIMD-GHASH, PCC functions
    bool msa8 = false;  // 146: KMA
};

// Whether the model implements function code `fc` of `op` on a machine with
// facilities `f`. The query hook reports exactly these, so what detection
// sees and what the shim executes cannot drift apart.
bool implemented(Op op, unsigned fc, const Facilities& f);

// Sets in `mask` (a 16-byte query result, bit n = function code n) the bits
// of every implemented function of the instruction with 16-bit opcode
// `opcode`; leaves other bits and unknown opcodes alone.
void add_query_bits(unsigned opcode, unsigned char mask[16], const Facilities& f);

struct Outcome {
    bool emulated;       // false: declined, nothing was changed
    int cc;              // condition code to set when emulated
    const char* reason;  // why it was declined (static text)
    Op op;               // valid when the opcode was recognised
    bool known_op;
};

// Executes the CPACF instruction whose four bytes are at `insn` once, with
// the 16 general registers `gr` (read and updated) and the caller's memory.
// `budget` > 0 stops after the first unit boundary at or beyond that many
// operand bytes and reports partial completion (CC 3) if any remain;
// 0 means no early stop.
Outcome execute(const uint8_t insn[4], uint64_t gr[16], const Facilities& f, size_t budget);

} // namespace hwc::test::cpacf
