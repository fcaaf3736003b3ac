// Kollide — definition structs, enums, events, profile and the debug-draw interface.
// SPDX-License-Identifier: MIT
#pragma once

#include "geometry.h"
#include "id.h"

KL_C_BEGIN

// ---------------------------------------------------------------------------------------------
// Tasks: a user task system may replace the world's own worker pool.

/// Work for partitions [start, end) of a task; worker is in [0, worker_count).
typedef void kl_task_fn(int start, int end, int worker, void* task_context);
/// Runs task over partition_count partitions (may split them among threads). Returns a handle for
/// finish, or NULL when it has already run every partition (for example inline).
typedef void* kl_enqueue_task_fn(kl_task_fn* task, int partition_count, void* task_context, void* user_context);
/// Waits for a handle returned by enqueue.
typedef void kl_finish_task_fn(void* user_task, void* user_context);

// ---------------------------------------------------------------------------------------------
// World

/// Per-pair material overrides: given both shapes' values and user material ids, return the pair's
/// friction (default √(μa·μb)) or restitution (default max(ea, eb)). Called inside the step from
/// worker threads: must be thread-safe and must not call back into the world.
typedef float kl_friction_fn(float friction_a, uint32_t material_a, float friction_b, uint32_t material_b);
typedef float kl_restitution_fn(float restitution_a, uint32_t material_a, float restitution_b, uint32_t material_b);

/// Custom pair filter (kl_world_set_custom_filter_callback), as Box3D's b3CustomFilterFcn: called
/// when the fattened bounds of two shapes begin to overlap and every other filter (bodies, categories
/// and masks, groups, joints) lets the pair collide, if either shape has enable_custom_filtering.
/// Return false to keep the pair from making a contact. The answer holds while the bounds keep
/// overlapping, though the pair may be asked again (when a body falls asleep, wakes or changes
/// type, or after kl_shape_set_filter on either shape). Called inside kl_world_step, during its
/// broadphase stage, on the thread that called the step, one pair at a time: it need not be
/// thread-safe, but must not call into the world (queries answer KL_ERR_LOCKED).
typedef bool kl_custom_filter_fn(kl_shape_id shape_a, kl_shape_id shape_b, void* context);

/// Pre-solve callback (kl_world_set_pre_solve_callback), as Box3D's b3PreSolveFcn: called after the
/// narrowphase has found a contact manifold between two shapes, before the solver, if either shape
/// has enable_pre_solve_events: point (world) is the manifold's first point, normal (world, unit)
/// points from shape_a to shape_b. Return false to disable that manifold for this step (a convex
/// pair has one; a mesh pair one per contact patch); a contact left without manifolds does not
/// touch this step (no begin event; an end event if it touched). Called inside kl_world_step,
/// from worker threads when the narrowphase runs in parallel (a world with more than one worker
/// or a task system, and enough contacts), so several calls may run at once and in any order: it
/// must be thread-safe, and must not call into the world (queries answer KL_ERR_LOCKED). Only
/// contacts with an awake body are updated, so only they are asked.
typedef bool kl_pre_solve_fn(kl_shape_id shape_a, kl_shape_id shape_b, vec3s point, vec3s normal, void* context);

// Valid ranges (docs/engine-core.md, "Valid ranges"). Input outside them is refused with
// KL_ERR_INVALID_ARGUMENT and a message naming the value and the range; inside them a step
// stays finite. Lengths, positions and linear speeds are in the world's length units: the figures
// marked "× L" are multiplied by L = kl_world_def.length_units_per_meter (1: metres).

