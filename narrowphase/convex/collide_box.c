// Kollide — box–box contacts: the separating-axis test in closed form (six face axes and nine edge
// axes read off the relative rotation), then the same clipping as hulls on kl_make_box_hull boxes,
// so that boxes get kl_collide_hulls' manifolds, feature ids and cache entries at a fraction of
// the cost (resting box stacks are the common case).
// SPDX-License-Identifier: MIT
#include "sat.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <string.h>

/// The topology every box shares (half-edges, face loops, normals), taken once from the box hull
/// builder so that the numbering has one source: the unit box, with lookup tables derived from it.
typedef struct kl_box_topology
{
	kl_box_hull unit;
	int face_axis[6];
	float face_sign[6];
	int vertex_of[8];	 ///< sign bits (bit k: + on axis k) -> vertex index
	int8_t edge_of[8][8]; ///< vertices -> even half-edge joining them (-1: none)
	int edge_axis[12];	  ///< edge 2k runs along this axis
} kl_box_topology;

static kl_box_topology s_box;
static pthread_once_t s_box_once = PTHREAD_ONCE_INIT;

static void init_box_topology(void)
{
	const kl_hull* h = kl_make_box_hull(&s_box.unit, kl_vec3(1.0f, 1.0f, 1.0f));
	for (int f = 0; f < 6; ++f)
	{
		vec3s n = h->faces[f].normal;
		int axis = fabsf(n.x) > 0.5f ? 0 : (fabsf(n.y) > 0.5f ? 1 : 2);
		s_box.face_axis[f] = axis;
		s_box.face_sign[f] = n.raw[axis] > 0.0f ? 1.0f : -1.0f;
	}
	memset(s_box.edge_of, -1, sizeof(s_box.edge_of));
	for (int v = 0; v < 8; ++v)
	{
		vec3s p = h->vertices[v];
		s_box.vertex_of[(p.x > 0.0f ? 1 : 0) | (p.y > 0.0f ? 2 : 0) | (p.z > 0.0f ? 4 : 0)] = v;
	}
	for (int e = 0; e < h->edge_count; e += 2)
	{
		int v0 = h->edges[e].origin, v1 = h->edges[e + 1].origin;
		s_box.edge_of[v0][v1] = (int8_t)e;
		s_box.edge_of[v1][v0] = (int8_t)e;
		vec3s d = kl_sub3(h->vertices[v1], h->vertices[v0]);
		s_box.edge_axis[e / 2] = fabsf(d.x) > 0.5f ? 0 : (fabsf(d.y) > 0.5f ? 1 : 2);
	}
}

/// A box hull that shares the unit box's topology: only vertices and face planes are its own.
typedef struct kl_light_box
{
	kl_hull hull;
	vec3s vertices[8];
	kl_hull_face faces[6];
} kl_light_box;

static const kl_hull* light_box(kl_light_box* s, vec3s h)
{
	const kl_hull* unit = &s_box.unit.hull;
	s->hull = *unit;
	for (int i = 0; i < 8; ++i)
	{
		vec3s u = unit->vertices[i];
		s->vertices[i] = kl_vec3(u.x * h.x, u.y * h.y, u.z * h.z);
	}
	for (int f = 0; f < 6; ++f)
	{
		s->faces[f] = unit->faces[f];
		s->faces[f].offset = h.raw[s_box.face_axis[f]];
	}
	s->hull.vertices = s->vertices;
	s->hull.faces = s->faces;
	s->hull.bounds.lower = kl_vec3(-h.x, -h.y, -h.z);
	s->hull.bounds.upper = h;
	s->hull.tolerance = unit->tolerance * glm_max(h.x, glm_max(h.y, h.z));
	return &s->hull;
}

/// Two boxes seen from A's frame.
typedef struct kl_box_pair
{
	float r[3][3];	   ///< r[i][j]: component i of B's axis j (A's frame)
	float abs_r[3][3]; ///< |r[i][j]|
	float t[3];		   ///< B's centre in A's frame
	float ut[3];	   ///< dot(B's axis j, t)
	float ha[3];
	float hb[3];
} kl_box_pair;

