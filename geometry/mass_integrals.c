// Kollide internal — volume integrals of closed triangle meshes by signed tetrahedra.
// SPDX-License-Identifier: MIT
#include "mass_integrals.h"

#include <float.h>
#include <string.h>

// Centre of the bounds of the referenced vertices: moments about a nearby point lose no precision
// to a mesh's distance from the origin.
static void reference_point(const vec3s* vertices, const int32_t* indices, int triangle_count, double r[3])
{
	double lower[3] = {DBL_MAX, DBL_MAX, DBL_MAX};
	double upper[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
	for (int i = 0; i < 3 * triangle_count; ++i)
	{
		vec3s v = vertices[indices[i]];
		for (int k = 0; k < 3; ++k)
		{
			lower[k] = v.raw[k] < lower[k] ? v.raw[k] : lower[k];
			upper[k] = v.raw[k] > upper[k] ? v.raw[k] : upper[k];
		}
	}
	for (int k = 0; k < 3; ++k)
	{
		r[k] = triangle_count > 0 ? 0.5 * (lower[k] + upper[k]) : 0.0;
	}
}

// Adds the tetrahedron (r, a, b, c) with a, b, c relative to r. With d = a · (b × c) = 6 V_tet:
// ∫ dV = d/6, ∫ x dV = d/24 (a + b + c), ∫ x x^T dV = d/120 (a a^T + b b^T + c c^T + s s^T), s = a + b + c.
static void add_tetrahedron(kl_volume_integrals* in, const double a[3], const double b[3], const double c[3])
{
	double d = a[0] * (b[1] * c[2] - b[2] * c[1]) + a[1] * (b[2] * c[0] - b[0] * c[2]) +
			   a[2] * (b[0] * c[1] - b[1] * c[0]);
	double s[3] = {a[0] + b[0] + c[0], a[1] + b[1] + c[1], a[2] + b[2] + c[2]};
	in->volume += d / 6.0;
	for (int i = 0; i < 3; ++i)
	{
		in->first[i] += d / 24.0 * s[i];
		for (int j = 0; j < 3; ++j)
		{
			in->second[i][j] += d / 120.0 * (a[i] * a[j] + b[i] * b[j] + c[i] * c[j] + s[i] * s[j]);
		}
	}
}

kl_volume_integrals kl_polyhedron_integrals(const vec3s* vertices, const int32_t* indices, int triangle_count)
{
	kl_volume_integrals in;
	memset(&in, 0, sizeof(in));
	reference_point(vertices, indices, triangle_count, in.reference);
	for (int t = 0; t < triangle_count; ++t)
	{
		double p[3][3];
		for (int k = 0; k < 3; ++k)
		{
			vec3s v = vertices[indices[3 * t + k]];
			for (int i = 0; i < 3; ++i)
			{
				p[k][i] = (double)v.raw[i] - in.reference[i];
			}
		}
		add_tetrahedron(&in, p[0], p[1], p[2]);
	}
	return in;
}

kl_volume_integrals kl_volume_integrals_scale(const kl_volume_integrals* integrals, const double scale[3])
{
	kl_volume_integrals out = *integrals;
	double det = scale[0] * scale[1] * scale[2];
	out.volume = det * integrals->volume;
	for (int i = 0; i < 3; ++i)
	{
		out.reference[i] = scale[i] * integrals->reference[i];
		out.first[i] = det * scale[i] * integrals->first[i];
		for (int j = 0; j < 3; ++j)
		{
			out.second[i][j] = det * scale[i] * scale[j] * integrals->second[i][j];
		}
	}
	return out;
}

kl_mass_data kl_volume_integrals_mass(const kl_volume_integrals* integrals, double density)
{
	kl_mass_data md;
	memset(&md, 0, sizeof(md));
	double volume = integrals->volume;
	double d[3] = {0.0, 0.0, 0.0};
	if (volume > 0.0)
	{
		for (int i = 0; i < 3; ++i)
		{
			d[i] = integrals->first[i] / volume;
		}
	}
	for (int i = 0; i < 3; ++i)
	{
		md.center.raw[i] = (float)(integrals->reference[i] + d[i]);
	}
	if (!(volume > 0.0))
	{
		return md;
	}

	// Covariance about the centre (parallel-axis theorem), then the inertia tensor from it.
	double cc[3][3];
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			cc[i][j] = integrals->second[i][j] - volume * d[i] * d[j];
		}
	}
	double trace = cc[0][0] + cc[1][1] + cc[2][2];
	md.mass = (float)(density * volume);
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			double delta = i == j ? trace : 0.0;
			md.inertia.raw[i][j] = (float)(density * (delta - cc[i][j]));
		}
	}
	return md;
}
