// The public collision API (kollide/collision.h) against the engine's own results: on a small gear and
// a small rock (meshgen) at random poses, kl_collision_test agrees with an exhaustive exact
// triangle–triangle test for both backends, kl_collision_distance with the minimum of the exact
// triangle distances (closest triangles and points included), and the contacts of touching and
// nearly touching poses equal the engine's mesh contacts over every triangle pair and lie where their
// separations say; bad input fails with a message, running out of memory fails cleanly.
#include "kl_test.h"

#include <kollide/collision.h>

#include "collide_mesh.h"
#include "core.h"
#include "mesh.h"
#include "meshgen.h"
#include "tri_tri.h"

#include <string.h>

#define PI 3.14159265358979323846

typedef struct fixture
{
	kl_mesh* mesh_a;
	kl_mesh* mesh_b;
	kl_mesh* plain_b; ///< the rock without point shells
	kl_collision_model* a;
	kl_collision_model* b;
	kl_collision_model* plain;
	kl_collision_model_info ia;
	kl_collision_model_info ib;
	uint64_t rng;
} fixture;

static kl_mesh* build(const kl_meshgen_mesh* m, bool pointshell)
{
	kl_mesh_def def = kl_default_mesh_def();
	def.vertices = m->vertices;
	def.vertex_count = m->vertex_count;
	def.indices = m->indices;
	def.triangle_count = m->triangle_count;
	def.build_pointshell = pointshell;
	kl_mesh* mesh = kl_mesh_build(&def);
	assert_non_null(mesh);
	return mesh;
}

static int setup(void** state)
{
	fixture* f = calloc(1, sizeof(fixture));
	kl_meshgen_mesh gear = {0}, rock = {0};
	kl_meshgen_gear_params gp = kl_meshgen_default_gear_params();
	gp.tooth_count = 6;
	kl_meshgen_rock_params rp = kl_meshgen_default_rock_params();
	rp.frequency = 3;
	rp.radius = 0.03f; // about the gear's size, so that poses touch in many ways
	if (f == NULL || kl_meshgen_gear(&gp, &gear) != KL_OK || kl_meshgen_rock(&rp, &rock) != KL_OK)
	{
		return -1;
	}
	f->mesh_a = build(&gear, true);
	f->mesh_b = build(&rock, true);
	f->plain_b = build(&rock, false);
	kl_meshgen_free(&gear);
	kl_meshgen_free(&rock);
	f->a = kl_collision_model_create(f->mesh_a, NULL);
	f->b = kl_collision_model_create(f->mesh_b, NULL);
	f->plain = kl_collision_model_create(f->plain_b, NULL);
	if (f->a == NULL || f->b == NULL || f->plain == NULL)
	{
		return -1;
	}
	f->ia = kl_collision_model_get_info(f->a);
	f->ib = kl_collision_model_get_info(f->b);
	f->rng = 12345;
	*state = f;
	return 0;
}

static int teardown(void** state)
{
	fixture* f = *state;
	kl_collision_model_destroy(f->a);
	kl_collision_model_destroy(f->b);
	kl_collision_model_destroy(f->plain);
	kl_mesh_release(f->mesh_a);
	kl_mesh_release(f->mesh_b);
	kl_mesh_release(f->plain_b);
	free(f);
	return 0;
}

// ---------------------------------------------------------------------------------------------
// Poses

static double uniform(uint64_t* state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return (double)((z ^ (z >> 31)) >> 11) * (1.0 / 9007199254740992.0);
}

/// Shoemake's uniform random rotation.
static void random_rotation(uint64_t* s, double r[3][3])
{
	double u1 = uniform(s), u2 = 2.0 * PI * uniform(s), u3 = 2.0 * PI * uniform(s);
	double a = sqrt(1.0 - u1), b = sqrt(u1);
	double x = a * sin(u2), y = a * cos(u2), z = b * sin(u3), w = b * cos(u3);
	r[0][0] = 1 - 2 * (y * y + z * z), r[0][1] = 2 * (x * y - z * w), r[0][2] = 2 * (x * z + y * w);
	r[1][0] = 2 * (x * y + z * w), r[1][1] = 1 - 2 * (x * x + z * z), r[1][2] = 2 * (y * z - x * w);
	r[2][0] = 2 * (x * z - y * w), r[2][1] = 2 * (y * z + x * w), r[2][2] = 1 - 2 * (x * x + y * y);
}

static void random_direction(uint64_t* s, double u[3])
{
	double z = 2.0 * uniform(s) - 1.0, phi = 2.0 * PI * uniform(s), rho = sqrt(fmax(0.0, 1.0 - z * z));
	u[0] = rho * cos(phi), u[1] = rho * sin(phi), u[2] = z;
}

