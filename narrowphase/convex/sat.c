// Kollide — separating-axis queries between convex hulls: the face planes of either hull, and the
// edge pairs whose Gauss-map arcs cross (the faces of the Minkowski difference), all in A's frame.
// SPDX-License-Identifier: MIT
#include "sat.h"

#include <float.h>
#include <math.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/// An edge axis must beat the best face by this fraction of its magnitude (plus the absolute
/// tolerance) to be chosen, and B's face must beat A's face by KL_SAT_FACE_REL: face contacts give
/// whole manifolds and A-before-B keeps the reference face from flipping while both are equal.
#define KL_SAT_EDGE_REL 0.1f
#define KL_SAT_FACE_REL 0.02f

void kl_sat_pair_init(kl_sat_pair* pair, const kl_hull* a, const kl_hull* b, versors q, vec3s t)
{
	pair->a = a;
	pair->b = b;
	pair->r = kl_rot33_from_quat(q);
	pair->t = t;
	pair->vb = NULL;
	pair->nb = NULL;
	pair->ob = NULL;
}

void kl_sat_pair_transform(kl_sat_pair* pair, kl_sat_storage* storage)
{
	const kl_hull* b = pair->b;
	if (b->vertex_count > KL_SAT_MAX_CACHED || b->face_count > KL_SAT_MAX_CACHED_FACES)
	{
		return;
	}
	for (int i = 0; i < b->vertex_count; ++i)
	{
		storage->vertices[i] = kl_add3(kl_rot33_apply(&pair->r, b->vertices[i]), pair->t);
	}
	for (int i = 0; i < b->face_count; ++i)
	{
		vec3s n = kl_rot33_apply(&pair->r, b->faces[i].normal);
		storage->normals[i] = n;
		storage->offsets[i] = b->faces[i].offset + kl_dot3(n, pair->t);
	}
	pair->vb = storage->vertices;
	pair->nb = storage->normals;
	pair->ob = storage->offsets;
}

static float min_dot(const vec3s* v, int count, vec3s d)
{
	float m = kl_dot3(v[0], d);
	for (int i = 1; i < count; ++i)
	{
		float x = kl_dot3(v[i], d);
		m = x < m ? x : m;
	}
	return m;
}

float kl_sat_min_b(const kl_sat_pair* pair, vec3s d)
{
	if (pair->vb != NULL)
	{
		return min_dot(pair->vb, pair->b->vertex_count, d);
	}
	// dot(d, R v + t) = dot(R^T d, v) + dot(d, t)
	vec3s local = kl_rot33_apply_inv(&pair->r, d);
	return min_dot(pair->b->vertices, pair->b->vertex_count, local) + kl_dot3(d, pair->t);
}

float kl_sat_min_a(const kl_hull* a, vec3s d)
{
	return min_dot(a->vertices, a->vertex_count, d);
}

float kl_sat_max_a(const kl_hull* a, vec3s d)
{
	float m = kl_dot3(a->vertices[0], d);
	for (int i = 1; i < a->vertex_count; ++i)
	{
		float x = kl_dot3(a->vertices[i], d);
		m = x > m ? x : m;
	}
	return m;
}

// The index and value of the smallest dot(d, v) over vertices v.
static float argmin_dot(const vec3s* v, int count, vec3s d, int* arg)
{
	float m = kl_dot3(v[0], d);
	int k = 0;
	for (int i = 1; i < count; ++i)
	{
		float x = kl_dot3(v[i], d);
		k = x < m ? i : k;
		m = x < m ? x : m;
	}
	*arg = k;
	return m;
}

