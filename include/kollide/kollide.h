// Kollide — the public C API. Include this one header.
// SPDX-License-Identifier: MIT
#pragma once

#include "base.h"
#include "collision.h"
#include "geometry.h"
#include "id.h"
#include "io.h"
#include "math.h"
#include "sphere_tree.h"
#include "types.h"
#include "urdf.h"

KL_C_BEGIN

// ---------------------------------------------------------------------------------------------
// World

/// Creates a world (at most 128 at once). Returns the null id on invalid definitions.
KL_API kl_world_id kl_create_world(const kl_world_def* def);
KL_API kl_result kl_destroy_world(kl_world_id world);
KL_API bool kl_world_is_valid(kl_world_id world);

/// Advances the world by dt seconds in substeps sub-steps. Runs the stages in order:
/// prepare → broadphase → narrowphase → solver (per sub-step: integrate velocities, solve,
/// integrate positions, relax) → finalize. dt = 0 updates bounds and events only. substeps lies in
/// [1, 64] and the sub-step dt / substeps is at most KL_MAX_SUBSTEP (0.1 s): a resting body sinks
/// about g·h²/π² into its support before its contact holds it (1 cm at h = 0.1 s under 9.81 m/s²).
/// Fails only on a bad id, dt or substeps. Running out of memory inside a step is worked around
/// (a batch falls back to per-pair work, a mesh pair keeps fewer contact patches, the broadphase
/// finds its pairs again at the next step; a step that cannot find its contacts or prepare its
/// constraints holds the bodies still rather than move them through floors); the step still
/// succeeds and leaves kl_last_error() as it was (tests/test_out_of_memory.c).
KL_API kl_result kl_world_step(kl_world_id world, float dt, int substeps);

KL_API kl_result kl_world_set_gravity(kl_world_id world, vec3s gravity);
KL_API vec3s kl_world_get_gravity(kl_world_id world);
KL_API kl_world_def kl_world_get_def(kl_world_id world);
/// Turns the CUDA backends (broadphase batch sweep, point-shell mesh pairs) on or off from the next
/// step on; without a device the CPU paths run and a notice says so once. Not while stepping.
KL_API kl_result kl_world_set_use_gpu(kl_world_id world, bool use_gpu);
KL_API int kl_world_get_worker_count(kl_world_id world);
KL_API kl_profile kl_world_get_profile(kl_world_id world);
KL_API kl_counters kl_world_get_counters(kl_world_id world);
KL_API kl_body_events kl_world_get_body_events(kl_world_id world);
/// Begin, end and hit events of the last step (types.h), valid until the next step.
KL_API kl_contact_events kl_world_get_contact_events(kl_world_id world);
KL_API kl_sensor_events kl_world_get_sensor_events(kl_world_id world);
KL_API void kl_world_draw(kl_world_id world, const kl_debug_draw* draw);
/// The callbacks of the step (types.h: kl_custom_filter_fn, kl_pre_solve_fn); NULL removes one.
/// context is passed to every call. Not while stepping (KL_ERR_LOCKED). A new custom filter is asked
/// about pairs that begin from then on; pairs it already let through stay.
KL_API kl_result kl_world_set_custom_filter_callback(kl_world_id world, kl_custom_filter_fn* fcn, void* context);
KL_API kl_result kl_world_set_pre_solve_callback(kl_world_id world, kl_pre_solve_fn* fcn, void* context);
/// kl_world_def.hit_event_threshold from the next step on: finite and >= 0 (m/s).
KL_API kl_result kl_world_set_hit_event_threshold(kl_world_id world, float threshold);

/// Body ids in creation-slot order; returns the total count (writes at most capacity).
KL_API int kl_world_get_bodies(kl_world_id world, kl_body_id* bodies, int capacity);
KL_API int kl_world_get_joints(kl_world_id world, kl_joint_id* joints, int capacity);
/// 32-bit FNV-1a over every body's transform bits in slot order: equal hashes ⇔ identical states.
KL_API uint32_t kl_world_hash_transforms(kl_world_id world);
/// The closest shape a segment hits.
typedef struct kl_ray_hit
{
	kl_shape_id shape;
	kl_body_id body;
	vec3s point;	///< world
	vec3s normal;	///< world, unit, against the ray
	float fraction; ///< along the segment, in [0, 1]
} kl_ray_hit;

