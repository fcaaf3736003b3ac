// Kollide viewer — input: SDL events become camera moves, layer toggles, simulation control and
// picking. Left drag on a body drags it; left drag elsewhere (or right drag) turns the camera;
// middle or shift-left drag pans; the wheel zooms.
// SPDX-License-Identifier: MIT
#include "input.h"

#include "hud.h"
#include "picking.h"

#include <SDL.h>

#include <math.h>

static void select_scene(kl_viewer_app* app, int index)
{
	int count = 0;
	kl_scene_list(&count);
	if (count == 0)
	{
		return;
	}
	index = ((index % count) + count) % count;
	if (!kl_viewer_app_load_scene(app, index))
	{
		kl_viewer_app_set_status(app, "the scene failed to start (see the terminal)");
	}
}

/// 1 cycles the shapes: lit solids → wireframe → hidden → lit solids.
static void cycle_shapes(kl_render_layers* layers)
{
	if (layers->shapes && !layers->wireframe)
	{
		layers->wireframe = true;
	}
	else if (layers->shapes)
	{
		layers->shapes = false;
		layers->wireframe = false;
	}
	else
	{
		layers->shapes = true;
	}
}

/// Key 0 cycles the point-shell overlays: conglomerate boxes, then octree leaf cells, then the
/// point shells' samples, then none.
static void cycle_pointshell(kl_render_layers* layers)
{
	bool boxes = layers->conglomerates, cells = layers->octree_cells, samples = layers->point_shells;
	layers->conglomerates = !boxes && !cells && !samples;
	layers->octree_cells = boxes;
	layers->point_shells = cells;
}

/// Key I cycles the penalty contact model's overlays: inner spheres, then overlapping sphere pairs
/// (coloured by depth), then both, then none.
static void cycle_penalty(kl_render_layers* layers)
{
	int next = ((layers->inner_spheres ? 1 : 0) + (layers->penalty_pairs ? 2 : 0) + 1) % 4;
	layers->inner_spheres = (next & 1) != 0;
	layers->penalty_pairs = (next & 2) != 0;
}

/// Keys 2-9 toggle one overlay each.
static bool* layer_for_digit(kl_render_layers* layers, int digit)
{
	switch (digit)
	{
		case 2: return &layers->aabbs;
		case 3: return &layers->contacts;
		case 4: return &layers->contact_normals;
		case 5: return &layers->contact_forces;
		case 6: return &layers->joints;
		case 7: return &layers->islands;
		case 8: return &layers->mass;
		case 9: return &layers->names;
		default: return NULL;
	}
}

static void digit_key(kl_viewer_app* app, int digit)
{
	if (app->show_menu)
	{
		if (digit > 0)
		{
			select_scene(app, digit - 1);
		}
		return;
	}
	if (digit == 1)
	{
		cycle_shapes(&app->layers);
		return;
	}
	if (digit == 0)
	{
		cycle_pointshell(&app->layers);
		return;
	}
	bool* layer = layer_for_digit(&app->layers, digit);
	if (layer != NULL)
	{
		*layer = !*layer;
	}
}

static void toggle_camera(kl_viewer_app* app)
{
	kl_camera_set_mode(&app->camera, app->camera.mode == KL_CAMERA_ORBIT ? KL_CAMERA_FLY : KL_CAMERA_ORBIT);
}

/// Keys that act alone (not digits).
static bool command_key(kl_viewer_app* app, int key)
{
	switch (key)
	{
		case SDLK_ESCAPE:
			// Esc closes the menu first, then the viewer.
			app->quit = !app->show_menu;
			app->show_menu = false;
			return true;
		case SDLK_F1: app->show_help = !app->show_help; return true;
		case SDLK_F2: app->show_hud = !app->show_hud; return true;
		case SDLK_F12: app->screenshot_pending = true; return true;
		case SDLK_TAB:
		case SDLK_l: app->show_menu = !app->show_menu; return true;
		case SDLK_LEFTBRACKET: select_scene(app, app->scene_index - 1); return true;
		case SDLK_RIGHTBRACKET: select_scene(app, app->scene_index + 1); return true;
		case SDLK_g: app->show_grid = !app->show_grid; return true;
		case SDLK_h: app->layers.shadows = !app->layers.shadows; return true;
		case SDLK_p: app->paused = !app->paused; return true;
		case SDLK_o:
		case SDLK_n:
			app->paused = true;
			app->step_once = true;
			return true;
		case SDLK_m: app->slow_motion = !app->slow_motion; return true;
		case SDLK_r:
			if (!kl_viewer_app_reset(app))
			{
				kl_viewer_app_set_status(app, "reset failed (see the terminal)");
			}
			return true;
		case SDLK_SPACE: kl_viewer_throw_ball(app, app->mouse_x, app->mouse_y); return true;
		case SDLK_c: toggle_camera(app); return true;
		case SDLK_i: cycle_penalty(&app->layers); return true;
		default: return false;
	}
}

