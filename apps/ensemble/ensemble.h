// Kollide ensembles (docs/ensembles.md): N copies of one scene, each with its start state perturbed
// from its own counter-based random stream, stepped to the end and reduced. Public API only.
// SPDX-License-Identifier: MIT
#pragma once

#include <kollide/kollide.h>

#include <stdbool.h>
#include <stdint.h>

#define KL_ENS_MAX_PERTURBS 32
#define KL_ENS_MAX_REGIONS 32
#define KL_ENS_NAME_CAPACITY 64
/// Each thread holds one world at a time, and the engine allows 128 at once.
#define KL_ENS_MAX_THREADS 128
/// Floats kept per body and sample: start position (3), final position (3), final rotation (4, xyzw).
/// A sample's row holds these for every body, then 1 or 0 per region (kl_ens_row_floats).
#define KL_ENS_BODY_STRIDE 10

/// What a perturbation changes; each draws standard normals from the sample's stream.
typedef enum kl_ens_perturb_kind
{
	KL_ENS_POSITION, ///< position += (σx n, σy n, σz n), or L n for a full covariance L Lᵀ
	KL_ENS_ANGLE,	 ///< rotation = exp(σ n) · rotation, a rotation vector in world axes
	KL_ENS_VELOCITY, ///< linear velocity += (σx n, σy n, σz n)
	KL_ENS_MASS,	 ///< mass and inertia × max(0.01, 1 + σ n), σ relative
	KL_ENS_FRICTION, ///< every shape's friction + σ n, at least 0
} kl_ens_perturb_kind;

typedef struct kl_ens_perturb
{
	char body[KL_ENS_NAME_CAPACITY];
	kl_ens_perturb_kind kind;
	float sigma[3]; ///< per axis; the scalar kinds use sigma[0]
	/// With a full covariance (position, angle, velocity): its lower Cholesky factor L, row-major,
	/// and the draw is L n instead of (σx n₁, σy n₂, σz n₃).
	bool correlated;
	float cholesky[9];
	int body_index; ///< in kl_world_get_bodies order, set by kl_ens_prepare
} kl_ens_perturb;

/// An outcome region: an axis-aligned box the named body's final position lies in, or the sensor
/// shapes of a scene body that the named body's shapes overlap at the end (by the sensor events).
typedef struct kl_ens_region
{
	char name[KL_ENS_NAME_CAPACITY];
	char body[KL_ENS_NAME_CAPACITY];		///< "" = the first perturbed body
	char sensor_body[KL_ENS_NAME_CAPACITY]; ///< "" = the box
	kl_aabb box;
	int body_index;	  ///< set by kl_ens_prepare
	int sensor_index; ///< set by kl_ens_prepare; -1 for a box
} kl_ens_region;

typedef struct kl_ens_def
{
	const char* scene_path;
	int sample_count;
	int step_count;
	float dt;	   ///< step length, default 1/60 s
	int substeps;  ///< default 4
	uint64_t seed; ///< of every sample's stream
	int thread_count;
	kl_ens_perturb perturbs[KL_ENS_MAX_PERTURBS];
	int perturb_count;
	kl_ens_region regions[KL_ENS_MAX_REGIONS];
	int region_count;
	bool progress; ///< a progress bar on stderr
} kl_ens_def;

kl_ens_def kl_default_ens_def(void);

/// A loaded scene ready to be copied per sample, and the samples' results in index order.
typedef struct kl_ensemble
{
	kl_ens_def def;
	char* scene_text; ///< the scene file, loaded once
	char base_dir[1024];
	int body_count;
	char (*body_names)[KL_ENS_NAME_CAPACITY]; ///< "" for unnamed bodies
	kl_aabb* static_boxes;					  ///< bounds of the static bodies' shapes, for the heatmap's top view
	int static_box_count;
	float* states;	  ///< sample_count × body_count × KL_ENS_BODY_STRIDE
	uint32_t* hashes; ///< kl_world_hash_transforms of each sample's final world
} kl_ensemble;