/// Casts the segment origin → origin + translation against every shape whose filter accepts
/// `filter` (category/mask as for pairs; sensors are skipped) and returns the closest hit.
/// Rays starting inside a solid report no hit for it. False when nothing is hit or on bad input.
KL_API bool kl_world_cast_ray(kl_world_id world, vec3s origin, vec3s translation, kl_filter filter, kl_ray_hit* hit);

// World queries with callbacks (docs/queries.md), as Box3D's b3World_CastRay and friends. Every
// query visits the shapes whose filter accepts `filter` (category and mask both ways, as for
// pairs; group indices play no part; sensors are skipped), in shape creation-slot order, not by
// distance, on the calling thread. A callback must not create, destroy or move anything in the
// world; it may run other queries. Queries fail (calling nothing) with KL_ERR_INVALID_ID for a bad
// world, KL_ERR_LOCKED inside kl_world_step (from a pre-solve or custom filter callback), and
// KL_ERR_INVALID_ARGUMENT for a NULL callback, non-finite input or an unusable proxy.

/// The value a cast callback returns steers the query, as Box3D's b3CastResultFcn: -1 ignores this
/// shape and goes on, 0 stops the query, a fraction clips the cast there (later hits lie at most
/// that far), 1 goes on without clipping. Return the fraction to end with the closest hit, 1 to
/// see them all. point (world) lies on the hit shape's surface; normal (world, unit) is that
/// surface's, facing against the cast; fraction is along the translation, in [0, 1].
typedef float kl_cast_result_fn(kl_shape_id shape, vec3s point, vec3s normal, float fraction, void* context);

/// Calls fcn for every shape the segment origin → origin + translation enters within the current
/// clip. A segment starting inside a solid reports nothing for it (as kl_world_cast_ray).
KL_API kl_result kl_world_cast_ray_all(kl_world_id world, vec3s origin, vec3s translation, kl_filter filter,
									   kl_cast_result_fn* fcn, void* context);

/// The callback of the overlap queries: return false to stop the query.
typedef bool kl_overlap_result_fn(kl_shape_id shape, void* context);

/// Calls fcn for every shape whose bounds (kl_shape_get_aabb: the tight world bounds of its current
/// pose, not the broadphase's fattened ones) overlap or touch aabb. Planes' bounds are everything.
KL_API kl_result kl_world_overlap_aabb(kl_world_id world, kl_aabb aabb, kl_filter filter, kl_overlap_result_fn* fcn,
									   void* context);

/// A convex shape for the shape queries, in its own frame as the shape of that type
/// (kl_create_*_shape): type is KL_SHAPE_SPHERE, KL_SHAPE_CAPSULE, KL_SHAPE_BOX or KL_SHAPE_HULL,
/// and only that type's fields count. kl_make_*_proxy fill one.
typedef struct kl_shape_proxy
{
	kl_shape_type type;
	float radius;		 ///< sphere and capsule, > 0
	float half_height;	 ///< capsule, >= 0: the segment from (0, 0, -half_height) to (0, 0, half_height)
	vec3s half_extents;	 ///< box, each > 0
	const kl_hull* hull; ///< hull, read during the call only
} kl_shape_proxy;

static inline kl_shape_proxy kl_make_sphere_proxy(float radius)
{
	kl_shape_proxy p = {KL_SHAPE_SPHERE, radius, 0.0f, {{0.0f, 0.0f, 0.0f}}, NULL};
	return p;
}

static inline kl_shape_proxy kl_make_capsule_proxy(float radius, float half_height)
{
	kl_shape_proxy p = {KL_SHAPE_CAPSULE, radius, half_height, {{0.0f, 0.0f, 0.0f}}, NULL};
	return p;
}

static inline kl_shape_proxy kl_make_box_proxy(vec3s half_extents)
{
	kl_shape_proxy p = {KL_SHAPE_BOX, 0.0f, 0.0f, half_extents, NULL};
	return p;
}

static inline kl_shape_proxy kl_make_hull_proxy(const kl_hull* hull)
{
	kl_shape_proxy p = {KL_SHAPE_HULL, 0.0f, 0.0f, {{0.0f, 0.0f, 0.0f}}, hull};
	return p;
}

/// Calls fcn for every shape that the proxy, placed at transform (world), overlaps or touches: the
/// exact test by GJK against spheres, capsules, boxes and hulls, against each nearby triangle of a
/// mesh (a closed mesh is a solid: a proxy wholly inside it overlaps it; an open one is a surface),
/// and against the half-space of a plane.
KL_API kl_result kl_world_overlap_shape(kl_world_id world, const kl_shape_proxy* proxy, kl_transform transform,
										kl_filter filter, kl_overlap_result_fn* fcn, void* context);

