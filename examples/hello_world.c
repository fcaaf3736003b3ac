// Hello world: a ball dropped on the ground comes to rest on it.
// Build: cc hello_world.c $(pkg-config --cflags --libs kollide)
#include <kollide/kollide.h>

#include <math.h>
#include <stdio.h>

int main(void)
{
	kl_world_def world_def = kl_default_world_def(); // z up, gravity -9.81
	kl_world_id world = kl_create_world(&world_def);

	kl_body_def ground_def = kl_default_body_def(); // static by default
	kl_body_id ground = kl_create_body(world, &ground_def);
	kl_shape_def shape_def = kl_default_shape_def(); // density 1000, friction 0.6
	kl_create_box_shape(ground, &shape_def, kl_vec3(20.0f, 20.0f, 0.5f)); // half extents

	kl_body_def ball_def = kl_default_body_def();
	ball_def.type = KL_BODY_DYNAMIC;
	ball_def.position = kl_vec3(0.0f, 0.0f, 4.0f);
	kl_body_id ball = kl_create_body(world, &ball_def);
	if (KL_IS_NULL(kl_create_sphere_shape(ball, &shape_def, 0.25f)))
	{
		fprintf(stderr, "%s\n", kl_last_error());
		return 1;
	}

	for (int i = 0; i < 120; ++i)
	{
		kl_world_step(world, 1.0f / 60.0f, 4); // dt, sub-steps
	}
	float z = kl_body_get_position(ball).z;
	printf("kollide %s: the ball rests at z = %.3f\n", kl_version_string(), z);
	kl_destroy_world(world);
	return fabsf(z - 0.75f) < 0.01f ? 0 : 1; // ground top 0.5 + radius 0.25
}
