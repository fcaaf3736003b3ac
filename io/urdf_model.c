// Kollide — URDF models: loading a file or text, the checks of the kinematic tree (one root, one
// parent per link, no cycles) and of the numbers the engine will take, lookups and freeing.
// SPDX-License-Identifier: MIT
#include "load_common.h"
#include "urdf_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

kl_urdf_model* kl_urdf_fail(const char* file, kl_result code, const char* format, ...)
{
	char text[480];
	va_list args;
	va_start(args, format);
	vsnprintf(text, sizeof(text), format, args);
	va_end(args);
	kl_fail(code, "%s%s%s", file != NULL ? file : "", file != NULL ? ": " : "", text);
	return NULL;
}

static void free_geometries(kl_urdf_geometry* g, int count)
{
	for (int i = 0; i < count; ++i)
	{
		kl_free(g[i].filename);
		kl_free(g[i].uri);
	}
	kl_free(g);
}

void kl_urdf_model_free(kl_urdf_model* model)
{
	if (model == NULL)
	{
		return;
	}
	for (int i = 0; i < model->link_count; ++i)
	{
		kl_free(model->links[i].name);
		free_geometries(model->links[i].collisions, model->links[i].collision_count);
		free_geometries(model->links[i].visuals, model->links[i].visual_count);
	}
	for (int i = 0; i < model->joint_count; ++i)
	{
		kl_free(model->joints[i].name);
	}
	kl_free(model->links);
	kl_free(model->joints);
	kl_free(model->link_order);
	kl_free(model->name);
	kl_free(model);
}

int kl_urdf_find_link(const kl_urdf_model* model, const char* name)
{
	for (int i = 0; model != NULL && name != NULL && i < model->link_count; ++i)
	{
		if (strcmp(model->links[i].name, name) == 0)
		{
			return i;
		}
	}
	return -1;
}

int kl_urdf_find_joint(const kl_urdf_model* model, const char* name)
{
	for (int i = 0; model != NULL && name != NULL && i < model->joint_count; ++i)
	{
		if (strcmp(model->joints[i].name, name) == 0)
		{
			return i;
		}
	}
	return -1;
}

bool kl_urdf_joint_moves(const kl_urdf_joint* joint)
{
	return joint != NULL && joint->type != KL_URDF_FIXED;
}

// ---------------------------------------------------------------------------------------------
// The tree

static bool check_unique_names(const kl_urdf_model* m, const char* file)
{
	for (int i = 0; i < m->link_count; ++i)
	{
		if (kl_urdf_find_link(m, m->links[i].name) != i)
		{
			kl_urdf_fail(file, KL_ERR_PARSE, "two links are named '%s'", m->links[i].name);
			return false;
		}
	}
	for (int i = 0; i < m->joint_count; ++i)
	{
		if (kl_urdf_find_joint(m, m->joints[i].name) != i)
		{
			kl_urdf_fail(file, KL_ERR_PARSE, "two joints are named '%s'", m->joints[i].name);
			return false;
		}
	}
	return true;
}

/// Normalises the axis and checks the limits of a joint.
static bool check_joint(kl_urdf_joint* j, const char* file)
{
	double n = sqrt(j->axis[0] * j->axis[0] + j->axis[1] * j->axis[1] + j->axis[2] * j->axis[2]);
	if (j->type != KL_URDF_FIXED && !(n > 1.0e-9))
	{
		kl_urdf_fail(file, KL_ERR_PARSE, "joint '%s': the axis is zero", j->name);
		return false;
	}
	for (int k = 0; k < 3 && n > 1.0e-9; ++k)
	{
		j->axis[k] /= n;
	}
	if (j->has_limit && !(j->lower <= j->upper))
	{
		kl_urdf_fail(file, KL_ERR_PARSE, "joint '%s': lower limit %g is above the upper %g", j->name, j->lower,
					 j->upper);
		return false;
	}
	return true;
}

static bool link_joints(kl_urdf_model* m, const kl_urdf_raw_joint* raw, const char* file)
{
	for (int i = 0; i < m->joint_count; ++i)
	{
		kl_urdf_joint* j = &m->joints[i];
		if (raw[i].parent_name == NULL || raw[i].child_name == NULL)
		{
			kl_urdf_fail(file, KL_ERR_PARSE, "joint '%s' needs a <parent link> and a <child link>", j->name);
			return false;
		}
		j->parent = kl_urdf_find_link(m, raw[i].parent_name);
		j->child = kl_urdf_find_link(m, raw[i].child_name);
		if (j->parent < 0 || j->child < 0)
		{
			kl_urdf_fail(file, KL_ERR_PARSE, "joint '%s' names the missing link '%s'", j->name,
						 j->parent < 0 ? raw[i].parent_name : raw[i].child_name);
			return false;
		}
		kl_urdf_link* child = &m->links[j->child];
		if (child->parent_joint >= 0)
		{
			kl_urdf_fail(file, KL_ERR_PARSE, "link '%s' is the child of two joints ('%s' and '%s')", child->name,
						 m->joints[child->parent_joint].name, j->name);
			return false;
		}
		child->parent_joint = i;
		if (!check_joint(j, file))
		{
			return false;
		}
	}
	return true;
}

