// Kollide scenes — helpers shared by the demo scenes (demo_common.h).
// SPDX-License-Identifier: MIT
#include "demo_common.h"

#include <math.h>

versors kl_demo_random_rotation(kl_demo_rng* rng)
{
	for (;;)
	{
		vec3s v = kl_demo_random_vec3(rng, kl_vec3(-1.0f, -1.0f, -1.0f), kl_vec3(1.0f, 1.0f, 1.0f));
		versors q = {{v.x, v.y, v.z, kl_demo_random(rng, -1.0f, 1.0f)}};
		float n2 = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
		if (n2 > 0.01f && n2 <= 1.0f)
		{
			return glms_quat_normalize(q);
		}
	}
}

kl_body_id kl_demo_add_body(kl_world_id world, kl_body_type type, vec3s position, versors rotation)
{
	kl_body_def bd = kl_default_body_def();
	bd.type = type;
	bd.position = position;
	bd.rotation = rotation;
	return kl_create_body(world, &bd);
}

kl_hull* kl_demo_make_rock(kl_demo_rng* rng, vec3s radii, int count)
{
	vec3s points[64];
	count = count < 64 ? count : 64;
	for (int i = 0; i < count; ++i)
	{
		// Uniform on the sphere: z uniform in [−1, 1], azimuth uniform.
		float z = kl_demo_random(rng, -1.0f, 1.0f);
		float a = kl_demo_random(rng, 0.0f, 2.0f * GLM_PIf);
		float r = sqrtf(fmaxf(0.0f, 1.0f - z * z));
		float s = kl_demo_random(rng, 0.8f, 1.0f);
		points[i] = kl_vec3(s * radii.x * r * cosf(a), s * radii.y * r * sinf(a), s * radii.z * z);
	}
	return kl_hull_build(points, count);
}