// Both face queries skip faces that provably cannot be the answer. A face's separation is the
// smallest dot of the other hull's vertices with its normal (minus its offset), so the dot of any
// one vertex w bounds it from above, and that bound is one of the terms of the minimum, computed
// the same way (for A's faces only when B's vertices were transformed once: the same products), so
// it holds exactly in floats. The hint face (the one facing the other hull) is
// measured first: its separation is at most the answer, and w is its deepest vertex, close to the
// contact, so that the faces looking elsewhere fall below it. A face whose bound is below the
// hint's separation (and below stop, so that the first face over stop is still found) can neither
// be the largest nor tie with it: the loop returns what it returns without the skipping.
kl_face_query kl_sat_query_faces_a(const kl_sat_pair* pair, float stop, int hint)
{
	const kl_hull* a = pair->a;
	kl_face_query best = {0, -FLT_MAX};
	float threshold = -FLT_MAX;
	float hint_separation = 0.0f;
	vec3s w = kl_vec3(0.0f, 0.0f, 0.0f);
	bool hinted = pair->vb != NULL && hint >= 0 && hint < a->face_count;
	if (hinted)
	{
		int arg;
		const kl_hull_face* h = a->faces + hint;
		hint_separation = argmin_dot(pair->vb, pair->b->vertex_count, h->normal, &arg) - h->offset;
		w = pair->vb[arg];
		threshold = glm_min(hint_separation, stop);
	}
	bool first = true;
	for (int i = 0; i < a->face_count; ++i)
	{
		const kl_hull_face* f = a->faces + i;
		if (hinted && kl_dot3(w, f->normal) - f->offset < threshold)
		{
			continue;
		}
		float s = hinted && i == hint ? hint_separation : kl_sat_min_b(pair, f->normal) - f->offset;
		if (s > best.separation || first)
		{
			first = false;
			best.index = i;
			best.separation = s;
			if (s > stop)
			{
				break;
			}
		}
	}
	return best;
}

kl_face_query kl_sat_query_faces_b(const kl_sat_pair* pair, float stop, int hint)
{
	const kl_hull* a = pair->a;
	const kl_hull* b = pair->b;
	kl_face_query best = {0, -FLT_MAX};
	float threshold = -FLT_MAX;
	float hint_separation = 0.0f;
	vec3s w = kl_vec3(0.0f, 0.0f, 0.0f);
	bool hinted = hint >= 0 && hint < b->face_count;
	if (hinted)
	{
		int arg;
		hint_separation = argmin_dot(a->vertices, a->vertex_count, kl_sat_normal_b(pair, hint), &arg) -
						  kl_sat_offset_b(pair, hint);
		w = a->vertices[arg];
		threshold = glm_min(hint_separation, stop);
	}
	bool first = true;
	for (int i = 0; i < b->face_count; ++i)
	{
		vec3s n = kl_sat_normal_b(pair, i);
		float offset = kl_sat_offset_b(pair, i);
		if (hinted && kl_dot3(w, n) - offset < threshold)
		{
			continue;
		}
		float s = hinted && i == hint ? hint_separation : kl_sat_min_a(a, n) - offset;
		if (s > best.separation || first)
		{
			first = false;
			best.index = i;
			best.separation = s;
			if (s > stop)
			{
				break;
			}
		}
	}
	return best;
}

// Orients ea x eb away from A's centroid; false when the edges are nearly parallel.
static bool edge_axis(vec3s ea, vec3s eb, vec3s pa, vec3s centroid, vec3s* normal)
{
	vec3s axis = kl_cross3(ea, eb);
	float len2 = kl_dot3(axis, axis);
	float limit = KL_SAT_PARALLEL_SINE * KL_SAT_PARALLEL_SINE * kl_dot3(ea, ea) * kl_dot3(eb, eb);
	if (!(len2 > limit))
	{
		return false;
	}
	axis = kl_scale3(axis, 1.0f / sqrtf(len2));
	if (kl_dot3(axis, kl_sub3(pa, centroid)) < 0.0f)
	{
		axis = kl_scale3(axis, -1.0f);
	}
	*normal = axis;
	return true;
}

bool kl_sat_edge_axis(const kl_sat_pair* pair, int ea, int eb, vec3s* normal)
{
	const kl_hull* a = pair->a;
	const kl_hull* b = pair->b;
	vec3s pa = a->vertices[a->edges[ea].origin];
	vec3s da = kl_sub3(a->vertices[a->edges[ea + 1].origin], pa);
	vec3s pb = kl_sat_vertex_b(pair, b->edges[eb].origin);
	vec3s db = kl_sub3(kl_sat_vertex_b(pair, b->edges[eb + 1].origin), pb);
	return edge_axis(da, db, pa, a->centroid, normal);
}

// Whether dist / sqrt(len2) > best, without the square root (len2 > 0).
static inline bool beats(float dist, float len2, float best)
{
	if (best < 0.0f)
	{
		return dist >= 0.0f || dist * dist < best * best * len2;
	}
	return dist > 0.0f && dist * dist > best * best * len2;
}

