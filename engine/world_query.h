// Kollide internal — what the world queries share (world_query.c, world_query_shape.c): the query
// filter, the world lookup, and Box3D's convention for the value a cast callback returns.
// SPDX-License-Identifier: MIT
#pragma once

#include "world.h"

/// Category and mask agree both ways (group indices play no part in queries).
static inline bool kl_query_filter_accepts(const kl_shape* shape, kl_filter filter)
{
	return (shape->filter.category_bits & filter.mask_bits) != 0 &&
		   (filter.category_bits & shape->filter.mask_bits) != 0;
}

/// The world of a query, or NULL with kl_fail: a bad id, or a world inside kl_world_step (queries
/// read the bodies' poses, which the step is writing). `name` is the API function, for the message.
kl_world* kl_query_world(kl_world_id id, const char* name);

/// Applies what a cast callback returned to the query's clip: 0 stops (false); a value in
/// (0, *max_fraction) clips the cast there; anything else (-1: ignore this shape, 1: go on without
/// clipping, NaN) leaves it. True to go on.
static inline bool kl_query_cast_continue(float value, float* max_fraction)
{
	if (value == 0.0f)
	{
		return false;
	}
	if (value > 0.0f && value < *max_fraction)
	{
		*max_fraction = value;
	}
	return true;
}

/// The world pose of a shape's frame: body transform times local pose.
static inline kl_transform kl_query_shape_transform(const kl_world* world, const kl_shape* shape)
{
	return kl_transform_mul(world->sims[shape->body].transform, shape->local_pose);
}
