// Kollide ensembles — loading the scene once, running one perturbed sample, and the thread runner.
// SPDX-License-Identifier: MIT
#include "ensemble.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

kl_ens_def kl_default_ens_def(void)
{
	kl_ens_def def;
	memset(&def, 0, sizeof(def));
	def.sample_count = 100;
	def.step_count = 120;
	def.dt = 1.0f / 60.0f;
	def.substeps = 4;
	def.thread_count = 1;
	return def;
}

static char* kl_ens_read_text(const char* path)
{
	FILE* file = fopen(path, "rb");
	if (file == NULL)
	{
		return NULL;
	}
	char* text = NULL;
	if (fseek(file, 0, SEEK_END) == 0)
	{
		long size = ftell(file);
		if (size >= 0 && fseek(file, 0, SEEK_SET) == 0 && (text = malloc((size_t)size + 1)) != NULL)
		{
			size_t got = fread(text, 1, (size_t)size, file);
			text[got] = '\0';
		}
	}
	fclose(file);
	return text;
}

static void kl_ens_quiet(const char* message, void* context)
{
	(void)message;
	(void)context;
}

static kl_world_id kl_ens_load(const kl_ensemble* ens, bool quiet)
{
	kl_scene_load_options options = kl_default_scene_load_options();
	options.worker_count = 1; // parallelism lies across samples
	options.base_dir = ens->base_dir;
	if (quiet)
	{
		options.warning = kl_ens_quiet;
	}
	return kl_scene_load_string(ens->scene_text, &options);
}

int kl_ens_find_body(const kl_ensemble* ens, const char* name)
{
	for (int i = 0; i < ens->body_count; ++i)
	{
		if (strcmp(ens->body_names[i], name) == 0)
		{
			return i;
		}
	}
	return -1;
}

static bool kl_ens_resolve_names(kl_ensemble* ens, char* error, int capacity)
{
	kl_ens_def* def = &ens->def;
	for (int i = 0; i < def->perturb_count; ++i)
	{
		def->perturbs[i].body_index = kl_ens_find_body(ens, def->perturbs[i].body);
		if (def->perturbs[i].body_index < 0)
		{
			snprintf(error, (size_t)capacity, "no body named '%s' in the scene", def->perturbs[i].body);
			return false;
		}
	}
	for (int i = 0; i < def->region_count; ++i)
	{
		kl_ens_region* region = &def->regions[i];
		if (region->body[0] == '\0')
		{
			if (def->perturb_count == 0)
			{
				snprintf(error, (size_t)capacity, "region '%s' names no body and nothing is perturbed", region->name);
				return false;
			}
			snprintf(region->body, sizeof(region->body), "%s", def->perturbs[0].body);
		}
		region->body_index = kl_ens_find_body(ens, region->body);
		if (region->body_index < 0)
		{
			snprintf(error, (size_t)capacity, "region '%s': no body named '%s'", region->name, region->body);
			return false;
		}
	}
	return true;
}

static bool kl_ens_check_def(const kl_ens_def* def, char* error, int capacity)
{
	if (def->sample_count < 1 || def->sample_count > 100000000)
	{
		snprintf(error, (size_t)capacity, "samples %d is out of range [1, 1e8]", def->sample_count);
	}
	else if (def->step_count < 0 || def->step_count > 10000000)
	{
		snprintf(error, (size_t)capacity, "steps %d is out of range [0, 1e7]", def->step_count);
	}
	else if (def->thread_count < 1 || def->thread_count > KL_ENS_MAX_THREADS)
	{
		snprintf(error, (size_t)capacity, "threads %d is out of range [1, %d]", def->thread_count, KL_ENS_MAX_THREADS);
	}
	else if (!(def->dt > 0.0f && def->dt <= 1.0f) || def->substeps < 1 || def->substeps > 64)
	{
		snprintf(error, (size_t)capacity, "dt %g or substeps %d is out of range", (double)def->dt, def->substeps);
	}
	else
	{
		return true;
	}
	return false;
}