/// Positions (bodies, targets), shape offsets and sizes, hull and scaled mesh vertices, plane
/// offsets, the centre of a mass override: every coordinate within ±this × L (Box3D's B3_HUGE).
#define KL_MAX_COORDINATE 1.0e5f
/// Smallest shape: sphere and capsule radius, box half extent, and the largest side of the bounds
/// of a hull or scaled mesh (× L).
#define KL_MIN_SHAPE_SIZE 1.0e-3f
/// Joint frame origins, distance joint lengths, prismatic and distance limits and position targets:
/// within ±this × L, the span between any two valid positions.
#define KL_MAX_JOINT_LENGTH 2.0e5f
/// Linear speeds a caller gives (body velocities, target moves, impulses, world speed settings,
/// linear motor speeds): at most this × L per second.
#define KL_MAX_LINEAR_SPEED 1.0e5f
/// Angular speeds a caller gives (body spins, target turns, angular impulses, angular motor
/// speeds): at most this many rad/s.
#define KL_MAX_ANGULAR_SPEED 1.0e4f
/// Material density: 0 (no mass) up to this many kg/m³ (÷ L³ for kg per cubic length unit).
#define KL_MAX_DENSITY 1.0e5f
/// Mass of a dynamic body and of each of its shapes that has density, and of a mass override (kg).
#define KL_MIN_MASS 1.0e-12f
#define KL_MAX_MASS 1.0e15f
/// Principal moments of inertia of a dynamic body (and of each of its shapes that has density), or
/// of a mass override, where not exactly 0: kg·m² (× L²).
#define KL_MIN_INERTIA 1.0e-20f
#define KL_MAX_INERTIA 1.0e26f
/// Longest sub-step h = dt / substeps (s). Contacts are at most a quarter of the sub-step rate
/// stiff, so a resting body sinks about g·h²/π² into its support: 1 cm at 0.1 s under 9.81 m/s².
#define KL_MAX_SUBSTEP 0.1f
/// Spring and contact frequencies (Hz) and damping ratios: at most these.
#define KL_MAX_HERTZ 1.0e6f
#define KL_MAX_DAMPING_RATIO 1.0e6f
/// kl_world_def.length_units_per_meter lies within [KL_MIN_LENGTH_UNITS, KL_MAX_LENGTH_UNITS].
#define KL_MIN_LENGTH_UNITS 1.0e-3f
#define KL_MAX_LENGTH_UNITS 1.0e3f

typedef struct kl_world_def
{
	/// Length units per metre (Box3D's b3_lengthUnitsPerMeter), default 1: scales the valid ranges
	/// of lengths, positions and speeds above. Gravity and the speed settings below are given in
	/// these units; the engine's own tolerances (contact slop, bounds margin) stay in metres.
	float length_units_per_meter;
	vec3s gravity; ///< length units/s², default (0, 0, -9.81)
	/// Threads that step the world, the caller's included (1: no extra threads). The results are
	/// bit-identical for any count.
	int worker_count;
	kl_enqueue_task_fn* enqueue_task; ///< optional user task system (then worker_count is its width)
	kl_finish_task_fn* finish_task;
	void* user_task_context;

	// Contact softness (used by the solver): stiffness in Hz, damping ratio (each at most
	// KL_MAX_HERTZ, KL_MAX_DAMPING_RATIO), push-out limit (m/s, at most KL_MAX_LINEAR_SPEED × L).
	float contact_hertz;
	float contact_damping_ratio;
	float max_contact_push_speed;
	float joint_hertz;
	float joint_damping_ratio;
	/// Relative speed below which collisions do not bounce (m/s).
	float restitution_threshold;
	/// Approach speed above which a contact of a shape with enable_hit_events reports a hit event
	/// (m/s, default 1).
	float hit_event_threshold;
	kl_friction_fn* friction_callback;		 ///< NULL: geometric mean
	kl_restitution_fn* restitution_callback; ///< NULL: maximum
	/// Speed limit of dynamic bodies (m/s, default 400, at most KL_MAX_LINEAR_SPEED × L): forces and
	/// the solve never leave one faster. Kinematic bodies move as they are told.
	float max_linear_speed;
	/// When positive: a step in which an awake body can travel farther than this (m; its speed plus
	/// its spin times its extent, over dt) finds its contacts more than once, in 2 or more equal
	/// passes (a divisor of the sub-steps, at most their count), each with its share of the
	/// sub-steps, so the sub-step length is unchanged. Contacts found once per step must foresee all
	/// of its motion from its start; a part turning 45° in a 60 Hz step cannot be foreseen. 0: off.
	/// With passes, a pair that touches and parts between passes reports both a begin and an end
	/// event in the step; the profile adds up the passes.
	float max_collision_travel;
	bool enable_sleep;
	bool enable_continuous;
	/// Use the CUDA backend where a stage has one and a device exists; otherwise the CPU path
	/// runs (a one-line notice says so once).
	bool use_gpu;
	void* user_data;
} kl_world_def;

// ---------------------------------------------------------------------------------------------
// Bodies

typedef enum kl_body_type
{
	KL_BODY_STATIC = 0,	   ///< zero mass, never moves
	KL_BODY_KINEMATIC = 1, ///< moved by velocity or target poses, infinite mass
	KL_BODY_DYNAMIC = 2,   ///< moved by forces and contacts
	KL_BODY_TYPE_COUNT
} kl_body_type;

