// Kollide render — GLSL 3.30 sources and program building.
// SPDX-License-Identifier: MIT
#include "shaders.h"

#include <stdio.h>
#include <string.h>

// ---------------------------------------------------------------------------------------------
// Shared GLSL

#define KL_GLSL_VERSION "#version 330 core\n"
#define KL_GLSL_SHADOWS "#define KL_SHADOWS 1\n"

/// Lighting shared by solids and planes, in linear light: Lambert sun with a soft PCF shadow, a
/// hemisphere ambient (sky above, warm ground bounce below), a little Blinn-Phong specular and a
/// gentle distance fog that fades into the horizon colour.
static const char* lighting_glsl =
	"uniform vec3 u_eye;\n"
	"uniform vec3 u_light_dir;\n" // towards the sun, unit
	"uniform vec3 u_sky;\n"
	"uniform vec3 u_ground;\n"
	"uniform vec3 u_fog_color;\n"
	"uniform float u_fog_density;\n"
	// Gamma 2 instead of 2.2: the same look for a square and a square root instead of two pow calls,
	// which matters to a software rasteriser.
	"vec3 to_linear(vec3 c) { return c * c; }\n"
	"vec3 to_display(vec3 c) { return sqrt(c); }\n"
	"#ifdef KL_SHADOWS\n"
	"uniform sampler2DShadow u_shadow_map;\n"
	"uniform mat4 u_light_view_proj;\n"
	"uniform float u_shadow_texel;\n" // world size of one shadow map texel
	"float sun_visibility(vec3 world, vec3 n) {\n"
	"  float slope = 1.0 - abs(dot(n, u_light_dir));\n"
	"  vec3 p = world + n * u_shadow_texel * (1.0 + 1.5 * slope);\n" // normal offset against acne
	"  vec4 l = u_light_view_proj * vec4(p, 1.0);\n"
	"  vec3 c = l.xyz / l.w * 0.5 + 0.5;\n"
	"  vec2 edge = min(c.xy, 1.0 - c.xy);\n"
	"  if (c.z >= 1.0 || min(edge.x, edge.y) <= 0.0) return 1.0;\n"
	// Four bilinear comparison taps half a texel apart: a 3×3 texel tent filter.
	"  vec2 t = 0.5 / vec2(textureSize(u_shadow_map, 0));\n"
	"  float lit = 0.25 * (texture(u_shadow_map, vec3(c.xy + vec2(-t.x, -t.y), c.z)) +\n"
	"                      texture(u_shadow_map, vec3(c.xy + vec2(t.x, -t.y), c.z)) +\n"
	"                      texture(u_shadow_map, vec3(c.xy + vec2(-t.x, t.y), c.z)) +\n"
	"                      texture(u_shadow_map, vec3(c.xy + vec2(t.x, t.y), c.z)));\n"
	"  float fade = clamp(min(edge.x, edge.y) * 20.0, 0.0, 1.0);\n" // no hard border at the map's edge
	"  return mix(1.0, lit, fade);\n"
	"}\n"
	"#else\n"
	"float sun_visibility(vec3 world, vec3 n) { return 1.0; }\n"
	"#endif\n"
	"vec3 shade(vec3 base_display, vec3 world, vec3 n, float specular) {\n"
	"  vec3 base = to_linear(base_display);\n"
	"  vec3 to_eye = u_eye - world;\n"
	"  float dist = length(to_eye);\n"
	"  vec3 v = to_eye / max(dist, 1e-6);\n"
	"  if (dot(n, v) < 0.0) n = -n;\n" // open meshes and planes seen from behind
	"  float ndl = max(dot(n, u_light_dir), 0.0);\n"
	"  float sun = ndl > 0.0 ? ndl * sun_visibility(world, n) : 0.0;\n"
	"  vec3 ambient = mix(u_ground, u_sky, 0.5 + 0.5 * n.z);\n"
	"  float s = max(dot(n, normalize(u_light_dir + v)), 0.0);\n"
	"  s *= s; s *= s; s *= s; s *= s; s *= s;\n" // s^32: Blinn-Phong without pow
	"  vec3 c = base * (ambient + vec3(1.0, 0.96, 0.9) * 1.1 * sun) + vec3(specular * s * sun);\n"
	"  float d = dist * u_fog_density;\n"
	"  float fog = 1.0 - exp(-d * d);\n"
	"  return to_display(mix(c, to_linear(u_fog_color), fog));\n"
	"}\n";

