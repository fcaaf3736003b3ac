// libFuzzer target: URDF files (kl_urdf_parse). A model that parses must be a tree (every link
// reached once from the root, parents first, indices in range, unit axes, finite numbers), its
// forward kinematics finite, and it must either become a robot in a world or be refused leaving
// the world empty; a robot then steps with finite poses and is destroyed without a trace.
// docs/fuzzing.md says how to run it.
// SPDX-License-Identifier: MIT
#include "fuzz_check.h"

#include <string.h>

/// Where package:// and relative mesh names resolve (assets/robots: the kollide_arm package).
#ifndef KL_FUZZ_ROBOTS_DIR
#error "KL_FUZZ_ROBOTS_DIR names the directory of the robots' packages"
#endif

#define KL_FUZZ_URDF_MAX_BYTES (64 * 1024)

static void check_model(const kl_urdf_model* m)
{
	KL_FUZZ_CHECK(m->link_count > 0 && m->link_count <= KL_URDF_MAX_LINKS, "link count %d", m->link_count);
	KL_FUZZ_CHECK(m->joint_count == m->link_count - 1, "%d joints for %d links", m->joint_count, m->link_count);
	bool* seen = calloc((size_t)m->link_count, sizeof(bool));
	for (int k = 0; k < m->link_count; ++k)
	{
		int link = m->link_order[k];
		KL_FUZZ_CHECK(link >= 0 && link < m->link_count && !seen[link], "link order %d: %d", k, link);
		int j = m->links[link].parent_joint;
		KL_FUZZ_CHECK((k == 0) == (j < 0), "link %d's parent joint %d", link, j);
		KL_FUZZ_CHECK(j < 0 || (m->joints[j].child == link && seen[m->joints[j].parent]), "joint %d out of order", j);
		seen[link] = true;
	}
	free(seen);
	for (int j = 0; j < m->joint_count; ++j)
	{
		const kl_urdf_joint* jt = &m->joints[j];
		double n = sqrt(jt->axis[0] * jt->axis[0] + jt->axis[1] * jt->axis[1] + jt->axis[2] * jt->axis[2]);
		KL_FUZZ_CHECK(jt->type == KL_URDF_FIXED || fabs(n - 1.0) < 1e-9, "joint %d axis length %g", j, n);
		KL_FUZZ_CHECK(!jt->has_limit || jt->lower <= jt->upper, "joint %d limits", j);
	}
}

static bool finite_transform(kl_transform t)
{
	return isfinite(t.p.x) && isfinite(t.p.y) && isfinite(t.p.z) && isfinite(t.q.x) && isfinite(t.q.y) &&
		   isfinite(t.q.z) && isfinite(t.q.w);
}

static void run_robot(const kl_urdf_model* m, kl_robot_drive drive)
{
	kl_world_def wd = kl_default_world_def();
	wd.worker_count = 1;
	kl_world_id world = kl_create_world(&wd);
	kl_robot_def def = kl_default_robot_def();
	def.drive = drive;
	kl_robot* robot = kl_robot_create(world, m, &def);
	if (robot == NULL)
	{
		KL_FUZZ_CHECK(kl_world_get_bodies(world, NULL, 0) == 0, "a refused robot left bodies");
		kl_destroy_world(world);
		return;
	}
	double* q = calloc((size_t)m->joint_count + 1, sizeof(double));
	kl_robot_get_joint_positions(robot, q);
	for (int j = 0; j < m->joint_count; ++j)
	{
		KL_FUZZ_CHECK(isfinite(q[j]), "joint %d position %g", j, q[j]);
	}
	for (int step = 0; step < 2; ++step)
	{
		kl_robot_set_joint_positions(robot, q, 1.0f / 60.0f);
		KL_FUZZ_CHECK(kl_world_step(world, 1.0f / 60.0f, 2) == KL_OK, "step failed");
	}
	for (int i = 0; i < m->link_count; ++i)
	{
		KL_FUZZ_CHECK(finite_transform(kl_body_get_transform(kl_robot_get_body(robot, i))), "link %d pose", i);
	}
	free(q);
	kl_robot_destroy(robot);
	KL_FUZZ_CHECK(kl_world_get_bodies(world, NULL, 0) == 0, "a destroyed robot left bodies");
	kl_destroy_world(world);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	if (size > KL_FUZZ_URDF_MAX_BYTES)
	{
		return 0;
	}
	const char* paths[] = {KL_FUZZ_ROBOTS_DIR};
	kl_urdf_load_options options = kl_default_urdf_load_options();
	options.package_paths = paths;
	options.package_path_count = 1;
	options.base_dir = KL_FUZZ_ROBOTS_DIR "/kollide_arm";
	// The text is not NUL-terminated: the parser must stay within size.
	kl_urdf_model* m = kl_urdf_parse((const char*)data, size, &options);
	if (m == NULL)
	{
		KL_FUZZ_CHECK(kl_last_error()[0] != '\0', "refused without a message");
		return 0;
	}
	check_model(m);
	kl_transform* poses = calloc((size_t)m->link_count, sizeof(kl_transform));
	KL_FUZZ_CHECK(kl_urdf_forward_kinematics(m, NULL, poses) == KL_OK, "zero-pose FK failed");
	for (int i = 0; i < m->link_count; ++i)
	{
		KL_FUZZ_CHECK(finite_transform(poses[i]), "FK of link %d", i);
	}
	free(poses);
	run_robot(m, (size & 1) != 0 ? KL_ROBOT_DRIVE_MOTOR : KL_ROBOT_DRIVE_KINEMATIC);
	kl_urdf_model_free(m);
	return 0;
}
