// Kollide internal — checks on binary files that the cache readers share.
// SPDX-License-Identifier: MIT
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/// Whether the rest of the file, from its position, holds exactly `bytes`: checked before a reader
/// allocates arrays, so that a header's counts cannot ask for more memory than the file could fill.
/// The position is kept.
bool kl_file_remaining_is(FILE* f, uint64_t bytes);
