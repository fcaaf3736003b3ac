// Kollide viewer — picking: the camera's pixel ray finds a body (kl_world_cast_ray); a target joint
// from a shapeless static anchor pulls the grabbed point towards where the mouse ray meets a plane
// facing the camera. The pull is soft and its force is capped in proportion to the body's weight,
// so light bodies follow briskly and heavy stacks are not torn apart.
// SPDX-License-Identifier: MIT
#include "picking.h"

#include <math.h>

/// Drag force cap, in body weights.
static const float kl_pick_force_weights = 100.0f;
static const float kl_pick_hertz = 5.0f;
static const float kl_pick_damping_ratio = 0.7f;

static const float kl_ball_radius = 0.25f;
static const float kl_ball_density = 4000.0f;
static const float kl_ball_speed = 30.0f;

void kl_viewer_pick_forget(kl_viewer_app* app)
{
	app->pick = (kl_viewer_pick){0};
}

static bool ray_plane(vec3s origin, vec3s direction, vec3s point, vec3s normal, vec3s* hit)
{
	float denom = glms_vec3_dot(direction, normal);
	if (fabsf(denom) < 1.0e-6f)
	{
		return false;
	}
	float t = glms_vec3_dot(glms_vec3_sub(point, origin), normal) / denom;
	if (!(t > 0.0f) || !isfinite(t))
	{
		return false;
	}
	*hit = glms_vec3_add(origin, glms_vec3_scale(direction, t));
	return true;
}

/// Creates the anchor body and the target joint at the grabbed point.
static bool attach(kl_viewer_app* app, kl_body_id body, vec3s point)
{
	kl_body_def bd = kl_default_body_def();
	bd.type = KL_BODY_STATIC;
	bd.name = "viewer_pick_anchor";
	kl_body_id anchor = kl_create_body(app->run.world, &bd);
	if (KL_IS_NULL(anchor))
	{
		return false;
	}
	kl_joint_def jd = kl_joint_def_from_world(KL_JOINT_TARGET, anchor, body, point, kl_vec3(0.0f, 0.0f, 1.0f));
	float g = glms_vec3_norm(kl_world_get_gravity(app->run.world));
	jd.max_motor_force = kl_pick_force_weights * kl_body_get_mass(body) * fmaxf(g, 1.0f);
	jd.enable_spring = true;
	jd.spring_hertz = kl_pick_hertz;
	jd.spring_damping_ratio = kl_pick_damping_ratio;
	jd.name = "viewer_pick";
	kl_joint_id joint = kl_create_joint(app->run.world, &jd);
	if (KL_IS_NULL(joint))
	{
		kl_destroy_body(anchor);
		return false;
	}
	kl_body_set_awake(body, true);
	app->pick.anchor = anchor;
	app->pick.joint = joint;
	return true;
}

bool kl_viewer_pick_begin(kl_viewer_app* app, float x, float y)
{
	kl_viewer_pick_end(app);
	vec3s origin;
	vec3s direction;
	kl_camera_pixel_ray(&app->camera, x, y, &origin, &direction);
	vec3s translation = glms_vec3_scale(direction, app->camera.far_plane);
	kl_ray_hit hit;
	if (!kl_world_cast_ray(app->run.world, origin, translation, kl_default_filter(), &hit))
	{
		return false;
	}
	if (kl_body_get_type(hit.body) != KL_BODY_DYNAMIC || !attach(app, hit.body, hit.point))
	{
		return false;
	}
	app->pick.active = true;
	app->pick.body = hit.body;
	app->pick.local_point = kl_inv_transform_point(kl_body_get_transform(hit.body), hit.point);
	app->pick.plane_point = hit.point;
	app->pick.plane_normal = glms_vec3_negate(kl_camera_forward(&app->camera));
	app->pick.target = hit.point;
	return true;
}

void kl_viewer_pick_update(kl_viewer_app* app, float x, float y)
{
	if (!app->pick.active)
	{
		return;
	}
	if (!kl_joint_is_valid(app->pick.joint))
	{
		kl_viewer_pick_end(app); // the body was destroyed under the mouse
		return;
	}
	vec3s origin;
	vec3s direction;
	kl_camera_pixel_ray(&app->camera, x, y, &origin, &direction);
	vec3s target;
	if (ray_plane(origin, direction, app->pick.plane_point, app->pick.plane_normal, &target))
	{
		app->pick.target = target;
		kl_joint_set_target(app->pick.joint, target);
	}
}

void kl_viewer_pick_end(kl_viewer_app* app)
{
	if (!app->pick.active)
	{
		return;
	}
	if (kl_joint_is_valid(app->pick.joint))
	{
		kl_destroy_joint(app->pick.joint);
	}
	if (kl_body_is_valid(app->pick.anchor))
	{
		kl_destroy_body(app->pick.anchor);
	}
	kl_viewer_pick_forget(app);
}

void kl_viewer_pick_draw(kl_viewer_app* app, const kl_debug_draw* draw)
{
	if (!app->pick.active || !kl_body_is_valid(app->pick.body))
	{
		return;
	}
	vec3s grabbed = kl_transform_point(kl_body_get_transform(app->pick.body), app->pick.local_point);
	if (draw->draw_segment != NULL)
	{
		draw->draw_segment(grabbed, app->pick.target, 0xffffff, draw->context);
	}
	if (draw->draw_point != NULL)
	{
		draw->draw_point(app->pick.target, 8.0f, 0xffff00, draw->context);
		draw->draw_point(grabbed, 6.0f, 0xff4040, draw->context);
	}
}

kl_body_id kl_viewer_throw_ball(kl_viewer_app* app, float x, float y)
{
	vec3s origin;
	vec3s direction;
	kl_camera_pixel_ray(&app->camera, x, y, &origin, &direction);
	kl_body_def bd = kl_default_body_def();
	bd.type = KL_BODY_DYNAMIC;
	bd.position = glms_vec3_add(origin, glms_vec3_scale(direction, 2.0f * kl_ball_radius));
	bd.linear_velocity = glms_vec3_scale(direction, kl_ball_speed);
	bd.is_bullet = true;
	bd.name = "ball";
	kl_body_id ball = kl_create_body(app->run.world, &bd);
	if (KL_IS_NULL(ball))
	{
		return ball;
	}
	kl_shape_def sd = kl_default_shape_def();
	sd.material.density = kl_ball_density;
	if (KL_IS_NULL(kl_create_sphere_shape(ball, &sd, kl_ball_radius)))
	{
		kl_destroy_body(ball);
		return kl_null_body_id;
	}
	return ball;
}
