// World queries: a row of boxes and spheres on the ground, then what a game or a robot cell asks of
// it — which shapes are in a region, which a swept box would meet first, what a ray passes through.
// Build: cc queries.c $(pkg-config --cflags --libs kollide)
#include <kollide/kollide.h>

#include <stdio.h>

static bool count_shape(kl_shape_id shape, void* context)
{
	(void)shape;
	++*(int*)context;
	return true; // go on
}

typedef struct closest_hit
{
	kl_shape_id shape;
	float fraction;
} closest_hit;

// Clipping to each hit's fraction makes the last reported hit the closest one.
static float keep_closest(kl_shape_id shape, vec3s point, vec3s normal, float fraction, void* context)
{
	(void)point;
	(void)normal;
	closest_hit* best = context;
	best->shape = shape;
	best->fraction = fraction;
	return fraction;
}

static float count_hit(kl_shape_id shape, vec3s point, vec3s normal, float fraction, void* context)
{
	(void)shape;
	(void)point;
	(void)normal;
	(void)fraction;
	++*(int*)context;
	return 1.0f; // every hit, no clipping
}

int main(void)
{
	kl_world_def world_def = kl_default_world_def();
	kl_world_id world = kl_create_world(&world_def);
	kl_shape_def shape_def = kl_default_shape_def();
	kl_body_def ground_def = kl_default_body_def();
	kl_create_box_shape(kl_create_body(world, &ground_def), &shape_def, kl_vec3(20.0f, 20.0f, 0.5f));

	// Five boxes and five spheres along x, resting on the ground (top at z = 0.5).
	for (int i = 0; i < 10; ++i)
	{
		kl_body_def body_def = kl_default_body_def();
		body_def.type = KL_BODY_DYNAMIC;
		body_def.position = kl_vec3(2.0f * (float)i, 0.0f, 1.0f);
		kl_body_id body = kl_create_body(world, &body_def);
		if (i % 2 == 0)
			kl_create_box_shape(body, &shape_def, kl_vec3(0.5f, 0.5f, 0.5f));
		else
			kl_create_sphere_shape(body, &shape_def, 0.5f);
	}
	for (int i = 0; i < 60; ++i)
		kl_world_step(world, 1.0f / 60.0f, 4);

	// 1. Which shapes' bounds reach into the region x in [3, 9], just above the ground?
	int in_region = 0;
	kl_aabb region = {kl_vec3(3.0f, -1.0f, 0.6f), kl_vec3(9.0f, 1.0f, 2.0f)};
	kl_world_overlap_aabb(world, region, kl_default_filter(), count_shape, &in_region);

	// 2. Which shapes does a sphere of radius 1.2 at x = 10 overlap exactly?
	int overlapping = 0;
	kl_shape_proxy ball = kl_make_sphere_proxy(1.2f);
	kl_transform at = {kl_vec3(10.0f, 0.0f, 1.0f), glms_quat_identity()};
	kl_world_overlap_shape(world, &ball, at, kl_default_filter(), count_shape, &overlapping);

	// 3. A box swept along +x from x = -3: what does it meet first, and after how far?
	closest_hit first = {{0}, 1.0f};
	kl_shape_proxy box = kl_make_box_proxy(kl_vec3(0.4f, 0.4f, 0.4f));
	kl_transform start = {kl_vec3(-3.0f, 0.0f, 1.0f), glms_quat_identity()};
	kl_world_cast_shape(world, &box, start, kl_vec3(30.0f, 0.0f, 0.0f), kl_default_filter(), keep_closest, &first);

	// 4. A ray along the row passes through every body.
	int ray_hits = 0;
	kl_world_cast_ray_all(world, kl_vec3(-3.0f, 0.0f, 1.0f), kl_vec3(30.0f, 0.0f, 0.0f), kl_default_filter(),
						  count_hit, &ray_hits);

	float travel = 30.0f * first.fraction;
	printf("in region: %d, overlapping the ball: %d, swept box stops after %.2f m, ray hits: %d\n", in_region,
		   overlapping, travel, ray_hits);
	kl_destroy_world(world);
	// Boxes stand at x = 0, 4, 8, ..., spheres at 2, 6, 10, ...: the region holds the bodies at 4, 6
	// and 8; the ball at x = 10 overlaps the sphere there and the ground (the boxes at 8 and 12 are
	// 1.5 m from its centre); the swept box's front face starts at -2.6 and meets the first box's
	// face at -0.5 after 2.1 m (a cast stops a fraction of a millimetre short); the ray meets all ten.
	return in_region == 3 && overlapping == 2 && travel > 2.09f && travel <= 2.1f && ray_hits == 10 ? 0 : 1;
}
