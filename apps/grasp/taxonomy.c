// Kollide grasp — the taxonomy's types and our 17 categories: types merged where they share the
// opposition type, the virtual fingers and the thumb position and differ only in the object's size
// or shape (docs/grasp.md lists them).
// SPDX-License-Identifier: MIT
#include "taxonomy.h"

#include <stddef.h>

static const char* const categories[KG_CATEGORY_COUNT] = {
	"power wrap",
	"adducted-thumb wrap",
	"power sphere",
	"hook",
	"index extension",
	"palmar",
	"extension",
	"distal",
	"sphere finger",
	"ring",
	"prismatic",
	"pinch",
	"circular precision",
	"parallel extension",
	"lateral",
	"tripod writing",
	"adduction",
};

static const kg_grasp_type types[KG_TYPE_COUNT] = {
	{1, "Large Diameter", 0, true},
	{2, "Small Diameter", 0, true},
	{3, "Medium Wrap", 0, true},
	{4, "Adducted Thumb", 1, false},
	{5, "Light Tool", 1, false},
	{6, "Prismatic 4 Finger", 10, true},
	{7, "Prismatic 3 Finger", 10, true},
	{8, "Prismatic 2 Finger", 10, true},
	{9, "Palmar Pinch", 11, true},
	{10, "Power Disk", 2, true},
	{11, "Power Sphere", 2, true},
	{12, "Precision Disk", 12, true},
	{13, "Precision Sphere", 12, true},
	{14, "Tripod", 12, true},
	{15, "Fixed Hook", 3, false},
	{16, "Lateral", 14, false},
	{17, "Index Finger Extension", 4, false},
	{18, "Extension Type", 6, true},
	{19, "Distal Type", 7, true},
	{20, "Writing Tripod", 15, false},
	{21, "Tripod Variation", 15, false},
	{22, "Parallel Extension", 13, false},
	{23, "Adduction Grip", 16, true},
	{24, "Tip Pinch", 11, true},
	{25, "Lateral Tripod", 14, false},
	{26, "Sphere 4 Finger", 8, true},
	{27, "Quadpod", 12, true},
	{28, "Sphere 3 Finger", 8, true},
	{29, "Stick", 14, false},
	{30, "Palmar", 5, false},
	{31, "Ring", 9, true},
	{32, "Ventral", 14, false},
	{33, "Inferior Pincer", 11, true},
};

const kg_grasp_type* kg_grasp_type_get(int number)
{
	return number >= 1 && number <= KG_TYPE_COUNT ? &types[number - 1] : NULL;
}

const char* kg_category_name(int category)
{
	return category >= 0 && category < KG_CATEGORY_COUNT ? categories[category] : "unknown";
}