// Edge pair (ia, jb) that passed the arc test: keeps it in best when its axis separates more.
// Returns true when the search can stop (separation above stop). The separation is compared
// before it is normalised, so only pairs that improve on the best pay for a square root.
static inline bool try_edge_pair(kl_edge_query* best, int ia, int jb, vec3s pa, vec3s da, vec3s pb, vec3s db,
								 float limit_b, vec3s centroid, float stop)
{
	vec3s axis = kl_cross3(da, db);
	float len2 = kl_dot3(axis, axis);
	if (!(len2 > limit_b * kl_dot3(da, da)))
	{
		return false;
	}
	float dist = kl_dot3(axis, kl_sub3(pb, pa));
	bool flip = kl_dot3(axis, kl_sub3(pa, centroid)) < 0.0f;
	dist = flip ? -dist : dist;
	if (!beats(dist, len2, best->separation))
	{
		return false;
	}
	float inv = 1.0f / sqrtf(len2);
	best->edge_a = ia;
	best->edge_b = jb;
	best->separation = dist * inv;
	best->normal = kl_scale3(axis, flip ? -inv : inv);
	return best->separation > stop;
}

/// Hulls up to this many edges of A (64 per word) and faces of B take the bitset path of the edge
/// query: random hulls of 32 points already have about 90 edges, so one word is not enough.
#define KL_SAT_MASK_WORDS 4
#define KL_SAT_MASK_EDGES (64 * KL_SAT_MASK_WORDS)
#define KL_SAT_MASK_FACES KL_SAT_MAX_CACHED_FACES

// Bit i of pos[i / 64] (neg) tells whether dot(n, d_i) is positive (negative), for the directions
// d_i given as columns padded with zeros to a multiple of 8. Four at a time with SSE where there
// is SSE (the same IEEE products and sums as the scalar loop, so the same bits).
static inline void sign_masks(vec3s n, const float* dx, const float* dy, const float* dz, int padded, uint64_t* pos,
							  uint64_t* neg)
{
	uint64_t p = 0, q = 0;
#if defined(__SSE2__)
	__m128 nx = _mm_set1_ps(n.x), ny = _mm_set1_ps(n.y), nz = _mm_set1_ps(n.z), zero = _mm_setzero_ps();
	for (int i = 0; i < padded; i += 4)
	{
		__m128 x = _mm_add_ps(_mm_add_ps(_mm_mul_ps(nx, _mm_loadu_ps(dx + i)), _mm_mul_ps(ny, _mm_loadu_ps(dy + i))),
							  _mm_mul_ps(nz, _mm_loadu_ps(dz + i)));
		p |= (uint64_t)_mm_movemask_ps(_mm_cmpgt_ps(x, zero)) << (i & 63);
		q |= (uint64_t)_mm_movemask_ps(_mm_cmplt_ps(x, zero)) << (i & 63);
		if ((i & 63) == 60 || i + 4 >= padded)
		{
			pos[i >> 6] = p;
			neg[i >> 6] = q;
			p = 0;
			q = 0;
		}
	}
#else
	for (int i = 0; i < padded; ++i)
	{
		float x = n.x * dx[i] + n.y * dy[i] + n.z * dz[i];
		p |= (uint64_t)(x > 0.0f) << (i & 63);
		q |= (uint64_t)(x < 0.0f) << (i & 63);
		if ((i & 63) == 63 || i + 1 == padded)
		{
			pos[i >> 6] = p;
			neg[i >> 6] = q;
			p = 0;
			q = 0;
		}
	}
#endif
}

// Culling of the edge query. Edges are chosen only over the best face axis, so a pair that cannot
// separate by more than floor (that face's separation) need not be looked at. For any points a of
// A and b of B, an axis n from A to B separates by s = min_B n.y - max_A n.x <= n.(b - a), so
// s > floor needs n.(b - a) > floor for every such v = b - a. A's edge supports A along n only for
// n on its Gauss arc (between its faces' normals), and every point of a short arc is a combination
// of its ends with weights >= 0 summing to >= 1: when both ends have n.v <= tau <= 0, so has the
// whole arc. Likewise B's edge, which supports B along -n. A few vectors v carve a cap around the
// contact normal: the centroids (c_B - c_A), and for the four tangent directions w, B's deepest
// point along w minus A's farthest one (about 45 degrees for round hulls). Edges whose arcs miss
// the cap are skipped: two thirds of each hull, most of the pairs.
#define KL_SAT_CULL_PLANES 5

