// SPDX-License-Identifier: Apache-2.0
// Factories of the mode-family contexts (one file each), used by
// CipherCtx::create.
#pragma once

#include "provider/cipher_ctx.h"

namespace hwc {

CipherCtx* new_block_mode_ctx(const ProvCtx* prov, const AlgorithmRow& row);  // ECB, CBC
CipherCtx* new_cts_mode_ctx(const ProvCtx* prov, const AlgorithmRow& row);    // CBC-CTS
CipherCtx* new_stream_mode_ctx(const ProvCtx* prov, const AlgorithmRow& row); // CFB*, OFB, CTR

} // namespace hwc