/// A random pose of A (rotation, translation within a metre).
static kl_collision_pose random_pose(uint64_t* s)
{
	kl_collision_pose p;
	random_rotation(s, p.rotation);
	for (int i = 0; i < 3; ++i)
	{
		p.translation[i] = 2.0 * uniform(s) - 1.0;
	}
	return p;
}

/// x_world of a point of a model at pose p.
static void place(const kl_collision_pose* p, const double x[3], double out[3])
{
	for (int r = 0; r < 3; ++r)
	{
		out[r] = p->rotation[r][0] * x[0] + p->rotation[r][1] * x[1] + p->rotation[r][2] * x[2] + p->translation[r];
	}
}

/// B at rotation rb (relative to A's frame) with its box centre at A's box centre + s·u (A's frame).
static kl_collision_pose pose_b_at(const fixture* f, const kl_collision_pose* pa, const double rb[3][3],
								   const double u[3], double s)
{
	// In A's frame: x_a = rb·(x_b − cB) + cA + s·u; then into the world through pa.
	kl_collision_pose rel;
	for (int r = 0; r < 3; ++r)
	{
		double rc = rb[r][0] * f->ib.center[0] + rb[r][1] * f->ib.center[1] + rb[r][2] * f->ib.center[2];
		for (int c = 0; c < 3; ++c)
		{
			rel.rotation[r][c] = rb[r][c];
		}
		rel.translation[r] = f->ia.center[r] + s * u[r] - rc;
	}
	kl_collision_pose out;
	for (int r = 0; r < 3; ++r)
	{
		for (int c = 0; c < 3; ++c)
		{
			out.rotation[r][c] = pa->rotation[r][0] * rel.rotation[0][c] + pa->rotation[r][1] * rel.rotation[1][c] +
								 pa->rotation[r][2] * rel.rotation[2][c];
		}
	}
	place(pa, rel.translation, out.translation);
	return out;
}

// ---------------------------------------------------------------------------------------------
// The reference: every triangle pair, exact tests, B moved into A's frame as the API moves it

typedef struct frame
{
	double m[3][3];
	double t[3];
} frame;

static frame relative(const kl_collision_pose* pa, const kl_collision_pose* pb)
{
	frame r;
	double d[3];
	for (int k = 0; k < 3; ++k)
	{
		d[k] = pb->translation[k] - pa->translation[k];
	}
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			r.m[i][j] = pa->rotation[0][i] * pb->rotation[0][j] + pa->rotation[1][i] * pb->rotation[1][j] +
						pa->rotation[2][i] * pb->rotation[2][j];
		}
		r.t[i] = pa->rotation[0][i] * d[0] + pa->rotation[1][i] * d[1] + pa->rotation[2][i] * d[2];
	}
	return r;
}

static void triangle(const kl_mesh* mesh, const frame* fr, int tri, vec3s out[3])
{
	const vec3s* v = kl_mesh_vertices(mesh);
	const int32_t* idx = kl_mesh_indices(mesh);
	for (int k = 0; k < 3; ++k)
	{
		vec3s p = v[idx[3 * tri + k]];
		if (fr == NULL)
		{
			out[k] = p;
			continue;
		}
		for (int r = 0; r < 3; ++r)
		{
			out[k].raw[r] = (float)(fr->m[r][0] * p.x + fr->m[r][1] * p.y + fr->m[r][2] * p.z + fr->t[r]);
		}
	}
}

typedef struct reference
{
	bool overlap;
	double distance;
} reference;

static reference brute_force(const fixture* f, const kl_collision_pose* pa, const kl_collision_pose* pb)
{
	frame fr = relative(pa, pb);
	reference ref = {false, INFINITY};
	int na = kl_mesh_get_info(f->mesh_a).triangle_count, nb = kl_mesh_get_info(f->mesh_b).triangle_count;
	for (int i = 0; i < na; ++i)
	{
		vec3s ta[3], tb[3];
		triangle(f->mesh_a, NULL, i, ta);
		for (int j = 0; j < nb; ++j)
		{
			triangle(f->mesh_b, &fr, j, tb);
			kl_tri_distance td = kl_tri_tri_distance(ta, tb);
			ref.overlap = ref.overlap || td.overlap;
			ref.distance = fmin(ref.distance, td.overlap ? 0.0 : (double)td.distance);
		}
	}
	return ref;
}