/// The colour map, the same control points as kl_colormap in heatmap.c.
static const char* colormap_glsl =
	"vec3 kl_colormap(float t) {\n"
	"  const vec3 c0 = vec3(0.169, 0.071, 0.365);\n"
	"  const vec3 c1 = vec3(0.157, 0.290, 0.561);\n"
	"  const vec3 c2 = vec3(0.094, 0.522, 0.514);\n"
	"  const vec3 c3 = vec3(0.416, 0.737, 0.306);\n"
	"  const vec3 c4 = vec3(0.988, 0.894, 0.145);\n"
	"  float s = clamp(t, 0.0, 1.0) * 4.0;\n"
	"  if (s < 1.0) return mix(c0, c1, s);\n"
	"  if (s < 2.0) return mix(c1, c2, s - 1.0);\n"
	"  if (s < 3.0) return mix(c2, c3, s - 2.0);\n"
	"  return mix(c3, c4, s - 3.0);\n"
	"}\n";

/// Instanced shapes: p + rotate(q, scale * vertex); capsules move their hemispheres apart instead.
static const char* solid_vs =
	"layout(location = 0) in vec3 a_pos;\n"
	"layout(location = 1) in vec3 a_normal;\n"
	"layout(location = 2) in float a_side;\n"
	"layout(location = 3) in float a_value;\n"
	"layout(location = 4) in vec3 i_pos;\n"
	"layout(location = 5) in vec4 i_rot;\n"
	"layout(location = 6) in vec3 i_scale;\n"
	"layout(location = 7) in vec4 i_color;\n"
	"uniform mat4 u_view_proj;\n"
	"uniform int u_capsule;\n"
	"out vec3 v_world;\n"
	"out vec3 v_normal;\n"
	"out vec4 v_color;\n"
	"out float v_value;\n"
	"vec3 qrot(vec4 q, vec3 v) { vec3 t = 2.0 * cross(q.xyz, v); return v + q.w * t + cross(q.xyz, t); }\n"
	"void main() {\n"
	"  vec3 local;\n"
	"  vec3 n;\n"
	"  if (u_capsule != 0) {\n"
	"    local = a_pos * i_scale.x + vec3(0.0, 0.0, a_side * i_scale.z);\n"
	"    n = a_normal;\n"
	"  } else {\n"
	"    local = a_pos * i_scale;\n"
	"    n = a_normal / max(abs(i_scale), vec3(1e-6));\n" // inverse transpose of the scale
	"  }\n"
	"  v_world = i_pos + qrot(i_rot, local);\n"
	"  v_normal = qrot(i_rot, n);\n"
	"  v_color = i_color;\n"
	"  v_value = a_value;\n"
	"  gl_Position = u_view_proj * vec4(v_world, 1.0);\n"
	"}\n";

static const char* solid_fs =
	"in vec3 v_world;\n"
	"in vec3 v_normal;\n"
	"in vec4 v_color;\n"
	"in float v_value;\n"
	"uniform int u_heatmap;\n"
	"uniform vec2 u_range;\n"
	"out vec4 o_color;\n"
	"void main() {\n"
	"  vec3 base = v_color.rgb;\n"
	"  if (u_heatmap != 0) base = kl_colormap((v_value - u_range.x) / max(u_range.y - u_range.x, 1e-20));\n"
	"  vec3 n = normalize(v_normal);\n"
	"  o_color = vec4(shade(base, v_world, n, 0.25), 1.0);\n"
	"}\n";

static const char* depth_fs = "void main() {}\n";

static const char* edges_fs =
	"in vec4 v_color;\n"
	"out vec4 o_color;\n"
	"void main() { o_color = vec4(v_color.rgb, 1.0); }\n";

/// A plane as one large quad around a centre, with a fading two-level grid.
static const char* plane_vs =
	"uniform mat4 u_view_proj;\n"
	"uniform vec3 u_center;\n"
	"uniform vec3 u_axis_u;\n"
	"uniform vec3 u_axis_v;\n"
	"uniform float u_half_size;\n"
	"out vec3 v_world;\n"
	"void main() {\n"
	"  vec2 c = vec2((gl_VertexID & 1) != 0 ? 1.0 : -1.0, (gl_VertexID & 2) != 0 ? 1.0 : -1.0);\n"
	"  v_world = u_center + (c.x * u_axis_u + c.y * u_axis_v) * u_half_size;\n"
	"  gl_Position = u_view_proj * vec4(v_world, 1.0);\n"
	"}\n";

