// Kollide render — cameras for a z-up world: an orbit camera (target, distance, yaw, pitch) and a
// fly camera (position, yaw, pitch), both producing view and projection matrices (cglm).
// SPDX-License-Identifier: MIT
#pragma once

#include <kollide/math.h>

typedef enum kl_camera_mode
{
	KL_CAMERA_ORBIT = 0,
	KL_CAMERA_FLY = 1,
} kl_camera_mode;

typedef struct kl_camera
{
	kl_camera_mode mode;
	vec3s target;	///< orbit centre
	vec3s position; ///< fly mode eye (orbit mode: derived)
	float distance; ///< orbit radius, m
	float yaw;		///< rad, about +z, 0 looks along +x
	float pitch;	///< rad, positive looks down
	float fov_y;	///< rad
	float near_plane;
	float far_plane;
	int width; ///< viewport, pixels
	int height;
} kl_camera;

/// An orbit camera looking at target from `distance`, a little from above.
kl_camera kl_camera_default(vec3s target, float distance, int width, int height);
vec3s kl_camera_eye(const kl_camera* camera);
/// Unit vector the camera looks along.
vec3s kl_camera_forward(const kl_camera* camera);
mat4s kl_camera_view(const kl_camera* camera);
mat4s kl_camera_projection(const kl_camera* camera);
/// World-space ray through the pixel (x right, y down, pixels): origin at the eye, unit direction.
void kl_camera_pixel_ray(const kl_camera* camera, float x, float y, vec3s* origin, vec3s* direction);
/// Mouse drag in pixels: orbit turns about the target, fly turns the view.
void kl_camera_rotate(kl_camera* camera, float dx, float dy);
/// Orbit: dolly (wheel steps); fly: move along the view.
void kl_camera_zoom(kl_camera* camera, float steps);
/// Pan (orbit) or move (fly) by screen-space pixels / key input in metres.
void kl_camera_pan(kl_camera* camera, float dx, float dy);
/// Moves by local_delta metres: x along the horizontal right, y along the view direction, z along
/// world up. Orbit mode moves the target, fly mode the eye.
void kl_camera_move(kl_camera* camera, vec3s local_delta);
/// Switches mode keeping the same eye and view direction.
void kl_camera_set_mode(kl_camera* camera, kl_camera_mode mode);
/// projection * view.
mat4s kl_camera_view_projection(const kl_camera* camera);
/// Projects a world point to pixels (x right, y down). False when it lies behind the eye.
bool kl_camera_project(const kl_camera* camera, vec3s point, float* x, float* y);
/// The point the camera looks at: the orbit target, or `distance` ahead of a fly camera (shadow
/// fitting and labels use it).
vec3s kl_camera_focus(const kl_camera* camera);
