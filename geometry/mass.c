// Kollide — mass properties: primitives, frame changes, composition, principal axes and
// polyhedral volume integration.
//
// Everything is accumulated in double and rounded to float once at the end: inertia tensors of
// long thin bodies and of meshes far from the origin lose most of their digits otherwise.
//
// Invalid input (non-positive or non-finite sizes, negative or non-finite density) gives zeroed
// mass data and records a message with kl_fail, so that a caller that does not check still gets
// a harmless massless result rather than NaN. A density of exactly zero is valid for the
// primitives: static, kinematic and sensor shapes use it, and it gives zero mass and inertia at
// the right centre.
// SPDX-License-Identifier: MIT
#include "core.h"
#include "mass_integrals.h"

#include <kollide/geometry.h>

#include <float.h>
#include <string.h>

typedef struct dmat3
{
	double m[3][3]; // row-major: m[row][col]
} dmat3;

static kl_mass_data zero_mass(void)
{
	kl_mass_data md;
	memset(&md, 0, sizeof(md));
	return md;
}

static bool density_ok(float density, const char* what)
{
	if (!isfinite(density) || density < 0.0f)
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "%s: density %g must be finite and non-negative", what, (double)density);
		return false;
	}
	return true;
}

// mat3s is column-major (raw[col][row]); the tensors are symmetric, but keep the indexing honest.
static dmat3 dmat3_from(mat3s a)
{
	dmat3 r;
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			r.m[i][j] = a.raw[j][i];
		}
	}
	return r;
}

static mat3s dmat3_to(const dmat3* a)
{
	mat3s r;
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			r.raw[j][i] = (float)a->m[i][j];
		}
	}
	return r;
}

static mat3s diag_inertia(double ixx, double iyy, double izz)
{
	dmat3 d = {{{ixx, 0.0, 0.0}, {0.0, iyy, 0.0}, {0.0, 0.0, izz}}};
	return dmat3_to(&d);
}

kl_mass_data kl_compute_sphere_mass(float radius, float density)
{
	if (!isfinite(radius) || radius <= 0.0f)
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "sphere mass: radius %g must be finite and positive", (double)radius);
		return zero_mass();
	}
	if (!density_ok(density, "sphere mass"))
	{
		return zero_mass();
	}
	double r = radius;
	double m = density * (4.0 / 3.0) * GLM_PI * r * r * r;
	double i = 0.4 * m * r * r;
	kl_mass_data md = zero_mass();
	md.mass = (float)m;
	md.inertia = diag_inertia(i, i, i);
	return md;
}

kl_mass_data kl_compute_box_mass(vec3s half_extents, float density)
{
	vec3s h = half_extents;
	if (!kl_vec3_is_finite(h) || !(h.x > 0.0f && h.y > 0.0f && h.z > 0.0f))
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "box mass: half extents (%g, %g, %g) must be finite and positive",
				(double)h.x, (double)h.y, (double)h.z);
		return zero_mass();
	}
	if (!density_ok(density, "box mass"))
	{
		return zero_mass();
	}
	double x2 = (double)h.x * h.x, y2 = (double)h.y * h.y, z2 = (double)h.z * h.z;
	double m = 8.0 * density * (double)h.x * h.y * h.z;
	kl_mass_data md = zero_mass();
	md.mass = (float)m;
	// I = m/12 (b^2 + c^2) with full side lengths b = 2 h.
	md.inertia = diag_inertia(m * (y2 + z2) / 3.0, m * (x2 + z2) / 3.0, m * (x2 + y2) / 3.0);
	return md;
}

kl_mass_data kl_compute_capsule_mass(float radius, float half_height, float density)
{
	if (!isfinite(radius) || radius <= 0.0f || !isfinite(half_height) || half_height < 0.0f)
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "capsule mass: radius %g must be positive and half height %g non-negative",
				(double)radius, (double)half_height);
		return zero_mass();
	}
	if (!density_ok(density, "capsule mass"))
	{
		return zero_mass();
	}
	double r = radius, h = half_height, rho = density;
	double r2 = r * r;
	double cylinder = rho * GLM_PI * r2 * 2.0 * h;
	double caps = rho * (4.0 / 3.0) * GLM_PI * r2 * r; // both hemispheres: one sphere
	// Axial: disc stack plus sphere.
	double izz = 0.5 * cylinder * r2 + 0.4 * caps * r2;
	// Transverse cylinder: m (3 r^2 + L^2) / 12 with L = 2h.
	double ixx = cylinder * (0.25 * r2 + h * h / 3.0);
	// Each hemisphere about its flat face is 2/5 m r^2; moving that to the capsule centre through
	// the hemisphere's own centre (3r/8 above the face) gives 2/5 r^2 + h^2 + 3hr/4 per unit mass.
	ixx += caps * (0.4 * r2 + h * h + 0.75 * h * r);
	kl_mass_data md = zero_mass();
	md.mass = (float)(cylinder + caps);
	md.inertia = diag_inertia(ixx, ixx, izz);
	return md;
}

