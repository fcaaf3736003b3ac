// Kollide grasp — the labelled set: seeded grasp sequences in which a hand of random size closes from
// an open pose toward a type's canonical shape on that type's object, each finger stopping where it
// meets the object, with noise on the shape, the object's placement and the measured angles.
// SPDX-License-Identifier: MIT
#pragma once

#include "contacts.h"
#include "recording.h"

/// Objects filled and their trees, built once for a whole set.
typedef struct kg_object_set
{
	kg_object objects[KG_OBJ_COUNT];
	kl_sphere_tree* trees[KG_OBJ_COUNT];
} kg_object_set;

bool kg_object_set_build(kg_object_set* set);
void kg_object_set_destroy(kg_object_set* set);

/// A small deterministic generator (splitmix64).
typedef struct kg_rng
{
	uint64_t state;
} kg_rng;

double kg_rng_uniform(kg_rng* rng);
double kg_rng_normal(kg_rng* rng);

#define KG_SEQUENCE_FRAMES 30

/// One labelled sequence of type `type` (1 to 33) at 90 Hz into recording (initialised here).
bool kg_generate_sequence(const kg_object_set* set, int type, kg_rng* rng, kg_recording* recording);