/// Sweeps the proxy from transform (world) along translation, without turning, and calls fcn for
/// every shape it meets within the current clip (fraction and normal as for rays; point on the hit
/// shape's surface). A hit leaves the proxy just short of touching: moved by fraction · translation,
/// the gap between the surfaces is between 0.25 and 0.5 mm. A shape the proxy overlaps at the start
/// (kl_world_overlap_shape) is hit at fraction 0 with a zero normal.
KL_API kl_result kl_world_cast_shape(kl_world_id world, const kl_shape_proxy* proxy, kl_transform transform,
									 vec3s translation, kl_filter filter, kl_cast_result_fn* fcn, void* context);
/// Finds a body by name (first match in slot order), or the null id.
KL_API kl_body_id kl_world_find_body(kl_world_id world, const char* name);
/// Finds a joint by name (first match in slot order), or the null id.
KL_API kl_joint_id kl_world_find_joint(kl_world_id world, const char* name);

// ---------------------------------------------------------------------------------------------
// Fixed time step for real-time loops

typedef struct kl_fixed_timestep
{
	float dt;				 ///< step length (s)
	int substeps;
	int max_steps_per_frame; ///< caps catch-up after a stall; the rest of the backlog is dropped
	double accumulator;		 ///< unsimulated time (s)
} kl_fixed_timestep;

KL_API kl_fixed_timestep kl_default_fixed_timestep(float dt, int substeps);
/// Adds frame_seconds of real time and steps the world as often as whole steps fit.
/// Returns the number of steps taken, or -1 on error.
KL_API int kl_fixed_timestep_advance(kl_world_id world, kl_fixed_timestep* timestep, double frame_seconds);
/// Fraction of a step left in the accumulator, in [0, 1): the interpolation factor for drawing.
KL_API float kl_fixed_timestep_alpha(const kl_fixed_timestep* timestep);

// ---------------------------------------------------------------------------------------------
// Bodies. Positions, velocities and mass overrides must lie within the valid ranges (types.h,
// KL_MAX_COORDINATE and the others): a call given more fails and changes nothing.

KL_API kl_body_id kl_create_body(kl_world_id world, const kl_body_def* def);
/// Destroys the body with its shapes and joints.
KL_API kl_result kl_destroy_body(kl_body_id body);
KL_API bool kl_body_is_valid(kl_body_id body);

KL_API kl_body_type kl_body_get_type(kl_body_id body);
KL_API kl_result kl_body_set_type(kl_body_id body, kl_body_type type);
KL_API const char* kl_body_get_name(kl_body_id body);
KL_API kl_result kl_body_set_name(kl_body_id body, const char* name);
KL_API void* kl_body_get_user_data(kl_body_id body);
KL_API void kl_body_set_user_data(kl_body_id body, void* user_data);
KL_API kl_world_id kl_body_get_world(kl_body_id body);

/// Pose of the body origin.
KL_API kl_transform kl_body_get_transform(kl_body_id body);
KL_API vec3s kl_body_get_position(kl_body_id body);
KL_API versors kl_body_get_rotation(kl_body_id body);
/// Teleports the body (the rotation is normalised; NaN/Inf or a zero quaternion is rejected).
KL_API kl_result kl_body_set_transform(kl_body_id body, vec3s position, versors rotation);
/// Pose between the last two steps: alpha 0 = previous step, 1 = current.
KL_API kl_transform kl_body_get_interpolated_transform(kl_body_id body, float alpha);
KL_API vec3s kl_body_get_world_center_of_mass(kl_body_id body);
KL_API vec3s kl_body_get_local_center_of_mass(kl_body_id body);

KL_API vec3s kl_body_get_linear_velocity(kl_body_id body);
KL_API vec3s kl_body_get_angular_velocity(kl_body_id body);
KL_API kl_result kl_body_set_linear_velocity(kl_body_id body, vec3s v);
KL_API kl_result kl_body_set_angular_velocity(kl_body_id body, vec3s w);
/// Kinematic bodies: set the velocities that reach target at the end of the next step of dt
/// (refused where they would exceed KL_MAX_LINEAR_SPEED × L or KL_MAX_ANGULAR_SPEED).
KL_API kl_result kl_body_set_target_transform(kl_body_id body, kl_transform target, float dt);

