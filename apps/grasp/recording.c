// Kollide grasp — the recording's text format, recorder and player.
// SPDX-License-Identifier: MIT
#include "recording.h"

#include "xr_hand.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KG_MAX_FRAMES 10000000

void kg_recording_init(kg_recording* r)
{
	memset(r, 0, sizeof(*r));
	r->hand_length = kg_default_hand_def().hand_length;
	r->object = -1;
	r->object_pose = kl_transform_identity();
}

void kg_recording_free(kg_recording* r)
{
	free(r->frames);
	kg_recording_init(r);
}

static bool pose_is_valid(kl_transform t)
{
	float qq = glms_quat_dot(t.q, t.q);
	for (int i = 0; i < 3; ++i)
		if (!isfinite(t.p.raw[i]) || fabsf(t.p.raw[i]) > 1e6f)
			return false;
	return isfinite(qq) && qq > 1e-6f;
}

bool kg_recording_add(kg_recording* r, const kg_frame* frame)
{
	kg_frame f = *frame;
	bool finite = isfinite(f.time) && pose_is_valid(f.wrist);
	for (int i = 0; i < KG_ANGLE_COUNT; ++i)
		finite = finite && isfinite(f.angles[i]);
	if (!finite)
	{
		kg_set_error("frame %d: a non-finite or absurd value", r->frame_count);
		return false;
	}
	if (r->frame_count > 0 && f.time < r->frames[r->frame_count - 1].time)
	{
		kg_set_error("frame %d: time %g before the last frame's", r->frame_count, f.time);
		return false;
	}
	if (r->frame_count >= KG_MAX_FRAMES)
	{
		kg_set_error("more than %d frames", KG_MAX_FRAMES);
		return false;
	}
	if (r->frame_count == r->frame_capacity)
	{
		int capacity = r->frame_capacity > 0 ? 2 * r->frame_capacity : 64;
		kg_frame* grown = realloc(r->frames, sizeof(kg_frame) * (size_t)capacity);
		if (grown == NULL)
		{
			kg_set_error("out of memory");
			return false;
		}
		r->frames = grown;
		r->frame_capacity = capacity;
	}
	f.wrist.q = glms_quat_normalize(f.wrist.q);
	kg_clamp_angles(f.angles);
	r->frames[r->frame_count++] = f;
	return true;
}

static void write_pose(FILE* out, kl_transform t)
{
	fprintf(out, " %.6f %.6f %.6f %.7f %.7f %.7f %.7f", t.p.x, t.p.y, t.p.z, t.q.w, t.q.x, t.q.y, t.q.z);
}

bool kg_recording_write(const kg_recording* r, const char* path)
{
	FILE* out = fopen(path, "w");
	if (out == NULL)
	{
		kg_set_error("cannot write %s", path);
		return false;
	}
	fprintf(out, "kollide-grasp-recording 1\nhand_length %.5f\n", r->hand_length);
	if (r->object >= 0)
	{
		kg_object o = kg_object_shape((kg_object_kind)r->object);
		fprintf(out, "object \"%s\"", o.name);
		write_pose(out, r->object_pose);
		fputc('\n', out);
	}
	if (r->label > 0)
		fprintf(out, "label %d\n", r->label);
	for (int i = 0; i < r->frame_count; ++i)
	{
		const kg_frame* f = &r->frames[i];
		fprintf(out, "frame %.6f", f->time);
		write_pose(out, f->wrist);
		for (int a = 0; a < KG_ANGLE_COUNT; ++a)
			fprintf(out, " %.3f", f->angles[a]);
		fputc('\n', out);
	}
	bool ok = !ferror(out);
	ok = fclose(out) == 0 && ok;
	if (!ok)
		kg_set_error("error writing %s", path);
	return ok;
}

int kg_object_find(const char* name)
{
	for (int k = 0; k < KG_OBJ_COUNT; ++k)
		if (strcmp(kg_object_shape((kg_object_kind)k).name, name) == 0)
			return k;
	return -1;
}

// Reads count floats from text; false unless exactly that many follow (and nothing else).
static bool read_floats(const char* text, double* v, int count)
{
	for (int i = 0; i < count; ++i)
	{
		char* end;
		v[i] = strtod(text, &end);
		if (end == text)
			return false;
		text = end;
	}
	while (*text == ' ' || *text == '\t' || *text == '\r' || *text == '\n')
		++text;
	return *text == '\0';
}

static kl_transform pose_of(const double* v)
{
	return (kl_transform){kl_vec3((float)v[0], (float)v[1], (float)v[2]),
						  kl_quat_wxyz((float)v[3], (float)v[4], (float)v[5], (float)v[6])};
}