static bool kl_ens_collect_static_boxes(kl_ensemble* ens, const kl_body_id* bodies)
{
	int total = 0;
	for (int i = 0; i < ens->body_count; ++i)
	{
		total += kl_body_get_type(bodies[i]) == KL_BODY_STATIC ? kl_body_get_shape_count(bodies[i]) : 0;
	}
	ens->static_boxes = malloc(sizeof(kl_aabb) * (size_t)(total + 1));
	kl_shape_id* shapes = malloc(sizeof(kl_shape_id) * (size_t)(total + 1));
	bool ok = ens->static_boxes != NULL && shapes != NULL;
	for (int i = 0; ok && i < ens->body_count; ++i)
	{
		int count = kl_body_get_type(bodies[i]) == KL_BODY_STATIC ? kl_body_get_shapes(bodies[i], shapes, total) : 0;
		for (int k = 0; k < count; ++k)
		{
			kl_aabb box = kl_shape_get_aabb(shapes[k]);
			// Planes' bounds are everything: nothing to outline.
			if (box.upper.x - box.lower.x < 1e6f && box.upper.y - box.lower.y < 1e6f)
			{
				ens->static_boxes[ens->static_box_count++] = box;
			}
		}
	}
	free(shapes);
	return ok;
}

bool kl_ens_prepare(kl_ensemble* ens, const kl_ens_def* def, char* error, int capacity)
{
	memset(ens, 0, sizeof(*ens));
	ens->def = *def;
	if (!kl_ens_check_def(def, error, capacity))
	{
		return false;
	}
	ens->scene_text = kl_ens_read_text(def->scene_path);
	if (ens->scene_text == NULL)
	{
		snprintf(error, (size_t)capacity, "cannot read scene '%s'", def->scene_path);
		return false;
	}
	snprintf(ens->base_dir, sizeof(ens->base_dir), "%s", def->scene_path);
	char* slash = strrchr(ens->base_dir, '/');
	snprintf(slash != NULL ? slash : ens->base_dir, sizeof(ens->base_dir), "%s", slash != NULL ? "" : ".");

	kl_world_id world = kl_ens_load(ens, false);
	if (!kl_world_is_valid(world))
	{
		snprintf(error, (size_t)capacity, "scene '%s': %s", def->scene_path, kl_last_error());
		kl_ens_free(ens);
		return false;
	}
	ens->body_count = kl_world_get_bodies(world, NULL, 0);
	kl_body_id* bodies = malloc(sizeof(kl_body_id) * (size_t)(ens->body_count + 1));
	ens->body_names = calloc((size_t)ens->body_count + 1, sizeof(*ens->body_names));
	size_t row = kl_ens_row_floats(ens);
	ens->states = calloc((size_t)def->sample_count * row + 1, sizeof(float));
	ens->hashes = calloc((size_t)def->sample_count, sizeof(uint32_t));
	bool ok = bodies != NULL && ens->body_names != NULL && ens->states != NULL && ens->hashes != NULL;
	if (ok)
	{
		kl_world_get_bodies(world, bodies, ens->body_count);
		for (int i = 0; i < ens->body_count; ++i)
		{
			const char* name = kl_body_get_name(bodies[i]);
			snprintf(ens->body_names[i], KL_ENS_NAME_CAPACITY, "%s", name != NULL ? name : "");
		}
		ok = kl_ens_resolve_names(ens, error, capacity) &&
			 kl_ens_resolve_sensor_regions(ens, bodies, error, capacity) && kl_ens_collect_static_boxes(ens, bodies);
	}
	else
	{
		snprintf(error, (size_t)capacity, "out of memory for %d samples", def->sample_count);
	}
	free(bodies);
	kl_destroy_world(world);
	if (!ok)
	{
		kl_ens_free(ens);
	}
	return ok;
}

void kl_ens_free(kl_ensemble* ens)
{
	free(ens->scene_text);
	free(ens->body_names);
	free(ens->static_boxes);
	free(ens->states);
	free(ens->hashes);
	memset(ens, 0, sizeof(*ens));
}

