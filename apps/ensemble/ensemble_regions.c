// Kollide ensembles — outcome regions: boxes tested on the final position, and sensor shapes of the
// scene whose begin and end events say whether the region's body overlaps them at the end.
// SPDX-License-Identifier: MIT
#include "ensemble.h"

#include <stdio.h>

// True when the body has a sensor shape that reports events (a silent sensor would never say).
static bool kl_ens_has_reporting_sensor(kl_body_id body)
{
	kl_shape_id shapes[64];
	int count = kl_body_get_shapes(body, shapes, 64);
	for (int k = 0; k < count && k < 64; ++k)
	{
		kl_shape_def def = kl_shape_get_def(shapes[k]);
		if (def.is_sensor && def.enable_sensor_events)
		{
			return true;
		}
	}
	return false;
}

bool kl_ens_resolve_sensor_regions(kl_ensemble* ens, const kl_body_id* bodies, char* error, int capacity)
{
	for (int r = 0; r < ens->def.region_count; ++r)
	{
		kl_ens_region* region = &ens->def.regions[r];
		region->sensor_index = -1;
		if (region->sensor_body[0] == '\0')
		{
			continue;
		}
		region->sensor_index = kl_ens_find_body(ens, region->sensor_body);
		if (region->sensor_index < 0 || !kl_ens_has_reporting_sensor(bodies[region->sensor_index]))
		{
			snprintf(error, (size_t)capacity,
					 "region '%s': no body '%s' with a sensor shape that has \"sensor_events\": true", region->name,
					 region->sensor_body);
			return false;
		}
	}
	return true;
}

// +1 per begin, −1 per end event between the region's sensor body and its body.
static void kl_ens_count_events(const kl_ensemble* ens, const kl_body_id* bodies, const kl_sensor_event* events,
								int event_count, int sign, int* overlaps)
{
	for (int e = 0; e < event_count; ++e)
	{
		kl_body_id sensor = kl_shape_get_body(events[e].sensor);
		kl_body_id visitor = kl_shape_get_body(events[e].visitor);
		for (int r = 0; r < ens->def.region_count; ++r)
		{
			const kl_ens_region* region = &ens->def.regions[r];
			if (region->sensor_index >= 0 && KL_ID_EQUALS(sensor, bodies[region->sensor_index]) &&
				KL_ID_EQUALS(visitor, bodies[region->body_index]))
			{
				overlaps[r] += sign;
			}
		}
	}
}

void kl_ens_track_sensor_regions(const kl_ensemble* ens, kl_world_id world, const kl_body_id* bodies, int* overlaps)
{
	kl_sensor_events events = kl_world_get_sensor_events(world);
	kl_ens_count_events(ens, bodies, events.begin_events, events.begin_count, 1, overlaps);
	kl_ens_count_events(ens, bodies, events.end_events, events.end_count, -1, overlaps);
}

static bool kl_ens_inside(kl_aabb box, const float* p)
{
	for (int k = 0; k < 3; ++k)
	{
		if (!(p[k] >= box.lower.raw[k] && p[k] <= box.upper.raw[k]))
		{
			return false;
		}
	}
	return true;
}

void kl_ens_region_flags(const kl_ensemble* ens, const int* overlaps, float* state)
{
	float* flags = state + (size_t)ens->body_count * KL_ENS_BODY_STRIDE;
	for (int r = 0; r < ens->def.region_count; ++r)
	{
		const kl_ens_region* region = &ens->def.regions[r];
		bool inside = region->sensor_index >= 0
						  ? overlaps[r] > 0
						  : kl_ens_inside(region->box, state + region->body_index * KL_ENS_BODY_STRIDE + 3);
		flags[r] = inside ? 1.0f : 0.0f;
	}
}
