// Kollide — generation-checked ids, passed by value. A zeroed id is the null id.
// SPDX-License-Identifier: MIT
#pragma once

#include "base.h"

KL_C_BEGIN

/// World id: index1 = slot + 1 (0 is null), generation bumps when the slot is reused.
typedef struct kl_world_id
{
	uint16_t index1;
	uint16_t generation;
} kl_world_id;

/// Body id.
typedef struct kl_body_id
{
	int32_t index1;
	uint16_t world0;
	uint16_t generation;
} kl_body_id;

/// Shape id.
typedef struct kl_shape_id
{
	int32_t index1;
	uint16_t world0;
	uint16_t generation;
} kl_shape_id;

/// Joint id.
typedef struct kl_joint_id
{
	int32_t index1;
	uint16_t world0;
	uint16_t generation;
} kl_joint_id;

static const kl_world_id kl_null_world_id = {0, 0};
static const kl_body_id kl_null_body_id = {0, 0, 0};
static const kl_shape_id kl_null_shape_id = {0, 0, 0};
static const kl_joint_id kl_null_joint_id = {0, 0, 0};

#define KL_IS_NULL(id) ((id).index1 == 0)
#define KL_IS_NON_NULL(id) ((id).index1 != 0)
#define KL_ID_EQUALS(a, b) ((a).index1 == (b).index1 && (a).world0 == (b).world0 && (a).generation == (b).generation)

/// Packs an id into 64 bits (for hash maps and user data); kl_*_id_from_u64 reverses it.
static inline uint64_t kl_body_id_to_u64(kl_body_id id)
{
	return ((uint64_t)(uint32_t)id.index1 << 32) | ((uint64_t)id.world0 << 16) | (uint64_t)id.generation;
}

static inline kl_body_id kl_body_id_from_u64(uint64_t x)
{
	kl_body_id id = {(int32_t)(uint32_t)(x >> 32), (uint16_t)(x >> 16), (uint16_t)x};
	return id;
}

KL_C_END
