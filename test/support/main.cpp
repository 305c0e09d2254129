// SPDX-License-Identifier: Apache-2.0
// The unit tests' main: GoogleTest's, plus one variable of the project's own.
//
// HWCIPHER_TEST_EXCLUDE: GoogleTest filter patterns (':'-separated) taken
// out of whatever --gtest_filter selects. scripts/test.sh sets it for the
// runs that repeat the suite for some core families only: on s390x, CPACF's
// partial-completion runs and the portable run leave out the SM4 and Twofish
// tests, whose cores do not use CPACF and which the first s390x run already
// runs on the portable cores. (Under QEMU each test file is one process with
// its own --gtest_filter, so the exclusion cannot be written into the test
// command.)
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

int main(int argc, char** argv) {
    testing::InitGoogleTest(&argc, argv);
    const char* exclude = std::getenv("HWCIPHER_TEST_EXCLUDE");
    if (exclude != nullptr && *exclude != '\0') {
        // "POSITIVE-NEGATIVE": the negative part is extended, or begun.
        std::string filter = GTEST_FLAG_GET(filter);
        filter += filter.find('-') == std::string::npos ? "-" : ":";
        GTEST_FLAG_SET(filter, filter + exclude);
    }
    return RUN_ALL_TESTS();
}
