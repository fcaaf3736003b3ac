// Kollide grasp — the GRASP taxonomy (Feix et al. 2016): 33 grasp types in 17 categories.
// SPDX-License-Identifier: MIT
#pragma once

#include <stdbool.h>

#define KG_TYPE_COUNT 33
#define KG_CATEGORY_COUNT 17

typedef struct kg_grasp_type
{
	int number; ///< 1 to 33, the taxonomy's numbering
	const char* name;
	int category;  ///< 0 to 16
	bool abducted; ///< the taxonomy's thumb position
} kg_grasp_type;

/// The type with this number (1 to 33), NULL otherwise.
const kg_grasp_type* kg_grasp_type_get(int number);
const char* kg_category_name(int category);