// Rotation matrix of a quaternion (x, y, z, w), normalised in double. False if unusable.
static bool quat_to_dmat3(versors q, dmat3* out)
{
	double x = q.x, y = q.y, z = q.z, w = q.w;
	double n2 = x * x + y * y + z * z + w * w;
	if (!isfinite(n2) || n2 < 1.0e-12)
	{
		return false;
	}
	double s = 2.0 / n2;
	double xx = s * x * x, yy = s * y * y, zz = s * z * z;
	double xy = s * x * y, xz = s * x * z, yz = s * y * z;
	double wx = s * w * x, wy = s * w * y, wz = s * w * z;
	dmat3 r = {{
		{1.0 - yy - zz, xy - wz, xz + wy},
		{xy + wz, 1.0 - xx - zz, yz - wx},
		{xz - wy, yz + wx, 1.0 - xx - yy},
	}};
	*out = r;
	return true;
}

kl_mass_data kl_mass_data_transform(kl_mass_data md, kl_transform frame)
{
	dmat3 r;
	if (!kl_transform_is_finite(frame) || !quat_to_dmat3(frame.q, &r))
	{
		kl_fail(KL_ERR_INVALID_ARGUMENT, "mass data transform: frame is not finite or has a zero rotation");
		return zero_mass();
	}
	dmat3 in = dmat3_from(md.inertia);
	dmat3 ri = {{{0}}}, out = {{{0}}};
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			for (int k = 0; k < 3; ++k)
			{
				ri.m[i][j] += r.m[i][k] * in.m[k][j];
			}
		}
	}
	// out = (R I) R^T
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			for (int k = 0; k < 3; ++k)
			{
				out.m[i][j] += ri.m[i][k] * r.m[j][k];
			}
		}
	}
	double c[3] = {md.center.x, md.center.y, md.center.z};
	double p[3] = {frame.p.x, frame.p.y, frame.p.z};
	for (int i = 0; i < 3; ++i)
	{
		p[i] += r.m[i][0] * c[0] + r.m[i][1] * c[1] + r.m[i][2] * c[2];
	}
	kl_mass_data result;
	result.mass = md.mass;
	result.center = kl_vec3((float)p[0], (float)p[1], (float)p[2]);
	result.inertia = dmat3_to(&out);
	return result;
}

// Adds m (|d|^2 E - d d^T): the inertia of a point mass m at offset d.
static void add_point_inertia(dmat3* inertia, double m, const double d[3])
{
	double d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			inertia->m[i][j] += m * ((i == j ? d2 : 0.0) - d[i] * d[j]);
		}
	}
}

kl_mass_data kl_mass_data_add(kl_mass_data a, kl_mass_data b)
{
	double ma = a.mass, mb = b.mass, m = ma + mb;
	double ca[3] = {a.center.x, a.center.y, a.center.z};
	double cb[3] = {b.center.x, b.center.y, b.center.z};
	double c[3];
	for (int i = 0; i < 3; ++i)
	{
		// Two massless parts keep a's centre: there is no mass to weigh the centres with.
		c[i] = m > 0.0 ? (ma * ca[i] + mb * cb[i]) / m : ca[i];
	}
	dmat3 ia = dmat3_from(a.inertia), ib = dmat3_from(b.inertia), sum;
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			sum.m[i][j] = ia.m[i][j] + ib.m[i][j];
		}
	}
	double da[3] = {ca[0] - c[0], ca[1] - c[1], ca[2] - c[2]};
	double db[3] = {cb[0] - c[0], cb[1] - c[1], cb[2] - c[2]};
	add_point_inertia(&sum, ma, da);
	add_point_inertia(&sum, mb, db);
	kl_mass_data result;
	result.mass = (float)m;
	result.center = kl_vec3((float)c[0], (float)c[1], (float)c[2]);
	result.inertia = dmat3_to(&sum);
	return result;
}