/// Orders the links from the root, parents first; fails on several roots, none, or a cycle.
static bool order_links(kl_urdf_model* m, const char* file)
{
	int root = -1;
	for (int i = 0; i < m->link_count; ++i)
	{
		if (m->links[i].parent_joint >= 0)
		{
			continue;
		}
		if (root >= 0)
		{
			kl_urdf_fail(file, KL_ERR_PARSE, "two root links ('%s' and '%s'): every link but one needs a parent joint",
						 m->links[root].name, m->links[i].name);
			return false;
		}
		root = i;
	}
	if (root < 0)
	{
		kl_urdf_fail(file, KL_ERR_PARSE, "no root link: the joints form a cycle");
		return false;
	}
	m->link_order = kl_alloc((size_t)m->link_count, sizeof(int));
	if (m->link_order == NULL)
	{
		return false;
	}
	// Breadth first: a link enters once its parent has.
	int count = 0;
	m->link_order[count++] = root;
	for (int head = 0; head < count; ++head)
	{
		for (int j = 0; j < m->joint_count; ++j)
		{
			if (m->joints[j].parent == m->link_order[head])
			{
				m->link_order[count++] = m->joints[j].child;
			}
		}
	}
	if (count != m->link_count)
	{
		for (int i = 0; i < m->link_count; ++i)
		{
			bool reached = false;
			for (int k = 0; k < count && !reached; ++k)
			{
				reached = m->link_order[k] == i;
			}
			if (!reached)
			{
				kl_urdf_fail(file, KL_ERR_PARSE, "link '%s' is on a cycle of joints, not reached from the root '%s'",
							 m->links[i].name, m->links[root].name);
				return false;
			}
		}
	}
	return true;
}

bool kl_urdf_build_tree(kl_urdf_model* model, const kl_urdf_raw_joint* raw, const char* file)
{
	if (model->link_count == 0)
	{
		kl_urdf_fail(file, KL_ERR_PARSE, "robot '%s' has no links", model->name);
		return false;
	}
	return check_unique_names(model, file) && link_joints(model, raw, file) && order_links(model, file);
}

// ---------------------------------------------------------------------------------------------
// Loading

kl_urdf_load_options kl_default_urdf_load_options(void)
{
	kl_urdf_load_options options = {0};
	return options;
}

static kl_urdf_model* parse(const char* text, size_t length, const kl_urdf_load_options* options, const char* base_dir,
							const char* file)
{
	kl_urdf_load_options defaults = kl_default_urdf_load_options();
	options = options != NULL ? options : &defaults;
	if (options->package_path_count < 0 || options->package_path_count > KL_URDF_MAX_PACKAGE_PATHS ||
		(options->package_path_count > 0 && options->package_paths == NULL))
	{
		return kl_urdf_fail(file, KL_ERR_INVALID_ARGUMENT, "package paths: %d given, at most %d, and not NULL",
							options->package_path_count, KL_URDF_MAX_PACKAGE_PATHS);
	}
	kl_urdf_raw_joint* raw = NULL;
	kl_urdf_model* model = kl_urdf_read_xml(text, length, file, &raw);
	if (model == NULL)
	{
		return NULL;
	}
	bool ok = kl_urdf_build_tree(model, raw, file) &&
			  kl_urdf_resolve_meshes(model, options, options->base_dir != NULL ? options->base_dir : base_dir, file);
	for (int i = 0; i < model->joint_count; ++i)
	{
		kl_free(raw[i].parent_name);
		kl_free(raw[i].child_name);
	}
	kl_free(raw);
	if (!ok)
	{
		kl_urdf_model_free(model);
		return NULL;
	}
	return model;
}

kl_urdf_model* kl_urdf_parse(const char* text, size_t length, const kl_urdf_load_options* options)
{
	if (text == NULL)
	{
		return kl_urdf_fail(NULL, KL_ERR_INVALID_ARGUMENT, "URDF text is NULL");
	}
	return parse(text, length, options, "", NULL);
}

kl_urdf_model* kl_urdf_load_file(const char* path, const kl_urdf_load_options* options)
{
	if (path == NULL)
	{
		return kl_urdf_fail(NULL, KL_ERR_INVALID_ARGUMENT, "URDF path is NULL");
	}
	size_t length = 0;
	char* text = NULL;
	if (kl_read_file(path, KL_URDF_MAX_FILE_SIZE, &text, &length) != KL_OK)
	{
		return NULL;
	}
	// The directory part of the path; a bare name resolves in the working directory.
	char* dir = kl_strdup(path);
	kl_urdf_model* model = NULL;
	if (dir != NULL)
	{
		char* slash = strrchr(dir, '/');
		if (slash == NULL)
		{
			dir[0] = '\0';
		}
		else
		{
			slash[slash == dir ? 1 : 0] = '\0';
		}
		model = parse(text, length, options, dir, path);
	}
	kl_free(dir);
	kl_free(text);
	return model;
}