/// Forces and torques accumulate until the end of the next step. Points are in world coordinates.
KL_API kl_result kl_body_apply_force(kl_body_id body, vec3s force, vec3s point, bool wake);
KL_API kl_result kl_body_apply_force_to_center(kl_body_id body, vec3s force, bool wake);
KL_API kl_result kl_body_apply_torque(kl_body_id body, vec3s torque, bool wake);
/// Impulses are refused where the velocities they give would leave the valid range.
KL_API kl_result kl_body_apply_linear_impulse(kl_body_id body, vec3s impulse, vec3s point, bool wake);
KL_API kl_result kl_body_apply_angular_impulse(kl_body_id body, vec3s impulse, bool wake);
KL_API kl_result kl_body_clear_forces(kl_body_id body);

KL_API float kl_body_get_mass(kl_body_id body);
/// Mass properties in the body frame (centre and inertia about it).
KL_API kl_mass_data kl_body_get_mass_data(kl_body_id body);
/// Overrides the mass properties computed from the shapes (until the next shape change): mass within
/// [KL_MIN_MASS, KL_MAX_MASS], principal moments 0 or within [KL_MIN_INERTIA, KL_MAX_INERTIA] × L².
KL_API kl_result kl_body_set_mass_data(kl_body_id body, kl_mass_data mass_data);
/// Recomputes the mass properties from the shapes (refused, as kl_create_*_shape, where a dynamic
/// body could not take them).
KL_API kl_result kl_body_apply_mass_from_shapes(kl_body_id body);
/// True while the mass properties are an override from kl_body_set_mass_data (false for a stale id).
KL_API bool kl_body_has_custom_mass(kl_body_id body);
KL_API kl_principal_inertia kl_body_get_principal_inertia(kl_body_id body);
/// Kinetic energy (J) and angular momentum about the centre of mass (world frame).
KL_API float kl_body_get_kinetic_energy(kl_body_id body);
KL_API vec3s kl_body_get_angular_momentum(kl_body_id body);

KL_API kl_result kl_body_set_linear_damping(kl_body_id body, float damping);
KL_API kl_result kl_body_set_angular_damping(kl_body_id body, float damping);
KL_API kl_result kl_body_set_gravity_scale(kl_body_id body, float scale);
KL_API float kl_body_get_gravity_scale(kl_body_id body);
KL_API bool kl_body_is_awake(kl_body_id body);
KL_API kl_result kl_body_set_awake(kl_body_id body, bool awake);
KL_API bool kl_body_is_gyroscopic(kl_body_id body);
KL_API kl_body_def kl_body_get_def(kl_body_id body);

KL_API int kl_body_get_shape_count(kl_body_id body);
/// Shape ids in creation order; returns the total count.
KL_API int kl_body_get_shapes(kl_body_id body, kl_shape_id* shapes, int capacity);
KL_API int kl_body_get_joint_count(kl_body_id body);
/// The body's touching contacts (sensors excluded) as of the last step, one entry per manifold (a
/// mesh pair may have several contact patches); returns the total count and writes at most capacity.
KL_API int kl_body_get_contact_data(kl_body_id body, kl_contact_data* data, int capacity);
/// The body's shape pairs under the penalty contact model that the last step computed (awake ones,
/// overlapping or not); returns the total count and writes at most capacity.
KL_API int kl_body_get_penalty_contact_data(kl_body_id body, kl_penalty_contact_data* data, int capacity);

// ---------------------------------------------------------------------------------------------
// Shapes. A body with several shapes at local poses is a compound; its mass properties are the
// parallel-axis sum. Creating or destroying a shape updates the body's mass. Sizes, offsets and
// densities must lie within the valid ranges (types.h). On a dynamic body each shape with density
// must give a mass, and the body's mass properties must stay within the valid ranges: a shape with
// no volume (an open or flat mesh) is refused there, while a static or kinematic body takes it
// with zero mass. kl_body_set_type and kl_shape_set_material hold to the same rule.

