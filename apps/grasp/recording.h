// Kollide grasp — recorded hand poses: a text file of frames (time, wrist pose, 16 joint angles),
// with the hand length, an optional object and an optional label (docs/grasp.md has the format).
// SPDX-License-Identifier: MIT
#pragma once

#include "hand.h"
#include "objects.h"

typedef struct kg_frame
{
	double time;		///< seconds, not decreasing
	kl_transform wrist; ///< the wrist frame in the world
	float angles[KG_ANGLE_COUNT];
} kg_frame;

typedef struct kg_recording
{
	float hand_length;
	int object;				  ///< kg_object_kind, −1: none
	kl_transform object_pose; ///< in the world
	int label;				  ///< grasp type 1 to 33, 0: none
	kg_frame* frames;
	int frame_count, frame_capacity;
} kg_recording;

void kg_recording_init(kg_recording* recording);
void kg_recording_free(kg_recording* recording);
/// The recorder: appends a frame (angles clamped to the joint limits). False with kg_error() for a
/// non-finite value, a time before the last frame's, or out of memory; the recording is unchanged then.
bool kg_recording_add(kg_recording* recording, const kg_frame* frame);
bool kg_recording_write(const kg_recording* recording, const char* path);
/// Reads a recording; false with kg_error() naming the line for a malformed file (nothing is kept).
bool kg_recording_read(kg_recording* recording, const char* path);
/// The player: the frame at time t, angles and wrist interpolated between the frames around it.
kg_frame kg_recording_sample(const kg_recording* recording, double t);
/// The object kind named name, −1 if none is.
int kg_object_find(const char* name);