typedef struct kl_body_def
{
	kl_body_type type;
	vec3s position;		 ///< of the body origin, world frame
	versors rotation;	 ///< unit quaternion
	vec3s linear_velocity;  ///< of the centre of mass, world frame
	vec3s angular_velocity; ///< world frame, rad/s
	float linear_damping;	///< 1/s
	float angular_damping;	///< 1/s
	float gravity_scale;
	float sleep_threshold; ///< m/s
	bool enable_sleep;
	bool is_awake;
	bool fixed_rotation;
	bool is_bullet;
	/// Integrate the gyroscopic term ω × Iω (torque-free precession and tumbling).
	bool enable_gyroscopic;
	const char* name; ///< copied; may be NULL
	void* user_data;
} kl_body_def;

// ---------------------------------------------------------------------------------------------
// Shapes

typedef enum kl_shape_type
{
	KL_SHAPE_SPHERE = 0,
	KL_SHAPE_BOX,
	KL_SHAPE_CAPSULE,
	KL_SHAPE_HULL,
	KL_SHAPE_MESH,
	KL_SHAPE_PLANE,
	KL_SHAPE_TYPE_COUNT
} kl_shape_type;

typedef struct kl_material
{
	float density;	   ///< kg/m³
	float friction;	   ///< Coulomb coefficient; pairs combine by √(μa·μb)
	float restitution; ///< pairs combine by the maximum
	/// Lever arm (m) of the torque that resists rolling, about the contact's tangents: at most this
	/// times the normal force (Box2D v3's model). Pairs combine by the maximum.
	float rolling_resistance;
	/// Lever arm (m) of the torque that resists spinning about the contact normal (torsional
	/// friction, as from a contact patch of about this radius): at most this times the normal
	/// force. Friction at a single point cannot resist that spin, so without it a part resting on
	/// one point (a gear on its rim, a bowl on its wall) keeps spinning. Pairs combine by the
	/// maximum; 0 (the default) leaves the spin free.
	float spin_resistance;
	/// Conveyor belt: the speed (m/s) at which the shape's surface runs, in the shape's frame,
	/// while the shape itself stays where it is. Friction drives what touches the shape toward this
	/// velocity (the part of it along the contact's tangent plane), so parts ride on a static belt.
	/// Zero (the default) is an ordinary surface and costs nothing.
	vec3s surface_velocity;
	uint32_t user_material_id;
} kl_material;

/// A pair collides if (a.category & b.mask) && (b.category & a.mask), unless both share a group
/// index: a positive shared group always collides, a negative one never.
typedef struct kl_filter
{
	uint64_t category_bits;
	uint64_t mask_bits;
	int32_t group_index;
} kl_filter;

/// How a mesh shape meets other mesh shapes. A pair uses the point shells when either shape asks and
/// both meshes carry the model (kl_mesh_def.build_pointshell); otherwise the BVH.
typedef enum kl_mesh_backend
{
	KL_MESH_BACKEND_BVH = 0,	///< simultaneous traversal of the SIMD k-DOP trees
	KL_MESH_BACKEND_POINTSHELL, ///< conglomerates: point shells into octrees (CPU threads, or CUDA with use_gpu)
} kl_mesh_backend;

/// How a pair of shapes pushes apart (docs/penalty-contact.md). A pair uses the penalty model when
/// both are mesh shapes at unit scale whose meshes carry inner spheres (kl_mesh_def.inner_spheres) and
/// either asks for it; otherwise the constraint contacts.
typedef enum kl_contact_model
{
	KL_CONTACT_CONSTRAINT = 0, ///< contact points solved as non-penetration constraints
	/// A force from the inner spheres' penetration volume: F = k·Σ V_i n_i, with damping and friction,
	/// applied every sub-step
	KL_CONTACT_PENALTY,
} kl_contact_model;