typedef struct kl_edge_cull
{
	vec3s v[KL_SAT_CULL_PLANES]; ///< A's frame
	float tau[KL_SAT_CULL_PLANES];
	int count; ///< 0: nothing is culled
} kl_edge_cull;

static vec3s any_perpendicular(vec3s u)
{
	vec3s e = fabsf(u.x) < 0.57f ? kl_vec3(1.0f, 0.0f, 0.0f) : kl_vec3(0.0f, 1.0f, 0.0f);
	vec3s p = kl_cross3(u, e);
	return kl_scale3(p, 1.0f / sqrtf(kl_dot3(p, p)));
}

static void add_cull_plane(kl_edge_cull* cull, vec3s v, float floor)
{
	// The margin covers the rounding of the dots against it.
	cull->v[cull->count] = v;
	cull->tau[cull->count] = glm_min(floor, 0.0f) - 1e-4f * sqrtf(kl_dot3(v, v));
	++cull->count;
}

static kl_edge_cull make_edge_cull(const kl_sat_pair* pair, float floor)
{
	kl_edge_cull cull;
	cull.count = 0;
	const kl_hull* a = pair->a;
	const kl_hull* b = pair->b;
	vec3s cb = kl_add3(kl_rot33_apply(&pair->r, b->centroid), pair->t);
	vec3s d = kl_sub3(cb, a->centroid);
	float len = sqrtf(kl_dot3(d, d));
	if (!(floor > -FLT_MAX) || !(len > 0.0f) || !(floor > -0.5f * len))
	{
		return cull; // deep or concentric: the cap would be most of the sphere
	}
	add_cull_plane(&cull, d, floor);
	vec3s u = kl_scale3(d, 1.0f / len);
	vec3s e1 = any_perpendicular(u);
	vec3s e2 = kl_cross3(u, e1);
	// Extremes of A (largest) and B (smallest) along +-e1, +-e2.
	float a_max[4] = {-FLT_MAX, -FLT_MAX, -FLT_MAX, -FLT_MAX};
	int a_arg[4] = {0, 0, 0, 0};
	for (int i = 0; i < a->vertex_count; ++i)
	{
		float x = kl_dot3(a->vertices[i], e1), y = kl_dot3(a->vertices[i], e2);
		float dots[4] = {x, -x, y, -y};
		for (int k = 0; k < 4; ++k)
		{
			if (dots[k] > a_max[k])
			{
				a_max[k] = dots[k];
				a_arg[k] = i;
			}
		}
	}
	float b_min[4] = {FLT_MAX, FLT_MAX, FLT_MAX, FLT_MAX};
	vec3s b_arg[4] = {cb, cb, cb, cb};
	for (int i = 0; i < b->vertex_count; ++i)
	{
		vec3s p = kl_sat_vertex_b(pair, i);
		float x = kl_dot3(p, e1), y = kl_dot3(p, e2);
		float dots[4] = {x, -x, y, -y};
		for (int k = 0; k < 4; ++k)
		{
			if (dots[k] < b_min[k])
			{
				b_min[k] = dots[k];
				b_arg[k] = p;
			}
		}
	}
	for (int k = 0; k < 4; ++k)
	{
		add_cull_plane(&cull, kl_sub3(b_arg[k], a->vertices[a_arg[k]]), floor);
	}
	return cull;
}

// Bit k set when normal n is beyond plane k of the cap (n.v_k <= tau_k).
static inline unsigned cull_bits(const kl_edge_cull* cull, vec3s n)
{
	unsigned bits = 0;
	for (int k = 0; k < cull->count; ++k)
	{
		bits |= (unsigned)(kl_dot3(n, cull->v[k]) <= cull->tau[k]) << k;
	}
	return bits;
}

static inline bool keep_edge_a(const kl_edge_cull* cull, const kl_hull* a, int ia)
{
	return (cull_bits(cull, a->faces[a->edges[ia].face].normal) &
			cull_bits(cull, a->faces[a->edges[ia + 1].face].normal)) == 0;
}

static inline bool keep_edge_b(const kl_edge_cull* cull, const kl_sat_pair* pair, int jb)
{
	// B's edge supports B along -n for n on its arc: the arc of its negated normals is tested.
	const kl_hull_half_edge* hb = pair->b->edges + jb;
	return (cull_bits(cull, kl_scale3(kl_sat_normal_b(pair, hb->face), -1.0f)) &
			cull_bits(cull, kl_scale3(kl_sat_normal_b(pair, hb[1].face), -1.0f))) == 0;
}