/// Distance from a world point to a posed mesh's surface (every triangle).
static double surface_distance(const kl_mesh* mesh, const kl_collision_pose* pose, vec3s p)
{
	// Into the mesh frame: x = Rᵀ(p − t).
	double d[3] = {p.x - pose->translation[0], p.y - pose->translation[1], p.z - pose->translation[2]};
	vec3s local;
	for (int c = 0; c < 3; ++c)
	{
		local.raw[c] = (float)(pose->rotation[0][c] * d[0] + pose->rotation[1][c] * d[1] + pose->rotation[2][c] * d[2]);
	}
	double best = INFINITY;
	for (int t = 0; t < kl_mesh_get_info(mesh).triangle_count; ++t)
	{
		vec3s tri[3];
		triangle(mesh, NULL, t, tri);
		vec3s q = kl_closest_on_triangle(local, tri, NULL);
		best = fmin(best, (double)glms_vec3_distance(q, local));
	}
	return best;
}

static kl_collision_query_def query(kl_mesh_backend backend, bool exhaustive)
{
	kl_collision_query_def def = kl_default_collision_query_def();
	def.backend = backend;
	def.exhaustive = exhaustive;
	return def;
}

// ---------------------------------------------------------------------------------------------

/// Random poses from deep overlap to well apart: every path of kl_collision_test says what the
/// exhaustive exact test says, and the pair it names shares a point.
static void test_collide_agrees_with_brute_force(void** state)
{
	fixture* f = *state;
	kl_collision_scratch* scratch = kl_collision_scratch_create();
	assert_non_null(scratch);
	double reach = f->ia.radius + f->ib.radius;
	int poses = KL_QUICK ? 12 : 48, hits = 0;
	for (int i = 0; i < poses; ++i)
	{
		kl_collision_pose pa = random_pose(&f->rng);
		double rb[3][3], u[3];
		random_rotation(&f->rng, rb);
		random_direction(&f->rng, u);
		kl_collision_pose pb = pose_b_at(f, &pa, rb, u, reach * (0.2 + 1.0 * uniform(&f->rng)));
		reference ref = brute_force(f, &pa, &pb);
		hits += ref.overlap;
		for (int path = 0; path < 3; ++path)
		{
			kl_collision_query_def def = query(path == 1 ? KL_MESH_BACKEND_POINTSHELL : KL_MESH_BACKEND_BVH, path == 2);
			kl_collision_test_result r;
			assert_int_equal(kl_collision_test(f->a, &pa, f->b, &pb, &def, scratch, &r), KL_OK);
			if (r.hit != ref.overlap)
			{
				fail_msg("pose %d, path %d: collide %d, brute force %d", i, path, r.hit, ref.overlap);
			}
			assert_true(r.counters.triangle_tests > 0 || !r.hit);
			assert_int_equal(r.counters.pointshell_searches, path == 1 ? 1 : 0);
			if (r.hit)
			{
				vec3s ta[3], tb[3];
				frame fr = relative(&pa, &pb);
				triangle(f->mesh_a, NULL, r.triangle_a, ta);
				triangle(f->mesh_b, &fr, r.triangle_b, tb);
				assert_true(kl_tri_tri_overlap(ta, tb));
			}
			else
			{
				assert_int_equal(r.triangle_a, -1);
			}
		}
	}
	printf("  %d of %d poses intersect\n", hits, poses);
	assert_true(hits > 0 && hits < poses);
	kl_collision_scratch_destroy(scratch);
}

/// The distance of every path equals the minimum of the exact triangle distances, the closest
/// triangles realise it and the closest points lie on them, that far apart.
static void test_distance_agrees_with_brute_force(void** state)
{
	fixture* f = *state;
	kl_collision_scratch* scratch = kl_collision_scratch_create();
	double reach = f->ia.radius + f->ib.radius;
	double tol = 1e-6 * reach;
	int poses = KL_QUICK ? 10 : 40, apart = 0;
	for (int i = 0; i < poses; ++i)
	{
		kl_collision_pose pa = random_pose(&f->rng);
		double rb[3][3], u[3];
		random_rotation(&f->rng, rb);
		random_direction(&f->rng, u);
		kl_collision_pose pb = pose_b_at(f, &pa, rb, u, reach * (0.3 + 1.5 * uniform(&f->rng)));
		reference ref = brute_force(f, &pa, &pb);
		apart += !ref.overlap;
		for (int path = 0; path < 3; ++path)
		{
			kl_collision_query_def def = query(path == 1 ? KL_MESH_BACKEND_POINTSHELL : KL_MESH_BACKEND_BVH, path == 2);
			def.lowest_pair = (i % 2) == 0;
			kl_collision_distance_result r;
			assert_int_equal(kl_collision_distance(f->a, &pa, f->b, &pb, &def, scratch, &r), KL_OK);
			assert_near(r.distance, ref.distance, tol);
			assert_int_equal(r.intersecting, ref.overlap);
			// The closest points are that far apart and lie on the closest triangles.
			assert_near(glms_vec3_distance(r.point_a, r.point_b), r.distance, tol);
			assert_true(r.triangle_a >= 0 && r.triangle_b >= 0);
			frame fr = relative(&pa, &pb);
			vec3s ta[3], tb[3];
			triangle(f->mesh_a, NULL, r.triangle_a, ta);
			triangle(f->mesh_b, &fr, r.triangle_b, tb);
			kl_tri_distance td = kl_tri_tri_distance(ta, tb);
			assert_near(td.overlap ? 0.0 : td.distance, r.distance, tol);
			assert_true(surface_distance(f->mesh_a, &pa, r.point_a) <= tol);
			assert_true(surface_distance(f->mesh_b, &pb, r.point_b) <= tol);
			if (path == 1)
			{
				assert_true(r.counters.pointshell_searches >= 1);
			}
		}
	}
	printf("  %d of %d poses apart\n", apart, poses);
	assert_true(apart > 0 && apart < poses);
	kl_collision_scratch_destroy(scratch);
}