KL_API kl_shape_id kl_create_sphere_shape(kl_body_id body, const kl_shape_def* def, float radius);
KL_API kl_shape_id kl_create_box_shape(kl_body_id body, const kl_shape_def* def, vec3s half_extents);
/// Capsule along the shape frame's local z; half_height is half the segment length.
KL_API kl_shape_id kl_create_capsule_shape(kl_body_id body, const kl_shape_def* def, float radius, float half_height);
/// Copies the hull.
KL_API kl_shape_id kl_create_hull_shape(kl_body_id body, const kl_shape_def* def, const kl_hull* hull);
/// Retains the mesh; scale is per axis and positive. Valid on dynamic bodies too.
KL_API kl_shape_id kl_create_mesh_shape(kl_body_id body, const kl_shape_def* def, kl_mesh* mesh, vec3s scale);
/// Infinite plane; only static bodies.
KL_API kl_shape_id kl_create_plane_shape(kl_body_id body, const kl_shape_def* def, kl_plane plane);
KL_API kl_result kl_destroy_shape(kl_shape_id shape);
KL_API bool kl_shape_is_valid(kl_shape_id shape);

KL_API kl_shape_type kl_shape_get_type(kl_shape_id shape);
KL_API kl_body_id kl_shape_get_body(kl_shape_id shape);
KL_API kl_shape_def kl_shape_get_def(kl_shape_id shape);
KL_API kl_transform kl_shape_get_local_pose(kl_shape_id shape);
KL_API kl_material kl_shape_get_material(kl_shape_id shape);
KL_API kl_result kl_shape_set_material(kl_shape_id shape, kl_material material);
KL_API kl_filter kl_shape_get_filter(kl_shape_id shape);
KL_API kl_result kl_shape_set_filter(kl_shape_id shape, kl_filter filter);
/// The mesh-pair backend a mesh shape asks for (kl_mesh_backend); other shapes answer
/// KL_MESH_BACKEND_BVH and refuse to be set (KL_ERR_UNSUPPORTED).
KL_API kl_mesh_backend kl_shape_get_mesh_backend(kl_shape_id shape);
KL_API kl_result kl_shape_set_mesh_backend(kl_shape_id shape, kl_mesh_backend backend);
/// World bounds as of the last step or change.
KL_API kl_aabb kl_shape_get_aabb(kl_shape_id shape);
/// Mass properties in the body frame.
KL_API kl_mass_data kl_shape_get_mass_data(kl_shape_id shape);

KL_API float kl_shape_get_sphere_radius(kl_shape_id shape);
KL_API vec3s kl_shape_get_box_half_extents(kl_shape_id shape);
KL_API kl_result kl_shape_get_capsule(kl_shape_id shape, float* radius, float* half_height);
KL_API const kl_hull* kl_shape_get_hull(kl_shape_id shape);
KL_API kl_mesh* kl_shape_get_mesh(kl_shape_id shape);
KL_API vec3s kl_shape_get_mesh_scale(kl_shape_id shape);
KL_API kl_plane kl_shape_get_plane(kl_shape_id shape);

// ---------------------------------------------------------------------------------------------
// Joints

KL_API kl_joint_id kl_create_joint(kl_world_id world, const kl_joint_def* def);
/// A joint def whose frames share a world anchor and whose z axes are the world axis.
KL_API kl_joint_def kl_joint_def_from_world(kl_joint_type type, kl_body_id body_a, kl_body_id body_b, vec3s anchor,
											vec3s axis);
KL_API kl_result kl_destroy_joint(kl_joint_id joint);
KL_API bool kl_joint_is_valid(kl_joint_id joint);
KL_API kl_joint_type kl_joint_get_type(kl_joint_id joint);
KL_API kl_joint_def kl_joint_get_def(kl_joint_id joint);
/// The joint's name (NULL if unnamed or for a stale id).
KL_API const char* kl_joint_get_name(kl_joint_id joint);
KL_API kl_body_id kl_joint_get_body_a(kl_joint_id joint);
KL_API kl_body_id kl_joint_get_body_b(kl_joint_id joint);
/// Constraint force and torque on body_b from the last step (world frame): the force acts at the
/// joint anchor, the torque is the couple of the angular rows (not the force's moment). N, N·m.
KL_API vec3s kl_joint_get_constraint_force(kl_joint_id joint);
KL_API vec3s kl_joint_get_constraint_torque(kl_joint_id joint);

// Runtime changes. Each returns KL_OK, or an error for a bad id, non-finite or out-of-range input,
// a joint type without the feature (KL_ERR_UNSUPPORTED) or a stepping world; each wakes both bodies.
// Motors and limits: revolute (about the frames' z, rad), prismatic (along frame a's z, m) and
// distance joints (along the line between the anchors, m). Spherical joints take limits (a swing
// cone about frame a's z and a twist range about z), a spring that turns the frames towards each
// other and a motor that drives their relative angular velocity; fixed joints take a spring (a
// soft weld).

