// Kollide ensembles — parsing the --perturb and --region arguments.
// SPDX-License-Identifier: MIT
#include "ensemble.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Reads up to `capacity` comma-separated finite numbers; returns how many, or -1 on junk.
static int kl_ens_parse_numbers(const char* text, double* values, int capacity)
{
	int count = 0;
	const char* p = text;
	while (count < capacity)
	{
		char* end = NULL;
		double v = strtod(p, &end);
		if (end == p || !isfinite(v) || fabs(v) > 1e9)
		{
			return -1;
		}
		values[count++] = v;
		if (*end == '\0')
		{
			return count;
		}
		if (*end != ',')
		{
			return -1;
		}
		p = end + 1;
	}
	return -1;
}

// Copies text[0, length) into a name field; false when empty or too long.
static bool kl_ens_copy_name(char* out, const char* text, size_t length)
{
	if (length == 0 || length >= KL_ENS_NAME_CAPACITY)
	{
		return false;
	}
	memcpy(out, text, length);
	out[length] = '\0';
	return true;
}

// The lower Cholesky factor of the covariance (c11, c12, c13, c22, c23, c33). A zero pivot (a
// degenerate but valid covariance) gives a zero column; a negative one is not a covariance.
static bool kl_ens_cholesky(const double c[6], kl_ens_perturb* out, const char* text, char* error, int capacity)
{
	double a[3][3] = {{c[0], c[1], c[2]}, {c[1], c[3], c[4]}, {c[2], c[4], c[5]}};
	double l[3][3] = {{0.0}};
	double scale = fmax(fmax(fabs(c[0]), fabs(c[3])), fabs(c[5]));
	for (int j = 0; j < 3; ++j)
	{
		double pivot = a[j][j];
		for (int k = 0; k < j; ++k)
		{
			pivot -= l[j][k] * l[j][k];
		}
		if (pivot < -1e-12 * scale)
		{
			snprintf(error, (size_t)capacity, "--perturb '%s': the covariance is not positive semidefinite", text);
			return false;
		}
		l[j][j] = pivot > 1e-12 * scale ? sqrt(pivot) : 0.0;
		for (int i = j + 1; i < 3; ++i)
		{
			double v = a[i][j];
			for (int k = 0; k < j; ++k)
			{
				v -= l[i][k] * l[j][k];
			}
			l[i][j] = l[j][j] > 0.0 ? v / l[j][j] : 0.0;
		}
	}
	// A zero pivot with a non-zero covariance in its row (c11 = 0, c12 ≠ 0) is no covariance either.
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j <= i; ++j)
		{
			double product = l[i][0] * l[j][0] + l[i][1] * l[j][1] + l[i][2] * l[j][2];
			if (fabs(product - a[i][j]) > 1e-9 * scale)
			{
				snprintf(error, (size_t)capacity, "--perturb '%s': the covariance is not positive semidefinite", text);
				return false;
			}
		}
	}
	for (int k = 0; k < 9; ++k)
	{
		out->cholesky[k] = (float)l[k / 3][k % 3];
	}
	for (int k = 0; k < 3; ++k)
	{
		out->sigma[k] = (float)sqrt(fmax(a[k][k], 0.0));
	}
	out->correlated = true;
	return true;
}

static const char* const kl_ens_kind_names[] = {"position", "angle", "velocity", "mass", "friction"};

bool kl_ens_parse_perturb(const char* text, kl_ens_perturb* out, char* error, int capacity)
{
	memset(out, 0, sizeof(*out));
	const char* colon = strrchr(text, ':');
	const char* equals = colon != NULL ? strchr(colon, '=') : NULL;
	int kind = -1;
	for (int k = 0; equals != NULL && k < 5; ++k)
	{
		if (strlen(kl_ens_kind_names[k]) == (size_t)(equals - colon - 1) &&
			strncmp(colon + 1, kl_ens_kind_names[k], (size_t)(equals - colon - 1)) == 0)
		{
			kind = k;
		}
	}
	double values[6];
	int count = equals != NULL ? kl_ens_parse_numbers(equals + 1, values, 6) : -1;
	bool vector = kind == KL_ENS_POSITION || kind == KL_ENS_ANGLE || kind == KL_ENS_VELOCITY;
	if (kind < 0 || !kl_ens_copy_name(out->body, text, (size_t)(colon - text)) ||
		!(count == 1 || (vector && (count == 3 || count == 6))))
	{
		snprintf(
			error, (size_t)capacity,
			"--perturb '%s': expected BODY:position|angle|velocity=σ[,σ,σ] (or the covariance c11,c12,c13,c22,c23,c33)"
			" or BODY:mass|friction=σ",
			text);
		return false;
	}
	out->kind = (kl_ens_perturb_kind)kind;
	if (count == 6)
	{
		return kl_ens_cholesky(values, out, text, error, capacity);
	}
	for (int k = 0; k < 3; ++k)
	{
		double s = values[count == 3 ? k : 0];
		if (s < 0.0)
		{
			snprintf(error, (size_t)capacity, "--perturb '%s': σ %g is negative", text, s);
			return false;
		}
		// A scalar σ for a vector kind is isotropic; the scalar kinds draw from the first axis only.
		out->sigma[k] = (float)(vector || k == 0 ? s : 0.0);
	}
	return true;
}

bool kl_ens_parse_region(const char* text, kl_ens_region* out, char* error, int capacity)
{
	memset(out, 0, sizeof(*out));
	const char* equals = strchr(text, '=');
	const char* at = equals != NULL ? memchr(text, '@', (size_t)(equals - text)) : NULL;
	double v[6] = {0.0};
	bool sensor = equals != NULL && strncmp(equals + 1, "sensor:", 7) == 0;
	bool ok = equals != NULL && (sensor ? kl_ens_copy_name(out->sensor_body, equals + 8, strlen(equals + 8))
										: kl_ens_parse_numbers(equals + 1, v, 6) == 6);
	ok = ok && kl_ens_copy_name(out->name, text, (size_t)((at != NULL ? at : equals) - text));
	ok = ok && (at == NULL || kl_ens_copy_name(out->body, at + 1, (size_t)(equals - at - 1)));
	ok = ok && v[0] <= v[3] && v[1] <= v[4] && v[2] <= v[5];
	if (!ok)
	{
		snprintf(
			error, (size_t)capacity,
			"--region '%s': expected NAME[@BODY]=xmin,ymin,zmin,xmax,ymax,zmax (min <= max) or NAME[@BODY]=sensor:BODY",
			text);
		return false;
	}
	out->box.lower = kl_vec3((float)v[0], (float)v[1], (float)v[2]);
	out->box.upper = kl_vec3((float)v[3], (float)v[4], (float)v[5]);
	return true;
}
