// Kollide — URDF XML reading with expat: the <robot>'s links (inertial, collision, visual) and
// joints as written; the tree is checked afterwards (urdf_model.c). Elements the engine has no use
// for (gazebo, transmission, dynamics, ...) are skipped with everything inside them.
// SPDX-License-Identifier: MIT
#include "urdf_internal.h"

#include <expat.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// Largest length, coordinate or joint limit taken (m); angles are taken within ±KL_URDF_MAX_ANGLE.
#define KL_URDF_MAX_LENGTH 1.0e5
#define KL_URDF_MAX_ANGLE 1.0e3
#define KL_URDF_MAX_DEPTH 64

typedef enum element
{
	E_OTHER = 0,
	E_ROBOT,
	E_LINK,
	E_JOINT,
	E_INERTIAL,
	E_COLLISION,
	E_VISUAL,
	E_GEOMETRY,
	E_MATERIAL,
} element;

typedef struct reader
{
	XML_Parser parser;
	const char* file;
	kl_urdf_model* model;
	kl_urdf_raw_joint* raw;
	int link_capacity;
	int joint_capacity;
	int collision_capacity; ///< of the link being read
	int visual_capacity;
	element stack[KL_URDF_MAX_DEPTH];
	int depth;
	kl_urdf_geometry* geometry; ///< the collision or visual being read
	bool geometry_known;		///< its <geometry> held a shape this reader knows
	bool failed;
} reader;

static void fail_with(reader* r, kl_result code, const char* format, va_list args)
{
	if (r->failed)
	{
		return;
	}
	char text[400];
	vsnprintf(text, sizeof(text), format, args);
	kl_urdf_fail(r->file, code, "line %lu: %s", (unsigned long)XML_GetCurrentLineNumber(r->parser), text);
	r->failed = true;
	XML_StopParser(r->parser, XML_FALSE);
}

static void fail(reader* r, const char* format, ...) KL_PRINTF(2, 3);

static void fail(reader* r, const char* format, ...)
{
	va_list args;
	va_start(args, format);
	fail_with(r, KL_ERR_PARSE, format, args);
	va_end(args);
}

static void fail_code(reader* r, kl_result code, const char* format, ...) KL_PRINTF(3, 4);

static void fail_code(reader* r, kl_result code, const char* format, ...)
{
	va_list args;
	va_start(args, format);
	fail_with(r, code, format, args);
	va_end(args);
}

static void out_of_memory(reader* r)
{
	fail_code(r, KL_ERR_OUT_OF_MEMORY, "out of memory");
}

static const char* attribute(const char** attrs, const char* key)
{
	for (int i = 0; attrs[i] != NULL; i += 2)
	{
		if (strcmp(attrs[i], key) == 0)
		{
			return attrs[i + 1];
		}
	}
	return NULL;
}

/// Exactly count numbers separated by white space, each finite and within ±limit.
static bool parse_numbers(reader* r, const char* tag, const char* key, const char* text, double limit, double* out,
						  int count)
{
	const char* p = text;
	for (int i = 0; i < count; ++i)
	{
		char* end = NULL;
		double v = strtod(p, &end);
		if (end == p)
		{
			fail(r, "<%s %s=\"%.40s\">: expected %d number%s", tag, key, text, count, count > 1 ? "s" : "");
			return false;
		}
		if (!isfinite(v) || fabs(v) > limit)
		{
			fail(r, "<%s %s>: %g is not finite or beyond %g", tag, key, v, limit);
			return false;
		}
		out[i] = v;
		p = end;
	}
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
	{
		++p;
	}
	if (*p != '\0')
	{
		fail(r, "<%s %s=\"%.40s\">: expected %d number%s", tag, key, text, count, count > 1 ? "s" : "");
		return false;
	}
	return true;
}

/// Reads attribute key (absent: keeps out unless required).
static bool read_numbers(reader* r, const char* tag, const char** attrs, const char* key, bool required, double limit,
						 double* out, int count)
{
	const char* text = attribute(attrs, key);
	if (text == NULL)
	{
		if (required)
		{
			fail(r, "<%s> needs the attribute %s", tag, key);
		}
		return !required;
	}
	return parse_numbers(r, tag, key, text, limit, out, count);
}

static bool read_non_negative(reader* r, const char* tag, const char** attrs, const char* key, bool required,
							  double limit, double* out)
{
	if (!read_numbers(r, tag, attrs, key, required, limit, out, 1))
	{
		return false;
	}
	if (*out < 0.0)
	{
		fail(r, "<%s %s>: %g must not be negative", tag, key, *out);
		return false;
	}
	return true;
}