// Draws three normals for one perturbation; *pair counts the sample's draws.
static vec3s kl_ens_draw3(const kl_ensemble* ens, int sample, uint64_t* pair, const kl_ens_perturb* perturb)
{
	float n[3];
	for (int k = 0; k < 3; ++k)
	{
		n[k] = (float)kl_ens_normal(ens->def.seed, (uint64_t)sample, (*pair)++);
	}
	vec3s v;
	for (int k = 0; k < 3; ++k)
	{
		const float* row = perturb->cholesky + 3 * k;
		v.raw[k] = perturb->correlated ? row[0] * n[0] + row[1] * n[1] + row[2] * n[2] : perturb->sigma[k] * n[k];
	}
	return v;
}

static versors kl_ens_rotation_from_vector(vec3s w)
{
	float angle = glms_vec3_norm(w);
	if (angle < 1e-12f)
	{
		return kl_quat_wxyz(1.0f, 0.0f, 0.0f, 0.0f);
	}
	vec3s axis = glms_vec3_scale(w, sinf(0.5f * angle) / angle);
	return kl_quat_wxyz(cosf(0.5f * angle), axis.x, axis.y, axis.z);
}

static kl_result kl_ens_scale_mass(kl_body_id body, float factor)
{
	kl_mass_data mass = kl_body_get_mass_data(body);
	mass.mass *= factor;
	mass.inertia = glms_mat3_scale(mass.inertia, factor);
	return kl_body_set_mass_data(body, mass);
}

static kl_result kl_ens_add_friction(kl_body_id body, float delta)
{
	kl_shape_id shapes[64];
	int count = kl_body_get_shapes(body, shapes, 64);
	kl_result result = KL_OK;
	for (int i = 0; i < count && i < 64 && result == KL_OK; ++i)
	{
		kl_material material = kl_shape_get_material(shapes[i]);
		material.friction = fmaxf(0.0f, material.friction + delta);
		result = kl_shape_set_material(shapes[i], material);
	}
	return result;
}

static kl_result kl_ens_apply_perturb(const kl_ens_perturb* perturb, kl_body_id body, vec3s n)
{
	kl_transform pose = kl_body_get_transform(body);
	switch (perturb->kind)
	{
		case KL_ENS_POSITION: return kl_body_set_transform(body, glms_vec3_add(pose.p, n), pose.q);
		case KL_ENS_ANGLE:
			return kl_body_set_transform(body, pose.p,
										 glms_quat_normalize(glms_quat_mul(kl_ens_rotation_from_vector(n), pose.q)));
		case KL_ENS_VELOCITY:
			return kl_body_set_linear_velocity(body, glms_vec3_add(kl_body_get_linear_velocity(body), n));
		case KL_ENS_MASS: return kl_ens_scale_mass(body, fmaxf(0.01f, 1.0f + n.x));
		case KL_ENS_FRICTION: return kl_ens_add_friction(body, n.x);
	}
	return KL_OK;
}

// Every perturbation in the order given draws three normals (the scalar kinds use the first), so a
// draw's counter depends only on its place in the list. A perturbed value the engine refuses (a
// position out of range, the mass of a static body) fails the sample with the engine's message.
static bool kl_ens_apply_perturbs(const kl_ensemble* ens, int sample, const kl_body_id* bodies)
{
	uint64_t pair = 0;
	bool ok = true;
	for (int i = 0; i < ens->def.perturb_count; ++i)
	{
		const kl_ens_perturb* perturb = &ens->def.perturbs[i];
		vec3s n = kl_ens_draw3(ens, sample, &pair, perturb);
		ok = ok && kl_ens_apply_perturb(perturb, bodies[perturb->body_index], n) == KL_OK;
	}
	return ok;
}