/// With lowest_pair, intersecting poses report the lowest intersecting pair on every path.
static void test_lowest_pair_is_the_same_everywhere(void** state)
{
	fixture* f = *state;
	double reach = f->ia.radius + f->ib.radius;
	int checked = 0;
	for (int i = 0; i < 40 && checked < (KL_QUICK ? 3 : 10); ++i)
	{
		kl_collision_pose pa = random_pose(&f->rng);
		double rb[3][3], u[3];
		random_rotation(&f->rng, rb);
		random_direction(&f->rng, u);
		kl_collision_pose pb = pose_b_at(f, &pa, rb, u, reach * 0.4 * uniform(&f->rng));
		int tri[3][2];
		bool hit = true;
		for (int path = 0; path < 3; ++path)
		{
			kl_collision_query_def def = query(path == 1 ? KL_MESH_BACKEND_POINTSHELL : KL_MESH_BACKEND_BVH, path == 2);
			def.lowest_pair = true;
			kl_collision_distance_result r;
			assert_int_equal(kl_collision_distance(f->a, &pa, f->b, &pb, &def, NULL, &r), KL_OK);
			hit = hit && r.intersecting;
			tri[path][0] = r.triangle_a, tri[path][1] = r.triangle_b;
		}
		if (hit)
		{
			for (int path = 1; path < 3; ++path)
			{
				assert_int_equal(tri[path][0], tri[0][0]);
				assert_int_equal(tri[path][1], tri[0][1]);
			}
			checked += 1;
		}
	}
	assert_true(checked > 0);
}

/// Moves B in along u from outside until the surfaces meet (a distance step never passes the outermost
/// contact), then bisects to within 1e-7 of the reach; returns that s.
static double touching_s(const fixture* f, const kl_collision_pose* pa, const double rb[3][3], const double u[3])
{
	double reach = f->ia.radius + f->ib.radius;
	double s = 1.1 * reach, s_out = s;
	for (int step = 0; step < 10000; ++step)
	{
		kl_collision_pose pb = pose_b_at(f, pa, rb, u, s);
		kl_collision_distance_result r;
		assert_int_equal(kl_collision_distance(f->a, pa, f->b, &pb, NULL, NULL, &r), KL_OK);
		if (r.intersecting)
		{
			break;
		}
		s_out = s;
		s -= fmax(r.distance, 1e-4 * reach);
	}
	double s_in = s;
	while (s_out - s_in > 1e-7 * reach)
	{
		double mid = 0.5 * (s_in + s_out);
		kl_collision_pose pb = pose_b_at(f, pa, rb, u, mid);
		kl_collision_test_result r;
		assert_int_equal(kl_collision_test(f->a, pa, f->b, &pb, NULL, NULL, &r), KL_OK);
		*(r.hit ? &s_in : &s_out) = mid;
	}
	return s_out;
}

/// Every contact point lies midway between the surfaces: stepping half its separation back along the
/// normal reaches A, forward reaches B (up to the patch normal's spread of at most 20° from the
/// contact's own).
static void check_contacts(const fixture* f, const kl_collision_pose* pa, const kl_collision_pose* pb,
						   const kl_collision_contact_result* c, double tol)
{
	int points = 0;
	float depth = 0.0f;
	for (int m = 0; m < c->manifold_count; ++m)
	{
		const kl_collision_manifold* mf = c->manifolds + m;
		assert_near(glms_vec3_norm(mf->normal), 1.0, 1e-5);
		assert_true(mf->point_count >= 1 && mf->point_count <= 4);
		for (int p = 0; p < mf->point_count; ++p)
		{
			const kl_collision_point* cp = mf->points + p;
			float s = cp->separation;
			vec3s on_a = glms_vec3_sub(cp->point, glms_vec3_scale(mf->normal, 0.5f * s));
			vec3s on_b = glms_vec3_add(cp->point, glms_vec3_scale(mf->normal, 0.5f * s));
			double slack = tol + 0.2 * fabs(s);
			assert_true(surface_distance(f->mesh_a, pa, on_a) <= slack);
			assert_true(surface_distance(f->mesh_b, pb, on_b) <= slack);
			depth = fmaxf(depth, -s);
			points += 1;
		}
	}
	assert_int_equal(points, c->point_count);
	assert_near(depth, c->depth, 0.0);
}