static const char* plane_fs =
	"in vec3 v_world;\n"
	"uniform vec3 u_origin;\n" // grid origin: fixed in the world so lines do not swim
	"uniform vec3 u_axis_u;\n"
	"uniform vec3 u_axis_v;\n"
	"uniform vec3 u_normal;\n"
	"uniform vec3 u_color;\n"
	"uniform vec3 u_line_color;\n"
	"uniform float u_spacing;\n"
	"uniform float u_extent;\n" // grid lines end here (the plane itself goes on)
	"out vec4 o_color;\n"
	"float grid_line(vec2 uv, float spacing) {\n"
	"  vec2 g = uv / spacing;\n"
	"  vec2 w = fwidth(g);\n"
	"  vec2 d = abs(fract(g - 0.5) - 0.5) / max(w, vec2(1e-6));\n"
	"  float line = 1.0 - min(min(d.x, d.y), 1.0);\n"
	"  return line * clamp(1.5 - 2.0 * max(w.x, w.y), 0.0, 1.0);\n" // fade where lines crowd
	"}\n"
	"void main() {\n"
	"  vec3 r = v_world - u_origin;\n"
	"  vec2 uv = vec2(dot(r, u_axis_u), dot(r, u_axis_v));\n"
	"  float minor = grid_line(uv, u_spacing);\n"
	"  float major = grid_line(uv, u_spacing * 10.0);\n"
	"  float inside = (u_extent > 0.0 && max(abs(uv.x), abs(uv.y)) > u_extent) ? 0.0 : 1.0;\n"
	"  vec3 base = mix(u_color, u_line_color, inside * max(0.45 * minor, 0.9 * major));\n"
	"  o_color = vec4(shade(base, v_world, u_normal, 0.05), 1.0);\n"
	"}\n";

/// Sky gradient by view elevation, drawn as one triangle behind everything.
static const char* background_vs =
	"out vec2 v_ndc;\n"
	"void main() {\n"
	"  vec2 p = vec2((gl_VertexID == 1) ? 3.0 : -1.0, (gl_VertexID == 2) ? 3.0 : -1.0);\n"
	"  v_ndc = p;\n"
	"  gl_Position = vec4(p, 1.0, 1.0);\n"
	"}\n";

static const char* background_fs =
	"in vec2 v_ndc;\n"
	"uniform vec3 u_forward;\n"
	"uniform vec3 u_right;\n" // scaled by tan(fov/2) * aspect
	"uniform vec3 u_up;\n"	   // scaled by tan(fov/2)
	"uniform vec3 u_zenith;\n"
	"uniform vec3 u_horizon;\n"
	"uniform vec3 u_nadir;\n"
	"out vec4 o_color;\n"
	"void main() {\n"
	"  vec3 d = normalize(u_forward + v_ndc.x * u_right + v_ndc.y * u_up);\n"
	"  vec3 c = d.z >= 0.0 ? mix(u_horizon, u_zenith, pow(smoothstep(0.0, 1.0, d.z), 0.6))\n"
	"                      : mix(u_horizon, u_nadir, smoothstep(0.0, 0.5, -d.z));\n"
	"  o_color = vec4(c, 1.0);\n"
	"}\n";

/// Lines and points: position, colour and point size per vertex, pulled a hair towards the eye so
/// that overlays on a surface win the depth test.
static const char* lines_vs =
	"layout(location = 0) in vec3 a_pos;\n"
	"layout(location = 1) in vec4 a_color;\n"
	"layout(location = 2) in float a_size;\n"
	"uniform mat4 u_view_proj;\n"
	"uniform float u_depth_pull;\n"
	"out vec4 v_color;\n"
	"void main() {\n"
	"  gl_Position = u_view_proj * vec4(a_pos, 1.0);\n"
	"  gl_Position.z -= u_depth_pull * gl_Position.w;\n"
	"  gl_PointSize = a_size;\n"
	"  v_color = a_color;\n"
	"}\n";

static const char* lines_fs =
	"in vec4 v_color;\n"
	"uniform int u_round;\n"
	"out vec4 o_color;\n"
	"void main() {\n"
	"  if (u_round != 0) {\n"
	"    vec2 d = gl_PointCoord * 2.0 - 1.0;\n"
	"    float r = dot(d, d);\n"
	"    if (r > 1.0) discard;\n"
	"    o_color = vec4(v_color.rgb * (r > 0.55 ? 0.35 : 1.0), 1.0);\n" // dark rim: visible on any colour
	"    return;\n"
	"  }\n"
	"  o_color = v_color;\n"
	"}\n";

// ---------------------------------------------------------------------------------------------
// Building