static bool read_origin(reader* r, const char** attrs, double* xyz, double* rpy)
{
	return read_numbers(r, "origin", attrs, "xyz", false, KL_URDF_MAX_LENGTH, xyz, 3) &&
		   read_numbers(r, "origin", attrs, "rpy", false, KL_URDF_MAX_ANGLE, rpy, 3);
}

static char* copy_name(reader* r, const char* tag, const char** attrs, const char* key)
{
	const char* name = attribute(attrs, key);
	if (name == NULL || name[0] == '\0')
	{
		fail(r, "<%s> needs a non-empty %s", tag, key);
		return NULL;
	}
	char* copy = kl_strdup(name);
	if (copy == NULL)
	{
		out_of_memory(r);
	}
	return copy;
}

/// Grows an array by one element of size bytes (zeroed); NULL when full or out of memory.
static void* grow(reader* r, void** items, int* count, int* capacity, size_t size, int limit, const char* what)
{
	if (*count >= limit)
	{
		fail(r, "more than %d %s", limit, what);
		return NULL;
	}
	if (*count == *capacity)
	{
		int bigger = *capacity == 0 ? 8 : 2 * *capacity;
		bigger = bigger < limit ? bigger : limit;
		void* p = kl_realloc(*items, (size_t)bigger, size);
		if (p == NULL)
		{
			out_of_memory(r);
			return NULL;
		}
		*items = p;
		*capacity = bigger;
	}
	char* item = (char*)*items + (size_t)*count * size;
	memset(item, 0, size);
	*count += 1;
	return item;
}

// ---------------------------------------------------------------------------------------------
// Elements

static element start_link(reader* r, const char** attrs)
{
	kl_urdf_model* m = r->model;
	kl_urdf_link* link =
		grow(r, (void**)&m->links, &m->link_count, &r->link_capacity, sizeof(kl_urdf_link), KL_URDF_MAX_LINKS, "links");
	r->collision_capacity = 0;
	r->visual_capacity = 0;
	if (link != NULL)
	{
		link->parent_joint = -1;
		link->name = copy_name(r, "link", attrs, "name");
	}
	return E_LINK;
}

static element start_joint(reader* r, const char** attrs)
{
	kl_urdf_model* m = r->model;
	int capacity = r->joint_capacity;
	kl_urdf_joint* joint = grow(r, (void**)&m->joints, &m->joint_count, &r->joint_capacity, sizeof(kl_urdf_joint),
								KL_URDF_MAX_LINKS, "joints");
	if (joint == NULL)
	{
		return E_JOINT;
	}
	if (r->joint_capacity != capacity)
	{
		kl_urdf_raw_joint* raw = kl_realloc(r->raw, (size_t)r->joint_capacity, sizeof(kl_urdf_raw_joint));
		if (raw == NULL)
		{
			m->joint_count -= 1;
			out_of_memory(r);
			return E_JOINT;
		}
		r->raw = raw;
	}
	r->raw[m->joint_count - 1] = (kl_urdf_raw_joint){0};
	joint->axis[0] = 1.0;
	joint->parent = joint->child = -1;
	joint->name = copy_name(r, "joint", attrs, "name");
	static const char* const types[] = {"fixed", "revolute", "continuous", "prismatic"};
	const char* type = attribute(attrs, "type");
	for (int i = 0; type != NULL && i < 4; ++i)
	{
		if (strcmp(type, types[i]) == 0)
		{
			joint->type = (kl_urdf_joint_type)i;
			return E_JOINT;
		}
	}
	fail(r, "joint '%s': %s%s%s (this loader knows fixed, revolute, continuous and prismatic joints)",
		 joint->name != NULL ? joint->name : "", type != NULL ? "unknown type '" : "no type", type != NULL ? type : "",
		 type != NULL ? "'" : "");
	return E_JOINT;
}

static kl_urdf_link* current_link(reader* r)
{
	return &r->model->links[r->model->link_count - 1];
}

static kl_urdf_joint* current_joint(reader* r)
{
	return &r->model->joints[r->model->joint_count - 1];
}

static element start_geometry_holder(reader* r, bool visual)
{
	kl_urdf_link* link = current_link(r);
	kl_urdf_geometry* g = visual ? grow(r, (void**)&link->visuals, &link->visual_count, &r->visual_capacity,
										sizeof(kl_urdf_geometry), KL_URDF_MAX_GEOMETRIES, "visuals in a link")
								 : grow(r, (void**)&link->collisions, &link->collision_count, &r->collision_capacity,
										sizeof(kl_urdf_geometry), KL_URDF_MAX_GEOMETRIES, "collisions in a link");
	r->geometry = g;
	r->geometry_known = false;
	if (g != NULL)
	{
		g->scale[0] = g->scale[1] = g->scale[2] = 1.0;
		g->rgba[0] = g->rgba[1] = g->rgba[2] = 0.7f;
		g->rgba[3] = 1.0f;
	}
	return visual ? E_VISUAL : E_COLLISION;
}

