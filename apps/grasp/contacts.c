// Kollide grasp — hand–object contacts per part.
// SPDX-License-Identifier: MIT
#include "contacts.h"

#include <stdlib.h>
#include <string.h>

bool kg_hand_trees_build(kg_hand_trees* trees, const kg_hand* hand)
{
	memset(trees, 0, sizeof(*trees));
	trees->scratch = malloc(sizeof(kl_sphere_pair) * KG_PART_PAIR_CAPACITY);
	if (trees->scratch == NULL)
	{
		kg_set_error("out of memory for the hand's trees");
		return false;
	}
	kl_sphere_tree_def def = kl_default_sphere_tree_def();
	for (int p = 0; p < KG_PART_COUNT; ++p)
	{
		trees->parts[p] = kl_sphere_tree_build(hand->spheres[p], hand->sphere_count[p], &def);
		if (trees->parts[p] == NULL)
		{
			kg_set_error("hand part %d: %s", p, kl_last_error());
			kg_hand_trees_destroy(trees);
			return false;
		}
	}
	return true;
}

void kg_hand_trees_destroy(kg_hand_trees* trees)
{
	for (int p = 0; p < KG_PART_COUNT; ++p)
		kl_sphere_tree_destroy(trees->parts[p]);
	free(trees->scratch);
	memset(trees, 0, sizeof(*trees));
}

kl_sphere_tree* kg_object_tree_build(const kg_object* object)
{
	kl_sphere_tree* tree = kl_sphere_tree_build(object->spheres, object->sphere_count, NULL);
	if (tree == NULL)
		kg_set_error("object %s: %s", object->name, kl_last_error());
	return tree;
}

bool kg_hand_contacts(const kg_hand* hand, const kg_hand_trees* trees, const kl_transform parts[KG_PART_COUNT],
					  kl_transform wrist, const kl_sphere_tree* object, kl_transform object_pose, kg_contacts* out,
					  kl_sphere_pair* pairs, int* pair_part, int capacity, int* pair_count)
{
	memset(out, 0, sizeof(*out));
	int written = 0;
	kl_sphere_pair* local = trees->scratch;
	for (int p = 0; p < KG_PART_COUNT; ++p)
	{
		kl_transform pose = kl_transform_mul(wrist, parts[p]);
		kl_sphere_overlap_def def = kl_default_sphere_overlap_def();
		def.pairs = local;
		def.pair_capacity = KG_PART_PAIR_CAPACITY;
		kl_sphere_overlap_result r;
		if (kl_sphere_tree_overlap(trees->parts[p], pose, object, object_pose, &def, &r) != KL_OK)
		{
			kg_set_error("contact query: %s", kl_last_error());
			return false;
		}
		kg_part_contact* c = &out->parts[p];
		c->pair_count = r.pair_count;
		c->max_depth = r.max_depth;
		c->volume = r.found_volume;
		int n = r.pair_count < KG_PART_PAIR_CAPACITY ? r.pair_count : KG_PART_PAIR_CAPACITY;
		float length = p == KG_PALM ? hand->palm_length : hand->bone_length[(p - 1) / 3][(p - 1) % 3];
		float weight = 0.0f;
		for (int i = 0; i < n; ++i)
		{
			// The pair normal points from the object's sphere to the hand's: the object lies opposite.
			float w = local[i].volume + 1e-12f;
			c->direction = glms_vec3_add(c->direction, glms_vec3_scale(kl_inv_rotate(pose.q, local[i].normal), -w));
			c->along += w * kl_inv_transform_point(pose, local[i].point).x / length;
			c->point = glms_vec3_add(c->point, glms_vec3_scale(local[i].point, w));
			weight += w;
			if (pairs != NULL && written < capacity)
			{
				pairs[written] = local[i];
				if (pair_part != NULL)
					pair_part[written] = p;
				++written;
			}
		}
		if (weight > 0.0f)
		{
			c->along /= weight;
			c->point = glms_vec3_scale(c->point, 1.0f / weight);
			float norm = glms_vec3_norm(c->direction);
			c->direction = norm > 0.0f ? glms_vec3_scale(c->direction, 1.0f / norm) : c->direction;
		}
	}
	if (pair_count != NULL)
		*pair_count = written;
	return true;
}

bool kg_finger_touches(const kg_contacts* contacts, int finger)
{
	if (finger == KG_FINGER_COUNT)
		return contacts->parts[KG_PALM].pair_count > 0;
	for (int k = 0; k < 3; ++k)
		if (contacts->parts[kg_part_of(finger, k)].pair_count > 0)
			return true;
	return false;
}