/// The winning edge pair of the closed-form edge query, as axes and a sign.
typedef struct kl_box_edges
{
	int axis_a;
	int axis_b;
	float sign; ///< the axis cross(a_i, b_j) times sign points from A to B
	float len2;
} kl_box_edges;

static void box_pair_init(kl_box_pair* bp, vec3s ha, vec3s hb, const kl_rot33* r, vec3s t)
{
	const vec3s* cols[3] = {&r->cx, &r->cy, &r->cz};
	for (int j = 0; j < 3; ++j)
	{
		for (int i = 0; i < 3; ++i)
		{
			bp->r[i][j] = cols[j]->raw[i];
			bp->abs_r[i][j] = fabsf(cols[j]->raw[i]);
		}
		bp->ut[j] = kl_dot3(*cols[j], t);
	}
	for (int i = 0; i < 3; ++i)
	{
		bp->t[i] = t.raw[i];
		bp->ha[i] = ha.raw[i];
		bp->hb[i] = hb.raw[i];
	}
}

static float face_a_separation(const kl_box_pair* bp, int f)
{
	int i = s_box.face_axis[f];
	float t = s_box.face_sign[f] * bp->t[i];
	return t - bp->ha[i] - (bp->hb[0] * bp->abs_r[i][0] + bp->hb[1] * bp->abs_r[i][1] + bp->hb[2] * bp->abs_r[i][2]);
}

static float face_b_separation(const kl_box_pair* bp, int f)
{
	int j = s_box.face_axis[f];
	float ut = s_box.face_sign[f] * bp->ut[j];
	return -ut - bp->hb[j] -
		   (bp->ha[0] * bp->abs_r[0][j] + bp->ha[1] * bp->abs_r[1][j] + bp->ha[2] * bp->abs_r[2][j]);
}