// The same query for small hulls, with the first arc test done 64 edges of A at a time: for every
// face of B, bitsets of the edges of A whose direction has a positive or a negative dot with the
// face normal; an edge of B with faces c and d then tests (c.da)(d.da) < 0 for all edges of A at
// once, and only the survivors are looked at one by one. The pairs are visited in the order of the
// scalar loop (B's edges outside, A's inside), so both give the same answer.
static kl_edge_query query_edges_masked(const kl_sat_pair* pair, float stop, const kl_edge_cull* cull)
{
	const kl_hull* a = pair->a;
	const kl_hull* b = pair->b;
	const vec3s* verts_a = a->vertices;
	const kl_hull_half_edge* edges_a = a->edges;
	// The kept edges of A (index map) and their directions as columns, padded with zeros.
	int map[KL_SAT_MASK_EDGES];
	float dx[KL_SAT_MASK_EDGES], dy[KL_SAT_MASK_EDGES], dz[KL_SAT_MASK_EDGES];
	uint8_t bits_a[KL_SAT_MASK_FACES], bits_b[KL_SAT_MASK_FACES];
	for (int f = 0; f < a->face_count; ++f)
	{
		bits_a[f] = (uint8_t)cull_bits(cull, a->faces[f].normal);
	}
	for (int f = 0; f < b->face_count; ++f)
	{
		bits_b[f] = (uint8_t)cull_bits(cull, kl_scale3(kl_sat_normal_b(pair, f), -1.0f));
	}
	int na = 0;
	for (int ia = 0; ia < a->edge_count; ia += 2)
	{
		if ((bits_a[edges_a[ia].face] & bits_a[edges_a[ia + 1].face]) != 0)
		{
			continue;
		}
		vec3s d = kl_sub3(verts_a[edges_a[ia + 1].origin], verts_a[edges_a[ia].origin]);
		map[na] = ia;
		dx[na] = d.x;
		dy[na] = d.y;
		dz[na] = d.z;
		++na;
	}
	int padded = (na + 7) & ~7;
	for (int k = na; k < padded; ++k)
	{
		dx[k] = dy[k] = dz[k] = 0.0f;
	}
	int words = (na + 63) >> 6;
	// Masks of B's faces, made when a kept edge of B first needs them.
	uint64_t pos[KL_SAT_MASK_FACES][KL_SAT_MASK_WORDS], neg[KL_SAT_MASK_FACES][KL_SAT_MASK_WORDS];
	bool made[KL_SAT_MASK_FACES];
	memset(made, 0, (size_t)b->face_count * sizeof(bool));
	const kl_hull_face* faces_a = a->faces;
	kl_edge_query best = {-1, -1, -FLT_MAX, {{0.0f, 0.0f, 0.0f}}};
	vec3s centroid = a->centroid;
	const float sine2 = KL_SAT_PARALLEL_SINE * KL_SAT_PARALLEL_SINE;
	for (int jb = 0; na > 0 && jb < b->edge_count; jb += 2)
	{
		const kl_hull_half_edge* hb = b->edges + jb;
		int c = hb->face, d = hb[1].face;
		if ((bits_b[c] & bits_b[d]) != 0)
		{
			continue;
		}
		for (int k = 0; k < 2; ++k)
		{
			int f = k == 0 ? c : d;
			if (!made[f])
			{
				sign_masks(kl_sat_normal_b(pair, f), dx, dy, dz, padded, pos[f], neg[f]);
				made[f] = true;
			}
		}
		bool have_b = false;
		vec3s pb = kl_vec3(0.0f, 0.0f, 0.0f), db = pb;
		float limit_b = 0.0f;
		for (int w = 0; w < words; ++w)
		{
			uint64_t pc = pos[c][w];
			uint64_t candidates = (pc & neg[d][w]) | (neg[c][w] & pos[d][w]);
			if (candidates != 0 && !have_b)
			{
				pb = kl_sat_vertex_b(pair, hb->origin);
				db = kl_sub3(kl_sat_vertex_b(pair, hb[1].origin), pb);
				limit_b = sine2 * kl_dot3(db, db);
				have_b = true;
			}
			while (candidates != 0)
			{
				int bit = __builtin_ctzll(candidates);
				candidates &= candidates - 1;
				int k = 64 * w + bit;
				const kl_hull_half_edge* ha = edges_a + map[k];
				float bdb = kl_dot3(faces_a[ha[1].face].normal, db);
				bool c_positive = (pc >> bit) & 1u;
				if (c_positive ? !(bdb < 0.0f) : !(bdb > 0.0f))
				{
					continue;
				}
				if (kl_dot3(faces_a[ha->face].normal, db) * bdb >= 0.0f)
				{
					continue;
				}
				vec3s pa = verts_a[ha->origin];
				vec3s da = kl_vec3(dx[k], dy[k], dz[k]);
				if (try_edge_pair(&best, map[k], jb, pa, da, pb, db, limit_b, centroid, stop))
				{
					return best;
				}
			}
		}
	}
	return best;
}

