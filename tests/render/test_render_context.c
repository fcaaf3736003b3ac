// The render module's GL context opens headless, glad loads, and drawing reaches the read-back pixels.
#include "gl_context.h"

#include <glad/gl.h>

#include <stdio.h>
#include <stdlib.h>

int main(void)
{
	char error[512] = "";
	kl_gl_context* c = kl_gl_context_create(64, 48, "kollide test", error, (int)sizeof(error));
	if (c == NULL)
	{
		fprintf(stderr, "FAIL: %s\n", error);
		return 1;
	}
	printf("context: %s\n", kl_gl_context_describe(c));
	// Clear to one colour, then scissor a second colour into the top-left quarter.
	glClearColor(0.2f, 0.4f, 0.6f, 1.0f);
	glClear(GL_COLOR_BUFFER_BIT);
	glEnable(GL_SCISSOR_TEST);
	glScissor(0, 24, 32, 24); // GL origin is bottom-left
	glClearColor(1.0f, 0.0f, 0.0f, 1.0f);
	glClear(GL_COLOR_BUFFER_BIT);
	glDisable(GL_SCISSOR_TEST);
	unsigned char* px = malloc(64 * 48 * 3);
	int ok = px != NULL && kl_gl_context_read_rgb(c, px);
	int failures = !ok;
	if (ok)
	{
		const unsigned char* tl = px + (5 * 64 + 5) * 3;	// top-left quarter: red
		const unsigned char* br = px + (40 * 64 + 50) * 3; // elsewhere: the clear colour
		failures += !(tl[0] == 255 && tl[1] == 0 && tl[2] == 0);
		failures += !(abs(br[0] - 51) <= 1 && abs(br[1] - 102) <= 1 && abs(br[2] - 153) <= 1);
		printf("top-left %u,%u,%u bottom-right %u,%u,%u\n", tl[0], tl[1], tl[2], br[0], br[1], br[2]);
	}
	free(px);
	kl_gl_context_destroy(c);
	printf("%s\n", failures ? "FAIL" : "OK");
	return failures ? 1 : 0;
}