typedef struct kl_shape_def
{
	kl_transform local_pose; ///< shape frame relative to the body origin
	kl_material material;
	kl_filter filter;
	bool is_sensor;
	bool enable_contact_events;
	bool enable_sensor_events;
	/// Hit events (kl_contact_events.hit_events) for this shape's contacts; off by default.
	bool enable_hit_events;
	/// Ask the world's custom filter callback about this shape's new pairs; off by default.
	bool enable_custom_filtering;
	/// Call the world's pre-solve callback for this shape's contacts; off by default.
	bool enable_pre_solve_events;
	kl_mesh_backend mesh_backend; ///< mesh shapes only (others keep the BVH); an unknown value is refused
	/// Mesh shapes only; KL_CONTACT_PENALTY needs a mesh with inner spheres and unit scale.
	kl_contact_model contact_model;
	/// Penalty pairs: pressure per unit penetration depth, N/m³ (the force is k · penetration volume);
	/// a pair uses the smaller of its shapes'. 1e7 by default; finite, > 0 and at most 1e12.
	float penalty_stiffness;
	/// Penalty pairs: the damping ratio of the pair's normal oscillation (1: critical); a pair uses
	/// the larger of its shapes'. 1 by default; 0 to 100.
	float penalty_damping_ratio;
	const char* name; ///< copied; may be NULL
	void* user_data;
} kl_shape_def;

typedef struct kl_plane
{
	vec3s normal; ///< unit; the solid is the half-space dot(normal, x) <= offset (shape frame)
	float offset;
} kl_plane;

// ---------------------------------------------------------------------------------------------
// Joints (declared here; the solver issue solves them)

typedef enum kl_joint_type
{
	KL_JOINT_FIXED = 0,
	KL_JOINT_REVOLUTE,
	KL_JOINT_PRISMATIC,
	KL_JOINT_SPHERICAL,
	KL_JOINT_DISTANCE,
	KL_JOINT_TARGET, ///< drags body_b's anchor towards a world target (mouse joint)
	KL_JOINT_TYPE_COUNT
} kl_joint_type;

typedef enum kl_motor_mode
{
	KL_MOTOR_VELOCITY = 0,
	KL_MOTOR_POSITION = 1,
} kl_motor_mode;

typedef struct kl_joint_def
{
	kl_joint_type type;
	kl_body_id body_a;
	kl_body_id body_b;
	/// Joint frames in each body's frame. The joint axis (revolute hinge, prismatic slide) is the
	/// frame's local z; distance joints use the frame origins as attachment points.
	kl_transform local_frame_a;
	kl_transform local_frame_b;
	bool collide_connected;

	bool enable_limit;
	float lower; ///< rad (revolute; spherical: twist about z) or m (prismatic, distance)
	float upper;
	/// Spherical joints with enable_limit: the largest angle between the frames' z axes (the swing
	/// cone, rad, in (0, π]; π leaves the swing free), while lower and upper bound the twist about z
	/// (within [−π, π]). Default π.
	float cone_angle;

	bool enable_motor;
	kl_motor_mode motor_mode;
	float motor_speed;	///< rad/s or m/s
	float motor_target; ///< rad or m, position mode
	float max_motor_force; ///< N or N·m (spherical: the largest torque's magnitude)
	/// Spherical joints: the motor's target angular velocity of body b relative to body a, in frame
	/// a's axes (rad/s).
	vec3s motor_angular_velocity;

	bool enable_spring;
	float spring_hertz;
	float spring_damping_ratio;
	float length; ///< distance joint rest length (m)

	const char* name; ///< copied; may be NULL
	void* user_data;
} kl_joint_def;

// ---------------------------------------------------------------------------------------------
// Events, read after a step and valid until the next step

typedef struct kl_body_move_event
{
	kl_transform transform;
	kl_body_id body_id;
	void* user_data;
	bool fell_asleep;
} kl_body_move_event;

typedef struct kl_body_events
{
	const kl_body_move_event* move_events;
	int move_count;
} kl_body_events;

typedef struct kl_contact_begin_event
{
	kl_shape_id shape_a;
	kl_shape_id shape_b;
	vec3s point;  ///< world
	vec3s normal; ///< from a to b
} kl_contact_begin_event;

typedef struct kl_contact_end_event
{
	kl_shape_id shape_a;
	kl_shape_id shape_b;
} kl_contact_end_event;

/// A contact that the solver pushed apart while its shapes approached faster than the world's
/// hit_event_threshold (either shape with enable_hit_events), as Box3D's b3ContactHitEvent: at
/// most one per contact and step (per collision pass with kl_world_def.max_collision_travel), at
/// its fastest-approaching point that the solver pushed. A landing, not a resting contact; sensors
/// and contacts between sleeping bodies make none.
typedef struct kl_contact_hit_event
{
	kl_shape_id shape_a;
	kl_shape_id shape_b;
	vec3s point;		  ///< world: midway between the surfaces as the step began (they may not touch yet)
	vec3s normal;		  ///< from a to b
	/// m/s, above the threshold: the closing speed along the normal at that point as the step began
	/// (the bodies' relative velocity there, before this step's gravity and contacts).
	float approach_speed;
} kl_contact_hit_event;