// For half-edge e of a hull with outward counter-clockwise faces, cross(twin face normal, face
// normal) points against e's direction. Gregorius's arc test on the Gauss map (arcs a-b of A and
// -c-d of B cross) then reads, with the edge directions da and db in place of those cross products:
// (c.da)(d.da) < 0, (a.db)(b.db) < 0 and (c.da)(b.db) < 0.
kl_edge_query kl_sat_query_edges(const kl_sat_pair* pair, float stop, float floor)
{
	kl_edge_cull cull = make_edge_cull(pair, floor);
	if (pair->a->edge_count <= 2 * KL_SAT_MASK_EDGES && pair->a->face_count <= KL_SAT_MASK_FACES &&
		pair->b->face_count <= KL_SAT_MASK_FACES)
	{
		return query_edges_masked(pair, stop, &cull);
	}
	const kl_hull* a = pair->a;
	const kl_hull* b = pair->b;
	const kl_hull_half_edge* edges_a = a->edges;
	const kl_hull_face* faces_a = a->faces;
	const vec3s* verts_a = a->vertices;
	kl_edge_query best = {-1, -1, -FLT_MAX, {{0.0f, 0.0f, 0.0f}}};
	vec3s centroid = a->centroid;
	const float sine2 = KL_SAT_PARALLEL_SINE * KL_SAT_PARALLEL_SINE;
	for (int jb = 0; jb < b->edge_count; jb += 2)
	{
		const kl_hull_half_edge* hb = b->edges + jb;
		if (!keep_edge_b(&cull, pair, jb))
		{
			continue;
		}
		vec3s pb = kl_sat_vertex_b(pair, hb->origin);
		vec3s db = kl_sub3(kl_sat_vertex_b(pair, hb[1].origin), pb);
		vec3s c = kl_sat_normal_b(pair, hb->face);
		vec3s d = kl_sat_normal_b(pair, hb[1].face);
		float limit_b = sine2 * kl_dot3(db, db);
		for (int ia = 0; ia < a->edge_count; ia += 2)
		{
			const kl_hull_half_edge* ha = edges_a + ia;
			vec3s pa = verts_a[ha->origin];
			vec3s da = kl_sub3(verts_a[ha[1].origin], pa);
			float cda = kl_dot3(c, da);
			if (cda * kl_dot3(d, da) >= 0.0f)
			{
				continue;
			}
			float bdb = kl_dot3(faces_a[ha[1].face].normal, db);
			if (cda * bdb >= 0.0f || kl_dot3(faces_a[ha->face].normal, db) * bdb >= 0.0f)
			{
				continue;
			}
			if (!keep_edge_a(&cull, a, ia))
			{
				continue;
			}
			if (try_edge_pair(&best, ia, jb, pa, da, pb, db, limit_b, centroid, stop))
			{
				return best;
			}
		}
	}
	return best;
}

float kl_sat_axis_separation(const kl_sat_pair* pair, int kind, int index_a, int index_b)
{
	const kl_hull* a = pair->a;
	const kl_hull* b = pair->b;
	if (kind == KL_SAT_FACE_A && index_a >= 0 && index_a < a->face_count)
	{
		const kl_hull_face* f = a->faces + index_a;
		return kl_sat_min_b(pair, f->normal) - f->offset;
	}
	if (kind == KL_SAT_FACE_B && index_b >= 0 && index_b < b->face_count)
	{
		return kl_sat_min_a(a, kl_sat_normal_b(pair, index_b)) - kl_sat_offset_b(pair, index_b);
	}
	if (kind == KL_SAT_EDGES && index_a >= 0 && index_a + 1 < a->edge_count && index_b >= 0 &&
		index_b + 1 < b->edge_count)
	{
		vec3s n;
		if (kl_sat_edge_axis(pair, index_a & ~1, index_b & ~1, &n))
		{
			return kl_sat_min_b(pair, n) - kl_sat_max_a(a, n);
		}
	}
	return -FLT_MAX;
}