static kl_face_query query_faces(const kl_box_pair* bp, bool of_b, float stop)
{
	kl_face_query best = {0, -FLT_MAX};
	for (int f = 0; f < 6; ++f)
	{
		float s = of_b ? face_b_separation(bp, f) : face_a_separation(bp, f);
		if (s > best.separation || f == 0)
		{
			best.index = f;
			best.separation = s;
			if (s > stop)
			{
				break;
			}
		}
	}
	return best;
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

// The nine axes cross(a_i, b_j). With (i, k1, k2) and (j, m1, m2) cyclic, the axis has components
// -r[k2][j], r[k1][j] along a_k1, a_k2 and r[i][m2], -r[i][m1] along b_m1, b_m2. When all four are
// non-zero the supporting features along it are an edge of each box (its Gauss-map arcs cross, as
// kl_sat_query_edges tests), else it is a face normal already covered by the face axes.
static float query_edges(const kl_box_pair* bp, float stop, kl_box_edges* out)
{
	const float sine2 = KL_SAT_PARALLEL_SINE * KL_SAT_PARALLEL_SINE;
	float best = -FLT_MAX;
	out->axis_a = -1;
	for (int j = 0; j < 3; ++j)
	{
		int m1 = j == 2 ? 0 : j + 1, m2 = m1 == 2 ? 0 : m1 + 1;
		for (int i = 0; i < 3; ++i)
		{
			int k1 = i == 2 ? 0 : i + 1, k2 = k1 == 2 ? 0 : k1 + 1;
			float n1 = -bp->r[k2][j], n2 = bp->r[k1][j];
			if (n1 == 0.0f || n2 == 0.0f || bp->r[i][m1] == 0.0f || bp->r[i][m2] == 0.0f)
			{
				continue;
			}
			float len2 = n1 * n1 + n2 * n2;
			if (!(len2 > sine2))
			{
				continue;
			}
			float nt = n1 * bp->t[k1] + n2 * bp->t[k2];
			float ra = bp->ha[k1] * bp->abs_r[k2][j] + bp->ha[k2] * bp->abs_r[k1][j];
			float rb = bp->hb[m1] * bp->abs_r[i][m2] + bp->hb[m2] * bp->abs_r[i][m1];
			float dist = fabsf(nt) - ra - rb;
			if (!beats(dist, len2, best))
			{
				continue;
			}
			best = dist / sqrtf(len2);
			out->axis_a = i;
			out->axis_b = j;
			out->sign = nt < 0.0f ? -1.0f : 1.0f;
			out->len2 = len2;
			if (best > stop)
			{
				return best;
			}
		}
	}
	return best;
}

// The even half-edge of a box joining the corners with sign bits b0 and b1.
static int box_edge(int b0, int b1)
{
	return s_box.edge_of[s_box.vertex_of[b0]][s_box.vertex_of[b1]];
}

// Separation along the axis of box edges ea and eb as kl_sat_axis_separation measures it on box
// hulls: the cross product oriented away from A's centre through A's edge, then both supports.
static float edge_axis_separation(const kl_box_pair* bp, int ea, int eb)
{
	if (ea < 0 || ea >= 24 || eb < 0 || eb >= 24)
	{
		return -FLT_MAX;
	}
	int i = s_box.edge_axis[ea >> 1], j = s_box.edge_axis[eb >> 1];
	int k1 = i == 2 ? 0 : i + 1, k2 = k1 == 2 ? 0 : k1 + 1;
	int m1 = j == 2 ? 0 : j + 1, m2 = m1 == 2 ? 0 : m1 + 1;
	float n1 = -bp->r[k2][j], n2 = bp->r[k1][j];
	float len2 = n1 * n1 + n2 * n2;
	if (!(len2 > KL_SAT_PARALLEL_SINE * KL_SAT_PARALLEL_SINE))
	{
		return -FLT_MAX;
	}
	vec3s corner = s_box.unit.hull.vertices[s_box.unit.hull.edges[ea & ~1].origin];
	float side = n1 * corner.raw[k1] * bp->ha[k1] + n2 * corner.raw[k2] * bp->ha[k2];
	float nt = n1 * bp->t[k1] + n2 * bp->t[k2];
	float ra = bp->ha[k1] * bp->abs_r[k2][j] + bp->ha[k2] * bp->abs_r[k1][j];
	float rb = bp->hb[m1] * bp->abs_r[i][m2] + bp->hb[m2] * bp->abs_r[i][m1];
	return ((side < 0.0f ? -nt : nt) - ra - rb) / sqrtf(len2);
}

// Fills r->edges (and the chosen indices) with the hull features of the winning axis pair: A's
// edge along a_i on the side of the normal, B's edge along b_j on the opposite side.
static void resolve_edges(const kl_box_pair* bp, const kl_box_edges* e, kl_sat_result* r)
{
	int i = e->axis_a, j = e->axis_b;
	int k1 = i == 2 ? 0 : i + 1, k2 = k1 == 2 ? 0 : k1 + 1;
	int m1 = j == 2 ? 0 : j + 1, m2 = m1 == 2 ? 0 : m1 + 1;
	float s = e->sign;
	float n1 = -bp->r[k2][j] * s, n2 = bp->r[k1][j] * s;			 // along a_k1, a_k2
	float u1 = bp->r[i][m2] * s, u2 = -bp->r[i][m1] * s;			 // along b_m1, b_m2
	int va = (n1 > 0.0f ? 1 << k1 : 0) | (n2 > 0.0f ? 1 << k2 : 0); // support of A along n
	int vb = (u1 < 0.0f ? 1 << m1 : 0) | (u2 < 0.0f ? 1 << m2 : 0); // support of B along -n
	r->edges.edge_a = box_edge(va, va | (1 << i));
	r->edges.edge_b = box_edge(vb, vb | (1 << j));
	float inv = s / sqrtf(e->len2);
	vec3s n = kl_vec3(0.0f, 0.0f, 0.0f);
	n.raw[k1] = -bp->r[k2][j] * inv;
	n.raw[k2] = bp->r[k1][j] * inv;
	r->edges.normal = n;
	r->index_a = r->edges.edge_a;
	r->index_b = r->edges.edge_b;
}

// B's corners and face planes in A's frame, from B's axes scaled by its half extents (cheaper
// than rotating every corner).
static void box_transform(kl_sat_pair* pair, kl_sat_storage* storage, const kl_rot33* r, vec3s hb, vec3s t)
{
	const kl_hull* b = pair->b;
	vec3s ax = kl_scale3(r->cx, hb.x), ay = kl_scale3(r->cy, hb.y), az = kl_scale3(r->cz, hb.z);
	for (int i = 0; i < 8; ++i)
	{
		vec3s u = s_box.unit.hull.vertices[i];
		vec3s x = u.x > 0.0f ? ax : kl_scale3(ax, -1.0f);
		vec3s y = u.y > 0.0f ? ay : kl_scale3(ay, -1.0f);
		vec3s z = u.z > 0.0f ? az : kl_scale3(az, -1.0f);
		storage->vertices[i] = kl_add3(kl_add3(t, x), kl_add3(y, z));
	}
	const vec3s* axes[3] = {&r->cx, &r->cy, &r->cz};
	for (int f = 0; f < 6; ++f)
	{
		vec3s n = kl_scale3(*axes[s_box.face_axis[f]], s_box.face_sign[f]);
		storage->normals[f] = n;
		storage->offsets[f] = b->faces[f].offset + kl_dot3(n, t);
	}
	pair->vb = storage->vertices;
	pair->nb = storage->normals;
	pair->ob = storage->offsets;
}

void kl_collide_boxes(vec3s ha, kl_transform xf_a, vec3s hb, kl_transform xf_b, float speculative,
					  kl_collide_cache* cache, kl_manifold* m)
{
	pthread_once(&s_box_once, init_box_topology);
	kl_hull_clear_manifold(m);
	versors conj_a = {{-xf_a.q.x, -xf_a.q.y, -xf_a.q.z, xf_a.q.w}};
	versors q = glms_quat_mul(conj_a, xf_b.q);
	vec3s t = kl_inv_rotate(xf_a.q, kl_sub3(xf_b.p, xf_a.p));
	kl_rot33 rot = kl_rot33_from_quat(q);
	kl_box_pair bp;
	box_pair_init(&bp, ha, hb, &rot, t);
	kl_sat_pair pair;
	kl_light_box light_a, light_b;

	// A remembered axis that still separates proves there is no contact, whatever the pose.
	if (cache != NULL && cache->type != KL_SAT_NONE)
	{
		float s = -FLT_MAX;
		if (cache->type == KL_SAT_FACE_A && cache->index_a >= 0 && cache->index_a < 6)
		{
			s = face_a_separation(&bp, cache->index_a);
		}
		else if (cache->type == KL_SAT_FACE_B && cache->index_b >= 0 && cache->index_b < 6)
		{
			s = face_b_separation(&bp, cache->index_b);
		}
		else if (cache->type == KL_SAT_EDGES)
		{
			s = edge_axis_separation(&bp, cache->index_a, cache->index_b);
		}
		if (s > speculative)
		{
			cache->separation = s;
			cache->flags = KL_SAT_SEPARATED;
			return;
		}
	}

	kl_sat_result r;
	memset(&r, 0, sizeof(r));
	r.face_b.separation = -FLT_MAX;
	r.edges.edge_a = -1;
	r.edges.edge_b = -1;
	r.edges.separation = -FLT_MAX;
	kl_box_edges edges = {-1, -1, 1.0f, 1.0f};
	r.face_a = query_faces(&bp, false, speculative);
	if (r.face_a.separation <= speculative)
	{
		r.face_b = query_faces(&bp, true, speculative);
		if (r.face_b.separation <= speculative)
		{
			r.edges.separation = query_edges(&bp, speculative, &edges);
			r.edges.edge_a = edges.axis_a >= 0 ? 0 : -1;
		}
	}
	float size_a = 2.0f * glm_max(ha.x, glm_max(ha.y, ha.z));
	float size_b = 2.0f * glm_max(hb.x, glm_max(hb.y, hb.z));
	kl_sat_choose(&r, speculative, kl_sat_tolerance(size_a, size_b));
	if (r.kind == KL_SAT_EDGES)
	{
		resolve_edges(&bp, &edges, &r);
	}
	kl_hull_store_cache(cache, &r, speculative);
	if (!(r.separation <= speculative))
	{
		return;
	}
	kl_sat_storage storage;
	kl_sat_pair_init(&pair, light_box(&light_a, ha), light_box(&light_b, hb), q, t);
	box_transform(&pair, &storage, &rot, hb, t);
	kl_hull_contact(&pair, &r, speculative, xf_a, m);
}
