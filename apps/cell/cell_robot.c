// Kollide robot cell — the robot actuator: a URDF robot of the scene driven kinematically from
// holding registers, either one register per moving joint (angles streamed by the PLC) or three
// registers of a Cartesian offset of one link from its taught pose, turned into joint positions by
// damped least-squares inverse kinematics on the model's forward kinematics.
// SPDX-License-Identifier: MIT
#include "cell.h"

#include <kollide/urdf.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

/// Most joints on the chain from the root to the Cartesian link.
#define KL_CELL_IK_MAX_CHAIN 16
/// Damping of the least-squares step (m or rad): keeps steps bounded near singular poses.
#define KL_CELL_IK_DAMPING 0.01
#define KL_CELL_IK_ITERATIONS 20
/// Position (m) and orientation (rad) errors below which the solve stops.
#define KL_CELL_IK_TOLERANCE 1e-6

/// Solves a·x = b for an n × n system (n ≤ KL_CELL_IK_MAX_CHAIN, row-major a) by Gaussian
/// elimination with partial pivoting; false when singular.
static bool solve_dense(double* a, double* b, int n)
{
	for (int c = 0; c < n; ++c)
	{
		int pivot = c;
		for (int r = c + 1; r < n; ++r)
		{
			pivot = fabs(a[r * n + c]) > fabs(a[pivot * n + c]) ? r : pivot;
		}
		if (fabs(a[pivot * n + c]) < 1e-12)
		{
			return false;
		}
		for (int k = 0; k < n; ++k)
		{
			double t = a[c * n + k];
			a[c * n + k] = a[pivot * n + k];
			a[pivot * n + k] = t;
		}
		double t = b[c];
		b[c] = b[pivot];
		b[pivot] = t;
		for (int r = c + 1; r < n; ++r)
		{
			double f = a[r * n + c] / a[c * n + c];
			for (int k = c; k < n; ++k)
			{
				a[r * n + k] -= f * a[c * n + k];
			}
			b[r] -= f * b[c];
		}
	}
	for (int r = n - 1; r >= 0; --r)
	{
		for (int k = r + 1; k < n; ++k)
		{
			b[r] -= a[r * n + k] * b[k];
		}
		b[r] /= a[r * n + r];
	}
	return true;
}

/// The moving joints from the root to link, root first; their count (-1: too many).
static int chain_of(const kl_urdf_model* model, int link, int* chain)
{
	int count = 0;
	for (int j = model->links[link].parent_joint; j >= 0; j = model->links[model->joints[j].parent].parent_joint)
	{
		if (!kl_urdf_joint_moves(&model->joints[j]))
		{
			continue;
		}
		if (count == KL_CELL_IK_MAX_CHAIN)
		{
			return -1;
		}
		chain[count++] = j;
	}
	for (int i = 0; i < count / 2; ++i)
	{
		int t = chain[i];
		chain[i] = chain[count - 1 - i];
		chain[count - 1 - i] = t;
	}
	return count;
}

/// The pose error of the link (target minus current: position, then rotation vector), both in
/// the model's root frame; returns its largest component.
static double pose_error(kl_transform current, kl_transform target, double e[6])
{
	versors d = glms_quat_mul(target.q, glms_quat_conjugate(current.q));
	float sign = d.w < 0.0f ? -2.0f : 2.0f;
	vec3s dp = glms_vec3_sub(target.p, current.p);
	double v[6] = {dp.x, dp.y, dp.z, sign * d.x, sign * d.y, sign * d.z};
	double largest = 0.0;
	for (int i = 0; i < 6; ++i)
	{
		e[i] = v[i];
		largest = fabs(v[i]) > largest ? fabs(v[i]) : largest;
	}
	return largest;
}