// One Jacobi rotation zeroing a[p][q]; v accumulates the rotations (its columns: eigenvectors).
static void jacobi_rotate(dmat3* a, dmat3* v, int p, int q)
{
	double apq = a->m[p][q];
	if (apq == 0.0)
	{
		return;
	}
	double theta = (a->m[q][q] - a->m[p][p]) / (2.0 * apq);
	// The smaller root keeps the rotation angle below pi/4, which is what makes Jacobi converge.
	double t = (theta >= 0.0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
	double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
	for (int k = 0; k < 3; ++k)
	{
		// A <- A J (columns p and q)
		double akp = a->m[k][p], akq = a->m[k][q];
		a->m[k][p] = c * akp - s * akq;
		a->m[k][q] = s * akp + c * akq;
	}
	for (int k = 0; k < 3; ++k)
	{
		// A <- J^T A (rows p and q)
		double apk = a->m[p][k], aqk = a->m[q][k];
		a->m[p][k] = c * apk - s * aqk;
		a->m[q][k] = s * apk + c * aqk;
	}
	a->m[p][q] = 0.0;
	a->m[q][p] = 0.0;
	for (int k = 0; k < 3; ++k)
	{
		double vkp = v->m[k][p], vkq = v->m[k][q];
		v->m[k][p] = c * vkp - s * vkq;
		v->m[k][q] = s * vkp + c * vkq;
	}
}

static void jacobi_eigen(dmat3* a, dmat3* v)
{
	*v = (dmat3){{{1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}}};
	for (int sweep = 0; sweep < 64; ++sweep)
	{
		double off = fabs(a->m[0][1]) + fabs(a->m[0][2]) + fabs(a->m[1][2]);
		double diag = fabs(a->m[0][0]) + fabs(a->m[1][1]) + fabs(a->m[2][2]);
		if (off <= 1.0e-18 * diag || off == 0.0)
		{
			return;
		}
		jacobi_rotate(a, v, 0, 1);
		jacobi_rotate(a, v, 0, 2);
		jacobi_rotate(a, v, 1, 2);
	}
}

static double det3(const dmat3* a)
{
	const double(*m)[3] = a->m;
	return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
		   m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
}

// Shepperd's method: pick the largest of w, x, y, z to divide by, so no branch loses precision.
static versors dmat3_to_quat(const dmat3* r)
{
	const double(*m)[3] = r->m;
	double x, y, z, w;
	double tr = m[0][0] + m[1][1] + m[2][2];
	if (tr > 0.0)
	{
		double s = 2.0 * sqrt(tr + 1.0);
		w = 0.25 * s, x = (m[2][1] - m[1][2]) / s, y = (m[0][2] - m[2][0]) / s, z = (m[1][0] - m[0][1]) / s;
	}
	else if (m[0][0] > m[1][1] && m[0][0] > m[2][2])
	{
		double s = 2.0 * sqrt(1.0 + m[0][0] - m[1][1] - m[2][2]);
		w = (m[2][1] - m[1][2]) / s, x = 0.25 * s, y = (m[0][1] + m[1][0]) / s, z = (m[0][2] + m[2][0]) / s;
	}
	else if (m[1][1] > m[2][2])
	{
		double s = 2.0 * sqrt(1.0 + m[1][1] - m[0][0] - m[2][2]);
		w = (m[0][2] - m[2][0]) / s, x = (m[0][1] + m[1][0]) / s, y = 0.25 * s, z = (m[1][2] + m[2][1]) / s;
	}
	else
	{
		double s = 2.0 * sqrt(1.0 + m[2][2] - m[0][0] - m[1][1]);
		w = (m[1][0] - m[0][1]) / s, x = (m[0][2] + m[2][0]) / s, y = (m[1][2] + m[2][1]) / s, z = 0.25 * s;
	}
	// Canonical hemisphere (w >= 0) so equal tensors give equal quaternions.
	double sign = w < 0.0 ? -1.0 : 1.0;
	double inv = sign / sqrt(x * x + y * y + z * z + w * w);
	versors q = {{(float)(x * inv), (float)(y * inv), (float)(z * inv), (float)(w * inv)}};
	return q;
}

kl_principal_inertia kl_compute_principal_inertia(mat3s inertia)
{
	kl_principal_inertia result = {{{0.0f, 0.0f, 0.0f}}, {{0.0f, 0.0f, 0.0f, 1.0f}}};
	dmat3 a = dmat3_from(inertia);
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			if (!isfinite(a.m[i][j]))
			{
				kl_fail(KL_ERR_INVALID_ARGUMENT, "principal inertia: tensor is not finite");
				return result;
			}
		}
	}
	// Symmetrise: callers pass float tensors whose off-diagonal pairs may differ in the last bit.
	for (int i = 0; i < 3; ++i)
	{
		for (int j = i + 1; j < 3; ++j)
		{
			a.m[i][j] = a.m[j][i] = 0.5 * (a.m[i][j] + a.m[j][i]);
		}
	}
	dmat3 v;
	jacobi_eigen(&a, &v);

	// Sort eigenpairs ascending (three elements: insertion sort on an index permutation).
	int order[3] = {0, 1, 2};
	for (int i = 1; i < 3; ++i)
	{
		for (int j = i; j > 0 && a.m[order[j]][order[j]] < a.m[order[j - 1]][order[j - 1]]; --j)
		{
			int t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	}
	dmat3 r;
	for (int col = 0; col < 3; ++col)
	{
		for (int row = 0; row < 3; ++row)
		{
			r.m[row][col] = v.m[row][order[col]];
		}
	}
	// Eigenvectors are defined up to sign; flip one so that R is a rotation, not a reflection.
	if (det3(&r) < 0.0)
	{
		for (int row = 0; row < 3; ++row)
		{
			r.m[row][2] = -r.m[row][2];
		}
	}
	result.moments = kl_vec3((float)a.m[order[0]][order[0]], (float)a.m[order[1]][order[1]],
							 (float)a.m[order[2]][order[2]]);
	result.rotation = dmat3_to_quat(&r);
	return result;
}