/// Reads the scene, resolves body names and allocates the results. False with a message in error.
bool kl_ens_prepare(kl_ensemble* ens, const kl_ens_def* def, char* error, int error_capacity);
void kl_ens_free(kl_ensemble* ens);

/// Floats per sample in ens->states: KL_ENS_BODY_STRIDE per body, then one per region.
size_t kl_ens_row_floats(const kl_ensemble* ens);

/// The index of the body named `name` in the results, or -1.
int kl_ens_find_body(const kl_ensemble* ens, const char* name);

/// Runs sample `index` and writes its state row and hash. False when the scene cannot be made.
bool kl_ens_run_sample(const kl_ensemble* ens, int index, float* state, uint32_t* hash);

/// Runs every sample on def.thread_count threads that claim sample indices one at a time.
bool kl_ens_run_threads(kl_ensemble* ens, char* error, int error_capacity);

/// The progress bar (only when def.progress and stderr is a terminal).
void kl_ens_progress(const kl_ensemble* ens, int done);

// Counter-based random numbers: the draw depends only on (seed, sample, counter).
uint64_t kl_ens_random_u64(uint64_t seed, uint64_t sample, uint64_t counter);
/// A standard normal from draws 2·pair and 2·pair + 1 (Box–Muller, cosine branch).
double kl_ens_normal(uint64_t seed, uint64_t sample, uint64_t pair);

// Regions (ensemble_regions.c).
/// Finds each sensor region's body and checks that it has a sensor shape reporting events.
bool kl_ens_resolve_sensor_regions(kl_ensemble* ens, const kl_body_id* bodies, char* error, int capacity);
/// After a step: counts the sensor regions' begin (+1) and end (−1) events in overlaps[region].
void kl_ens_track_sensor_regions(const kl_ensemble* ens, kl_world_id world, const kl_body_id* bodies, int* overlaps);
/// Writes the sample's region flags (1 inside, 0 not) after the bodies in its state row.
void kl_ens_region_flags(const kl_ensemble* ens, const int* overlaps, float* state);

// Reductions over all samples in index order (ensemble_report.c).
const float* kl_ens_state(const kl_ensemble* ens, int sample, int body);
/// Fraction of samples whose region body ends inside the region.
double kl_ens_region_probability(const kl_ensemble* ens, int region);
/// Mean and covariance (row-major 3×3) of a body's final position.
void kl_ens_position_moments(const kl_ensemble* ens, int body, double mean[3], double covariance[9]);
/// FNV-1a over every sample's hash in index order.
uint32_t kl_ens_combined_hash(const kl_ensemble* ens);
bool kl_ens_write_csv(const kl_ensemble* ens, const char* path);
/// A top view (x right, y up) of a body's final positions: counts on a grid over the bounds of all
/// samples and regions, written as a heatmap PNG with the static shapes' bounds outlined in grey and
/// the regions in white.
bool kl_ens_write_heatmap(const kl_ensemble* ens, int body, const char* path, int cells, char* error,
						  int error_capacity);

// Command line (ensemble_args.c).
/// Parses "BODY:position=σx,σy,σz" (or =σ, or a covariance =c11,c12,c13,c22,c23,c33) and the other kinds.
bool kl_ens_parse_perturb(const char* text, kl_ens_perturb* out, char* error, int error_capacity);
/// Parses "NAME=xmin,ymin,zmin,xmax,ymax,zmax" or "NAME=sensor:SENSOR_BODY", each also as "NAME@BODY=…".
bool kl_ens_parse_region(const char* text, kl_ens_region* out, char* error, int error_capacity);

#ifdef KL_ENS_HAVE_MPI
/// Master–worker over MPI_COMM_WORLD: rank 0 hands out sample ranges on request and runs samples
/// itself between requests; on return rank 0 holds every result. Call between MPI_Init and _Finalize.
bool kl_ens_run_mpi(kl_ensemble* ens, char* error, int error_capacity);
#endif