/// The link's Jacobian column of one joint: a revolute joint turns about its axis through the
/// child link's origin, a prismatic one slides along it.
static void jacobian_column(const kl_urdf_joint* joint, kl_transform child, vec3s tip, double column[6])
{
	vec3s axis = kl_rotate(child.q, kl_vec3((float)joint->axis[0], (float)joint->axis[1], (float)joint->axis[2]));
	vec3s linear = axis;
	vec3s angular = kl_vec3(0.0f, 0.0f, 0.0f);
	if (joint->type != KL_URDF_PRISMATIC)
	{
		linear = glms_vec3_cross(axis, glms_vec3_sub(tip, child.p));
		angular = axis;
	}
	double v[6] = {linear.x, linear.y, linear.z, angular.x, angular.y, angular.z};
	memcpy(column, v, sizeof(v));
}

/// Moves positions toward the joint positions that put link at target (root frame), within the
/// joints' limits. True when it got there within the tolerance.
static bool solve_ik(const kl_urdf_model* model, int link, kl_transform target, double* positions, kl_transform* poses)
{
	int chain[KL_CELL_IK_MAX_CHAIN];
	int n = chain_of(model, link, chain);
	for (int iteration = 0; n > 0 && iteration < KL_CELL_IK_ITERATIONS; ++iteration)
	{
		double e[6], jac[6][KL_CELL_IK_MAX_CHAIN];
		if (kl_urdf_forward_kinematics(model, positions, poses) != KL_OK)
		{
			return false;
		}
		if (pose_error(poses[link], target, e) < KL_CELL_IK_TOLERANCE)
		{
			return true;
		}
		for (int c = 0; c < n; ++c)
		{
			double column[6];
			jacobian_column(&model->joints[chain[c]], poses[model->joints[chain[c]].child], poses[link].p, column);
			for (int r = 0; r < 6; ++r)
			{
				jac[r][c] = column[r];
			}
		}
		// (JᵀJ + λ²I) Δ = Jᵀe
		double a[KL_CELL_IK_MAX_CHAIN * KL_CELL_IK_MAX_CHAIN], b[KL_CELL_IK_MAX_CHAIN];
		for (int r = 0; r < n; ++r)
		{
			b[r] = 0.0;
			for (int k = 0; k < 6; ++k)
			{
				b[r] += jac[k][r] * e[k];
			}
			for (int c = 0; c < n; ++c)
			{
				double sum = r == c ? KL_CELL_IK_DAMPING * KL_CELL_IK_DAMPING : 0.0;
				for (int k = 0; k < 6; ++k)
				{
					sum += jac[k][r] * jac[k][c];
				}
				a[r * n + c] = sum;
			}
		}
		if (!solve_dense(a, b, n))
		{
			return false;
		}
		for (int c = 0; c < n; ++c)
		{
			const kl_urdf_joint* joint = &model->joints[chain[c]];
			double q = positions[chain[c]] + b[c];
			positions[chain[c]] = joint->has_limit ? fmin(fmax(q, joint->lower), joint->upper) : q;
		}
	}
	return false;
}

bool kl_cell_robot_bind(kl_cell_actuator* a, kl_world_id world, const char* robot, const char* urdf,
						const char* const* package_paths, int package_path_count, const char* link, char* error,
						int size)
{
	kl_urdf_load_options options = kl_default_urdf_load_options();
	options.package_paths = package_paths;
	options.package_path_count = package_path_count;
	a->model = kl_urdf_load_file(urdf, &options);
	a->robot = a->model != NULL ? kl_robot_bind(world, a->model, robot, KL_ROBOT_DRIVE_KINEMATIC) : NULL;
	if (a->robot == NULL)
	{
		snprintf(error, (size_t)size, "robot \"%s\" (%s): %s", robot, urdf, kl_last_error());
		return false;
	}
	int n = a->model->joint_count;
	a->positions = calloc((size_t)n + 1, sizeof(double));
	a->poses = calloc((size_t)a->model->link_count, sizeof(kl_transform));
	if (a->positions == NULL || a->poses == NULL)
	{
		snprintf(error, (size_t)size, "out of memory");
		return false;
	}
	kl_robot_get_joint_positions(a->robot, a->positions);
	a->link = -1;
	a->register_count = 0;
	for (int j = 0; j < n; ++j)
	{
		a->register_count += kl_urdf_joint_moves(&a->model->joints[j]) ? 1 : 0;
	}
	if (link[0] != '\0')
	{
		int chain[KL_CELL_IK_MAX_CHAIN];
		a->link = kl_urdf_find_link(a->model, link);
		if (a->link < 0 || chain_of(a->model, a->link, chain) < 1)
		{
			snprintf(error, (size_t)size, "robot \"%s\" has no link \"%s\" moved by at most %d joints", robot, link,
					 KL_CELL_IK_MAX_CHAIN);
			return false;
		}
		kl_urdf_forward_kinematics(a->model, a->positions, a->poses);
		a->taught = a->poses[a->link];
		a->register_count = 3;
	}
	return true;
}