/// The engine's mesh contacts from every triangle pair (kl_mesh_pair_contacts, minimal contact sets),
/// with A at the identity: what the API's contacts must equal.
static int engine_contacts(const fixture* f, const kl_collision_pose* pb, float margin, kl_manifold* out)
{
	const kl_mesh* meshes[2] = {f->mesh_a, f->mesh_b};
	kl_triangle_set sets[2];
	for (int side = 0; side < 2; ++side)
	{
		const kl_mesh* m = meshes[side];
		kl_triangle_set* s = sets + side;
		memset(s, 0, sizeof(*s));
		s->bvh = m->bvh;
		s->vertices = m->vertices;
		s->vertex_count = m->info.vertex_count;
		s->indices = m->indices;
		s->opposite = m->opposite;
		s->vertex_normals = m->vertex_normals;
		s->vertex_cone_cos = m->vertex_cone_cos;
		s->scale = kl_vec3(1.0f, 1.0f, 1.0f);
		s->xf = kl_transform_identity();
	}
	mat3s r;
	for (int i = 0; i < 3; ++i)
	{
		for (int j = 0; j < 3; ++j)
		{
			r.raw[j][i] = (float)pb->rotation[i][j];
		}
	}
	sets[1].xf.q = glms_quat_normalize(glms_mat3_quat(r));
	sets[1].xf.p = kl_vec3((float)pb->translation[0], (float)pb->translation[1], (float)pb->translation[2]);
	kl_mesh_scratch scratch;
	memset(&scratch, 0, sizeof(scratch));
	for (int i = 0; i < f->mesh_a->info.triangle_count; ++i)
	{
		for (int j = 0; j < f->mesh_b->info.triangle_count; ++j)
		{
			assert_true(kl_mesh_scratch_push_pair(&scratch, i, j));
		}
	}
	kl_tri_contact_config config = kl_tri_contact_config_default();
	config.margin = margin;
	config.max_depth = (float)(0.1 * f->ia.radius);
	int count = kl_mesh_pair_contacts(sets, sets + 1, scratch.pairs, scratch.pair_count, &config, NULL, &scratch);
	assert_true(count >= 0);
	int manifolds = count > 0 ? kl_mesh_scratch_patches(&scratch, count, NULL, out, KL_COLLISION_ENGINE_MANIFOLDS) : 0;
	kl_mesh_scratch_free(&scratch);
	return manifolds;
}