static bool read_line(kg_recording* r, char* line, int number)
{
	double v[1 + 7 * KG_XR_JOINT_COUNT];
	char name[64];
	int used = 0;
	if (strncmp(line, "frame ", 6) == 0 && read_floats(line + 6, v, 8 + KG_ANGLE_COUNT))
	{
		kg_frame f = {v[0], pose_of(v + 1), {0}};
		for (int a = 0; a < KG_ANGLE_COUNT; ++a)
			f.angles[a] = (float)v[8 + a];
		return kg_recording_add(r, &f);
	}
	if (strncmp(line, "joints ", 7) == 0 && read_floats(line + 7, v, 1 + 7 * KG_XR_JOINT_COUNT))
	{
		kl_transform joints[KG_XR_JOINT_COUNT];
		for (int j = 0; j < KG_XR_JOINT_COUNT; ++j)
			joints[j] = pose_of(v + 1 + 7 * j);
		kg_frame f = {v[0], kl_transform_identity(), {0}};
		return kg_xr_angles_from_joints(joints, &f.wrist, f.angles) && kg_recording_add(r, &f);
	}
	if (sscanf(line, "hand_length %lf", v) == 1)
	{
		if (!(v[0] >= 0.12 && v[0] <= 0.26))
			return false;
		r->hand_length = (float)v[0];
		return true;
	}
	if (sscanf(line, "label %lf", v) == 1)
	{
		if (!(v[0] >= 1 && v[0] <= 33))
			return false;
		r->label = (int)v[0];
		return true;
	}
	if (sscanf(line, "object \"%63[^\"]\"%n", name, &used) == 1 && used > 0 && read_floats(line + used, v, 7))
	{
		r->object = kg_object_find(name);
		r->object_pose = pose_of(v);
		r->object_pose.q = glms_quat_normalize(r->object_pose.q);
		return r->object >= 0 && pose_is_valid(pose_of(v));
	}
	(void)number;
	return line[0] == '#' || line[strspn(line, " \t\r\n")] == '\0';
}

bool kg_recording_read(kg_recording* r, const char* path)
{
	kg_recording_init(r);
	FILE* in = fopen(path, "r");
	if (in == NULL)
	{
		kg_set_error("cannot read %s", path);
		return false;
	}
	char line[8192];
	int number = 1;
	bool ok = fgets(line, sizeof(line), in) != NULL && strncmp(line, "kollide-grasp-recording 1", 25) == 0;
	if (!ok)
		kg_set_error("%s: not a kollide grasp recording (first line)", path);
	while (ok && fgets(line, sizeof(line), in) != NULL)
	{
		++number;
		if (strchr(line, '\n') == NULL && !feof(in))
		{
			kg_set_error("%s:%d: line too long", path, number);
			ok = false;
		}
		else
		{
			kg_set_error("%s", "");
			if (!read_line(r, line, number))
			{
				bool why = kg_error()[0] != '\0';
				kg_set_error("%s:%d: malformed line%s%s%s", path, number, why ? " (" : "", kg_error(), why ? ")" : "");
				ok = false;
			}
		}
	}
	fclose(in);
	if (ok && r->frame_count == 0)
	{
		kg_set_error("%s: no frames", path);
		ok = false;
	}
	if (!ok)
	{
		char message[256];
		snprintf(message, sizeof(message), "%s", kg_error());
		kg_recording_free(r);
		kg_set_error("%s", message);
	}
	return ok;
}

kg_frame kg_recording_sample(const kg_recording* r, double t)
{
	int n = r->frame_count;
	if (n == 0)
		return (kg_frame){0.0, kl_transform_identity(), {0}};
	if (t <= r->frames[0].time)
		return r->frames[0];
	if (t >= r->frames[n - 1].time)
		return r->frames[n - 1];
	int lo = 0, hi = n - 1;
	while (hi - lo > 1)
	{
		int mid = (lo + hi) / 2;
		*(r->frames[mid].time <= t ? &lo : &hi) = mid;
	}
	const kg_frame *a = &r->frames[lo], *b = &r->frames[hi];
	float s = b->time > a->time ? (float)((t - a->time) / (b->time - a->time)) : 0.0f;
	kg_frame f = {t, {glms_vec3_lerp(a->wrist.p, b->wrist.p, s), glms_quat_slerp(a->wrist.q, b->wrist.q, s)}, {0}};
	for (int i = 0; i < KG_ANGLE_COUNT; ++i)
		f.angles[i] = a->angles[i] + (b->angles[i] - a->angles[i]) * s;
	return f;
}
