// Drops a ball for one second and checks that it fell as far as gravity says.
#include <kollide/kollide.h>

#include <math.h>
#include <stdio.h>

int main(void)
{
	kl_world_def wd = kl_default_world_def();
	kl_world_id world = kl_create_world(&wd);
	kl_body_def bd = kl_default_body_def();
	bd.type = KL_BODY_DYNAMIC;
	bd.position = kl_vec3(0.0f, 0.0f, 10.0f);
	kl_body_id ball = kl_create_body(world, &bd);
	kl_shape_def sd = kl_default_shape_def();
	kl_create_sphere_shape(ball, &sd, 0.25f);
	for (int i = 0; i < 60; ++i)
	{
		kl_world_step(world, 1.0f / 60.0f, 4);
	}
	float z = kl_body_get_position(ball).z;
	printf("kollide %s: z after 1 s = %.3f\n", kl_version_string(), z);
	kl_destroy_world(world);
	return fabsf(z - (10.0f - 4.905f)) < 0.05f ? 0 : 1;
}