bool kl_ens_run_sample(const kl_ensemble* ens, int index, float* state, uint32_t* hash)
{
	kl_world_id world = kl_ens_load(ens, true);
	if (!kl_world_is_valid(world))
	{
		return false;
	}
	int count = ens->body_count;
	kl_body_id* bodies = malloc(sizeof(kl_body_id) * (size_t)(count + 1));
	if (bodies == NULL || kl_world_get_bodies(world, bodies, count) != count)
	{
		free(bodies);
		kl_destroy_world(world);
		return false;
	}
	bool ok = kl_ens_apply_perturbs(ens, index, bodies);
	for (int i = 0; i < count; ++i)
	{
		vec3s p = kl_body_get_position(bodies[i]);
		memcpy(state + i * KL_ENS_BODY_STRIDE, p.raw, sizeof(float) * 3);
	}
	int overlaps[KL_ENS_MAX_REGIONS] = {0};
	for (int step = 0; step < ens->def.step_count && ok; ++step)
	{
		ok = kl_world_step(world, ens->def.dt, ens->def.substeps) == KL_OK;
		kl_ens_track_sensor_regions(ens, world, bodies, overlaps);
	}
	for (int i = 0; i < count; ++i)
	{
		kl_transform pose = kl_body_get_transform(bodies[i]);
		memcpy(state + i * KL_ENS_BODY_STRIDE + 3, pose.p.raw, sizeof(float) * 3);
		memcpy(state + i * KL_ENS_BODY_STRIDE + 6, pose.q.raw, sizeof(float) * 4);
	}
	kl_ens_region_flags(ens, overlaps, state);
	*hash = kl_world_hash_transforms(world);
	free(bodies);
	kl_destroy_world(world);
	return ok;
}

void kl_ens_progress(const kl_ensemble* ens, int done)
{
	if (!ens->def.progress || !isatty(2))
	{
		return;
	}
	int total = ens->def.sample_count;
	int width = 40, filled = (int)((long long)done * width / total);
	char bar[64];
	for (int i = 0; i < width; ++i)
	{
		bar[i] = i < filled ? '#' : '.';
	}
	bar[width] = '\0';
	fprintf(stderr, "\r[%s] %d/%d%s", bar, done, total, done == total ? "\n" : "");
	fflush(stderr);
}

typedef struct kl_ens_pool
{
	kl_ensemble* ens;
	atomic_int next;
	atomic_int done;
	atomic_int failed; ///< the first sample that failed + 1, or 0
	char message[256]; ///< kl_last_error() of that sample's thread
} kl_ens_pool;

// Claims sample indices one at a time: dynamic balancing, and each result lands in its own slot.
static void* kl_ens_worker(void* context)
{
	kl_ens_pool* pool = context;
	kl_ensemble* ens = pool->ens;
	size_t row = kl_ens_row_floats(ens);
	for (int i = atomic_fetch_add(&pool->next, 1); i < ens->def.sample_count; i = atomic_fetch_add(&pool->next, 1))
	{
		if (!kl_ens_run_sample(ens, i, ens->states + (size_t)i * row, ens->hashes + i))
		{
			int none = 0;
			if (atomic_compare_exchange_strong(&pool->failed, &none, i + 1))
			{
				snprintf(pool->message, sizeof(pool->message), "%s", kl_last_error());
			}
		}
		int done = atomic_fetch_add(&pool->done, 1) + 1;
		if (done % 16 == 0 || done == ens->def.sample_count)
		{
			kl_ens_progress(ens, done);
		}
	}
	return NULL;
}

bool kl_ens_run_threads(kl_ensemble* ens, char* error, int capacity)
{
	kl_ens_pool pool = {.ens = ens};
	atomic_init(&pool.next, 0);
	atomic_init(&pool.done, 0);
	atomic_init(&pool.failed, 0);
	int extra = ens->def.thread_count - 1;
	pthread_t threads[KL_ENS_MAX_THREADS];
	int started = 0;
	while (started < extra && pthread_create(&threads[started], NULL, kl_ens_worker, &pool) == 0)
	{
		++started;
	}
	kl_ens_worker(&pool); // the caller is a worker too
	for (int i = 0; i < started; ++i)
	{
		pthread_join(threads[i], NULL);
	}
	int failed = atomic_load(&pool.failed);
	if (failed != 0)
	{
		snprintf(error, (size_t)capacity, "sample %d failed: %s", failed - 1, pool.message);
	}
	return failed == 0;
}