void kl_viewer_input_key(kl_viewer_app* app, int sdl_keycode, bool shift)
{
	(void)shift;
	if (sdl_keycode >= SDLK_0 && sdl_keycode <= SDLK_9)
	{
		digit_key(app, sdl_keycode - SDLK_0);
		return;
	}
	command_key(app, sdl_keycode);
}

static void mouse_down(kl_viewer_app* app, const SDL_MouseButtonEvent* e)
{
	float x = (float)e->x;
	float y = (float)e->y;
	bool shift = (SDL_GetModState() & KMOD_SHIFT) != 0;
	if (e->button == SDL_BUTTON_LEFT)
	{
		int item = kl_viewer_menu_hit(app, x, y);
		if (item >= 0)
		{
			select_scene(app, item);
		}
		else if (shift)
		{
			app->panning = true;
		}
		else if (!kl_viewer_pick_begin(app, x, y))
		{
			app->rotating = true;
		}
	}
	else if (e->button == SDL_BUTTON_RIGHT)
	{
		app->rotating = true;
	}
	else if (e->button == SDL_BUTTON_MIDDLE)
	{
		app->panning = true;
	}
}

static void mouse_up(kl_viewer_app* app, const SDL_MouseButtonEvent* e)
{
	if (e->button == SDL_BUTTON_LEFT)
	{
		kl_viewer_pick_end(app);
	}
	app->rotating = false;
	app->panning = false;
}

static void mouse_motion(kl_viewer_app* app, const SDL_MouseMotionEvent* e)
{
	app->mouse_x = (float)e->x;
	app->mouse_y = (float)e->y;
	if (app->pick.active)
	{
		kl_viewer_pick_update(app, app->mouse_x, app->mouse_y);
	}
	else if (app->panning)
	{
		kl_camera_pan(&app->camera, (float)e->xrel, (float)e->yrel);
	}
	else if (app->rotating)
	{
		kl_camera_rotate(&app->camera, (float)e->xrel, (float)e->yrel);
	}
}

void kl_viewer_input_poll(kl_viewer_app* app)
{
	SDL_Event e;
	while (SDL_PollEvent(&e))
	{
		switch (e.type)
		{
			case SDL_QUIT: app->quit = true; break;
			case SDL_KEYDOWN:
				if (!e.key.repeat)
				{
					kl_viewer_input_key(app, e.key.keysym.sym, (e.key.keysym.mod & KMOD_SHIFT) != 0);
				}
				break;
			case SDL_MOUSEBUTTONDOWN: mouse_down(app, &e.button); break;
			case SDL_MOUSEBUTTONUP: mouse_up(app, &e.button); break;
			case SDL_MOUSEMOTION: mouse_motion(app, &e.motion); break;
			case SDL_MOUSEWHEEL: kl_camera_zoom(&app->camera, e.wheel.preciseY); break;
			default: break;
		}
	}
}

void kl_viewer_input_update(kl_viewer_app* app, float seconds)
{
	const Uint8* keys = SDL_GetKeyboardState(NULL);
	if (keys == NULL)
	{
		return;
	}
	vec3s move = kl_vec3((float)(keys[SDL_SCANCODE_D] - keys[SDL_SCANCODE_A]),
						 (float)(keys[SDL_SCANCODE_W] - keys[SDL_SCANCODE_S]),
						 (float)(keys[SDL_SCANCODE_E] - keys[SDL_SCANCODE_Q]));
	if (move.x == 0.0f && move.y == 0.0f && move.z == 0.0f)
	{
		return;
	}
	// A scene's size per second; shift runs three times faster.
	float speed = fmaxf(2.0f, app->scene_radius) * ((SDL_GetModState() & KMOD_SHIFT) ? 3.0f : 1.0f);
	kl_camera_move(&app->camera, glms_vec3_scale(move, speed * seconds));
}
