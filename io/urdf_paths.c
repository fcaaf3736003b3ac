// Kollide — URDF mesh file names: package://PKG/REST through the package directories, file://
// and absolute names as they are, other names relative to the URDF's directory.
// SPDX-License-Identifier: MIT
#include "urdf_internal.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static bool file_exists(const char* path)
{
	FILE* f = fopen(path, "rb");
	if (f != NULL)
	{
		fclose(f);
	}
	return f != NULL;
}

/// dir + "/" + rest (just rest for an empty dir). Owned; NULL when out of memory.
static char* join(const char* dir, const char* rest)
{
	size_t a = strlen(dir);
	size_t b = strlen(rest);
	char* s = kl_alloc(a + b + 2, 1);
	if (s != NULL)
	{
		memcpy(s, dir, a);
		size_t n = a;
		if (a > 0 && dir[a - 1] != '/')
		{
			s[n++] = '/';
		}
		memcpy(s + n, rest, b + 1);
	}
	return s;
}

/// Sets *found to the file a mesh URI names, or NULL (with searched saying where it looked).
/// False only when out of memory.
static bool find_mesh(const char* uri, const kl_urdf_load_options* options, const char* base_dir, char** found,
					  char* searched, size_t searched_size)
{
	*found = NULL;
	searched[0] = '\0';
	if (strncmp(uri, "package://", 10) == 0)
	{
		size_t used = 0;
		for (int i = 0; i < options->package_path_count; ++i)
		{
			char* path = join(options->package_paths[i] != NULL ? options->package_paths[i] : "", uri + 10);
			if (path == NULL)
			{
				return false;
			}
			if (file_exists(path))
			{
				*found = path;
				return true;
			}
			if (used < searched_size)
			{
				used += (size_t)snprintf(searched + used, searched_size - used, "%s%s", i > 0 ? ", " : "", path);
			}
			kl_free(path);
		}
		if (options->package_path_count == 0)
		{
			snprintf(searched, searched_size, "a package folder, but none was given");
		}
		return true;
	}
	const char* name = strncmp(uri, "file://", 7) == 0 ? uri + 7 : uri;
	char* path = name[0] == '/' ? kl_strdup(name) : join(base_dir, name);
	if (path == NULL)
	{
		return false;
	}
	if (file_exists(path))
	{
		*found = path;
		return true;
	}
	snprintf(searched, searched_size, "%s", path);
	kl_free(path);
	return true;
}

/// True for the extensions kl_mesh_data_load reads.
static bool loadable(const char* path)
{
	const char* dot = strrchr(path, '.');
	static const char* const known[] = {".stl", ".obj", ".off", ".ply"};
	for (int i = 0; dot != NULL && i < 4; ++i)
	{
		if (strcasecmp(dot, known[i]) == 0)
		{
			return true;
		}
	}
	return false;
}

bool kl_urdf_resolve_meshes(kl_urdf_model* model, const kl_urdf_load_options* options, const char* base_dir,
							const char* file)
{
	char searched[400];
	for (int i = 0; i < model->link_count; ++i)
	{
		kl_urdf_link* link = &model->links[i];
		for (int k = 0; k < link->collision_count; ++k)
		{
			kl_urdf_geometry* g = &link->collisions[k];
			if (g->type != KL_URDF_MESH)
			{
				continue;
			}
			if (!loadable(g->uri))
			{
				kl_urdf_fail(file, KL_ERR_UNSUPPORTED, "link '%s': collision mesh '%s' is not STL, OBJ, OFF or PLY",
							 link->name, g->uri);
				return false;
			}
			if (!find_mesh(g->uri, options, base_dir, &g->filename, searched, sizeof(searched)))
			{
				return false;
			}
			if (g->filename == NULL)
			{
				kl_urdf_fail(file, KL_ERR_IO, "link '%s': collision mesh '%s' not found (looked for %s)", link->name,
							 g->uri, searched);
				return false;
			}
		}
		// Visual meshes are optional: one that is missing or in another format (COLLADA) is kept
		// without a file name, and a viewer draws the collision shapes instead.
		for (int k = 0; k < link->visual_count; ++k)
		{
			kl_urdf_geometry* g = &link->visuals[k];
			if (g->type == KL_URDF_MESH && loadable(g->uri) &&
				!find_mesh(g->uri, options, base_dir, &g->filename, searched, sizeof(searched)))
			{
				return false;
			}
		}
	}
	return true;
}
