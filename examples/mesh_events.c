// A mesh body: an octahedron built from triangles falls onto the ground; contact begin events say
// when it lands, and a ray cast from above finds its top.
// Build: cc mesh_events.c $(pkg-config --cflags --libs kollide)
#include <kollide/kollide.h>

#include <math.h>
#include <stdio.h>

int main(void)
{
	kl_world_def world_def = kl_default_world_def();
	kl_world_id world = kl_create_world(&world_def);

	kl_shape_def shape_def = kl_default_shape_def();
	shape_def.enable_contact_events = true; // both shapes of a pair must ask for events
	kl_body_def ground_def = kl_default_body_def();
	kl_create_box_shape(kl_create_body(world, &ground_def), &shape_def, kl_vec3(10.0f, 10.0f, 0.5f));

	// An octahedron of radius 0.5 m, triangles counter-clockwise seen from outside.
	const vec3s vertices[6] = {{{0.5f, 0, 0}}, {{-0.5f, 0, 0}}, {{0, 0.5f, 0}},
							   {{0, -0.5f, 0}}, {{0, 0, 0.5f}}, {{0, 0, -0.5f}}};
	const int32_t indices[24] = {0, 2, 4, 2, 1, 4, 1, 3, 4, 3, 0, 4, 2, 0, 5, 1, 2, 5, 3, 1, 5, 0, 3, 5};
	kl_mesh_def mesh_def = kl_default_mesh_def();
	mesh_def.vertices = vertices;
	mesh_def.vertex_count = 6;
	mesh_def.indices = indices;
	mesh_def.triangle_count = 8;
	kl_mesh* mesh = kl_mesh_build(&mesh_def);
	if (mesh == NULL)
	{
		fprintf(stderr, "mesh: %s\n", kl_last_error());
		return 1;
	}
	kl_body_def body_def = kl_default_body_def();
	body_def.type = KL_BODY_DYNAMIC;
	body_def.position = kl_vec3(0.0f, 0.0f, 2.0f);
	kl_body_id body = kl_create_body(world, &body_def);
	kl_create_mesh_shape(body, &shape_def, mesh, kl_vec3(1.0f, 1.0f, 1.0f)); // the shape holds a reference
	kl_mesh_release(mesh);

	int landed_step = -1;
	for (int step = 0; step < 180; ++step)
	{
		kl_world_step(world, 1.0f / 60.0f, 4);
		kl_contact_events events = kl_world_get_contact_events(world);
		if (events.begin_count > 0 && landed_step < 0)
		{
			landed_step = step;
			printf("landed at step %d, touching at z = %.3f\n", step, events.begin_events[0].point.z);
		}
	}

	kl_ray_hit hit;
	bool found = kl_world_cast_ray(world, kl_vec3(0.0f, 0.0f, 5.0f), kl_vec3(0.0f, 0.0f, -10.0f), kl_default_filter(),
								   &hit);
	printf("ray from z = 5 hits z = %.3f\n", found ? hit.point.z : NAN);
	kl_destroy_world(world);
	// On the ground's top (z = 0.5) it stands on a vertex (top at 1.5) or lies on a face (top at 1.08).
	return landed_step > 0 && found && hit.point.z > 1.0f && hit.point.z < 1.55f ? 0 : 1;
}
