// Shared test helpers: cmocka includes and a tolerance check for doubles (cmocka 1.1 has none).
#pragma once

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

/// 1 in sanitizer and unoptimised builds: tests that run long take a shorter path there.
#if defined(__SANITIZE_ADDRESS__) || !defined(__OPTIMIZE__)
#define KL_QUICK 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KL_QUICK 1
#endif
#endif
#ifndef KL_QUICK
#define KL_QUICK 0
#endif

/// Fails with both values printed when |a - b| > tol (or either is NaN).
#define assert_near(a, b, tol) kl_assert_near((double)(a), (double)(b), (double)(tol), #a, #b, __FILE__, __LINE__)

static inline void kl_assert_near(double a, double b, double tol, const char* ea, const char* eb, const char* file,
								  int line)
{
	if (!(fabs(a - b) <= tol))
	{
		char msg[512];
		snprintf(msg, sizeof(msg), "%s = %.9g, %s = %.9g, |diff| %.3g > %.3g", ea, a, eb, b, fabs(a - b), tol);
		print_error("%s\n", msg);
		_fail(file, line); // does not return

	}
}

/// Exit status of a test program that can run nothing here (no CUDA device, no AVX2): ctest reports
/// such a test as Skipped (SKIP_RETURN_CODE in tests/CMakeLists.txt), where a skip() of cmocka's
/// alone would read Passed.
#define KL_TEST_SKIPPED 77

/// main's exit status from cmocka's count of failed tests: 0 or 1, so that 77 failures never read
/// as a skip.
static inline int kl_test_exit_status(int failed)
{
	return failed == 0 ? 0 : 1;
}