static kl_result validate_polyhedron(const vec3s* vertices, const int32_t* indices, int triangle_count, float density,
									 kl_mass_data* out, double* extent)
{
	if (vertices == NULL || indices == NULL || out == NULL)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "polyhedron mass: NULL vertices, indices or output");
	}
	if (triangle_count < 0)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "polyhedron mass: negative triangle count %d", triangle_count);
	}
	if (!isfinite(density) || density <= 0.0f)
	{
		return kl_fail(KL_ERR_INVALID_ARGUMENT, "polyhedron mass: density %g must be finite and positive",
					   (double)density);
	}
	double lo[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, hi[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
	for (int i = 0; i < 3 * triangle_count; ++i)
	{
		// There is no vertex count to check against: only negative indices are detectable here.
		if (indices[i] < 0)
		{
			return kl_fail(KL_ERR_INVALID_ARGUMENT, "polyhedron mass: index %d at %d is negative", indices[i], i);
		}
		vec3s v = vertices[indices[i]];
		if (!kl_vec3_is_finite(v))
		{
			return kl_fail(KL_ERR_INVALID_ARGUMENT, "polyhedron mass: vertex %d is not finite", indices[i]);
		}
		double p[3] = {v.x, v.y, v.z};
		for (int k = 0; k < 3; ++k)
		{
			lo[k] = fmin(lo[k], p[k]);
			hi[k] = fmax(hi[k], p[k]);
		}
	}
	*extent = 0.0;
	for (int k = 0; k < 3; ++k)
	{
		*extent = triangle_count > 0 ? fmax(*extent, hi[k] - lo[k]) : 0.0;
	}
	return KL_OK;
}

kl_result kl_compute_polyhedron_mass(const vec3s* vertices, const int32_t* indices, int triangle_count,
									 float density, kl_mass_data* out)
{
	double extent = 0.0;
	kl_result r = validate_polyhedron(vertices, indices, triangle_count, density, out, &extent);
	if (r != KL_OK)
	{
		return r;
	}
	kl_volume_integrals vi = kl_polyhedron_integrals(vertices, indices, triangle_count);
	// The sum of signed tetrahedra cancels to rounding noise for flat or open-and-folded meshes;
	// anything below 1e-12 of the bounding cube is that noise, not a body.
	if (!(vi.volume > 1.0e-12 * extent * extent * extent) || !(vi.volume > 0.0))
	{
		return kl_fail(KL_ERR_DEGENERATE, "polyhedron mass: volume %g is not positive (open, flat or inside-out mesh?)",
					   vi.volume);
	}
	double mass = vi.volume * (double)density;
	kl_mass_data md = kl_volume_integrals_mass(&vi, density);
	bool finite = mass <= FLT_MAX && mass >= FLT_MIN;
	for (int c = 0; c < 3; ++c)
	{
		finite = finite && kl_vec3_is_finite(md.inertia.col[c]);
	}
	if (!finite)
	{
		return kl_fail(KL_ERR_LIMIT, "polyhedron mass: mass %g or inertia is out of single precision range", mass);
	}
	*out = md;
	return KL_OK;
}
