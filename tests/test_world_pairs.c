// The world's broadphase stage against brute force: every step, the pair set equals the set of
// shape pairs whose fat bounds overlap and that the collision rules allow.
#include "broadphase.h"
#include "world.h"
#include "world_pairs.h"

#include <kollide/kollide.h>

#include <stdlib.h>
#include <string.h>
#include "kl_test.h"

static bool overlap(kl_aabb a, kl_aabb b)
{
	return a.lower.x <= b.upper.x && b.lower.x <= a.upper.x && a.lower.y <= b.upper.y && b.lower.y <= a.upper.y &&
		   a.lower.z <= b.upper.z && b.lower.z <= a.upper.z;
}

static int compare_pairs(const void* a, const void* b)
{
	const kl_pair* p = a;
	const kl_pair* q = b;
	if (p->user_a != q->user_a)
	{
		return p->user_a < q->user_a ? -1 : 1;
	}
	return (p->user_b > q->user_b) - (p->user_b < q->user_b);
}

/// Awake flags by body slot as of the last broadphase update: the narrowphase later in the step
/// may wake bodies, and the pair set sees that only at the next update.
static bool s_awake_at_update[4096];

static void snapshot_awake(kl_world_id id)
{
	kl_world* world = kl_get_world(id);
	int slots = kl_id_pool_slot_count(&world->body_pool);
	for (int i = 0; i < slots && i < 4096; ++i)
	{
		s_awake_at_update[i] = world->bodies[i].id >= 0 && world->bodies[i].is_awake;
	}
}

/// Sleeping bodies rest in the broadphase like static ones: pairs need one moving proxy.
static bool is_moving(const kl_world* world, const kl_shape* shape)
{
	const kl_body* body = &world->bodies[shape->body];
	return body->type != KL_BODY_STATIC && s_awake_at_update[shape->body];
}

/// Brute-force pairs of the world's current proxies (fat bounds as the broadphase sees them).
static int brute_force_pairs(kl_world* world, kl_pair* out)
{
	int n = 0, slots = kl_id_pool_slot_count(&world->shape_pool);
	for (int i = 0; i < slots; ++i)
	{
		const kl_shape* a = &world->shapes[i];
		if (a->id < 0)
		{
			continue;
		}
		for (int j = i + 1; j < slots; ++j)
		{
			const kl_shape* b = &world->shapes[j];
			if (b->id < 0 || !kl_shapes_should_collide(world, a, b) || (!is_moving(world, a) && !is_moving(world, b)))
			{
				continue;
			}
			if (overlap(kl_broadphase_get_aabb(world->broadphase, a->proxy_key),
						kl_broadphase_get_aabb(world->broadphase, b->proxy_key)))
			{
				out[n++] = (kl_pair){i, j};
			}
		}
	}
	qsort(out, (size_t)n, sizeof(kl_pair), compare_pairs);
	return n;
}

static void check_pairs(kl_world_id id, kl_pair* scratch)
{
	kl_world* world = kl_get_world(id);
	int count = 0;
	const kl_pair* pairs = kl_broadphase_get_pairs(world->broadphase, &count);
	int expected = brute_force_pairs(world, scratch);
	assert_int_equal(count, expected);
	assert_memory_equal(pairs, scratch, (size_t)count * sizeof(kl_pair));
	assert_int_equal(kl_world_get_counters(id).pair_count, count);
}

static uint32_t lcg(uint32_t* s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s >> 8;
}

static float uniform(uint32_t* s)
{
	return (float)lcg(s) / 16777216.0f;
}