/// Poses pushed 1 % of A's radius past touching, and held 1 % apart with a margin of 3 %: every path's
/// contacts equal the engine's over all triangle pairs, and lie where their separations say.
static void test_contacts_match_the_engine(void** state)
{
	fixture* f = *state;
	kl_collision_scratch* scratch = kl_collision_scratch_create();
	kl_collision_pose identity = kl_collision_pose_identity();
	double ra = f->ia.radius, tol = 1e-5 * ra;
	int poses = KL_QUICK ? 3 : 10, with_contacts = 0;
	for (int i = 0; i < 2 * poses; ++i)
	{
		bool apart = i % 2 == 1;
		double rb[3][3], u[3];
		random_rotation(&f->rng, rb);
		random_direction(&f->rng, u);
		double s = touching_s(f, &identity, rb, u) + (apart ? 0.01 : -0.01) * ra;
		kl_collision_pose pb = pose_b_at(f, &identity, rb, u, s);
		float margin = apart ? (float)(0.03 * ra) : 0.0f;
		kl_manifold engine[KL_COLLISION_ENGINE_MANIFOLDS];
		int engine_count = engine_contacts(f, &pb, margin, engine);
		for (int path = 0; path < 3; ++path)
		{
			kl_collision_query_def def = query(path == 1 ? KL_MESH_BACKEND_POINTSHELL : KL_MESH_BACKEND_BVH, path == 2);
			def.margin = margin;
			kl_collision_contact_result c;
			assert_int_equal(kl_collision_contacts(f->a, &identity, f->b, &pb, &def, scratch, &c), KL_OK);
			assert_int_equal(c.manifold_count, engine_count);
			for (int m = 0; m < engine_count; ++m)
			{
				assert_int_equal(c.manifolds[m].point_count, engine[m].point_count);
				assert_near(glms_vec3_distance(c.manifolds[m].normal, engine[m].normal), 0.0, 1e-6);
				for (int p = 0; p < engine[m].point_count; ++p)
				{
					assert_int_equal(c.manifolds[m].points[p].id, engine[m].points[p].id);
					assert_near(c.manifolds[m].points[p].separation, engine[m].points[p].separation, 0.0);
					assert_near(glms_vec3_distance(c.manifolds[m].points[p].point, engine[m].points[p].point), 0.0,
								1e-7);
				}
			}
			check_contacts(f, &identity, &pb, &c, tol);
			assert_true(c.raw_contact_count >= c.point_count);
			if (apart)
			{
				// Speculative points: no closer than the distance, no farther than the margin.
				kl_collision_distance_result d;
				assert_int_equal(kl_collision_distance(f->a, &identity, f->b, &pb, NULL, scratch, &d), KL_OK);
				assert_near(c.depth, 0.0, 0.0);
				for (int m = 0; m < c.manifold_count; ++m)
				{
					for (int p = 0; p < c.manifolds[m].point_count; ++p)
					{
						float sep = c.manifolds[m].points[p].separation;
						assert_true(sep >= d.distance - tol && sep <= margin + tol);
					}
				}
			}
			else if (c.point_count > 0)
			{
				assert_true(c.depth > 0.0f && c.depth <= 0.1 * ra);
			}
			with_contacts += path == 0 && c.point_count > 0;
		}
	}
	printf("  %d of %d poses have contact points\n", with_contacts, 2 * poses);
	assert_true(with_contacts >= poses);
	kl_collision_scratch_destroy(scratch);
}

/// A model with a tree of its own (4-ary, k = 14, longest axis, FP16) answers as the mesh's tree does,
/// and keeps its mesh alive.
static void test_model_settings(void** state)
{
	fixture* f = *state;
	kl_collision_model_def def = kl_default_collision_model_def();
	def.bvh_width = 4;
	def.bvh_k = 14;
	def.bvh_builder = KL_COLLISION_BVH_LONGEST_AXIS;
	def.bvh_fp16 = true;
	kl_mesh* mesh = kl_mesh_retain(f->mesh_a);
	kl_collision_model* own = kl_collision_model_create(mesh, &def);
	kl_mesh_release(mesh); // the model holds its own reference
	assert_non_null(own);
	kl_collision_model_info info = kl_collision_model_get_info(own);
	assert_false(info.shares_mesh_bvh);
	assert_true(f->ia.shares_mesh_bvh);
	assert_int_equal(info.bvh_width, 4);
	assert_int_equal(info.bvh_k, 14);
	assert_int_equal(info.triangle_count, f->ia.triangle_count);
	assert_true(info.has_pointshell);
	assert_ptr_equal(kl_collision_model_mesh(own), f->mesh_a);
	double reach = f->ia.radius + f->ib.radius;
	for (int i = 0; i < 16; ++i)
	{
		kl_collision_pose pa = random_pose(&f->rng);
		double rb[3][3], u[3];
		random_rotation(&f->rng, rb);
		random_direction(&f->rng, u);
		kl_collision_pose pb = pose_b_at(f, &pa, rb, u, reach * (0.2 + 1.0 * uniform(&f->rng)));
		kl_collision_test_result t1, t2;
		kl_collision_distance_result d1, d2;
		assert_int_equal(kl_collision_test(f->a, &pa, f->b, &pb, NULL, NULL, &t1), KL_OK);
		assert_int_equal(kl_collision_test(own, &pa, f->b, &pb, NULL, NULL, &t2), KL_OK);
		assert_int_equal(t1.hit, t2.hit);
		assert_int_equal(kl_collision_distance(f->a, &pa, f->b, &pb, NULL, NULL, &d1), KL_OK);
		assert_int_equal(kl_collision_distance(own, &pa, f->b, &pb, NULL, NULL, &d2), KL_OK);
		assert_near(d1.distance, d2.distance, 1e-6 * reach);
	}
	kl_collision_model_destroy(own);
}

// ---------------------------------------------------------------------------------------------
// Bad input

static void expect_refused(kl_result got, kl_result want)
{
	assert_int_equal(got, want);
	assert_int_equal(kl_last_error_code(), want);
	assert_true(strlen(kl_last_error()) > 0);
	printf("  refused: %s\n", kl_last_error());
}

