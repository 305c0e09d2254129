// SPDX-License-Identifier: Apache-2.0
// HWCIPHER_CORES / `cores =` given as bare core names: "aes-portable" means
// aes=aes-portable and leaves every other family on its best core.
#include <gtest/gtest.h>

#include <string>

#include "cores/cpu.h"
#include "cores/registry.h"

namespace {

using namespace hwc;

TEST(CoreSelection, BareCoreNameSelectsItsFamily) {
    const uint32_t f = detect_cpu_features();
    CoreSelection best{}, sel{};
    std::string err;
    ASSERT_TRUE(select_cores(f, "", best, err)) << err;

    ASSERT_TRUE(select_cores(f, "aes-portable", sel, err)) << err;
    EXPECT_STREQ(sel.for_family(Family::aes)->name, "aes-portable");
    EXPECT_EQ(sel.for_family(Family::sm4), best.for_family(Family::sm4));
    EXPECT_EQ(sel.for_family(Family::twofish), best.for_family(Family::twofish));
    EXPECT_EQ(sel.ghash, best.ghash);

    ASSERT_TRUE(select_cores(f, " SM4-portable , ghash-portable ", sel, err)) << err;
    EXPECT_EQ(sel.for_family(Family::aes), best.for_family(Family::aes));
    EXPECT_STREQ(sel.for_family(Family::sm4)->name, "sm4-portable");
    EXPECT_STREQ(sel.ghash->name, "ghash-portable");

    // Mixed with the other forms: the bare "portable" is overridden by it.
    ASSERT_TRUE(select_cores(f, "portable,twofish-portable", sel, err)) << err;
    EXPECT_STREQ(sel.for_family(Family::twofish)->name, "twofish-portable");
    EXPECT_STREQ(sel.for_family(Family::aes)->name, "aes-portable");

    // The best core of each family on this CPU, by its name.
    for (Family fam : {Family::aes, Family::sm4, Family::twofish}) {
        const std::string name = best.for_family(fam)->name;
        ASSERT_TRUE(select_cores(f, name.c_str(), sel, err)) << name << ": " << err;
        EXPECT_EQ(sel.for_family(fam), best.for_family(fam)) << name;
    }
}

TEST(CoreSelection, BareCoreNameErrors) {
    const uint32_t f = detect_cpu_features();
    CoreSelection sel{};
    std::string err;
    EXPECT_FALSE(select_cores(f, "aes-portable,aes=best", sel, err));
    EXPECT_NE(err.find("'aes' given more than once"), std::string::npos) << err;
    EXPECT_FALSE(select_cores(f, "aes-nope", sel, err));
    EXPECT_NE(err.find("neither 'portable', 'best', a core name nor FAMILY=CORE"), std::string::npos)
        << err;
    EXPECT_NE(err.find("aes-portable"), std::string::npos) << "should list the cores: " << err;
    // A core this CPU cannot run is refused by name, as with FAMILY=NAME.
    for (Family fam : {Family::aes, Family::sm4, Family::twofish})
        for (const BlockCore* c : cores_for(fam))
            if ((c->needs & ~f) != 0) {
                EXPECT_FALSE(select_cores(f, c->name, sel, err)) << c->name;
                EXPECT_NE(err.find("cannot run on this CPU"), std::string::npos) << err;
            }
}

} // namespace
