// Kollide render — orbit and fly cameras for a z-up world.
// SPDX-License-Identifier: MIT
#include "camera.h"

#include <math.h>

/// Just short of straight up or down, where the look-at basis would lose its right axis.
#define KL_CAMERA_MAX_PITCH 1.55f

static float clampf(float x, float lo, float hi)
{
	return x < lo ? lo : (x > hi ? hi : x);
}

static float aspect_of(const kl_camera* camera)
{
	return camera->height > 0 && camera->width > 0 ? (float)camera->width / (float)camera->height : 1.0f;
}

kl_camera kl_camera_default(vec3s target, float distance, int width, int height)
{
	kl_camera c = {0};
	c.mode = KL_CAMERA_ORBIT;
	c.target = target;
	c.distance = distance > 0.0f ? distance : 10.0f;
	c.yaw = -2.4f; // from the +x, +y quadrant, the classic three-quarter view
	c.pitch = 0.45f;
	c.fov_y = 50.0f * 3.14159265f / 180.0f;
	c.near_plane = 0.02f;
	c.far_plane = 5000.0f;
	c.width = width;
	c.height = height;
	c.position = kl_camera_eye(&c);
	return c;
}

vec3s kl_camera_forward(const kl_camera* camera)
{
	float cp = cosf(camera->pitch);
	return kl_vec3(cp * cosf(camera->yaw), cp * sinf(camera->yaw), -sinf(camera->pitch));
}

/// Horizontal right of the view.
static vec3s camera_right(const kl_camera* camera)
{
	return kl_vec3(sinf(camera->yaw), -cosf(camera->yaw), 0.0f);
}

static vec3s camera_up(const kl_camera* camera)
{
	return glms_vec3_cross(camera_right(camera), kl_camera_forward(camera));
}

vec3s kl_camera_eye(const kl_camera* camera)
{
	if (camera->mode == KL_CAMERA_FLY)
	{
		return camera->position;
	}
	return glms_vec3_sub(camera->target, glms_vec3_scale(kl_camera_forward(camera), camera->distance));
}

vec3s kl_camera_focus(const kl_camera* camera)
{
	if (camera->mode == KL_CAMERA_ORBIT)
	{
		return camera->target;
	}
	return glms_vec3_add(camera->position, glms_vec3_scale(kl_camera_forward(camera), camera->distance));
}

mat4s kl_camera_view(const kl_camera* camera)
{
	vec3s eye = kl_camera_eye(camera);
	vec3s center = glms_vec3_add(eye, kl_camera_forward(camera));
	return glms_lookat(eye, center, kl_vec3(0.0f, 0.0f, 1.0f));
}

/// The near plane follows the orbit distance a little, so that a 100 m scene seen from afar keeps
/// its depth precision while a close-up of a card house can still come near.
static float effective_near(const kl_camera* camera)
{
	float n = camera->near_plane > 0.0f ? camera->near_plane : 0.01f;
	return fmaxf(n, 0.002f * camera->distance);
}

mat4s kl_camera_projection(const kl_camera* camera)
{
	float n = effective_near(camera);
	float f = fmaxf(camera->far_plane, n * 2.0f);
	return glms_perspective(camera->fov_y, aspect_of(camera), n, f);
}

mat4s kl_camera_view_projection(const kl_camera* camera)
{
	return glms_mat4_mul(kl_camera_projection(camera), kl_camera_view(camera));
}

bool kl_camera_project(const kl_camera* camera, vec3s point, float* x, float* y)
{
	vec4s clip = glms_mat4_mulv(kl_camera_view_projection(camera), glms_vec4(point, 1.0f));
	if (clip.w <= 1.0e-6f)
	{
		return false;
	}
	float nx = clip.x / clip.w;
	float ny = clip.y / clip.w;
	*x = (nx * 0.5f + 0.5f) * (float)camera->width;
	*y = (0.5f - ny * 0.5f) * (float)camera->height;
	return true;
}

void kl_camera_pixel_ray(const kl_camera* camera, float x, float y, vec3s* origin, vec3s* direction)
{
	float nx = 2.0f * x / (float)(camera->width > 0 ? camera->width : 1) - 1.0f;
	float ny = 1.0f - 2.0f * y / (float)(camera->height > 0 ? camera->height : 1);
	float t = tanf(0.5f * camera->fov_y);
	vec3s d = kl_camera_forward(camera);
	d = glms_vec3_add(d, glms_vec3_scale(camera_right(camera), nx * t * aspect_of(camera)));
	d = glms_vec3_add(d, glms_vec3_scale(camera_up(camera), ny * t));
	*origin = kl_camera_eye(camera);
	*direction = glms_vec3_normalize(d);
}

void kl_camera_rotate(kl_camera* camera, float dx, float dy)
{
	const float radians_per_pixel = 0.005f;
	camera->yaw -= dx * radians_per_pixel;
	camera->pitch = clampf(camera->pitch + dy * radians_per_pixel, -KL_CAMERA_MAX_PITCH, KL_CAMERA_MAX_PITCH);
	camera->yaw = remainderf(camera->yaw, 2.0f * 3.14159265f);
}

void kl_camera_zoom(kl_camera* camera, float steps)
{
	if (camera->mode == KL_CAMERA_ORBIT)
	{
		camera->distance = clampf(camera->distance * powf(0.88f, steps), 0.01f, 1.0e5f);
		return;
	}
	float stride = fmaxf(0.1f * camera->distance, 0.05f);
	camera->position = glms_vec3_add(camera->position, glms_vec3_scale(kl_camera_forward(camera), steps * stride));
}

void kl_camera_pan(kl_camera* camera, float dx, float dy)
{
	// Metres per pixel at the focus distance, so that the grabbed point follows the mouse.
	float height = (float)(camera->height > 0 ? camera->height : 1);
	float scale = 2.0f * camera->distance * tanf(0.5f * camera->fov_y) / height;
	vec3s delta = glms_vec3_add(glms_vec3_scale(camera_right(camera), -dx * scale),
								glms_vec3_scale(camera_up(camera), dy * scale));
	if (camera->mode == KL_CAMERA_ORBIT)
	{
		camera->target = glms_vec3_add(camera->target, delta);
	}
	else
	{
		camera->position = glms_vec3_add(camera->position, delta);
	}
}

void kl_camera_move(kl_camera* camera, vec3s local_delta)
{
	vec3s delta = glms_vec3_scale(camera_right(camera), local_delta.x);
	delta = glms_vec3_add(delta, glms_vec3_scale(kl_camera_forward(camera), local_delta.y));
	delta = glms_vec3_add(delta, kl_vec3(0.0f, 0.0f, local_delta.z));
	if (camera->mode == KL_CAMERA_ORBIT)
	{
		camera->target = glms_vec3_add(camera->target, delta);
	}
	else
	{
		camera->position = glms_vec3_add(camera->position, delta);
	}
}

void kl_camera_set_mode(kl_camera* camera, kl_camera_mode mode)
{
	if (mode == camera->mode)
	{
		return;
	}
	if (mode == KL_CAMERA_FLY)
	{
		camera->position = kl_camera_eye(camera);
	}
	else
	{
		camera->target = glms_vec3_add(camera->position, glms_vec3_scale(kl_camera_forward(camera), camera->distance));
	}
	camera->mode = mode;
	camera->position = kl_camera_eye(camera);
}