static void start_shape(reader* r, const char* tag, const char** attrs, bool visual)
{
	kl_urdf_geometry* g = r->geometry;
	if (r->geometry_known)
	{
		fail(r, "link '%s': a <geometry> holds one shape", current_link(r)->name);
		return;
	}
	r->geometry_known = true;
	if (strcmp(tag, "box") == 0)
	{
		g->type = KL_URDF_BOX;
		read_numbers(r, tag, attrs, "size", true, KL_URDF_MAX_LENGTH, g->size, 3);
	}
	else if (strcmp(tag, "cylinder") == 0)
	{
		g->type = KL_URDF_CYLINDER;
		if (read_non_negative(r, tag, attrs, "radius", true, KL_URDF_MAX_LENGTH, &g->radius))
		{
			read_non_negative(r, tag, attrs, "length", true, KL_URDF_MAX_LENGTH, &g->length);
		}
	}
	else if (strcmp(tag, "sphere") == 0)
	{
		g->type = KL_URDF_SPHERE;
		read_non_negative(r, tag, attrs, "radius", true, KL_URDF_MAX_LENGTH, &g->radius);
	}
	else if (strcmp(tag, "mesh") == 0)
	{
		g->type = KL_URDF_MESH;
		g->uri = copy_name(r, tag, attrs, "filename");
		read_numbers(r, tag, attrs, "scale", false, KL_URDF_MAX_LENGTH, g->scale, 3);
	}
	else if (visual)
	{
		r->geometry_known = false; // an unknown visual is dropped, not an error
	}
	else
	{
		fail(r, "link '%s': unknown collision geometry <%s> (box, cylinder, sphere or mesh)", current_link(r)->name,
			 tag);
	}
}