typedef struct kl_contact_events
{
	const kl_contact_begin_event* begin_events;
	int begin_count;
	const kl_contact_end_event* end_events;
	int end_count;
	const kl_contact_hit_event* hit_events;
	int hit_count;
} kl_contact_events;

/// A touching contact as the API reports it (kl_body_get_contact_data).
typedef struct kl_contact_point_data
{
	vec3s point;	  ///< world
	float separation; ///< negative: penetration (m)
	float normal_force; ///< N, from the last sub-step's impulse
	uint32_t feature_id;
} kl_contact_point_data;

typedef struct kl_contact_data
{
	kl_shape_id shape_a;
	kl_shape_id shape_b;
	vec3s normal; ///< world, from shape_a to shape_b
	int point_count;
	kl_contact_point_data points[4];
} kl_contact_data;

/// A shape pair under the penalty contact model (docs/penalty-contact.md), as of the last step.
typedef struct kl_penalty_contact_data
{
	kl_shape_id shape_a;
	kl_shape_id shape_b;
	/// The force on shape_a's body (shape_b's gets its opposite), the mean over the step's sub-steps:
	/// the penetration-volume spring, its damping and friction (N)
	vec3s force;
	float normal_force; ///< the part of it along normal (N)
	vec3s normal;		///< unit, pushes shape_a out of shape_b (world, last sub-step)
	vec3s point;		///< the lens centres' volume-weighted mean (world, last sub-step)
	float volume;		///< penetration volume at the last sub-step (m³)
	float max_depth;	///< the deepest sphere pair's depth at the last sub-step (m)
	int sphere_pair_count;
	bool stiffness_limited; ///< the stability limit lowered the stiffness in some sub-step
} kl_penalty_contact_data;

typedef struct kl_sensor_event
{
	kl_shape_id sensor;
	kl_shape_id visitor;
} kl_sensor_event;

typedef struct kl_sensor_events
{
	const kl_sensor_event* begin_events;
	int begin_count;
	const kl_sensor_event* end_events;
	int end_count;
} kl_sensor_events;

// ---------------------------------------------------------------------------------------------
// Profile: milliseconds of the last step, by stage

typedef struct kl_profile
{
	float step;
	float prepare;		///< kinematic targets, forces, predicted bounds
	float broadphase;
	float narrowphase;
	float solver;		///< all sub-steps: velocities, constraints, positions
	float solver_prepare;	 ///< colouring and constraint preparation
	float integrate_velocities;
	float integrate_positions;
	float solve_constraints; ///< warm start, solve, relax, restitution, impulse storage
	float finalize;		///< transforms, bounds, events, sleep
	/// Inside narrowphase, the point-shell mesh backend's stages summed over its pairs (CPU
	/// workers' times add up; GPU stages are timed on the device): object and conglomerate boxes,
	/// point shells into octrees, sort and unique, the triangle stage, host-device transfers. On
	/// the GPU repeats are dropped inside the shell stage, and the sort is that of the kept keys.
	float pointshell_obb;
	float pointshell_shell;
	float pointshell_sort;
	float pointshell_triangle;
	float pointshell_transfer;
	/// Inside solver, the penalty contacts (docs/penalty-contact.md): their sphere-tree queries and
	/// forces over all sub-steps.
	float penalty;
} kl_profile;

typedef struct kl_counters
{
	int body_count;
	int awake_body_count;
	int shape_count;
	int joint_count;
	int pair_count;	///< broadphase pairs (fat bounds overlap and the filter allows them)
	int contact_count; ///< touching contact pairs (sensors excluded)
	int constraint_color_count;	   ///< graph colours in use (overflow counted as one)
	int overflow_constraint_count; ///< constraints solved serially because no colour was free
	int rejected_bounds_count; ///< shapes whose bounds overflowed to Inf/NaN (kept at their last bounds)
	int pointshell_pair_count;	  ///< mesh pairs that searched their candidates through point shells (once per collision pass)
	int pointshell_gpu_pair_count; ///< of those, the pairs the GPU served (use_gpu)
	int penalty_pair_count;		   ///< shape pairs under the penalty model (last collision pass)
	/// Of those, the pairs whose stiffness the stability limit lowered in some sub-step
	int penalty_limited_count;
	int worker_count;
	int substep_count;
	int collision_pass_count; ///< times the last step found contacts (kl_world_def.max_collision_travel)
	int64_t step_index;
} kl_counters;

