// Kollide render — shadow map target and light frustum fitting.
// SPDX-License-Identifier: MIT
#include "shadow.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

bool kl_shadow_map_create(kl_shadow_map* s, int size, char* error, int error_capacity)
{
	memset(s, 0, sizeof(*s));
	s->size = size;
	s->view_proj = glms_mat4_identity();
	glGenTextures(1, &s->texture);
	glBindTexture(GL_TEXTURE_2D, s->texture);
	glTexImage2D(GL_TEXTURE_2D, 0, GL_DEPTH_COMPONENT24, size, size, 0, GL_DEPTH_COMPONENT, GL_UNSIGNED_INT, NULL);
	// Linear filtering with comparison gives 2×2 hardware PCF per tap.
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_MODE, GL_COMPARE_REF_TO_TEXTURE);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_FUNC, GL_LEQUAL);
	glBindTexture(GL_TEXTURE_2D, 0);
	glGenFramebuffers(1, &s->fbo);
	glBindFramebuffer(GL_FRAMEBUFFER, s->fbo);
	glFramebufferTexture2D(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_TEXTURE_2D, s->texture, 0);
	glDrawBuffer(GL_NONE);
	glReadBuffer(GL_NONE);
	GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
	if (status != GL_FRAMEBUFFER_COMPLETE)
	{
		if (error != NULL && error_capacity > 0)
		{
			snprintf(error, (size_t)error_capacity, "shadow map framebuffer incomplete (0x%x)", (unsigned)status);
		}
		kl_shadow_map_destroy(s);
		return false;
	}
	return true;
}

void kl_shadow_map_destroy(kl_shadow_map* s)
{
	if (s->fbo != 0)
	{
		glDeleteFramebuffers(1, &s->fbo);
	}
	if (s->texture != 0)
	{
		glDeleteTextures(1, &s->texture);
	}
	memset(s, 0, sizeof(*s));
}

void kl_shadow_map_fit(kl_shadow_map* s, vec3s light_dir, vec3s focus, float radius, kl_aabb casters)
{
	vec3s f = glms_vec3_negate(glms_vec3_normalize(light_dir)); // the light looks along f
	vec3s hint = fabsf(f.z) < 0.95f ? kl_vec3(0.0f, 0.0f, 1.0f) : kl_vec3(1.0f, 0.0f, 0.0f);
	vec3s r = glms_vec3_normalize(glms_vec3_cross(f, hint));
	vec3s u = glms_vec3_cross(r, f);
	mat4s view = glms_mat4_identity();
	view.raw[0][0] = r.x, view.raw[1][0] = r.y, view.raw[2][0] = r.z;
	view.raw[0][1] = u.x, view.raw[1][1] = u.y, view.raw[2][1] = u.z;
	view.raw[0][2] = -f.x, view.raw[1][2] = -f.y, view.raw[2][2] = -f.z;

	// Snap the centre to whole texels so that shadow edges do not crawl as the camera moves.
	float texel = 2.0f * radius / (float)s->size;
	float cx = floorf(glms_vec3_dot(focus, r) / texel) * texel;
	float cy = floorf(glms_vec3_dot(focus, u) / texel) * texel;

	float dmin = glms_vec3_dot(focus, f) - radius;
	float dmax = glms_vec3_dot(focus, f) + radius;
	if (casters.lower.x <= casters.upper.x)
	{
		for (int k = 0; k < 8; ++k)
		{
			vec3s corner = kl_vec3((k & 1) ? casters.upper.x : casters.lower.x,
								   (k & 2) ? casters.upper.y : casters.lower.y,
								   (k & 4) ? casters.upper.z : casters.lower.z);
			float d = glms_vec3_dot(corner, f);
			dmin = fminf(dmin, d);
			dmax = fmaxf(dmax, d);
		}
	}
	float pad = 0.01f * (dmax - dmin) + 0.01f;
	mat4s proj = glms_ortho(cx - radius, cx + radius, cy - radius, cy + radius, dmin - pad, dmax + pad);
	s->view_proj = glms_mat4_mul(proj, view);
	s->texel_world = texel;
}

void kl_shadow_map_begin(const kl_shadow_map* s)
{
	glBindFramebuffer(GL_FRAMEBUFFER, s->fbo);
	glViewport(0, 0, s->size, s->size);
	glEnable(GL_DEPTH_TEST);
	glDepthMask(GL_TRUE);
	glClear(GL_DEPTH_BUFFER_BIT);
	glEnable(GL_POLYGON_OFFSET_FILL);
	glPolygonOffset(1.5f, 2.0f);
}

void kl_shadow_map_end(const kl_shadow_map* s)
{
	(void)s;
	glDisable(GL_POLYGON_OFFSET_FILL);
	glBindFramebuffer(GL_FRAMEBUFFER, 0);
}
