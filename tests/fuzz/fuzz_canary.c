// The fuzz tests' own check (tests/fuzz/CMakeLists.txt): this target aborts on any input that starts
// with "FUZ", which libFuzzer finds within seconds from no seeds at all (it sees each byte's
// comparison), so its test, marked WILL_FAIL, shows that a crash found fails a fuzz test.
// SPDX-License-Identifier: MIT
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	if (size >= 3 && data[0] == 'F' && data[1] == 'U' && data[2] == 'Z')
	{
		fprintf(stderr, "fuzz_canary: found the key\n");
		abort();
	}
	return 0;
}