// Boxes and spheres rain onto a static floor of boxes inside a small volume, with category masks,
// groups, a joint that disables collision, type changes, sleeping, teleports, and removals.
static void test_world_pairs_match_brute_force(void** state)
{
	(void)state;
	kl_world_def wd = kl_default_world_def();
	wd.enable_sleep = false; // automatic sleep changes proxy kinds after the pair update
	wd.gravity = kl_vec3(0.0f, 0.0f, -3.0f);
	wd.worker_count = 2;
	kl_world_id world = kl_create_world(&wd);
	uint32_t seed = 7u;
	kl_shape_def sd = kl_default_shape_def();
	kl_body_def ground = kl_default_body_def();
	for (int i = 0; i < 16; ++i)
	{
		ground.position = kl_vec3((float)(i % 4) * 1.5f, (float)(i / 4) * 1.5f, 0.0f);
		kl_body_id g = kl_create_body(world, &ground);
		kl_create_box_shape(g, &sd, kl_vec3(0.8f, 0.8f, 0.2f)); // neighbours overlap: static-static
	}
	enum { N = 120 };
	kl_body_id bodies[N];
	for (int i = 0; i < N; ++i)
	{
		kl_body_def bd = kl_default_body_def();
		bd.type = i % 10 == 0 ? KL_BODY_KINEMATIC : KL_BODY_DYNAMIC;
		// One draw per declaration: a call's arguments have no order of evaluation in C.
		float x = uniform(&seed), y = uniform(&seed), z = uniform(&seed);
		bd.position = kl_vec3(5.0f * x, 5.0f * y, 0.5f + 4.0f * z);
		float vx = uniform(&seed), vy = uniform(&seed);
		bd.linear_velocity = kl_vec3(vx - 0.5f, vy - 0.5f, 0.0f);
		bodies[i] = kl_create_body(world, &bd);
		kl_shape_def s = sd;
		s.filter.category_bits = 1u << (i % 3);
		s.filter.mask_bits = i % 7 == 0 ? 0x3u : UINT64_MAX;
		s.filter.group_index = i % 11 == 0 ? -1 : (i % 13 == 0 ? 2 : 0);
		if (i % 2)
		{
			kl_create_box_shape(bodies[i], &s, kl_vec3(0.2f, 0.3f, 0.2f));
		}
		else
		{
			kl_create_sphere_shape(bodies[i], &s, 0.25f);
			s.local_pose.p = kl_vec3(0.3f, 0.0f, 0.0f);
			kl_create_sphere_shape(bodies[i], &s, 0.1f); // compound: no pair with itself
		}
	}
	kl_joint_def jd = kl_joint_def_from_world(KL_JOINT_SPHERICAL, bodies[1], bodies[3], kl_vec3(0, 0, 1), kl_vec3(0, 0, 1));
	kl_joint_id joint = kl_create_joint(world, &jd);
	kl_pair* scratch = malloc(sizeof(kl_pair) * 200 * 200);
	for (int step = 0; step < 400; ++step)
	{
		snapshot_awake(world);
		assert_int_equal(kl_world_step(world, 1.0f / 60.0f, 2), KL_OK);
		check_pairs(world, scratch);
		kl_body_id b = bodies[lcg(&seed) % N];
		switch (step % 50)
		{
			case 5: kl_body_set_transform(b, kl_vec3(2.0f, 2.0f, 1.0f), glms_quat_identity()); break; // teleport
			case 10: kl_body_set_awake(b, false); break;
			case 15: kl_body_set_awake(b, true); break;
			case 20: kl_body_set_type(b, KL_BODY_STATIC); break;
			case 25: kl_body_set_type(b, KL_BODY_DYNAMIC); break;
			case 30:
			{
				kl_shape_id shapes[2];
				if (kl_body_get_shapes(b, shapes, 2) > 0)
				{
					kl_filter f = kl_shape_get_filter(shapes[0]);
					f.mask_bits ^= 0x2u;
					kl_shape_set_filter(shapes[0], f);
				}
				break;
			}
			case 35:
				if (kl_joint_is_valid(joint))
				{
					kl_destroy_joint(joint);
				}
				break;
			case 40:
			{
				int k = (int)(lcg(&seed) % N);
				kl_destroy_body(bodies[k]);
				kl_body_def bd = kl_default_body_def();
				bd.type = KL_BODY_DYNAMIC;
				bd.position = kl_vec3(2.5f, 2.5f, 4.0f);
				bodies[k] = kl_create_body(world, &bd);
				kl_create_box_shape(bodies[k], &sd, kl_vec3(0.3f, 0.3f, 0.3f));
				break;
			}
			default: break;
		}
		kl_clear_error();
		// Bodies that fell far are lifted back so the volume stays crowded.
		for (int i = 0; i < N; ++i)
		{
			if (kl_body_is_valid(bodies[i]) && kl_body_get_position(bodies[i]).z < -2.0f)
			{
				vec3s p = kl_body_get_position(bodies[i]);
				kl_body_set_transform(bodies[i], kl_vec3(p.x, p.y, 4.0f), kl_body_get_rotation(bodies[i]));
			}
		}
	}
	free(scratch);
	kl_destroy_world(world);
}

// Bodies on the same side of a joint that disables collision never pair; collide_connected does.
static void test_joint_filter(void** state)
{
	(void)state;
	kl_world_def wd = kl_default_world_def();
	wd.enable_sleep = false; // automatic sleep changes proxy kinds after the pair update
	wd.gravity = kl_vec3(0, 0, 0);
	kl_world_id id = kl_create_world(&wd);
	kl_shape_def sd = kl_default_shape_def();
	kl_body_def bd = kl_default_body_def();
	bd.type = KL_BODY_DYNAMIC;
	kl_body_id a = kl_create_body(id, &bd);
	kl_create_box_shape(a, &sd, kl_vec3(1, 1, 1));
	bd.position = kl_vec3(0.5f, 0, 0);
	kl_body_id b = kl_create_body(id, &bd);
	kl_create_box_shape(b, &sd, kl_vec3(1, 1, 1));
	kl_world_step(id, 0.0f, 1);
	assert_int_equal(kl_world_get_counters(id).pair_count, 1);
	kl_joint_def jd = kl_joint_def_from_world(KL_JOINT_REVOLUTE, a, b, kl_vec3(0, 0, 0), kl_vec3(0, 0, 1));
	kl_joint_id joint = kl_create_joint(id, &jd);
	kl_world_step(id, 0.0f, 1);
	assert_int_equal(kl_world_get_counters(id).pair_count, 0);
	kl_destroy_joint(joint);
	jd.collide_connected = true;
	kl_create_joint(id, &jd);
	kl_world_step(id, 0.0f, 1);
	assert_int_equal(kl_world_get_counters(id).pair_count, 1);
	kl_destroy_world(id);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_world_pairs_match_brute_force),
		cmocka_unit_test(test_joint_filter),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