float kl_sat_tolerance(float size_a, float size_b)
{
	return glm_min(0.5f * KL_LINEAR_SLOP, 0.02f * glm_min(size_a, size_b));
}

static void set_choice(kl_sat_result* r, int kind)
{
	r->kind = kind;
	r->index_a = kind == KL_SAT_FACE_A ? r->face_a.index : (kind == KL_SAT_EDGES ? r->edges.edge_a : 0);
	r->index_b = kind == KL_SAT_FACE_B ? r->face_b.index : (kind == KL_SAT_EDGES ? r->edges.edge_b : 0);
	r->separation = kind == KL_SAT_FACE_A ? r->face_a.separation
										  : (kind == KL_SAT_FACE_B ? r->face_b.separation : r->edges.separation);
}

void kl_sat_choose(kl_sat_result* r, float speculative, float tolerance)
{
	float fa = r->face_a.separation;
	float fb = r->face_b.separation;
	bool has_edge = r->edges.edge_a >= 0;
	float face = glm_max(fa, fb);
	if (fa > speculative)
	{
		set_choice(r, KL_SAT_FACE_A);
	}
	else if (fb > speculative)
	{
		set_choice(r, KL_SAT_FACE_B);
	}
	else if (has_edge && (r->edges.separation > speculative ||
						  r->edges.separation > face + KL_SAT_EDGE_REL * fabsf(face) + tolerance))
	{
		set_choice(r, KL_SAT_EDGES);
	}
	else if (fb > fa + KL_SAT_FACE_REL * fabsf(fa) + tolerance)
	{
		set_choice(r, KL_SAT_FACE_B);
	}
	else
	{
		set_choice(r, KL_SAT_FACE_A);
	}
}

static float hull_size(const kl_hull* h)
{
	vec3s e = kl_sub3(h->bounds.upper, h->bounds.lower);
	return glm_max(e.x, glm_max(e.y, e.z));
}

static int most_aligned_face_a(const kl_sat_pair* pair, vec3s d)
{
	int best = 0;
	float best_dot = -FLT_MAX;
	for (int i = 0; i < pair->a->face_count; ++i)
	{
		float x = kl_dot3(pair->a->faces[i].normal, d);
		best = x > best_dot ? i : best;
		best_dot = x > best_dot ? x : best_dot;
	}
	return best;
}

static int most_aligned_face_b(const kl_sat_pair* pair, vec3s d)
{
	int best = 0;
	float best_dot = -FLT_MAX;
	for (int i = 0; i < pair->b->face_count; ++i)
	{
		float x = kl_dot3(kl_sat_normal_b(pair, i), d);
		best = x > best_dot ? i : best;
		best_dot = x > best_dot ? x : best_dot;
	}
	return best;
}

kl_sat_result kl_sat_query(const kl_sat_pair* pair, float speculative)
{
	kl_sat_result r;
	memset(&r, 0, sizeof(r));
	r.face_b.separation = -FLT_MAX;
	r.edges.edge_a = -1;
	r.edges.edge_b = -1;
	r.edges.separation = -FLT_MAX;
	// Hints for the face queries: the faces most aligned with the line between the centroids.
	vec3s d = kl_sub3(kl_add3(kl_rot33_apply(&pair->r, pair->b->centroid), pair->t), pair->a->centroid);
	r.face_a = kl_sat_query_faces_a(pair, speculative, most_aligned_face_a(pair, d));
	if (r.face_a.separation <= speculative)
	{
		r.face_b = kl_sat_query_faces_b(pair, speculative, most_aligned_face_b(pair, kl_scale3(d, -1.0f)));
		if (r.face_b.separation <= speculative)
		{
			r.edges = kl_sat_query_edges(pair, speculative, glm_max(r.face_a.separation, r.face_b.separation));
		}
	}
	kl_sat_choose(&r, speculative, kl_sat_tolerance(hull_size(pair->a), hull_size(pair->b)));
	return r;
}
