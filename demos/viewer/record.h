// Kollide viewer — PNG output: screenshots (F12, --screenshot) and frame sequences (--record).
// SPDX-License-Identifier: MIT
#pragma once

#include "app.h"

/// Writes the back buffer to path. False with a message in error.
bool kl_viewer_write_frame(kl_viewer_app* app, const char* path, char* error, int error_capacity);
/// kollide-YYYYMMDD-HHMMSS.png for the local time now.
void kl_viewer_screenshot_name(char* name, int capacity);
/// DIR/frame_NNNNNN.png.
void kl_viewer_record_name(const char* dir, int frame, char* name, int capacity);
/// Creates dir (one level) if it does not exist. False with a message.
bool kl_viewer_ensure_dir(const char* dir, char* error, int error_capacity);