static void start_inertial_part(reader* r, const char* tag, const char** attrs)
{
	kl_urdf_link* link = current_link(r);
	if (strcmp(tag, "origin") == 0)
	{
		read_origin(r, attrs, link->inertial_xyz, link->inertial_rpy);
	}
	else if (strcmp(tag, "mass") == 0)
	{
		read_non_negative(r, tag, attrs, "value", true, 1.0e15, &link->mass);
	}
	else if (strcmp(tag, "inertia") == 0)
	{
		static const char* const keys[] = {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"};
		for (int i = 0; i < 6 && !r->failed; ++i)
		{
			read_numbers(r, tag, attrs, keys[i], false, 1.0e26, &link->inertia[i], 1);
		}
	}
}

static void start_joint_part(reader* r, const char* tag, const char** attrs)
{
	kl_urdf_joint* joint = current_joint(r);
	kl_urdf_raw_joint* raw = &r->raw[r->model->joint_count - 1];
	if (strcmp(tag, "parent") == 0 || strcmp(tag, "child") == 0)
	{
		char** name = tag[0] == 'p' ? &raw->parent_name : &raw->child_name;
		kl_free(*name);
		*name = copy_name(r, tag, attrs, "link");
	}
	else if (strcmp(tag, "origin") == 0)
	{
		read_origin(r, attrs, joint->xyz, joint->rpy);
	}
	else if (strcmp(tag, "axis") == 0)
	{
		read_numbers(r, tag, attrs, "xyz", true, KL_URDF_MAX_LENGTH, joint->axis, 3);
	}
	else if (strcmp(tag, "limit") == 0)
	{
		joint->has_limit = joint->type == KL_URDF_REVOLUTE || joint->type == KL_URDF_PRISMATIC;
		bool ok = read_numbers(r, tag, attrs, "lower", false, KL_URDF_MAX_LENGTH, &joint->lower, 1) &&
				  read_numbers(r, tag, attrs, "upper", false, KL_URDF_MAX_LENGTH, &joint->upper, 1) &&
				  read_non_negative(r, tag, attrs, "effort", false, 1.0e15, &joint->effort);
		if (ok)
		{
			read_non_negative(r, tag, attrs, "velocity", false, 1.0e15, &joint->velocity);
		}
	}
}

static element start_child(reader* r, element parent, const char* tag, const char** attrs)
{
	switch (parent)
	{
		case E_ROBOT:
			return strcmp(tag, "link") == 0	   ? start_link(r, attrs)
				   : strcmp(tag, "joint") == 0 ? start_joint(r, attrs)
											   : E_OTHER;
		case E_LINK:
			if (strcmp(tag, "inertial") == 0)
			{
				return E_INERTIAL;
			}
			if (strcmp(tag, "collision") == 0 || strcmp(tag, "visual") == 0)
			{
				return start_geometry_holder(r, tag[0] == 'v');
			}
			return E_OTHER;
		case E_INERTIAL: start_inertial_part(r, tag, attrs); return E_OTHER;
		case E_JOINT: start_joint_part(r, tag, attrs); return E_OTHER;
		case E_COLLISION:
		case E_VISUAL:
			if (strcmp(tag, "origin") == 0)
			{
				read_origin(r, attrs, r->geometry->xyz, r->geometry->rpy);
			}
			else if (strcmp(tag, "geometry") == 0)
			{
				return E_GEOMETRY;
			}
			else if (strcmp(tag, "material") == 0 && parent == E_VISUAL)
			{
				return E_MATERIAL;
			}
			return E_OTHER;
		case E_GEOMETRY: start_shape(r, tag, attrs, r->stack[r->depth - 2] == E_VISUAL); return E_OTHER;
		case E_MATERIAL:
			if (strcmp(tag, "color") == 0)
			{
				double c[4];
				if (read_numbers(r, tag, attrs, "rgba", true, 1.0, c, 4))
				{
					for (int i = 0; i < 4; ++i)
					{
						r->geometry->rgba[i] = (float)c[i];
					}
				}
			}
			return E_OTHER;
		case E_OTHER: return E_OTHER;
	}
	return E_OTHER;
}

static void XMLCALL on_start(void* context, const XML_Char* tag, const XML_Char** attrs)
{
	reader* r = context;
	if (r->failed)
	{
		return;
	}
	element e = E_OTHER;
	if (r->depth == 0)
	{
		if (strcmp(tag, "robot") != 0)
		{
			fail(r, "the document is <%s>, not a <robot>", tag);
			return;
		}
		r->model->name = copy_name(r, "robot", attrs, "name");
		e = E_ROBOT;
	}
	else if (r->depth < KL_URDF_MAX_DEPTH)
	{
		e = start_child(r, r->stack[r->depth - 1], tag, attrs);
	}
	if (r->depth < KL_URDF_MAX_DEPTH)
	{
		r->stack[r->depth] = e;
	}
	r->depth += 1;
}

static void XMLCALL on_end(void* context, const XML_Char* tag)
{
	(void)tag;
	reader* r = context;
	if (r->failed)
	{
		return;
	}
	r->depth -= 1;
	element e = r->depth < KL_URDF_MAX_DEPTH ? r->stack[r->depth] : E_OTHER;
	if (e == E_COLLISION && !r->geometry_known)
	{
		fail(r, "link '%s': a <collision> without a <geometry> shape", current_link(r)->name);
	}
	else if (e == E_VISUAL && !r->geometry_known)
	{
		kl_urdf_link* link = current_link(r);
		kl_free(link->visuals[link->visual_count - 1].uri);
		link->visual_count -= 1;
	}
}

kl_urdf_model* kl_urdf_read_xml(const char* text, size_t length, const char* file, kl_urdf_raw_joint** raw_out)
{
	*raw_out = NULL;
	if (length > KL_URDF_MAX_FILE_SIZE || length > (size_t)INT32_MAX)
	{
		return kl_urdf_fail(file, KL_ERR_LIMIT, "%zu bytes exceed the URDF limit", length);
	}
	reader r = {0};
	r.file = file;
	r.model = kl_alloc_zero(1, sizeof(kl_urdf_model));
	r.parser = r.model != NULL ? XML_ParserCreate("UTF-8") : NULL;
	if (r.parser == NULL)
	{
		kl_free(r.model);
		return kl_urdf_fail(file, KL_ERR_OUT_OF_MEMORY, "out of memory");
	}
	XML_SetUserData(r.parser, &r);
	XML_SetElementHandler(r.parser, on_start, on_end);
	enum XML_Status status = XML_Parse(r.parser, text, (int)length, XML_TRUE);
	if (status != XML_STATUS_OK && !r.failed)
	{
		kl_urdf_fail(file, KL_ERR_PARSE, "line %lu: XML error: %s", (unsigned long)XML_GetCurrentLineNumber(r.parser),
					 XML_ErrorString(XML_GetErrorCode(r.parser)));
		r.failed = true;
	}
	XML_ParserFree(r.parser);
	if (!r.failed && r.model->name == NULL)
	{
		kl_urdf_fail(file, KL_ERR_PARSE, "no <robot> element");
		r.failed = true;
	}
	if (r.failed)
	{
		for (int i = 0; i < r.model->joint_count; ++i)
		{
			kl_free(r.raw[i].parent_name);
			kl_free(r.raw[i].child_name);
		}
		kl_free(r.raw);
		kl_urdf_model_free(r.model);
		return NULL;
	}
	*raw_out = r.raw;
	return r.model;
}