static void test_bad_input(void** state)
{
	fixture* f = *state;
	kl_collision_pose id = kl_collision_pose_identity();
	kl_collision_pose apart = id;
	apart.translation[0] = 10.0;
	kl_collision_test_result t;
	kl_collision_contact_result* c = malloc(sizeof(*c));
	kl_collision_distance_result d;
	assert_non_null(c);

	// NULL arguments.
	expect_refused(kl_collision_test(NULL, &id, f->b, &apart, NULL, NULL, &t), KL_ERR_INVALID_ARGUMENT);
	assert_false(t.hit);
	assert_int_equal(t.triangle_a, -1);
	expect_refused(kl_collision_test(f->a, NULL, f->b, &apart, NULL, NULL, &t), KL_ERR_INVALID_ARGUMENT);
	expect_refused(kl_collision_contacts(f->a, &id, f->b, &apart, NULL, NULL, NULL), KL_ERR_INVALID_ARGUMENT);
	expect_refused(kl_collision_distance(f->a, &id, NULL, &apart, NULL, NULL, &d), KL_ERR_INVALID_ARGUMENT);
	assert_null(kl_collision_model_create(NULL, NULL));
	assert_int_equal(kl_last_error_code(), KL_ERR_INVALID_ARGUMENT);

	// Poses that are not finite, not rotations, or reflections.
	kl_collision_pose bad = apart;
	bad.translation[1] = NAN;
	expect_refused(kl_collision_test(f->a, &id, f->b, &bad, NULL, NULL, &t), KL_ERR_INVALID_ARGUMENT);
	bad = apart;
	bad.rotation[2][0] = INFINITY;
	expect_refused(kl_collision_distance(f->a, &bad, f->b, &apart, NULL, NULL, &d), KL_ERR_INVALID_ARGUMENT);
	bad = apart;
	bad.rotation[0][0] = 2.0;
	expect_refused(kl_collision_contacts(f->a, &id, f->b, &bad, NULL, NULL, c), KL_ERR_INVALID_ARGUMENT);
	bad = apart;
	bad.rotation[2][2] = -1.0;
	expect_refused(kl_collision_pose_check(&bad), KL_ERR_INVALID_ARGUMENT);
	kl_transform zero = {{{0.0f, 0.0f, 0.0f}}, {{0.0f, 0.0f, 0.0f, 0.0f}}};
	bad = kl_collision_pose_from_transform(zero);
	expect_refused(kl_collision_pose_check(&bad), KL_ERR_INVALID_ARGUMENT);
	kl_transform turned = {{{1.0f, 2.0f, 3.0f}}, {{0.0f, 0.0f, 0.70710678f, 0.70710678f}}};
	kl_collision_pose good = kl_collision_pose_from_transform(turned);
	assert_int_equal(kl_collision_pose_check(&good), KL_OK);
	assert_near(good.rotation[1][0], 1.0, 1e-6); // a quarter turn about z takes x to y
	assert_near(good.translation[2], 3.0, 0.0);

	// Point shells of a mesh built without them.
	kl_collision_query_def def = query(KL_MESH_BACKEND_POINTSHELL, false);
	expect_refused(kl_collision_test(f->a, &id, f->plain, &apart, &def, NULL, &t), KL_ERR_UNSUPPORTED);
	expect_refused(kl_collision_distance(f->plain, &id, f->b, &apart, &def, NULL, &d), KL_ERR_UNSUPPORTED);
	def.exhaustive = true; // needs no shells
	assert_int_equal(kl_collision_test(f->a, &id, f->plain, &apart, &def, NULL, &t), KL_OK);

	// Bad settings.
	kl_collision_query_def q = kl_default_collision_query_def();
	q.backend = (kl_mesh_backend)7;
	expect_refused(kl_collision_test(f->a, &id, f->b, &apart, &q, NULL, &t), KL_ERR_INVALID_ARGUMENT);
	q = kl_default_collision_query_def();
	q.margin = -1.0f;
	expect_refused(kl_collision_contacts(f->a, &id, f->b, &apart, &q, NULL, c), KL_ERR_INVALID_ARGUMENT);
	q = kl_default_collision_query_def();
	q.max_depth = NAN;
	expect_refused(kl_collision_contacts(f->a, &id, f->b, &apart, &q, NULL, c), KL_ERR_INVALID_ARGUMENT);
	q = kl_default_collision_query_def();
	q.max_manifolds = KL_COLLISION_MAX_MANIFOLDS + 1;
	expect_refused(kl_collision_contacts(f->a, &id, f->b, &apart, &q, NULL, c), KL_ERR_INVALID_ARGUMENT);
	kl_collision_model_def md = kl_default_collision_model_def();
	md.bvh_width = 3;
	assert_null(kl_collision_model_create(f->mesh_a, &md));
	expect_refused(kl_last_error_code(), KL_ERR_INVALID_ARGUMENT);
	md = kl_default_collision_model_def();
	md.bvh_k = 20;
	assert_null(kl_collision_model_create(f->mesh_a, &md));
	expect_refused(kl_last_error_code(), KL_ERR_INVALID_ARGUMENT);
	md = kl_default_collision_model_def();
	md.bvh_builder = (kl_collision_bvh_builder)9;
	assert_null(kl_collision_model_create(f->mesh_a, &md));
	expect_refused(kl_last_error_code(), KL_ERR_INVALID_ARGUMENT);

	// A query that succeeds leaves the last error as it was; NULL handles are ignored.
	const char* before = kl_last_error();
	char saved[512];
	snprintf(saved, sizeof(saved), "%s", before);
	assert_int_equal(kl_collision_distance(f->a, &id, f->b, &apart, NULL, NULL, &d), KL_OK);
	assert_true(d.distance > 9.0 && d.distance < 10.0 && !d.intersecting);
	assert_string_equal(kl_last_error(), saved);
	kl_collision_model_info none = kl_collision_model_get_info(NULL);
	assert_int_equal(none.triangle_count, 0);
	assert_null(kl_collision_model_mesh(NULL));
	kl_collision_model_destroy(NULL);
	kl_collision_scratch_destroy(NULL);
	free(c);
}