void kl_cell_robot_write_initial_registers(kl_cell* cell, const kl_cell_actuator* a)
{
	uint16_t* hr = cell->map->tab_registers;
	int address = a->holding_register.address;
	for (int j = 0, r = 0; a->link < 0 && j < a->model->joint_count; ++j)
	{
		if (kl_urdf_joint_moves(&a->model->joints[j]))
		{
			hr[address + r++] = kl_cell_encode(a->holding_register, (float)a->positions[j]);
		}
	}
	for (int r = 0; a->link >= 0 && r < 3; ++r)
	{
		hr[address + r] = kl_cell_encode(a->holding_register, 0.0f);
	}
}

/// The joint positions the registers ask for: streamed joints, or the Cartesian offset solved.
static bool robot_targets(kl_cell* cell, kl_cell_actuator* a)
{
	const uint16_t* hr = cell->map->tab_registers + a->holding_register.address;
	if (a->link < 0)
	{
		for (int j = 0, r = 0; j < a->model->joint_count; ++j)
		{
			if (kl_urdf_joint_moves(&a->model->joints[j]))
			{
				a->positions[j] = kl_cell_decode(a->holding_register, hr[r++]);
			}
		}
		return true;
	}
	kl_transform target = a->taught;
	vec3s offset = kl_vec3(kl_cell_decode(a->holding_register, hr[0]), kl_cell_decode(a->holding_register, hr[1]),
						   kl_cell_decode(a->holding_register, hr[2]));
	// The offset is in world axes; the model's root frame is the robot's base pose.
	kl_body_id root = kl_robot_get_body(a->robot, a->model->link_order[0]);
	target.p = glms_vec3_add(target.p, kl_inv_rotate(kl_body_get_rotation(root), offset));
	return solve_ik(a->model, a->link, target, a->positions, a->poses);
}

void kl_cell_apply_robot(kl_cell* cell, kl_cell_actuator* a, bool on)
{
	if (!on)
	{
		return;
	}
	bool reached = robot_targets(cell, a);
	if (!reached && !a->unreachable)
	{
		kl_cell_add_event(cell, "robot %s: the Cartesian target is out of reach", a->name);
	}
	a->unreachable = !reached;
	bool refused = kl_robot_set_joint_positions(a->robot, a->positions, cell->dt) != KL_OK;
	if (refused && !a->refused)
	{
		kl_cell_add_event(cell, "robot %s: %s", a->name, kl_last_error());
	}
	if (refused)
	{
		// Back to the positions the robot is at, so that the next target starts from them.
		kl_robot_get_joint_positions(a->robot, a->positions);
	}
	a->refused = refused;
}

void kl_cell_robot_free(kl_cell_actuator* a)
{
	if (a->robot != NULL)
	{
		kl_robot_free(a->robot);
	}
	if (a->model != NULL)
	{
		kl_urdf_model_free(a->model);
	}
	free(a->positions);
	free(a->poses);
	a->robot = NULL;
	a->model = NULL;
	a->positions = NULL;
	a->poses = NULL;
}
