// Kollide robot cell — the I/O log: the outputs (coils and holding registers) each step read,
// written as changes, and its headless replay. The cell reads its outputs only at step boundaries,
// so applying the same changes at the same steps gives the same run, bit for bit.
// SPDX-License-Identifier: MIT
#include "cell.h"

#include <inttypes.h>
#include <string.h>

void kl_cell_log_outputs(kl_cell* cell)
{
	const modbus_mapping_t* m = cell->map;
	for (int a = 0; a < m->nb_bits; ++a)
	{
		if (m->tab_bits[a] != cell->last_coils[a] && cell->io_log != NULL)
		{
			fprintf(cell->io_log, "%" PRId64 " coil %d %d\n", cell->step_count, a, m->tab_bits[a]);
		}
		cell->last_coils[a] = m->tab_bits[a];
	}
	for (int a = 0; a < m->nb_registers; ++a)
	{
		if (m->tab_registers[a] != cell->last_holding[a] && cell->io_log != NULL)
		{
			fprintf(cell->io_log, "%" PRId64 " holding %d %d\n", cell->step_count, a, m->tab_registers[a]);
		}
		cell->last_holding[a] = m->tab_registers[a];
	}
}

static bool bad_line(char* error, int size, int line, const char* what)
{
	snprintf(error, (size_t)size, "I/O log line %d: %s", line, what);
	return false;
}

bool kl_cell_replay(kl_cell* cell, const char* path, char* error, int size)
{
	FILE* f = fopen(path, "r");
	if (f == NULL)
	{
		snprintf(error, (size_t)size, "cannot open the I/O log %s", path);
		return false;
	}
	char text[128];
	int line = 0;
	bool ok = true, ended = false;
	while (ok && !ended && fgets(text, sizeof(text), f) != NULL)
	{
		++line;
		int64_t step;
		char table[16];
		int address, value, n = sscanf(text, "%" SCNd64 " %15s %d %d", &step, table, &address, &value);
		if (n < 2 || step < cell->step_count || step > ((int64_t)1 << 40))
		{
			ok = bad_line(error, size, line, "expected \"STEP coil|holding ADDRESS VALUE\" or \"STEP end\", steps in order");
			break;
		}
		while (cell->step_count < step)
		{
			kl_cell_step(cell);
		}
		ended = strcmp(table, "end") == 0;
		bool coil = strcmp(table, "coil") == 0, holding = strcmp(table, "holding") == 0;
		if (ended)
		{
			break;
		}
		if (n != 4 || (!coil && !holding) || address < 0 || address >= (coil ? cell->map->nb_bits : cell->map->nb_registers) ||
			value < 0 || value > (coil ? 1 : 65535))
		{
			ok = bad_line(error, size, line, "unknown table, address or value");
			break;
		}
		if (coil)
		{
			cell->map->tab_bits[address] = (uint8_t)value;
		}
		else
		{
			cell->map->tab_registers[address] = (uint16_t)value;
		}
	}
	fclose(f);
	return ok && (ended || bad_line(error, size, line, "the log has no \"STEP end\" line"));
}