// ---------------------------------------------------------------------------------------------
// Debug draw: the renderer implements these; any pointer may be NULL. Colours are 0xRRGGBB.

typedef struct kl_debug_draw
{
	void (*draw_segment)(vec3s p1, vec3s p2, uint32_t color, void* context);
	void (*draw_point)(vec3s p, float size, uint32_t color, void* context);
	void (*draw_transform)(kl_transform xf, void* context);
	void (*draw_sphere)(kl_transform xf, float radius, uint32_t color, void* context);
	void (*draw_box)(kl_transform xf, vec3s half_extents, uint32_t color, void* context);
	/// Capsule along xf's local z.
	void (*draw_capsule)(kl_transform xf, float radius, float half_height, uint32_t color, void* context);
	/// Hulls and meshes as triangles in the frame xf (vertices already scaled).
	void (*draw_triangles)(kl_transform xf, const vec3s* vertices, const int32_t* indices, int triangle_count,
						   uint32_t color, void* context);
	void (*draw_plane)(vec3s normal, float offset, uint32_t color, void* context);
	void (*draw_aabb)(kl_aabb box, uint32_t color, void* context);
	void (*draw_string)(vec3s p, const char* text, uint32_t color, void* context);

	kl_aabb drawing_bounds; ///< used when use_drawing_bounds
	bool use_drawing_bounds;
	bool draw_shapes;
	bool draw_aabbs;
	bool draw_mass;
	bool draw_joints;
	bool draw_contacts;
	bool draw_contact_normals;
	bool draw_contact_forces;
	bool draw_islands;
	bool draw_names;
	/// Of mesh shapes using the point-shell backend (kl_mesh_backend): each conglomerate's box, the
	/// leaf cells of its octree, and its point shell's samples.
	bool draw_conglomerates;
	bool draw_octree_cells;
	bool draw_point_shells;
	/// Of mesh shapes using the penalty contact model (kl_contact_model): their inner spheres, and
	/// the lens centres of the last step's overlapping sphere pairs, coloured by depth from
	/// KL_COLOR_PENALTY_SHALLOW to KL_COLOR_PENALTY_DEEP (the deepest drawn).
	bool draw_inner_spheres;
	bool draw_penalty_pairs;
	void* context;
} kl_debug_draw;

/// Colours the default debug draw uses.
enum
{
	KL_COLOR_STATIC = 0x7f9f7f,
	KL_COLOR_KINEMATIC = 0x7f7fe6,
	KL_COLOR_DYNAMIC = 0xe6b27f,
	KL_COLOR_SLEEPING = 0x999999,
	KL_COLOR_AABB = 0xe64ce6,
	KL_COLOR_JOINT = 0x4ce6e6,
	KL_COLOR_MASS = 0xffff00,
	KL_COLOR_CONTACT = 0xe63333,
	KL_COLOR_SPECULATIVE = 0x33e633,
	KL_COLOR_CONTACT_NORMAL = 0xe6e633,
	KL_COLOR_CONTACT_FORCE = 0xe68033,
	KL_COLOR_CONGLOMERATE = 0x33b2e6,
	KL_COLOR_OCTREE_CELL = 0x6666cc,
	KL_COLOR_POINT_SHELL = 0xe6e6e6,
	KL_COLOR_INNER_SPHERE = 0x80b2e6,
	KL_COLOR_PENALTY_SHALLOW = 0x33e6b2,
	KL_COLOR_PENALTY_DEEP = 0xe6334c,
};

// ---------------------------------------------------------------------------------------------
// Defaults

KL_API kl_world_def kl_default_world_def(void);
KL_API kl_body_def kl_default_body_def(void);
KL_API kl_shape_def kl_default_shape_def(void);
KL_API kl_material kl_default_material(void);
KL_API kl_filter kl_default_filter(void);
KL_API kl_joint_def kl_default_joint_def(kl_joint_type type);
KL_API kl_debug_draw kl_default_debug_draw(void);

KL_C_END