/// Every allocation of a query (and of a model) failing in turn: the call fails with
/// KL_ERR_OUT_OF_MEMORY or succeeds with the right answer, and never crashes.
static void test_out_of_memory(void** state)
{
	fixture* f = *state;
	kl_collision_pose id = kl_collision_pose_identity();
	double rb[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, u[3] = {1, 0, 0};
	double s = touching_s(f, &id, rb, u) - 0.01 * f->ia.radius;
	kl_collision_pose pb = pose_b_at(f, &id, rb, u, s);
	kl_collision_contact_result* want = malloc(sizeof(*want));
	kl_collision_contact_result* got = malloc(sizeof(*got));
	assert_true(want != NULL && got != NULL);
	for (int path = 0; path < 3; ++path)
	{
		kl_collision_query_def def = query(path == 1 ? KL_MESH_BACKEND_POINTSHELL : KL_MESH_BACKEND_BVH, path == 2);
		assert_int_equal(kl_collision_contacts(f->a, &id, f->b, &pb, &def, NULL, want), KL_OK);
		kl_collision_distance_result dwant, dgot;
		kl_collision_pose far = pb;
		far.translation[0] += 0.2 * f->ia.radius;
		assert_int_equal(kl_collision_distance(f->a, &id, f->b, &far, &def, NULL, &dwant), KL_OK);
		int failures = 0;
		for (long n = 0;; ++n)
		{
			kl_fail_allocation(n);
			kl_result rc = kl_collision_contacts(f->a, &id, f->b, &pb, &def, NULL, got);
			kl_result rd = kl_collision_distance(f->a, &id, f->b, &far, &def, NULL, &dgot);
			bool fired = kl_fail_allocation_countdown() < 0;
			kl_fail_allocation(-1);
			assert_true(rc == KL_OK || rc == KL_ERR_OUT_OF_MEMORY);
			assert_true(rd == KL_OK || rd == KL_ERR_OUT_OF_MEMORY);
			if (rc == KL_OK)
			{
				assert_int_equal(got->point_count, want->point_count);
				assert_near(got->depth, want->depth, 0.0);
			}
			if (rd == KL_OK)
			{
				assert_near(dgot.distance, dwant.distance, 0.0);
			}
			failures += (rc != KL_OK) + (rd != KL_OK);
			if (!fired)
			{
				break;
			}
		}
		printf("  path %d: %d calls failed cleanly\n", path, failures);
		assert_true(failures > 0);
	}
	for (long n = 0;; ++n)
	{
		kl_fail_allocation(n);
		kl_collision_model_def def = kl_default_collision_model_def();
		def.bvh_width = 4;
		kl_collision_model* m = kl_collision_model_create(f->mesh_a, &def);
		bool fired = kl_fail_allocation_countdown() < 0;
		kl_fail_allocation(-1);
		assert_true(m != NULL || kl_last_error_code() == KL_ERR_OUT_OF_MEMORY);
		kl_collision_model_destroy(m);
		if (!fired)
		{
			break;
		}
	}
	free(want);
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_collide_agrees_with_brute_force),
		cmocka_unit_test(test_distance_agrees_with_brute_force),
		cmocka_unit_test(test_lowest_pair_is_the_same_everywhere),
		cmocka_unit_test(test_contacts_match_the_engine),
		cmocka_unit_test(test_model_settings),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_out_of_memory),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