/// Turns the motor on or off (its accumulated impulse restarts from zero when this changes).
KL_API kl_result kl_joint_enable_motor(kl_joint_id joint, bool enable);
/// Velocity mode: the motor drives the joint speed to `speed` (rad/s or m/s) with at most the
/// max motor force. Switches the motor to KL_MOTOR_VELOCITY; does not enable it.
KL_API kl_result kl_joint_set_motor_speed(kl_joint_id joint, float speed);
/// Position mode (a servo): the motor drives the joint coordinate to `target` (rad, wrapped to the
/// nearest turn, or m). It is a soft constraint as stiff as the rigid joint rows (the world's
/// joint_hertz and joint_damping_ratio: a stiff, overdamped PD drive on the inertia about the joint)
/// whose force is clamped to the max motor force, so it holds loads up to that force and gives way
/// beyond it; it asks for no more speed than half the force can brake, so force-limited moves do not
/// overshoot. Switches the motor to KL_MOTOR_POSITION; does not enable it.
KL_API kl_result kl_joint_set_motor_target(kl_joint_id joint, float target);
/// N (prismatic, distance, target joints) or N·m (revolute; spherical: the torque's magnitude);
/// finite and >= 0.
KL_API kl_result kl_joint_set_max_motor_force(kl_joint_id joint, float force);
/// Spherical: the motor's target angular velocity of body b relative to body a, in frame a's axes
/// (rad/s), with at most the max motor force as torque. Switches the motor to KL_MOTOR_VELOCITY
/// (a spherical motor has no position mode); does not enable it.
KL_API kl_result kl_joint_set_motor_angular_velocity(kl_joint_id joint, vec3s velocity);
/// The motor force of the last step: N or N·m, positive where it drives the joint coordinate up
/// (angle, translation, length); for a target joint the magnitude of the pulling force, for a
/// spherical joint the magnitude of the motor's torque.
KL_API float kl_joint_get_motor_force(kl_joint_id joint);
KL_API kl_result kl_joint_enable_limit(kl_joint_id joint, bool enable);
/// lower <= upper, rad (revolute angle, spherical twist; within [-π, π]) or m (prismatic
/// translation, distance length).
KL_API kl_result kl_joint_set_limits(kl_joint_id joint, float lower, float upper);
/// Spherical: the largest angle between the frames' z axes while the limit is on, in (0, π].
KL_API kl_result kl_joint_set_cone_angle(kl_joint_id joint, float angle);
/// Springs pull revolute and prismatic joints to coordinate 0 (frames coincide) and distance joints
/// to their `length`; on a fixed joint the spring makes the weld soft. A distance joint without a
/// spring holds its length rigidly; with a spring of 0 Hz it is free between its limits.
KL_API kl_result kl_joint_enable_spring(kl_joint_id joint, bool enable);
/// Spring stiffness as a frequency (Hz, 0: none) and damping ratio (1: critical); both >= 0: a
/// body held only by the joint oscillates at that frequency (the inertia about the joint sets the
/// stiffness). For a target joint this is the pull's softness (0 Hz: as stiff as the rigid rows).
KL_API kl_result kl_joint_set_spring(kl_joint_id joint, float hertz, float damping_ratio);
/// Target (mouse) joint: the world point body_b's anchor is pulled to, with at most the max motor
/// force. It starts at frame a's origin (on body_a) where the joint was created.
KL_API kl_result kl_joint_set_target(kl_joint_id joint, vec3s target);
KL_API vec3s kl_joint_get_target(kl_joint_id joint);

/// Revolute: the rotation of frame b relative to frame a about the axis, in [-π, π], 0 where the
/// frames coincide; spherical: the twist about z of the swing–twist split of that rotation.
KL_API float kl_joint_get_angle(kl_joint_id joint);
/// Spherical: the angle between the frames' z axes (the swing), in [0, π].
KL_API float kl_joint_get_swing_angle(kl_joint_id joint);
/// Prismatic: the translation of anchor b along frame a's z (m); distance: the current length.
KL_API float kl_joint_get_translation(kl_joint_id joint);
/// The rate of the joint coordinate: rad/s (revolute), m/s (prismatic, distance).
KL_API float kl_joint_get_speed(kl_joint_id joint);

KL_C_END
