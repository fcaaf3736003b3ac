// Kollide — base definitions: export macro, version, result codes, error reporting.
// SPDX-License-Identifier: MIT
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// The library is compiled with hidden visibility; the API is what libkollide.so exports.
#if defined(__GNUC__)
#define KL_API __attribute__((visibility("default")))
#else
#define KL_API
#endif

#ifdef __cplusplus
#define KL_C_BEGIN extern "C" {
#define KL_C_END }
#else
#define KL_C_BEGIN
#define KL_C_END
#endif

KL_C_BEGIN

#define KL_VERSION_MAJOR 0
#define KL_VERSION_MINOR 1
#define KL_VERSION_PATCH 0

/// Result of a call that can fail. On failure the message is in kl_last_error().
typedef enum kl_result
{
	KL_OK = 0,
	KL_ERR_INVALID_ARGUMENT, ///< NaN/Inf, out of range, zero or negative size, null pointer
	KL_ERR_INVALID_ID,		 ///< null, stale (destroyed) or foreign id
	KL_ERR_DEGENERATE,		 ///< geometry that has no volume or area (collinear hull, ...)
	KL_ERR_IO,				 ///< file could not be opened, read or written
	KL_ERR_PARSE,			 ///< malformed file content
	KL_ERR_LIMIT,			 ///< a size limit was exceeded (absurd counts, too many objects)
	KL_ERR_OUT_OF_MEMORY,
	KL_ERR_LOCKED,		///< the world is inside kl_world_step
	KL_ERR_UNSUPPORTED, ///< valid request the build or the object cannot serve
	KL_ERR_CANCELLED,	///< a progress callback asked to stop
} kl_result;

/// The message of the last failed call on this thread ("" when none). Valid until the next call that fails.
KL_API const char* kl_last_error(void);

/// The code of the last failed call on this thread (KL_OK when none).
KL_API kl_result kl_last_error_code(void);

/// Clears this thread's error state.
KL_API void kl_clear_error(void);

/// Human-readable name of a result code.
KL_API const char* kl_result_name(kl_result result);

/// "0.1.0"
KL_API const char* kl_version_string(void);

// ---------------------------------------------------------------------------------------------
// GPU backend

/// True if this build has CUDA and a device answered. The first call probes.
KL_API bool kl_gpu_available(void);
/// One line describing the device or why there is none.
KL_API const char* kl_gpu_describe(void);

KL_C_END
