// Kollide robot cell — the I/O log: the outputs (coils and holding registers) each step read,
// written as changes, and its headless replay. The cell reads its outputs only at step boundaries,
// so applying the same changes at the same steps gives the same run, bit for bit.
// SPDX-License-Identifier: MIT
#include "cell.h"

#include <inttypes.h>
#include <stdint.h>
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

/// One line of a log: "STEP end" (table "end"), or "STEP coil|holding ADDRESS VALUE" with the
/// address inside the map and the value the table holds. Checked whole before the replay steps.
typedef struct log_line
{
	int64_t step;
	char table[16];
	long long address;
	long long value;
} log_line;

static bool parse_line(const kl_cell* cell, const char* text, int64_t from, log_line* l)
{
	char extra[2];
	int n = sscanf(text, "%" SCNd64 " %15s %lld %lld %1s", &l->step, l->table, &l->address, &l->value, extra);
	if (n < 2 || l->step < from || l->step > INT32_MAX)
	{
		return false;
	}
	if (strcmp(l->table, "end") == 0)
	{
		return n == 2;
	}
	bool coil = strcmp(l->table, "coil") == 0;
	bool holding = strcmp(l->table, "holding") == 0;
	long long addresses = coil ? cell->map->nb_bits : cell->map->nb_registers;
	return n == 4 && (coil || holding) && l->address >= 0 && l->address < addresses && l->value >= 0 &&
		   l->value <= (coil ? 1 : 65535);
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
		log_line l;
		if (!parse_line(cell, text, cell->step_count, &l))
		{
			ok = bad_line(error, size, line,
						  "expected \"STEP end\" or \"STEP coil|holding ADDRESS VALUE\" with steps in order (at most "
						  "2^31 - 1), an address in the map and a value the table holds");
			break;
		}
		while (cell->step_count < l.step)
		{
			kl_cell_step(cell);
		}
		ended = strcmp(l.table, "end") == 0;
		if (!ended && l.table[0] == 'c')
		{
			cell->map->tab_bits[l.address] = (uint8_t)l.value;
		}
		else if (!ended)
		{
			cell->map->tab_registers[l.address] = (uint16_t)l.value;
		}
	}
	fclose(f);
	return ok && (ended || bad_line(error, size, line, "the log has no \"STEP end\" line"));
}
