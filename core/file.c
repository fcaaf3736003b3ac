// Kollide — checks on binary files (file.h).
// SPDX-License-Identifier: MIT
#include "file.h"

bool kl_file_remaining_is(FILE* f, uint64_t bytes)
{
	long at = ftell(f);
	if (at < 0 || fseek(f, 0, SEEK_END) != 0)
	{
		return false;
	}
	long end = ftell(f);
	return end >= at && (uint64_t)(end - at) == bytes && fseek(f, at, SEEK_SET) == 0;
}