static void set_error(char* error, int capacity, const char* name, const char* what, const char* log)
{
	if (error != NULL && capacity > 0)
	{
		snprintf(error, (size_t)capacity, "shader '%s': %s: %s", name, what, log);
	}
}

static GLuint compile(const char* name, GLenum stage, const char* const* parts, int part_count, char* error,
					  int error_capacity)
{
	GLuint shader = glCreateShader(stage);
	glShaderSource(shader, part_count, parts, NULL);
	glCompileShader(shader);
	GLint ok = GL_FALSE;
	glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
	if (ok != GL_TRUE)
	{
		char log[1024] = "";
		glGetShaderInfoLog(shader, (GLsizei)sizeof(log), NULL, log);
		set_error(error, error_capacity, name, stage == GL_VERTEX_SHADER ? "vertex stage" : "fragment stage", log);
		glDeleteShader(shader);
		return 0;
	}
	return shader;
}

static GLuint link_program(const char* name, const char* const* vs, int vs_count, const char* const* fs, int fs_count,
						   char* error, int error_capacity)
{
	GLuint v = compile(name, GL_VERTEX_SHADER, vs, vs_count, error, error_capacity);
	if (v == 0)
	{
		return 0;
	}
	GLuint f = compile(name, GL_FRAGMENT_SHADER, fs, fs_count, error, error_capacity);
	if (f == 0)
	{
		glDeleteShader(v);
		return 0;
	}
	GLuint program = glCreateProgram();
	glAttachShader(program, v);
	glAttachShader(program, f);
	glLinkProgram(program);
	glDeleteShader(v);
	glDeleteShader(f);
	GLint ok = GL_FALSE;
	glGetProgramiv(program, GL_LINK_STATUS, &ok);
	if (ok != GL_TRUE)
	{
		char log[1024] = "";
		glGetProgramInfoLog(program, (GLsizei)sizeof(log), NULL, log);
		set_error(error, error_capacity, name, "link", log);
		glDeleteProgram(program);
		return 0;
	}
	return program;
}

GLuint kl_shader_program(const char* name, const char* vertex_source, const char* fragment_source, char* error,
						 int error_capacity)
{
	const char* vs[2] = {KL_GLSL_VERSION, vertex_source};
	const char* fs[2] = {KL_GLSL_VERSION, fragment_source};
	return link_program(name, vs, 2, fs, 2, error, error_capacity);
}

bool kl_shaders_create(kl_shaders* s, char* error, int error_capacity)
{
	memset(s, 0, sizeof(*s));
	const char* vs[2] = {KL_GLSL_VERSION, solid_vs};
	const char* depth[2] = {KL_GLSL_VERSION, depth_fs};
	const char* edges[2] = {KL_GLSL_VERSION, edges_fs};
	const char* plane_v[2] = {KL_GLSL_VERSION, plane_vs};
	bool ok = true;
	// Lit programs come in two variants, without and with shadows (index 1).
	for (int shadows = 0; shadows < 2 && ok; ++shadows)
	{
		const char* define = shadows ? KL_GLSL_SHADOWS : "";
		const char* solid[5] = {KL_GLSL_VERSION, define, lighting_glsl, colormap_glsl, solid_fs};
		const char* plane_f[4] = {KL_GLSL_VERSION, define, lighting_glsl, plane_fs};
		s->solid[shadows] = link_program("solid", vs, 2, solid, 5, error, error_capacity);
		if (s->solid[shadows] != 0)
		{
			s->plane[shadows] = link_program("plane", plane_v, 2, plane_f, 4, error, error_capacity);
		}
		ok = s->plane[shadows] != 0;
	}
	s->depth = ok ? link_program("depth", vs, 2, depth, 2, error, error_capacity) : 0;
	s->edges = s->depth ? link_program("edges", vs, 2, edges, 2, error, error_capacity) : 0;
	s->background = s->edges ? kl_shader_program("background", background_vs, background_fs, error, error_capacity) : 0;
	s->lines = s->background ? kl_shader_program("lines", lines_vs, lines_fs, error, error_capacity) : 0;
	if (s->lines == 0)
	{
		kl_shaders_destroy(s);
		return false;
	}
	return true;
}

void kl_shaders_destroy(kl_shaders* s)
{
	GLuint* programs[] = {&s->solid[0], &s->solid[1], &s->depth, &s->edges, &s->plane[0], &s->plane[1], &s->background,
						  &s->lines};
	for (size_t i = 0; i < sizeof(programs) / sizeof(programs[0]); ++i)
	{
		if (*programs[i] != 0)
		{
			glDeleteProgram(*programs[i]);
			*programs[i] = 0;
		}
	}
}
